// Strict validation of encoded messages and values (validate.h), in two walks over the same rules.
//
// The fast walk (namespace fast) answers only "well formed or not": one recursive descent over the
// bytes, driven by the per-format-code tables and extent helpers of encoded_value.h (internal::kSkip,
// SizedExtent, ...), checking structure and content in the same pass, with word-at-a-time UTF-8 and
// ASCII checks. It never builds an EncodedValue, so a valid message costs one pass of plain loads.
// Given a MessageLayout, the same walk also records where the header, properties and
// application-properties values and their elements start, for a caller that reads them next.
//
// The explaining walk (namespace explain) runs only when the fast walk says no: it locates values
// with the same ValueReader as the lazy view, then walks every value to its leaves, and returns the
// first violation in reading order as a DecodeError. Keeping it separate lets the fast walk check in
// whatever order is cheapest (a verdict does not depend on order) while errors stay those users and
// tests know. The two must accept exactly the same inputs; the differential tests compare them on
// corpora and millions of mutations.
//
// Both walks bound recursion by kMaxNestingDepth and kMaxDescriptorDepth, and every loop by bytes
// (zero-width array elements are checked arithmetically, not iterated), so hostile input costs at
// most linear time. Neither allocates.
#include "amqp/validate.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "base/byte_order.h"
#include "base/utf8.h"
#include "amqp/cursor.h"
#include "amqp/encoded_value.h"
#include "amqp/field_types.h"
#include "amqp/message_layout.h"
#include "amqp/message_view.h"
#include "amqp/type_codes.h"

