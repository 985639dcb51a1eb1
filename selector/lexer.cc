// The table-driven lexer (see lexer.h).
#include "selector/lexer.h"

#include <array>
#include <cstring>
#include <string>

#include "base/hex.h"
#include "base/utf8.h"

namespace sift::selector {
namespace {

enum CharClass : uint8_t {
  kInvalid,
  kSpace,
  kLetter,
  kDigit,
  kUnderscore,
  kDollar,
  kQuote,
  kLeftBracket,
  kLeftParenChar,
  kRightParenChar,
  kCommaChar,
  kDotChar,
  kEqChar,
  kLtChar,
  kGtChar,
  kBang,
  kPlusChar,
  kMinusChar,
  kStarChar,
  kSlashChar,
  kPercentChar,
  kHigh,  // a byte >= 0x80: part of a UTF-8 sequence
};

constexpr std::array<uint8_t, 256> MakeClassTable() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = kInvalid;
  t[' '] = t['\t'] = t['\n'] = t['\r'] = t['\f'] = t['\v'] = kSpace;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kLetter;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  t['_'] = kUnderscore;
  t['$'] = kDollar;
  t['\''] = t['"'] = kQuote;
  t['['] = kLeftBracket;
  t['('] = kLeftParenChar;
  t[')'] = kRightParenChar;
  t[','] = kCommaChar;
  t['.'] = kDotChar;
  t['='] = kEqChar;
  t['<'] = kLtChar;
  t['>'] = kGtChar;
  t['!'] = kBang;
  t['+'] = kPlusChar;
  t['-'] = kMinusChar;
  t['*'] = kStarChar;
  t['/'] = kSlashChar;
  t['%'] = kPercentChar;
  for (int c = 0x80; c < 256; ++c) t[c] = kHigh;
  return t;
}

constexpr std::array<uint8_t, 256> kClass = MakeClassTable();

inline uint8_t ClassOf(char c) { return kClass[static_cast<unsigned char>(c)]; }

bool EqualsIgnoreCase(std::string_view a, const char* keyword) {
  size_t n = std::strlen(keyword);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = a[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != keyword[i]) return false;
  }
  return true;
}

TokenKind KeywordKind(std::string_view word) {
  struct Keyword {
    const char* text;
    TokenKind kind;
  };
  static constexpr Keyword kKeywords[] = {
      {"AND", TokenKind::kAnd},         {"OR", TokenKind::kOr},         {"NOT", TokenKind::kNot},
      {"LIKE", TokenKind::kLike},       {"ESCAPE", TokenKind::kEscape}, {"IN", TokenKind::kIn},
      {"BETWEEN", TokenKind::kBetween}, {"IS", TokenKind::kIs},         {"NULL", TokenKind::kNull},
      {"EXISTS", TokenKind::kExists},   {"TRUE", TokenKind::kTrue},     {"FALSE", TokenKind::kFalse},
      {"NAN", TokenKind::kNan},         {"INF", TokenKind::kInf},
  };
  if (word.size() < 2 || word.size() > 7) return TokenKind::kIdentifier;
  for (const Keyword& k : kKeywords) {
    if (EqualsIgnoreCase(word, k.text)) return k.kind;
  }
  return TokenKind::kIdentifier;
}

}  // namespace

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEnd: return "end of expression";
    case TokenKind::kIdentifier: return "identifier";
    case TokenKind::kDelimitedIdentifier: return "delimited identifier";
    case TokenKind::kInteger: return "integer";
    case TokenKind::kDecimal: return "decimal";
    case TokenKind::kApproximate: return "approximate number";
    case TokenKind::kString: return "string";
    case TokenKind::kBinary: return "binary constant";
    case TokenKind::kLeftParen: return "'('";
    case TokenKind::kRightParen: return "')'";
    case TokenKind::kComma: return "','";
    case TokenKind::kDot: return "'.'";
    case TokenKind::kEq: return "'='";
    case TokenKind::kNe: return "'<>'";
    case TokenKind::kLt: return "'<'";
    case TokenKind::kLe: return "'<='";
    case TokenKind::kGt: return "'>'";
    case TokenKind::kGe: return "'>='";
    case TokenKind::kPlus: return "'+'";
    case TokenKind::kMinus: return "'-'";
    case TokenKind::kStar: return "'*'";
    case TokenKind::kSlash: return "'/'";
    case TokenKind::kPercent: return "'%'";
    case TokenKind::kAnd: return "AND";
    case TokenKind::kOr: return "OR";
    case TokenKind::kNot: return "NOT";
    case TokenKind::kLike: return "LIKE";
    case TokenKind::kEscape: return "ESCAPE";
    case TokenKind::kIn: return "IN";
    case TokenKind::kBetween: return "BETWEEN";
    case TokenKind::kIs: return "IS";
    case TokenKind::kNull: return "NULL";
    case TokenKind::kExists: return "EXISTS";
    case TokenKind::kTrue: return "TRUE";
    case TokenKind::kFalse: return "FALSE";
    case TokenKind::kNan: return "NAN";
    case TokenKind::kInf: return "INF";
  }
  return "?";
}

