// One encoded AMQP 1.0 value, located but not decoded: a view over the message bytes.
//
// An EncodedValue is what the Cursor yields: the value's format code, its extent, and where its payload
// lies. Nothing is decoded until a typed getter (GetUnsigned, GetString, ...) or ToValue() asks, and
// a compound is descended into only when ElementAt / FindKey / Step or a Cursor over its elements asks
// ("validate what you use", as in simdjson On-Demand). Locating a value is O(1) whatever its size:
// compounds are skipped through their size prefix.
//
// Invariants: [raw().data(), raw().data() + raw().size()) lies inside the buffer the value was read
// from, and so does payload(); every getter reads only there. An EncodedValue does not own bytes: it
// and every view it returns live as long as the buffer it was read from. Copying one is cheap (a few
// pointers) and never allocates; nothing in this header allocates.
#ifndef SIFT_ENGINE_AMQP_ENCODED_VALUE_H_
#define SIFT_ENGINE_AMQP_ENCODED_VALUE_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/byte_order.h"
#include "amqp/decode_error.h"
#include "amqp/limits.h"
#include "amqp/type_codes.h"
#include "base/amqp_value.h"

namespace sift::amqp {

class ValueReader;

class EncodedValue {
 public:
  EncodedValue() = default;

  // True once a reader has filled this value in.
  bool valid() const { return begin_ != nullptr; }

  // The value's format code (type_codes.h); for a described value, the code of the described value
  // itself, after the descriptor.
  uint8_t format_code() const { return code_; }
  bool is_described() const { return descriptor_ != nullptr; }
  bool is_null() const { return code_ == code::kNull; }
  bool is_list() const { return code_ == code::kList0 || code_ == code::kList8 || code_ == code::kList32; }
  bool is_map() const { return code_ == code::kMap8 || code_ == code::kMap32; }
  bool is_array() const { return code_ == code::kArray8 || code_ == code::kArray32; }
  bool is_compound() const { return is_list() || is_map() || is_array(); }

  // Elements of a list or array; keys plus values of a map (twice its entries). 0 for non-compounds.
  uint32_t count() const { return count_; }

  // The whole encoding: constructor (with any descriptor), size/count prefixes and payload. For an
  // element of an array, which shares the array's constructor, just the element's own bytes.
  std::span<const uint8_t> raw() const { return {begin_, static_cast<size_t>(end_ - begin_)}; }
  // The payload: the value bytes of a fixed-width type, the content of binary / string / symbol, the
  // elements of a compound (for an array, the bytes after its element constructor).
  std::span<const uint8_t> payload() const { return {data_, size_}; }
  // Byte offset of raw() from the start of the buffer the value was read from.
  uint32_t offset() const { return static_cast<uint32_t>(begin_ - base_); }

  // Arrays: the format code of the elements (after any element descriptor) and whether the element
  // constructor is described (core part 1, section 1.4: the constructor appears once).
  uint8_t element_format_code() const { return element_code_; }
  bool element_described() const { return element_descriptor_ != nullptr; }
  // Arrays with a described element constructor: the first byte of the element descriptor's encoding
  // (which ends just before the element format code); nullptr otherwise.
  const uint8_t* element_descriptor_data() const { return element_descriptor_; }

  // The descriptor of a described value (false if this value is not described).
  bool Descriptor(EncodedValue* out, DecodeError* error = nullptr) const;
  // This value with its descriptor dropped (itself when not described).
  // A value with several descriptors (0x00 d1 0x00 d2 ...) loses the outer one.
  EncodedValue WithoutDescriptor() const;

  // The value as the selector sees it: scalars typed (byte-carrying types view into the buffer),
  // compounds as kList / kMap / kArray with data()/size() spanning raw(), a described value as
  // kDescribed (use WithoutDescriptor() for the value inside), kMissing for an invalid EncodedValue.
  amqp::Value ToValue() const;

