// End-to-end filter throughput: sift beside the decode-everything baseline, on the same bytes, in one
// run. Figures and plots: bench/RESULTS.md, section "Filter throughput";
// `bench/run` builds, generates the corpora with `sift gen`, runs this program and renders the plots.
//
// Benchmark names are kind/shape/placement/selectivity/selector (Google Benchmark may append
// /iterations:N, /threads:N, /real_time). Kinds, each a pass over the same record buffer:
//   reference     read every byte of the records once (a sum of 64-bit words): the memory bound
//   sift_scan     per record: engine::MessageFilter::Matches, the engine's shipped path: the text
//                 prefilter (a byte search of the sections holding the selector's required texts,
//                 adaptive), then Selector::Evaluate over a MessageFieldSource (lazy reads in place,
//                 each section at most once); counts the matches
//   sift_reader   the same with the prefilter off: the lazy reader and the selector alone
//   sift_deliver  sift_scan plus sift's contract for a match: a full decode of the delivered message
//                 (amqp::DecodeToProton into one reused pn_message_t)
//   sift_json     sift_scan plus the typed JSON line of each match (amqp::DecodeToTypedJson into one
//                 reused string), what `sift filter -f json` writes
//   baseline      per record: pn_message_decode into one reused pn_message_t, then the same compiled
//                 selector on a ProtonFieldSource over it (what a broker that decodes everything does)
//   reject_paired sift_scan and baseline in alternating turns over the same records, each turn from a
//                 cold cache and timed on the thread's CPU clock; reports both and their ratio
//   store_sift    the RocksDB store (StreamEngine, warm block cache): consumers with the
//                 filter poll their offset range to the end (matches are copied into the batch)
//   store_baseline the same store: consumers without a filter deliver every message, each decoded by
//                 pn_message_decode and tested by the selector on a ProtonFieldSource
// Threads: a run with N threads splits the records (or offsets) into N contiguous ranges.
//
// Shapes: p8 = synthetic::SyntheticOrders "orders" (~450 bytes, 8 application properties), p32 =
// "wide" (~1.5 KB, 32). Placement/selectivity: see record_buffer.h (the "customer" entry first or
// last in the map; exactly round(N x selectivity) messages hold customer 'cust-99999');
// "as-generated/natural" is the unmodified corpus, used for the selector shapes.
//
// Counters: items_per_second (messages), bytes_per_second (message bytes, length prefixes
// excluded), time/msg (seconds per message), allocs/msg (C++ operator new calls per message on the
// benchmark's thread, the project's counting allocator), mallocs/msg (every malloc/calloc/realloc of
// the process, Proton's and RocksDB's included), matches (per pass). Single-thread rates are per CPU second of the
// benchmark thread; the thread-scaling runs use wall time (/real_time). Every variant's match count is checked against
// sift_scan's (and against the planted count), so a benchmark that disagrees fails instead of reporting a figure.
//
// Own flags (after Google Benchmark's): --quick (only the CI regression set), --explain (print the
// selectors and their plans, run nothing), --orders=N,
// --wide=N (corpus sizes), --orders_file=F, --wide_file=F (record files from `sift gen --seed 1`
// of those profiles; without them the corpora are generated in-process, same bytes),
// --store_dir=D (a fresh folder for the store benchmarks; default: a temporary folder, removed).
#include <benchmark/benchmark.h>
#include <proton/message.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/filter/malloc_counter.h"
#include "bench/filter/record_buffer.h"
#include "amqp/proton_message.h"
#include "amqp/typed_json.h"
#include "engine/compiled_filter.h"
#include "engine/message_filter.h"
#include "selector/eval_context.h"
#include "selector/selector.h"
#include "sift/consumer.h"
#include "sift/filter_spec.h"
#include "sift/stream_engine.h"
#include "tests/support/allocation_counter.h"
#include "tools/baseline/paired_reject.h"
#include "tools/baseline/proton_field_source.h"

namespace sift::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Configuration (set once by main before any benchmark runs).

struct Config {
  bool quick = false;
  size_t orders = 1'000'000;
  size_t wide = 200'000;
  std::string orders_file;
  std::string wide_file;
  std::string store_dir;
  bool remove_store_dir = false;
  bool explain = false;  // print the selector shapes and their plans instead of running
};

