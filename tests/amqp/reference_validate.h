// The strict validator as it was before the single-pass rewrite of amqp/validate.cc, kept
// verbatim (renamed ReferenceValidate / ReferenceValidateValue) as the oracle the differential tests
// and the validate fuzzer compare the engine against: every DecodeError field must agree. Built on the
// generic readers (ReadValue, EncodedValue, Cursor), so it is slow but obviously follows them.
// Header-only because every *_test.cc is a binary of its own.
#ifndef SIFT_TESTS_ENGINE_AMQP_REFERENCE_VALIDATE_H_
#define SIFT_TESTS_ENGINE_AMQP_REFERENCE_VALIDATE_H_

#include <cstdint>
#include <span>

#include "base/byte_order.h"
#include "amqp/cursor.h"
#include "amqp/decode_error.h"
#include "amqp/encoded_value.h"
#include "amqp/field_types.h"
#include "amqp/message_view.h"
#include "amqp/type_codes.h"
#include "amqp/validate.h"

namespace sift::amqp::testing {

namespace reference_detail {

class Validator {
 public:
  explicit Validator(const uint8_t* base) : base_(base) {}

  const DecodeError& error() const { return error_; }

  // Checks one complete value at p (constructor, descriptors, content); returns its end.
  const uint8_t* Value(const uint8_t* p, const uint8_t* limit, int depth, EncodedValue* out) {
    EncodedValue v;
    const uint8_t* end = ReadValue(base_, p, limit, &v, &error_);
    if (end == nullptr) return nullptr;
    if (v.is_described()) {
      // The descriptors: 0x00 descriptor [0x00 descriptor ...] constructor.
      if (depth >= kMaxNestingDepth) return TooDeep(p);
      const uint8_t* q = p + 1;
      for (;;) {
        EncodedValue d;
        q = Value(q, end, depth + 1, &d);
        if (q == nullptr) return nullptr;
        if (*q != code::kDescribed) break;
        ++q;
      }
    }
    // Errors about the content name the value's own constructor, after its descriptors.
    EncodedValue inner = v;
    while (inner.is_described()) inner = inner.WithoutDescriptor();
    if (!Content(inner, depth)) return nullptr;
    if (out != nullptr) *out = v;
    return end;
  }

  // Checks the content of a located value (its descriptors aside).
  bool Content(const EncodedValue& v, int depth) {
    const uint8_t c = v.format_code();
    const auto payload = v.payload();
    switch (c) {
      case code::kBoolean: return Boolean(payload.data());
      case code::kChar: return Char(payload.data());
      case code::kStr8:
      case code::kStr32: return Utf8(c, payload.data(), payload.data() + payload.size());
      case code::kSym8:
      case code::kSym32: return Ascii(c, payload.data(), payload.data() + payload.size());
      default: break;
    }
    if (v.is_list() || v.is_map()) return Elements(v, depth);
    if (v.is_array()) return Array(v, depth);
    return true;
  }

  const uint8_t* TooDeep(const uint8_t* p) {
    error_ = DecodeError::Make(DecodeErrorCode::kTooDeep, Off(p), 0, kMaxNestingDepth, 0, "values");
    return nullptr;
  }

  uint32_t Off(const uint8_t* p) const { return static_cast<uint32_t>(p - base_); }

  bool Fail(const DecodeError& e) {
    error_ = e;
    return false;
  }

 private:
  bool Boolean(const uint8_t* p) {
    if (*p <= 1) return true;
    return Fail(DecodeError::Make(DecodeErrorCode::kInvalidBoolean, Off(p), code::kBoolean, *p));
  }

  bool Char(const uint8_t* p) {
    const uint32_t cp = base::LoadBE32(p);
    if (cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) return true;
    return Fail(DecodeError::Make(DecodeErrorCode::kInvalidChar, Off(p), code::kChar, cp));
  }

  bool Ascii(uint8_t c, const uint8_t* p, const uint8_t* end) {
    for (; p < end; ++p) {
      if (*p >= 0x80) return Fail(DecodeError::Make(DecodeErrorCode::kInvalidSymbol, Off(p), c, *p));
    }
    return true;
  }

  // RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
  bool Utf8(uint8_t c, const uint8_t* p, const uint8_t* end) {
    while (p < end) {
      const uint8_t b0 = *p;
      if (b0 < 0x80) {
        ++p;
        continue;
      }
      int n = 0;
      uint8_t lo = 0x80, hi = 0xbf;  // allowed range of the second byte
      if (b0 >= 0xc2 && b0 <= 0xdf) {
        n = 1;
      } else if (b0 >= 0xe0 && b0 <= 0xef) {
        n = 2;
        if (b0 == 0xe0) lo = 0xa0;
        if (b0 == 0xed) hi = 0x9f;
      } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        n = 3;
        if (b0 == 0xf0) lo = 0x90;
        if (b0 == 0xf4) hi = 0x8f;
      } else {
        return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p), c, b0));
      }
      if (end - p <= n) {
        return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p), c, b0));
      }
      if (p[1] < lo || p[1] > hi) {
        return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p + 1), c, p[1]));
      }
      for (int i = 2; i <= n; ++i) {
        if ((p[i] & 0xc0) != 0x80) {
          return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p + i), c, p[i]));
        }
      }
      p += n + 1;
    }
    return true;
  }

  // List and map elements: each a complete value, together filling the size exactly.
  bool Elements(const EncodedValue& v, int depth) {
    if (depth >= kMaxNestingDepth) return TooDeep(v.raw().data()) != nullptr;
    const uint8_t* q = v.payload().data();
    const uint8_t* end = q + v.payload().size();
    for (uint32_t i = 0; i < v.count(); ++i) {
      q = Value(q, end, depth + 1, nullptr);
      if (q == nullptr) return false;
    }
    return FilledExactly(v, q, end);
  }

  bool FilledExactly(const EncodedValue& v, const uint8_t* q, const uint8_t* end) {
    if (q == end) return true;
    return Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, v.offset(), v.format_code(),
                                  static_cast<uint64_t>(end - q), 0));
  }

  bool Array(const EncodedValue& v, int depth) {
    if (depth >= kMaxNestingDepth) return TooDeep(v.raw().data()) != nullptr;
    if (v.element_described()) {
      // The element descriptor ends just before the element format code.
      if (Value(v.element_descriptor_data(), v.payload().data() - 1, depth + 1, nullptr) == nullptr) {
        return false;
      }
    }
    const uint8_t ec = v.element_format_code();
    const int w = FixedWidth(ec);
    const uint8_t* q = v.payload().data();
    const uint8_t* end = q + v.payload().size();
    if (w >= 0) {
      const uint64_t needed = uint64_t{v.count()} * static_cast<uint64_t>(w);
      if (needed != v.payload().size()) {
        return Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, v.offset(), v.format_code(),
                                      v.payload().size() - needed, 0));
      }
      if (ec == code::kBoolean) {
        for (; q < end; ++q) {
          if (!Boolean(q)) return false;
        }
      } else if (ec == code::kChar) {
        for (; q < end; q += 4) {
          if (!Char(q)) return false;
        }
      }
      return true;
    }
    Cursor c = Cursor::Elements(v);
    EncodedValue e;
    while (c.Next(&e)) {
      if (!Content(e, depth + 1)) return false;
    }
    if (!c.ok()) return Fail(c.error());
    return FilledExactly(v, c.position(), end);
  }

  const uint8_t* base_;
  DecodeError error_;
};

inline bool IsBody(SectionKind k) {
  return k == SectionKind::kData || k == SectionKind::kAmqpSequence || k == SectionKind::kAmqpValue;
}

inline bool IsSymbolOrULong(const EncodedValue& k) {
  if (k.is_described()) return false;
  switch (k.format_code()) {
    case code::kSym8:
    case code::kSym32:
    case code::kULong:
    case code::kSmallULong:
    case code::kULong0: return true;
    default: return false;
  }
}

