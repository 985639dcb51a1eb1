// Reading one application property from each of 1,000,000 AMQP 1.0 messages: sift's lazy MessageView
// (and MessageFieldSource, the selector's path) against the decode-everything baseline, Proton's
// pn_message_decode into a reused pn_message_t then a walk of its application-properties pn_data_t.
//
// The messages are the "orders" profile of `sift gen` (tools/synthetic/synthetic_orders.h, seed 1:
// ~450 bytes, header, message annotations, properties, 8 application properties of mixed types, a
// 200-byte data body), encoded by Proton's own encoder and laid out back to back as in a record file. Counters: items/s
// (messages), bytes/s, and heap allocations per message, counted by interposing malloc / calloc / realloc in this
// binary (so Proton's C allocations count as well as operator new). BM_DecodeToProton / BM_DecodeToProtonSynthetic
// measure sift's full decode into pn_message_t (DecodeToProton) against pn_message_decode on the same messages, into
// one reused pn_message_t each, on this corpus and on the first 100,000 "orders" and "wide" messages;
// BM_FullDecodePaired runs the two in alternating turns over the same messages and reports the ratio of their CPU
// times. BM_TypedJson: DecodeToTypedJson on the same profiles. BM_Validate: strict validation (amqp::Validate) of the
// synthetic order profiles, bytes/s and messages/s.
#include <benchmark/benchmark.h>
#include <proton/codec.h>
#include <proton/message.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/paired_turns.h"
#include "amqp/message_view.h"
#include "amqp/proton_message.h"
#include "amqp/record_file.h"
#include "amqp/typed_json.h"
#include "amqp/validate.h"
#include "engine/chunk_summary_builder.h"
#include "engine/message_field_source.h"
#include "tools/synthetic/synthetic_orders.h"

