// Chunk skipping never changes a result. Random selectors (every operator, both dialects, property
// filters; fields of every class, nulls, absent keys, unlike types, NaN) over corpora whose values are
// random, sorted along the stream, or clustered per chunk: every chunk the predicate rules out is
// checked message by message, and none of its messages may match. The same holds for a corpus of every
// header and properties field (defaults, each type the spec allows, values of a wrong type) in compact
// and wide encodings, and a summary does not depend on how its values are encoded. The store-level
// tests then compare whole replays with skipping on and off, through consumers and parallel scans, and
// a store written without summaries before and after `SummarizeChunks`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "amqp/validate.h"
#include "engine/chunk_skipper.h"
#include "engine/chunk_summary_builder.h"
#include "engine/chunk_summary_format.h"
#include "engine/compiled_filter.h"
#include "engine/message_field_source.h"
#include "selector/chunk_predicate.h"
#include "sift/stream_engine.h"
#include "storage/chunk_format.h"
#include "storage/key_layout.h"
#include "storage/summary_entry_format.h"
#include "storage/term_index.h"
#include "tests/engine/selector_message_view_encoder.h"
#include "tests/support/chunk_corruption.h"
#include "tests/selector/random_expression.h"

namespace sift::engine {
namespace {

using selector::CompileOptions;
using selector::Dialect;
using selector::EvalContext;
using selector::Section;
using selector::Selector;
using selector::Truth;
using selector::Value;
using selector::ValueType;
using selector::testing::DescribeMessage;
using selector::testing::EncodeTestMessage;
using selector::testing::RandomExpressions;
using selector::testing::TestMessage;
using selector::testing::TestValue;

struct Corpus {
  std::string name;
  std::vector<TestMessage> decoded;
  std::vector<std::string> encoded;
  std::vector<std::pair<size_t, size_t>> chunks;  // [begin, end) into the messages
  std::vector<std::string> summaries;
  // Each chunk's term entries, when its terms are complete (else empty: the chunk is never ruled out
  // by terms).
  std::vector<std::optional<storage::ChunkTermEntries>> terms;
};

// A chunk's terms as a reader sees them when it has read every partition.
class EntriesLookup final : public storage::ChunkTermLookup {
 public:
  explicit EntriesLookup(const storage::ChunkTermEntries& entries) : entries_(entries) {}
  bool MayHold(uint64_t term) const override {
    const uint32_t p = storage::TermPartition(term);
    if (!(entries_.partitions() & (uint64_t{1} << p))) return false;
    return storage::TermEntryMayHold(entries_.entry(p), term);
  }