Config& Settings() {
  static Config config;
  return config;
}

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "filter_bench: %s\n", message.c_str());
  std::exit(2);
}

// ---------------------------------------------------------------------------------------------
// Corpora: the two base corpora stay; one variant at a time is kept (benchmarks are registered
// grouped by variant, so each is built once).

struct CorpusKey {
  std::string shape;  // "p8" or "p32"
  Placement placement = Placement::kAsGenerated;
  uint64_t per_million = 0;  // planted share; ignored for kAsGenerated
  bool operator==(const CorpusKey&) const = default;
};

class Corpora {
 public:
  const RecordBuffer& Get(const CorpusKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    const RecordBuffer& base = Base(key.shape);
    if (key.placement == Placement::kAsGenerated) return base;
    if (!(variant_key_ == key) || variant_ == nullptr) {
      variant_.reset();
      auto variant = std::make_unique<RecordBuffer>();
      std::string error;
      if (!BuildVariant(base, key.placement, key.per_million, variant.get(), &error)) {
        Die(key.shape + " corpus: " + error);
      }
      variant_ = std::move(variant);
      variant_key_ = key;
    }
    return *variant_;
  }

 private:
  const RecordBuffer& Base(const std::string& shape) {
    std::unique_ptr<RecordBuffer>& slot = shape == "p8" ? orders_ : wide_;
    if (slot == nullptr) {
      const Config& c = Settings();
      const bool p8 = shape == "p8";
      auto buffer = std::make_unique<RecordBuffer>();
      std::string error;
      if (!LoadBaseCorpus(p8 ? "orders" : "wide", p8 ? c.orders : c.wide, p8 ? c.orders_file : c.wide_file,
                          buffer.get(), &error)) {
        Die(error);
      }
      slot = std::move(buffer);
    }
    return *slot;
  }

  std::mutex mu_;
  std::unique_ptr<RecordBuffer> orders_, wide_, variant_;
  CorpusKey variant_key_;
};

Corpora& TheCorpora() {
  static Corpora corpora;
  return corpora;
}

// ---------------------------------------------------------------------------------------------
// Selectors

struct SelectorCase {
  std::string name;
  FilterKind kind = FilterKind::kSql;
  std::string text;
};

std::string CustomerInFifty() {
  std::string in = "customer IN (";
  for (int i = 0; i < 50; ++i) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%s'cust-%05d'", i ? ", " : "", i * 997 % 50000);
    in += buf;
  }
  return in + ")";
}

const SelectorCase kPlanted = {"customer_eq", FilterKind::kSql, "customer = 'cust-99999'"};

// The representative selector shapes, on the as-generated orders corpus.
const std::vector<SelectorCase>& Shapes() {
  static const std::vector<SelectorCase> shapes = {
      {"equality", FilterKind::kSql, "color = 'red'"},
      {"range_and_equality", FilterKind::kSql, "amount > 900 AND region = 'eu-west'"},
      {"like_prefix", FilterKind::kSql, "region LIKE 'eu-%'"},
      {"like_re2", FilterKind::kSql, "customer LIKE 'cust-_1%7'"},
      {"in_50", FilterKind::kSql, CustomerInFifty()},
      {"ten_conjuncts", FilterKind::kSql,
       "region LIKE 'eu-%' AND color <> 'black' AND amount > 10 AND price < 900.0 AND tier >= 0 AND "
       "vip = FALSE AND h.priority >= 0 AND p.to = 'orders' AND m.[x-opt-partition] >= 0 AND "
       "customer LIKE 'cust-%'"},
      {"header_and_properties", FilterKind::kSql,
       "h.priority > 4 AND h.durable = TRUE AND p.subject = 'paid' AND p.content_type = 'application/json'"},
      {"jms", FilterKind::kJms, "JMSPriority > 4 AND JMSType = 'paid' AND region LIKE 'eu-%'"},
      {"application_properties_filter", FilterKind::kApplicationProperties,
       R"({"region": "eu-west", "color": "&p:bl"})"},
      {"properties_filter", FilterKind::kProperties, R"({"subject": "&p:ship", "to": "orders"})"},
  };
  return shapes;
}