namespace sift::amqp {

namespace {

// Annotation and footer keys are symbols or ulongs (core part 3, section 3.2.10); application
// property keys are strings (section 3.2.5). On the format code of a plain key.
constexpr bool IsAnnotationKeyCode(uint8_t c) { return internal::IsSymbolCode(c) || internal::IsULongCode(c); }
constexpr bool IsPropertyKeyCode(uint8_t c) { return internal::IsStringCode(c); }

bool IsBody(SectionKind k) {
  return k == SectionKind::kData || k == SectionKind::kAmqpSequence || k == SectionKind::kAmqpValue;
}

// True when `kind` may follow `previous` (core part 3, section 3.2: spec order, each section at
// most once, data or amqp-sequence repeatable, one amqp-value).
bool MayFollow(SectionKind previous, SectionKind kind) {
  if (IsBody(kind) && IsBody(previous)) return kind == previous && kind != SectionKind::kAmqpValue;
  return static_cast<int>(kind) > static_cast<int>(previous);
}

namespace fast {

using internal::kSkip;
using internal::ValueKind;

constexpr uint64_t kHighBits = 0x8080808080808080ull;

inline uint64_t Load8(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// True when the n bytes at p are all 7-bit ASCII. Reads whole words: bytes between p + n and
// `readable` (the end of the enclosing value, inside the buffer) may be loaded, never judged.
inline bool AsciiOk(const uint8_t* p, size_t n, const uint8_t* readable) {
  if (n >= 8) {
    uint64_t any = Load8(p + n - 8);  // the last word, overlapping the loop's
    for (size_t i = 0; i + 8 <= n; i += 8) any |= Load8(p + i);
    return (any & kHighBits) == 0;
  }
  if constexpr (std::endian::native == std::endian::little) {
    if (readable - p >= 8) return (Load8(p) & kHighBits & ((uint64_t{1} << (8 * n)) - 1)) == 0;
  }
  uint8_t any = 0;
  for (size_t i = 0; i < n; ++i) any |= p[i];
  return any < 0x80;
}

inline bool Utf8Ok(const uint8_t* p, size_t n, const uint8_t* readable) {
  return AsciiOk(p, n, readable) || base::IsValidUtf8(p, n);
}

// True when each of the n bytes at p is 0 or 1 (an array of booleans).
inline bool BooleansOk(const uint8_t* p, size_t n) {
  uint64_t any = 0;
  for (; n >= 8; n -= 8, p += 8) any |= Load8(p);
  uint8_t tail = 0;
  for (size_t i = 0; i < n; ++i) tail |= p[i];
  return ((any & 0xfefefefefefefefeull) | (tail & 0xfe)) == 0;
}

// No extra rule on the elements of a compound.
struct AnyElements {
  bool operator()(uint32_t, const uint8_t*, const uint8_t*) const { return true; }
};

// The format code of the described value at p (0x00 descriptor [0x00 descriptor ...] code) before
// end; kDescribed when it cannot be found (the walk then rejects the value anyway).
uint8_t DescribedCode(const uint8_t* p, const uint8_t* end) {
  while (p < end && *p == code::kDescribed) {
    p = SkipValue(p, p + 1, end, nullptr);
    if (p == nullptr) return code::kDescribed;
  }
  return p < end ? *p : code::kDescribed;
}

const uint8_t* Payload(uint8_t c, const uint8_t* p, const uint8_t* limit, int depth, int levels);

// One whole value at p before limit: constructor (with any descriptors), payload and everything
// nested in it. `depth` is its nesting depth (kMaxNestingDepth); `levels` counts the descriptors the
// ValueReader would have entered to reach it (kMaxDescriptorDepth). The end of the value, or nullptr
// when anything in it is not well formed.
const uint8_t* Value(const uint8_t* p, const uint8_t* limit, int depth, int levels) {
  if (p >= limit) return nullptr;
  uint8_t c = *p++;
  if (c == code::kDescribed) {
    if (depth >= kMaxNestingDepth) return nullptr;
    do {
      if (levels >= kMaxDescriptorDepth) return nullptr;
      ++levels;
      p = Value(p, limit, depth + 1, levels);
      if (p == nullptr || p >= limit) return nullptr;
      c = *p++;
    } while (c == code::kDescribed);
  }
  return Payload(c, p, limit, depth, levels);
}

// `count` elements from p, each a whole value, at nesting `depth`; `check(i, p, end)` may reject
// element i at p by its constructor. The end of the last element, or nullptr.
template <class Check>
inline const uint8_t* Elements(const uint8_t* p, const uint8_t* end, uint32_t count, int depth, Check check) {
  for (uint32_t i = 0; i < count; ++i) {
    if (p >= end) return nullptr;
    const uint8_t c = *p;
    if (!check(i, p, end)) return nullptr;
    // The commonest elements inline: fixed-width leaves need only their extent; str8 / sym8 / vbin8
    // (codes 0xa0..0xa3) their one-byte size and, for text, their bytes.
    const ValueKind kind = kSkip.kind[c];
    if (kind == ValueKind::kFixed) {
      const uint8_t w = kSkip.how[c];
      if (static_cast<size_t>(end - p) <= w) return nullptr;
      p += 1 + w;
      continue;
    }
    if ((c >> 4) == 0xa && kind != ValueKind::kInvalid) {
      const size_t left = static_cast<size_t>(end - p);
      if (left < 2 || p[1] > left - 2) return nullptr;
      const uint8_t* text = p + 2;
      p = text + p[1];
      if (kind == ValueKind::kBinary || AsciiOk(text, text[-1], end)) continue;
      if (kind == ValueKind::kSymbol || !base::IsValidUtf8(text, text[-1])) return nullptr;
      continue;
    }
    p = Value(p, end, depth, 0);
    if (p == nullptr) return nullptr;
  }
  return p;
}

// A list's or map's size and count at p (after its constructor c); the elements go through check.
template <class Check>
inline const uint8_t* ListOrMap(uint8_t c, const uint8_t* p, const uint8_t* limit, int depth, Check check) {
  const uint8_t how = kSkip.how[c];
  const uint8_t* q = nullptr;
  const uint8_t* end = internal::SizedExtent(how, p, limit, &q);
  if (end == nullptr) return nullptr;
  uint32_t count = 0;
  q = internal::ReadSizePrefix(how, q, end, &count);
  if (q == nullptr ||
      !internal::ListOrMapCountFits(kSkip.kind[c] == ValueKind::kMap, count, static_cast<size_t>(end - q)) ||
      depth >= kMaxNestingDepth) {
    return nullptr;
  }
  return Elements(q, end, count, depth + 1, check) == end ? end : nullptr;
}

const uint8_t* Array(uint8_t c, const uint8_t* p, const uint8_t* limit, int depth, int levels) {
  const uint8_t how = kSkip.how[c];
  const uint8_t* q = nullptr;
  const uint8_t* end = internal::SizedExtent(how, p, limit, &q);
  if (end == nullptr) return nullptr;
  uint32_t count = 0;
  q = internal::ReadSizePrefix(how, q, end, &count);
  if (q == nullptr || q >= end || depth >= kMaxNestingDepth) return nullptr;
  uint8_t ec = *q++;
  if (ec == code::kDescribed) {  // one descriptor, before the element format code
    if (levels >= kMaxDescriptorDepth) return nullptr;
    q = Value(q, end, depth + 1, levels + 1);
    if (q == nullptr || q >= end) return nullptr;
    ec = *q++;
    if (ec == code::kDescribed) return nullptr;
  }
  const ValueKind ek = kSkip.kind[ec];
  if (ek == ValueKind::kInvalid) return nullptr;
  const size_t bytes = static_cast<size_t>(end - q);
  if (FixedWidth(ec) >= 0) {  // filled exactly, whatever the count (zero-width elements too)
    if (internal::ArrayElementsMinBytes(ec, count) != bytes) return nullptr;
    if (ek == ValueKind::kBoolean) return BooleansOk(q, bytes) ? end : nullptr;
    if (ek == ValueKind::kChar) {
      for (; q < end; q += 4) {
        if (!base::IsUnicodeScalar(base::LoadBE32(q))) return nullptr;
      }
    }
    return end;
  }
  if (internal::ArrayElementsMinBytes(ec, count) > bytes) return nullptr;
  // Elements share the constructor: each is a payload at the next depth, read as the ValueReader
  // reads array elements (one descriptor level in).
  for (uint32_t i = 0; i < count; ++i) {
    q = Payload(ec, q, end, depth + 1, 1);
    if (q == nullptr) return nullptr;
  }
  return q == end ? end : nullptr;
}

// The payload at p of a value whose (last) constructor c was just read.
const uint8_t* Payload(uint8_t c, const uint8_t* p, const uint8_t* limit, int depth, int levels) {
  const size_t left = static_cast<size_t>(limit - p);
  switch (kSkip.kind[c]) {
    case ValueKind::kFixed: return left >= kSkip.how[c] ? p + kSkip.how[c] : nullptr;
    case ValueKind::kBoolean: return left >= 1 && p[0] <= 1 ? p + 1 : nullptr;
    case ValueKind::kChar: return left >= 4 && base::IsUnicodeScalar(base::LoadBE32(p)) ? p + 4 : nullptr;
    case ValueKind::kList0: return depth < kMaxNestingDepth ? p : nullptr;
    case ValueKind::kBinary: {
      const uint8_t* q = nullptr;
      return internal::SizedExtent(kSkip.how[c], p, limit, &q);
    }
    case ValueKind::kString: {
      const uint8_t* q = nullptr;
      const uint8_t* end = internal::SizedExtent(kSkip.how[c], p, limit, &q);
      return end != nullptr && Utf8Ok(q, static_cast<size_t>(end - q), limit) ? end : nullptr;
    }
    case ValueKind::kSymbol: {
      const uint8_t* q = nullptr;
      const uint8_t* end = internal::SizedExtent(kSkip.how[c], p, limit, &q);
      return end != nullptr && AsciiOk(q, static_cast<size_t>(end - q), limit) ? end : nullptr;
    }
    case ValueKind::kList:
    case ValueKind::kMap: return ListOrMap(c, p, limit, depth, AnyElements());
    case ValueKind::kArray: return Array(c, p, limit, depth, levels);
    case ValueKind::kDescribed:
    case ValueKind::kInvalid: return nullptr;
  }
  return nullptr;
}

// Bit i of kHeaderFields[c] / kPropertiesFields[c]: a plain value with format code c may be header /
// properties field i (null always may: it means absent).
struct FieldTables {
  uint16_t header[256] = {};
  uint16_t properties[256] = {};
  constexpr FieldTables() {
    for (int c = 0; c < 256; ++c) {
      const uint8_t code = static_cast<uint8_t>(c);
      for (int i = 0; i < kHeaderFieldCount; ++i) {
        if (code == code::kNull || HeaderFieldCodeOk(i, code)) header[c] |= uint16_t(1u << i);
      }
      for (int i = 0; i < kPropertiesFieldCount; ++i) {
        if (code == code::kNull || PropertiesFieldCodeOk(i, code)) {
          properties[c] |= uint16_t(1u << i);
        }
      }
    }
  }
};
inline constexpr FieldTables kFields;
static_assert(kPropertiesFieldCount <= 16);

// The section a top-level descriptor at p names, and the descriptor's end; nullptr when it is not
// well formed or names no section.
const uint8_t* SectionDescriptor(const uint8_t* p, const uint8_t* limit, SectionKind* kind) {
  if (const uint8_t* end = SmallSectionDescriptor(p, limit, kind)) return end;  // what every client writes
  const uint8_t* end = Value(p, limit, 1, 1);
  if (end == nullptr) return nullptr;
  switch (p[0]) {
    case code::kULong: return SectionFromDescriptorCode(base::LoadBE64(p + 1), kind) ? end : nullptr;
    case code::kSym8:
    case code::kSym32: {
      const uint8_t* s = p + (p[0] == code::kSym8 ? 2 : 5);
      const std::string_view symbol(reinterpret_cast<const char*>(s), static_cast<size_t>(end - s));
      return SectionFromDescriptorSymbol(symbol, kind) ? end : nullptr;
    }
    default: return nullptr;  // ulong0 (0) names no section; other types are no section descriptors
  }
}

// No layout is kept (the plain verdict).
struct NoLayout {};

// Lays out a section's compound value (MessageLayout) while the walk checks its elements: Element()
// for each element as the walk reaches it, then Done() with the value's extent.
template <class Compound>
struct CompoundRecorder {
  static constexpr uint32_t kMax = Compound::kMax;
  Compound* out;
  uint32_t seen = 0;
  void Element(uint32_t i, const uint8_t* e) {
    if (i <= kMax) out->elements[i] = e;
    seen = i + 1;
  }
  void Done(const uint8_t* at, const uint8_t* end) {
    out->at = at;
    out->end = end;
    out->complete = seen <= kMax;
    out->count = std::min(seen, kMax);
    if (seen <= kMax) out->elements[seen] = end;
  }
};

// ListOrMap for a section's value that a MessageLayout keeps (`compound`: where).
template <class Compound, class Check>
const uint8_t* LaidOutListOrMap(uint8_t c, const uint8_t* p, const uint8_t* limit, Compound* compound, Check check) {
  CompoundRecorder<Compound> recorder{compound};
  const uint8_t* end = ListOrMap(c, p + 1, limit, 0, [&](uint32_t i, const uint8_t* e, const uint8_t* end) {
    recorder.Element(i, e);
    return check(i, e, end);
  });
  if (end != nullptr) recorder.Done(p, end);
  return end;
}

// The value of a section of `kind` at p (after the section's descriptor): its type, its fields' or
// keys' types, and the value itself. With a MessageLayout, the header, properties and
// application-properties values are laid out in it as they are checked.
template <class Layout>
const uint8_t* SectionValue(SectionKind kind, const uint8_t* p, const uint8_t* limit, Layout* layout) {
  constexpr bool kLayOut = std::is_same_v<Layout, MessageLayout>;
  if (kind == SectionKind::kAmqpValue) return Value(p, limit, 0, 1);
  if (p >= limit) return nullptr;
  const uint8_t c = *p;
  if (!SectionValueCodeOk(kind, c)) return nullptr;  // a described value (0x00) included
  switch (kind) {
    case SectionKind::kHeader: {
      if (c == code::kList0) {
        if constexpr (kLayOut) CompoundRecorder<decltype(layout->header)>{&layout->header}.Done(p, p + 1);
        break;
      }
      auto check = [](uint32_t i, const uint8_t* e, const uint8_t* end) {
        if (i >= kHeaderFieldCount) return true;
        // A described null is null (absent) too; any other described field has the wrong type.
        if (*e == code::kDescribed) return DescribedCode(e, end) == code::kNull;
        return ((kFields.header[*e] >> i) & 1u) != 0;
      };
      if constexpr (kLayOut) return LaidOutListOrMap(c, p, limit, &layout->header, check);
      return ListOrMap(c, p + 1, limit, 0, check);
    }
    case SectionKind::kProperties: {
      if (c == code::kList0) {
        if constexpr (kLayOut) CompoundRecorder<decltype(layout->properties)>{&layout->properties}.Done(p, p + 1);
        break;
      }
      auto check = [](uint32_t i, const uint8_t* e, const uint8_t* end) {
        if (i >= kPropertiesFieldCount) return true;
        if (*e == code::kDescribed) return DescribedCode(e, end) == code::kNull;
        return ((kFields.properties[*e] >> i) & 1u) != 0;
      };
      if constexpr (kLayOut) return LaidOutListOrMap(c, p, limit, &layout->properties, check);
      return ListOrMap(c, p + 1, limit, 0, check);
    }
    case SectionKind::kDeliveryAnnotations:
    case SectionKind::kMessageAnnotations:
    case SectionKind::kFooter:
      return ListOrMap(c, p + 1, limit, 0, [](uint32_t i, const uint8_t* e, const uint8_t*) {
        return (i & 1) != 0 || IsAnnotationKeyCode(*e);
      });
    case SectionKind::kApplicationProperties: {
      auto check = [](uint32_t i, const uint8_t* e, const uint8_t*) { return (i & 1) != 0 || IsPropertyKeyCode(*e); };
      if constexpr (kLayOut) return LaidOutListOrMap(c, p, limit, &layout->application_properties, check);
      return ListOrMap(c, p + 1, limit, 0, check);
    }
    default: break;
  }
  return Payload(c, p + 1, limit, 0, 1);
}

template <class Layout>
bool Message(std::span<const uint8_t> message, Layout* layout) {
  const uint8_t* p = message.data();
  const uint8_t* const limit = p + message.size();
  if (p == limit) return false;
  if constexpr (std::is_same_v<Layout, MessageLayout>) {
    layout->header.at = layout->properties.at = layout->application_properties.at = nullptr;
  }
  // Messages are usually stored and read back to back (record files, chunks): start loading as
  // many bytes after this one (up to 2 KB) while it is checked, so that streaming through many
  // messages is not bound by memory latency. A prefetch never faults, wherever it points.
  const uintptr_t next = reinterpret_cast<uintptr_t>(limit);
  for (size_t ahead = 0; ahead < std::min<size_t>(message.size(), 2048); ahead += 64) {
    __builtin_prefetch(reinterpret_cast<const void*>(next + ahead));
  }
  bool any = false;
  SectionKind previous = SectionKind::kHeader;
  while (p < limit) {
    if (*p != code::kDescribed) return false;
    SectionKind kind = SectionKind::kHeader;
    const uint8_t* q = SectionDescriptor(p + 1, limit, &kind);
    if (q == nullptr || (any && !MayFollow(previous, kind))) return false;
    p = SectionValue(kind, q, limit, layout);
    if (p == nullptr) return false;
    any = true;
    previous = kind;
  }
  return true;
}

bool SingleValue(std::span<const uint8_t> bytes) {
  const uint8_t* limit = bytes.data() + bytes.size();
  const uint8_t* end = Value(bytes.data(), limit, 0, 0);
  return end != nullptr && end == limit;
}

}  // namespace fast

namespace explain {

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
    if (base::IsUnicodeScalar(cp)) return true;
    return Fail(DecodeError::Make(DecodeErrorCode::kInvalidChar, Off(p), code::kChar, cp));
  }