 private:
  const storage::ChunkTermEntries& entries_;
};

// Numbers first, by value; then everything else, by type; absent last.
double SortKey(const TestMessage& m, const char* name) {
  const TestValue* v = m.Find(Section::kApplicationProperties, name);
  if (v == nullptr) return 1e300;
  selector::Number n;
  if (!selector::ToNumber(v->view(), &n)) return 1e299 + static_cast<double>(v->type);
  const double d = n.kind == selector::Number::Kind::kDouble   ? n.d
                   : n.kind == selector::Number::Kind::kSigned ? static_cast<double>(n.i)
                                                               : static_cast<double>(n.u);
  return std::isnan(d) ? 1e298 : d;
}

std::string TextKey(const TestMessage& m, const char* name) {
  const TestValue* v = m.Find(Section::kApplicationProperties, name);
  return v == nullptr ? std::string(1, '\xff') : std::string(1, static_cast<char>(v->type)) + v->bytes;
}

TestMessage Without(const TestMessage& m, Section section, const std::string& name) {
  TestMessage out;
  for (const auto& [key, value] : m.fields()) {
    if (key.first != section || key.second != name) out.Set(key.first, key.second, value);
  }
  return out;
}

// kind: "random", "sorted" (by a.x, then a.s inside runs), "clustered" (per chunk: one value of a
// field for all its messages, a field absent from all of them, a small set of texts).
// `terms_miss_last`: a seeded bug, terms built without each chunk's last message.
Corpus MakeCorpus(const std::string& kind, uint64_t seed, size_t count, bool terms_miss_last = false) {
  Corpus c;
  c.name = kind;
  RandomExpressions gen(seed);
  for (size_t i = 0; i < count; ++i) c.decoded.push_back(gen.Message());
  if (kind == "sorted") {
    std::stable_sort(c.decoded.begin(), c.decoded.end(), [](const TestMessage& a, const TestMessage& b) {
      const double ka = SortKey(a, "x"), kb = SortKey(b, "x");
      if (ka != kb) return ka < kb;
      return TextKey(a, "s") < TextKey(b, "s");
    });
  }
  for (size_t begin = 0; begin < count;) {
    const size_t end = std::min(count, begin + 1 + gen.Below(40));
    c.chunks.emplace_back(begin, end);
    begin = end;
  }
  if (kind == "clustered") {
    static const char* kNames[] = {"x", "y", "s", "t", "b", "o"};
    for (const auto& [begin, end] : c.chunks) {
      const TestMessage donor = gen.Message();
      for (int k = 0; k < 3; ++k) {
        const std::string name = kNames[gen.Below(6)];
        const TestValue* v = donor.Find(Section::kApplicationProperties, name);
        const bool drop = v == nullptr || gen.OneIn(4);
        const TestMessage other = gen.Message();  // a second value, for a set of two
        const TestValue* w = other.Find(Section::kApplicationProperties, name);
        for (size_t i = begin; i < end; ++i) {
          if (drop) {
            c.decoded[i] = Without(c.decoded[i], Section::kApplicationProperties, name);
          } else {
            c.decoded[i].Set(Section::kApplicationProperties, name, (w != nullptr && gen.OneIn(3)) ? *w : *v);
          }
        }
      }
      if (gen.OneIn(2)) {
        const uint64_t priority = gen.Below(10);
        for (size_t i = begin; i < end; ++i) {
          if (priority == 9) {
            c.decoded[i] = Without(c.decoded[i], Section::kHeader, "priority");  // reads as 4
          } else {
            c.decoded[i].Set(Section::kHeader, "priority", TestValue::Of(Value::Unsigned(ValueType::kUByte, priority)));
          }
        }
      }
    }
  }
  for (const TestMessage& m : c.decoded) {
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_TRUE(EncodeTestMessage(m, &bytes, &error)) << error;
    c.encoded.emplace_back(bytes.begin(), bytes.end());
  }
  ChunkSummaryBuilder builder;
  for (const auto& [begin, end] : c.chunks) {
    builder.Reset();
    for (size_t i = begin; i < end; ++i) builder.Add(c.encoded[i]);
    std::string summary;
    builder.Finish(&summary);
    EXPECT_FALSE(summary.empty()) << kind << " chunk at " << begin;
    c.summaries.push_back(std::move(summary));
    std::vector<uint64_t> terms;
    bool complete = builder.FinishTerms(&terms);
    if (terms_miss_last && end - begin > 1) {
      builder.Reset();
      for (size_t i = begin; i + 1 < end; ++i) builder.Add(c.encoded[i]);
      builder.Finish(&summary);
      complete = builder.FinishTerms(&terms);
    }
    c.terms.emplace_back();
    if (complete) c.terms.back().emplace().Build(terms);
  }
  return c;
}

// A property filter from the same value distributions as the messages (references often match).
Selector RandomPropertyFilter(RandomExpressions& gen, std::string* text) {
  static const char* kNames[] = {"x", "y", "s", "t", "b", "n", "o", "none"};
  static const char* kPrefixes[] = {"&p:", "&s:", ""};
  const TestMessage donor = gen.Message();
  std::vector<TestValue> refs;
  std::vector<std::string> names;
  const size_t n = 1 + gen.Below(2);
  for (size_t k = 0; k < n; ++k) {
    names.push_back(kNames[gen.Below(8)]);
    const TestValue* v = donor.Find(Section::kApplicationProperties, names.back());
    TestValue ref = v != nullptr ? *v : TestValue::Of(Value::Null());
    if (ref.type == ValueType::kList || ref.type == ValueType::kMap) ref = TestValue::Of(Value::Null());
    if (ref.type == ValueType::kString) {
      if (!ref.bytes.empty() && ref.bytes[0] == '&') ref.bytes = "&" + ref.bytes;
      const std::string prefix = kPrefixes[gen.Below(3)];
      if (!prefix.empty() && ref.bytes.size() > 1 && (ref.bytes[0] & 0x80) == 0) {
        ref.bytes = prefix + (prefix == "&p:" ? ref.bytes.substr(0, 1) : ref.bytes.substr(ref.bytes.size() - 1));
      }
    }
    refs.push_back(std::move(ref));
  }
  std::vector<std::pair<std::string, Value>> views;
  for (size_t k = 0; k < n; ++k) {
    views.emplace_back(names[k], refs[k].view());
    *text += (k ? ", " : "") + names[k] + " ~ " + selector::testing::DescribeValue(refs[k]);
  }
  Selector s = Selector::CompileApplicationPropertiesFilter(views);
  if (gen.OneIn(3)) {
    const TestValue* subject = donor.Find(Section::kProperties, "subject");
    if (subject != nullptr && (subject->bytes.empty() || subject->bytes[0] != '&')) {
      std::vector<std::pair<std::string, Value>> p = {{"subject", subject->view()}};
      const Selector parts[] = {s, Selector::CompilePropertiesFilter(p)};
      s = Selector::AllOf(parts);
      *text += ", p.subject ~ " + selector::testing::DescribeValue(*subject);
    }
  }
  return s;
}

struct SkipRun {
  uint64_t selectors = 0, checks = 0, skipped = 0, messages_checked = 0;
  uint64_t skipped_by_corpus[3] = {0, 0, 0};
  // The second level: chunks with complete terms put to the term filter, and those it ruled out.
  uint64_t term_checks = 0, term_skipped = 0;
  uint64_t term_skipped_by_corpus[3] = {0, 0, 0};
  std::vector<std::string> failures;
};

SkipRun RunSkipDifferential(uint64_t seed, int selectors, bool terms_miss_last = false) {
  std::vector<Corpus> corpora;
  corpora.push_back(MakeCorpus("random", seed + 1, 500, terms_miss_last));
  corpora.push_back(MakeCorpus("sorted", seed + 2, 500, terms_miss_last));
  corpora.push_back(MakeCorpus("clustered", seed + 3, 500, terms_miss_last));
  RandomExpressions gen(seed);
  EvalContext context;
  context.SetNow(selector::testing::kDifferentialNow);
  SkipRun run;
  for (int i = 0; i < selectors; ++i) {
    const size_t ci = static_cast<size_t>(i) % corpora.size();
    const Corpus& corpus = corpora[ci];
    std::string text;
    Selector selector;
    if (gen.OneIn(8)) {
      selector = RandomPropertyFilter(gen, &text);
    } else {
      CompileOptions options;
      options.dialect = gen.OneIn(5) ? Dialect::kJms : Dialect::kSql;
      gen.set_dialect(options.dialect);
      text = gen.Render(gen.Predicate(1 + static_cast<int>(gen.Below(5))));
      selector = Selector::Compile(text, options);
      if (options.dialect == Dialect::kJms) text += " (jms)";
    }
    if (!selector.ok()) {
      run.failures.push_back("`" + text + "` refused: " + selector.error().ToString());
      continue;
    }
    ++run.selectors;
    ChunkSkipper skipper(selector);
    MessageFieldSource source(selector.fields());
    for (size_t k = 0; k < corpus.chunks.size(); ++k) {
      ++run.checks;
      bool by_summary = !skipper.MayMatch(corpus.summaries[k]);
      bool by_terms = false;
      if (corpus.terms[k].has_value()) {
        ++run.term_checks;
        by_terms = !skipper.MayMatchTerms(EntriesLookup(*corpus.terms[k]));
      }
      if (by_summary) {
        ++run.skipped;
        ++run.skipped_by_corpus[ci];
      }
      if (by_terms) {
        ++run.term_skipped;
        ++run.term_skipped_by_corpus[ci];
      }
      if (!by_summary && !by_terms) continue;
      for (size_t m = corpus.chunks[k].first; m < corpus.chunks[k].second; ++m) {
        ++run.messages_checked;
        const std::string& bytes = corpus.encoded[m];
        source.Reset(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
        if (selector.Evaluate(source, context) == Truth::kTrue && run.failures.size() < 10) {
          run.failures.push_back("`" + text + "` skipped (" + (by_summary ? "summary" : "terms") + ") a " +
                                 corpus.name + " chunk holding a match: {" + DescribeMessage(corpus.decoded[m]) + "}");
        }
      }
    }
  }
  return run;
}

TEST(ChunkSkipDifferential, NoSkippedChunkHoldsAMatch) {
  const SkipRun run = RunSkipDifferential(0x5C1F, 100000);
  for (const std::string& f : run.failures) ADD_FAILURE() << f;
  EXPECT_GE(run.selectors, 100000u * 9 / 10);
  // Not vacuous: the predicate rules out a fair share of chunks, in every kind of corpus.
  EXPECT_GT(run.skipped, run.checks / 20) << run.skipped << " of " << run.checks;
  for (uint64_t s : run.skipped_by_corpus) EXPECT_GT(s, 0u);
  // The second level too: nearly every chunk has complete terms, and they rule out chunks in every corpus.
  EXPECT_GT(run.term_checks, run.checks * 9 / 10);
  for (uint64_t s : run.term_skipped_by_corpus) EXPECT_GT(s, 0u);
  std::printf("term checks %llu, ruled out by terms %llu (%.1f%%)\n", static_cast<unsigned long long>(run.term_checks),
              static_cast<unsigned long long>(run.term_skipped),
              100.0 * run.term_skipped / std::max<uint64_t>(run.term_checks, 1));
  std::printf("selectors %llu, chunk checks %llu, skipped %llu (%.1f%%), messages of skipped chunks checked %llu\n",
              static_cast<unsigned long long>(run.selectors), static_cast<unsigned long long>(run.checks),
              static_cast<unsigned long long>(run.skipped), 100.0 * run.skipped / std::max<uint64_t>(run.checks, 1),
              static_cast<unsigned long long>(run.messages_checked));
}

// The differential run catches a term index that misses values: terms built without each chunk's last
// message rule out chunks that hold matches.
TEST(ChunkSkipDifferential, ATermIndexMissingAMessageFailsTheRun) {
  const SkipRun run = RunSkipDifferential(0x5C1F, 20000, /*terms_miss_last=*/true);
  EXPECT_FALSE(run.failures.empty());
  bool by_terms = false;
  for (const std::string& f : run.failures) by_terms = by_terms || f.find("skipped (terms)") != std::string::npos;
  EXPECT_TRUE(by_terms);
}

// The value encoded at p (before end) again, each value in it in a legal encoding picked at random: the
// same, or a wider one (str32 / sym32 / vbin32 for short contents, uint / ulong / int / long in full
// width, the 0x56 boolean, list8 / list32 for list0, list32 / map32 for short compounds, ulong
// descriptors), as encoders other than Proton's write them. Arrays are copied. False for bytes that
// are not a value.
bool Reencode(const uint8_t*& p, const uint8_t* end, std::string* out, RandomExpressions& gen) {
  if (p >= end) return false;
  const uint8_t c = *p++;
  const size_t left = static_cast<size_t>(end - p);
  if (c == 0x00) {  // a described value: its descriptor, then the value
    out->push_back('\0');
    return Reencode(p, end, out, gen) && Reencode(p, end, out, gen);
  }
  const bool widen = gen.OneIn(2);
  auto put = [out](uint8_t code) { out->push_back(static_cast<char>(code)); };
  switch (c) {
    case 0x41:  // true, false: the one-byte boolean
    case 0x42:
      if (!widen) break;
      put(0x56);
      put(c == 0x41 ? 1 : 0);
      return true;
    case 0x43:  // uint0, smalluint: uint
    case 0x52:
      if (!widen || (c == 0x52 && left < 1)) break;
      put(0x70);
      base::AppendBE32(out, c == 0x43 ? 0 : *p++);
      return true;
    case 0x44:  // ulong0, smallulong: ulong
    case 0x53:
      if (!widen || (c == 0x53 && left < 1)) break;
      put(0x80);
      base::AppendBE64(out, c == 0x44 ? 0 : *p++);
      return true;
    case 0x54:  // smallint: int
      if (!widen || left < 1) break;
      put(0x71);
      base::AppendBE32(out, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(*p++))));
      return true;
    case 0x55:  // smalllong: long
      if (!widen || left < 1) break;
      put(0x81);
      base::AppendBE64(out, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(*p++))));
      return true;
    case 0x45:  // list0: list8 or list32 of no element
      if (!widen) break;
      if (gen.OneIn(2)) {
        put(0xc0);
        put(1);
        put(0);
      } else {
        put(0xd0);
        base::AppendBE32(out, 4);
        base::AppendBE32(out, 0);
      }
      return true;
    default: break;
  }
  const uint8_t kind = c >> 4;
  if (kind == 0x4) {
    put(c);
    return true;
  }
  if (kind >= 0x5 && kind <= 0x9) {  // fixed width: 1, 2, 4, 8 or 16 bytes
    static constexpr size_t kWidth[] = {1, 2, 4, 8, 16};
    const size_t w = kWidth[kind - 0x5];
    if (left < w) return false;
    put(c);
    out->append(reinterpret_cast<const char*>(p), w);
    p += w;
    return true;
  }
  const bool wide = (kind & 1) != 0;  // 0xb_, 0xd_, 0xf_: 4-byte size (and count)
  const size_t size_width = wide ? 4 : 1;
  if (left < size_width) return false;
  const size_t size = wide ? base::LoadBE32(p) : *p;
  p += size_width;
  if (static_cast<size_t>(end - p) < size) return false;
  if (kind == 0xa || kind == 0xb) {  // binary, string, symbol
    put(static_cast<uint8_t>(widen ? (c | 0x10) : c));
    if (widen || wide) {
      base::AppendBE32(out, static_cast<uint32_t>(size));
    } else {
      put(static_cast<uint8_t>(size));
    }
    out->append(reinterpret_cast<const char*>(p), size);
    p += size;
    return true;
  }
  if (kind == 0xe || kind == 0xf) {  // arrays: as they are
    put(c);
    out->append(reinterpret_cast<const char*>(p - size_width), size_width + size);
    p += size;
    return true;
  }
  // Lists and maps: the count, then each element encoded again.
  const uint8_t* const compound_end = p + size;
  if (size < size_width) return false;
  const size_t count = wide ? base::LoadBE32(p) : *p;
  p += size_width;
  std::string elements;
  for (size_t i = 0; i < count; ++i) {
    if (!Reencode(p, compound_end, &elements, gen)) return false;
  }
  if (p != compound_end) return false;
  if (!wide && !widen && elements.size() + 1 <= 255) {
    put(c);
    put(static_cast<uint8_t>(elements.size() + 1));
    put(static_cast<uint8_t>(count));
  } else {
    put(static_cast<uint8_t>(c | 0x10));
    base::AppendBE32(out, static_cast<uint32_t>(elements.size() + 4));
    base::AppendBE32(out, static_cast<uint32_t>(count));
  }
  out->append(elements);
  return true;
}