selector::Selector Compile(const SelectorCase& c) {
  FilterSpec spec;
  spec.Add(c.kind, c.text);
  CompiledFilter out;
  Status s = spec.Compile(&out);
  if (!s.ok()) Die("selector " + c.name + ": " + s.ToString());
  return engine::SelectorOf(out);
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers

struct Range {
  size_t first = 0, last = 0;  // records [first, last)
};

// This thread's share of n records.
Range ThreadRange(const benchmark::State& state, size_t n) {
  const size_t t = static_cast<size_t>(state.thread_index());
  const size_t k = static_cast<size_t>(state.threads());
  return {n * t / k, n * (t + 1) / k};
}

// Allocation counters around the measured loop. operator new is counted on the measuring thread only:
// a store another benchmark of this process opened keeps RocksDB's threads, whose occasional
// allocations are not the measured code's.
class AllocationMeter {
 public:
  void Start() {
    news_ = sift::testing::ThisThreadAllocationCount();
    mallocs_ = MallocCount();
  }
  void Stop() {
    news_total_ += sift::testing::ThisThreadAllocationCount() - news_;
    mallocs_total_ += MallocCount() - mallocs_;
  }
  uint64_t news() const { return news_total_; }
  uint64_t mallocs() const { return mallocs_total_; }

 private:
  uint64_t news_ = 0, mallocs_ = 0, news_total_ = 0, mallocs_total_ = 0;
};

// Sets the common counters. `records` and `bytes` are this thread's share per pass; `all_records`
// is the pass of all threads.
void Report(benchmark::State& state, size_t records, uint64_t bytes, uint64_t matches, const AllocationMeter& meter,
            size_t all_records) {
  const auto iterations = static_cast<int64_t>(state.iterations());
  state.SetItemsProcessed(iterations * static_cast<int64_t>(records));
  state.SetBytesProcessed(iterations * static_cast<int64_t>(bytes));
  state.counters["matches"] = static_cast<double>(matches);
  if (state.threads() == 1) {
    // Seconds per message (Google Benchmark prints it with an SI prefix, "182ns"); for threaded runs
    // bench/plot.py derives ns/msg from items_per_second instead.
    state.counters["time/msg"] = benchmark::Counter(
        static_cast<double>(records), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  }
  // mallocs are counted process-wide, so exact only with one thread; threaded runs leave both out.
  if (state.threads() == 1) {
    const double per = static_cast<double>(all_records) * static_cast<double>(iterations);
    state.counters["allocs/msg"] = static_cast<double>(meter.news()) / per;
    state.counters["mallocs/msg"] = static_cast<double>(meter.mallocs()) / per;
  }
}

uint64_t MessageBytes(const RecordBuffer& buffer, Range r) {
  return buffer.start(r.last) - buffer.start(r.first) - 4 * (r.last - r.first);
}

// Match counts of sift_scan per (corpus, selector), checked by the other kinds.
class MatchBook {
 public:
  void Record(const std::string& key, uint64_t matches) {
    std::lock_guard<std::mutex> lock(mu_);
    book_[key] = matches;
  }
  // False when sift_scan recorded a different count.
  bool Agrees(const std::string& key, uint64_t matches) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = book_.find(key);
    return it == book_.end() || it->second == matches;
  }

 private:
  std::mutex mu_;
  std::map<std::string, uint64_t> book_;
};

MatchBook& Matches() {
  static MatchBook book;
  return book;
}

std::string BookKey(const CorpusKey& key, const SelectorCase& selector) {
  return key.shape + "/" + std::string(PlacementName(key.placement)) + "/" + std::to_string(key.per_million) + "/" +
         selector.name;
}

// Per-run sum of the threads' matches (one benchmark runs at a time; `run` names it).
class ThreadSum {
 public:
  // Adds this thread's share; the last thread to arrive gets the total (others get UINT64_MAX).
  uint64_t Add(const benchmark::State& state, const std::string& run, uint64_t part) {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = sums_[run];
    e.sum += part;
    if (++e.arrived < state.threads()) return UINT64_MAX;
    const uint64_t total = e.sum;
    sums_.erase(run);
    return total;
  }

 private:
  struct Entry {
    uint64_t sum = 0;
    int arrived = 0;
  };
  std::mutex mu_;
  std::map<std::string, Entry> sums_;
};

ThreadSum& Sums() {
  static ThreadSum sums;
  return sums;
}

// Checks the total of a run's matches (once, on the last thread to finish) against sift_scan's and,
// for a planted corpus, against the planted count.
void CheckMatches(benchmark::State& state, std::string_view kind, const CorpusKey& key, const SelectorCase& selector,
                  uint64_t part, bool record, size_t corpus_records) {
  const std::string book = BookKey(key, selector);
  const uint64_t total = Sums().Add(state, std::string(kind) + "/" + book, part);
  if (total == UINT64_MAX) return;
  if (key.placement != Placement::kAsGenerated && selector.name == kPlanted.name &&
      total != PlantedCount(corpus_records, key.per_million)) {
    state.SkipWithError("the match count differs from the number of planted messages");
    return;
  }
  if (record) {
    Matches().Record(book, total);
  } else if (!Matches().Agrees(book, total)) {
    state.SkipWithError("the match count differs from sift_scan's on the same corpus");
  }
}

// ---------------------------------------------------------------------------------------------
// In-memory benchmarks

void BM_Reference(benchmark::State& state, CorpusKey key) {
  const RecordBuffer& buffer = TheCorpora().Get(key);
  const Range r = ThreadRange(state, buffer.count());
  const uint8_t* begin = buffer.bytes().data() + buffer.start(r.first);
  const size_t words = (buffer.start(r.last) - buffer.start(r.first)) / 8;
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
      uint64_t w[4];
      std::memcpy(w, begin + 8 * i, sizeof w);
      s0 += w[0];
      s1 += w[1];
      s2 += w[2];
      s3 += w[3];
    }
    for (; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, begin + 8 * i, 8);
      s0 += w;
    }
    uint64_t sum = s0 + s1 + s2 + s3;
    benchmark::DoNotOptimize(sum);
    meter.Stop();
  }
  Report(state, r.last - r.first, MessageBytes(buffer, r), 0, meter, buffer.count());
}

