// The selector and engine::MessageFieldSource together: a compiled selector evaluated on
// encoded AMQP bytes through the lazy reader gives the same answers as on the decoded values
// through MapFieldSource.
//
// - Every conformance case (tests/selector/cases/*.txt) is run again with its message encoded by
//   Proton's C encoder and read through MessageFieldSource: the expected answers must still hold.
// - Seeded random (expression, message) pairs: MessageFieldSource, MapFieldSource and the reference
//   evaluator must agree on every pair.
// - The same, through engine::MessageFilter with its text prefilter on every message: the prefilter
//   never rejects a message the selector finds TRUE (and the conformance answers still hold).
// - A source moved from message to message forgets the previous one; malformed bytes read as
//   missing fields, never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/message_field_source.h"
#include "engine/message_filter.h"
#include "selector/selector.h"
#include "tests/engine/selector_message_view_encoder.h"
#include "tests/selector/case_file.h"
#include "tests/selector/map_field_source.h"
#include "tests/selector/random_expression.h"
#include "tests/selector/reference_evaluator.h"

namespace sift::selector::testing {
namespace {

const char* Name(Truth t) { return TruthText(t); }

Selector CompileCase(const Case& c) {
  if (!c.is_filter) {
    CompileOptions options;
    options.dialect = c.dialect;
    options.limits = c.limits;
    return Selector::Compile(c.expression, options);
  }
  std::vector<std::pair<std::string, Value>> props, app;
  for (const FilterEntry& e : c.filter) (e.section == 'p' ? props : app).emplace_back(e.name, e.value.view());
  std::vector<Selector> parts;
  if (!props.empty()) parts.push_back(Selector::CompilePropertiesFilter(props));
  if (!app.empty()) parts.push_back(Selector::CompileApplicationPropertiesFilter(app));
  return parts.size() == 1 ? parts[0] : Selector::AllOf(parts);
}

std::filesystem::path CaseDir() { return std::filesystem::path(SIFT_SOURCE_DIR) / "tests" / "selector" / "cases"; }

class ConformanceOnEncodedMessages : public ::testing::TestWithParam<std::string> {};

TEST_P(ConformanceOnEncodedMessages, ExpectedAnswersHoldThroughMessageFieldSource) {
  const std::filesystem::path path = CaseDir() / GetParam();
  const std::string where = path.string();
  size_t evaluated = 0;
  uint64_t prefilter_rejected = 0;
  EvalContext context;
  for (const Case& c : ParseFile(path)) {
    if (!c.parse_problem.empty() || c.expect == Expect::kError) continue;  // the conformance suite's job
    Selector selector = CompileCase(c);
    if (!selector.ok()) {
      ADD_FAILURE_AT(where.c_str(), c.line) << "does not compile: " << selector.error().ToString();
      continue;
    }
    std::vector<uint8_t> bytes;
    std::string error;
    if (!EncodeTestMessage(c.message, &bytes, &error)) {
      ADD_FAILURE_AT(where.c_str(), c.line) << "cannot encode the message: " << error;
      continue;
    }
    engine::MessageFieldSource source(selector.fields());
    source.Reset(std::span<const uint8_t>(bytes));
    Truth got = selector.Evaluate(source, context);
    Truth want = c.expect == Expect::kTrue    ? Truth::kTrue
                 : c.expect == Expect::kFalse ? Truth::kFalse
                                              : Truth::kUnknown;
    engine::MessageFilter filter(selector, {.prefilter = true, .adaptive = false});
    if (filter.Matches(std::span<const uint8_t>(bytes)) != (want == Truth::kTrue)) {
      ADD_FAILURE_AT(where.c_str(), c.line)
          << c.file << ":" << c.line << ": `" << (c.is_filter ? std::string("<filter>") : c.expression)
          << "` on the encoded message {" << DescribeMessage(c.message) << "}: expected " << Name(want)
          << ", but MessageFilter (prefilter " << (filter.stats().prefilter_rejected ? "rejected" : "passed")
          << ") says " << (want == Truth::kTrue ? "no match" : "match");
    }
    prefilter_rejected += filter.stats().prefilter_rejected;
    if (got != want) {
      ADD_FAILURE_AT(where.c_str(), c.line)
          << c.file << ":" << c.line << ": `" << (c.is_filter ? std::string("<filter>") : c.expression)
          << "` on the encoded message {" << DescribeMessage(c.message) << "}: expected " << Name(want) << ", got "
          << Name(got);
    }
    ++evaluated;
  }
  EXPECT_GT(evaluated, 0u);
  RecordProperty("prefilter_rejected", static_cast<int>(prefilter_rejected));
}

std::vector<std::string> CaseFileNames() {
  std::vector<std::string> names;
  for (const auto& p : CaseFiles(CaseDir())) names.push_back(p.filename().string());
  return names;
}

INSTANTIATE_TEST_SUITE_P(CaseFiles, ConformanceOnEncodedMessages, ::testing::ValuesIn(CaseFileNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char ch : info.param) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

// Random expressions over random messages: the lazy reader, the map and the reference agree.
TEST(SelectorOnMessageView, RandomPairsAgreeWithMapSourceAndReference) {
  RandomExpressions gen(0xB17E5);
  ReferenceEvaluator reference(&DifferentialFields());
  reference.set_now(kDifferentialNow);
  EvalContext context;
  context.SetNow(kDifferentialNow);
  uint64_t pairs = 0, disagreements = 0, prefilter_checked = 0, prefilter_rejected = 0;
  std::string first;
  for (int i = 0; i < 1500; ++i) {
    RefExpr e = gen.Predicate(1 + static_cast<int>(gen.Below(4)));
    std::string text = gen.Render(e);
    Selector selector = Selector::Compile(text);
    ASSERT_TRUE(selector.ok()) << text << ": " << selector.error().ToString();
    MapFieldSource map_source(selector.fields());
    engine::MessageFieldSource message_source(selector.fields());
    engine::MessageFilter filter(selector, {.prefilter = true, .adaptive = false});
    filter.context().SetNow(kDifferentialNow);
    for (int j = 0; j < 20; ++j) {
      TestMessage message = gen.Message();
      std::vector<uint8_t> bytes;
      std::string error;
      ASSERT_TRUE(EncodeTestMessage(message, &bytes, &error)) << error;
      map_source.Reset(&message);
      message_source.Reset(std::span<const uint8_t>(bytes));
      Truth via_map = selector.Evaluate(map_source, context);
      Truth via_bytes = selector.Evaluate(message_source, context);
      Truth want = reference.Evaluate(e, message);
      const bool filtered = filter.Matches(std::span<const uint8_t>(bytes));
      ++pairs;
      if (via_map != via_bytes || via_bytes != want || filtered != (want == Truth::kTrue)) {
        if (++disagreements <= 5) {
          first += "\n  `" + text + "` on {" + DescribeMessage(message) + "}: MessageFieldSource " + Name(via_bytes) +
                   ", MapFieldSource " + Name(via_map) + ", reference " + Name(want) + ", MessageFilter " +
                   (filtered ? "match" : "no match");
        }
      }
    }
    prefilter_checked += filter.stats().prefilter_checked;
    prefilter_rejected += filter.stats().prefilter_rejected;
  }
  EXPECT_EQ(pairs, 30000u);
  EXPECT_EQ(disagreements, 0u) << first;
  // The prefilter took part: a test of its soundness that it never ran would prove nothing.
  EXPECT_GT(prefilter_checked, 500u);
  EXPECT_GT(prefilter_rejected, 100u) << prefilter_checked << " checked";
}

// One source, many messages: nothing read from one message leaks into the next.
TEST(SelectorOnMessageView, SourceForgetsThePreviousMessage) {
  Selector selector = Selector::Compile("a.color = 'red' AND p.subject LIKE 'ord%' AND h.priority = 4");
  ASSERT_TRUE(selector.ok());
  TestMessage red, blue, bare;
  red.Set(Section::kApplicationProperties, "color", TestValue::Bytes(ValueType::kString, "red"));
  red.Set(Section::kProperties, "subject", TestValue::Bytes(ValueType::kString, "order"));
  blue.Set(Section::kApplicationProperties, "color", TestValue::Bytes(ValueType::kString, "blue"));
  blue.Set(Section::kProperties, "subject", TestValue::Bytes(ValueType::kString, "order"));
  blue.Set(Section::kHeader, "priority", TestValue::Of(Value::Unsigned(ValueType::kUByte, 4)));
  bare.Set(Section::kApplicationProperties, "other", TestValue::Of(Value::Long(1)));
  std::vector<uint8_t> red_bytes, blue_bytes, bare_bytes;
  std::string error;
  ASSERT_TRUE(EncodeTestMessage(red, &red_bytes, &error)) << error;
  ASSERT_TRUE(EncodeTestMessage(blue, &blue_bytes, &error)) << error;
  ASSERT_TRUE(EncodeTestMessage(bare, &bare_bytes, &error)) << error;
  engine::MessageFieldSource source(selector.fields());
  EvalContext context;
  const std::vector<uint8_t>* sequence[] = {&red_bytes, &blue_bytes, &red_bytes, &bare_bytes, &red_bytes};
  const Truth expected[] = {Truth::kTrue, Truth::kFalse, Truth::kTrue, Truth::kUnknown, Truth::kTrue};
  for (int i = 0; i < 5; ++i) {
    source.Reset(std::span<const uint8_t>(*sequence[i]));
    EXPECT_EQ(Name(selector.Evaluate(source, context)), std::string(Name(expected[i]))) << "message " << i;
  }
}

// Truncated bytes: the fields of a section that cannot be read are missing; the answer is what a
// missing field gives, never a crash (run under ASan too).
TEST(SelectorOnMessageView, TruncatedMessageReadsAsMissingFields) {
  TestMessage m;
  m.Set(Section::kApplicationProperties, "x", TestValue::Of(Value::Long(1)));
  m.Set(Section::kApplicationProperties, "s", TestValue::Bytes(ValueType::kString, std::string(100, 'a')));
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(EncodeTestMessage(m, &bytes, &error)) << error;
  Selector equal = Selector::Compile("x = 1");
  Selector is_null = Selector::Compile("s IS NULL");
  ASSERT_TRUE(equal.ok() && is_null.ok());
  engine::MessageFieldSource equal_source(equal.fields()), null_source(is_null.fields());
  EvalContext context;
  equal_source.Reset(std::span<const uint8_t>(bytes));
  EXPECT_EQ(equal.Evaluate(equal_source, context), Truth::kTrue);
  // Cut inside the application-properties map: its fields are missing.
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
  for (size_t n = 0; n <= cut.size(); ++n) {
    std::span<const uint8_t> prefix(cut.data(), n);
    equal_source.Reset(prefix);
    null_source.Reset(prefix);
    EXPECT_NE(equal.Evaluate(equal_source, context), Truth::kTrue) << "prefix of " << n << " bytes";
    EXPECT_EQ(is_null.Evaluate(null_source, context), Truth::kTrue) << "prefix of " << n << " bytes";
  }
}

}  // namespace
}  // namespace sift::selector::testing
