// Consumer: the scan loop of a filtered read (see sift/consumer.h), and StreamEngine::NewConsumer.
//
// The hot loop is reader->Next → MessageFilter::Matches (text prefilter, then the selector over a
// MessageFieldSource). Neither allocates per record once warm (the reader hands out views into pinned
// chunk values, the filter's source and context are sized at construction), so a rejected message
// costs no heap traffic; only a match copies its bytes into the caller's DeliveryBatch.
#include "sift/consumer.h"

#include <algorithm>
#include <utility>

#include "engine/chunk_skipper.h"
#include "engine/compiled_filter.h"
#include "engine/message_filter.h"
#include "engine/stream_engine_impl.h"
#include "sift/stream_engine.h"
#include "storage/stream_reader.h"

namespace sift {

// The engine's internals behind the API.
using engine::ChunkSkipper;
using engine::FromStorage;
using engine::MessageFieldSource;
using engine::MessageFilter;
using engine::NoSuchStream;
using engine::SelectorOf;

struct Consumer::Impl {
  Impl(ConsumerOptions opts, storage::StreamStore* s)
      : options(std::move(opts)), store(s), filter(SelectorOf(options.filter)) {}

  ConsumerOptions options;
  storage::StreamStore* store;
  std::unique_ptr<storage::StreamReader> reader;
  // What NewReader needs again after Release (the reader is null between Release and the next Poll).
  storage::ReaderOptions reader_options;
  uint64_t released_position = 0;
  uint64_t released_chunks_skipped = 0;
  uint64_t released_chunks_pruned = 0;
  uint64_t released_bytes_pruned = 0;
  uint64_t released_summary_bytes_read = 0;
  uint64_t released_retention_lost = 0;
  uint64_t released_retention_gaps = 0;
  Status released_last_corruption;
  MessageFilter filter;
  uint64_t matched_budget = 0;
};

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Status StreamEngine::NewConsumer(const ConsumerOptions& options, std::unique_ptr<Consumer>* out) {
  const selector::Selector& selector = SelectorOf(options.filter);
  if (!selector.ok()) return Status::InvalidArgument("bad selector", options.stream, selector.error().ToString());
  if (options.credit == 0)
    return Status::InvalidArgument("bad consumer options", options.stream, "credit must be at least 1");
  if (options.max_scan_per_poll == 0) {
    return Status::InvalidArgument("bad consumer options", options.stream, "max_scan_per_poll must be at least 1");
  }
  storage::ReaderOptions reader_options;
  reader_options.tailing = options.follow;
  reader_options.on_corruption = options.on_corruption == CorruptionPolicy::kSkip ? storage::CorruptionPolicy::kSkip
                                                                                  : storage::CorruptionPolicy::kStop;
  reader_options.fill_cache = options.fill_cache;
  if (options.end.kind == EndPosition::Kind::kOffset) reader_options.end_offset = options.end.offset;
  if (options.skip_chunks) {
    auto skipper = std::make_shared<ChunkSkipper>(selector);
    if (skipper->useful()) {
      reader_options.chunk_filter = [skipper](std::string_view summary) { return skipper->MayMatch(summary); };
      if (!skipper->terms().empty()) {
        reader_options.filter_terms = skipper->terms();
        reader_options.term_filter = [skipper](const storage::ChunkTermLookup& terms) {
          return skipper->MayMatchTerms(terms);
        };
      }
    }
  }
  auto impl = std::make_unique<Consumer::Impl>(options, impl_->store.get());
  impl->reader_options = reader_options;
  storage::Status s = impl_->store->NewReader(options.stream, reader_options, &impl->reader);
  if (s.IsNotFound()) {
    return NoSuchStream(path_, options.stream);
  }
  if (!s.ok()) return FromStorage(s, "cannot read stream", options.stream);

  storage::StreamReader& reader = *impl->reader;
  const StartPosition& start = options.start;
  switch (start.kind) {
    case StartPosition::Kind::kFirst: s = reader.SeekToFirst(); break;
    case StartPosition::Kind::kLast: s = reader.SeekToLast(); break;
    case StartPosition::Kind::kNext: s = reader.SeekToEnd(); break;
    case StartPosition::Kind::kOffset: s = reader.Seek(start.offset); break;
    case StartPosition::Kind::kTimestamp: s = reader.SeekToTimestamp(start.timestamp_ms); break;
    case StartPosition::Kind::kFromEnd: {
      storage::StreamInfo info;
      s = impl_->store->GetStreamInfo(options.stream, &info);
      if (!s.ok()) break;
      uint64_t back = std::min(start.offset, info.next_offset - info.first_offset);
      s = reader.Seek(info.next_offset - back);
      break;
    }
  }
  if (!s.ok()) return FromStorage(s, "cannot position consumer", options.stream);
  out->reset(new Consumer(std::move(impl)));
  return Status::OK();
}

Consumer::Consumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Consumer::~Consumer() = default;

uint64_t Consumer::position() const { return impl_->reader ? impl_->reader->position() : impl_->released_position; }

Status Consumer::last_corruption() const {
  if (!impl_->reader) return impl_->released_last_corruption;
  const storage::Status& s = impl_->reader->last_skipped();
  if (s.ok()) return impl_->released_last_corruption;
  return FromStorage(s, "corrupt chunk", impl_->options.stream);
}

bool Consumer::released() const { return impl_->reader == nullptr; }

void Consumer::Release() {
  Impl& impl = *impl_;
  if (!impl.reader || done_) return;
  // A reader stopped at a corrupt chunk keeps its error: re-seeking would lose it.
  if (!impl.reader->status().ok()) return;
  impl.released_position = impl.reader->position();
  impl.released_chunks_skipped += impl.reader->chunks_skipped();
  impl.released_chunks_pruned += impl.reader->chunks_pruned();
  impl.released_bytes_pruned += impl.reader->bytes_pruned();
  impl.released_summary_bytes_read += impl.reader->summary_bytes_read();
  impl.released_retention_lost += impl.reader->offsets_deleted();
  impl.released_retention_gaps += impl.reader->gaps();
  const storage::Status& skipped = impl.reader->last_skipped();
  if (!skipped.ok()) impl.released_last_corruption = FromStorage(skipped, "corrupt chunk", impl.options.stream);
  impl.reader.reset();
}

Status Consumer::Poll(DeliveryBatch* batch, std::chrono::milliseconds wait) {
  batch->Clear();
  retention_gap_ = RetentionGap{};
  if (done_) return final_status_;
  Impl& impl = *impl_;
  const ConsumerOptions& options = impl.options;
  if (!impl.reader) {
    storage::Status reopened = impl.store->NewReader(options.stream, impl.reader_options, &impl.reader);
    if (reopened.ok()) reopened = impl.reader->Seek(impl.released_position);
    if (!reopened.ok()) {
      impl.reader.reset();
      done_ = true;
      final_status_ = reopened.IsNotFound()
                          ? Status::NotFound("no such stream", options.stream, "the stream was deleted")
                          : FromStorage(reopened, "cannot read stream", options.stream);
      return final_status_;
    }
  }
  storage::StreamReader& reader = *impl.reader;
  const auto started = Clock::now();
  const bool timed = options.max_poll_time.count() > 0;
  const Clock::time_point time_limit = started + options.max_poll_time;
  uint64_t batch_bytes = 0;
  Clock::duration waited{0};
  const Clock::time_point deadline = started + wait;

  storage::Record record;
  uint32_t scanned = 0;
  // The reader finds a gap as it enters a chunk: the record after one is a chunk_start, or there is none.
  const uint64_t gaps_before = reader.gaps();
  bool gap = false;
  while (batch->size() < options.credit && scanned < options.max_scan_per_poll &&
         (options.max_batch_bytes == 0 || batch_bytes < options.max_batch_bytes) &&
         !(timed && scanned > 0 && Clock::now() >= time_limit)) {
    if (!reader.Next(&record)) {
      gap = reader.gaps() != gaps_before;
      const storage::Status& s = reader.status();
      if (!s.ok()) {
        done_ = true;
        final_status_ = FromStorage(s, "cannot read stream", options.stream);
        break;
      }
      if (!options.follow ||
          (options.end.kind == EndPosition::Kind::kOffset && reader.position() >= options.end.offset)) {
        done_ = true;
        break;
      }
      if (gap) break;  // the caller hears of it before the consumer waits
      // Tailing: wait for the next offset to be appended, within this poll's budget.
      const auto now = Clock::now();
      if (now >= deadline) break;
      const auto remaining =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(1);
      const auto wait_start = Clock::now();
      const bool appended = impl.store->WaitForAppend(options.stream, reader.position(), remaining);
      waited += Clock::now() - wait_start;
      if (!appended) break;
      continue;
    }
    if (record.chunk_start && reader.gaps() != gaps_before) gap = true;
    // End bound: [start, end).
    if ((options.end.kind == EndPosition::Kind::kOffset && record.offset >= options.end.offset) ||
        (options.end.kind == EndPosition::Kind::kTimestamp && record.timestamp_ms > options.end.timestamp_ms)) {
      done_ = true;
      break;
    }
    ++scanned;
    if (record.chunk_start) ++stats_.chunks;
    stats_.bytes += record.data.size();
    if (impl.filter.Matches(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(record.data.data()), record.data.size()))) {
      batch->Add(record.offset, record.timestamp_ms, record.data);
      batch_bytes += record.data.size();
    }
    if (gap) break;  // one gap per Poll, last in its batch
  }
  if (gap) retention_gap_ = RetentionGap{reader.last_gap().first, reader.last_gap().end};
  stats_.scanned += scanned;
  stats_.matched += batch->size();
  stats_.chunks_corrupt = impl.released_chunks_skipped + reader.chunks_skipped();
  stats_.chunks_pruned = impl.released_chunks_pruned + reader.chunks_pruned();
  stats_.bytes_pruned = impl.released_bytes_pruned + reader.bytes_pruned();
  stats_.summary_bytes_read = impl.released_summary_bytes_read + reader.summary_bytes_read();
  stats_.retention_lost = impl.released_retention_lost + reader.offsets_deleted();
  stats_.retention_gaps = impl.released_retention_gaps + reader.gaps();
  stats_.elapsed += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started - waited);
  return done_ ? final_status_ : Status::OK();
}

}  // namespace sift