enum class SiftMode : uint8_t { kScan, kReaderOnly, kDeliver, kJson };

const char* ModeName(SiftMode mode) {
  switch (mode) {
    case SiftMode::kScan: return "scan";
    case SiftMode::kReaderOnly: return "reader";
    case SiftMode::kDeliver: return "deliver";
    case SiftMode::kJson: return "json";
  }
  return "?";
}

void BM_Sift(benchmark::State& state, CorpusKey key, SelectorCase selector_case, SiftMode mode) {
  const RecordBuffer& buffer = TheCorpora().Get(key);
  const Range r = ThreadRange(state, buffer.count());
  const selector::Selector selector = Compile(selector_case);
  engine::MessageFilter filter(selector, {.prefilter = mode != SiftMode::kReaderOnly});
  pn_message_t* delivered = pn_message();
  std::string json;
  // Warm-up: the context's scratch and caches reach their working size before counting.
  for (size_t i = r.first; i < std::min(r.last, r.first + 1000); ++i) {
    benchmark::DoNotOptimize(filter.Matches(buffer.message(i)));
  }
  const uint8_t* begin = buffer.bytes().data() + buffer.start(r.first);
  const uint8_t* end = buffer.bytes().data() + buffer.start(r.last);
  uint64_t matches = 0;
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    matches = 0;
    std::span<const uint8_t> message;
    for (const uint8_t* p = begin; p < end;) {
      p = NextMessage(p, &message);
      if (!filter.Matches(message)) continue;
      ++matches;
      if (mode == SiftMode::kDeliver) {
        amqp::ConversionStatus s = amqp::DecodeToProton(message, delivered);
        if (!s.ok()) {
          state.SkipWithError(("full decode of a match failed: " + s.error()).c_str());
          break;
        }
        benchmark::DoNotOptimize(delivered);
      } else if (mode == SiftMode::kJson) {
        amqp::ConversionStatus s = amqp::DecodeToTypedJson(message, std::nullopt, &json);
        if (!s.ok()) {
          state.SkipWithError(("typed JSON of a match failed: " + s.error()).c_str());
          break;
        }
        benchmark::DoNotOptimize(json.data());
      }
    }
    meter.Stop();
  }
  pn_message_free(delivered);
  Report(state, r.last - r.first, MessageBytes(buffer, r), matches, meter, buffer.count());
  CheckMatches(state, ModeName(mode), key, selector_case, matches, mode == SiftMode::kScan, buffer.count());
}

