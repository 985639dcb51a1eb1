// Selector evaluation on encoded messages, beside the decode-everything baseline, in one run.
//
// Each benchmark runs on two corpora: `all` (the 1,000,000 messages) and `rejected` (the messages of
// those the selector does not find TRUE, in the same order: the reject path alone, where a broker
// spends most of its filtering time and where the speed target is set).
//
//   BM_Sift/<selector>/<corpus> for each of 1,000,000 encoded messages: MessageFieldSource::Reset on
//                               the bytes, Selector::Evaluate (lazy, zero-copy reads of the fields
//                               the selector needs)
//   BM_SiftFilter/...           the same through engine::MessageFilter, the engine's shipped path: the
//                               text prefilter first (a byte search of the sections holding the
//                               selector's required texts; adaptive), then the same evaluation
//   BM_ProtonDecode/...         for each message: pn_message_decode into one reused pn_message_t,
//                               then the same compiled Selector evaluated on a FieldSource over the
//                               decoded message (bench/filter/proton_field_source.h: Proton getters,
//                               map lookups in its pn_data_t) — what a broker that decodes every
//                               message does
//
// Messages: synthetic orders (tools/synthetic/synthetic_orders.h, profile "orders"; ~450 bytes each,
// encoded by Proton's pn_message_t encoder: header, message annotations, properties, 8 application
// properties, a 200-byte data body), built once, deterministically (seed 1), into one contiguous
// buffer, before timing.
//
// Counters: items/s and bytes/s (messages and their encoded bytes), time/msg (CPU time per message),
// allocs/msg (C++ operator new calls per message; Proton's own malloc calls are not counted),
// matches (messages the selector accepted in one pass over the corpus; 0 on `rejected`).
#include <benchmark/benchmark.h>
#include <proton/codec.h>
#include <proton/message.h>
#include <re2/re2.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "bench/filter/proton_field_source.h"
#include "engine/message_field_source.h"
#include "engine/message_filter.h"
#include "selector/field_source.h"
#include "selector/like.h"
#include "selector/regexp.h"
#include "selector/selector.h"
#include "tools/synthetic/synthetic_orders.h"

#ifdef SIFT_COUNT_ALLOCATIONS
#include "tests/support/allocation_counter.h"
#endif

namespace sift::selector {
namespace {

constexpr uint64_t kMessages = 1'000'000;

// operator new calls by this thread (a store's background threads allocate on their own).
uint64_t Allocations() {
#ifdef SIFT_COUNT_ALLOCATIONS
  return sift::testing::ThisThreadAllocationCount();
#else
  return 0;
#endif
}

// The encoded messages, back to back, with their offsets.
struct Corpus {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> offsets;  // size() + 1 entries
  size_t size() const { return offsets.size() - 1; }
  std::span<const uint8_t> message(size_t i) const {
    return {bytes.data() + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }
};

const Corpus& AllMessages() {
  static const Corpus corpus = [] {
    Corpus c;
    std::unique_ptr<synthetic::SyntheticOrders> gen;
    if (!synthetic::SyntheticOrders::Create({}, &gen).ok()) std::abort();
    std::string one;
    c.bytes.reserve(kMessages * 460);
    c.offsets.push_back(0);
    for (uint64_t i = 0; i < kMessages; ++i) {
      if (!gen->Encode(i, &one).ok()) std::abort();
      c.bytes.insert(c.bytes.end(), one.begin(), one.end());
      c.offsets.push_back(c.bytes.size());
    }
    return c;
  }();
  return corpus;
}

// ---------------------------------------------------------------------------------------------
// The selectors

std::string InOfFifty() {
  std::string in = "customer IN (";
  for (int i = 0; i < 50; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "'cust-%05d'", i * 997 % 50000);
    in += (i ? ", " : "") + std::string(buf);
  }
  return in + ")";
}

const std::vector<std::pair<std::string, std::string>>& Selectors() {
  static const std::vector<std::pair<std::string, std::string>> selectors = {
      {"equality", "color = 'red'"},
      {"range_and_equality", "amount > 5000 AND region = 'eu-west'"},
      {"like_prefix_subject", "p.subject LIKE 'orders.%'"},
      {"like_re2", "customer LIKE 'cust-_1%7'"},
      {"in_50_strings", InOfFifty()},
      // REGEXP_LIKE (re2) beside the LIKE it can stand for: a prefix the prefilter finds in no message,
      // the LIKE with '_' (its literal 'cust-' is in every message, so the regex runs on each), one
      // customer (an equality to the prefilter and the summaries), a counted class after a literal.
      {"regexp_prefix_subject", "REGEXP_LIKE(p.subject, '^orders\\.')"},
      {"regexp_like_re2", "REGEXP_LIKE(customer, '^cust-[0-9]1.*7$')"},
      {"regexp_one_customer", "REGEXP_LIKE(customer, '^cust-25630$')"},
      {"regexp_digits", "REGEXP_LIKE(customer, 'cust-0[0-9]{3}7')"},
      {"ten_conjuncts",
       "region LIKE 'eu-%' AND color <> 'black' AND amount > 10 AND price < 900.0 AND tier >= 0 AND "
       "vip = FALSE AND h.priority >= 0 AND p.to = 'orders' AND m.[x-opt-partition] >= 0 AND "
       "customer LIKE 'cust-%'"},
  };
  return selectors;
}

Selector CompileOrDie(const std::string& text) {
  Selector s = Selector::Compile(text);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.error().Format(text).c_str());
    std::abort();
  }
  return s;
}