// A message's sections, each encoded again (Reencode).
std::string ReencodeMessage(const std::string& message, RandomExpressions& gen) {
  const auto* p = reinterpret_cast<const uint8_t*>(message.data());
  const uint8_t* const end = p + message.size();
  std::string out;
  while (p < end) {
    if (!Reencode(p, end, &out, gen)) {
      ADD_FAILURE() << "cannot walk a test message";
      return message;
    }
  }
  return out;
}

// A summary describes the values of its chunk, not how they are encoded: the corpora's messages with
// every value in another legal encoding (ReencodeMessage) get the same summaries, both ways a store
// builds them, and are well formed exactly when the originals are.
TEST(ChunkSkipDifferential, SummariesDoNotDependOnHowValuesAreEncoded) {
  RandomExpressions gen(0xE7C0DE);
  size_t chunks = 0, checked_chunks = 0, changed = 0;
  for (const char* kind : {"random", "sorted", "clustered"}) {
    const Corpus c = MakeCorpus(kind, 0x3E + chunks, 600);
    for (size_t k = 0; k < c.chunks.size(); ++k, ++chunks) {
      std::vector<std::string> wide;
      bool all_valid = true;
      for (size_t i = c.chunks[k].first; i < c.chunks[k].second; ++i) {
        wide.push_back(ReencodeMessage(c.encoded[i], gen));
        changed += wide.back() != c.encoded[i];
        const auto valid = [](const std::string& m) {
          return amqp::Validate(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.data()), m.size())).ok();
        };
        const bool ok = valid(c.encoded[i]);
        EXPECT_EQ(valid(wide.back()), ok) << kind << " message " << i;
        all_valid = all_valid && ok;
      }
      ChunkSummaryBuilder builder;
      builder.Reset();
      for (const std::string& m : wide) builder.Add(m);
      std::string summary;
      builder.Finish(&summary);
      EXPECT_EQ(summary, c.summaries[k]) << kind << " chunk " << k << " (messages " << c.chunks[k].first << "..)";
      if (!all_valid) continue;  // lists and maps as property values: AddChecked refuses them
      ++checked_chunks;
      builder.Reset();
      for (const std::string& m : wide) EXPECT_TRUE(builder.AddChecked(m));
      builder.Finish(&summary);
      EXPECT_EQ(summary, c.summaries[k]) << kind << " chunk " << k << " (AddChecked)";
    }
  }
  EXPECT_GT(changed, chunks);  // most messages changed
  EXPECT_GT(checked_chunks, chunks / 10);
}