void BM_Baseline(benchmark::State& state, CorpusKey key, SelectorCase selector_case) {
  const RecordBuffer& buffer = TheCorpora().Get(key);
  const Range r = ThreadRange(state, buffer.count());
  const selector::Selector selector = Compile(selector_case);
  pn_message_t* message = pn_message();
  baseline::ProtonFieldSource source(selector.fields());
  source.Reset(message);
  selector::EvalContext context;
  const uint8_t* begin = buffer.bytes().data() + buffer.start(r.first);
  const uint8_t* end = buffer.bytes().data() + buffer.start(r.last);
  uint64_t matches = 0;
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    matches = 0;
    std::span<const uint8_t> m;
    for (const uint8_t* p = begin; p < end;) {
      p = NextMessage(p, &m);
      if (pn_message_decode(message, reinterpret_cast<const char*>(m.data()), m.size()) != 0) {
        state.SkipWithError("pn_message_decode failed");
        break;
      }
      matches += selector.Evaluate(source, context) == selector::Truth::kTrue;
    }
    meter.Stop();
  }
  pn_message_free(message);
  Report(state, r.last - r.first, MessageBytes(buffer, r), matches, meter, buffer.count());
  CheckMatches(state, "baseline", key, selector_case, matches, false, buffer.count());
}

// The reject path and the baseline in turns over the same records. Measured one after the other,
// the two meet different machines: on a shared VM the baseline's rate moved by half between runs
// at the same code while sift's held. baseline::PairedReject (tools/baseline/paired_reject.h, the
// measurement `sift bench` makes on a user's messages) filters each block of 50,000 records with
// both, which goes first alternating from block to block, each turn from a cold cache and timed on
// the thread's CPU clock. Counters: sift_ns_per_msg, baseline_ns_per_msg and `ratio`, the baseline's
// time over sift's, which the reject-path targets of bench/run read.
void BM_RejectPaired(benchmark::State& state, CorpusKey key, SelectorCase selector_case) {
  const RecordBuffer& buffer = TheCorpora().Get(key);
  const selector::Selector selector = Compile(selector_case);
  baseline::PairedReject paired(selector, buffer.bytes());
  double sift_ns = 0, baseline_ns = 0;
  uint64_t sift_matches = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const baseline::PairedFigures pass = paired.Pass();
    state.ResumeTiming();
    if (pass.decode_failed) {
      state.SkipWithError("pn_message_decode failed");
      return;
    }
    if (pass.sift.matches != pass.baseline.matches || pass.sift.match_digest != pass.baseline.match_digest) {
      state.SkipWithError("sift and the baseline found different matches");
      return;
    }
    sift_ns += pass.sift.cpu_ns;
    baseline_ns += pass.baseline.cpu_ns;
    sift_matches += pass.sift.matches;
  }
  const double messages = static_cast<double>(state.iterations()) * static_cast<double>(buffer.count());
  state.counters["sift_ns_per_msg"] = sift_ns / messages;
  state.counters["baseline_ns_per_msg"] = baseline_ns / messages;
  state.counters["ratio"] = baseline_ns / sift_ns;
  state.counters["matches"] = static_cast<double>(sift_matches) / static_cast<double>(state.iterations());
}

// ---------------------------------------------------------------------------------------------
// Store benchmarks: the p8 / first / 0.001% corpus in a StreamEngine, warm.

const CorpusKey kStoreCorpus = {"p8", Placement::kFirst, 10};
constexpr std::string_view kStream = "orders";

class Store {
 public:
  StreamEngine* Get(uint64_t* first_offset, size_t* count) {
    std::lock_guard<std::mutex> lock(mu_);
    if (engine_ == nullptr) Load();
    *first_offset = first_offset_;
    *count = count_;
    return engine_.get();
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    engine_.reset();
  }