// The messages of AllMessages() that `text` does not find TRUE (plain evaluation, before timing).
const Corpus& RejectedBy(const std::string& text) {
  static std::map<std::string, Corpus> rejected;
  auto [it, added] = rejected.try_emplace(text);
  if (!added) return it->second;
  const Corpus& all = AllMessages();
  Selector selector = CompileOrDie(text);
  engine::MessageFieldSource source(selector.fields());
  EvalContext context;
  Corpus& c = it->second;
  c.offsets.push_back(0);
  for (size_t i = 0; i < all.size(); ++i) {
    std::span<const uint8_t> m = all.message(i);
    source.Reset(m);
    if (selector.Evaluate(source, context) == Truth::kTrue) continue;
    c.bytes.insert(c.bytes.end(), m.begin(), m.end());
    c.offsets.push_back(c.bytes.size());
  }
  return c;
}

enum class Subset { kAll, kRejected };

const Corpus& CorpusFor(Subset subset, const std::string& text) {
  return subset == Subset::kAll ? AllMessages() : RejectedBy(text);
}

void Report(benchmark::State& state, const Corpus& corpus, uint64_t matches, uint64_t allocations) {
  const double per_pass = static_cast<double>(corpus.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * corpus.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus.bytes.size()));
  // Seconds per message (printed with an SI prefix, e.g. "45.2ns"); like the rates, on CPU time.
  state.counters["time/msg"] =
      benchmark::Counter(per_pass, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["allocs/msg"] =
      static_cast<double>(allocations) / (per_pass * static_cast<double>(state.iterations()));
  state.counters["matches"] = static_cast<double>(matches);
}

// Matches per selector and corpus found by BM_Sift, checked by the others: every way must agree on
// every one of the corpus's answers in aggregate, or the comparison is void.
std::map<std::string, uint64_t>& SiftMatches() {
  static std::map<std::string, uint64_t> matches;
  return matches;
}

std::string MatchKey(Subset subset, const std::string& text) {
  return (subset == Subset::kAll ? "all:" : "rejected:") + text;
}

void CheckMatches(benchmark::State& state, Subset subset, const std::string& text, uint64_t matches) {
  auto sift = SiftMatches().find(MatchKey(subset, text));
  if ((sift != SiftMatches().end() && sift->second != matches) || (subset == Subset::kRejected && matches != 0)) {
    state.SkipWithError("the ways of evaluating disagree on the number of matches");
  }
}

void BM_Sift(benchmark::State& state, Subset subset, const std::string& text) {
  const Corpus& corpus = CorpusFor(subset, text);
  Selector selector = CompileOrDie(text);
  engine::MessageFieldSource source(selector.fields());
  EvalContext context;
  for (size_t i = 0; i < corpus.size(); ++i) {  // warm the context (scratch) and re2's DFA states
    source.Reset(corpus.message(i));
    benchmark::DoNotOptimize(selector.Evaluate(source, context));
  }
  uint64_t matches = 0;
  uint64_t allocations = 0;
  for (auto _ : state) {
    uint64_t before = Allocations();
    matches = 0;
    for (size_t i = 0; i < corpus.size(); ++i) {
      source.Reset(corpus.message(i));
      matches += selector.Evaluate(source, context) == Truth::kTrue;
    }
    allocations += Allocations() - before;
  }
  SiftMatches()[MatchKey(subset, text)] = matches;
  CheckMatches(state, subset, text, matches);
  Report(state, corpus, matches, allocations);
}

