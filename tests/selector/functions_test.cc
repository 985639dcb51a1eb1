// Functions (UTC, LOWER, UPPER, LEFT, RIGHT, SUBSTRING, DATE) with good and bad arguments, and the
// JMS dialect's header mappings.
#include <gtest/gtest.h>

#include <string>

#include "selector/date_time.h"
#include "selector/functions.h"
#include "selector/selector.h"
#include "tests/selector/evaluation_fixture.h"

namespace sift::selector {
namespace {

using testing::F;
using testing::T;
using testing::U;

class FunctionsTest : public testing::EvaluationFixture {};

TEST_F(FunctionsTest, LowerUpperMapAsciiOnly) {
  Set("s", Value::String("Hello W\xc3\x89rld"));  // É stays
  Set("y", Value::Symbol("ABC"));
  Set("c", Value::Char('Q'));
  EXPECT_EQ(Eval("LOWER(s) = 'hello w\xc3\x89rld'"), T);
  EXPECT_EQ(Eval("UPPER(s) = 'HELLO W\xc3\x89RLD'"), T);
  EXPECT_EQ(Eval("LOWER(y) = 'abc'"), T);
  EXPECT_EQ(Eval("LOWER(c) = 'q'"), T);
  EXPECT_EQ(Eval("UPPER('already') = 'ALREADY' AND LOWER('already') = 'already'"), T);
  EXPECT_EQ(Eval("LOWER(missing) = 'x'"), U);
  Set("n", Value::Long(1));
  EXPECT_EQ(Eval("LOWER(n) = '1'"), U);
  EXPECT_EQ(Eval("LOWER(n) IS NULL"), T);
}

TEST_F(FunctionsTest, LeftAndRightCountCodePoints) {
  Set("s", Value::String("h\xc3\xa9llo"));
  EXPECT_EQ(Eval("LEFT(s, 2) = 'h\xc3\xa9'"), T);
  EXPECT_EQ(Eval("RIGHT(s, 4) = '\xc3\xa9llo'"), T);
  EXPECT_EQ(Eval("LEFT(s, 0) = '' AND RIGHT(s, 0) = ''"), T);
  EXPECT_EQ(Eval("LEFT(s, 99) = s AND RIGHT(s, 99) = s"), T);
  EXPECT_EQ(Eval("LEFT(s, -1) = ''"), U);
  EXPECT_EQ(Eval("RIGHT(s, -1) = ''"), U);
  Set("two", Value::Unsigned(ValueType::kUByte, 2));
  Set("half", Value::Double(2.0));
  EXPECT_EQ(Eval("LEFT(s, two) = 'h\xc3\xa9'"), T);
  EXPECT_EQ(Eval("LEFT(s, half) = 'h\xc3\xa9'"), U);
  EXPECT_EQ(Eval("LEFT(s, 18446744073709551615) = s"), T);
}

TEST_F(FunctionsTest, SubstringIsOneBasedSql) {
  Set("s", Value::String("hello"));
  EXPECT_EQ(Eval("SUBSTRING(s, 2, 3) = 'ell'"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 2) = 'ello'"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 1) = 'hello'"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 0, 2) = 'h'"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, -1, 3) = 'h'"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 5, 10) = 'o'"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 6) = ''"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 2, 0) = ''"), T);
  EXPECT_EQ(Eval("SUBSTRING(s, 2, -1) = ''"), U);
  EXPECT_EQ(Eval("SUBSTRING(s, 9223372036854775807, 9223372036854775807) = ''"), T);
  EXPECT_EQ(Eval("SUBSTRING('h\xc3\xa9llo', 2, 1) = '\xc3\xa9'"), T);
  EXPECT_EQ(Eval("SUBSTRING(missing, 1) = ''"), U);
}

TEST_F(FunctionsTest, DateParsesIso8601) {
  Set("d", Value::String("2024-02-29T12:30:00.250Z"));
  Set("bad", Value::String("2023-02-29"));
  EXPECT_EQ(Eval("DATE('1970-01-01') = 0"), T);
  EXPECT_EQ(Eval("DATE('1970-01-01T00:00:01Z') = 1000"), T);
  EXPECT_EQ(Eval("DATE('1970-01-01T01:00:00+01:00') = 0"), T);
  EXPECT_EQ(Eval("DATE('1970-01-01T00:00:00-0130') = 5400000"), T);
  EXPECT_EQ(Eval("DATE('1969-12-31T23:59:59.999Z') = -1"), T);
  EXPECT_EQ(Eval("DATE(d) = DATE('2024-02-29 12:30:00.250')"), T);
  EXPECT_EQ(Eval("DATE(d) = 1709209800250"), T);
  EXPECT_EQ(Eval("DATE(bad) > 0"), U);
  EXPECT_EQ(Eval("DATE(missing) > 0"), U);
}

