// What went wrong in a selector, and where.
//
// Every compile-time failure of the selector language (lexing, parsing, name resolution, semantic
// checks, limits, property filters) is reported as one Error: a stable code, a human message, the byte
// offset into the expression text where the problem starts, and the offending token as written. Error
// is a plain value type: copying it copies its strings; it holds no view into the expression.
#ifndef SIFT_SELECTOR_ERROR_H_
#define SIFT_SELECTOR_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::selector {

enum class ErrorCode : uint8_t {
  kNone = 0,
  // Lexical errors.
  kInvalidCharacter,        // a byte that starts no token (e.g. '#', '{', a stray '!')
  kUnterminatedString,      // a quote without its closing quote
  kUnterminatedIdentifier,  // '[' without its closing ']'
  kInvalidNumber,           // a malformed or out-of-range numeric literal
  kInvalidBinary,           // '0x' not followed by pairs of hex digits (SQL dialect)
  // Syntax errors.
  kSyntax,         // a token where the grammar does not allow it
  kUnexpectedEnd,  // the expression ends in the middle of a construct
  // Name resolution.
  kUnknownSection,   // `x.field` where x is not a section qualifier
  kUnknownField,     // a header / properties field the AMQP spec does not define
  kUnknownFunction,  // `f(...)` where f is not a function of the language
  kArgumentCount,    // a function called with the wrong number of arguments
  // Semantic checks: a construct that is wrong for every message.
  kTypeMismatch,    // a constant of a type the operator can never accept (LIKE 5, LOWER(1), 'a' * 2)
  kInvalidEscape,   // an ESCAPE that is not a one-character string, or a pattern ending in it
  kInvalidDate,     // DATE('...') of a constant that is not an ISO 8601 date-time
  kInvalidPattern,  // a LIKE pattern with a '_' segment longer than 4,096 characters
  kNotAField,       // EXISTS applied to something that is not a field reference
  kInvalidRegexp,   // a REGEXP_LIKE pattern re2 does not accept, or an unknown flag
  // Limits (selector.h, Limits).
  kTooLong,             // expression text longer than max_length
  kTooDeep,             // nesting deeper than max_depth
  kTooManyInMembers,    // an IN list longer than max_in_list
  kLikePatternTooLong,  // a LIKE pattern longer than max_like_pattern
  kRegexpTooLarge,      // a REGEXP_LIKE pattern that needs more memory than max_regexp_memory
  // Property filters (filter expressions section 4.1).
  kInvalidPropertyFilter,  // a bad modifier (`&x...`), an unknown properties field, a bad reference type
};

// A short stable name for a code ("syntax", "too-deep", ...), used in messages and test files.
std::string_view ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kNone;
  std::string message;  // one sentence saying what is wrong, without the position
  size_t position = 0;  // byte offset into the expression text where the problem starts
  std::string token;    // the offending token as written (may be empty, e.g. at the end of the text)

  bool ok() const { return code == ErrorCode::kNone; }

  // "syntax error at byte 7: expected an expression after 'AND'" (one line).
  std::string ToString() const;

  // ToString(), then the line of `expression` holding `position`, then a caret line pointing at it:
  //
  //   syntax error at byte 10: expected ')' but found end of expression
  //     (a = 1 AND
  //               ^
  //
  // The caret is placed by code points (tabs kept), so it lines up under non-ASCII text too.
  std::string Format(std::string_view expression) const;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_ERROR_H_