 private:
  void Load() {
    const RecordBuffer& buffer = TheCorpora().Get(kStoreCorpus);
    Config& c = Settings();
    if (c.store_dir.empty()) {
      char templ[] = "/tmp/sift-filter-bench-XXXXXX";
      if (mkdtemp(templ) == nullptr) Die("cannot create a temporary store folder");
      c.store_dir = templ;
      c.remove_store_dir = true;
    }
    const std::string path = c.store_dir + "/store";
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    EngineOptions options;
    options.store.sync = false;                         // a benchmark store: nothing to lose
    options.store.block_cache_bytes = size_t{2} << 30;  // holds the whole corpus: the cache stays warm
    Status s = StreamEngine::Open(path, options, &engine_);
    if (s.ok()) s = engine_->CreateStream(kStream);
    std::vector<std::string_view> batch;
    for (size_t i = 0; s.ok() && i < buffer.count(); i += 1000) {
      batch.clear();
      for (size_t j = i; j < std::min(buffer.count(), i + 1000); ++j) {
        std::span<const uint8_t> m = buffer.message(j);
        batch.emplace_back(reinterpret_cast<const char*>(m.data()), m.size());
      }
      uint64_t first = 0;
      s = engine_->AppendBatch(kStream, batch, &first);
      if (s.ok() && i == 0) first_offset_ = first;
    }
    if (s.ok()) s = engine_->Flush();
    if (!s.ok()) Die("store " + path + ": " + s.ToString());
    count_ = buffer.count();
    // Warm the block cache: one pass over every chunk.
    ConsumerOptions warm;
    warm.stream = std::string(kStream);
    warm.filter = engine::ToCompiledFilter(Compile(kPlanted));
    warm.skip_chunks = false;  // read every chunk: this warms the cache
    std::unique_ptr<Consumer> consumer;
    s = engine_->NewConsumer(warm, &consumer);
    DeliveryBatch out;
    while (s.ok() && !consumer->done()) s = consumer->Poll(&out);
    if (!s.ok() || consumer->stats().scanned != count_) Die("store warm-up scan: " + s.ToString());
  }

  std::mutex mu_;
  std::unique_ptr<StreamEngine> engine_;
  uint64_t first_offset_ = 0;
  size_t count_ = 0;
};

Store& TheStore() {
  static Store store;
  return store;
}

enum class StoreMode : uint8_t { kSift, kBaseline };

void BM_Store(benchmark::State& state, SelectorCase selector_case, StoreMode mode) {
  uint64_t first_offset = 0;
  size_t count = 0;
  StreamEngine* engine = TheStore().Get(&first_offset, &count);
  const RecordBuffer& buffer = TheCorpora().Get(kStoreCorpus);
  const Range r = ThreadRange(state, count);
  const selector::Selector selector = Compile(selector_case);
  ConsumerOptions options;
  options.stream = std::string(kStream);
  options.start = StartPosition::Offset(first_offset + r.first);
  options.end = EndPosition::Offset(first_offset + r.last);
  options.credit = 1024;
  // The filter on every record, as the baseline decodes every record; what chunk summaries save
  // is measured by bench/skip.
  options.skip_chunks = false;
  if (mode == StoreMode::kSift) options.filter = engine::ToCompiledFilter(selector);  // the baseline's: everything
  pn_message_t* message = pn_message();
  baseline::ProtonFieldSource source(selector.fields());
  source.Reset(message);
  selector::EvalContext context;
  DeliveryBatch batch;
  uint64_t matches = 0;
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    matches = 0;
    std::unique_ptr<Consumer> consumer;
    Status s = engine->NewConsumer(options, &consumer);
    while (s.ok() && !consumer->done()) {
      s = consumer->Poll(&batch);
      if (mode == StoreMode::kSift) {
        matches += batch.size();
        continue;
      }
      for (const Delivery& d : batch) {
        if (pn_message_decode(message, d.bytes().data(), d.bytes().size()) != 0) {
          s = Status::Corruption("pn_message_decode failed", std::to_string(d.offset()), "");
          break;
        }
        matches += selector.Evaluate(source, context) == selector::Truth::kTrue;
      }
    }
    if (s.ok() && consumer->stats().scanned != r.last - r.first) {
      s = Status::Corruption("the consumer scanned " + std::to_string(consumer->stats().scanned) + " records", "",
                             "expected " + std::to_string(r.last - r.first));
    }
    meter.Stop();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  pn_message_free(message);
  Report(state, r.last - r.first, MessageBytes(buffer, r), matches, meter, count);
  CheckMatches(state, mode == StoreMode::kSift ? "store_sift" : "store_baseline", kStoreCorpus, selector_case, matches,
               false, count);
}