TEST(DateTimeTest, RejectsMalformedAndOutOfRange) {
  int64_t ms;
  for (const char* bad : {"", "2024", "2024-1-01", "2024-13-01", "2024-00-10", "2024-04-31", "2023-02-29",
                          "2024-01-01T", "2024-01-01T24:00", "2024-01-01T12:60", "2024-01-01T12:00:60",
                          "2024-01-01T12:00:00.", "2024-01-01T12:00:00.1234567890", "2024-01-01T12:00Zx",
                          "2024-01-01T12:00+24:00", "2024-01-01Z", "2024-01-01T12:00:00+1", "x2024-01-01"}) {
    EXPECT_FALSE(ParseIsoDateTime(bad, &ms)) << bad;
  }
  ASSERT_TRUE(ParseIsoDateTime("2000-03-01T00:00:00.123456789Z", &ms));
  EXPECT_EQ(ms, 951868800123);
  ASSERT_TRUE(ParseIsoDateTime("0001-01-01", &ms));
  EXPECT_EQ(ms, -62135596800000);
}

TEST_F(FunctionsTest, UtcReadsTheContextClockOncePerEvaluation) {
  context_.SetNow(1234);
  EXPECT_EQ(Eval("UTC() = 1234"), T);
  context_.UseSystemClock();
  EXPECT_EQ(Eval("UTC() > DATE('2020-01-01') AND UTC() = UTC()"), T);
}

TEST_F(FunctionsTest, NestedFunctionsAndConcatenation) {
  Set("s", Value::String("Orders"));
  EXPECT_EQ(Eval("UPPER(LEFT(s, 3)) + '-' + LOWER(RIGHT(s, 3)) = 'ORD-ers'"), T);
  EXPECT_EQ(Eval("LOWER(s + 'X') LIKE 'orders_'"), T);
}

TEST(CodePointTest, CountsInvalidBytesAsOne) {
  EXPECT_EQ(CodePointCount("abc"), 3u);
  EXPECT_EQ(CodePointCount("h\xc3\xa9"), 2u);
  EXPECT_EQ(CodePointCount("\xff\xfe"), 2u);
  EXPECT_EQ(CodePointOffset("h\xc3\xa9llo", 2), 3u);
  EXPECT_EQ(CodePointOffset("ab", 5), 2u);
}

// --- JMS dialect ---

class JmsTest : public FunctionsTest {
 protected:
  Truth Jms(const std::string& text) { return Eval(text, Dialect::kJms); }
  void SetProperty(const std::string& name, Value v) { source_.Set("properties." + name, v); }
  void SetHeader(const std::string& name, Value v) { source_.Set("header." + name, v); }
};

TEST_F(JmsTest, HeaderFields) {
  SetHeader("priority", Value::Unsigned(ValueType::kUByte, 7));
  SetProperty("subject", Value::String("order"));
  SetProperty("to", Value::String("queue://a"));
  SetProperty("reply-to", Value::String("queue://r"));
  SetProperty("group-id", Value::String("g1"));
  SetProperty("group-sequence", Value::Unsigned(ValueType::kUInt, 3));
  EXPECT_EQ(Jms("JMSPriority = 7 AND JMSPriority > 4"), T);
  EXPECT_EQ(Jms("JMSType = 'order'"), T);
  EXPECT_EQ(Jms("JMSDestination = 'queue://a' AND JMSReplyTo = 'queue://r'"), T);
  EXPECT_EQ(Jms("JMSXGroupID = 'g1' AND JMSXGroupSeq = 3"), T);
}