  // Typed getters: true and *out set when the value (not described) has one of the named types.
  bool GetBoolean(bool* out) const;                     // boolean (0x41, 0x42, 0x56)
  bool GetUnsigned(uint64_t* out) const;                // ubyte, ushort, uint*, ulong*
  bool GetSigned(int64_t* out) const;                   // byte, short, int*, long*
  bool GetDouble(double* out) const;                    // float (widened), double
  bool GetTimestamp(int64_t* out) const;                // ms since the Unix epoch
  bool GetChar(uint32_t* out) const;                    // UTF-32 code point
  bool GetString(std::string_view* out) const;          // str8 / str32 (UTF-8, not checked here)
  bool GetSymbol(std::string_view* out) const;          // sym8 / sym32
  bool GetBinary(std::span<const uint8_t>* out) const;  // vbin8 / vbin32
  bool GetUuid(std::span<const uint8_t>* out) const;    // 16 raw bytes

  // Compound access. Each returns true and fills *out when found; false when not found or when the
  // compound is malformed on the way (then *error, if given, says where and why; it is left ok() for a
  // plain "not found"; *out may have been written). A described compound is looked into through its
  // descriptor.
  //
  // Element `index` of a list or array (O(1) for arrays of fixed-width elements, else a skip per
  // element).
  bool ElementAt(uint64_t index, EncodedValue* out, DecodeError* error = nullptr) const;
  // The value of the first map entry whose key is a string or symbol equal to `key`, or a ulong whose
  // decimal text is `key` (annotation maps may use ulong keys, core part 3, section 3.2.10).
  bool FindKey(std::string_view key, EncodedValue* out, DecodeError* error = nullptr) const;
  // The value of the first map entry whose key is the ulong `key`.
  bool FindULongKey(uint64_t key, EncodedValue* out, DecodeError* error = nullptr) const;

 private:
  friend class Cursor;
  friend class ValueReader;  // encoded_value.cc: fills values in

