// The C API's read side: compiled filters, consumers and their batches, parallel counts, and the typed
// JSON of a delivered message.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "capi/internal.h"
#include "sift/filter_spec.h"
#include "sift/parallel_scan.h"

namespace sift::capi {
namespace {

constexpr size_t kConsumerOptionsSize = sizeof(sift_consumer_options);
constexpr uint32_t kMaxThreads = 64;

sift_status NullArgument(sift_error** error, const char* function, const char* argument) {
  return Fail(error, SIFT_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

// A copy of `text` that sift_free frees.
char* MallocCopy(std::string_view text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

// Counts the matches of a parallel scan: nothing per match but an increment.
class CountSink : public ScanSink {
 public:
  bool Deliver(const Delivery&) override {
    ++count_;
    return true;
  }
  uint64_t count() const { return count_; }

 private:
  uint64_t count_ = 0;
};

}  // namespace

bool ToConsumerOptions(const sift_consumer_options* in, const char* stream, ConsumerOptions* out, sift_error** error,
                       sift_status* status) {
  out->stream = stream;
  if (in == nullptr) return true;
  auto bad = [&](const std::string& why) {
    *status = Fail(error, SIFT_INVALID_ARGUMENT, std::string("bad consumer options: stream '") + stream + "': " + why);
    return false;
  };
  if (in->struct_size < kConsumerOptionsSize) {
    return bad("sift_consumer_options.struct_size is " + std::to_string(in->struct_size) +
               " (call sift_consumer_options_init first)");
  }
  if (in->filter != nullptr) out->filter = in->filter->compiled;
  switch (RawEnum(in->start)) {
    case SIFT_START_FIRST: out->start = StartPosition::First(); break;
    case SIFT_START_LAST: out->start = StartPosition::Last(); break;
    case SIFT_START_NEXT: out->start = StartPosition::Next(); break;
    case SIFT_START_OFFSET: out->start = StartPosition::Offset(in->start_offset); break;
    case SIFT_START_FROM_END: out->start = StartPosition::FromEnd(in->start_offset); break;
    case SIFT_START_TIMESTAMP: out->start = StartPosition::Timestamp(in->start_timestamp_ms); break;
    default: return bad("unknown start " + std::to_string(RawEnum(in->start)));
  }
  switch (RawEnum(in->end)) {
    case SIFT_END_NONE: out->end = EndPosition::None(); break;
    case SIFT_END_OFFSET: out->end = EndPosition::Offset(in->end_offset); break;
    case SIFT_END_TIMESTAMP: out->end = EndPosition::Timestamp(in->end_timestamp_ms); break;
    default: return bad("unknown end " + std::to_string(RawEnum(in->end)));
  }
  if (in->credit == 0) return bad("credit is 0 (at least 1)");
  if (in->max_scan_per_poll == 0) return bad("max_scan_per_poll is 0 (at least 1)");
  out->follow = in->follow != 0;
  out->credit = in->credit;
  out->max_scan_per_poll = in->max_scan_per_poll;
  out->on_corruption = in->skip_corrupt_chunks != 0 ? CorruptionPolicy::kSkip : CorruptionPolicy::kStop;
  out->skip_chunks = in->skip_chunks != 0;
  return true;
}

void ToScanStats(const ConsumerStats& in, sift_scan_stats* out) {
  out->scanned = in.scanned;
  out->matched = in.matched;
  out->bytes = in.bytes;
  out->chunks = in.chunks;
  out->chunks_pruned = in.chunks_pruned;
  out->chunks_corrupt = in.chunks_corrupt;
  out->retention_lost = in.retention_lost;
  out->elapsed_ns = static_cast<uint64_t>(in.elapsed.count());
}

}  // namespace sift::capi

using sift::capi::Fail;
using sift::capi::Guard;
using sift::capi::NullArgument;
using sift::capi::Ok;
using sift::capi::Report;

extern "C" {

sift_status sift_filter_compile(const sift_filter_clause* clauses, size_t count, sift_filter** filter,
                                sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (filter == nullptr) return NullArgument(error, "sift_filter_compile", "filter");
    *filter = nullptr;
    if (clauses == nullptr && count != 0) return NullArgument(error, "sift_filter_compile", "clauses");
    sift::FilterSpec spec;
    for (size_t i = 0; i < count; ++i) {
      if (clauses[i].text == nullptr) {
        return Fail(error, SIFT_INVALID_ARGUMENT,
                    "sift_filter_compile: clauses[" + std::to_string(i) + "].text is NULL");
      }
      sift::FilterKind kind;
      switch (sift::capi::RawEnum(clauses[i].kind)) {
        case SIFT_FILTER_SQL: kind = sift::FilterKind::kSql; break;
        case SIFT_FILTER_JMS: kind = sift::FilterKind::kJms; break;
        case SIFT_FILTER_PROPERTIES: kind = sift::FilterKind::kProperties; break;
        case SIFT_FILTER_APPLICATION_PROPERTIES: kind = sift::FilterKind::kApplicationProperties; break;
        default:
          return Fail(error, SIFT_INVALID_ARGUMENT,
                      "sift_filter_compile: clauses[" + std::to_string(i) + "].kind " +
                          std::to_string(sift::capi::RawEnum(clauses[i].kind)) + " is not a sift_filter_kind");
      }
      spec.Add(kind, clauses[i].text);
    }
    auto made = std::make_unique<sift_filter>();
    sift::FilterError why;
    sift::Status s = spec.Compile(&made->compiled, &why);
    if (!s.ok()) {
      sift_status code = Report(error, s);
      if (error != nullptr && *error != nullptr && !sift::capi::IsSentinel(*error)) {
        (*error)->has_clause = true;
        (*error)->clause = why.clause;
        (*error)->has_position = why.has_position;
        (*error)->position = why.position;
        (*error)->selector_code = why.code;
      }
      return code;
    }
    *filter = made.release();
    return Ok(error);
  });
}

sift_status sift_filter_explain(const sift_filter* filter, char** text, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (text == nullptr) return NullArgument(error, "sift_filter_explain", "text");
    *text = nullptr;
    if (filter == nullptr) return NullArgument(error, "sift_filter_explain", "filter");
    *text = sift::capi::MallocCopy(filter->compiled.Explain());
    if (*text == nullptr) return Fail(error, SIFT_NO_MEMORY, "sift_filter_explain: out of memory");
    return Ok(error);
  });
}

