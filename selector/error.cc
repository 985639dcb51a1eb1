// Error names and the caret formatter (see error.h).
#include "selector/error.h"

#include <string>

#include "base/utf8.h"

namespace sift::selector {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNone: return "ok";
    case ErrorCode::kInvalidCharacter: return "invalid-character";
    case ErrorCode::kUnterminatedString: return "unterminated-string";
    case ErrorCode::kUnterminatedIdentifier: return "unterminated-identifier";
    case ErrorCode::kInvalidNumber: return "invalid-number";
    case ErrorCode::kInvalidBinary: return "invalid-binary";
    case ErrorCode::kSyntax: return "syntax";
    case ErrorCode::kUnexpectedEnd: return "unexpected-end";
    case ErrorCode::kUnknownSection: return "unknown-section";
    case ErrorCode::kUnknownField: return "unknown-field";
    case ErrorCode::kUnknownFunction: return "unknown-function";
    case ErrorCode::kArgumentCount: return "argument-count";
    case ErrorCode::kTypeMismatch: return "type-mismatch";
    case ErrorCode::kInvalidEscape: return "invalid-escape";
    case ErrorCode::kInvalidDate: return "invalid-date";
    case ErrorCode::kInvalidPattern: return "invalid-pattern";
    case ErrorCode::kNotAField: return "not-a-field";
    case ErrorCode::kInvalidRegexp: return "invalid-regexp";
    case ErrorCode::kTooLong: return "too-long";
    case ErrorCode::kTooDeep: return "too-deep";
    case ErrorCode::kTooManyInMembers: return "too-many-in-members";
    case ErrorCode::kLikePatternTooLong: return "like-pattern-too-long";
    case ErrorCode::kRegexpTooLarge: return "regexp-too-large";
    case ErrorCode::kInvalidPropertyFilter: return "invalid-property-filter";
  }
  return "unknown";
}

std::string Error::ToString() const {
  if (ok()) return "ok";
  std::string out(ErrorCodeName(code));
  out += " error at byte ";
  out += std::to_string(position);
  out += ": ";
  out += message;
  return out;
}

std::string Error::Format(std::string_view expression) const {
  std::string out = ToString();
  if (ok()) return out;
  size_t pos = position <= expression.size() ? position : expression.size();
  size_t line_start = expression.rfind('\n', pos == 0 ? 0 : pos - 1);
  line_start = (line_start == std::string_view::npos || pos == 0) ? 0 : line_start + 1;
  if (pos > 0 && expression[pos - 1] == '\n') line_start = pos;
  size_t line_end = expression.find('\n', pos);
  if (line_end == std::string_view::npos) line_end = expression.size();
  std::string_view line = expression.substr(line_start, line_end - line_start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  out += "\n  ";
  out += line;
  out += "\n  ";
  // One caret column per code point before the position: skip UTF-8 continuation bytes, keep tabs.
  for (size_t i = line_start; i < pos && i < line_start + line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(expression[i]);
    if (base::IsUtf8Continuation(c)) continue;
    out += c == '\t' ? '\t' : ' ';
  }
  out += '^';
  return out;
}

}  // namespace sift::selector