// The header and properties fields (their defaults, every type the spec gives them, values of a wrong
// type, which read as missing) in clustered chunks, some messages in wide encodings: random selectors
// over them never skip a chunk holding a match.
struct FixedFieldDomain {
  Section section;
  const char* name;  // as the message says it
  const char* ref;   // as a selector says it
  std::vector<TestValue> values;
};

std::vector<FixedFieldDomain> FixedFieldDomains() {
  auto b = [](bool v) { return TestValue::Of(Value::Boolean(v)); };
  auto u = [](ValueType t, uint64_t v) { return TestValue::Of(Value::Unsigned(t, v)); };
  auto t = [](ValueType type, const char* text) { return TestValue::Bytes(type, text); };
  auto ts = [](int64_t ms) { return TestValue::Of(Value::Timestamp(ms)); };
  const TestValue uuid = t(ValueType::kUuid, "0123456789abcdef");
  using VT = ValueType;
  return {
      {Section::kHeader, "durable", "h.durable", {b(true), b(false)}},
      {Section::kHeader, "priority", "h.priority", {u(VT::kUByte, 0), u(VT::kUByte, 4), u(VT::kUByte, 9)}},
      {Section::kHeader, "ttl", "header.ttl", {u(VT::kUInt, 0), u(VT::kUInt, 1000), u(VT::kUInt, 60000)}},
      {Section::kHeader, "first-acquirer", "h.first_acquirer", {b(true), b(false)}},
      {Section::kHeader, "delivery-count", "h.delivery_count", {u(VT::kUInt, 0), u(VT::kUInt, 1), u(VT::kUInt, 5)}},
      {Section::kProperties,
       "message-id",
       "p.message_id",
       {u(VT::kULong, 1), u(VT::kULong, 2), t(VT::kString, "id-1"), t(VT::kString, "id-2"), t(VT::kString, "ID:x-1"),
        t(VT::kString, "ID:AMQP_ULONG:5"), t(VT::kBinary, "ab"), uuid}},
      {Section::kProperties, "user-id", "p.user_id", {t(VT::kBinary, "alice"), t(VT::kBinary, "bob")}},
      {Section::kProperties, "to", "properties.to", {t(VT::kString, "q1"), t(VT::kString, "q2")}},
      {Section::kProperties, "subject", "p.subject", {t(VT::kString, "a"), t(VT::kString, "b"), t(VT::kString, "")}},
      {Section::kProperties, "reply-to", "p.reply_to", {t(VT::kString, "r1")}},
      {Section::kProperties,
       "correlation-id",
       "p.correlation_id",
       {u(VT::kULong, 2), t(VT::kString, "id-2"), t(VT::kString, "ID:x-1"), t(VT::kString, "ID:AMQP_ULONG:5"),
        t(VT::kBinary, "cd"), uuid}},
      {Section::kProperties,
       "content-type",
       "p.content_type",
       {t(VT::kSymbol, "text/plain"), t(VT::kSymbol, "application/json")}},
      {Section::kProperties, "content-encoding", "p.content_encoding", {t(VT::kSymbol, "gzip"), t(VT::kSymbol, "br")}},
      {Section::kProperties, "absolute-expiry-time", "p.absolute_expiry_time", {ts(1000), ts(5000)}},
      {Section::kProperties, "creation-time", "p.creation_time", {ts(1000), ts(2000), ts(3000)}},
      {Section::kProperties, "group-id", "p.group_id", {t(VT::kString, "g1"), t(VT::kString, "g2")}},
      {Section::kProperties, "group-sequence", "p.group_sequence", {u(VT::kUInt, 0), u(VT::kUInt, 1), u(VT::kUInt, 7)}},
      {Section::kProperties, "reply-to-group-id", "p.reply_to_group_id", {t(VT::kString, "rg")}},
  };
}

// A literal for `v` in the SQL dialect (a uuid, which has none, as a string).
std::string SqlLiteral(const TestValue& v) {
  switch (v.type) {
    case ValueType::kBoolean: return v.view().boolean ? "TRUE" : "FALSE";
    case ValueType::kString:
    case ValueType::kSymbol:
    case ValueType::kUuid: return "'" + v.bytes + "'";
    case ValueType::kBinary: {
      std::string hex = "0x";
      for (const unsigned char ch : v.bytes) {
        static const char kDigits[] = "0123456789ABCDEF";
        hex += kDigits[ch >> 4];
        hex += kDigits[ch & 15];
      }
      return hex;
    }
    default: return selector::testing::DescribeValue(v);
  }
}