void sift_filter_free(sift_filter* filter) { delete filter; }

void sift_consumer_options_init(sift_consumer_options* options) {
  if (options == nullptr) return;
  const sift::ConsumerOptions defaults;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->start = SIFT_START_FIRST;
  options->end = SIFT_END_NONE;
  options->credit = defaults.credit;
  options->max_scan_per_poll = defaults.max_scan_per_poll;
  options->skip_corrupt_chunks = 0;
  options->skip_chunks = defaults.skip_chunks ? 1 : 0;
}

sift_status sift_consumer_open(sift_store* store, const char* stream, const sift_consumer_options* options,
                               sift_consumer** consumer, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (consumer == nullptr) return NullArgument(error, "sift_consumer_open", "consumer");
    *consumer = nullptr;
    if (store == nullptr) return NullArgument(error, "sift_consumer_open", "store");
    if (stream == nullptr) return NullArgument(error, "sift_consumer_open", "stream");
    sift::ConsumerOptions consumer_options;
    sift_status status = SIFT_OK;
    if (!sift::capi::ToConsumerOptions(options, stream, &consumer_options, error, &status)) return status;
    auto made = std::make_unique<sift_consumer>();
    made->engine = store->engine;
    sift::Status s = store->engine->NewConsumer(consumer_options, &made->consumer);
    if (!s.ok()) return Report(error, s);
    *consumer = made.release();
    return Ok(error);
  });
}

void sift_consumer_close(sift_consumer* consumer) { delete consumer; }

sift_batch* sift_batch_new(void) { return new (std::nothrow) sift_batch; }

void sift_batch_free(sift_batch* batch) { delete batch; }

