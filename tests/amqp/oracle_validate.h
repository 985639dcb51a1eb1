// Test oracle for amqp::Validate and amqp::ValidateValue, written from the rules rather than from
// the validator: AMQP 1.0 core part 1 (types: format codes, fixed and variable widths, compounds,
// arrays, described types) and part 3, section 3.2 (sections, their order and types), with the
// limits and the error contract of amqp/validate.h and amqp/decode_error.h. It reads bytes with its
// own plain loops and shares no code with amqp/ beyond the DecodeError struct it must return, so a
// rule the validator gets wrong shows up as a different error. Slow and simple on purpose.
//
// The first violation is the one met in this reading order:
// 1. A value is first located: its constructor, then (for 0x00) its descriptors, each located in turn
//    (a descriptor chain or nesting of descriptors may be at most 8 deep), then its final format code,
//    the size and count prefixes and, for an array, the element constructor (with at most one
//    descriptor, itself located) and the fewest bytes the count of elements needs. Nothing inside a
//    list, map or array is read yet. Errors name the final constructor's byte (the element's first
//    byte for an array element, which has none of its own).
// 2. Then its descriptors are checked whole, in order, one level deeper; then its content: a boolean
//    0 or 1, a char a Unicode scalar value, str8/str32 UTF-8 (RFC 3629), sym8/sym32 ASCII, the
//    elements of a list or map one by one (each located, then checked), then that they fill its
//    size; an array's element descriptor, then fixed-width elements filling its size exactly (then
//    each boolean / char checked), or variable-width elements one by one, then that they fill it.
//    Lists, maps, arrays and described values may nest at most 100 deep.
// A message: no bytes is an error; each top-level value must be a section (described by a ulong
// 0x70..0x78 or the section's symbol), checked as a value, in spec order, then its value's type,
// then header / properties field types, annotation keys (symbol or ulong) and application-property
// keys (string).
#ifndef SIFT_TESTS_AMQP_ORACLE_VALIDATE_H_
#define SIFT_TESTS_AMQP_ORACLE_VALIDATE_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "amqp/decode_error.h"
#include "base/byte_order.h"

namespace sift::amqp::testing {

namespace oracle_validate {

using Code = DecodeErrorCode;

inline constexpr int kValueDepth = 100;     // validate.h: nesting of compounds and described values
inline constexpr int kDescriptorDepth = 8;  // descriptors chained or nested while locating a value

// Core part 1, section 1.6: the format codes and their names.
inline const char* NameOf(uint8_t c) {
  switch (c) {
    case 0x00: return "described";
    case 0x40: return "null";
    case 0x41: return "true";
    case 0x42: return "false";
    case 0x43: return "uint0";
    case 0x44: return "ulong0";
    case 0x45: return "list0";
    case 0x50: return "ubyte";
    case 0x51: return "byte";
    case 0x52: return "smalluint";
    case 0x53: return "smallulong";
    case 0x54: return "smallint";
    case 0x55: return "smalllong";
    case 0x56: return "boolean";
    case 0x60: return "ushort";
    case 0x61: return "short";
    case 0x70: return "uint";
    case 0x71: return "int";
    case 0x72: return "float";
    case 0x73: return "char";
    case 0x74: return "decimal32";
    case 0x80: return "ulong";
    case 0x81: return "long";
    case 0x82: return "double";
    case 0x83: return "timestamp";
    case 0x84: return "decimal64";
    case 0x94: return "decimal128";
    case 0x98: return "uuid";
    case 0xa0: return "vbin8";
    case 0xa1: return "str8";
    case 0xa3: return "sym8";
    case 0xb0: return "vbin32";
    case 0xb1: return "str32";
    case 0xb3: return "sym32";
    case 0xc0: return "list8";
    case 0xc1: return "map8";
    case 0xd0: return "list32";
    case 0xd1: return "map32";
    case 0xe0: return "array8";
    case 0xf0: return "array32";
    default: return "invalid";
  }
}

inline bool Known(uint8_t c) { return c != 0x00 && std::string_view(NameOf(c)) != "invalid"; }

// Payload bytes of a fixed-width code (core part 1, section 1.3: the high nibble says), -1 otherwise.
inline int Width(uint8_t c) {
  switch (c >> 4) {
    case 0x4: return 0;
    case 0x5: return 1;
    case 0x6: return 2;
    case 0x7: return 4;
    case 0x8: return 8;
    case 0x9: return 16;
    default: return -1;
  }
}

inline bool IsList(uint8_t c) { return c == 0x45 || c == 0xc0 || c == 0xd0; }
inline bool IsMap(uint8_t c) { return c == 0xc1 || c == 0xd1; }
inline bool IsArray(uint8_t c) { return c == 0xe0 || c == 0xf0; }

// Where a located value lies.
struct Located {
  const uint8_t* start = nullptr;    // its first byte
  const uint8_t* end = nullptr;      // one past its last byte
  const uint8_t* code_at = nullptr;  // its final constructor (the element's first byte in an array)
  uint8_t code = 0;                  // its final format code
  bool described = false;
  const uint8_t* payload = nullptr;  // bytes of a fixed or variable value; elements of a compound
  uint64_t payload_size = 0;
  uint32_t size = 0;    // a compound's size prefix
  uint32_t count = 0;   // a compound's count
  uint8_t element = 0;  // an array's element format code
  const uint8_t* element_descriptor = nullptr;
  const uint8_t* element_code_at = nullptr;
};

class Checker {
 public:
  explicit Checker(const uint8_t* base) : base_(base) {}
  DecodeError error;

