// Evaluation semantics (docs/selector-semantics.md): three-valued logic, comparisons across types,
// arithmetic with overflow and division by zero, LIKE, IN, BETWEEN, IS NULL, EXISTS.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "selector/selector.h"
#include "tests/selector/evaluation_fixture.h"

namespace sift::selector {
namespace {

using testing::F;
using testing::SimpleSource;
using testing::T;
using testing::U;

class EvaluateTest : public testing::EvaluationFixture {};

TEST_F(EvaluateTest, ThreeValuedTruthTables) {
  Set("t", Value::Boolean(true));
  Set("f", Value::Boolean(false));
  // u is missing. Operands: t, f, u.
  const char* names[] = {"t", "f", "u"};
  const Truth values[] = {T, F, U};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Truth a = values[i], b = values[j];
      Truth expected_and = (a == F || b == F) ? F : (a == U || b == U) ? U : T;
      Truth expected_or = (a == T || b == T) ? T : (a == U || b == U) ? U : F;
      std::string x = names[i], y = names[j];
      EXPECT_EQ(Eval(x + " AND " + y), expected_and) << x << " AND " << y;
      EXPECT_EQ(Eval(x + " OR " + y), expected_or) << x << " OR " << y;
    }
    Truth expected_not = values[i] == U ? U : (values[i] == T ? F : T);
    EXPECT_EQ(Eval(std::string("NOT ") + names[i]), expected_not);
  }
}

TEST_F(EvaluateTest, NonBooleanConditionIsUnknown) {
  Set("n", Value::Long(1));
  Set("s", Value::String("true"));
  EXPECT_EQ(Eval("n"), U);
  EXPECT_EQ(Eval("s"), U);
  EXPECT_EQ(Eval("NOT n"), U);
  EXPECT_EQ(Eval("n OR TRUE"), T);
  EXPECT_EQ(Eval("n AND FALSE"), F);
}

TEST_F(EvaluateTest, ConditionAsValue) {
  Set("a", Value::Long(1));
  EXPECT_EQ(Eval("(a = 1) = TRUE"), T);
  EXPECT_EQ(Eval("(a = 2) = FALSE"), T);
  EXPECT_EQ(Eval("(missing = 1) IS NULL"), T);
  EXPECT_EQ(Eval("(a = 1) IS NULL"), F);
}

TEST_F(EvaluateTest, MissingAndNullMakeComparisonsUnknown) {
  Set("n", Value::Null());
  for (const char* op : {"=", "<>", "<", "<=", ">", ">="}) {
    EXPECT_EQ(Eval(std::string("missing ") + op + " 1"), U) << op;
    EXPECT_EQ(Eval(std::string("n ") + op + " 1"), U) << op;
    EXPECT_EQ(Eval(std::string("1 ") + op + " n"), U) << op;
  }
  EXPECT_EQ(Eval("NOT (missing = 1)"), U);
}

TEST_F(EvaluateTest, TextComparisonByCodePoint) {
  Set("s", Value::String("abc"));
  Set("y", Value::Symbol("abc"));
  Set("c", Value::Char('b'));
  Set("e", Value::String("\xc3\xa9"));  // é U+00E9
  EXPECT_EQ(Eval("s = 'abc'"), T);
  EXPECT_EQ(Eval("s = 'ABC'"), F);
  EXPECT_EQ(Eval("s <> 'abd'"), T);
  EXPECT_EQ(Eval("s < 'abd'"), T);
  EXPECT_EQ(Eval("s < 'ab'"), F);
  EXPECT_EQ(Eval("s > 'ab'"), T);
  EXPECT_EQ(Eval("s >= 'abc' AND s <= 'abc'"), T);
  EXPECT_EQ(Eval("y = 'abc' AND y = s"), T);  // symbol and string mix
  EXPECT_EQ(Eval("c = 'b' AND c < 'c' AND c > 'a'"), T);
  EXPECT_EQ(Eval("e > 'z'"), T);             // U+00E9 > U+007A
  EXPECT_EQ(Eval("e < '\xe2\x82\xac'"), T);  // < U+20AC
  EXPECT_EQ(Eval("'' < 'a'"), T);
}

