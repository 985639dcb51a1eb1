// Parser: every construct's AST, name resolution, every error class with its position, limits.
#include <gtest/gtest.h>

#include <string>

#include "selector/ast.h"
#include "selector/eval_context.h"
#include "selector/selector.h"
#include "tests/selector/simple_source.h"

namespace sift::selector {
namespace {

std::string Parse(std::string_view text, Dialect dialect = Dialect::kSql) {
  CompileOptions options;
  options.dialect = dialect;
  Ast ast;
  Error error;
  if (!ParseExpression(text, options, &ast, &error)) return "error: " + error.ToString();
  return ast.ToString();
}

Error ParseError(std::string_view text, const CompileOptions& options = {}) {
  Ast ast;
  Error error;
  EXPECT_FALSE(ParseExpression(text, options, &ast, &error)) << text << " parsed as " << ast.ToString();
  return error;
}

TEST(ParserTest, Comparisons) {
  EXPECT_EQ(Parse("a = 1"), "(= application_properties.a 1)");
  EXPECT_EQ(Parse("a <> 1"), "(<> application_properties.a 1)");
  EXPECT_EQ(Parse("a != 1"), "(<> application_properties.a 1)");
  EXPECT_EQ(Parse("a < 1 OR a <= 1 OR a > 1 OR a >= 1"),
            "(OR (< application_properties.a 1) (<= application_properties.a 1) (> application_properties.a 1) "
            "(>= application_properties.a 1))");
}

TEST(ParserTest, PrecedenceOrAndNot) {
  EXPECT_EQ(Parse("a OR b AND NOT c"),
            "(OR application_properties.a (AND application_properties.b (NOT application_properties.c)))");
  EXPECT_EQ(Parse("(a OR b) AND c"),
            "(AND (OR application_properties.a application_properties.b) application_properties.c)");
  EXPECT_EQ(Parse("NOT a = 1"), "(NOT (= application_properties.a 1))");
  EXPECT_EQ(Parse("NOT NOT a"), "(NOT (NOT application_properties.a))");
}

TEST(ParserTest, AndOrChainsAreFlattened) {
  EXPECT_EQ(
      Parse("a AND b AND c AND d"),
      "(AND application_properties.a application_properties.b application_properties.c application_properties.d)");
}

TEST(ParserTest, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(Parse("a + b * c = 1"),
            "(= (+ application_properties.a (* application_properties.b application_properties.c)) 1)");
  EXPECT_EQ(Parse("a - b - c = 1"),
            "(= (- (- application_properties.a application_properties.b) application_properties.c) 1)");
  EXPECT_EQ(Parse("a / b % c = 1"),
            "(= (% (/ application_properties.a application_properties.b) application_properties.c) 1)");
  EXPECT_EQ(Parse("-a * +b = 1"), "(= (* (NEG application_properties.a) (POS application_properties.b)) 1)");
  EXPECT_EQ(Parse("- -1 = 1"), "(= (NEG (NEG 1)) 1)");
}

TEST(ParserTest, LikeInBetweenIsNullExists) {
  EXPECT_EQ(Parse("a LIKE 'x%'"), "(LIKE application_properties.a 'x%')");
  EXPECT_EQ(Parse("a NOT LIKE 'x!%' ESCAPE '!'"), "(NOT LIKE application_properties.a 'x!%' ESCAPE '!')");
  EXPECT_EQ(Parse("a IN ('x', 1, 2.5, TRUE)"), "(IN application_properties.a 'x' 1 2.5 TRUE)");
  EXPECT_EQ(Parse("a NOT IN (b, c + 1)"),
            "(NOT IN application_properties.a application_properties.b (+ application_properties.c 1))");
  EXPECT_EQ(Parse("a BETWEEN 1 AND 2"), "(BETWEEN application_properties.a 1 2)");
  EXPECT_EQ(Parse("a NOT BETWEEN 1 + 1 AND 2 * 3 AND b"),
            "(AND (NOT BETWEEN application_properties.a (+ 1 1) (* 2 3)) application_properties.b)");
  EXPECT_EQ(Parse("a IS NULL"), "(IS NULL application_properties.a)");
  EXPECT_EQ(Parse("a IS NOT NULL"), "(IS NOT NULL application_properties.a)");
  EXPECT_EQ(Parse("EXISTS a"), "(EXISTS application_properties.a)");
  EXPECT_EQ(Parse("EXISTS (m.[x-opt-a]) AND NOT EXISTS a.b[2]"),
            "(AND (EXISTS message_annotations.x-opt-a) (NOT (EXISTS application_properties.b[2])))");
}

TEST(ParserTest, Literals) {
  EXPECT_EQ(Parse("a = 42 OR a = 4.2 OR a = 4.2E3 OR a = NAN OR a = INF OR a = -INF"),
            "(OR (= application_properties.a 42) (= application_properties.a 4.2000000000000002) "
            "(= application_properties.a 4200) (= application_properties.a NAN) (= application_properties.a INF) "
            "(= application_properties.a (NEG INF)))");
  EXPECT_EQ(Parse("a = TRUE OR a = false"),
            "(OR (= application_properties.a TRUE) (= application_properties.a FALSE))");
  EXPECT_EQ(Parse("a = 'it''s' OR a = \"say \"\"x\"\"\""),
            "(OR (= application_properties.a 'it''s') (= application_properties.a 'say \"x\"'))");
  EXPECT_EQ(Parse("a = 0x0aFF"), "(= application_properties.a 0x0AFF)");
  EXPECT_EQ(Parse("a = 9223372036854775807 OR a = 18446744073709551615"),
            "(OR (= application_properties.a 9223372036854775807) (= application_properties.a 18446744073709551615))");
  EXPECT_EQ(Parse("a = 017"), "(= application_properties.a 17)");  // SQL: decimal
}

TEST(ParserTest, JmsLiterals) {
  EXPECT_EQ(Parse("a = 0x1F OR a = 017 OR a = 5L OR a = 0", Dialect::kJms),
            "(OR (= application_properties.a 31) (= application_properties.a 15) (= application_properties.a 5) "
            "(= application_properties.a 0))");
  EXPECT_EQ(Parse("a = 5. OR a = .5 OR a = 5E2 OR a = 1.5f OR a = 2d", Dialect::kJms),
            "(OR (= application_properties.a 5) (= application_properties.a 0.5) (= application_properties.a 500) "
            "(= application_properties.a 1.5f) (= application_properties.a 2))");
  EXPECT_EQ(Parse("$a = 1 AND _b = 2 AND c$ = 3", Dialect::kJms),
            "(AND (= application_properties.$a 1) (= application_properties._b 2) (= application_properties.c$ 3))");
}

TEST(ParserTest, SectionsAndFieldNames) {
  EXPECT_EQ(Parse("h.priority > 4 AND header.delivery_count = 0 AND h.first_acquirer AND H.Durable"),
            "(AND (> header.priority 4) (= header.delivery-count 0) header.first-acquirer header.durable)");
  EXPECT_EQ(Parse("p.message_id = 'x' AND properties.reply_to_group_id = 'g' AND p.[creation-time] > 0"),
            "(AND (= properties.message-id 'x') (= properties.reply-to-group-id 'g') (> properties.creation-time 0))");
  EXPECT_EQ(Parse("d.x = 1 AND delivery_annotations.y = 1 AND m.x_opt_a = 1 AND message_annotations.[x-opt-b] = 1"),
            "(AND (= delivery_annotations.x 1) (= delivery_annotations.y 1) (= message_annotations.x_opt_a 1) "
            "(= message_annotations.x-opt-b 1))");
  EXPECT_EQ(Parse("a.x = 1 AND application_properties.y = 1 AND f.z = 1 AND footer.w = 1 AND [my key] = 1"),
            "(AND (= application_properties.x 1) (= application_properties.y 1) (= footer.z 1) (= footer.w 1) "
            "(= application_properties.my key 1))");
  EXPECT_EQ(Parse("p.to = 'q' AND a.in = 1"), "(AND (= properties.to 'q') (= application_properties.in 1))");
}

TEST(ParserTest, CompositeAccess) {
  EXPECT_EQ(Parse("a.tags[0] = 'x'"), "(= application_properties.tags[0] 'x')");
  EXPECT_EQ(Parse("m.[x-opt-route].region = 'eu'"), "(= message_annotations.x-opt-route.region 'eu')");
  EXPECT_EQ(Parse("a.m.[k 1][3].z = 1"), "(= application_properties.m.k 1[3].z 1)");
  EXPECT_EQ(Parse("tags[1] = 2"), "(= application_properties.tags[1] 2)");
}

TEST(ParserTest, FieldsAreDeduplicatedInOrderOfAppearance) {
  Ast ast;
  Error error;
  ASSERT_TRUE(ParseExpression("b = 1 AND a = 2 AND b = 3 AND p.subject = 'x' AND a IS NULL", {}, &ast, &error));
  ASSERT_EQ(ast.fields.size(), 3u);
  EXPECT_EQ(FieldRefName(ast.fields[0]), "application_properties.b");
  EXPECT_EQ(FieldRefName(ast.fields[1]), "application_properties.a");
  EXPECT_EQ(FieldRefName(ast.fields[2]), "properties.subject");
  EXPECT_EQ(ast.fields[2].section, Section::kProperties);
  EXPECT_EQ(ast.fields[2].name, "subject");
}

TEST(ParserTest, Functions) {
  EXPECT_EQ(Parse("UTC() > 0"), "(> (UTC) 0)");
  EXPECT_EQ(Parse("lower(a) = 'x' AND UPPER(a) = 'X'"),
            "(AND (= (LOWER application_properties.a) 'x') (= (UPPER application_properties.a) 'X'))");
  EXPECT_EQ(Parse("LEFT(a, 2) = 'x' AND RIGHT(a, 1) = 'y'"),
            "(AND (= (LEFT application_properties.a 2) 'x') (= (RIGHT application_properties.a 1) 'y'))");
  EXPECT_EQ(Parse("SUBSTRING(a, 2) = 'x' AND SUBSTRING(a, 2, 3) = 'y'"),
            "(AND (= (SUBSTRING application_properties.a 2) 'x') (= (SUBSTRING application_properties.a 2 3) 'y'))");
  EXPECT_EQ(Parse("p.creation_time > DATE('2024-01-01T00:00:00Z')"),
            "(> properties.creation-time (DATE '2024-01-01T00:00:00Z'))");
}

TEST(ParserTest, JmsIdentifiers) {
  EXPECT_EQ(Parse("JMSPriority > 4 AND JMSType = 't' AND JMSDestination = 'q' AND JMSReplyTo = 'r'", Dialect::kJms),
            "(AND (> header.priority 4) (= properties.subject 't') (= properties.to 'q') (= properties.reply-to 'r'))");
  EXPECT_EQ(Parse("JMSMessageID = 'ID:1' AND JMSCorrelationID = 'c'", Dialect::kJms),
            "(AND (= (JMS_MESSAGE_ID properties.message-id) 'ID:1') "
            "(= (JMS_CORRELATION_ID properties.correlation-id) 'c'))");
  EXPECT_EQ(Parse("JMSTimestamp > 0 AND JMSExpiration = 0", Dialect::kJms),
            "(AND (> (JMS_TIME properties.creation-time) 0) (= (JMS_TIME properties.absolute-expiry-time) 0))");
  EXPECT_EQ(Parse("JMSDeliveryMode = 'PERSISTENT' AND JMSRedelivered", Dialect::kJms),
            "(AND (= (JMS_DELIVERY_MODE header.durable) 'PERSISTENT') (JMS_REDELIVERED header.delivery-count))");
  EXPECT_EQ(Parse("JMSXDeliveryCount > 1 AND JMSXGroupID = 'g' AND JMSXGroupSeq = 2", Dialect::kJms),
            "(AND (> (+ header.delivery-count 1) 1) (= properties.group-id 'g') (= properties.group-sequence 2))");
  // Case-sensitive, and only in the JMS dialect.
  EXPECT_EQ(Parse("jmspriority > 4", Dialect::kJms), "(> application_properties.jmspriority 4)");
  EXPECT_EQ(Parse("JMSPriority > 4"), "(> application_properties.JMSPriority 4)");
  // Section qualifiers work in the JMS dialect too.
  EXPECT_EQ(Parse("p.subject = 'x'", Dialect::kJms), "(= properties.subject 'x')");
}

struct ErrorCase {
  const char* text;
  ErrorCode code;
  size_t position;
  const char* token;
};

class ParserErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrorTest, ReportsCodePositionAndToken) {
  const ErrorCase& c = GetParam();
  Error e = ParseError(c.text);
  EXPECT_EQ(e.code, c.code) << c.text << ": " << e.ToString();
  EXPECT_EQ(e.position, c.position) << c.text << ": " << e.ToString();
  EXPECT_EQ(e.token, c.token) << c.text << ": " << e.ToString();
  EXPECT_FALSE(e.message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    All, ParserErrorTest,
    ::testing::Values(
        ErrorCase{"", ErrorCode::kUnexpectedEnd, 0, ""}, ErrorCase{"   ", ErrorCode::kUnexpectedEnd, 0, ""},
        ErrorCase{"a =", ErrorCode::kUnexpectedEnd, 3, ""}, ErrorCase{"(a = 1", ErrorCode::kUnexpectedEnd, 6, ""},
        ErrorCase{"a = 1)", ErrorCode::kSyntax, 5, ")"}, ErrorCase{"a = = 1", ErrorCode::kSyntax, 4, "="},
        ErrorCase{"a = 1 b", ErrorCode::kSyntax, 6, "b"}, ErrorCase{"a = 1 = 2", ErrorCode::kSyntax, 6, "="},
        ErrorCase{"a AND", ErrorCode::kUnexpectedEnd, 5, ""}, ErrorCase{"a NOT 1", ErrorCode::kSyntax, 2, "NOT"},
        ErrorCase{"a IS 1", ErrorCode::kSyntax, 5, "1"}, ErrorCase{"a IS NOT 1", ErrorCode::kSyntax, 9, "1"},
        ErrorCase{"a IN 1", ErrorCode::kSyntax, 5, "1"}, ErrorCase{"a IN ()", ErrorCode::kSyntax, 6, ")"},
        ErrorCase{"a IN (1 2)", ErrorCode::kSyntax, 8, "2"},
        ErrorCase{"a BETWEEN 1 OR 2", ErrorCode::kSyntax, 12, "OR"},
        ErrorCase{"a = NULL", ErrorCode::kSyntax, 4, "NULL"}, ErrorCase{"AND = 1", ErrorCode::kSyntax, 0, "AND"},
        ErrorCase{"a LIKE b", ErrorCode::kTypeMismatch, 7, "b"},
        ErrorCase{"a LIKE 5", ErrorCode::kTypeMismatch, 7, "5"}, ErrorCase{"a LIKE", ErrorCode::kUnexpectedEnd, 6, ""},
        ErrorCase{"a LIKE 'x' ESCAPE 'ab'", ErrorCode::kInvalidEscape, 18, "'ab'"},
        ErrorCase{"a LIKE 'x' ESCAPE ''", ErrorCode::kInvalidEscape, 18, "''"},
        ErrorCase{"a LIKE 'x' ESCAPE 1", ErrorCode::kInvalidEscape, 18, "1"},
        ErrorCase{"a LIKE 'x!' ESCAPE '!'", ErrorCode::kInvalidEscape, 7, "'x!'"},
        ErrorCase{"q.x = 1", ErrorCode::kUnknownSection, 0, "q"},
        ErrorCase{"headers.priority = 1", ErrorCode::kUnknownSection, 0, "headers"},
        ErrorCase{"p.foo = 1", ErrorCode::kUnknownField, 2, "foo"},
        ErrorCase{"h.message_id = 1", ErrorCode::kUnknownField, 2, "message_id"},
        ErrorCase{"h.delivery-count = 1", ErrorCode::kUnknownField, 2, "delivery"},
        ErrorCase{"p. = 1", ErrorCode::kSyntax, 3, "="}, ErrorCase{"a.tags[x] = 1", ErrorCode::kSyntax, 6, "[x]"},
        ErrorCase{"a.tags. = 1", ErrorCode::kSyntax, 8, "="},
        ErrorCase{"FOO(1) = 1", ErrorCode::kUnknownFunction, 0, "FOO"},
        ErrorCase{"UTC(1) > 0", ErrorCode::kArgumentCount, 0, "UTC"},
        ErrorCase{"LOWER() = 'a'", ErrorCode::kArgumentCount, 0, "LOWER"},
        ErrorCase{"LEFT('a') = 'a'", ErrorCode::kArgumentCount, 0, "LEFT"},
        ErrorCase{"SUBSTRING('a', 1, 2, 3) = 'a'", ErrorCode::kArgumentCount, 0, "SUBSTRING"},
        ErrorCase{"LOWER(a = 'x'", ErrorCode::kUnexpectedEnd, 13, ""},
        ErrorCase{"LOWER(5) = 'a'", ErrorCode::kTypeMismatch, 6, "5"},
        ErrorCase{"LEFT(a, 'x') = 'a'", ErrorCode::kTypeMismatch, 8, "'x'"},
        ErrorCase{"LEFT(a, 1.5) = 'a'", ErrorCode::kTypeMismatch, 8, "1.5"},
        ErrorCase{"SUBSTRING(a, 1, TRUE) = 'a'", ErrorCode::kTypeMismatch, 16, "TRUE"},
        ErrorCase{"DATE(5) > 0", ErrorCode::kTypeMismatch, 5, "5"},
        ErrorCase{"DATE('2024-02-30') > 0", ErrorCode::kInvalidDate, 5, "'2024-02-30'"},
        ErrorCase{"DATE('yesterday') > 0", ErrorCode::kInvalidDate, 5, "'yesterday'"},
        ErrorCase{"EXISTS 1", ErrorCode::kNotAField, 7, "1"},
        ErrorCase{"EXISTS LOWER(a)", ErrorCode::kNotAField, 7, "LOWER"},
        ErrorCase{"1", ErrorCode::kTypeMismatch, 0, "1"}, ErrorCase{"'a'", ErrorCode::kTypeMismatch, 0, "'a'"},
        ErrorCase{"a + 1", ErrorCode::kTypeMismatch, 2, "+"},
        ErrorCase{"a = 1 AND 5", ErrorCode::kTypeMismatch, 10, "5"},
        ErrorCase{"NOT 'x'", ErrorCode::kTypeMismatch, 4, "'x'"},
        ErrorCase{"(a - b) OR c", ErrorCode::kTypeMismatch, 3, "-"},
        ErrorCase{"'a' * 2 = 1", ErrorCode::kTypeMismatch, 0, "'a'"},
        ErrorCase{"TRUE + 1 = 2", ErrorCode::kTypeMismatch, 0, "TRUE"},
        ErrorCase{"'a' + 1 = 'a1'", ErrorCode::kTypeMismatch, 4, "+"},
        ErrorCase{"-'a' = 1", ErrorCode::kTypeMismatch, 1, "'a'"},
        ErrorCase{"0x01 + 1 = 2", ErrorCode::kTypeMismatch, 0, "0x01"},
        ErrorCase{"5 LIKE 'a'", ErrorCode::kTypeMismatch, 0, "5"},
        ErrorCase{"a = 18446744073709551616", ErrorCode::kInvalidNumber, 4, "18446744073709551616"},
        ErrorCase{"a = 1e400", ErrorCode::kInvalidNumber, 4, "1e400"}));

TEST(ParserTest, JmsErrors) {
  CompileOptions jms;
  jms.dialect = Dialect::kJms;
  Error e = ParseError("a = 019", jms);
  EXPECT_EQ(e.code, ErrorCode::kInvalidNumber);
  EXPECT_EQ(e.position, 4u);
  e = ParseError("a = 1e999f", jms);
  EXPECT_EQ(e.code, ErrorCode::kInvalidNumber);
  e = ParseError("a = 1e39f", jms);  // beyond float
  EXPECT_EQ(e.code, ErrorCode::kInvalidNumber);
  e = ParseError("JMSPriority.x = 1", jms);
  EXPECT_EQ(e.code, ErrorCode::kUnknownSection);
  // A quoted token is named once, not in a second pair of quotes.
  e = ParseError("a LIKE 'x!' ESCAPE '!'", jms);
  EXPECT_NE(e.message.find("character '!'"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("''"), std::string::npos) << e.message;
}

TEST(ParserTest, AnEmptyJmsSelectorIsNoSelector) {
  // Jakarta Messaging 3.1, section 3.8.1: an empty selector means no selector; every message matches.
  CompileOptions jms;
  jms.dialect = Dialect::kJms;
  testing::SimpleSource source;
  EvalContext context;
  for (const char* text : {"", "   ", " \t\r\n "}) {
    Selector s = Selector::Compile(text, jms);
    ASSERT_TRUE(s.ok()) << "'" << text << "': " << s.error().ToString();
    EXPECT_EQ(s.Evaluate(source, context), Truth::kTrue);
    EXPECT_TRUE(s.fields().empty());
    EXPECT_NE(s.Explain().find("empty JMS selector"), std::string::npos) << s.Explain();
  }
  // A SQL filter must hold an expression (the error cases above).
  EXPECT_FALSE(Selector::Compile("").ok());
  EXPECT_FALSE(Selector::Compile("  ").ok());
}

TEST(ParserTest, TinyNumbersUnderflowToZero) { EXPECT_EQ(Parse("a = 1e-400"), "(= application_properties.a 0)"); }

TEST(ParserLimitsTest, LengthLimit) {
  CompileOptions options;
  options.limits.max_length = 10;
  Error e = ParseError("a = 'abcdefghij'", options);
  EXPECT_EQ(e.code, ErrorCode::kTooLong);
  EXPECT_EQ(e.position, 10u);
  Ast ast;
  EXPECT_TRUE(ParseExpression("a = 'abcd'", options, &ast, &e));
}

TEST(ParserLimitsTest, InListLimit) {
  CompileOptions options;
  options.limits.max_in_list = 3;
  Ast ast;
  Error e;
  EXPECT_TRUE(ParseExpression("a IN (1, 2, 3)", options, &ast, &e));
  e = ParseError("a IN (1, 2, 3, 4)", options);
  EXPECT_EQ(e.code, ErrorCode::kTooManyInMembers);
  EXPECT_EQ(e.position, 15u);
  EXPECT_EQ(e.token, "4");
}

TEST(ParserLimitsTest, LikePatternLimit) {
  CompileOptions options;
  options.limits.max_like_pattern = 4;
  Ast ast;
  Error e;
  EXPECT_TRUE(ParseExpression("a LIKE 'ab%d'", options, &ast, &e));
  e = ParseError("a LIKE 'abcde'", options);
  EXPECT_EQ(e.code, ErrorCode::kLikePatternTooLong);
  EXPECT_EQ(e.position, 7u);
}

TEST(ParserLimitsTest, UnderscoreSegmentBeyondTheLinearSearchIsRefused) {
  CompileOptions options;
  options.limits.max_length = 1 << 20;
  options.limits.max_like_pattern = 1 << 20;
  std::string text = "a LIKE '" + std::string(200000, '_') + "'";
  Error e = ParseError(text, options);
  EXPECT_EQ(e.code, ErrorCode::kInvalidPattern) << e.ToString();
  EXPECT_EQ(e.position, 7u);
  Selector s = Selector::Compile(text, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidPattern);
  // Within the default pattern limit every pattern compiles.
  Ast ast;
  EXPECT_TRUE(ParseExpression("a LIKE '" + std::string(1000, '_') + "'", {}, &ast, &e)) << e.ToString();
}

TEST(ParserLimitsTest, DepthLimitOnParentheses) {
  CompileOptions options;
  options.limits.max_depth = 5;
  Ast ast;
  Error e;
  EXPECT_TRUE(ParseExpression("((((a))))", options, &ast, &e)) << e.ToString();
  e = ParseError("(((((a)))))", options);
  EXPECT_EQ(e.code, ErrorCode::kTooDeep);
  EXPECT_EQ(e.position, 5u);
}

TEST(ParserLimitsTest, DepthLimitOnOperatorChains) {
  CompileOptions options;
  options.limits.max_depth = 8;
  std::string sum = "a";
  for (int i = 0; i < 10; ++i) sum += " + 1";
  Error e = ParseError(sum + " = 1", options);
  EXPECT_EQ(e.code, ErrorCode::kTooDeep);
  // AND / OR chains are flat, so any length is fine.
  std::string chain = "a = 1";
  for (int i = 0; i < 500; ++i) chain += " OR a = " + std::to_string(i);
  options.limits.max_length = chain.size();
  Ast ast;
  EXPECT_TRUE(ParseExpression(chain, options, &ast, &e)) << e.ToString();
}

std::string Nested(const std::string& open, const std::string& middle, const std::string& close, int n) {
  std::string s;
  s.reserve((open.size() + close.size()) * n + middle.size());
  for (int i = 0; i < n; ++i) s += open;
  s += middle;
  for (int i = 0; i < n; ++i) s += close;
  return s;
}

TEST(ParserLimitsTest, HundredThousandDeepIsRefusedWithoutStackOverflow) {
  CompileOptions options;
  options.limits.max_length = 1 << 30;  // let only the depth limit speak
  for (const auto& [open, middle, close] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"(", "a", ")"}, {"NOT ", "a", ""}, {"-", "a = 1", ""}, {"LOWER(", "a", ") = 'x'"}}) {
    std::string text = Nested(open, middle, close, 100000);
    Error e = ParseError(text, options);
    EXPECT_EQ(e.code, ErrorCode::kTooDeep) << open;
    EXPECT_LE(e.position, 256u * open.size() + 1) << open;
    EXPECT_NE(e.message.find("256"), std::string::npos);
  }
}

TEST(ParserLimitsTest, ConfiguredDepthIsCappedAtTheSupportedMaximum) {
  CompileOptions options;
  options.limits.max_length = 1 << 30;
  options.limits.max_depth = 1u << 30;
  Error e = ParseError(Nested("(", "a", ")", 100000), options);
  EXPECT_EQ(e.code, ErrorCode::kTooDeep);
  Ast ast;
  EXPECT_TRUE(ParseExpression(Nested("(", "a", ")", 499), options, &ast, &e)) << e.ToString();
  e = ParseError(Nested("(", "a", ")", 501), options);
  EXPECT_EQ(e.code, ErrorCode::kTooDeep);
  EXPECT_NE(e.message.find("500"), std::string::npos) << e.message;
}

TEST(ParserTest, ParseExpressionAgreesWithCompile) {
  for (const char* text : {"a = 1", "a = ", "LOWER(1) = 'x'", "p.nope = 1", "a LIKE 'x' ESCAPE 'xy'"}) {
    Ast ast;
    Error e;
    bool parsed = ParseExpression(text, {}, &ast, &e);
    Selector s = Selector::Compile(text);
    EXPECT_EQ(parsed, s.ok()) << text;
    if (!parsed) {
      EXPECT_EQ(e.code, s.error().code);
      EXPECT_EQ(e.position, s.error().position);
    }
  }
}

}  // namespace
}  // namespace sift::selector
