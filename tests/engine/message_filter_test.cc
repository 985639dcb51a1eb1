// engine::MessageFilter and its text prefilter: the prefilter never rejects a message the selector
// finds TRUE, it does reject what it should, and it steps aside when it does not pay.
//
// The soundness test draws messages from a small alphabet of texts (so selectors' literals often do
// and often do not occur), held as string, symbol, char, binary, numbers, inside lists and maps, in
// application properties, properties and message annotations, and long enough for str32; and
// selectors of every form the compiler derives required texts from (=, IN, LIKE, property filters,
// filter-sets), mixed with forms it must not derive from (OR, NOT, <>, computed operands). For every
// pair, MessageFilter with the prefilter on every message agrees with the plain evaluation.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "amqp/validate.h"
#include "engine/message_field_source.h"
#include "engine/message_filter.h"
#include "selector/selector.h"
#include "tests/engine/selector_message_view_encoder.h"
#include "tests/selector/map_field_source.h"
#include "tests/selector/random_expression.h"

namespace sift::engine {
namespace {

using selector::Section;
using selector::Selector;
using selector::Truth;
using selector::Value;
using selector::ValueType;
using selector::testing::EncodeTestMessage;
using selector::testing::TestMessage;
using selector::testing::TestValue;

const std::string kLong(300, 'q');  // a string over 255 bytes is encoded as str32

const std::vector<std::string>& Texts() {
  static const std::vector<std::string> texts = {"ab",  "abc",        "b",   "bab",  "é",
                                                 "éé",  "ab%",        "a_b", "",     "zz",
                                                 "xab", kLong + "ab", "AB",  "abab", "ab" + kLong + "ab"};
  return texts;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  uint64_t Below(uint64_t n) { return rng_() % n; }
  const std::string& Text() { return Texts()[Below(Texts().size())]; }

  TestValue Scalar() {
    switch (Below(9)) {
      case 0:
      case 1:
      case 2: return TestValue::Bytes(ValueType::kString, Text());
      case 3: return TestValue::Bytes(ValueType::kSymbol, Text());
      case 4: return TestValue::Of(Value::Char(Below(2) == 0 ? 'a' : 0xE9));  // 'a' or 'é'
      case 5: return TestValue::Bytes(ValueType::kBinary, Text());
      case 6: return TestValue::Of(Value::Long(static_cast<int64_t>(Below(5))));
      case 7: return TestValue::Of(Value::Null());
      default: return TestValue::Bytes(ValueType::kString, Text() + Text());
    }
  }

  TestValue Any() {
    switch (Below(6)) {
      case 0: {
        TestValue list = TestValue::Compound(ValueType::kList);
        list.elements.push_back(Scalar());
        list.elements.push_back(Scalar());
        return list;
      }
      case 1: {
        TestValue map = TestValue::Compound(ValueType::kMap);
        map.entries.emplace_back(TestValue::Bytes(ValueType::kString, "k"), Scalar());
        return map;
      }
      default: return Scalar();
    }
  }

  TestMessage Message() {
    TestMessage m;
    for (const char* name : {"s", "t", "u"}) {
      if (Below(5) != 0) m.Set(Section::kApplicationProperties, name, Any());
    }
    if (Below(2) == 0) m.Set(Section::kProperties, "subject", TestValue::Bytes(ValueType::kString, Text()));
    if (Below(2) == 0) m.Set(Section::kMessageAnnotations, "k", Any());
    if (Below(3) == 0) m.Set(Section::kFooter, "f", Scalar());
    return m;
  }

  std::string Literal() {
    std::string out = "'";
    for (char c : Text()) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }

  std::string Field() {
    static const char* fields[] = {"s", "t", "u", "p.subject", "m.k", "f.f", "s[0]", "a.t.k", "a.u"};
    return fields[Below(std::size(fields))];
  }

  std::string Condition() {
    switch (Below(13)) {
      case 12:  // a long IN list: searched through the members' shared prefix
        return Field() + " IN ('ab', 'abc', 'ab%', 'abab', 'abé', 'abz', 'ab1', 'ab2', 'ab3', 'abcd', 'ababc')";
      case 0:
      case 1:
      case 2: return Field() + " = " + Literal();
      case 3: return Field() + " IN (" + Literal() + ", " + Literal() + ")";
      case 4: {
        static const char* patterns[] = {"'ab%'", "'%ab'", "'%ba%'", "'a_b'", "'a%b'", "'ab'", "'é%'", "'%é_'",
                                         "'ab!%%' ESCAPE '!'", "'%a!_b' ESCAPE '!'", "'_b_'",
                                         // starting with a literal, more to test: verified where found
                                         "'ab_'", "'ab%b'", "'ab_%'", "'éé%_'", "'ab%q%ab'", "'ab!_%' ESCAPE '!'"};
        return Field() + " LIKE " + patterns[Below(std::size(patterns))];
      }
      case 5: return Field() + " <> " + Literal();
      case 6: return "NOT " + Field() + " = " + Literal();
      case 7: return "(" + Field() + " = " + Literal() + " OR " + Field() + " = " + Literal() + ")";
      case 8: return "LOWER(" + Field() + ") = " + Literal();
      case 9: return Field() + " + 'b' = " + Literal();
      case 10: return Field() + " NOT IN (" + Literal() + ")";
      default: return Field() + " IS NOT NULL";
    }
  }

  Selector Filter() {
    if (Below(6) == 0) {  // a property filter, alone or in a filter-set with an expression
      static const char* refs[] = {"&p:ab", "&s:ab", "&&ab", "ab", "é", "&p:é", "abc", "bab"};
      std::vector<std::pair<std::string, Value>> app = {{Below(2) == 0 ? "s" : "t", Value::String(refs[Below(8)])}};
      Selector f = Selector::CompileApplicationPropertiesFilter(app);
      if (Below(2) == 0) return f;
      std::vector<Selector> parts = {f, Selector::Compile(Condition())};
      return Selector::AllOf(parts);
    }
    std::string text = Condition();
    for (uint64_t n = Below(3); n > 0; --n) text += " AND " + Condition();
    return Selector::Compile(text);
  }

 private:
  std::mt19937_64 rng_;
};

TEST(MessageFilter, PrefilterNeverRejectsATrueMessage) {
  Generator gen(20261130);
  uint64_t pairs = 0, trues = 0, rejected = 0, with_requirements = 0, disagreements = 0;
  std::string first;
  for (int i = 0; i < 3000; ++i) {
    Selector selector = gen.Filter();
    ASSERT_TRUE(selector.ok()) << selector.error().ToString();
    with_requirements += !selector.required_texts().empty();
    MessageFieldSource source(selector.fields());
    selector::EvalContext context;
    MessageFilter filter(selector, {.prefilter = true, .adaptive = false});
    TextPrefilter prefilter(selector.required_texts());
    for (int j = 0; j < 30; ++j) {
      TestMessage message = gen.Message();
      std::vector<uint8_t> bytes;
      std::string error;
      ASSERT_TRUE(EncodeTestMessage(message, &bytes, &error)) << error;
      source.Reset(std::span<const uint8_t>(bytes));
      const bool want = selector.Evaluate(source, context) == Truth::kTrue;
      const bool got = filter.Matches(std::span<const uint8_t>(bytes));
      // Each step alone (what MessageFilter runs while the other is bypassed) must not reject a
      // TRUE message either.
      for (const auto& [steps, name] :
           {std::pair{TextPrefilter::Steps{.flat = true, .sections = false, .order = {}}, "flat search"},
            std::pair{TextPrefilter::Steps{.flat = false, .sections = true, .order = {}}, "section check"}}) {
        const bool may = prefilter.Check(std::span<const uint8_t>(bytes), steps) == TextPrefilter::Verdict::kMayMatch;
        if (want && !may && ++disagreements <= 5) {
          first += std::string("\n  ") + name + " rejects a TRUE message {" +
                   selector::testing::DescribeMessage(message) + "}";
        }
      }
      // Nor any requirement alone, as the calibration measures it.
      uint32_t not_in_message = 0, not_in_section = 0;
      prefilter.Measure(std::span<const uint8_t>(bytes), &not_in_message, &not_in_section);
      if (want && (not_in_message | not_in_section) != 0 && ++disagreements <= 5) {
        first += "\n  a requirement alone rejects a TRUE message {" + selector::testing::DescribeMessage(message) + "}";
      }
      EXPECT_EQ(not_in_message & ~not_in_section, 0u);
      ++pairs;
      trues += want;
      if (got != want && ++disagreements <= 5) {
        first += "\n  on {" + selector::testing::DescribeMessage(message) + "}: plain " + (want ? "TRUE" : "not TRUE") +
                 ", MessageFilter " + (got ? "match" : "no match") + "\n" + selector.Explain();
      }
    }
    rejected += filter.stats().prefilter_rejected;
  }
  EXPECT_EQ(disagreements, 0u) << first;
  EXPECT_EQ(pairs, 90000u);
  // Both outcomes are well represented, or the test would prove little.
  EXPECT_GT(with_requirements, 1000u);
  EXPECT_GT(trues, 3000u);
  EXPECT_GT(rejected, 20000u);
}

std::vector<uint8_t> Encode(const TestMessage& m) {
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_TRUE(EncodeTestMessage(m, &bytes, &error)) << error;
  return bytes;
}

TestMessage WithRegion(const std::string& region) {
  TestMessage m;
  m.Set(Section::kApplicationProperties, "region", TestValue::Bytes(ValueType::kString, region));
  m.Set(Section::kApplicationProperties, "amount", TestValue::Of(Value::Long(7)));
  return m;
}

TEST(MessageFilter, SelectiveTextIsRejectedBeforeParsing) {
  Selector selector = Selector::Compile("region = 'eu-west' AND amount > 5");
  ASSERT_TRUE(selector.ok());
  ASSERT_EQ(selector.required_texts().size(), 1u);
  MessageFilter filter(selector);
  EXPECT_TRUE(filter.has_prefilter());
  const std::vector<uint8_t> miss = Encode(WithRegion("us-east"));
  const std::vector<uint8_t> hit = Encode(WithRegion("eu-west"));
  for (int i = 0; i < 10000; ++i) {
    EXPECT_FALSE(filter.Matches(std::span<const uint8_t>(miss)));
    if (i % 100 == 0) {
      EXPECT_TRUE(filter.Matches(std::span<const uint8_t>(hit)));
    }
  }
  // Nearly every miss is decided by the prefilter: it pays, so it is never bypassed; the flat
  // search rejects them, so it stays in front of the section check.
  EXPECT_EQ(filter.stats().prefilter_checked, filter.stats().messages);
  EXPECT_EQ(filter.stats().flat_searched, filter.stats().messages);
  EXPECT_EQ(filter.stats().prefilter_rejected, 10000u);
  EXPECT_EQ(filter.stats().matched, 100u);
}

TEST(MessageFilter, PrefilterThatRejectsLittleIsBypassedAndProbedAgain) {
  // Every message holds the text, but the number decides: the byte search never rejects.
  Selector selector = Selector::Compile("region = 'eu-west' AND amount > 100");
  ASSERT_TRUE(selector.ok());
  MessageFilter adaptive(selector);
  MessageFilter always(selector, {.prefilter = true, .adaptive = false});
  const std::vector<uint8_t> bytes = Encode(WithRegion("eu-west"));
  const uint64_t n = 200000;
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_FALSE(adaptive.Matches(std::span<const uint8_t>(bytes)));
    ASSERT_FALSE(always.Matches(std::span<const uint8_t>(bytes)));
  }
  EXPECT_EQ(always.stats().prefilter_checked, n);
  // Probed for a window, bypassed for a stretch, probed again: a small share of the messages.
  EXPECT_GT(adaptive.stats().prefilter_checked, 0u);
  EXPECT_LT(adaptive.stats().prefilter_checked, n / 10);
  EXPECT_EQ(adaptive.stats().prefilter_rejected, 0u);
}

TEST(MessageFilter, SectionCheckStaysWhileItRejects) {
  // The text is in every message, but in the body: only the section check rejects, so the adaptive
  // filter must keep it (and reject every message without a match), not bypass it.
  Selector selector = Selector::Compile("region = 'eu-west'");
  MessageFilter filter(selector);
  TestMessage m = WithRegion("us-east");
  std::vector<uint8_t> bytes = Encode(m);
  const std::string body(
      "\x07"
      "eu-west",
      8);  // the value as a str8 would hold it
  bytes.insert(bytes.end(), {0x00, 0x53, 0x75, 0xa0, static_cast<uint8_t>(body.size())});
  bytes.insert(bytes.end(), body.begin(), body.end());
  for (int i = 0; i < 100000; ++i) ASSERT_FALSE(filter.Matches(std::span<const uint8_t>(bytes)));
  EXPECT_EQ(filter.stats().prefilter_rejected, 100000u);
  EXPECT_EQ(filter.stats().sections_checked, 100000u);
}

TEST(MessageFilter, FlatSearchThatRejectsLittleLeavesTheSectionCheck) {
  // Every message holds the LIKE's literal "cust-", and only the section check, which tests the
  // pattern on the value, rejects: the flat search is bypassed, the section check rejects alone.
  Selector selector = Selector::Compile("customer LIKE 'cust-_1%7'");
  ASSERT_TRUE(selector.ok());
  MessageFilter filter(selector);
  auto with_customer = [](const std::string& id) {
    TestMessage m;
    m.Set(Section::kApplicationProperties, "customer", TestValue::Bytes(ValueType::kString, id));
    return Encode(m);
  };
  const std::vector<uint8_t> miss = with_customer("cust-00008");
  const std::vector<uint8_t> hit = with_customer("cust-01007");
  const uint64_t n = 200000;
  uint64_t matched = 0;
  for (uint64_t i = 0; i < n; ++i) matched += filter.Matches(std::span<const uint8_t>(i % 100 == 0 ? hit : miss));
  EXPECT_EQ(matched, n / 100);
  const MessageFilterStats& stats = filter.stats();
  EXPECT_EQ(stats.prefilter_checked, n);  // it pays, so it is never bypassed as a whole
  EXPECT_EQ(stats.prefilter_rejected, n - n / 100);
  EXPECT_EQ(stats.sections_checked, n);
  EXPECT_LT(stats.flat_searched, n / 10);  // probe windows only
  EXPECT_GT(stats.flat_searched, 0u);
}

TEST(MessageFilter, PrefilterOffOrNothingRequiredEvaluatesEveryMessage) {
  const std::vector<uint8_t> bytes = Encode(WithRegion("us-east"));
  MessageFilter off(Selector::Compile("region = 'eu-west'"), {.prefilter = false});
  EXPECT_FALSE(off.has_prefilter());
  EXPECT_FALSE(off.Matches(std::span<const uint8_t>(bytes)));
  EXPECT_EQ(off.stats().prefilter_checked, 0u);
  MessageFilter numeric(Selector::Compile("amount > 5"));
  EXPECT_FALSE(numeric.has_prefilter());
  EXPECT_TRUE(numeric.Matches(std::span<const uint8_t>(bytes)));
  MessageFilter everything{Selector()};
  EXPECT_TRUE(everything.Matches(std::span<const uint8_t>(bytes)));
}

TEST(MessageFilter, TruncatedMessagesGetThePlainAnswer) {
  // Every cut of a message: the prefilter's section walk meets a short section and lets the
  // evaluation decide, which reads fields of whole sections only (a cut in the body still matches).
  Selector selector = Selector::Compile("region = 'eu-west'");
  MessageFilter filter(selector, {.prefilter = true, .adaptive = false});
  MessageFieldSource source(selector.fields());
  selector::EvalContext context;
  std::vector<uint8_t> bytes = Encode(WithRegion("eu-west"));
  size_t matches = 0;
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    const std::span<const uint8_t> part(bytes.data(), cut);
    source.Reset(part);
    const bool want = selector.Evaluate(source, context) == Truth::kTrue;
    EXPECT_EQ(filter.Matches(part), want) << "cut at " << cut;
    matches += want;
  }
  EXPECT_GT(matches, 0u);
  EXPECT_LT(matches, bytes.size());
}

}  // namespace
}  // namespace sift::engine