  uint32_t At(const uint8_t* p) const { return static_cast<uint32_t>(p - base_); }

  bool Fail(Code code, const uint8_t* at, uint8_t fc = 0, uint64_t a = 0, uint64_t b = 0, const char* what = nullptr,
            const char* expected = nullptr) {
    error = DecodeError::Make(code, At(at), fc, a, b, what, expected);
    return false;
  }

  static uint32_t Prefix(const uint8_t* p, int width) { return width == 1 ? p[0] : base::LoadBE32(p); }

  // Step 1 for a value with a constructor at p.
  bool Locate(const uint8_t* p, const uint8_t* limit, int levels, Located* v) {
    v->start = p;
    if (p >= limit) return Fail(Code::kTruncated, p, 0, 1, 0, "constructor");
    const uint8_t* at = p;
    v->described = false;
    while (*at == 0x00) {
      if (levels >= kDescriptorDepth) return Fail(Code::kTooDeep, at, 0, kDescriptorDepth, 0, "descriptors");
      ++levels;
      v->described = true;
      Located d;
      if (!Locate(at + 1, limit, levels, &d)) return false;
      at = d.end;
      if (at >= limit) return Fail(Code::kTruncated, at, 0, 1, 0, "described value constructor");
    }
    return LocatePayload(*at, at, at + 1, limit, levels, v);
  }