// ---------------------------------------------------------------------------------------------
// Registration

struct Selectivity {
  const char* label;
  uint64_t per_million;
};
constexpr Selectivity kSelectivities[] = {{"0.001%", 10},  {"0.1%", 1000},  {"1%", 10000},
                                          {"10%", 100000}, {"50%", 500000}, {"100%", 1000000}};

std::string Name(std::string_view kind, const CorpusKey& key, std::string_view selectivity, std::string_view selector) {
  std::string name(kind);
  for (std::string_view part : {std::string_view(key.shape), PlacementName(key.placement), selectivity, selector}) {
    name += "/";
    name += part;
  }
  return name;
}

// The rows bench/run's targets compare run this many times, interleaved at random with the others
// (--benchmark_enable_random_interleaving), and report their median: one pass of the baseline over
// the corpus is one sample, and on a shared machine one sample moves by a fifth from row to row.
constexpr int kRepetitions = 3;

void RegisterVariant(const CorpusKey& key, const char* selectivity, bool reference, bool deliver) {
  const int repetitions = Settings().quick ? 1 : kRepetitions;
  if (reference) {
    // A target compares sift_scan with it: measured the same way, a median of as many runs.
    benchmark::RegisterBenchmark(Name("reference", key, selectivity, "read_every_byte").c_str(), BM_Reference, key)
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(repetitions);
  }
  benchmark::RegisterBenchmark(Name("sift_scan", key, selectivity, kPlanted.name).c_str(), BM_Sift, key, kPlanted,
                               SiftMode::kScan)
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(repetitions);
  benchmark::RegisterBenchmark(Name("sift_reader", key, selectivity, kPlanted.name).c_str(), BM_Sift, key, kPlanted,
                               SiftMode::kReaderOnly)
      ->Unit(benchmark::kMillisecond);
  if (deliver) {
    benchmark::RegisterBenchmark(Name("sift_deliver", key, selectivity, kPlanted.name).c_str(), BM_Sift, key, kPlanted,
                                 SiftMode::kDeliver)
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(repetitions);
    benchmark::RegisterBenchmark(Name("sift_json", key, selectivity, kPlanted.name).c_str(), BM_Sift, key, kPlanted,
                                 SiftMode::kJson)
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(repetitions);
  }
  benchmark::RegisterBenchmark(Name("baseline", key, selectivity, kPlanted.name).c_str(), BM_Baseline, key, kPlanted)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(repetitions);
}

