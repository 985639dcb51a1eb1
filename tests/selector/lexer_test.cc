// Lexer: token kinds and spans, keywords, literal forms per dialect, lexical errors with positions.
#include "selector/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/utf8.h"

namespace sift::selector {
namespace {

struct Lexed {
  std::vector<Token> tokens;
  Error error;
  bool ok = true;
};

Lexed Lex(std::string_view text, Dialect dialect = Dialect::kSql) {
  Lexed out;
  Lexer lexer(text, dialect);
  while (true) {
    Token t;
    if (!lexer.Next(&t, &out.error)) {
      out.ok = false;
      return out;
    }
    out.tokens.push_back(t);
    if (t.kind == TokenKind::kEnd) return out;
  }
}

std::vector<TokenKind> Kinds(std::string_view text, Dialect dialect = Dialect::kSql) {
  std::vector<TokenKind> kinds;
  for (const Token& t : Lex(text, dialect).tokens) kinds.push_back(t.kind);
  return kinds;
}

TEST(LexerTest, TokensAreSpansWithBytePositions) {
  std::string_view text = "color = 'red'";
  Lexed l = Lex(text);
  ASSERT_TRUE(l.ok);
  ASSERT_EQ(l.tokens.size(), 4u);
  EXPECT_EQ(l.tokens[0].kind, TokenKind::kIdentifier);
  EXPECT_EQ(l.tokens[0].text(text), "color");
  EXPECT_EQ(l.tokens[1].position, 6u);
  EXPECT_EQ(l.tokens[2].kind, TokenKind::kString);
  EXPECT_EQ(l.tokens[2].text(text), "'red'");
  EXPECT_EQ(l.tokens[2].position, 8u);
  EXPECT_EQ(l.tokens[3].kind, TokenKind::kEnd);
  EXPECT_EQ(l.tokens[3].position, 13u);
}

TEST(LexerTest, KeywordsAreCaseInsensitive) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("and Or NOT like EsCaPe in between is null exists true false nan inf"),
            (std::vector<K>{K::kAnd, K::kOr, K::kNot, K::kLike, K::kEscape, K::kIn, K::kBetween, K::kIs, K::kNull,
                            K::kExists, K::kTrue, K::kFalse, K::kNan, K::kInf, K::kEnd}));
  EXPECT_EQ(Kinds("andx notes"), (std::vector<K>{K::kIdentifier, K::kIdentifier, K::kEnd}));
}

TEST(LexerTest, Operators) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("= <> != < <= > >= + - * / % ( ) , ."),
            (std::vector<K>{K::kEq, K::kNe, K::kNe, K::kLt, K::kLe, K::kGt, K::kGe, K::kPlus, K::kMinus, K::kStar,
                            K::kSlash, K::kPercent, K::kLeftParen, K::kRightParen, K::kComma, K::kDot, K::kEnd}));
  EXPECT_EQ(Kinds("a<>b"), (std::vector<K>{K::kIdentifier, K::kNe, K::kIdentifier, K::kEnd}));
}

TEST(LexerTest, SqlNumbers) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("42 4.2 4.2E3 4e-3 0x0A1b"),
            (std::vector<K>{K::kInteger, K::kDecimal, K::kApproximate, K::kApproximate, K::kBinary, K::kEnd}));
}

TEST(LexerTest, StringsWithDoubledQuotesAndBothQuoteKinds) {
  std::string_view text = "'it''s' \"say \"\"hi\"\"\" 'é'";
  Lexed l = Lex(text);
  ASSERT_TRUE(l.ok);
  EXPECT_EQ(l.tokens[0].text(text), "'it''s'");
  EXPECT_EQ(l.tokens[1].text(text), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(l.tokens[2].kind, TokenKind::kString);
}

TEST(LexerTest, DelimitedIdentifiers) {
  std::string_view text = "[x-opt-foo] [a]]b]";
  Lexed l = Lex(text);
  ASSERT_TRUE(l.ok);
  EXPECT_EQ(l.tokens[0].kind, TokenKind::kDelimitedIdentifier);
  EXPECT_EQ(l.tokens[1].text(text), "[a]]b]");
}

TEST(LexerTest, JmsNumbersAndIdentifiers) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("0x1F 017 5L 5. .5 5E2 1.5f 2d $a _b", Dialect::kJms),
            (std::vector<K>{K::kInteger, K::kInteger, K::kInteger, K::kDecimal, K::kDecimal, K::kApproximate,
                            K::kApproximate, K::kApproximate, K::kIdentifier, K::kIdentifier, K::kEnd}));
}