void BM_SiftFilter(benchmark::State& state, Subset subset, const std::string& text) {
  const Corpus& corpus = CorpusFor(subset, text);
  engine::MessageFilter filter(CompileOrDie(text));
  for (size_t i = 0; i < corpus.size(); ++i) benchmark::DoNotOptimize(filter.Matches(corpus.message(i)));
  const engine::MessageFilterStats warm = filter.stats();
  uint64_t matches = 0;
  uint64_t allocations = 0;
  for (auto _ : state) {
    uint64_t before = Allocations();
    matches = 0;
    for (size_t i = 0; i < corpus.size(); ++i) matches += filter.Matches(corpus.message(i));
    allocations += Allocations() - before;
  }
  CheckMatches(state, subset, text, matches);
  Report(state, corpus, matches, allocations);
  // The share of messages the text prefilter rejected without reading a field.
  state.counters["prefiltered"] = static_cast<double>(filter.stats().prefilter_rejected - warm.prefilter_rejected) /
                                  static_cast<double>(filter.stats().messages - warm.messages);
}

void BM_ProtonDecode(benchmark::State& state, Subset subset, const std::string& text) {
  const Corpus& corpus = CorpusFor(subset, text);
  Selector selector = CompileOrDie(text);
  pn_message_t* message = pn_message();
  bench::ProtonFieldSource source(selector.fields());
  source.Reset(message);
  EvalContext context;
  uint64_t matches = 0;
  uint64_t allocations = 0;
  for (auto _ : state) {
    uint64_t before = Allocations();
    matches = 0;
    for (size_t i = 0; i < corpus.size(); ++i) {
      std::span<const uint8_t> m = corpus.message(i);
      if (pn_message_decode(message, reinterpret_cast<const char*>(m.data()), m.size()) != 0) {
        state.SkipWithError("pn_message_decode failed");
        break;
      }
      matches += selector.Evaluate(source, context) == Truth::kTrue;
    }
    allocations += Allocations() - before;
  }
  pn_message_free(message);
  CheckMatches(state, subset, text, matches);
  Report(state, corpus, matches, allocations);
}

// A hostile LIKE: a 1,004-byte pattern (the longest a selector allows is 1,024) over 64 KiB of the
// letter it repeats, the shape that takes a position-by-position search text x pattern steps. sift's
// LikeMatcher (bit-parallel) beside re2 on the equivalent expression (UTF-8, '.' any code point),
// which is what such a pattern went to before; bytes/s of text.
const std::string& HostileText() {
  static const std::string text(64 * 1024, 'a');
  return text;
}
const std::string kHostilePattern = "%" + std::string(500, 'a') + "_" + std::string(500, 'a') + "b%";