// ---- allocation counting (whole process, relaxed; the benchmark runs on one thread) ----
extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
namespace {
std::atomic<uint64_t> g_allocations{0};
}
extern "C" void* malloc(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
extern "C" void* calloc(size_t n, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}
extern "C" void* realloc(void* p, size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}

namespace {

constexpr int kMessages = 1000000;
constexpr std::string_view kKey = "customer";  // the 5th of 8 application properties

struct Corpus {
  std::vector<uint8_t> records;  // length-prefixed, as in a record file
  std::vector<std::span<const uint8_t>> messages;
  uint64_t bytes = 0;
};

const Corpus& GetCorpus() {
  static const Corpus* corpus = [] {
    auto* c = new Corpus;
    std::unique_ptr<sift::synthetic::SyntheticOrders> orders;
    if (!sift::synthetic::SyntheticOrders::Create({}, &orders).ok()) std::abort();
    std::string message;
    for (int i = 0; i < kMessages; ++i) {
      if (!orders->Encode(static_cast<uint64_t>(i), &message).ok()) std::abort();
      sift::amqp::AppendRecord({reinterpret_cast<const uint8_t*>(message.data()), message.size()}, &c->records);
    }
    sift::amqp::RecordFileReader reader;
    reader.OpenBytes(c->records, "corpus");
    std::span<const uint8_t> m;
    while (reader.Next(&m)) {
      c->messages.push_back(m);
      c->bytes += m.size();
    }
    return c;
  }();
  return *corpus;
}

// The messages a run reads: all 1,000,000 distinct ones (~450 MB, streamed from memory), or, with
// state.range(0) = N < 1,000,000, the first N repeated in order up to 1,000,000 reads (cache-resident
// when N is small: isolates the per-message CPU cost from memory bandwidth).
const std::vector<std::span<const uint8_t>>& Messages(int distinct) {
  const Corpus& corpus = GetCorpus();
  if (distinct >= kMessages) return corpus.messages;
  static std::vector<std::span<const uint8_t>> resident;
  static int resident_distinct = 0;
  if (resident_distinct != distinct) {
    resident.clear();
    for (int i = 0; i < kMessages; ++i) resident.push_back(corpus.messages[i % distinct]);
    resident_distinct = distinct;
  }
  return resident;
}

uint64_t Bytes(const std::vector<std::span<const uint8_t>>& messages) {
  uint64_t n = 0;
  for (const auto& m : messages) n += m.size();
  return n;
}

void Report(benchmark::State& state, const Corpus& corpus, uint64_t allocations) {
  const double iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kMessages);
  const uint64_t bytes = Bytes(Messages(static_cast<int>(state.range(0))));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["allocs_per_msg"] = static_cast<double>(allocations) / (iterations * kMessages);
  state.counters["msg_bytes"] = static_cast<double>(bytes) / kMessages;
  state.counters["distinct"] = static_cast<double>(state.range(0));
  (void)corpus;
}

// sift: a MessageView reset per message, one lookup by key.
void BM_MessageView(benchmark::State& state) {
  const Corpus& corpus = GetCorpus();
  const auto& messages = Messages(static_cast<int>(state.range(0)));
  sift::amqp::MessageView view;
  uint64_t found = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    found = 0;
    for (const auto& m : messages) {
      view.Reset(m);
      const sift::selector::Value v = view.ApplicationProperty(kKey);
      found += v.size > 9;
      benchmark::DoNotOptimize(v.data);
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  if (found != kMessages) state.SkipWithError("property not found in every message");
  Report(state, corpus, allocations);
}
BENCHMARK(BM_MessageView)->Arg(kMessages)->Arg(10000)->Arg(1)->Unit(benchmark::kMillisecond);

// sift, as a selector reads it: a MessageFieldSource built for one field, reset per message.
void BM_MessageFieldSource(benchmark::State& state) {
  const Corpus& corpus = GetCorpus();
  const auto& messages = Messages(static_cast<int>(state.range(0)));
  std::vector<sift::selector::FieldRef> fields(1);
  fields[0].section = sift::selector::Section::kApplicationProperties;
  fields[0].name = std::string(kKey);
  sift::engine::MessageFieldSource source(fields);
  uint64_t found = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    found = 0;
    for (const auto& m : messages) {
      source.Reset(m);
      const sift::selector::Value v = source.Get(0);
      found += v.size > 9;
      benchmark::DoNotOptimize(v.data);
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  if (found != kMessages) state.SkipWithError("property not found in every message");
  Report(state, corpus, allocations);
}
BENCHMARK(BM_MessageFieldSource)->Arg(kMessages)->Arg(10000)->Arg(1)->Unit(benchmark::kMillisecond);

// 1 when the application-properties map holds kKey with a string value longer than 9 bytes.
uint64_t FindStringProperty(pn_data_t* props) {
  uint64_t found = 0;
  pn_data_rewind(props);
  if (!pn_data_next(props) || pn_data_type(props) != PN_MAP) return 0;
  pn_data_enter(props);
  while (pn_data_next(props)) {
    const bool is_key = pn_data_type(props) == PN_STRING &&
                        std::string_view(pn_data_get_string(props).start, pn_data_get_string(props).size) == kKey;
    if (!pn_data_next(props)) break;
    if (is_key) {
      const pn_bytes_t v = pn_data_get_string(props);
      found += v.size > 9;
      benchmark::DoNotOptimize(v.start);
      break;
    }
  }
  pn_data_exit(props);
  return found;
}

// Baseline: Proton's full decode into a reused pn_message_t, then a walk of the properties map.
void BM_ProtonDecode(benchmark::State& state) {
  const Corpus& corpus = GetCorpus();
  const auto& messages = Messages(static_cast<int>(state.range(0)));
  pn_message_t* msg = pn_message();
  uint64_t found = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    found = 0;
    for (const auto& m : messages) {
      if (pn_message_decode(msg, reinterpret_cast<const char*>(m.data()), m.size()) != 0) {
        state.SkipWithError("pn_message_decode failed");
        break;
      }
      found += FindStringProperty(pn_message_properties(msg));
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  pn_message_free(msg);
  if (found != kMessages) state.SkipWithError("property not found in every message");
  Report(state, corpus, allocations);
}
BENCHMARK(BM_ProtonDecode)->Arg(kMessages)->Arg(10000)->Arg(1)->Unit(benchmark::kMillisecond);

// DecodeToTypedJson (one pass from the bytes to the typed JSON text) over synthetic messages of one
// profile: 0 = "orders", 1 = "wide". Per-message time is the inverse of items_per_second.
void BM_TypedJson(benchmark::State& state) {
  sift::synthetic::SyntheticOrdersOptions options;
  options.profile = state.range(0) == 0 ? "orders" : "wide";
  std::unique_ptr<sift::synthetic::SyntheticOrders> orders;
  if (!sift::synthetic::SyntheticOrders::Create(options, &orders).ok()) {
    state.SkipWithError("no such profile");
    return;
  }
  constexpr int kCount = 10000;
  std::vector<std::string> messages(kCount);
  uint64_t bytes = 0;
  for (int i = 0; i < kCount; ++i) {
    if (!orders->Encode(static_cast<uint64_t>(i), &messages[i]).ok()) {
      state.SkipWithError("encode failed");
      return;
    }
    bytes += messages[i].size();
  }
  std::string json;
  uint64_t out_bytes = 0;
  for (auto _ : state) {
    out_bytes = 0;
    for (int i = 0; i < kCount; ++i) {
      const auto* data = reinterpret_cast<const uint8_t*>(messages[i].data());
      if (!sift::amqp::DecodeToTypedJson({data, messages[i].size()}, uint64_t(i), &json).ok()) {
        state.SkipWithError("DecodeToTypedJson failed");
        return;
      }
      out_bytes += json.size();
      benchmark::DoNotOptimize(json.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kCount);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["ns_per_msg"] =
      benchmark::Counter(static_cast<double>(kCount) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["json_bytes_per_msg"] = static_cast<double>(out_bytes) / kCount;
  state.counters["amqp_bytes_per_msg"] = static_cast<double>(bytes) / kCount;
}
BENCHMARK(BM_TypedJson)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// sift's full decode into the same reused pn_message_t, then the same walk of the properties map.
void BM_DecodeToProton(benchmark::State& state) {
  const Corpus& corpus = GetCorpus();
  const auto& messages = Messages(static_cast<int>(state.range(0)));
  pn_message_t* msg = pn_message();
  uint64_t found = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    found = 0;
    for (const auto& m : messages) {
      if (!sift::amqp::DecodeToProton(m, msg).ok()) {
        state.SkipWithError("DecodeToProton failed");
        break;
      }
      found += FindStringProperty(pn_message_properties(msg));
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  pn_message_free(msg);
  if (found != kMessages) state.SkipWithError("property not found in every message");
  Report(state, corpus, allocations);
}
BENCHMARK(BM_DecodeToProton)->Arg(kMessages)->Arg(10000)->Arg(1)->Unit(benchmark::kMillisecond);

// ---- the synthetic profiles of `sift gen` (tools/synthetic/synthetic_orders.h) ----

constexpr int kSyntheticMessages = 100000;

// The first kSyntheticMessages messages of a profile (seed 1), back to back in one buffer.
const std::vector<std::span<const uint8_t>>& SyntheticMessages(const std::string& profile) {
  static std::map<std::string, std::pair<std::string, std::vector<std::span<const uint8_t>>>> cache;
  auto& [bytes, spans] = cache[profile];
  if (spans.empty()) {
    sift::synthetic::SyntheticOrdersOptions options;
    options.profile = profile;
    std::unique_ptr<sift::synthetic::SyntheticOrders> gen;
    if (!sift::synthetic::SyntheticOrders::Create(options, &gen).ok()) std::abort();
    std::string one;
    std::vector<size_t> sizes;
    for (int i = 0; i < kSyntheticMessages; ++i) {
      if (!gen->Encode(static_cast<uint64_t>(i), &one).ok()) std::abort();
      bytes += one;
      sizes.push_back(one.size());
    }
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t n : sizes) {
      spans.emplace_back(p, n);
      p += n;
    }
  }
  return spans;
}

void ReportSynthetic(benchmark::State& state, const std::vector<std::span<const uint8_t>>& messages,
                     uint64_t allocations) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * messages.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Bytes(messages)));
  state.counters["allocs_per_msg"] =
      static_cast<double>(allocations) / (static_cast<double>(state.iterations()) * messages.size());
  state.counters["msg_bytes"] = static_cast<double>(Bytes(messages)) / messages.size();
}

// pn_message_decode of every message of a profile into one reused pn_message_t.
void BM_ProtonDecodeSynthetic(benchmark::State& state, const std::string& profile) {
  const auto& messages = SyntheticMessages(profile);
  pn_message_t* msg = pn_message();
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    for (const auto& m : messages) {
      if (pn_message_decode(msg, reinterpret_cast<const char*>(m.data()), m.size()) != 0) {
        state.SkipWithError("pn_message_decode failed");
        break;
      }
      benchmark::DoNotOptimize(pn_data_size(pn_message_properties(msg)));
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  pn_message_free(msg);
  ReportSynthetic(state, messages, allocations);
}
BENCHMARK_CAPTURE(BM_ProtonDecodeSynthetic, orders, std::string("orders"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProtonDecodeSynthetic, wide, std::string("wide"))->Unit(benchmark::kMillisecond);

// DecodeToProton of the same messages into one reused pn_message_t (the same reuse policy).
void BM_DecodeToProtonSynthetic(benchmark::State& state, const std::string& profile) {
  const auto& messages = SyntheticMessages(profile);
  pn_message_t* msg = pn_message();
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    for (const auto& m : messages) {
      if (!sift::amqp::DecodeToProton(m, msg).ok()) {
        state.SkipWithError("DecodeToProton failed");
        break;
      }
      benchmark::DoNotOptimize(pn_data_size(pn_message_properties(msg)));
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  pn_message_free(msg);
  ReportSynthetic(state, messages, allocations);
}
BENCHMARK_CAPTURE(BM_DecodeToProtonSynthetic, orders, std::string("orders"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeToProtonSynthetic, wide, std::string("wide"))->Unit(benchmark::kMillisecond);

// DecodeToProton against pn_message_decode, paired: the two decode the same messages in turns of
// kPairedBatch messages each, and which goes first alternates from batch to batch (so each finds a
// batch already in cache as often as the other). On a shared machine whose speed drifts over
// seconds, two benchmarks run one after the other can meet different conditions; in turns a few
// hundred microseconds long, both meet the same ones. Counters: each one's CPU time per message
// (the thread's own, so a neighbour's load is not counted) and `ratio`, DecodeToProton's time over
// pn_message_decode's, which the full-decode target of bench/run reads.
constexpr size_t kPairedBatch = 500;

void BM_FullDecodePaired(benchmark::State& state, const std::string& profile) {
  const auto& messages = SyntheticMessages(profile);
  pn_message_t* ours = pn_message();
  pn_message_t* theirs = pn_message();
  double sift_ns = 0, proton_ns = 0;
  sift::bench::PairedTurns turns;
  bool failed = false;
  auto sift_turn = [&](size_t begin, size_t end) {
    const double t = sift::bench::ThreadCpuNs();
    for (size_t i = begin; i < end && !failed; ++i) {
      failed = !sift::amqp::DecodeToProton(messages[i], ours).ok();
      benchmark::DoNotOptimize(pn_data_size(pn_message_properties(ours)));
    }
    sift_ns += sift::bench::ThreadCpuNs() - t;
  };
  auto proton_turn = [&](size_t begin, size_t end) {
    const double t = sift::bench::ThreadCpuNs();
    for (size_t i = begin; i < end && !failed; ++i) {
      const auto& m = messages[i];
      failed = pn_message_decode(theirs, reinterpret_cast<const char*>(m.data()), m.size()) != 0;
      benchmark::DoNotOptimize(pn_data_size(pn_message_properties(theirs)));
    }
    proton_ns += sift::bench::ThreadCpuNs() - t;
  };
  for (auto _ : state) {
    for (size_t begin = 0; begin < messages.size() && !failed; begin += kPairedBatch) {
      const size_t end = std::min(messages.size(), begin + kPairedBatch);
      turns.Run([&] { sift_turn(begin, end); }, [&] { proton_turn(begin, end); });
    }
  }
  pn_message_free(ours);
  pn_message_free(theirs);
  if (failed) {
    state.SkipWithError("a full decode failed");
    return;
  }
  const double decoded = static_cast<double>(state.iterations()) * static_cast<double>(messages.size());
  state.SetItemsProcessed(static_cast<int64_t>(decoded));
  state.counters["sift_ns_per_msg"] = sift_ns / decoded;
  state.counters["proton_ns_per_msg"] = proton_ns / decoded;
  state.counters["ratio"] = proton_ns > 0 ? sift_ns / proton_ns : 0;
}
BENCHMARK_CAPTURE(BM_FullDecodePaired, orders, std::string("orders"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FullDecodePaired, wide, std::string("wide"))->Unit(benchmark::kMillisecond);

// The chunk summary of every message (ChunkSummaryBuilder, what `sift append` builds beside validation):
// the messages of a profile cut into chunks of the engine's default 1 MiB, Reset / Add / Finish per chunk.
// Compare its items/s with BM_Validate's: append does both for every message. BM_ValidateThenSummary
// is that pair as a load did it before AddChecked, each chunk's messages validated (amqp::Validate)
// and then summarized; BM_CheckedSummary is a load's way now, both in one walk (AddChecked).
enum class SummaryWay { kSummaryOnly, kValidateThenSummary, kChecked };

void SummaryBench(benchmark::State& state, const std::string& profile, SummaryWay way) {
  const auto& messages = SyntheticMessages(profile);
  sift::engine::ChunkSummaryBuilder builder;
  std::string summary;
  uint64_t summary_bytes = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    summary_bytes = 0;
    size_t chunk_bytes = 0;
    size_t chunk_begin = 0;
    builder.Reset();
    for (size_t i = 0; i < messages.size(); ++i) {
      chunk_bytes += messages[i].size();
      const bool last = i + 1 == messages.size();
      if (chunk_bytes < (1u << 20) && !last) continue;
      for (size_t k = chunk_begin; k <= i; ++k) {
        const std::string_view m(reinterpret_cast<const char*>(messages[k].data()), messages[k].size());
        switch (way) {
          case SummaryWay::kSummaryOnly: builder.Add(m); break;
          case SummaryWay::kValidateThenSummary:
            if (!sift::amqp::Validate(messages[k]).ok()) state.SkipWithError("a message is malformed");
            break;
          case SummaryWay::kChecked:
            if (!builder.AddChecked(m)) state.SkipWithError("a message is malformed");
            break;
        }
      }
      if (way == SummaryWay::kValidateThenSummary) {
        for (size_t k = chunk_begin; k <= i; ++k) {
          builder.Add(std::string_view(reinterpret_cast<const char*>(messages[k].data()), messages[k].size()));
        }
      }
      builder.Finish(&summary);
      summary_bytes += summary.size();
      builder.Reset();
      chunk_bytes = 0;
      chunk_begin = i + 1;
    }
    benchmark::DoNotOptimize(summary_bytes);
  }
  const uint64_t allocations = g_allocations.load() - before;
  if (summary_bytes == 0) state.SkipWithError("no summary was built");
  ReportSynthetic(state, messages, allocations);
  state.counters["summary_share"] = static_cast<double>(summary_bytes) / static_cast<double>(Bytes(messages));
}
void BM_ChunkSummary(benchmark::State& state, const std::string& profile) {
  SummaryBench(state, profile, SummaryWay::kSummaryOnly);
}
void BM_ValidateThenSummary(benchmark::State& state, const std::string& profile) {
  SummaryBench(state, profile, SummaryWay::kValidateThenSummary);
}
void BM_CheckedSummary(benchmark::State& state, const std::string& profile) {
  SummaryBench(state, profile, SummaryWay::kChecked);
}
BENCHMARK_CAPTURE(BM_ChunkSummary, orders, std::string("orders"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChunkSummary, wide, std::string("wide"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ValidateThenSummary, orders, std::string("orders"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ValidateThenSummary, wide, std::string("wide"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSummary, orders, std::string("orders"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSummary, wide, std::string("wide"))->Unit(benchmark::kMillisecond);

// The summary of a small chunk: what the group commit builds when producers send a message or a few
// at a time (each round of appends is cut into chunks of its own), so each chunk pays the builder's
// fixed cost (Reset, the first sight of every field, Finish). state.range(0) messages per chunk, the
// orders profile; the counters are per chunk.
void BM_SmallChunkSummary(benchmark::State& state) {
  const auto& messages = SyntheticMessages("orders");
  const size_t per_chunk = static_cast<size_t>(state.range(0));
  sift::engine::ChunkSummaryBuilder builder;
  std::string summary;
  uint64_t chunks = 0;
  uint64_t summary_bytes = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    for (size_t begin = 0; begin + per_chunk <= messages.size(); begin += per_chunk) {
      builder.Reset();
      for (size_t k = begin; k < begin + per_chunk; ++k) {
        if (!builder.AddChecked(
                std::string_view(reinterpret_cast<const char*>(messages[k].data()), messages[k].size()))) {
          state.SkipWithError("a message is malformed");
        }
      }
      builder.Finish(&summary);
      summary_bytes += summary.size();
      ++chunks;
    }
  }
  const uint64_t allocations = g_allocations.load() - before;
  if (summary_bytes == 0) state.SkipWithError("no summary was built");
  state.SetItemsProcessed(static_cast<int64_t>(chunks));
  state.counters["per_chunk"] =
      benchmark::Counter(static_cast<double>(chunks), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["allocs_per_chunk"] = static_cast<double>(allocations) / static_cast<double>(chunks);
  state.counters["summary_bytes"] = static_cast<double>(summary_bytes) / static_cast<double>(chunks);
}
BENCHMARK(BM_SmallChunkSummary)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

// Strict validation (amqp::Validate, what a message goes through before it is stored) of the
// synthetic order profiles (tools/synthetic/synthetic_orders.h, as `sift gen --profile` writes them):
// state.range(0) = 0 for "orders" (~450 bytes), 1 for "wide" (~1.5 KB); state.range(1) distinct
// messages laid out back to back and validated in order, repeated up to 100,000 validations per
// iteration: 100 distinct stay in L1/L2 (the per-byte CPU cost), 100,000 (45 / 145 MB) stream from
// memory.
struct Profile {
  std::vector<uint8_t> bytes;
  std::vector<std::span<const uint8_t>> messages;
};

constexpr int kValidations = 100000;

const Profile& GetProfile(int which, int distinct) {
  static std::map<std::pair<int, int>, Profile> profiles;
  Profile& p = profiles[{which, distinct}];
  if (!p.messages.empty()) return p;
  sift::synthetic::SyntheticOrdersOptions options;
  options.profile = which == 0 ? "orders" : "wide";
  std::unique_ptr<sift::synthetic::SyntheticOrders> gen;
  if (!sift::synthetic::SyntheticOrders::Create(options, &gen).ok()) std::abort();
  std::vector<size_t> ends;
  std::string m;
  for (int i = 0; i < distinct; ++i) {
    if (!gen->Encode(static_cast<uint64_t>(i), &m).ok()) std::abort();
    p.bytes.insert(p.bytes.end(), m.begin(), m.end());
    ends.push_back(p.bytes.size());
  }
  for (int i = 0; i < kValidations; ++i) {
    const size_t k = static_cast<size_t>(i % distinct);
    const size_t begin = k == 0 ? 0 : ends[k - 1];
    p.messages.emplace_back(p.bytes.data() + begin, ends[k] - begin);
  }
  return p;
}

void BM_Validate(benchmark::State& state) {
  const Profile& profile = GetProfile(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  uint64_t bytes = 0;
  for (const auto& m : profile.messages) bytes += m.size();
  uint64_t valid = 0;
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    valid = 0;
    for (const auto& m : profile.messages) valid += sift::amqp::Validate(m).ok();
    benchmark::DoNotOptimize(valid);
  }
  const uint64_t allocations = g_allocations.load() - before;
  if (valid != profile.messages.size()) state.SkipWithError("a synthetic message is not valid");
  const double iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kValidations);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["msg_bytes"] = static_cast<double>(bytes) / kValidations;
  state.counters["allocs_per_msg"] = static_cast<double>(allocations) / (iterations * kValidations);
  state.SetLabel(state.range(0) == 0 ? "orders" : "wide");
}
BENCHMARK(BM_Validate)
    ->ArgNames({"profile", "distinct"})
    ->Args({0, 100})
    ->Args({1, 100})
    ->Args({0, kValidations})
    ->Args({1, kValidations})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
