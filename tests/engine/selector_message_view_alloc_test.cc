// Invariant 1 of docs/architecture.md for the selector on encoded messages: once a
// selector is compiled and its EvalContext and MessageFieldSource are built and warm, evaluating it
// on 100,000 messages through engine::MessageFieldSource (over engine::amqp::MessageView) makes no
// heap allocation at all — for the messages it rejects and for those it accepts.
//
// Messages are synthetic orders (tools/synthetic/synthetic_orders.h, profile "orders": ~450 bytes,
// encoded by Proton's pn_message_t encoder, 8 application properties), encoded before counting starts. Each selector is
// first warmed up on 10,000 other messages (another seed): allocation that happens once, while a context's scratch or
// re2's lazily built DFA reach their steady state, is not per-message cost; what is measured is 100,000 messages the
// selector has not seen. The selectors cover every evaluation path that could allocate: string comparisons, numeric
// ranges, LIKE fast paths, the segment search and re2, IN sets, functions and concatenation (EvalContext scratch), JMS
// id conversions, property filters. Each selector is checked to both accept and reject some messages, so both paths are
// measured.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/message_field_source.h"
#include "selector/selector.h"
#include "tests/support/allocation_counter.h"
#include "tools/synthetic/synthetic_orders.h"

namespace sift::selector {
namespace {

constexpr uint64_t kMessages = 100000;
constexpr uint64_t kWarmUp = 10000;

// `count` order messages of `seed`, encoded once.
std::vector<std::string> Encode(uint64_t seed, uint64_t count) {
  std::vector<std::string> out(count);
  synthetic::SyntheticOrdersOptions options;
  options.seed = seed;
  std::unique_ptr<synthetic::SyntheticOrders> gen;
  if (!synthetic::SyntheticOrders::Create(options, &gen).ok()) return {};
  for (uint64_t i = 0; i < count; ++i) {
    if (!gen->Encode(i, &out[i]).ok()) return {};
  }
  return out;
}

// The measured messages.
const std::vector<std::string>& Messages() {
  static const std::vector<std::string> messages = Encode(3, kMessages);
  return messages;
}

// Other messages, for warming up: a context, a source and re2's lazily built DFA reach their steady
// state on these, so the measurement sees unseen messages in steady state.
const std::vector<std::string>& WarmUpMessages() {
  static const std::vector<std::string> messages = Encode(4, kWarmUp);
  return messages;
}

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

struct Counts {
  uint64_t allocations = 0;
  uint64_t accepted = 0;
  uint64_t rejected = 0;  // FALSE or UNKNOWN
};

// Warms the context and source on the warm-up messages, then counts over the measured ones.
Counts CountOverAllMessages(const Selector& selector) {
  const auto& messages = Messages();
  engine::MessageFieldSource source(selector.fields());
  EvalContext context;
  for (const std::string& m : WarmUpMessages()) {
    source.Reset(Bytes(m));
    (void)selector.Evaluate(source, context);
  }
  Counts counts;
  sift::testing::AllocationScope scope;
  for (const std::string& m : messages) {
    source.Reset(Bytes(m));
    if (selector.Evaluate(source, context) == Truth::kTrue) {
      ++counts.accepted;
    } else {
      ++counts.rejected;
    }
  }
  counts.allocations = scope.Allocations();
  return counts;
}

void ExpectNoAllocation(const char* expression, Dialect dialect = Dialect::kSql) {
  ASSERT_EQ(Messages().size(), kMessages);
  ASSERT_EQ(WarmUpMessages().size(), kWarmUp);
  CompileOptions options;
  options.dialect = dialect;
  Selector selector = Selector::Compile(expression, options);
  ASSERT_TRUE(selector.ok()) << selector.error().Format(expression);
  Counts c = CountOverAllMessages(selector);
  EXPECT_EQ(c.allocations, 0u) << expression << ": " << c.allocations << " allocations over " << kMessages
                               << " evaluations";
  EXPECT_EQ(c.accepted + c.rejected, kMessages);
  EXPECT_GT(c.accepted, 0u) << expression << " accepts nothing: the accept path is not measured";
  EXPECT_GT(c.rejected, 0u) << expression << " rejects nothing: the reject path is not measured";
}

TEST(SelectorMessageViewAlloc, StringEquality) { ExpectNoAllocation("color = 'red'"); }

TEST(SelectorMessageViewAlloc, ConjunctionOfRangeAndEquality) {
  ExpectNoAllocation("amount > 500 AND region = 'eu-west'");
}

TEST(SelectorMessageViewAlloc, LikePrefixOnProperties) { ExpectNoAllocation("p.subject LIKE 'cre%'"); }

// A LIKE with '_' goes through the segment search (selector/like.h), which allocates nothing,
// even on messages no warm-up has shown it.
TEST(SelectorMessageViewAlloc, LikeWithUnderscore) { ExpectNoAllocation("customer LIKE 'cust-_1%3'"); }

// A long '_' segment is searched bit-parallel, with its state on the stack: nothing is allocated,
// on the first messages it meets as on any other.
TEST(SelectorMessageViewAlloc, LongUnderscorePatternAllocatesNothing) {
  const std::string expression = "customer LIKE 'cust-_1%3' OR customer LIKE '%" + std::string(20, '_') +
                                 "%' OR color LIKE '%r" + std::string(40, '_') + "%'";
  Selector selector = Selector::Compile(expression);
  ASSERT_TRUE(selector.ok()) << selector.error().Format(expression);
  ASSERT_NE(selector.Explain().find("(bit-parallel)"), std::string::npos) << selector.Explain();
  Counts counts = CountOverAllMessages(selector);
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_GT(counts.accepted, 0u);
  EXPECT_GT(counts.rejected, 0u);
}

TEST(SelectorMessageViewAlloc, InListOfFiftyStrings) {
  std::string in = "customer IN (";
  for (int i = 0; i < 50; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "'cust-%05d'", i * 997 % 50000);
    in += (i ? ", " : "") + std::string(buf);
  }
  in += ") OR color = 'blue'";
  ExpectNoAllocation(in.c_str());
}

TEST(SelectorMessageViewAlloc, TenConjuncts) {
  ExpectNoAllocation(
      "region LIKE 'eu-%' AND color <> 'black' AND amount > 10 AND price < 900.0 AND tier >= 0 AND "
      "vip = FALSE AND h.priority >= 0 AND p.to = 'orders' AND m.[x-opt-partition] >= 0 AND "
      "customer LIKE 'cust-%'");
}

TEST(SelectorMessageViewAlloc, FunctionsAndConcatenationUseWarmScratch) {
  ExpectNoAllocation(
      "UPPER(color) + '/' + LOWER(region) = 'RED/eu-west' OR SUBSTRING(customer, 6, 2) = '00' OR "
      "LEFT(p.subject, 3) = 'pai'");
}

TEST(SelectorMessageViewAlloc, ArithmeticAndTimestamps) {
  ExpectNoAllocation("amount * 2 + price / 3 > 900 AND p.creation_time - ordered_at < 1800000");
}

TEST(SelectorMessageViewAlloc, JmsIdentifiers) {
  ExpectNoAllocation(
      "JMSMessageID LIKE 'ID:AMQP_NO_PREFIX:order-%5' AND JMSPriority = 4 AND "
      "JMSDeliveryMode = 'PERSISTENT'",
      Dialect::kJms);
}

TEST(SelectorMessageViewAlloc, ApplicationPropertiesFilter) {
  std::vector<std::pair<std::string, Value>> fields = {{"region", Value::String("&p:eu-")},
                                                       {"vip", Value::Boolean(false)}};
  Selector selector = Selector::CompileApplicationPropertiesFilter(fields);
  ASSERT_TRUE(selector.ok()) << selector.error().ToString();
  Counts c = CountOverAllMessages(selector);
  EXPECT_EQ(c.allocations, 0u);
  EXPECT_GT(c.accepted, 0u);
  EXPECT_GT(c.rejected, 0u);
}

}  // namespace
}  // namespace sift::selector
