// Evaluation allocates nothing on the heap once the EvalContext is warm (docs/architecture.md,
// invariant 1), for accepted and rejected messages alike, including re2-backed LIKE, LOWER / UPPER,
// concatenation, substring functions, JMS id conversion and constant IN sets.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "selector/selector.h"
#include "tests/support/allocation_counter.h"

namespace sift::selector {
namespace {

// Values by slot, set directly, so reading them allocates nothing.
class SlotSource final : public FieldSource {
 public:
  Value Get(uint32_t slot) override { return slot < values.size() ? values[slot] : Value::Missing(); }
  std::vector<Value> values;
};

struct Message {
  std::vector<std::pair<std::string, Value>> fields;  // FieldRef name (unqualified = app property) -> value
};

// Evaluates `text` over alternating messages: after warm-up, 100,000 evaluations must allocate nothing
// and give the expected answers.
void ExpectNoAllocations(const std::string& text, const std::vector<Message>& messages,
                         const std::vector<Truth>& expected, Dialect dialect = Dialect::kSql) {
  Selector s = Selector::Compile(text, CompileOptions{dialect, {}});
  ASSERT_TRUE(s.ok()) << s.error().Format(text);
  // Resolve every message into slot order up front.
  std::vector<std::vector<Value>> slots;
  for (const Message& m : messages) {
    std::vector<Value> values(s.fields().size(), Value::Missing());
    for (size_t i = 0; i < s.fields().size(); ++i) {
      for (const auto& [name, value] : m.fields) {
        if (name == s.fields()[i].name) values[i] = value;
      }
    }
    slots.push_back(std::move(values));
  }
  SlotSource source;
  source.values.resize(s.fields().size());
  EvalContext context(0);  // start cold: warm-up must grow the scratch
  context.SetNow(1700000000000);
  for (int round = 0; round < 3; ++round) {
    for (size_t m = 0; m < slots.size(); ++m) {
      std::copy(slots[m].begin(), slots[m].end(), source.values.begin());
      ASSERT_EQ(s.Evaluate(source, context), expected[m]) << text << " message " << m;
    }
  }
  sift::testing::AllocationScope scope;
  int mismatches = 0;
  for (int i = 0; i < 100000; ++i) {
    size_t m = static_cast<size_t>(i) % slots.size();
    std::copy(slots[m].begin(), slots[m].end(), source.values.begin());
    if (s.Evaluate(source, context) != expected[m]) ++mismatches;
  }
  EXPECT_EQ(scope.Allocations(), 0u) << text;
  EXPECT_EQ(mismatches, 0) << text;
}

TEST(SelectorAllocTest, StringEquality) {
  ExpectNoAllocations("color = 'red'",
                      {{{{"color", Value::String("red")}}}, {{{"color", Value::String("blue")}}}, {{}}},
                      {Truth::kTrue, Truth::kFalse, Truth::kUnknown});
}

TEST(SelectorAllocTest, ConjunctionOfNumberAndString) {
  ExpectNoAllocations("amount > 5000 AND region = 'eu-west'",
                      {{{{"amount", Value::Long(6000)}, {"region", Value::String("eu-west")}}},
                       {{{"amount", Value::Long(10)}, {"region", Value::String("eu-west")}}}},
                      {Truth::kTrue, Truth::kFalse});
}

TEST(SelectorAllocTest, LikeWithUnderscore) {
  ExpectNoAllocations("subject LIKE 'ord_rs.%.new'",
                      {{{{"subject", Value::String("orders.eu.new")}}},
                       {{{"subject", Value::String("invoices.eu.new")}}},
                       {{{"subject", Value::String("ord\xc3\xa9rs.x.new")}}}},
                      {Truth::kTrue, Truth::kFalse, Truth::kTrue});
}

TEST(SelectorAllocTest, LikeFastPaths) {
  ExpectNoAllocations(
      "s LIKE 'a%' OR s LIKE '%z' OR s LIKE '%mid%' OR s LIKE 'x%y%z'",
      {{{{"s", Value::String("abc")}}}, {{{"s", Value::String("qqq")}}}, {{{"s", Value::String("x1y2z")}}}},
      {Truth::kTrue, Truth::kFalse, Truth::kTrue});
}

// REGEXP_LIKE: re2's PartialMatch with no submatches on a view of the bytes; its DFA states are made
// during the warm-up, and then reused.
TEST(SelectorAllocTest, RegexpLike) {
  ExpectNoAllocations("REGEXP_LIKE(customer, '^cust-[0-9]1.*7$') OR REGEXP_LIKE(subject, 'order|invoice', 'i')",
                      {{{{"customer", Value::String("cust-01337")}}},
                       {{{"customer", Value::String("cust-01338")}, {"subject", Value::String("payments")}}},
                       {{{"subject", Value::String("new INVOICE")}}},
                       {{{"customer", Value::Long(5)}, {"subject", Value::String("x")}}}},
                      {Truth::kTrue, Truth::kFalse, Truth::kTrue, Truth::kUnknown});
}

TEST(SelectorAllocTest, LowerUpperAndConcatenation) {
  ExpectNoAllocations("LOWER(a + '-' + b) = 'hello-world' AND UPPER(b) = 'WORLD'",
                      {{{{"a", Value::String("HeLLo")}, {"b", Value::String("World")}}},
                       {{{"a", Value::String("Bye")}, {"b", Value::String("World")}}},
                       {{{"a", Value::String("a much longer piece of text than the first warm-up one, to grow")},
                         {"b", Value::String("World")}}}},
                      {Truth::kTrue, Truth::kFalse, Truth::kFalse});
}

TEST(SelectorAllocTest, SubstringFunctionsAndDate) {
  ExpectNoAllocations("SUBSTRING(s, 2, 3) = 'ell' AND LEFT(s, 1) = 'h' AND RIGHT(s, 1) = 'o' AND DATE(d) < UTC()",
                      {{{{"s", Value::String("hello")}, {"d", Value::String("2020-01-01T00:00:00Z")}}},
                       {{{"s", Value::String("jello")}, {"d", Value::String("2020-01-01")}}},
                       {{{"s", Value::String("hello")}, {"d", Value::String("not a date")}}}},
                      {Truth::kTrue, Truth::kFalse, Truth::kUnknown});
}

TEST(SelectorAllocTest, InListOfFiftyStrings) {
  std::string list;
  for (int i = 0; i < 50; ++i) list += (i ? ", '" : "'") + std::string("region-") + std::to_string(i) + "'";
  ExpectNoAllocations("region IN (" + list + ")",
                      {{{{"region", Value::String("region-42")}}}, {{{"region", Value::String("region-77")}}}},
                      {Truth::kTrue, Truth::kFalse});
}

TEST(SelectorAllocTest, ArithmeticAndBetween) {
  ExpectNoAllocations("(price * qty) / 2 BETWEEN 10 AND 100 AND price % 2 = 0",
                      {{{{"price", Value::Long(4)}, {"qty", Value::Double(10)}}},
                       {{{"price", Value::Long(4)}, {"qty", Value::Long(0)}}}},
                      {Truth::kTrue, Truth::kFalse});
}

TEST(SelectorAllocTest, JmsMessageIdConversion) {
  ExpectNoAllocations("JMSMessageID = 'ID:AMQP_ULONG:42' OR JMSMessageID LIKE 'ID:AMQP_NO_PREFIX:%'",
                      {{{{"message-id", Value::Unsigned(ValueType::kULong, 42)}}},
                       {{{"message-id", Value::String("abc")}}},
                       {{{"message-id", Value::Binary("\x01\x02")}}}},
                      {Truth::kTrue, Truth::kTrue, Truth::kFalse}, Dialect::kJms);
}

}  // namespace
}  // namespace sift::selector