bool Lexer::Fail(ErrorCode code, uint32_t position, uint32_t length, std::string message, Error* error) {
  error->code = code;
  error->position = position;
  error->token = std::string(text_.substr(position, length));
  error->message = std::move(message);
  return false;
}

bool Lexer::Next(Token* token, Error* error) {
  const uint32_t size = static_cast<uint32_t>(text_.size());
  const char* s = text_.data();
  while (pos_ < size && ClassOf(s[pos_]) == kSpace) ++pos_;
  token->position = pos_;
  if (pos_ >= size) {
    token->kind = TokenKind::kEnd;
    token->length = 0;
    return true;
  }
  const uint32_t start = pos_;
  auto single = [&](TokenKind kind) {
    token->kind = kind;
    token->length = 1;
    ++pos_;
    return true;
  };
  const bool jms = dialect_ == Dialect::kJms;
  switch (ClassOf(s[pos_])) {
    case kSpace:  // unreachable: skipped above
    case kInvalid:
      return Fail(ErrorCode::kInvalidCharacter, start, 1, "unexpected character '" + std::string(1, s[start]) + "'",
                  error);
    case kHigh: {
      // A non-ASCII letter may start an identifier; anything else is an error.
      if (base::Utf8SequenceLength(text_, pos_) == 0) {
        return Fail(ErrorCode::kInvalidCharacter, start, 1, "invalid UTF-8 byte", error);
      }
      [[fallthrough]];
    }
    case kUnderscore:
    case kDollar:
    case kLetter: {
      uint8_t first = ClassOf(s[pos_]);
      if (!jms && (first == kUnderscore || first == kDollar)) {
        return Fail(ErrorCode::kInvalidCharacter, start, 1,
                    std::string("an identifier must start with a letter, not '") + s[start] +
                        "' (that form is JMS selector syntax)",
                    error);
      }
      while (pos_ < size) {
        uint8_t c = ClassOf(s[pos_]);
        if (c == kLetter || c == kDigit || c == kUnderscore || (jms && c == kDollar)) {
          ++pos_;
        } else if (c == kHigh) {
          size_t n = base::Utf8SequenceLength(text_, pos_);
          if (n == 0) return Fail(ErrorCode::kInvalidCharacter, pos_, 1, "invalid UTF-8 byte", error);
          pos_ += static_cast<uint32_t>(n);
        } else {
          break;
        }
      }
      token->length = pos_ - start;
      token->kind = KeywordKind(text_.substr(start, token->length));
      return true;
    }
    case kDigit: return LexNumber(start, token, error);
    case kQuote: {
      const char quote = s[pos_];
      // JMS dialect: "..." names a property (a quoted identifier, as ActiveMQ, Artemis and Qpid
      // read it: `"a.b" = 1` tests the property named a.b); a string is '...' there.
      const bool identifier = quote == '"' && dialect_ == Dialect::kJms;
      ++pos_;
      while (true) {
        if (pos_ >= size) {
          if (identifier) {
            return Fail(ErrorCode::kUnterminatedIdentifier, start, size - start,
                        "quoted identifier starting here has no closing \"", error);
          }
          return Fail(ErrorCode::kUnterminatedString, start, size - start,
                      std::string("string starting here has no closing ") + quote, error);
        }
        char c = s[pos_];
        if (c == quote) {
          if (pos_ + 1 < size && s[pos_ + 1] == quote) {
            pos_ += 2;  // a doubled quote stands for itself
            continue;
          }
          ++pos_;
          break;
        }
        if (static_cast<unsigned char>(c) >= 0x80) {
          size_t n = base::Utf8SequenceLength(text_, pos_);
          if (n == 0) return Fail(ErrorCode::kInvalidCharacter, pos_, 1, "invalid UTF-8 byte in string", error);
          pos_ += static_cast<uint32_t>(n);
        } else {
          ++pos_;
        }
      }
      token->kind = identifier ? TokenKind::kDelimitedIdentifier : TokenKind::kString;
      token->length = pos_ - start;
      if (identifier && token->length == 2) {
        return Fail(ErrorCode::kSyntax, start, 2, "empty quoted identifier", error);
      }
      return true;
    }
    case kLeftBracket: {
      ++pos_;
      while (true) {
        if (pos_ >= size) {
          return Fail(ErrorCode::kUnterminatedIdentifier, start, size - start,
                      "delimited identifier starting here has no closing ']'", error);
        }
        char c = s[pos_];
        if (c == ']') {
          if (pos_ + 1 < size && s[pos_ + 1] == ']') {
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        if (static_cast<unsigned char>(c) >= 0x80) {
          size_t n = base::Utf8SequenceLength(text_, pos_);
          if (n == 0) {
            return Fail(ErrorCode::kInvalidCharacter, pos_, 1, "invalid UTF-8 byte in identifier", error);
          }
          pos_ += static_cast<uint32_t>(n);
        } else {
          ++pos_;
        }
      }
      token->kind = TokenKind::kDelimitedIdentifier;
      token->length = pos_ - start;
      if (token->length == 2) {
        return Fail(ErrorCode::kSyntax, start, 2, "empty delimited identifier", error);
      }
      return true;
    }
    case kLeftParenChar: return single(TokenKind::kLeftParen);
    case kRightParenChar: return single(TokenKind::kRightParen);
    case kCommaChar: return single(TokenKind::kComma);
    case kDotChar:
      if (pos_ + 1 < size && ClassOf(s[pos_ + 1]) == kDigit) {
        if (jms) return LexNumber(start, token, error);
        return Fail(ErrorCode::kInvalidNumber, start, 2, "a number must start with a digit (write 0.5, not .5)", error);
      }
      return single(TokenKind::kDot);
    case kEqChar: return single(TokenKind::kEq);
    case kLtChar:
      if (pos_ + 1 < size && s[pos_ + 1] == '>') {
        pos_ += 2;
        token->kind = TokenKind::kNe;
        token->length = 2;
        return true;
      }
      if (pos_ + 1 < size && s[pos_ + 1] == '=') {
        pos_ += 2;
        token->kind = TokenKind::kLe;
        token->length = 2;
        return true;
      }
      return single(TokenKind::kLt);
    case kGtChar:
      if (pos_ + 1 < size && s[pos_ + 1] == '=') {
        pos_ += 2;
        token->kind = TokenKind::kGe;
        token->length = 2;
        return true;
      }
      return single(TokenKind::kGt);
    case kBang:
      if (pos_ + 1 < size && s[pos_ + 1] == '=') {
        pos_ += 2;
        token->kind = TokenKind::kNe;
        token->length = 2;
        return true;
      }
      return Fail(ErrorCode::kInvalidCharacter, start, 1, "'!' must be followed by '=' (write != or <>)", error);
    case kPlusChar: return single(TokenKind::kPlus);
    case kMinusChar: return single(TokenKind::kMinus);
    case kStarChar: return single(TokenKind::kStar);
    case kSlashChar: return single(TokenKind::kSlash);
    case kPercentChar: return single(TokenKind::kPercent);
  }
  return Fail(ErrorCode::kInvalidCharacter, start, 1, "unexpected character", error);
}

bool Lexer::LexNumber(uint32_t start, Token* token, Error* error) {
  const uint32_t size = static_cast<uint32_t>(text_.size());
  const char* s = text_.data();
  const bool jms = dialect_ == Dialect::kJms;
  // A run of digits (`is_digit`); in the JMS dialect, as in Java, underscores may separate digits
  // ("1_000", "0x8000_0000"), but not start or end the run: a trailing '_' is left for finish() to
  // report as a malformed number.
  auto run = [&](auto is_digit) {
    uint32_t n = 0;
    while (pos_ < size) {
      if (is_digit(s[pos_])) {
        ++pos_;
        ++n;
        continue;
      }
      if (!jms || n == 0 || s[pos_] != '_') break;
      uint32_t k = pos_;
      while (k < size && s[k] == '_') ++k;
      if (k >= size || !is_digit(s[k])) break;
      pos_ = k;
    }
    return n;
  };
  auto digits = [&] { return run([](char c) { return c >= '0' && c <= '9'; }); };
  // An exponent: `mark` ('e' or 'p', either case), an optional sign, decimal digits. *read tells
  // whether there was one; false (and the error set) when the mark has no digits after it.
  auto exponent = [&](char mark, bool* read) {
    *read = false;
    if (pos_ >= size || (s[pos_] | 0x20) != mark) return true;
    uint32_t e = pos_ + 1;
    if (e < size && (s[e] == '+' || s[e] == '-')) ++e;
    if (e >= size || ClassOf(s[e]) != kDigit) {
      return Fail(ErrorCode::kInvalidNumber, start, e - start, "an exponent needs digits", error);
    }
    pos_ = e;
    digits();
    *read = true;
    return true;
  };
  auto finish = [&](TokenKind kind) {
    // A number glued to a letter, digit or '_' ("5abc", "0x1G") is one malformed token, not two.
    if (pos_ < size) {
      uint8_t c = ClassOf(s[pos_]);
      if (c == kLetter || c == kUnderscore || c == kDollar || c == kHigh || c == kDigit ||
          (c == kDotChar && kind != TokenKind::kInteger)) {
        uint32_t end = pos_;
        while (end < size) {
          uint8_t e = ClassOf(s[end]);
          if (e != kLetter && e != kDigit && e != kUnderscore && e != kDollar && e != kDotChar) break;
          ++end;
        }
        return Fail(ErrorCode::kInvalidNumber, start, end - start,
                    "malformed number '" + std::string(text_.substr(start, end - start)) + "'", error);
      }
    }
    token->kind = kind;
    token->length = pos_ - start;
    return true;
  };

  // 0x...: a binary constant (SQL) or a hexadecimal integer or floating-point literal (JMS).
  if (s[pos_] == '0' && pos_ + 1 < size && (s[pos_ + 1] == 'x' || s[pos_ + 1] == 'X')) {
    pos_ += 2;
    if (jms) {
      // Java: 0x1F, 0x1FL, and hexadecimal floating point 0x1.8p3 (a 'p' exponent is required).
      uint32_t n = run(base::IsHexDigit);
      bool point = false;
      if (pos_ < size && s[pos_] == '.') {
        ++pos_;
        n += run(base::IsHexDigit);
        point = true;
      }
      if (n == 0)
        return Fail(ErrorCode::kInvalidNumber, start, pos_ - start, "'0x' must be followed by hex digits", error);
      bool has_exponent = false;
      if (!exponent('p', &has_exponent)) return false;
      if (has_exponent) {
        if (pos_ < size && (s[pos_] == 'f' || s[pos_] == 'F' || s[pos_] == 'd' || s[pos_] == 'D')) ++pos_;
        return finish(TokenKind::kApproximate);
      }
      if (point) {
        return Fail(ErrorCode::kInvalidNumber, start, pos_ - start,
                    "a hexadecimal floating-point literal needs a 'p' exponent", error);
      }
      if (pos_ < size && (s[pos_] == 'l' || s[pos_] == 'L')) ++pos_;
      return finish(TokenKind::kInteger);
    }
    uint32_t n = 0;
    while (pos_ < size && base::IsHexDigit(s[pos_])) {
      ++pos_;
      ++n;
    }
    if (n == 0 || n % 2 != 0) {
      uint32_t end = pos_;
      while (end < size && (ClassOf(s[end]) == kLetter || ClassOf(s[end]) == kDigit)) ++end;
      return Fail(ErrorCode::kInvalidBinary, start, end - start,
                  "a binary constant is '0x' followed by pairs of hex digits", error);
    }
    return finish(TokenKind::kBinary);
  }

  // 0b...: a binary integer (JMS, as in Java).
  if (jms && s[pos_] == '0' && pos_ + 1 < size && (s[pos_ + 1] == 'b' || s[pos_ + 1] == 'B')) {
    pos_ += 2;
    if (run([](char c) { return c == '0' || c == '1'; }) == 0) {
      return Fail(ErrorCode::kInvalidNumber, start, pos_ - start, "'0b' must be followed by binary digits", error);
    }
    if (pos_ < size && (s[pos_] == 'l' || s[pos_] == 'L')) ++pos_;
    return finish(TokenKind::kInteger);
  }

  TokenKind kind = TokenKind::kInteger;
  digits();
  if (pos_ < size && s[pos_] == '.') {
    bool next_is_digit = pos_ + 1 < size && ClassOf(s[pos_ + 1]) == kDigit;
    if (next_is_digit || jms) {
      ++pos_;
      digits();
      kind = TokenKind::kDecimal;
    } else {
      return Fail(ErrorCode::kInvalidNumber, start, pos_ + 1 - start,
                  "a digit must follow the decimal point (write 5.0, not 5.)", error);
    }
  }
  bool has_exponent = false;
  if (!exponent('e', &has_exponent)) return false;
  if (has_exponent) kind = TokenKind::kApproximate;
  if (jms && pos_ < size) {
    char c = s[pos_];
    if (c == 'f' || c == 'F' || c == 'd' || c == 'D') {
      ++pos_;
      kind = TokenKind::kApproximate;
    } else if ((c == 'l' || c == 'L') && kind == TokenKind::kInteger) {
      ++pos_;
    }
  }
  return finish(kind);
}

}  // namespace sift::selector