TEST(ChunkSkipDifferential, HeaderAndPropertiesFieldsSkipExactly) {
  const std::vector<FixedFieldDomain> domains = FixedFieldDomains();
  RandomExpressions gen(0xF1E1D5);
  // Values of a wrong type (which strict validation refuses) only in some chunks, so that the others
  // are summarized by AddChecked too.
  bool wrong_types = false;
  auto value_of = [&](const FixedFieldDomain& d) -> std::optional<TestValue> {
    const uint64_t r = gen.Below(12);
    if (r == 0) return std::nullopt;                                                // absent (the header's default)
    if (r == 1) return TestValue::Of(Value::Null());                                // an explicit null: the same
    if (r == 2 && wrong_types) return TestValue::Bytes(ValueType::kString, "bad");  // for most fields: missing
    return d.values[gen.Below(d.values.size())];
  };
  Corpus c;
  c.name = "fixed fields";
  const size_t count = 3000;
  for (size_t begin = 0; begin < count;) {
    const size_t end = std::min(count, begin + 1 + gen.Below(30));
    c.chunks.emplace_back(begin, end);
    wrong_types = gen.OneIn(3);
    // A few fields hold one value (or none) along the chunk, the others vary.
    std::vector<std::pair<size_t, std::optional<TestValue>>> fixed;
    for (int k = 0; k < 4; ++k) {
      const size_t f = gen.Below(domains.size());
      fixed.emplace_back(f, value_of(domains[f]));
    }
    for (size_t i = begin; i < end; ++i) {
      TestMessage m;
      for (size_t f = 0; f < domains.size(); ++f) {
        std::optional<TestValue> v = gen.OneIn(3) ? std::nullopt : value_of(domains[f]);
        for (const auto& [which, value] : fixed) {
          if (which == f) v = value;
        }
        if (v) m.Set(domains[f].section, domains[f].name, std::move(*v));
      }
      c.decoded.push_back(std::move(m));
    }
    begin = end;
  }
  for (const TestMessage& m : c.decoded) {
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(EncodeTestMessage(m, &bytes, &error)) << error;
    const std::string compact(bytes.begin(), bytes.end());
    c.encoded.push_back(gen.OneIn(2) ? ReencodeMessage(compact, gen) : compact);
  }
  ChunkSummaryBuilder plain, checked;
  std::vector<storage::ChunkTermEntries> chunk_terms;
  size_t both = 0;
  for (const auto& [begin, end] : c.chunks) {
    plain.Reset();
    checked.Reset();
    bool all_valid = true;
    for (size_t i = begin; i < end; ++i) {
      plain.Add(c.encoded[i]);
      all_valid = checked.AddChecked(c.encoded[i]) && all_valid;
    }
    std::string summary;
    plain.Finish(&summary);
    ASSERT_FALSE(summary.empty());
    std::vector<uint64_t> terms;
    ASSERT_TRUE(plain.FinishTerms(&terms));
    chunk_terms.emplace_back().Build(terms);
    if (all_valid) {
      std::string other;
      checked.Finish(&other);
      EXPECT_EQ(other, summary) << "chunk at " << begin;
      ++both;
    }
    c.summaries.push_back(std::move(summary));
  }
  EXPECT_GT(both, c.chunks.size() / 3);

  static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
  // The JMS dialect's header names, which read those fields as Qpid JMS presents them (message ids as
  // strings, absent times as 0, the delivery count plus one, ...), with literals that meet them.
  struct JmsName {
    const char* name;
    std::vector<const char*> literals;
  };
  const std::vector<const char*> ids = {"'ID:id-1'",
                                        "'id-2'",
                                        "'ID:AMQP_NO_PREFIX:id-2'",
                                        "'ID:1'",
                                        "'ID:AMQP_ULONG:2'",
                                        "'ID:AMQP_ULONG:02'",
                                        "'ID:AMQP_BINARY:6162'",
                                        "'ID:AMQP_BINARY:6364'",
                                        "'ID:AMQP_UUID:30313233-3435-3637-3839-616263646566'",
                                        "'ID:x-1'",
                                        "'ID:AMQP_STRING:ID:AMQP_ULONG:5'",
                                        "'ID:AMQP_ULONG:5'"};
  const JmsName jms[] = {
      {"JMSMessageID", ids},
      {"JMSCorrelationID", ids},
      {"JMSPriority", {"0", "4", "9", "5"}},
      {"JMSTimestamp", {"0", "1000", "2000", "3000"}},
      {"JMSExpiration", {"0", "1000", "5000"}},
      {"JMSDeliveryMode", {"'PERSISTENT'", "'NON_PERSISTENT'"}},
      {"JMSType", {"'a'", "'b'", "''"}},
      {"JMSDestination", {"'q1'", "'q2'"}},
      {"JMSReplyTo", {"'r1'"}},
      {"JMSRedelivered", {"TRUE", "FALSE"}},
      {"JMSXDeliveryCount", {"0", "1", "2", "6"}},
      {"JMSXGroupID", {"'g1'", "'g2'"}},
      {"JMSXGroupSeq", {"0", "1", "7"}},
      {"JMSXUserID", {"'alice'", "'bob'"}},
  };
  bool jms_dialect = false;
  auto jms_atom = [&]() {
    const JmsName& j = jms[gen.Below(std::size(jms))];
    auto literal = [&] { return std::string(j.literals[gen.Below(j.literals.size())]); };
    const std::string ref = j.name;
    switch (gen.Below(6)) {
      case 0: return ref + (gen.OneIn(2) ? " IS NULL" : " IS NOT NULL");
      case 1: return ref + (gen.OneIn(3) ? " NOT IN (" : " IN (") + literal() + ", " + literal() + ")";
      case 2: return ref + (gen.OneIn(3) ? " NOT BETWEEN " : " BETWEEN ") + literal() + " AND " + literal();
      case 3: return ref + (gen.OneIn(3) ? " NOT LIKE 'ID%'" : " LIKE 'ID:%'");
      default: return ref + " " + kOps[gen.Below(6)] + " " + literal();
    }
  };
  auto atom = [&]() {
    if (jms_dialect && gen.OneIn(2)) return jms_atom();
    const FixedFieldDomain& d = domains[gen.Below(domains.size())];
    // Mostly a literal of the field's own domain, sometimes another field's (unlike types).
    const FixedFieldDomain& from = gen.OneIn(5) ? domains[gen.Below(domains.size())] : d;
    auto literal = [&] { return SqlLiteral(from.values[gen.Below(from.values.size())]); };
    const std::string ref = d.ref;
    switch (gen.Below(7)) {
      case 0: return ref + (gen.OneIn(2) ? " IS NULL" : " IS NOT NULL");
      case 1: return ref + (gen.OneIn(3) ? " NOT IN (" : " IN (") + literal() + ", " + literal() + ")";
      case 2: return ref + (gen.OneIn(3) ? " NOT BETWEEN " : " BETWEEN ") + literal() + " AND " + literal();
      case 3: return ref + (gen.OneIn(3) ? " NOT LIKE '" : " LIKE '") + (gen.OneIn(2) ? "id%'" : "%'");
      default: return ref + " " + kOps[gen.Below(6)] + " " + literal();
    }
  };
  EvalContext context;
  context.SetNow(selector::testing::kDifferentialNow);
  uint64_t selectors = 0, checks = 0, skipped = 0, skipped_jms = 0, skipped_by_terms = 0;
  std::vector<std::string> failures;
  for (int i = 0; i < 20000; ++i) {
    jms_dialect = gen.OneIn(3);
    std::string text = atom();
    for (uint64_t k = gen.Below(3); k > 0; --k) {
      text = (gen.OneIn(4) ? "NOT (" + text + ")" : "(" + text + ")") + (gen.OneIn(2) ? " AND " : " OR ") + atom();
    }
    CompileOptions options;
    options.dialect = jms_dialect ? Dialect::kJms : Dialect::kSql;
    Selector selector = Selector::Compile(text, options);
    if (jms_dialect) text += " (jms)";
    if (gen.OneIn(6)) {
      // A properties filter instead: one or two fields, each to equal a value (strings with the &p: /
      // &s: modifiers sometimes).
      std::vector<std::pair<std::string, TestValue>> refs;
      jms_dialect = false;
      text = "properties filter:";
      for (uint64_t k = 1 + gen.Below(2); k > 0; --k) {
        const FixedFieldDomain& d =
            domains[amqp::kHeaderFieldCount + gen.Below(domains.size() - amqp::kHeaderFieldCount)];
        TestValue ref = d.values[gen.Below(d.values.size())];
        if (ref.type == ValueType::kString && !ref.bytes.empty() && gen.OneIn(2)) {
          ref.bytes = gen.OneIn(2) ? "&p:" + ref.bytes.substr(0, 1) : "&s:" + ref.bytes.substr(ref.bytes.size() - 1);
        }
        text += std::string(" ") + d.name + " ~ " + selector::testing::DescribeValue(ref);
        refs.emplace_back(d.name, std::move(ref));
      }
      std::vector<std::pair<std::string, Value>> views;
      for (const auto& [name, ref] : refs) views.emplace_back(name, ref.view());
      selector = Selector::CompilePropertiesFilter(views);
    }
    if (!selector.ok()) continue;  // e.g. LIKE over a number or an ordering of booleans: refused
    ++selectors;
    ChunkSkipper skipper(selector);
    MessageFieldSource source(selector.fields());
    for (size_t k = 0; k < c.chunks.size(); ++k) {
      ++checks;
      const bool by_terms = !skipper.MayMatchTerms(EntriesLookup(chunk_terms[k]));
      skipped_by_terms += by_terms;
      if (skipper.MayMatch(c.summaries[k]) && !by_terms) continue;
      ++skipped;
      skipped_jms += jms_dialect;
      for (size_t m = c.chunks[k].first; m < c.chunks[k].second; ++m) {
        const std::string& bytes = c.encoded[m];
        source.Reset(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
        if (selector.Evaluate(source, context) == Truth::kTrue && failures.size() < 10) {
          failures.push_back("`" + text + "` skipped a chunk holding a match: {" + DescribeMessage(c.decoded[m]) + "}");
        }
      }
    }
  }
  for (const std::string& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(selectors, 10000u);
  EXPECT_GT(skipped, checks / 20) << skipped << " of " << checks;
  EXPECT_GT(skipped_jms, skipped / 20) << skipped_jms << " of " << skipped;
  EXPECT_GT(skipped_by_terms, 0u);
}

// The JMS header names that convert their field (JMSTimestamp and JMSExpiration: 0 when absent;
// JMSRedelivered: delivery-count > 0; JMSDeliveryMode: 'PERSISTENT' or 'NON_PERSISTENT'; JMSMessageID
// and JMSCorrelationID: the id as Qpid JMS shows it) are reasoned about through the field's facts:
// chunks whose field rules the condition out are skipped, and those holding a message without the
// field (which converts to 0, FALSE or 'NON_PERSISTENT') are not.
TEST(ChunkSkipDifferential, JmsConversionsOfFieldsSkipChunks) {
  RandomExpressions gen(0x1A5);
  std::vector<std::string> encoded;
  std::vector<std::pair<size_t, size_t>> chunks;
  for (size_t k = 0; k < 40; ++k) {
    const size_t begin = encoded.size();
    const bool durable = k % 2 == 0, redelivered = k % 3 == 0, timeless = k % 10 == 9;
    for (size_t i = 0; i < 20; ++i) {
      TestMessage m;
      if (durable) m.Set(Section::kHeader, "durable", TestValue::Of(Value::Boolean(true)));
      if (redelivered)
        m.Set(Section::kHeader, "delivery-count", TestValue::Of(Value::Unsigned(ValueType::kUInt, 1 + i)));
      // Creation times in bands of 1000 ms per chunk; a timeless chunk has a message without one.
      // Ids in order along the stream: a string message id (as Qpid JMS sends them), a ulong
      // correlation id per chunk.
      char id[32];
      std::snprintf(id, sizeof id, "ID:m-%02zu-%02zu", k, i);
      m.Set(Section::kProperties, "message-id", TestValue::Bytes(ValueType::kString, id));
      m.Set(Section::kProperties, "correlation-id", TestValue::Of(Value::Unsigned(ValueType::kULong, k)));
      if (!timeless || i != 7) {
        m.Set(Section::kProperties, "creation-time", TestValue::Of(Value::Timestamp(1000 * (k + 1) + gen.Below(1000))));
      }
      std::vector<uint8_t> bytes;
      std::string error;
      ASSERT_TRUE(EncodeTestMessage(m, &bytes, &error)) << error;
      encoded.emplace_back(bytes.begin(), bytes.end());
    }
    chunks.emplace_back(begin, encoded.size());
  }
  std::vector<std::string> summaries;
  std::vector<storage::ChunkTermEntries> terms;
  ChunkSummaryBuilder builder;
  for (const auto& [begin, end] : chunks) {
    builder.Reset();
    for (size_t i = begin; i < end; ++i) ASSERT_TRUE(builder.AddChecked(encoded[i]));
    summaries.emplace_back();
    builder.Finish(&summaries.back());
    std::vector<uint64_t> chunk_terms;
    ASSERT_TRUE(builder.FinishTerms(&chunk_terms));
    terms.emplace_back().Build(chunk_terms);
  }
  EvalContext context;
  context.SetNow(selector::testing::kDifferentialNow);
  CompileOptions jms;
  jms.dialect = Dialect::kJms;
  // Each selector and the chunks it must read: those holding a match, and no others.
  struct Case {
    const char* selector;
    size_t chunks_read;
  };
  const Case cases[] = {
      {"JMSTimestamp BETWEEN 5000 AND 6999", 6},  // chunks 4 and 5, and the timeless ones (reaching 0)
      {"JMSTimestamp < 500", 4},                  // the timeless chunks: 0 is below 500
      {"JMSExpiration = 0", 40},                  // no message has one: all read as 0
      {"JMSDeliveryMode = 'PERSISTENT'", 20},     // the durable chunks
      {"JMSDeliveryMode <> 'PERSISTENT'", 20},    // the others
      {"JMSRedelivered", 14},                     // chunks 0, 3, ..., 39
      {"NOT JMSRedelivered AND JMSTimestamp > 30000", 7},
      {"JMSMessageID = 'ID:m-05-03'", 1},
      {"JMSMessageID IN ('ID:m-05-03', 'ID:m-31-19', 'ID:m-99-00')", 2},
      {"JMSMessageID = 'ID:AMQP_NO_PREFIX:ID:m-05-03'", 0},  // an id starting "ID:" never shows so
      {"JMSCorrelationID = 'ID:AMQP_ULONG:7'", 1},
      {"JMSCorrelationID <> 'ID:AMQP_ULONG:7'", 40},  // shown ids have no text bounds: chunk 7 too
      {"JMSCorrelationID = '7'", 0},                  // a ulong shows with its prefix
  };
  for (const Case& c : cases) {
    const Selector selector = Selector::Compile(c.selector, jms);
    ASSERT_TRUE(selector.ok()) << c.selector;
    ChunkSkipper skipper(selector);
    EXPECT_TRUE(skipper.useful()) << c.selector;
    MessageFieldSource source(selector.fields());
    size_t read = 0;
    for (size_t k = 0; k < chunks.size(); ++k) {
      bool holds_match = false;
      for (size_t i = chunks[k].first; i < chunks[k].second; ++i) {
        source.Reset(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(encoded[i].data()), encoded[i].size()));
        holds_match = holds_match || selector.Evaluate(source, context) == Truth::kTrue;
      }
      const bool may = skipper.MayMatch(summaries[k]);
      EXPECT_TRUE(may || !holds_match) << c.selector << ": chunk " << k << " skipped, holding a match";
      EXPECT_TRUE(skipper.MayMatchTerms(EntriesLookup(terms[k])) || !holds_match)
          << c.selector << ": chunk " << k << " ruled out by terms, holding a match";
      read += may;
    }
    EXPECT_EQ(read, c.chunks_read) << c.selector;
  }
}

// ---------------------------------------------------------------------------------------------------
// Through the store: whole replays with skipping on and off.

class ChunkSkipStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sift_chunk_skip_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Test messages hold lists and maps as application-property values, which the strict validator
  // refuses (the spec allows only simple types there) but the selector reads: store them as they are.
  static EngineOptions Options() {
    EngineOptions options;
    options.store.sync = false;
    options.validate = false;
    return options;
  }

  // Appends every chunk of the corpus as one batch (one stored chunk each).
  void Load(StreamEngine* engine, const Corpus& corpus) {
    ASSERT_TRUE(engine->CreateStream("s").ok());
    for (const auto& [begin, end] : corpus.chunks) {
      std::vector<std::string_view> batch(corpus.encoded.begin() + static_cast<std::ptrdiff_t>(begin),
                                          corpus.encoded.begin() + static_cast<std::ptrdiff_t>(end));
      const Status s = engine->AppendBatch("s", batch);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
  }

  static std::vector<uint64_t> Replay(StreamEngine* engine, const Selector& selector, bool skip, uint64_t begin,
                                      uint64_t end, ConsumerStats* stats) {
    ConsumerOptions o;
    o.stream = "s";
    o.filter = ToCompiledFilter(selector);
    o.skip_chunks = skip;
    o.start = StartPosition::Offset(begin);
    o.end = EndPosition::Offset(end);
    o.max_scan_per_poll = 97;  // polls end inside chunks and between skipped ones
    std::unique_ptr<Consumer> consumer;
    EXPECT_TRUE(engine->NewConsumer(o, &consumer).ok());
    std::vector<uint64_t> offsets;
    DeliveryBatch batch;
    while (!consumer->done()) {
      EXPECT_TRUE(consumer->Poll(&batch).ok());
      for (const Delivery& d : batch) offsets.push_back(d.offset());
    }
    *stats = consumer->stats();
    return offsets;
  }

  std::filesystem::path dir_;
};

TEST_F(ChunkSkipStoreTest, ReplaysWithAndWithoutSkippingAgree) {
  const Corpus corpus = MakeCorpus("clustered", 77, 2000);
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  Load(engine.get(), corpus);
  RandomExpressions gen(99);
  uint64_t pruned = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string text = gen.Render(gen.Predicate(1 + static_cast<int>(gen.Below(4))));
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.find("utc") != std::string::npos) continue;  // reads the clock: two replays may differ
    Selector selector = Selector::Compile(text);
    ASSERT_TRUE(selector.ok()) << text;
    const uint64_t begin = gen.Below(corpus.encoded.size() / 2);
    const uint64_t end = begin + gen.Below(corpus.encoded.size());
    ConsumerStats on, off;
    EXPECT_EQ(Replay(engine.get(), selector, true, begin, end, &on),
              Replay(engine.get(), selector, false, begin, end, &off))
        << text << " over [" << begin << ", " << end << ")";
    EXPECT_EQ(off.chunks_pruned, 0u);
    EXPECT_EQ(on.matched, off.matched);
    pruned += on.chunks_pruned;
  }
  EXPECT_GT(pruned, 1000u);
}