  // The part of step 1 after the final format code c (read at code_at; its payload starts at p).
  bool LocatePayload(uint8_t c, const uint8_t* code_at, const uint8_t* p, const uint8_t* limit, int levels,
                     Located* v) {
    v->code_at = code_at;
    v->code = c;
    const uint64_t left = p <= limit ? static_cast<uint64_t>(limit - p) : 0;
    if (!Known(c)) return Fail(Code::kInvalidFormatCode, code_at, c);
    if (Width(c) >= 0) {
      if (left < static_cast<uint64_t>(Width(c))) return Fail(Code::kTruncated, code_at, c, Width(c), left, NameOf(c));
      v->payload = p;
      v->payload_size = static_cast<uint64_t>(Width(c));
      v->end = p + Width(c);
      return true;
    }
    const int width = (c & 0x10) ? 4 : 1;
    if (left < static_cast<uint64_t>(width)) return Fail(Code::kTruncated, code_at, c, width, left, NameOf(c));
    const uint32_t size = Prefix(p, width);
    const uint64_t after = left - width;
    if (size > after) return Fail(Code::kLengthExceeds, code_at, c, size, after, (c >> 4) <= 0xb ? "length" : "size");
    const uint8_t* body = p + width;
    v->end = body + size;
    v->size = size;
    if ((c >> 4) <= 0xb) {  // binary, string, symbol
      v->payload = body;
      v->payload_size = size;
      return true;
    }
    if (size < static_cast<uint32_t>(width)) return Fail(Code::kTruncated, code_at, c, width, size, "count");
    const uint32_t count = Prefix(body, width);
    const uint8_t* items = body + width;
    const uint64_t room = size - width;
    v->count = count;
    if (!IsArray(c)) {
      if (count > room) return Fail(Code::kCountExceedsSize, code_at, c, count, size);
      if (IsMap(c) && count % 2 != 0) return Fail(Code::kOddMapCount, code_at, c, count);
      v->payload = items;
      v->payload_size = room;
      return true;
    }
    const uint8_t* e = items;
    if (e >= v->end) return Fail(Code::kTruncated, e, c, 1, 0, "array element constructor");
    uint8_t element = *e;
    v->element_descriptor = nullptr;
    if (element == 0x00) {
      if (levels >= kDescriptorDepth) return Fail(Code::kTooDeep, e, 0, kDescriptorDepth, 0, "descriptors");
      Located d;
      if (!Locate(e + 1, v->end, levels + 1, &d)) return false;
      v->element_descriptor = e + 1;
      e = d.end;
      if (e >= v->end) return Fail(Code::kTruncated, e, c, 1, 0, "array element constructor");
      element = *e;
      if (element == 0x00) return Fail(Code::kInvalidArrayElement, e, 0x00);
    }
    if (!Known(element)) return Fail(Code::kInvalidFormatCode, e, element);
    const uint64_t element_bytes = static_cast<uint64_t>(v->end - (e + 1));
    const uint64_t least = Width(element) >= 0 ? uint64_t{count} * static_cast<uint64_t>(Width(element)) : count;
    if (least > element_bytes) return Fail(Code::kCountExceedsSize, code_at, c, count, size);
    v->element = element;
    v->element_code_at = e;
    v->payload = e + 1;
    v->payload_size = element_bytes;
    return true;
  }

  // Steps 1 and 2 for the value at p: its end, or nullptr.
  const uint8_t* Check(const uint8_t* p, const uint8_t* limit, int depth, Located* out = nullptr) {
    Located v;
    if (!Locate(p, limit, 0, &v)) return nullptr;
    if (v.described) {
      if (depth >= kValueDepth) {
        Fail(Code::kTooDeep, p, 0, kValueDepth, 0, "values");
        return nullptr;
      }
      const uint8_t* q = p + 1;
      for (;;) {
        q = Check(q, v.end, depth + 1);
        if (q == nullptr) return nullptr;
        if (*q != 0x00) break;
        ++q;
      }
    }
    if (!Content(v, depth)) return nullptr;
    if (out != nullptr) *out = v;
    return v.end;
  }

 private:
  bool Content(const Located& v, int depth) {
    const uint8_t* p = v.payload;
    const uint8_t* end = v.payload + v.payload_size;
    switch (v.code) {
      case 0x56: return BooleanOk(p);
      case 0x73: return CharOk(p);
      case 0xa1:
      case 0xb1: return Utf8Ok(v.code, p, end);
      case 0xa3:
      case 0xb3:
        for (; p < end; ++p) {
          if (*p >= 0x80) return Fail(Code::kInvalidSymbol, p, v.code, *p);
        }
        return true;
      default: break;
    }
    if (IsList(v.code) || IsMap(v.code)) {
      if (depth >= kValueDepth) return Fail(Code::kTooDeep, v.code_at, 0, kValueDepth, 0, "values");
      for (uint32_t i = 0; i < v.count; ++i) {
        p = Check(p, end, depth + 1);
        if (p == nullptr) return false;
      }
      return Filled(v, p, end);
    }
    if (IsArray(v.code)) return ArrayOk(v, depth);
    return true;
  }

  bool Filled(const Located& v, const uint8_t* p, const uint8_t* end) {
    if (p == end) return true;
    return Fail(Code::kSizeMismatch, v.code_at, v.code, static_cast<uint64_t>(end - p), 0);
  }

  bool BooleanOk(const uint8_t* p) { return *p <= 1 || Fail(Code::kInvalidBoolean, p, 0x56, *p); }

