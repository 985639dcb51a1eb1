// Ids as the JMS dialect shows them, both ways: every id is among the sources of the string it shows
// as, and every source of a string shows as that string (so the chunk predicate, which looks the
// sources up in a chunk's summary, neither misses an id nor finds one that does not show so).
#include "selector/jms_id.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "selector/eval_context.h"

namespace sift::selector {
namespace {

std::string Shown(const Value& v, bool correlation, EvalContext& context) {
  const Value s = RenderJmsId(v, correlation, context);
  EXPECT_EQ(s.type, ValueType::kString);
  return std::string(s.bytes());
}

bool SourcesHold(const JmsIdSources& sources, const Value& v) {
  switch (v.type) {
    case ValueType::kString:
      for (int i = 0; i < sources.string_count; ++i) {
        if (sources.strings[i] == v.bytes()) return true;
      }
      return false;
    case ValueType::kULong: return sources.has_unsigned && sources.unsigned_value == v.u64;
    case ValueType::kUuid: return sources.uuid;
    case ValueType::kBinary: return sources.binary;
    default: return false;
  }
}

TEST(JmsIdTest, ShownAsDocumented) {
  EvalContext context;
  const Value uuid = Value::Bytes(ValueType::kUuid, "0123456789abcdef");
  EXPECT_EQ(Shown(Value::String("ID:host-1:1"), false, context), "ID:host-1:1");
  EXPECT_EQ(Shown(Value::String("abc"), false, context), "ID:AMQP_NO_PREFIX:abc");
  EXPECT_EQ(Shown(Value::String("abc"), true, context), "abc");
  EXPECT_EQ(Shown(Value::String("ID:AMQP_ULONG:5"), true, context), "ID:AMQP_STRING:ID:AMQP_ULONG:5");
  EXPECT_EQ(Shown(Value::Unsigned(ValueType::kULong, 42), false, context), "ID:AMQP_ULONG:42");
  EXPECT_EQ(Shown(uuid, false, context), "ID:AMQP_UUID:30313233-3435-3637-3839-616263646566");
  EXPECT_EQ(Shown(Value::Bytes(ValueType::kBinary, "\x01\xab"), false, context), "ID:AMQP_BINARY:01AB");
  EXPECT_EQ(RenderJmsId(Value::Missing(), false, context).type, ValueType::kMissing);
  EXPECT_EQ(RenderJmsId(Value::Long(1), false, context).type, ValueType::kNull);
}

TEST(JmsIdTest, StringsNoIdShowsAsHaveNoSources) {
  for (const bool correlation : {false, true}) {
    EXPECT_EQ(SourcesOfJmsId("ID:AMQP_ULONG:01", correlation).has_unsigned, false);  // not how 1 shows
    EXPECT_EQ(SourcesOfJmsId("ID:AMQP_ULONG:18446744073709551616", correlation).has_unsigned, false);
    EXPECT_FALSE(SourcesOfJmsId("ID:AMQP_UUID:30313233-3435-3637-3839-61626364656", correlation).uuid);
    EXPECT_FALSE(SourcesOfJmsId("ID:AMQP_UUID:30313233-3435-3637-3839-61626364656G", correlation).uuid);
    EXPECT_FALSE(SourcesOfJmsId("ID:AMQP_BINARY:01ab", correlation).binary);  // lower case
    EXPECT_FALSE(SourcesOfJmsId("ID:AMQP_BINARY:01A", correlation).binary);   // odd length
    EXPECT_EQ(SourcesOfJmsId("ID:AMQP_NO_PREFIX:ID:x", correlation).string_count, 0);
  }
  EXPECT_EQ(SourcesOfJmsId("abc", false).string_count, 0);  // a message id always shows with "ID:"
  EXPECT_EQ(SourcesOfJmsId("ID:AMQP_NO_PREFIX:abc", true).string_count, 0);
}

// Random ids of every kind, strings built to meet every rule: each is a source of what it shows as,
// and each source of a random string shows as that string.
TEST(JmsIdTest, SourcesAndRenderingAgree) {
  std::mt19937_64 rng(0x1D5);
  auto pick = [&](std::vector<std::string> v) { return v[rng() % v.size()]; };
  EvalContext context;
  for (int round = 0; round < 20000; ++round) {
    const bool correlation = rng() % 2 == 0;
    std::string text = pick({"", "ID:", "ID:AMQP_NO_PREFIX:", "ID:AMQP_STRING:", "ID:AMQP_ULONG:", "ID:AMQP_UUID:",
                             "ID:AMQP_BINARY:", "ID:AMQP_STRING:ID:AMQP_ULONG:", "id:", "ID"});
    text += pick({"", "0", "7", "42", "007", "18446744073709551615", "abc", "ID:x", "ID:AMQP_ULONG:3", "01AB", "01ab",
                  "30313233-3435-3637-3839-616263646566"});
    Value id;
    std::string bytes;
    switch (rng() % 4) {
      case 0: id = Value::String(text); break;
      case 1: id = Value::Unsigned(ValueType::kULong, rng() % 3 == 0 ? rng() : rng() % 1000); break;
      case 2:
        for (int i = 0; i < 16; ++i) bytes.push_back(static_cast<char>(rng()));
        id = Value::Bytes(ValueType::kUuid, bytes);
        break;
      default:
        for (uint64_t i = rng() % 6; i > 0; --i) bytes.push_back(static_cast<char>(rng()));
        id = Value::Bytes(ValueType::kBinary, bytes);
        break;
    }
    const std::string shown = Shown(id, correlation, context);
    EXPECT_TRUE(SourcesHold(SourcesOfJmsId(shown, correlation), id)) << shown << (correlation ? " (correlation)" : "");
    // The other way: a random string's sources show as it.
    const JmsIdSources sources = SourcesOfJmsId(text, correlation);
    for (int i = 0; i < sources.string_count; ++i) {
      EXPECT_EQ(Shown(Value::String(sources.strings[i]), correlation, context), text) << text;
    }
    if (sources.has_unsigned) {
      EXPECT_EQ(Shown(Value::Unsigned(ValueType::kULong, sources.unsigned_value), correlation, context), text);
    }
    context.BeginEvaluation();
  }
}

}  // namespace
}  // namespace sift::selector