TEST_F(ChunkSkipStoreTest, ParallelScanSkipsAndAgrees) {
  const Corpus corpus = MakeCorpus("sorted", 78, 3000);
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  Load(engine.get(), corpus);
  struct Collect : ScanSink {
    std::vector<uint64_t> offsets;
    bool Deliver(const Delivery& delivery) override {
      offsets.push_back(delivery.offset());
      return true;
    }
  };
  for (const char* text :
       {"x > 1000", "x BETWEEN -5 AND 5", "x < -1000000 OR s = 'zzz'", "NOT (x >= -3)", "x IS NULL"}) {
    Selector selector = Selector::Compile(text);
    ASSERT_TRUE(selector.ok()) << text;
    ParallelScanStats stats[2];
    Collect got[2];
    for (int skip = 0; skip < 2; ++skip) {
      ParallelScanOptions scan;
      scan.consumer.stream = "s";
      scan.consumer.filter = ToCompiledFilter(selector);
      scan.consumer.skip_chunks = skip == 1;
      scan.threads = 3;
      scan.min_messages_per_thread = 100;
      ASSERT_TRUE(engine->ParallelScan(scan, &got[skip], &stats[skip]).ok()) << text;
    }
    EXPECT_EQ(got[0].offsets, got[1].offsets) << text;
    EXPECT_EQ(stats[0].consumer.chunks_pruned, 0u);
    EXPECT_GT(stats[1].consumer.chunks_pruned, 0u) << text;
  }
}