TEST_F(EvaluateTest, UnlikeTypesAreUnknown) {
  Set("s", Value::String("1"));
  Set("n", Value::Long(1));
  Set("b", Value::Boolean(true));
  Set("x", Value::Binary("1"));
  Set("l", Value::Compound(ValueType::kList));
  EXPECT_EQ(Eval("s = 1"), U);
  EXPECT_EQ(Eval("s <> 1"), U);
  EXPECT_EQ(Eval("n = '1'"), U);
  EXPECT_EQ(Eval("b = 1"), U);
  EXPECT_EQ(Eval("x = '1'"), U);
  EXPECT_EQ(Eval("l = 1"), U);
  EXPECT_EQ(Eval("l = l"), U);
  EXPECT_EQ(Eval("NOT (s = 1)"), U);
  EXPECT_EQ(Eval("1 = 'a'"), U);  // constants too: not an error
}

TEST_F(EvaluateTest, BooleanComparison) {
  Set("b", Value::Boolean(true));
  EXPECT_EQ(Eval("b = TRUE"), T);
  EXPECT_EQ(Eval("b <> FALSE"), T);
  EXPECT_EQ(Eval("b = FALSE"), F);
  EXPECT_EQ(Eval("b > FALSE"), U);
}

TEST_F(EvaluateTest, NumericPromotionAcrossAllTypes) {
  const Value fives[] = {
      Value::Signed(ValueType::kByte, 5),
      Value::Signed(ValueType::kShort, 5),
      Value::Signed(ValueType::kInt, 5),
      Value::Long(5),
      Value::Unsigned(ValueType::kUByte, 5),
      Value::Unsigned(ValueType::kUShort, 5),
      Value::Unsigned(ValueType::kUInt, 5),
      Value::Unsigned(ValueType::kULong, 5),
      Value::Float(5.0f),
      Value::Double(5.0),
      Value::Timestamp(5),
  };
  for (const Value& a : fives) {
    for (const Value& b : fives) {
      Set("a", a);
      Set("b", b);
      EXPECT_EQ(Eval("a = b"), T) << ValueTypeName(a.type) << " " << ValueTypeName(b.type);
      EXPECT_EQ(Eval("a < b + 1"), T) << ValueTypeName(a.type) << " " << ValueTypeName(b.type);
      EXPECT_EQ(Eval("a = 5 AND a = 5.0 AND a < 5.5 AND a > 4.9"), T) << ValueTypeName(a.type);
    }
  }
}

TEST_F(EvaluateTest, ExactComparisonOfLargeIntegers) {
  Set("big", Value::Unsigned(ValueType::kULong, 18446744073709551615ull));
  Set("neg", Value::Long(-1));
  Set("p53", Value::Long(9007199254740993));  // 2^53 + 1
  EXPECT_EQ(Eval("big > neg"), T);
  EXPECT_EQ(Eval("big > 9223372036854775807"), T);
  EXPECT_EQ(Eval("big = 18446744073709551615"), T);
  EXPECT_EQ(Eval("neg < big"), T);
  EXPECT_EQ(Eval("p53 = 9007199254740992.0"), F);
  EXPECT_EQ(Eval("p53 > 9007199254740992.0"), T);
  EXPECT_EQ(Eval("big < 1.8446744073709552E19"), T);  // 2^64 as a double
  EXPECT_EQ(Eval("neg < 0.5 AND neg > -1.5 AND neg = -1.0"), T);
}

TEST_F(EvaluateTest, NanAndInfinity) {
  Set("nan", Value::Double(std::numeric_limits<double>::quiet_NaN()));
  Set("x", Value::Double(1e308));
  EXPECT_EQ(Eval("nan = nan"), F);
  EXPECT_EQ(Eval("nan <> nan"), T);
  EXPECT_EQ(Eval("nan < 1 OR nan > 1 OR nan <= 1 OR nan >= 1"), F);
  EXPECT_EQ(Eval("nan = NAN"), F);
  EXPECT_EQ(Eval("x < INF AND x > -INF"), T);
  EXPECT_EQ(Eval("x * 10 = INF"), T);
  EXPECT_EQ(Eval("-0.0 = 0.0"), T);
  EXPECT_EQ(Eval("9223372036854775807 < INF"), T);
}