namespace sift::engine {
namespace {

TEST(MessageFilter, AMalformedReadIsOneValidationRefuses) {
  // Byte flips of a message: whenever the filter says its answer read malformed bytes, the strict
  // validator refuses the message too (so validating exactly those is sound), and the flag is raised
  // for some flips (so it is not vacuous); a message the filter decided on well-formed reads may
  // still be malformed elsewhere, which only --strict looks at.
  const std::vector<uint8_t> bytes = Encode(WithRegion("eu-west"));
  std::mt19937_64 rng(11);
  size_t flagged = 0;
  for (const char* sql : {"region = 'eu-west'", "amount > 5 OR region IS NULL", "properties.subject LIKE 'o%'"}) {
    Selector selector = Selector::Compile(sql);
    ASSERT_TRUE(selector.ok()) << sql;
    MessageFilter filter(selector, {.prefilter = false});
    for (int round = 0; round < 20000; ++round) {
      std::vector<uint8_t> m = bytes;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) m[rng() % m.size()] = static_cast<uint8_t>(rng());
      filter.Matches(std::span<const uint8_t>(m));
      if (!filter.read_malformed()) continue;
      ++flagged;
      EXPECT_FALSE(amqp::Validate(std::span<const uint8_t>(m)).ok()) << sql << ", round " << round;
    }
  }
  EXPECT_GT(flagged, 100u);
  MessageFilter filter(Selector::Compile("region = 'eu-west'"));
  EXPECT_TRUE(filter.Matches(std::span<const uint8_t>(bytes)));
  EXPECT_FALSE(filter.read_malformed());
}

}  // namespace
}  // namespace sift::engine