// Matches `pattern` against `text` (which it must not match: the whole text is searched); bytes/s
// and time_per_byte of text.
void RunLike(benchmark::State& state, const std::string& pattern, const std::string& text) {
  Error error;
  const std::unique_ptr<LikeMatcher> m = LikeMatcher::Compile(pattern, "", &error);
  if (m == nullptr) {
    state.SkipWithError("the pattern does not compile");
    return;
  }
  if (m->Matches(text)) {
    state.SkipWithError("the pattern matches: the search would stop early");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(m->Matches(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["time_per_byte"] = benchmark::Counter(
      static_cast<double>(text.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_LikeHostile(benchmark::State& state) { RunLike(state, kHostilePattern, HostileText()); }
BENCHMARK(BM_LikeHostile)->Unit(benchmark::kMicrosecond);

// The worst patterns for each way LikeMatcher searches, each over 64 KiB of text built to keep the
// search going as long as possible (patterns within the default 1,024-byte limit):
// - underscore_run: a segment of 1,021 '_' then a literal: the widest bit-parallel state (16 words);
// - utf8_underscore: the hostile shape over two-byte code points ('é'), each decoded and looked up;
// - long_literal_late_mismatch: '%' a^500 b a^499 '%' (no '_'): a literal that agrees with the text
//   for 500 bytes at every position, which a search comparing it at each position pays 500x for;
// - short_underscore_segment: '%a_ab%': a 4-code-point segment, the longest searched position by
//   position, over text that fails only at its last character, and the 5-code-point one after it,
//   the shortest searched bit-parallel;
// - many_segments: 340 '%a' segments then 'b': every segment found at once, the last one never.
const bool kLikeWorstRegistered = [] {
  const std::string a64k(64 * 1024, 'a');
  std::string e64k;
  for (int i = 0; i < 32 * 1024; ++i) e64k += "\xc3\xa9";
  std::string utf8_pattern = "%";
  for (int i = 0; i < 250; ++i) utf8_pattern += "\xc3\xa9";
  utf8_pattern += "_";
  for (int i = 0; i < 250; ++i) utf8_pattern += "\xc3\xa9";
  utf8_pattern += "x%";
  std::string many = "";
  for (int i = 0; i < 340; ++i) many += "%a";
  many += "b%";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"underscore_run", "%" + std::string(1021, '_') + "b%", a64k},
      {"utf8_underscore", utf8_pattern, e64k},
      {"long_literal_late_mismatch", "%" + std::string(500, 'a') + "b" + std::string(499, 'a') + "%", a64k},
      {"short_underscore_segment", "%_b%", a64k},
      {"three_code_point_segment", "%a_b%", a64k},
      {"many_segments", many, a64k},
  };
  for (const auto& [name, pattern, text] : cases) {
    benchmark::RegisterBenchmark(("BM_LikeWorst/" + name).c_str(), [pattern = pattern,
                                                                    text = text](benchmark::State& state) {
      RunLike(state, pattern, text);
    })->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

void BM_LikeHostileRe2(benchmark::State& state) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_dot_nl(true);
  options.set_log_errors(false);
  options.set_max_mem(4 << 20);
  const RE2 re(".*" + std::string(500, 'a') + "." + std::string(500, 'a') + "b.*", options);
  for (auto _ : state) {
    benchmark::DoNotOptimize(RE2::FullMatch(re2::StringPiece(HostileText().data(), HostileText().size()), re));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * HostileText().size()));
}
BENCHMARK(BM_LikeHostileRe2)->Unit(benchmark::kMicrosecond)->Iterations(3);

// Hostile regular expressions, each over 64 KiB of text built so that the search runs to the end,
// compiled with the default limits (selector::Limits): nested quantifiers, a counted repetition as
// large as the program limit lets through (where re2's DFA runs out of room for its states and re2
// simulates the program instead), patterns whose DFA has exponentially many states, a long
// alternation, a repeated unbounded run. time_per_byte: what a byte of text costs.
const bool kRegexpHostileRegistered = [] {
  const std::string a64k(64 * 1024, 'a');
  std::string ab64k, aq64k;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 64 * 1024; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    ab64k += "ab"[x % 2];
    aq64k += static_cast<char>('a' + x % 17);
  }
  std::string w64k;  // every word's first letters, again and again
  while (w64k.size() < 64 * 1024) w64k += "w1583";
  std::string words = "(";
  for (int i = 0; i < 120; ++i) {
    if (i > 0) words += '|';
    words += 'w';
    words += std::to_string(i * 7919);
    words += 'x';
  }
  words += ")z";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"nested_alternation", "(a|aa)*b", a64k}, {"nested_plus", "(x+x+)+y", a64k},
      {"nested_star", "(a*)*b", a64k},          {"star_of_runs", "(.*a){20}b", a64k},
      {"counted_1000", "a{1000}b", a64k},       {"counted_nested", "((a{10}){10}){10}b", a64k},
      {"dfa_blowup_20", "a[ab]{20}c", ab64k},   {"dfa_blowup_class", "[a-q][^u-z]{13}x", aq64k},
      {"alternation_120_words", words, w64k},
  };
  for (const auto& [name, pattern, text] : cases) {
    benchmark::RegisterBenchmark(("BM_RegexpHostile/" + name).c_str(), [pattern = pattern,
                                                                        text = text](benchmark::State& state) {
      const Limits limits;
      Error error;
      bool in_flags = false;
      const std::unique_ptr<RegexpMatcher> m =
          RegexpMatcher::Compile(pattern, "", limits.max_regexp_memory, limits.max_regexp_program, &error, &in_flags);
      if (m == nullptr) {
        state.SkipWithError(("refused: " + error.message).c_str());
        return;
      }
      if (m->Matches(text)) {
        state.SkipWithError("the pattern matches: the search would stop early");
        return;
      }
      for (auto _ : state) benchmark::DoNotOptimize(m->Matches(text));
      state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
      state.counters["time_per_byte"] =
          benchmark::Counter(static_cast<double>(text.size()),
                             benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
      state.counters["program"] = m->program_size();
    })->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

// The three ways of each selector, side by side, on each corpus, in one run.
const bool kRegistered = [] {
  for (Subset subset : {Subset::kAll, Subset::kRejected}) {
    const std::string suffix = subset == Subset::kAll ? "/all" : "/rejected";
    for (const auto& [name, text] : Selectors()) {
      benchmark::RegisterBenchmark(("BM_Sift/" + name + suffix).c_str(), BM_Sift, subset, text)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_SiftFilter/" + name + suffix).c_str(), BM_SiftFilter, subset, text)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_ProtonDecode/" + name + suffix).c_str(), BM_ProtonDecode, subset, text)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(2);
    }
  }
  return true;
}();

}  // namespace
}  // namespace sift::selector

BENCHMARK_MAIN();