sift_status sift_consumer_poll(sift_consumer* consumer, sift_batch* batch, uint32_t wait_ms, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (consumer == nullptr) return NullArgument(error, "sift_consumer_poll", "consumer");
    if (batch == nullptr) return NullArgument(error, "sift_consumer_poll", "batch");
    batch->view.clear();
    sift::Status s = consumer->consumer->Poll(&batch->batch, std::chrono::milliseconds(wait_ms));
    batch->view.reserve(batch->batch.size());
    for (const sift::Delivery& d : batch->batch) {
      batch->view.push_back(sift_delivery{d.offset(), d.timestamp_ms(),
                                          reinterpret_cast<const uint8_t*>(d.bytes().data()), d.bytes().size()});
    }
    return Report(error, s);
  });
}

const sift_delivery* sift_batch_deliveries(const sift_batch* batch, size_t* count) {
  if (batch == nullptr) {
    if (count != nullptr) *count = 0;
    return nullptr;
  }
  if (count != nullptr) *count = batch->view.size();
  return batch->view.data();
}

int sift_consumer_done(const sift_consumer* consumer) {
  return consumer != nullptr && consumer->consumer->done() ? 1 : 0;
}

uint64_t sift_consumer_position(const sift_consumer* consumer) {
  return consumer != nullptr ? consumer->consumer->position() : 0;
}

void sift_consumer_stats(const sift_consumer* consumer, sift_scan_stats* stats) {
  if (stats == nullptr) return;
  std::memset(stats, 0, sizeof(*stats));
  if (consumer != nullptr) sift::capi::ToScanStats(consumer->consumer->stats(), stats);
}

sift_status sift_count(sift_store* store, const char* stream, const sift_consumer_options* options, uint32_t threads,
                       uint64_t* matched, sift_scan_stats* stats, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (matched == nullptr) return NullArgument(error, "sift_count", "matched");
    *matched = 0;
    if (store == nullptr) return NullArgument(error, "sift_count", "store");
    if (stream == nullptr) return NullArgument(error, "sift_count", "stream");
    if (threads > sift::capi::kMaxThreads) {
      return Fail(error, SIFT_INVALID_ARGUMENT,
                  "sift_count: threads is " + std::to_string(threads) + " (at most 64; 0: one per core)");
    }
    sift::ParallelScanOptions scan;
    sift_status status = SIFT_OK;
    if (!sift::capi::ToConsumerOptions(options, stream, &scan.consumer, error, &status)) return status;
    if (scan.consumer.follow) {
      return Fail(error, SIFT_INVALID_ARGUMENT, "sift_count: follow is 1 (a count needs an end)");
    }
    // As `sift replay -f count` reads: batches of 4096, and no block cache filled by a one-off scan.
    scan.consumer.credit = 4096;
    scan.consumer.fill_cache = false;
    scan.threads = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    sift::capi::CountSink sink;
    sift::ParallelScanStats scan_stats;
    sift::Status s = store->engine->ParallelScan(scan, &sink, &scan_stats);
    if (stats != nullptr) {
      std::memset(stats, 0, sizeof(*stats));
      sift::capi::ToScanStats(scan_stats.consumer, stats);
      stats->matched = sink.count();
    }
    if (!s.ok()) return Report(error, s);
    *matched = sink.count();
    return Ok(error);
  });
}

sift_status sift_message_to_json(const void* data, size_t size, uint64_t offset, char** json, size_t* length,
                                 sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (json == nullptr) return NullArgument(error, "sift_message_to_json", "json");
    *json = nullptr;
    if (data == nullptr && size != 0) return NullArgument(error, "sift_message_to_json", "data");
    const sift::Delivery delivery(offset, 0, std::string_view(static_cast<const char*>(data), data ? size : 0));
    std::string text;
    sift::Status s = delivery.ToJson(&text);
    if (!s.ok()) return Report(error, s);
    *json = sift::capi::MallocCopy(text);
    if (*json == nullptr) return Fail(error, SIFT_NO_MEMORY, "sift_message_to_json: out of memory");
    if (length != nullptr) *length = text.size();
    return Ok(error);
  });
}

}  // extern "C"