  bool CharOk(const uint8_t* p) {
    const uint32_t cp = base::LoadBE32(p);
    const bool scalar = cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
    return scalar || Fail(Code::kInvalidChar, p, 0x73, cp);
  }

  // RFC 3629, table 3-7 of the Unicode standard: the well-formed byte sequences.
  bool Utf8Ok(uint8_t c, const uint8_t* p, const uint8_t* end) {
    while (p < end) {
      const uint8_t b = *p;
      if (b < 0x80) {
        ++p;
        continue;
      }
      int more;
      uint8_t second_lo = 0x80, second_hi = 0xbf;
      if (b >= 0xc2 && b <= 0xdf) {
        more = 1;
      } else if (b >= 0xe0 && b <= 0xef) {
        more = 2;
        if (b == 0xe0) second_lo = 0xa0;  // no overlong forms
        if (b == 0xed) second_hi = 0x9f;  // no surrogates
      } else if (b >= 0xf0 && b <= 0xf4) {
        more = 3;
        if (b == 0xf0) second_lo = 0x90;
        if (b == 0xf4) second_hi = 0x8f;  // nothing above U+10FFFF
      } else {
        return Fail(Code::kInvalidUtf8, p, c, b);
      }
      if (end - p <= more) return Fail(Code::kInvalidUtf8, p, c, b);
      if (p[1] < second_lo || p[1] > second_hi) return Fail(Code::kInvalidUtf8, p + 1, c, p[1]);
      for (int i = 2; i <= more; ++i) {
        if (p[i] < 0x80 || p[i] > 0xbf) return Fail(Code::kInvalidUtf8, p + i, c, p[i]);
      }
      p += more + 1;
    }
    return true;
  }

  bool ArrayOk(const Located& v, int depth) {
    if (depth >= kValueDepth) return Fail(Code::kTooDeep, v.code_at, 0, kValueDepth, 0, "values");
    if (v.element_descriptor != nullptr && Check(v.element_descriptor, v.element_code_at, depth + 1) == nullptr) {
      return false;
    }
    const uint8_t* p = v.payload;
    const uint8_t* end = v.payload + v.payload_size;
    const int w = Width(v.element);
    if (w >= 0) {
      const uint64_t needed = uint64_t{v.count} * static_cast<uint64_t>(w);
      if (needed != v.payload_size) return Fail(Code::kSizeMismatch, v.code_at, v.code, v.payload_size - needed, 0);
      for (; p < end; p += w) {
        if (v.element == 0x56 && !BooleanOk(p)) return false;
        if (v.element == 0x73 && !CharOk(p)) return false;
      }
      return true;
    }
    // Elements share the constructor: each is located from its first byte, then checked.
    for (uint32_t i = 0; i < v.count; ++i) {
      Located e;
      if (!LocatePayload(v.element, p, p, end, 1, &e)) return false;
      if (!Content(e, depth + 1)) return false;
      p = e.end;
    }
    return Filled(v, p, end);
  }

