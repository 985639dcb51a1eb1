// Formatting of DecodeError reasons (decode_error.h). Only called off the hot path.
#include "amqp/decode_error.h"

#include <fmt/format.h>

#include "amqp/type_codes.h"

namespace sift::amqp {

std::string DecodeError::Reason() const {
  const std::string_view name = FormatCodeName(format_code);
  const char* w = what != nullptr ? what : "value";
  switch (code) {
    case DecodeErrorCode::kOk: return "ok";
    case DecodeErrorCode::kTruncated: return fmt::format("{} needs {} bytes, only {} left", w, a, b);
    case DecodeErrorCode::kLengthExceeds: return fmt::format("{} {} {} exceeds the {} bytes left", name, w, a, b);
    case DecodeErrorCode::kInvalidFormatCode:
      return fmt::format("0x{:02x} is not an AMQP 1.0 format code", format_code);
    case DecodeErrorCode::kCountExceedsSize: return fmt::format("{} count {} does not fit its size {}", name, a, b);
    case DecodeErrorCode::kSizeMismatch:
      return fmt::format("{} elements end {} bytes {} its size", name, a,
                         b == 0 ? "before the end of" : "past the end of");
    case DecodeErrorCode::kOddMapCount: return fmt::format("{} count {} is odd (a map holds key/value pairs)", name, a);
    case DecodeErrorCode::kInvalidBoolean: return fmt::format("boolean byte 0x{:02x} is neither 0x00 nor 0x01", a);
    case DecodeErrorCode::kInvalidUtf8: return fmt::format("{} is not valid UTF-8 (bad byte 0x{:02x})", name, a);
    case DecodeErrorCode::kInvalidSymbol: return fmt::format("{} byte 0x{:02x} is not 7-bit ASCII", name, a);
    case DecodeErrorCode::kInvalidChar: return fmt::format("char 0x{:x} is not a Unicode scalar value", a);
    case DecodeErrorCode::kTooDeep: return fmt::format("{} nested deeper than {} levels", w, a);
    case DecodeErrorCode::kInvalidArrayElement:
      return fmt::format("array element constructor {} (0x{:02x}) is not allowed", name, format_code);
    case DecodeErrorCode::kNotASection: return fmt::format("{} is not a message section", w);
    case DecodeErrorCode::kSectionOrder:
      return fmt::format("{} section after the {} section", w, SectionName(static_cast<SectionKind>(a)));
    case DecodeErrorCode::kDuplicateSection: return fmt::format("second {} section", w);
    case DecodeErrorCode::kMixedBody:
      return fmt::format(
          "{} section after a {} body section (the body is one or more data, one or "
          "more amqp-sequence, or one amqp-value)",
          w, SectionName(static_cast<SectionKind>(a)));
    case DecodeErrorCode::kSectionType:
      return fmt::format("{} section holds a {}, not {}", w, name, expected != nullptr ? expected : "its spec type");
    case DecodeErrorCode::kFieldType:
      return fmt::format("{} is a {}, not {}", w, name, expected != nullptr ? expected : "its spec type");
    case DecodeErrorCode::kAnnotationKey: return fmt::format("{} key is a {}, not a symbol or ulong", w, name);
    case DecodeErrorCode::kPropertyKey: return fmt::format("application-properties key is a {}, not a string", name);
    case DecodeErrorCode::kTrailingBytes: return fmt::format("{} trailing bytes after the {}", a, w);
    case DecodeErrorCode::kEmptyMessage: return "empty message (no sections)";
  }
  return "unknown error";
}

std::string DecodeError::Message() const { return fmt::format("byte {}: {}", offset, Reason()); }

}  // namespace sift::amqp