TEST_F(ChunkSkipStoreTest, ChunksWrittenWithoutSummariesAreReadThenSummarizedAfterwards) {
  const Corpus corpus = MakeCorpus("sorted", 79, 1000);
  Selector selector = Selector::Compile("x > 100000");
  ASSERT_TRUE(selector.ok());
  std::vector<uint64_t> expected;
  {
    std::unique_ptr<StreamEngine> engine;
    EngineOptions options = Options();
    options.summarize_chunks = false;  // as a store written before summaries existed
    ASSERT_TRUE(StreamEngine::Open(dir_.string(), options, &engine).ok());
    Load(engine.get(), corpus);
    ConsumerStats stats;
    expected = Replay(engine.get(), selector, true, 0, 1000, &stats);
    EXPECT_EQ(stats.chunks_pruned, 0u);  // nothing to skip with
  }
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  // A chunk smaller than its summary is left without one (storage::SummaryWorthStoring): a few of the
  // corpus's chunks of one or two messages.
  uint64_t worth = 0;
  for (size_t k = 0; k < corpus.chunks.size(); ++k) {
    size_t bytes = storage::kChunkHeaderSize;
    for (size_t i = corpus.chunks[k].first; i < corpus.chunks[k].second; ++i) {
      bytes += storage::ChunkBuilder::RecordSize(0, corpus.encoded[i].size());
    }
    worth += storage::SummaryWorthStoring(corpus.summaries[k].size(), static_cast<uint32_t>(bytes));
  }
  EXPECT_GT(worth, corpus.chunks.size() / 2);
  SummarizeCounts counts;
  ASSERT_TRUE(engine->SummarizeChunks("s", &counts).ok());
  EXPECT_EQ(counts.built, worth);
  EXPECT_EQ(counts.present, 0u);
  EXPECT_EQ(counts.left_without, corpus.chunks.size() - worth);
  ConsumerStats stats;
  EXPECT_EQ(Replay(engine.get(), selector, true, 0, 1000, &stats), expected);
  EXPECT_GT(stats.chunks_pruned, 0u);
  // A second run finds every summary worth keeping present, and leaves the same chunks without.
  ASSERT_TRUE(engine->SummarizeChunks("s", &counts).ok());
  EXPECT_EQ(counts.built, 0u);
  EXPECT_EQ(counts.present, worth);
  EXPECT_EQ(counts.left_without, corpus.chunks.size() - worth);
  EXPECT_FALSE(engine->SummarizeChunks("nope").ok());
}

// A summary entry whose checksum fails is ignored (its chunk is read) and the summaries after it are
// still used.
TEST_F(ChunkSkipStoreTest, ADamagedSummaryEntryIsReadAndTheOthersStillSkip) {
  const Corpus corpus = MakeCorpus("sorted", 81, 1500);
  Selector selector = Selector::Compile("x > 100000");
  ASSERT_TRUE(selector.ok());
  std::vector<uint64_t> expected;
  uint64_t pruned_before = 0;
  {
    std::unique_ptr<StreamEngine> engine;
    ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
    Load(engine.get(), corpus);
    ConsumerStats stats;
    expected = Replay(engine.get(), selector, false, 0, 1500, &stats);
    Replay(engine.get(), selector, true, 0, 1500, &stats);
    pruned_before = stats.chunks_pruned;
  }
  ASSERT_GT(pruned_before, 3u);
  sift::testing::CorruptStoredValue(dir_.string(), 1, storage::keys::kSummaryPrefix);
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  ConsumerStats stats;
  EXPECT_EQ(Replay(engine.get(), selector, true, 0, 1500, &stats), expected);
  EXPECT_GE(stats.chunks_pruned + 1, pruned_before);  // at most the damaged one is read
  EXPECT_GT(stats.chunks_pruned, 0u);
  SummarizeCounts counts;
  ASSERT_TRUE(engine->SummarizeChunks("s", &counts).ok());
  EXPECT_EQ(counts.built, 1u);  // the damaged summary is built again
}