  const uint8_t* base_;
};

// Core part 3, section 3.2: the sections in order, their descriptors and what their values hold.
struct SectionRule {
  const char* name;
  uint8_t code;
  const char* symbol;
  const char* expected;  // the type the section's value must have, for errors
};

inline constexpr SectionRule kSections[9] = {
    {"header", 0x70, "amqp:header:list", "a list"},
    {"delivery-annotations", 0x71, "amqp:delivery-annotations:map", "a map"},
    {"message-annotations", 0x72, "amqp:message-annotations:map", "a map"},
    {"properties", 0x73, "amqp:properties:list", "a list"},
    {"application-properties", 0x74, "amqp:application-properties:map", "a map"},
    {"data", 0x75, "amqp:data:binary", "a binary"},
    {"amqp-sequence", 0x76, "amqp:amqp-sequence:list", "a list"},
    {"amqp-value", 0x77, "amqp:amqp-value:*", "a value"},
    {"footer", 0x78, "amqp:footer:map", "a map"},
};

inline bool SectionValueOk(int kind, const Located& v) {
  if (kind == 7) return true;
  if (v.described) return false;
  if (kind == 5) return v.code == 0xa0 || v.code == 0xb0;
  if (kind == 0 || kind == 3 || kind == 6) return IsList(v.code);
  return IsMap(v.code);
}

// Section 3.2.1 and 3.2.4: each field's label, what it must be, and the format codes that are that.
struct FieldRule {
  const char* label;
  const char* expected;
  bool (*ok)(uint8_t);
};

inline bool BooleanCode(uint8_t c) { return c == 0x41 || c == 0x42 || c == 0x56; }
inline bool UByteCode(uint8_t c) { return c == 0x50; }
inline bool UIntCode(uint8_t c) { return c == 0x70 || c == 0x52 || c == 0x43; }
inline bool ULongCode(uint8_t c) { return c == 0x80 || c == 0x53 || c == 0x44; }
inline bool BinaryCode(uint8_t c) { return c == 0xa0 || c == 0xb0; }
inline bool StringCode(uint8_t c) { return c == 0xa1 || c == 0xb1; }
inline bool SymbolCode(uint8_t c) { return c == 0xa3 || c == 0xb3; }
inline bool TimestampCode(uint8_t c) { return c == 0x83; }
inline bool MessageIdCode(uint8_t c) { return ULongCode(c) || c == 0x98 || BinaryCode(c) || StringCode(c); }

inline constexpr FieldRule kHeaderRules[5] = {
    {"header field durable", "a boolean", BooleanCode},
    {"header field priority", "a ubyte", UByteCode},
    {"header field ttl", "a uint", UIntCode},
    {"header field first-acquirer", "a boolean", BooleanCode},
    {"header field delivery-count", "a uint", UIntCode},
};

inline constexpr FieldRule kPropertiesRules[13] = {
    {"properties field message-id", "a ulong, uuid, binary or string", MessageIdCode},
    {"properties field user-id", "a binary", BinaryCode},
    {"properties field to", "a string", StringCode},
    {"properties field subject", "a string", StringCode},
    {"properties field reply-to", "a string", StringCode},
    {"properties field correlation-id", "a ulong, uuid, binary or string", MessageIdCode},
    {"properties field content-type", "a symbol", SymbolCode},
    {"properties field content-encoding", "a symbol", SymbolCode},
    {"properties field absolute-expiry-time", "a timestamp", TimestampCode},
    {"properties field creation-time", "a timestamp", TimestampCode},
    {"properties field group-id", "a string", StringCode},
    {"properties field group-sequence", "a uint", UIntCode},
    {"properties field reply-to-group-id", "a string", StringCode},
};

// The section a top-level value's (first) descriptor names, or -1.
inline int SectionOf(const Located& v, const uint8_t* limit) {
  if (!v.described) return -1;
  Checker c(v.start);
  Located d;
  if (!c.Locate(v.start + 1, limit, 1, &d) || d.described) return -1;
  uint64_t number = 0;
  if (d.code == 0x53) {
    number = d.payload[0];
  } else if (d.code == 0x80) {
    number = base::LoadBE64(d.payload);
  } else if (d.code == 0x44) {
    number = 0;
  } else if (SymbolCode(d.code)) {
    const std::string_view text(reinterpret_cast<const char*>(d.payload), d.payload_size);
    for (int k = 0; k < 9; ++k) {
      if (text == kSections[k].symbol) return k;
    }
    return -1;
  } else {
    return -1;
  }
  for (int k = 0; k < 9; ++k) {
    if (number == kSections[k].code) return k;
  }
  return -1;
}

// The elements of a list or map already checked, one by one.
inline void ForEachElement(const Located& v, const uint8_t* base, auto visit) {
  const uint8_t* p = v.payload;
  const uint8_t* end = v.payload + v.payload_size;
  Checker c(base);
  for (uint32_t i = 0; i < v.count; ++i) {
    Located e;
    if (!c.Locate(p, end, 0, &e)) return;
    if (!visit(i, e)) return;
    p = e.end;
  }
}

// The section rules on a section's value (its outer descriptor dropped).
inline DecodeError SectionRules(int kind, const uint8_t* base, const uint8_t* value, const uint8_t* end) {
  Checker c(base);
  Located v;
  c.Locate(value, end, 0, &v);
  auto at = [&](const uint8_t* p) { return static_cast<uint32_t>(p - base); };
  if (!SectionValueOk(kind, v)) {
    return DecodeError::Make(Code::kSectionType, at(v.start), v.code, static_cast<uint64_t>(kind), 0,
                             kSections[kind].name, kSections[kind].expected);
  }
  if (kind == 5 || kind == 6 || kind == 7 || v.code == 0x45) return DecodeError();
  DecodeError found;
  if (kind == 0 || kind == 3) {
    const FieldRule* rules = kind == 0 ? kHeaderRules : kPropertiesRules;
    const uint32_t fields = kind == 0 ? 5 : 13;
    ForEachElement(v, base, [&](uint32_t i, const Located& e) {
      if (i >= fields) return false;
      if (e.code == 0x40) return true;  // null: the field is absent
      if (!e.described && rules[i].ok(e.code)) return true;
      found = DecodeError::Make(Code::kFieldType, at(e.start), e.code, 0, 0, rules[i].label, rules[i].expected);
      return false;
    });
    return found;
  }
  const bool properties = kind == 4;
  ForEachElement(v, base, [&](uint32_t i, const Located& e) {
    if (i % 2 != 0 || i + 1 >= v.count) return true;  // a value, or a key without one
    const uint8_t code = e.described ? 0x00 : e.code;
    if (properties && !StringCode(code)) {
      found = DecodeError::Make(Code::kPropertyKey, at(e.start), code);
      return false;
    }
    if (!properties && !SymbolCode(code) && !ULongCode(code)) {
      found = DecodeError::Make(Code::kAnnotationKey, at(e.start), code, 0, 0, kSections[kind].name);
      return false;
    }
    return true;
  });
  return found;
}

}  // namespace oracle_validate

inline DecodeError OracleValidateValue(std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  const uint8_t* limit = p + bytes.size();
  oracle_validate::Checker c(p);
  const uint8_t* end = c.Check(p, limit, 0);
  if (end == nullptr) return c.error;
  if (end != limit) {
    return DecodeError::Make(DecodeErrorCode::kTrailingBytes, static_cast<uint32_t>(end - p), 0,
                             static_cast<uint64_t>(limit - end), 0, "value");
  }
  return DecodeError();
}

inline DecodeError OracleValidate(std::span<const uint8_t> message) {
  namespace o = oracle_validate;
  const uint8_t* base = message.data();
  const uint8_t* limit = base + message.size();
  if (message.empty()) return DecodeError::Make(DecodeErrorCode::kEmptyMessage, 0);
  int previous = -1;
  for (const uint8_t* p = base; p < limit;) {
    o::Checker c(base);
    o::Located v;
    if (c.Locate(p, limit, 0, &v)) {
      if (o::SectionOf(v, limit) < 0) {
        return DecodeError::Make(DecodeErrorCode::kNotASection, c.At(p), v.described ? 0x00 : v.code, 0, 0,
                                 v.described ? "described value with an unknown descriptor" : o::NameOf(v.code));
      }
    }
    const uint8_t* end = c.Check(p, limit, 0, &v);
    if (end == nullptr) return c.error;
    const int kind = o::SectionOf(v, limit);
    if (previous >= 0) {
      const bool bodies = kind >= 5 && kind <= 7 && previous >= 5 && previous <= 7;
      const char* name = o::kSections[kind].name;
      if (bodies && (kind != previous || kind == 7)) {
        return DecodeError::Make(DecodeErrorCode::kMixedBody, c.At(p), 0, previous, 0, name);
      }
      if (!bodies && kind == previous) {
        return DecodeError::Make(DecodeErrorCode::kDuplicateSection, c.At(p), 0, kind, 0, name);
      }
      if (!bodies && kind < previous) {
        return DecodeError::Make(DecodeErrorCode::kSectionOrder, c.At(p), 0, previous, 0, name);
      }
    }
    // The section's value follows its (first) descriptor.
    o::Located descriptor;
    c.Locate(p + 1, end, 1, &descriptor);
    const DecodeError e = o::SectionRules(kind, base, descriptor.end, end);
    if (!e.ok()) return e;
    previous = kind;
    p = end;
  }
  return DecodeError();
}

}  // namespace sift::amqp::testing

#endif  // SIFT_TESTS_AMQP_ORACLE_VALIDATE_H_