void RegisterAll() {
  const Config& c = Settings();
  if (c.quick) {
    // The CI regression set: the reject path on the 8-property shape.
    RegisterVariant({"p8", Placement::kFirst, 10}, "0.001%", true, false);
    return;
  }
  // Selectivity x shape x placement.
  for (const char* shape : {"p8", "p32"}) {
    for (Placement placement : {Placement::kFirst, Placement::kLast}) {
      bool first = true;
      for (const Selectivity& s : kSelectivities) {
        RegisterVariant({shape, placement, s.per_million}, s.label, first, true);
        first = false;
      }
    }
  }
  // The reject-path targets, paired.
  for (Placement placement : {Placement::kFirst, Placement::kLast}) {
    const CorpusKey key = {"p8", placement, 10};
    benchmark::RegisterBenchmark(Name("reject_paired", key, "0.001%", kPlanted.name).c_str(), BM_RejectPaired, key,
                                 kPlanted)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(kRepetitions);
  }
  // Selector shapes on the as-generated 8-property corpus.
  const CorpusKey natural = {"p8", Placement::kAsGenerated, 0};
  benchmark::RegisterBenchmark(Name("reference", natural, "natural", "read_every_byte").c_str(), BM_Reference, natural)
      ->Unit(benchmark::kMillisecond);
  for (const SelectorCase& shape : Shapes()) {
    benchmark::RegisterBenchmark(Name("sift_scan", natural, "natural", shape.name).c_str(), BM_Sift, natural, shape,
                                 SiftMode::kScan)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(Name("sift_reader", natural, "natural", shape.name).c_str(), BM_Sift, natural, shape,
                                 SiftMode::kReaderOnly)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(Name("baseline", natural, "natural", shape.name).c_str(), BM_Baseline, natural, shape)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
  // The store, one thread, CPU time (comparable with the in-memory rows on a loaded machine).
  benchmark::RegisterBenchmark(Name("store_sift", kStoreCorpus, "0.001%", kPlanted.name).c_str(), BM_Store, kPlanted,
                               StoreMode::kSift)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(Name("store_baseline", kStoreCorpus, "0.001%", kPlanted.name).c_str(), BM_Store,
                               kPlanted, StoreMode::kBaseline)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  // Thread scaling, in memory and from the store (wall time).
  const CorpusKey reject = kStoreCorpus;
  benchmark::RegisterBenchmark(Name("reference", reject, "0.001%", "read_every_byte").c_str(), BM_Reference, reject)
      ->Unit(benchmark::kMillisecond)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark(Name("sift_scan", reject, "0.001%", kPlanted.name).c_str(), BM_Sift, reject, kPlanted,
                               SiftMode::kScan)
      ->Unit(benchmark::kMillisecond)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark(Name("baseline", reject, "0.001%", kPlanted.name).c_str(), BM_Baseline, reject, kPlanted)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark(Name("store_sift", reject, "0.001%", kPlanted.name).c_str(), BM_Store, kPlanted,
                               StoreMode::kSift)
      ->Unit(benchmark::kMillisecond)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark(Name("store_baseline", reject, "0.001%", kPlanted.name).c_str(), BM_Store, kPlanted,
                               StoreMode::kBaseline)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
}

// The selector shapes, their text and the plan the compiler chose (the fast paths), for RESULTS.md.
void PrintPlans() {
  std::vector<SelectorCase> all = Shapes();
  all.insert(all.begin(), kPlanted);
  for (const SelectorCase& c : all) {
    std::printf("== %s (%s): %s\n%s\n", c.name.c_str(), std::string(FilterKindName(c.kind)).c_str(), c.text.c_str(),
                Compile(c).Explain().c_str());
  }
}

// Parses this program's own flags (Google Benchmark has removed its own). Exits 2 on a bad one.
void ParseFlags(int argc, char** argv) {
  Config& c = Settings();
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag, std::string* out) {
      if (arg.substr(0, flag.size()) != flag || arg.size() <= flag.size() || arg[flag.size()] != '=') return false;
      *out = std::string(arg.substr(flag.size() + 1));
      return true;
    };
    auto count = [&](std::string_view flag, size_t* out) {
      std::string text;
      if (!value(flag, &text)) return false;
      char* rest = nullptr;
      const unsigned long long n = std::strtoull(text.c_str(), &rest, 10);
      if (text.empty() || *rest != '\0' || n == 0 || n > 100'000'000) {
        Die(std::string(flag) + ": expected a number of messages in 1..100000000, got '" + text + "'");
      }
      *out = static_cast<size_t>(n);
      return true;
    };
    if (arg == "--quick") {
      c.quick = true;
    } else if (arg == "--explain") {
      c.explain = true;
    } else if (count("--orders", &c.orders) || count("--wide", &c.wide) || value("--orders_file", &c.orders_file) ||
               value("--wide_file", &c.wide_file) || value("--store_dir", &c.store_dir)) {
    } else {
      Die("unknown flag '" + std::string(arg) +
          "' (own flags: --quick --explain --orders=N --wide=N --orders_file=F --wide_file=F --store_dir=D; "
          "Google Benchmark flags: --help)");
    }
  }
}

}  // namespace
}  // namespace sift::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  sift::bench::ParseFlags(argc, argv);
  const sift::bench::Config& c = sift::bench::Settings();
  if (c.explain) {
    sift::bench::PrintPlans();
    return 0;
  }
  sift::bench::RegisterAll();
  benchmark::AddCustomContext("orders_messages", std::to_string(c.orders));
  if (!c.quick) benchmark::AddCustomContext("wide_messages", std::to_string(c.wide));
  benchmark::AddCustomContext("corpus_source", c.orders_file.empty() ? "generated in-process" : c.orders_file);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  sift::bench::TheStore().Close();
  if (c.remove_store_dir) {
    std::error_code ec;
    std::filesystem::remove_all(c.store_dir, ec);
  }
  return 0;
}