struct ErrorCase {
  const char* text;
  Dialect dialect;
  ErrorCode code;
  size_t position;
};

class LexerErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LexerErrorTest, ReportsCodeAndPosition) {
  const ErrorCase& c = GetParam();
  Lexed l = Lex(c.text, c.dialect);
  ASSERT_FALSE(l.ok) << c.text;
  EXPECT_EQ(l.error.code, c.code) << c.text << ": " << l.error.ToString();
  EXPECT_EQ(l.error.position, c.position) << c.text << ": " << l.error.ToString();
  EXPECT_FALSE(l.error.message.empty());
}

INSTANTIATE_TEST_SUITE_P(All, LexerErrorTest,
                         ::testing::Values(ErrorCase{"a = #", Dialect::kSql, ErrorCode::kInvalidCharacter, 4},
                                           ErrorCase{"a ! b", Dialect::kSql, ErrorCode::kInvalidCharacter, 2},
                                           ErrorCase{"a = 'abc", Dialect::kSql, ErrorCode::kUnterminatedString, 4},
                                           ErrorCase{"a = \"abc'", Dialect::kSql, ErrorCode::kUnterminatedString, 4},
                                           ErrorCase{"[abc = 1", Dialect::kSql, ErrorCode::kUnterminatedIdentifier, 0},
                                           ErrorCase{"a = 5abc", Dialect::kSql, ErrorCode::kInvalidNumber, 4},
                                           ErrorCase{"a = 1.2.3", Dialect::kSql, ErrorCode::kInvalidNumber, 4},
                                           ErrorCase{"a = 1e", Dialect::kSql, ErrorCode::kInvalidNumber, 4},
                                           ErrorCase{"a = 5.", Dialect::kSql, ErrorCode::kInvalidNumber, 4},
                                           ErrorCase{"a = .5", Dialect::kSql, ErrorCode::kInvalidNumber, 4},
                                           ErrorCase{"a = 0x", Dialect::kSql, ErrorCode::kInvalidBinary, 4},
                                           ErrorCase{"a = 0xABC", Dialect::kSql, ErrorCode::kInvalidBinary, 4},
                                           ErrorCase{"a = 0xZZ", Dialect::kSql, ErrorCode::kInvalidBinary, 4},
                                           ErrorCase{"a = 0x", Dialect::kJms, ErrorCode::kInvalidNumber, 4},
                                           ErrorCase{"_a = 1", Dialect::kSql, ErrorCode::kInvalidCharacter, 0},
                                           ErrorCase{"$a = 1", Dialect::kSql, ErrorCode::kInvalidCharacter, 0},
                                           ErrorCase{"a = [] ", Dialect::kSql, ErrorCode::kSyntax, 4},
                                           ErrorCase{"a = '\xff'", Dialect::kSql, ErrorCode::kInvalidCharacter, 5},
                                           ErrorCase{"a\xc3 = 1", Dialect::kSql, ErrorCode::kInvalidCharacter, 1},
                                           ErrorCase{"a = \xe2\x82", Dialect::kSql, ErrorCode::kInvalidCharacter, 4}));

TEST(LexerTest, Utf8SequenceLengthRejectsOverlongAndSurrogates) {
  auto len = [](std::string_view s) { return base::Utf8SequenceLength(s, 0); };
  EXPECT_EQ(len("a"), 1u);
  EXPECT_EQ(len("\xc3\xa9"), 2u);
  EXPECT_EQ(len("\xe2\x82\xac"), 3u);
  EXPECT_EQ(len("\xf0\x9f\x98\x80"), 4u);
  EXPECT_EQ(len("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(len("\xe0\x80\xaf"), 0u);      // overlong
  EXPECT_EQ(len("\xed\xa0\x80"), 0u);      // surrogate
  EXPECT_EQ(len("\xf4\x90\x80\x80"), 0u);  // beyond U+10FFFF
  EXPECT_EQ(len("\x80"), 0u);
}

}  // namespace
}  // namespace sift::selector