  bool Ascii(uint8_t c, const uint8_t* p, const uint8_t* end) {
    for (; p < end; ++p) {
      if (*p >= 0x80) return Fail(DecodeError::Make(DecodeErrorCode::kInvalidSymbol, Off(p), c, *p));
    }
    return true;
  }

  // RFC 3629 UTF-8 (base/utf8.h), naming the first byte that breaks it: the lead byte when it cannot
  // start a sequence or the text ends inside one, else the continuation byte out of range.
  bool Utf8(uint8_t c, const uint8_t* p, const uint8_t* end) {
    while (p < end) {
      const uint8_t b0 = *p;
      if (b0 < 0x80) {
        ++p;
        continue;
      }
      base::Utf8Lead lead;
      if (!base::ReadUtf8Lead(b0, &lead)) {
        return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p), c, b0));
      }
      const int n = lead.continuation;
      if (end - p <= n) {
        return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p), c, b0));
      }
      if (p[1] < lead.lo || p[1] > lead.hi) {
        return Fail(DecodeError::Make(DecodeErrorCode::kInvalidUtf8, Off(p + 1), c, p[1]));
      }
      for (int i = 2; i <= n; ++i) {
        if (!base::IsUtf8Continuation(p[i])) {
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

// Section-specific rules on a section's value, after its generic structure is known to be sound.
DecodeError CheckSection(SectionKind kind, const EncodedValue& v) {
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
        if (e.is_described() || !IsAnnotationKeyCode(e.format_code())) {
          return DecodeError::Make(DecodeErrorCode::kAnnotationKey, e.offset(),
                                   e.is_described() ? code::kDescribed : e.format_code(), 0, 0, SectionLabel(kind));
        }
      }
      break;
    case SectionKind::kApplicationProperties:
      while (c.Next(&e) && c.Next(&value)) {
        if (e.is_described() || !IsPropertyKeyCode(e.format_code())) {
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

DecodeError ExplainValue(std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  const uint8_t* limit = p + bytes.size();
  Validator check(p);
  const uint8_t* end = check.Value(p, limit, 0, nullptr);
  if (end == nullptr) return check.error();
  if (end != limit) {
    return DecodeError::Make(DecodeErrorCode::kTrailingBytes, static_cast<uint32_t>(end - p), 0,
                             static_cast<uint64_t>(limit - end), 0, "value");
  }
  return DecodeError();
}

DecodeError ExplainMessage(std::span<const uint8_t> message) {
  const uint8_t* base = message.data();
  const uint8_t* p = base;
  const uint8_t* limit = base + message.size();
  if (p == limit) return DecodeError::Make(DecodeErrorCode::kEmptyMessage, 0);
  Validator check(base);
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
    if (any && !MayFollow(previous, kind)) {
      const int k = static_cast<int>(kind);
      const int prev = static_cast<int>(previous);
      const uint32_t at = static_cast<uint32_t>(p - base);
      if (IsBody(kind) && IsBody(previous)) {
        if (kind != previous || kind == SectionKind::kAmqpValue) {
          return DecodeError::Make(DecodeErrorCode::kMixedBody, at, 0, prev, 0, SectionLabel(kind));
        }
      } else if (k == prev) {
        return DecodeError::Make(DecodeErrorCode::kDuplicateSection, at, 0, k, 0, SectionLabel(kind));
      } else if (k < prev) {
        return DecodeError::Make(DecodeErrorCode::kSectionOrder, at, 0, prev, 0, SectionLabel(kind));
      }
    }
    DecodeError e = CheckSection(kind, v.WithoutDescriptor());
    if (!e.ok()) return e;
    any = true;
    previous = kind;
    p = end;
  }
  return DecodeError();
}

}  // namespace explain

}  // namespace

DecodeError ValidateValue(std::span<const uint8_t> bytes) {
  if (fast::SingleValue(bytes)) return DecodeError();
  return explain::ExplainValue(bytes);
}

DecodeError Validate(std::span<const uint8_t> message) {
  fast::NoLayout none;
  if (fast::Message(message, &none)) return DecodeError();
  return explain::ExplainMessage(message);
}

bool WellFormedMessage(std::span<const uint8_t> message, MessageLayout* layout) {
  return fast::Message(message, layout);
}

namespace internal {
bool WellFormedMessage(std::span<const uint8_t> message) {
  fast::NoLayout none;
  return fast::Message(message, &none);
}
bool WellFormedValue(std::span<const uint8_t> bytes) { return fast::SingleValue(bytes); }
}  // namespace internal

}  // namespace sift::amqp