  const uint8_t* base_ = nullptr;                // start of the buffer (offsets in errors)
  const uint8_t* begin_ = nullptr;               // first byte of raw()
  const uint8_t* end_ = nullptr;                 // one past the last byte of raw()
  const uint8_t* data_ = nullptr;                // payload
  const uint8_t* descriptor_ = nullptr;          // first byte of the descriptor's encoding, if described
  const uint8_t* element_descriptor_ = nullptr;  // arrays: first byte of the element descriptor
  uint32_t size_ = 0;                            // payload bytes
  uint32_t count_ = 0;                           // compound elements
  uint8_t code_ = 0;
  uint8_t element_code_ = 0;  // arrays: element format code
};

// Parses a map key given as text that may name a ulong key: canonical decimal ("12345", no sign, no
// leading zero) that fits in 64 bits. Annotation keys are symbols or ulongs (core 3.2.10), and a
// selector names both kinds as text.
bool ParseDecimalKey(std::string_view text, uint64_t* out);

// Parses one value — constructor, any descriptor, size/count prefix — at p, bounded by limit,
// without looking inside compounds. Returns the first byte after the value, or nullptr with *error
// set (offsets relative to base; *out is then unspecified). Nested descriptors deeper than
// kMaxDescriptorDepth are an error.
const uint8_t* ReadValue(const uint8_t* base, const uint8_t* p, const uint8_t* limit, EncodedValue* out,
                         DecodeError* error);
// Like ReadValue, for a value whose constructor was already read (array elements): `format_code` is
// the element constructor's code; p is the first payload byte.
const uint8_t* ReadPayload(const uint8_t* base, uint8_t format_code, const uint8_t* p, const uint8_t* limit,
                           EncodedValue* out, DecodeError* error);

namespace internal {
// How SkipPlainValue moves past a value by its first byte: a fixed payload width (0..16), a 1-byte or
// 4-byte size prefix, or kSlow (described values and invalid codes).
inline constexpr uint8_t kSize1 = 0x81;
inline constexpr uint8_t kSize4 = 0x84;
inline constexpr uint8_t kSlow = 0xff;
// What a walk that looks inside values (strict validation) must check beyond a value's extent, by
// format code.
enum class ValueKind : uint8_t {
  kFixed,      // fixed-width payload, any bits (null, true, false, numbers, timestamp, uuid, ...)
  kBoolean,    // 0x56: one byte, 0 or 1
  kChar,       // 0x73: four bytes, a Unicode scalar value
  kList0,      // 0x45: the empty list (a compound with no payload)
  kBinary,     // vbin8 / vbin32: sized, any bytes
  kString,     // str8 / str32: sized UTF-8
  kSymbol,     // sym8 / sym32: sized 7-bit ASCII
  kList,       // list8 / list32: size, count, elements
  kMap,        // map8 / map32: size, even count, keys and values
  kArray,      // array8 / array32: size, count, one element constructor, element payloads
  kDescribed,  // 0x00: a descriptor, then the described value's constructor
  kInvalid,    // not a format code
};
struct SkipTable {
  uint8_t how[256];
  ValueKind kind[256];
  constexpr SkipTable() : how(), kind() {
    for (int c = 0; c < 256; ++c) {
      const uint8_t code = static_cast<uint8_t>(c);
      if (!IsValidFormatCode(code)) {
        how[c] = kSlow;
      } else if (FixedWidth(code) >= 0) {
        how[c] = static_cast<uint8_t>(FixedWidth(code));
      } else {
        how[c] = (code & 0x10) ? kSize4 : kSize1;
      }
      kind[c] = !IsValidFormatCode(code) ? ValueKind::kInvalid
                : code == code::kBoolean ? ValueKind::kBoolean
                : code == code::kChar    ? ValueKind::kChar
                : code == code::kList0   ? ValueKind::kList0
                : FixedWidth(code) >= 0  ? ValueKind::kFixed
                : (code >> 4) >= 0xe     ? ValueKind::kArray
                : (code >> 4) >= 0xc     ? ((code & 0x0f) == 0x01 ? ValueKind::kMap : ValueKind::kList)
                : (code & 0x0f) == 0x01  ? ValueKind::kString
                : (code & 0x0f) == 0x03  ? ValueKind::kSymbol
                                         : ValueKind::kBinary;
    }
    kind[code::kDescribed] = ValueKind::kDescribed;
  }
};
inline constexpr SkipTable kSkip;

// Reads the 1-byte or 4-byte (how: kSize1 / kSize4) big-endian size or count prefix at p into *n:
// the first byte after it, or nullptr when it does not fit before limit.
inline const uint8_t* ReadSizePrefix(uint8_t how, const uint8_t* p, const uint8_t* limit, uint32_t* n) {
  const size_t left = p < limit ? static_cast<size_t>(limit - p) : 0;
  if (how == kSize1) {
    if (left < 1) return nullptr;
    *n = p[0];
    return p + 1;
  }
  if (left < 4) return nullptr;
  *n = base::LoadBE32(p);
  return p + 4;
}

// The extent of a sized value (binary, string, symbol or compound) whose constructor has skip class
// `how` and whose size prefix is at p: its end, with *data set to the first byte after the prefix;
// nullptr when the prefix does not fit or the size exceeds the bytes left before limit.
inline const uint8_t* SizedExtent(uint8_t how, const uint8_t* p, const uint8_t* limit, const uint8_t** data) {
  uint32_t n = 0;
  const uint8_t* q = ReadSizePrefix(how, p, limit, &n);
  if (q == nullptr || n > static_cast<size_t>(limit - q)) return nullptr;
  *data = q;
  return q + n;
}

// How a compound's count relates to its size: a list's or map's elements take at least one byte
// each, and a map holds keys and values in pairs.
inline bool ListOrMapCountFits(bool map, uint32_t count, size_t element_bytes) {
  return count <= element_bytes && !(map && (count & 1) != 0);
}
// The fewest bytes `count` array elements of format code `element_code` take: count * width for
// fixed-width elements, one byte (the size prefix) each for the others.
inline uint64_t ArrayElementsMinBytes(uint8_t element_code, uint32_t count) {
  const int w = FixedWidth(element_code);
  return w >= 0 ? uint64_t{count} * static_cast<uint64_t>(w) : uint64_t{count};
}
}  // namespace internal

// The first byte after the plain (not described) value at p, found from its constructor and size
// prefix alone, or nullptr when the value is described, invalid or does not fit before limit (the
// caller then takes SkipValue / ReadValue, which say why). The hot-path skip, inline.
inline const uint8_t* SkipPlainValue(const uint8_t* p, const uint8_t* limit) {
  if (p >= limit) return nullptr;
  const uint8_t how = internal::kSkip.how[*p];
  const size_t left = static_cast<size_t>(limit - p) - 1;
  if (how <= 16) return left >= how ? p + 1 + how : nullptr;
  if (how == internal::kSlow) return nullptr;
  const uint8_t* data = nullptr;
  return internal::SizedExtent(how, p + 1, limit, &data);
}

// The compound at `at` (a section's value, bounded by limit) when it is a plain list (list0 /
// list8 / list32) or map (map8 / map32) whose size, count (and, for a map, count parity) are
// sound — the checks ReadValue makes — as its elements [*p, *end) and count; false otherwise.
[[gnu::always_inline]] inline bool PlainCompound(const uint8_t* at, const uint8_t* limit, bool map, const uint8_t** p,
                                                 const uint8_t** end, uint32_t* count) {
  if (at >= limit) return false;
  const uint8_t c = at[0];
  if (!map && c == code::kList0) {
    *p = at + 1;
    *end = at + 1;
    *count = 0;
    return true;
  }
  using internal::ValueKind;
  if (internal::kSkip.kind[c] != (map ? ValueKind::kMap : ValueKind::kList)) return false;
  const uint8_t how = internal::kSkip.how[c];
  const uint8_t* data = nullptr;  // the count prefix
  const uint8_t* e = internal::SizedExtent(how, at + 1, limit, &data);
  if (e == nullptr) return false;
  uint32_t n = 0;
  const uint8_t* elements = internal::ReadSizePrefix(how, data, e, &n);
  if (elements == nullptr || !internal::ListOrMapCountFits(map, n, static_cast<size_t>(e - elements))) {
    return false;
  }
  *p = elements;
  *end = e;
  *count = n;
  return true;
}

namespace internal {
// The amqp::Value of a plain (not described) non-compound value with format code `c`, whose
// payload `d` (`size` bytes) is known to be inside the buffer: what EncodedValue::ToValue() gives.
// False for compound codes (list0 included) and invalid ones. Shared by ToValue() and
// ReadSelectorValue() so the two cannot disagree. Kept out of line: ReadSelectorValue() is then small
// enough to be inlined into the field readers, whose common case (str8 / sym8 / vbin8) needs no call.
[[gnu::noinline]] inline bool PlainValue(uint8_t c, const uint8_t* d, uint32_t size, amqp::Value* out) {
  auto bytes = [&](ValueType t) {
    *out = Value::Bytes(t, {reinterpret_cast<const char*>(d), size});
    return true;
  };
  switch (c) {
    case code::kStr8:
    case code::kStr32: return bytes(ValueType::kString);
    case code::kSym8:
    case code::kSym32: return bytes(ValueType::kSymbol);
    case code::kVbin8:
    case code::kVbin32: return bytes(ValueType::kBinary);
    case code::kNull: *out = Value::Null(); return true;
    case code::kTrue: *out = Value::Boolean(true); return true;
    case code::kFalse: *out = Value::Boolean(false); return true;
    case code::kBoolean: *out = Value::Boolean(d[0] != 0); return true;
    case code::kUByte: *out = Value::Unsigned(ValueType::kUByte, d[0]); return true;
    case code::kUShort: *out = Value::Unsigned(ValueType::kUShort, base::LoadBE16(d)); return true;
    case code::kUInt0: *out = Value::Unsigned(ValueType::kUInt, 0); return true;
    case code::kSmallUInt: *out = Value::Unsigned(ValueType::kUInt, d[0]); return true;
    case code::kUInt: *out = Value::Unsigned(ValueType::kUInt, base::LoadBE32(d)); return true;
    case code::kULong0: *out = Value::Unsigned(ValueType::kULong, 0); return true;
    case code::kSmallULong: *out = Value::Unsigned(ValueType::kULong, d[0]); return true;
    case code::kULong: *out = Value::Unsigned(ValueType::kULong, base::LoadBE64(d)); return true;
    case code::kByte: *out = Value::Signed(ValueType::kByte, static_cast<int8_t>(d[0])); return true;
    case code::kShort: *out = Value::Signed(ValueType::kShort, static_cast<int16_t>(base::LoadBE16(d))); return true;
    case code::kSmallInt: *out = Value::Signed(ValueType::kInt, static_cast<int8_t>(d[0])); return true;
    case code::kInt: *out = Value::Signed(ValueType::kInt, static_cast<int32_t>(base::LoadBE32(d))); return true;
    case code::kSmallLong: *out = Value::Signed(ValueType::kLong, static_cast<int8_t>(d[0])); return true;
    case code::kLong: *out = Value::Signed(ValueType::kLong, static_cast<int64_t>(base::LoadBE64(d))); return true;
    case code::kFloat: *out = Value::Float(std::bit_cast<float>(base::LoadBE32(d))); return true;
    case code::kDouble: *out = Value::Double(std::bit_cast<double>(base::LoadBE64(d))); return true;
    case code::kDecimal32: return bytes(ValueType::kDecimal32);
    case code::kDecimal64: return bytes(ValueType::kDecimal64);
    case code::kDecimal128: return bytes(ValueType::kDecimal128);
    case code::kChar: *out = Value::Char(base::LoadBE32(d)); return true;
    case code::kTimestamp: *out = Value::Timestamp(static_cast<int64_t>(base::LoadBE64(d))); return true;
    case code::kUuid: return bytes(ValueType::kUuid);
    default: return false;
  }
}

const uint8_t* ReadSelectorValueSlow(const uint8_t* base, const uint8_t* p, const uint8_t* limit, amqp::Value* out,
                                     DecodeError* error);
}  // namespace internal

// ReadValue(base, p, limit, &v, error) followed by *out = v.ToValue(), in one step: the same end
// pointer, the same errors (nullptr with *error set), the same value. Plain
// fixed-width values and str8 / sym8 / vbin8 are decoded inline without an EncodedValue in between;
// *out is written only on success (a failed read leaves it as it was);
// anything else takes ReadValue. Views in *out point into the buffer.
inline const uint8_t* ReadSelectorValue(const uint8_t* base, const uint8_t* p, const uint8_t* limit, amqp::Value* out,
                                        DecodeError* error) {
  if (p < limit) {
    const uint8_t c = *p;
    const uint8_t how = internal::kSkip.how[c];
    const size_t left = static_cast<size_t>(limit - p) - 1;
    if (how <= 16) {
      if (left >= how && internal::PlainValue(c, p + 1, how, out)) return p + 1 + how;
    } else if (how == internal::kSize1 && (c >> 4) == 0xa && left >= 1 && p[1] <= left - 1) {
      // vbin8 (0xa0), str8 (0xa1), sym8 (0xa3): the only valid 0xa_ codes.
      const amqp::ValueType t = c == code::kStr8   ? amqp::ValueType::kString
                                : c == code::kSym8 ? amqp::ValueType::kSymbol
                                                   : amqp::ValueType::kBinary;
      *out = amqp::Value::Bytes(t, {reinterpret_cast<const char*>(p + 2), p[1]});
      return p + 2 + p[1];
    }
  }
  return internal::ReadSelectorValueSlow(base, p, limit, out, error);
}

// Looks up text key `key` in the map whose encoding starts at `map` (its constructor; map8 or
// map32), bounded by limit: as EncodedValue::FindKey, without materialising the map first. False
// when `map` is not a map (error untouched), the key is absent, or the map is malformed (*error set).
bool FindKeyInMap(const uint8_t* base, const uint8_t* map, const uint8_t* limit, std::string_view key,
                  EncodedValue* out, DecodeError* error);

// Skips the value at p: returns the first byte after it, or nullptr with *error set when it is
// malformed. O(1): a compound is skipped through its size prefix without looking at its count or
// elements (so a bad count inside a skipped compound is not an error here; Validate() finds it).
const uint8_t* SkipValue(const uint8_t* base, const uint8_t* p, const uint8_t* limit, DecodeError* error);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_ENCODED_VALUE_H_
