// Tokens of the selector language: a kind and a span (byte offset + length) of the expression text.
//
// A token never copies text; the parser decodes literals (quotes, numbers) from the span when it
// needs their value. Keywords are recognised case-insensitively by the lexer.
#ifndef SIFT_SELECTOR_TOKEN_H_
#define SIFT_SELECTOR_TOKEN_H_

#include <cstdint>
#include <string_view>

namespace sift::selector {

enum class TokenKind : uint8_t {
  kEnd,
  kIdentifier,           // regular identifier
  kDelimitedIdentifier,  // [ ... ] with ]] for ]
  kInteger,              // decimal digits; JMS: also hex 0x.., octal 0.., optional L suffix
  kDecimal,              // digits '.' digits (JMS: also 5. and .5), no exponent
  kApproximate,          // with an exponent (JMS: or an f / d suffix)
  kString,               // '...' or "..." with doubled quotes
  kBinary,               // SQL dialect: 0x followed by pairs of hex digits
  kLeftParen,
  kRightParen,
  kComma,
  kDot,
  kEq,
  kNe,  // <> or !=
  kLt,
  kLe,
  kGt,
  kGe,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  // Keywords (case-insensitive).
  kAnd,
  kOr,
  kNot,
  kLike,
  kEscape,
  kIn,
  kBetween,
  kIs,
  kNull,
  kExists,
  kTrue,
  kFalse,
  kNan,
  kInf,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  uint32_t position = 0;  // byte offset in the expression
  uint32_t length = 0;    // bytes

  std::string_view text(std::string_view expression) const { return expression.substr(position, length); }
};

// How the grammar refers to a kind in messages: "'AND'", "identifier", "end of expression".
std::string_view TokenKindName(TokenKind kind);

inline bool IsKeyword(TokenKind kind) { return kind >= TokenKind::kAnd; }

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_TOKEN_H_