TEST_F(EvaluateTest, IntegerArithmetic) {
  Set("a", Value::Long(7));
  Set("b", Value::Long(-7));
  Set("u", Value::Unsigned(ValueType::kUInt, 3));
  EXPECT_EQ(Eval("a + u = 10"), T);
  EXPECT_EQ(Eval("a - u * 2 = 1"), T);
  EXPECT_EQ(Eval("a / 2 = 3"), T);
  EXPECT_EQ(Eval("b / 2 = -3"), T);  // truncation toward zero
  EXPECT_EQ(Eval("a % 2 = 1"), T);
  EXPECT_EQ(Eval("b % 2 = -1"), T);  // sign of the dividend
  EXPECT_EQ(Eval("a % -2 = 1"), T);
  EXPECT_EQ(Eval("-a = b"), T);
  EXPECT_EQ(Eval("+a = 7"), T);
  EXPECT_EQ(Eval("a / 2.0 = 3.5"), T);
}

TEST_F(EvaluateTest, IntegerOverflowIsUnknownOrWidensToULong) {
  Set("max", Value::Long(std::numeric_limits<int64_t>::max()));
  Set("min", Value::Long(std::numeric_limits<int64_t>::min()));
  Set("umax", Value::Unsigned(ValueType::kULong, std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(Eval("max + 1 = 9223372036854775808"), T);
  EXPECT_EQ(Eval("max + 1 > max"), T);
  EXPECT_EQ(Eval("umax + 1 > 0"), U);
  EXPECT_EQ(Eval("(umax + 1) IS NULL"), T);
  EXPECT_EQ(Eval("min - 1 < 0"), U);
  EXPECT_EQ(Eval("max * max > 0"), U);
  EXPECT_EQ(Eval("umax * umax > 0"), U);
  EXPECT_EQ(Eval("min / -1 = 9223372036854775808"), T);
  EXPECT_EQ(Eval("-min = 9223372036854775808"), T);
  EXPECT_EQ(Eval("-umax < 0"), U);
  EXPECT_EQ(Eval("-9223372036854775808 = min"), T);
  EXPECT_EQ(Eval("umax - umax = 0"), T);
}

TEST_F(EvaluateTest, DivisionAndModuloByZeroAreUnknown) {
  Set("a", Value::Long(1));
  Set("z", Value::Long(0));
  Set("d", Value::Double(1.5));
  Set("dz", Value::Double(0.0));
  EXPECT_EQ(Eval("a / z = 0"), U);
  EXPECT_EQ(Eval("a % z = 0"), U);
  EXPECT_EQ(Eval("d / dz > 0"), U);
  EXPECT_EQ(Eval("d % dz > 0"), U);
  EXPECT_EQ(Eval("d / z > 0"), U);
  EXPECT_EQ(Eval("1 / 0 = 1"), U);  // folded, still UNKNOWN
  EXPECT_EQ(Eval("NOT (1 / 0 = 1)"), U);
  EXPECT_EQ(Eval("(1 / 0) IS NULL"), T);
  EXPECT_EQ(Eval("a / z = 0 OR a = 1"), T);
}

TEST_F(EvaluateTest, FloatingArithmetic) {
  Set("f", Value::Float(1.5f));
  Set("d", Value::Double(2.25));
  EXPECT_EQ(Eval("f + d = 3.75"), T);
  EXPECT_EQ(Eval("d * 2 = 4.5"), T);
  EXPECT_EQ(Eval("d % 1 = 0.25"), T);
  EXPECT_EQ(Eval("d - 1 = 1.25"), T);
}

TEST_F(EvaluateTest, ArithmeticOnNonNumbersIsUnknown) {
  Set("s", Value::String("5"));
  Set("b", Value::Boolean(true));
  Set("n", Value::Long(5));
  EXPECT_EQ(Eval("s + 1 = 6"), U);
  EXPECT_EQ(Eval("b * 1 = 1"), U);
  EXPECT_EQ(Eval("-s = -5"), U);
  EXPECT_EQ(Eval("missing + 1 = 1"), U);
  EXPECT_EQ(Eval("s + n = '55'"), U);
}

TEST_F(EvaluateTest, Concatenation) {
  Set("a", Value::String("foo"));
  Set("b", Value::Symbol("bar"));
  Set("c", Value::Char(0x20AC));
  EXPECT_EQ(Eval("a + b = 'foobar'"), T);
  EXPECT_EQ(Eval("a + '-' + b = 'foo-bar'"), T);
  EXPECT_EQ(Eval("a + c = 'foo\xe2\x82\xac'"), T);
  EXPECT_EQ(Eval("'' + '' = ''"), T);
  EXPECT_EQ(Eval("a + missing = 'foo'"), U);
}

TEST_F(EvaluateTest, Timestamps) {
  SetField("properties.creation-time", Value::Timestamp(1700000000000));
  context_.SetNow(1700000060000);
  EXPECT_EQ(Eval("p.creation_time = 1700000000000"), T);
  EXPECT_EQ(Eval("p.creation_time > UTC() - 120000"), T);
  EXPECT_EQ(Eval("p.creation_time > UTC() - 30000"), F);
  EXPECT_EQ(Eval("UTC() - p.creation_time = 60000"), T);
  EXPECT_EQ(Eval("p.creation_time < DATE('2023-11-14T22:13:21Z')"), T);
  EXPECT_EQ(Eval("p.creation_time = DATE('2023-11-14T22:13:20Z')"), T);
  EXPECT_EQ(Eval("p.creation_time = DATE('2023-11-14T23:13:20+01:00')"), T);
  EXPECT_EQ(Eval("p.creation_time BETWEEN DATE('2023-11-14') AND DATE('2023-11-15')"), T);
  EXPECT_EQ(Eval("p.creation_time = 'x'"), U);
}

TEST_F(EvaluateTest, Decimals) {
  // decimal32 1.5 = 15 x 10^-1: sign 0, exponent 100 (bias 101), coefficient 15.
  const char d32[] = {0x32, static_cast<char>(0x00), 0x00, 0x0F};
  // decimal64 -2.5 = -25 x 10^-1: exponent 397 (bias 398).
  uint64_t bits64 = (uint64_t{1} << 63) | (uint64_t{397} << 53) | 25;
  char d64[8];
  for (int i = 0; i < 8; ++i) d64[i] = static_cast<char>(bits64 >> (56 - 8 * i));
  // decimal128 12345 x 10^0: exponent 6176.
  unsigned __int128 bits128 = (static_cast<unsigned __int128>(6176) << 113) | 12345;
  char d128[16];
  for (int i = 0; i < 16; ++i) d128[i] = static_cast<char>(bits128 >> (120 - 8 * i));
  Set("d32", Value::Bytes(ValueType::kDecimal32, std::string_view(d32, 4)));
  Set("d64", Value::Bytes(ValueType::kDecimal64, std::string_view(d64, 8)));
  Set("d128", Value::Bytes(ValueType::kDecimal128, std::string_view(d128, 16)));
  EXPECT_EQ(Eval("d32 = 1.5"), T);
  EXPECT_EQ(Eval("d64 = -2.5"), T);
  EXPECT_EQ(Eval("d128 = 12345"), T);
  EXPECT_EQ(Eval("d32 + d64 = -1.0"), T);
  EXPECT_EQ(Eval("d32 > d64"), T);
  EXPECT_EQ(Eval("d32 IN (1.5, 2)"), T);
  // Infinity: 0 11110 ...
  const char inf32[] = {0x78, 0, 0, 0};
  Set("inf", Value::Bytes(ValueType::kDecimal32, std::string_view(inf32, 4)));
  EXPECT_EQ(Eval("inf = INF"), T);
  // Wrong size: not a number.
  Set("bad", Value::Bytes(ValueType::kDecimal64, std::string_view(d32, 4)));
  EXPECT_EQ(Eval("bad = 1.5"), U);
}

TEST_F(EvaluateTest, BinaryAndUuid) {
  Set("bin", Value::Binary(std::string_view("\x01\x02", 2)));
  const char uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  Set("id", Value::Bytes(ValueType::kUuid, std::string_view(uuid, 16)));
  Set("id2", Value::Bytes(ValueType::kUuid, std::string_view(uuid, 16)));
  EXPECT_EQ(Eval("bin = 0x0102"), T);
  EXPECT_EQ(Eval("bin < 0x0103 AND bin > 0x01"), T);
  EXPECT_EQ(Eval("bin IN (0x00, 0x0102)"), T);
  EXPECT_EQ(Eval("id = id2"), T);
  EXPECT_EQ(Eval("id = 0x0102030405060708090A0B0C0D0E0F10"), U);  // uuid vs binary: unlike
}

TEST_F(EvaluateTest, LikeFastPathsAndSegments) {
  Set("s", Value::String("orders.eu.created"));
  Set("u", Value::String("h\xc3\xa9llo"));  // héllo
  Set("n", Value::Long(5));
  Set("nl", Value::String("a\nb"));
  EXPECT_EQ(Eval("s LIKE 'orders.eu.created'"), T);
  EXPECT_EQ(Eval("s LIKE 'orders.%'"), T);
  EXPECT_EQ(Eval("s LIKE '%.created'"), T);
  EXPECT_EQ(Eval("s LIKE '%.eu.%'"), T);
  EXPECT_EQ(Eval("s LIKE '%'"), T);
  EXPECT_EQ(Eval("s LIKE 'orders%eu%created'"), T);
  EXPECT_EQ(Eval("s LIKE 'orders%us%created'"), F);
  EXPECT_EQ(Eval("s LIKE 'o%s%d'"), T);
  EXPECT_EQ(Eval("s LIKE 'orders.__.created'"), T);
  EXPECT_EQ(Eval("s LIKE 'orders._.created'"), F);
  EXPECT_EQ(Eval("s NOT LIKE 'x%'"), T);
  EXPECT_EQ(Eval("s LIKE 'ORDERS%'"), F);  // case-sensitive
  EXPECT_EQ(Eval("u LIKE 'h_llo'"), T);    // '_' is one code point, not one byte
  EXPECT_EQ(Eval("u LIKE 'h__llo'"), F);
  EXPECT_EQ(Eval("u LIKE '_\xc3\xa9%'"), T);
  EXPECT_EQ(Eval("nl LIKE 'a_b' AND nl LIKE 'a%b'"), T);  // newlines are characters too
  EXPECT_EQ(Eval("n LIKE '5'"), U);
  EXPECT_EQ(Eval("n NOT LIKE '5'"), U);
  EXPECT_EQ(Eval("missing LIKE '%'"), U);
  EXPECT_EQ(Eval("'' LIKE '%' AND '' LIKE '' AND NOT '' LIKE '_'"), T);
  EXPECT_EQ(Eval("'ab' LIKE 'a%%b' AND 'aXb' LIKE 'a%%b'"), T);
  EXPECT_EQ(Eval("'aba' LIKE 'ab%ba'"), F);  // anchored ends must not overlap
}

TEST_F(EvaluateTest, LikeEscape) {
  Set("s", Value::String("50%_off"));
  EXPECT_EQ(Eval("s LIKE '50!%!_off' ESCAPE '!'"), T);
  EXPECT_EQ(Eval("s LIKE '50!%%' ESCAPE '!'"), T);
  EXPECT_EQ(Eval("s LIKE '%!_%' ESCAPE '!'"), T);
  EXPECT_EQ(Eval("'5x_off' LIKE '5_!_off' ESCAPE '!'"), T);
  EXPECT_EQ(Eval("'50x_off' LIKE '50!%!_off' ESCAPE '!'"), F);
  EXPECT_EQ(Eval("'a!b' LIKE 'a!!b' ESCAPE '!'"), T);
  EXPECT_EQ(Eval("'ab' LIKE '!a!b' ESCAPE '!'"), T);  // escaping an ordinary character
  EXPECT_EQ(Eval("'a\\b' LIKE 'a\\\\b' ESCAPE '\\'"), T);
  EXPECT_EQ(Eval("'a%b' LIKE 'a\xc3\xa9%b' ESCAPE '\xc3\xa9'"), T);  // a non-ASCII escape character
  // Regex metacharacters in literals are literal.
  EXPECT_EQ(Eval("'a.c' LIKE 'a._' AND NOT 'abc' LIKE 'a._'"), T);
  EXPECT_EQ(Eval("'(x)*+?[]{}|^$' LIKE '(x)*+?[]{}|^_'"), T);
}

TEST_F(EvaluateTest, LikeOnInvalidUtf8Text) {
  Set("s", Value::String("a\xff"
                         "b"));
  EXPECT_EQ(Eval("s LIKE 'a%b'"), T);  // fast paths compare bytes
  EXPECT_EQ(Eval("s LIKE 'a%'"), T);
  EXPECT_EQ(Eval("s LIKE '%'"), T);
  EXPECT_EQ(Eval("s LIKE 'a_b'"), F);  // '_' matches no character at an invalid byte
  EXPECT_EQ(Eval("s LIKE '%_%'"), F);
}

TEST_F(EvaluateTest, CharOperandOfLike) {
  Set("c", Value::Char('x'));
  EXPECT_EQ(Eval("c LIKE 'x'"), T);
  EXPECT_EQ(Eval("c LIKE '_'"), T);
}

TEST_F(EvaluateTest, InThreeValued) {
  Set("s", Value::String("b"));
  Set("n", Value::Long(2));
  EXPECT_EQ(Eval("s IN ('a', 'b', 'c')"), T);
  EXPECT_EQ(Eval("s IN ('a', 'c')"), F);
  EXPECT_EQ(Eval("s NOT IN ('a', 'c')"), T);
  EXPECT_EQ(Eval("s NOT IN ('a', 'b')"), F);
  EXPECT_EQ(Eval("missing IN ('a')"), U);
  EXPECT_EQ(Eval("missing NOT IN ('a')"), U);
  EXPECT_EQ(Eval("s IN ('b', 5)"), T);
  EXPECT_EQ(Eval("s IN ('a', 5)"), U);  // 'b' = 5 is UNKNOWN
  EXPECT_EQ(Eval("s NOT IN ('a', 5)"), U);
  EXPECT_EQ(Eval("n IN (1, 2.0, 'x')"), T);
  EXPECT_EQ(Eval("n IN (1, 3)"), F);
  EXPECT_EQ(Eval("n IN (1, 1 / 0)"), U);  // an UNKNOWN member
  EXPECT_EQ(Eval("n IN (2, 1 / 0)"), T);
  EXPECT_EQ(Eval("n IN (2.5, 1.0)"), F);
  EXPECT_EQ(Eval("n IN (n, 5)"), T);  // members evaluated per message
  EXPECT_EQ(Eval("n IN (n + 1, 5)"), F);
  EXPECT_EQ(Eval("n IN (missing, 5)"), U);
  EXPECT_EQ(Eval("TRUE IN (FALSE, TRUE)"), T);
}

TEST_F(EvaluateTest, LargeInSets) {
  std::string list;
  for (int i = 0; i < 200; ++i) list += (i ? ", '" : "'") + std::to_string(i * 7) + "'";
  std::string numbers;
  for (int i = 0; i < 200; ++i) numbers += (i ? ", " : "") + std::to_string(i * 7);
  for (int v = 0; v < 1400; v += 3) {
    std::string text = std::to_string(v);
    Set("s", Value::String(text));
    Set("n", Value::Long(v));
    Truth expected = v % 7 == 0 ? T : F;
    EXPECT_EQ(Eval("s IN (" + list + ")"), expected) << v;
    EXPECT_EQ(Eval("n IN (" + numbers + ")"), expected) << v;
  }
}

TEST_F(EvaluateTest, Between) {
  Set("n", Value::Long(5));
  Set("s", Value::String("m"));
  EXPECT_EQ(Eval("n BETWEEN 1 AND 10"), T);
  EXPECT_EQ(Eval("n BETWEEN 5 AND 5"), T);
  EXPECT_EQ(Eval("n BETWEEN 6 AND 10"), F);
  EXPECT_EQ(Eval("n BETWEEN 10 AND 1"), F);
  EXPECT_EQ(Eval("n NOT BETWEEN 6 AND 10"), T);
  EXPECT_EQ(Eval("n BETWEEN 1.5 AND 5.5"), T);
  EXPECT_EQ(Eval("s BETWEEN 'a' AND 'z'"), T);
  EXPECT_EQ(Eval("missing BETWEEN 1 AND 10"), U);
  EXPECT_EQ(Eval("n BETWEEN 'a' AND 10"), U);
  EXPECT_EQ(Eval("n BETWEEN 'a' AND 4"), F);  // FALSE AND UNKNOWN
  EXPECT_EQ(Eval("n NOT BETWEEN 'a' AND 10"), U);
}

TEST_F(EvaluateTest, IsNullAndExists) {
  Set("n", Value::Null());
  Set("v", Value::Long(1));
  EXPECT_EQ(Eval("n IS NULL"), T);
  EXPECT_EQ(Eval("missing IS NULL"), T);
  EXPECT_EQ(Eval("v IS NULL"), F);
  EXPECT_EQ(Eval("v IS NOT NULL"), T);
  EXPECT_EQ(Eval("missing IS NOT NULL"), F);
  EXPECT_EQ(Eval("EXISTS v"), T);
  EXPECT_EQ(Eval("EXISTS n"), T);  // present, with a null value
  EXPECT_EQ(Eval("EXISTS missing"), F);
  EXPECT_EQ(Eval("NOT EXISTS missing"), T);
}

TEST_F(EvaluateTest, CompositeFieldsAreOrdinaryFields) {
  SetField("application_properties.tags[0]", Value::String("x"));
  SetField("message_annotations.x-opt-route.region", Value::String("eu"));
  EXPECT_EQ(Eval("a.tags[0] = 'x'"), T);
  EXPECT_EQ(Eval("a.tags[1] IS NULL"), T);
  EXPECT_EQ(Eval("m.[x-opt-route].region = 'eu' AND EXISTS m.[x-opt-route].region"), T);
}

TEST_F(EvaluateTest, ShortCircuitDoesNotChangeResults) {
  // The same operands in every order give the same answer.
  Set("t", Value::Boolean(true));
  Set("f", Value::Boolean(false));
  const char* ops[] = {"t", "f", "u", "(1/0 = 1)", "t = TRUE", "LOWER('A') = 'a'"};
  for (const char* a : ops) {
    for (const char* b : ops) {
      for (const char* c : ops) {
        std::string x = a, y = b, z = c;
        EXPECT_EQ(Eval(x + " AND " + y + " AND " + z), Eval(z + " AND " + x + " AND " + y));
        EXPECT_EQ(Eval(x + " OR " + y + " OR " + z), Eval(y + " OR " + z + " OR " + x));
      }
    }
  }
}

TEST_F(EvaluateTest, KeywordsAndFunctionsCaseInsensitive) {
  Set("a", Value::String("X"));
  EXPECT_EQ(Eval("a = 'X' and not a is null or false"), T);
  EXPECT_EQ(Eval("lower(a) = 'x' AND Upper(a) = 'X'"), T);
}

TEST_F(EvaluateTest, DeepestAcceptedExpressionsCompileAndEvaluate) {
  Set("a", Value::Long(1));
  std::string nots;
  for (int i = 0; i < 254; ++i) nots += "NOT ";
  EXPECT_EQ(Eval(nots + "a = 1"), T);  // an even number of NOTs
  std::string parens = std::string(250, '(') + "a + 1" + std::string(250, ')') + " = 2";
  EXPECT_EQ(Eval(parens), T);
  std::string negations;
  for (int i = 0; i < 250; ++i) negations += "-";
  EXPECT_EQ(Eval(negations + "a = 1"), T);
  std::string lowers;
  for (int i = 0; i < 120; ++i) lowers += "LOWER(";
  EXPECT_EQ(Eval(lowers + "'X'" + std::string(120, ')') + " = 'x'"), T);
}

TEST(SelectorSharingTest, OneSelectorEvaluatedFromManyThreads) {
  Selector s = Selector::Compile(
      "LOWER(name + '-x') LIKE 'ab_%' AND n IN (1, 2, 3) OR SUBSTRING(name, 2) = 'bc' AND n / 0 IS NULL");
  ASSERT_TRUE(s.ok());
  Selector copy = s;  // copies share the immutable program
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SimpleSource source;  // one source and one context per thread
      EvalContext context;
      source.Set("application_properties.name", Value::String(t % 2 ? "abc" : "xyz"));
      source.Set("application_properties.n", Value::Long(t));
      source.Bind(copy.fields());
      const Truth expected = t % 2 ? T : F;  // 'abc' matches the LIKE and n is in the list; 'xyz' nothing
      for (int i = 0; i < 20000; ++i) wrong[t] += copy.Evaluate(source, context) != expected;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace sift::selector