// Chunks of messages whose "customer" is one of many texts (a few per chunk of `per_chunk`), and whose
// "region" is one of four: the shape a point query over a long stream meets.
Corpus CustomerCorpus(size_t chunks, size_t per_chunk) {
  Corpus c;
  c.name = "customers";
  static const char* kRegions[] = {"eu", "us", "apac", "latam"};
  RandomExpressions gen(0xC057);
  for (size_t k = 0; k < chunks; ++k) {
    c.chunks.emplace_back(k * per_chunk, (k + 1) * per_chunk);
    for (size_t i = 0; i < per_chunk; ++i) {
      TestMessage m;
      m.Set(Section::kApplicationProperties, "customer",
            TestValue::Bytes(ValueType::kString, "c-" + std::to_string(gen.Below(100000))));
      m.Set(Section::kApplicationProperties, "region", TestValue::Bytes(ValueType::kString, kRegions[gen.Below(4)]));
      m.Set(Section::kApplicationProperties, "amount", TestValue::Of(Value::Signed(ValueType::kLong, gen.Below(1000))));
      std::vector<uint8_t> bytes;
      std::string error;
      EXPECT_TRUE(EncodeTestMessage(m, &bytes, &error)) << error;
      c.encoded.emplace_back(bytes.begin(), bytes.end());
      c.decoded.push_back(std::move(m));
    }
  }
  return c;
}

// A text a field of the corpus holds at message i, as a literal.
std::string CustomerAt(const Corpus& c, size_t i) {
  return "'" + c.decoded[i].Find(Section::kApplicationProperties, "customer")->bytes + "'";
}

// Point queries are decided by the term index: the chunks that cannot hold the customer are skipped
// without their summaries being read, and the result is the same as without skipping.
TEST_F(ChunkSkipStoreTest, PointQueriesReadTheTermsAndFewSummaries) {
  const Corpus corpus = CustomerCorpus(300, 40);
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  Load(engine.get(), corpus);
  const uint64_t n = corpus.encoded.size();
  // A condition the terms cannot decide reads every summary: the measure of "all of them".
  ConsumerStats all;
  Replay(engine.get(), Selector::Compile("amount > 5000"), true, 0, n, &all);
  EXPECT_EQ(all.chunks_pruned, 300u);
  for (const std::string& text : std::vector<std::string>{
           "customer = " + CustomerAt(corpus, 4321), "customer IN (" + CustomerAt(corpus, 17) + ", 'nobody')",
           "customer = " + CustomerAt(corpus, 9000) + " AND amount > 100", "customer = 'nobody'",
           "region = 'eu' AND customer = " + CustomerAt(corpus, 11999)}) {
    const Selector selector = Selector::Compile(text);
    ASSERT_TRUE(selector.ok()) << text;
    ConsumerStats on, off;
    EXPECT_EQ(Replay(engine.get(), selector, true, 0, n, &on), Replay(engine.get(), selector, false, 0, n, &off))
        << text;
    EXPECT_GE(on.chunks_pruned, 296u) << text;
    EXPECT_LT(on.summary_bytes_read * 5, all.summary_bytes_read) << text << " pruned " << on.chunks_pruned;
  }
  // A query whose texts are in every chunk: the terms keep every chunk, the summaries decide.
  ConsumerStats on, off;
  const Selector every = Selector::Compile("region IN ('eu', 'us') AND amount > 998");
  EXPECT_EQ(Replay(engine.get(), every, true, 0, n, &on), Replay(engine.get(), every, false, 0, n, &off));
}

// A damaged term entry says nothing: its chunk is decided by its summary, the others still by terms.
TEST_F(ChunkSkipStoreTest, ADamagedTermEntryRulesNothingOut) {
  const Corpus corpus = CustomerCorpus(40, 40);
  {
    std::unique_ptr<StreamEngine> engine;
    ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
    Load(engine.get(), corpus);
  }
  const size_t entries = sift::testing::CorruptStoredValue(dir_.string(), 7, storage::keys::kTermPrefix);
  ASSERT_GT(entries, 40u * 16);  // an entry for many of the 64 partitions of each chunk
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  const uint64_t n = corpus.encoded.size();
  for (size_t i = 0; i < n; i += 97) {
    const Selector selector = Selector::Compile("customer = " + CustomerAt(corpus, i));
    ConsumerStats on, off;
    const std::vector<uint64_t> got = Replay(engine.get(), selector, true, 0, n, &on);
    EXPECT_EQ(got, Replay(engine.get(), selector, false, 0, n, &off));
    EXPECT_NE(std::find(got.begin(), got.end(), i), got.end());
    EXPECT_GE(on.chunks_pruned, 36u);
  }
}

// Chunks written before the term index (or without summaries) get their terms from SummarizeChunks.
TEST_F(ChunkSkipStoreTest, SummarizeChunksAddsTermsToChunksWithout) {
  const Corpus corpus = CustomerCorpus(50, 40);
  const uint64_t n = corpus.encoded.size();
  const Selector selector = Selector::Compile("customer = " + CustomerAt(corpus, 1234));
  {
    std::unique_ptr<StreamEngine> engine;
    EngineOptions options = Options();
    options.summarize_chunks = false;
    ASSERT_TRUE(StreamEngine::Open(dir_.string(), options, &engine).ok());
    Load(engine.get(), corpus);
  }
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(dir_.string(), Options(), &engine).ok());
  ConsumerStats before;
  const std::vector<uint64_t> expected = Replay(engine.get(), selector, true, 0, n, &before);
  EXPECT_EQ(before.chunks_pruned, 0u);
  SummarizeCounts counts;
  ASSERT_TRUE(engine->SummarizeChunks("s", &counts).ok());
  EXPECT_EQ(counts.built, 50u);
  ASSERT_TRUE(engine->SummarizeChunks("s", &counts).ok());
  EXPECT_EQ(counts.built, 0u);
  EXPECT_EQ(counts.present, 50u);
  ConsumerStats after, all;
  EXPECT_EQ(Replay(engine.get(), selector, true, 0, n, &after), expected);
  EXPECT_GE(after.chunks_pruned, 48u);
  Replay(engine.get(), Selector::Compile("amount > 5000"), true, 0, n, &all);
  EXPECT_LT(after.summary_bytes_read * 5, all.summary_bytes_read);
}

// A summary that no longer reads (another version, damaged bytes) rules nothing out.
TEST(ChunkSummaryFactsTest, UnreadableSummariesRuleNothingOut) {
  const Corpus corpus = MakeCorpus("clustered", 80, 60);
  Selector selector = Selector::Compile("x = 123456789 AND s = 'nothing like it'");
  ASSERT_TRUE(selector.ok());
  ChunkSkipper skipper(selector);
  ASSERT_TRUE(skipper.useful());
  std::string summary = corpus.summaries[0];
  EXPECT_FALSE(skipper.MayMatch(summary));
  std::string other_version = summary;
  other_version[0] = static_cast<char>(kSummaryVersion + 1);
  EXPECT_TRUE(skipper.MayMatch(other_version));
  EXPECT_TRUE(skipper.MayMatch(summary.substr(0, summary.size() / 2)));
  EXPECT_TRUE(skipper.MayMatch(""));
  // Every truncation and many byte flips either rule nothing out or still give a sound answer; none
  // may crash or read out of bounds (ASan).
  for (size_t cut = 0; cut < summary.size(); ++cut) skipper.MayMatch(summary.substr(0, cut));
  for (size_t i = 0; i < summary.size(); ++i) {
    std::string flipped = summary;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    skipper.MayMatch(flipped);
  }
}

}  // namespace
}  // namespace sift::engine