// Section-specific rules on a section's value, after its generic structure is known to be sound.
inline DecodeError CheckSection(SectionKind kind, const EncodedValue& v) {
  if (!SectionValueTypeOk(kind, v)) {
    return DecodeError::Make(DecodeErrorCode::kSectionType, v.offset(), v.format_code(), static_cast<uint64_t>(kind), 0,
                             SectionLabel(kind), SectionValueExpected(kind));
  }
  Cursor c = Cursor::Elements(v);
  EncodedValue e;
  EncodedValue value;
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties: {
      const bool header = kind == SectionKind::kHeader;
      const int fields = header ? kHeaderFieldCount : kPropertiesFieldCount;
      for (int i = 0; i < fields && c.Next(&e); ++i) {
        if (e.is_null()) continue;
        if (header ? !HeaderFieldTypeOk(i, e) : !PropertiesFieldTypeOk(i, e)) {
          return DecodeError::Make(DecodeErrorCode::kFieldType, e.offset(), e.format_code(), 0, 0,
                                   header ? HeaderFieldLabel(i) : PropertiesFieldLabel(i),
                                   header ? HeaderFieldExpected(i) : PropertiesFieldExpected(i));
        }
      }
      break;
    }
    case SectionKind::kDeliveryAnnotations:
    case SectionKind::kMessageAnnotations:
    case SectionKind::kFooter:
      while (c.Next(&e) && c.Next(&value)) {
        if (!IsSymbolOrULong(e)) {
          return DecodeError::Make(DecodeErrorCode::kAnnotationKey, e.offset(),
                                   e.is_described() ? code::kDescribed : e.format_code(), 0, 0, SectionLabel(kind));
        }
      }
      break;
    case SectionKind::kApplicationProperties:
      while (c.Next(&e) && c.Next(&value)) {
        if (e.is_described() || (e.format_code() != code::kStr8 && e.format_code() != code::kStr32)) {
          return DecodeError::Make(DecodeErrorCode::kPropertyKey, e.offset(),
                                   e.is_described() ? code::kDescribed : e.format_code());
        }
        // Compound values are accepted on purpose (validate.h), despite core 3.2.5.
      }
      break;
    default: break;
  }
  return c.error();
}

}  // namespace reference_detail

inline DecodeError ReferenceValidateValue(std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  const uint8_t* limit = p + bytes.size();
  reference_detail::Validator check(p);
  const uint8_t* end = check.Value(p, limit, 0, nullptr);
  if (end == nullptr) return check.error();
  if (end != limit) {
    return DecodeError::Make(DecodeErrorCode::kTrailingBytes, static_cast<uint32_t>(end - p), 0,
                             static_cast<uint64_t>(limit - end), 0, "value");
  }
  return DecodeError();
}

inline DecodeError ReferenceValidate(std::span<const uint8_t> message) {
  const uint8_t* base = message.data();
  const uint8_t* p = base;
  const uint8_t* limit = base + message.size();
  if (p == limit) return DecodeError::Make(DecodeErrorCode::kEmptyMessage, 0);
  reference_detail::Validator check(base);
  bool any = false;
  SectionKind previous = SectionKind::kHeader;
  while (p < limit) {
    EncodedValue v;
    const uint8_t* end = ReadValue(base, p, limit, &v, nullptr);
    SectionKind kind = SectionKind::kHeader;
    if (end != nullptr && !SectionOfDescriptor(v, &kind)) {
      return DecodeError::Make(
          DecodeErrorCode::kNotASection, v.offset(), v.is_described() ? code::kDescribed : v.format_code(), 0, 0,
          v.is_described() ? "described value with an unknown descriptor" : FormatCodeName(v.format_code()).data());
    }
    end = check.Value(p, limit, 0, &v);
    if (end == nullptr) return check.error();
    if (any) {
      const int k = static_cast<int>(kind);
      const int prev = static_cast<int>(previous);
      const uint32_t at = static_cast<uint32_t>(p - base);
      if (reference_detail::IsBody(kind) && reference_detail::IsBody(previous)) {
        if (kind != previous || kind == SectionKind::kAmqpValue) {
          return DecodeError::Make(DecodeErrorCode::kMixedBody, at, 0, prev, 0, SectionLabel(kind));
        }
      } else if (k == prev) {
        return DecodeError::Make(DecodeErrorCode::kDuplicateSection, at, 0, k, 0, SectionLabel(kind));
      } else if (k < prev) {
        return DecodeError::Make(DecodeErrorCode::kSectionOrder, at, 0, prev, 0, SectionLabel(kind));
      }
    }
    DecodeError e = reference_detail::CheckSection(kind, v.WithoutDescriptor());
    if (!e.ok()) return e;
    any = true;
    previous = kind;
    p = end;
  }
  return DecodeError();
}

}  // namespace sift::amqp::testing

#endif  // SIFT_TESTS_ENGINE_AMQP_REFERENCE_VALIDATE_H_
