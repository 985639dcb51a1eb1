// The error of reading or validating encoded AMQP 1.0 bytes: where (byte offset) and why.
//
// A DecodeError is a small POD so that producing one never allocates: the hot path (MessageView,
// MessageFieldSource) records errors without touching the heap, and the text is only formatted when
// someone asks for Message(). Offsets are counted from the first byte of the message (or of whatever
// buffer the reader was given as its base), so an error can be located with `xxd -s`.
#ifndef SIFT_ENGINE_AMQP_DECODE_ERROR_H_
#define SIFT_ENGINE_AMQP_DECODE_ERROR_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace sift::amqp {

enum class DecodeErrorCode : uint8_t {
  kOk = 0,
  kTruncated,            // a fixed-width value or a size/count prefix runs past the end: needs a, has b
  kLengthExceeds,        // a size/length prefix (a) exceeds the bytes left (b)
  kInvalidFormatCode,    // the byte is not an AMQP 1.0 format code
  kCountExceedsSize,     // a compound's count (a) cannot fit in its size (b)
  kSizeMismatch,         // a compound's elements end at a, but its size says b
  kOddMapCount,          // a map's count (a) is odd
  kInvalidBoolean,       // boolean (0x56) payload byte a is neither 0 nor 1
  kInvalidUtf8,          // a str8/str32 is not valid UTF-8 (offset is the bad byte)
  kInvalidSymbol,        // a sym8/sym32 byte (a) is not 7-bit ASCII
  kInvalidChar,          // a char (a) is not a Unicode scalar value
  kTooDeep,              // compounds / descriptors nested deeper than the limit (a)
  kInvalidArrayElement,  // an array's element constructor is not usable (e.g. 0x00 inside 0x00)
  kNotASection,          // a top-level value is not a described section (or has an unknown descriptor)
  kSectionOrder,         // section a appears after section b
  kDuplicateSection,     // section a appears twice
  kMixedBody,            // body sections of different kinds, or a second amqp-value
  kSectionType,          // a section's value has the wrong type (what: section, expected: type)
  kFieldType,            // a header/properties field has the wrong type (what: field, expected)
  kAnnotationKey,        // an annotations/footer map key is not a symbol or ulong
  kPropertyKey,          // an application-properties key is not a string
  kTrailingBytes,        // bytes remain after a complete value where none may
  kEmptyMessage,         // no sections at all
};

struct DecodeError {
  DecodeErrorCode code = DecodeErrorCode::kOk;
  uint8_t format_code = 0;  // the format code the error is about, when there is one
  uint32_t offset = 0;      // byte offset of the problem from the start of the message
  uint64_t a = 0;           // numbers the reason names (see DecodeErrorCode)
  uint64_t b = 0;
  const char* what = nullptr;      // static text the reason names (a section or field name), or nullptr
  const char* expected = nullptr;  // static text: what was expected instead, or nullptr

  bool ok() const { return code == DecodeErrorCode::kOk; }

  // "byte 42: str8 length 200 exceeds the 31 bytes left". Allocates; call it off the hot path.
  std::string Message() const;
  // Just the reason ("str8 length 200 exceeds the 31 bytes left").
  std::string Reason() const;

  static DecodeError Make(DecodeErrorCode code, uint32_t offset, uint8_t format_code = 0, uint64_t a = 0,
                          uint64_t b = 0, const char* what = nullptr, const char* expected = nullptr) {
    DecodeError e;
    e.code = code;
    e.format_code = format_code;
    e.offset = offset;
    e.a = a;
    e.b = b;
    e.what = what;
    e.expected = expected;
    return e;
  }
};

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_DECODE_ERROR_H_