TEST_F(JmsTest, DeliveryModeAndRedelivered) {
  SetHeader("durable", Value::Boolean(true));
  SetHeader("delivery-count", Value::Unsigned(ValueType::kUInt, 2));
  EXPECT_EQ(Jms("JMSDeliveryMode = 'PERSISTENT'"), T);
  EXPECT_EQ(Jms("JMSRedelivered AND JMSRedelivered = TRUE"), T);
  EXPECT_EQ(Jms("JMSXDeliveryCount = 3"), T);
  SetHeader("durable", Value::Boolean(false));
  SetHeader("delivery-count", Value::Unsigned(ValueType::kUInt, 0));
  EXPECT_EQ(Jms("JMSDeliveryMode = 'NON_PERSISTENT'"), T);
  EXPECT_EQ(Jms("JMSRedelivered"), F);
  EXPECT_EQ(Jms("NOT JMSRedelivered"), T);
  // Absent (a source without header defaults): the AMQP defaults apply.
  source_.Clear();
  EXPECT_EQ(Jms("JMSDeliveryMode = 'NON_PERSISTENT' AND NOT JMSRedelivered"), T);
}

TEST_F(JmsTest, TimestampAndExpirationAsLongs) {
  SetProperty("creation-time", Value::Timestamp(1000));
  EXPECT_EQ(Jms("JMSTimestamp = 1000 AND JMSTimestamp > 999"), T);
  EXPECT_EQ(Jms("JMSExpiration = 0"), T);  // absent reads as 0, as in Qpid JMS
  SetProperty("absolute-expiry-time", Value::Timestamp(5000));
  EXPECT_EQ(Jms("JMSExpiration - JMSTimestamp = 4000"), T);
}

TEST_F(JmsTest, MessageIdAsQpidJmsShowsIt) {
  SetProperty("message-id", Value::String("ID:host-1:1:1:1-1"));
  EXPECT_EQ(Jms("JMSMessageID = 'ID:host-1:1:1:1-1'"), T);
  SetProperty("message-id", Value::String("abc"));
  EXPECT_EQ(Jms("JMSMessageID = 'ID:AMQP_NO_PREFIX:abc'"), T);
  SetProperty("message-id", Value::String("ID:AMQP_ULONG:5"));
  EXPECT_EQ(Jms("JMSMessageID = 'ID:AMQP_STRING:ID:AMQP_ULONG:5'"), T);
  SetProperty("message-id", Value::Unsigned(ValueType::kULong, 42));
  EXPECT_EQ(Jms("JMSMessageID = 'ID:AMQP_ULONG:42'"), T);
  const char uuid[16] = {0x12,
                         0x34,
                         0x56,
                         0x78,
                         static_cast<char>(0x9a),
                         static_cast<char>(0xbc),
                         0x4d,
                         0x0e,
                         static_cast<char>(0x8f),
                         0x01,
                         0x23,
                         0x45,
                         0x67,
                         static_cast<char>(0x89),
                         static_cast<char>(0xab),
                         static_cast<char>(0xcd)};
  SetProperty("message-id", Value::Bytes(ValueType::kUuid, std::string_view(uuid, 16)));
  EXPECT_EQ(Jms("JMSMessageID = 'ID:AMQP_UUID:12345678-9abc-4d0e-8f01-23456789abcd'"), T);
  SetProperty("message-id", Value::Binary(std::string_view("\x01\xab", 2)));
  EXPECT_EQ(Jms("JMSMessageID = 'ID:AMQP_BINARY:01AB'"), T);
  source_.Clear();
  EXPECT_EQ(Jms("JMSMessageID IS NULL"), T);
  EXPECT_EQ(Jms("JMSMessageID = 'x'"), U);
}

TEST_F(JmsTest, CorrelationIdKeepsApplicationText) {
  SetProperty("correlation-id", Value::String("order-7"));
  EXPECT_EQ(Jms("JMSCorrelationID = 'order-7'"), T);
  SetProperty("correlation-id", Value::String("ID:AMQP_UUID:x"));
  EXPECT_EQ(Jms("JMSCorrelationID = 'ID:AMQP_STRING:ID:AMQP_UUID:x'"), T);
  SetProperty("correlation-id", Value::Unsigned(ValueType::kULong, 9));
  EXPECT_EQ(Jms("JMSCorrelationID = 'ID:AMQP_ULONG:9'"), T);
}

TEST_F(JmsTest, OrdinaryPropertiesAndJavaLiterals) {
  Set("$price", Value::Long(31));
  Set("_qty", Value::Long(15));
  Set("JMSCustom", Value::String("x"));
  EXPECT_EQ(Jms("$price = 0x1F AND _qty = 017 AND _qty = 15L AND JMSCustom = 'x'"), T);
  EXPECT_EQ(Jms("$price > 30.5f AND $price < 31.5d AND $price > .5 AND $price < 32."), T);
}

}  // namespace
}  // namespace sift::selector
