// Locating one encoded value (ReadValue / ReadPayload) and reading it lazily (encoded_value.h).
//
// Everything here is bounded by the `limit` a caller passes: sizes and counts are checked against the
// bytes left before anything behind them is touched, so the payload span of a located value is always
// inside the buffer and the typed getters can load from it without further checks.
#include "amqp/encoded_value.h"

#include <bit>
#include <cstring>

#include "base/byte_order.h"
#include "amqp/coding.h"
#include "amqp/cursor.h"

namespace sift::amqp {
namespace {

uint32_t Offset(const uint8_t* base, const uint8_t* p) { return static_cast<uint32_t>(p - base); }

const char* CodeName(uint8_t format_code) { return FormatCodeName(format_code).data(); }

const uint8_t* Fail(DecodeError* error, const DecodeError& e) {
  if (error != nullptr) *error = e;
  return nullptr;
}

// Reads a size or count prefix of `width` (1 or 4) bytes.
const uint8_t* ReadPrefix(const uint8_t* p, const uint8_t* limit, int width, uint32_t* out) {
  return internal::ReadSizePrefix(width == 1 ? internal::kSize1 : internal::kSize4, p, limit, out);
}

}  // namespace

bool ParseDecimalKey(std::string_view text, uint64_t* out) {
  if (text.empty() || text.size() > 20 || (text.size() > 1 && text[0] == '0')) return false;
  uint64_t v = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
    const uint64_t d = static_cast<uint64_t>(ch - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

class ValueReader {
 public:
  static const uint8_t* Value(const uint8_t* base, const uint8_t* p, const uint8_t* limit, EncodedValue* out,
                              DecodeError* error, int depth) {
    const uint8_t* begin = p;
    uint8_t c = 0;
    p = ReadU8(p, limit, &c);
    if (p == nullptr) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, begin), 0, 1, 0, "constructor"));
    }
    const uint8_t* descriptor = nullptr;
    const uint8_t* ctor = begin;
    // A described value: 0x00, the descriptor (itself any value), then the value's constructor, which
    // may again be 0x00 (core part 1, section 1.2). Bounded by kMaxDescriptorDepth.
    int levels = depth;
    while (c == code::kDescribed) {
      if (levels >= kMaxDescriptorDepth) {
        return Fail(error, DecodeError::Make(DecodeErrorCode::kTooDeep, Offset(base, ctor), 0, kMaxDescriptorDepth, 0,
                                             "descriptors"));
      }
      ++levels;
      if (descriptor == nullptr) descriptor = p;
      EncodedValue d;
      p = Value(base, p, limit, &d, error, levels);
      if (p == nullptr) return nullptr;
      ctor = p;
      p = ReadU8(p, limit, &c);
      if (p == nullptr) {
        return Fail(error, DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, ctor), 0, 1, 0,
                                             "described value constructor"));
      }
    }
    // Filled in place (no local copy): the caller's value is often read right away, and a copy
    // of a freshly written struct stalls on store forwarding.
    EncodedValue& v = *out;
    v.base_ = base;
    v.begin_ = begin;
    v.descriptor_ = descriptor;
    v.element_descriptor_ = nullptr;
    v.element_code_ = 0;
    v.code_ = c;
    const uint8_t* end = Payload(base, c, ctor, p, limit, &v, error, levels);
    if (end == nullptr) return nullptr;
    v.end_ = end;
    return end;
  }

  // Parses the payload at p of a value whose format code `c` is already read; `ctor` is where its
  // constructor is (for error offsets). Fills data_, size_, count_ and the array element fields.
  static const uint8_t* Payload(const uint8_t* base, uint8_t c, const uint8_t* ctor, const uint8_t* p,
                                const uint8_t* limit, EncodedValue* v, DecodeError* error, int depth) {
    const size_t left = BytesLeft(p, limit);
    if (!IsValidFormatCode(c)) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kInvalidFormatCode, Offset(base, ctor), c));
    }
    const int width = FixedWidth(c);
    if (width >= 0) {
      if (left < static_cast<size_t>(width)) {
        return Fail(error,
                    DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, ctor), c, width, left, CodeName(c)));
      }
      v->data_ = p;
      v->size_ = static_cast<uint32_t>(width);
      v->count_ = 0;
      return p + width;
    }
    const int prefix = (c & 0x10) ? 4 : 1;  // 0xa/0xc/0xe: 1-byte size; 0xb/0xd/0xf: 4-byte size
    uint32_t n = 0;
    const uint8_t* q = ReadPrefix(p, limit, prefix, &n);
    if (q == nullptr) {
      return Fail(error,
                  DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, ctor), c, prefix, left, CodeName(c)));
    }
    const size_t after = BytesLeft(q, limit);
    const uint8_t category = c >> 4;
    if (n > after) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kLengthExceeds, Offset(base, ctor), c, n, after,
                                           category <= 0xb ? "length" : "size"));
    }
    const uint8_t* end = q + n;
    if (category == 0xa || category == 0xb) {  // binary, string, symbol
      v->data_ = q;
      v->size_ = n;
      v->count_ = 0;
      return end;
    }
    // Compounds: a count inside the size.
    uint32_t count = 0;
    const uint8_t* e = ReadPrefix(q, end, prefix, &count);
    if (e == nullptr) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, ctor), c, prefix, n, "count"));
    }
    const uint32_t body = static_cast<uint32_t>(end - e);
    if (category == 0xc || category == 0xd) {  // list, map: each element is at least one byte
      if (!internal::ListOrMapCountFits((c & 0x0f) == 0x01, count, body)) {
        if (count > body) {
          return Fail(error, DecodeError::Make(DecodeErrorCode::kCountExceedsSize, Offset(base, ctor), c, count, n));
        }
        return Fail(error, DecodeError::Make(DecodeErrorCode::kOddMapCount, Offset(base, ctor), c, count));
      }
      v->data_ = e;
      v->size_ = body;
      v->count_ = count;
      return end;
    }
    // Arrays: the element constructor once, then `count` payloads (core part 1, section 1.4).
    const uint8_t* ec = e;
    uint8_t elem = 0;
    const uint8_t* r = ReadU8(e, end, &elem);
    if (r == nullptr) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, ec), c, 1, 0,
                                           "array element constructor"));
    }
    const uint8_t* edesc = nullptr;
    if (elem == code::kDescribed) {
      if (depth >= kMaxDescriptorDepth) {
        return Fail(error, DecodeError::Make(DecodeErrorCode::kTooDeep, Offset(base, ec), 0, kMaxDescriptorDepth, 0,
                                             "descriptors"));
      }
      edesc = r;
      EncodedValue d;
      r = Value(base, r, end, &d, error, depth + 1);
      if (r == nullptr) return nullptr;
      ec = r;
      r = ReadU8(r, end, &elem);
      if (r == nullptr) {
        return Fail(error, DecodeError::Make(DecodeErrorCode::kTruncated, Offset(base, ec), c, 1, 0,
                                             "array element constructor"));
      }
      if (elem == code::kDescribed) {  // one descriptor per element constructor is all we take
        return Fail(error, DecodeError::Make(DecodeErrorCode::kInvalidArrayElement, Offset(base, ec), elem));
      }
    }
    if (!IsValidFormatCode(elem)) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kInvalidFormatCode, Offset(base, ec), elem));
    }
    const uint32_t elements_size = static_cast<uint32_t>(end - r);
    // Fixed-width elements must fit (Validate() demands an exact fill); variable-width elements take
    // at least one byte each (their size prefix).
    if (internal::ArrayElementsMinBytes(elem, count) > elements_size) {
      return Fail(error, DecodeError::Make(DecodeErrorCode::kCountExceedsSize, Offset(base, ctor), c, count, n));
    }
    v->data_ = r;
    v->size_ = elements_size;
    v->count_ = count;
    v->element_code_ = elem;
    v->element_descriptor_ = edesc;
    return end;
  }

  // An array element: payload at p with the array's element constructor.
  static const uint8_t* Element(const uint8_t* base, uint8_t c, const uint8_t* element_descriptor, const uint8_t* p,
                                const uint8_t* limit, EncodedValue* out, DecodeError* error) {
    EncodedValue v;
    v.base_ = base;
    v.begin_ = p;
    v.code_ = c;
    v.descriptor_ = element_descriptor;
    const uint8_t* end = Payload(base, c, p, p, limit, &v, error, 1);
    if (end == nullptr) return nullptr;
    v.end_ = end;
    *out = v;
    return end;
  }

  // A fixed-width array element, without parsing (its extent is known from the array's size check).
  static void FixedElement(const EncodedValue& array, uint64_t index, EncodedValue* out) {
    const int w = FixedWidth(array.element_code_);
    EncodedValue v;
    v.base_ = array.base_;
    v.begin_ = array.data_ + index * static_cast<uint64_t>(w);
    v.end_ = v.begin_ + w;
    v.data_ = v.begin_;
    v.size_ = static_cast<uint32_t>(w);
    v.code_ = array.element_code_;
    v.descriptor_ = array.element_descriptor_;
    *out = v;
  }

  // The end of the value at p when it is a plain (not described), well-bounded encoding; nullptr
  // otherwise, and the caller falls back to Value() for the error.
  static const uint8_t* QuickSkip(const uint8_t* p, const uint8_t* limit) { return SkipPlainValue(p, limit); }

  static bool KeyIsText(const EncodedValue& k, std::string_view key) {
    const uint8_t c = k.code_;
    if (k.descriptor_ != nullptr) return false;
    if (c != code::kStr8 && c != code::kSym8 && c != code::kStr32 && c != code::kSym32) {
      return false;
    }
    return k.size_ == key.size() && std::memcmp(k.data_, key.data(), key.size()) == 0;
  }

  // Map lookup by text key (string or symbol), or by ulong key given as decimal text. The common
  // case — str8 / sym8 keys, plain values — is compared and skipped in place, without building an
  // EncodedValue per entry.
  static bool FindText(const EncodedValue& map, std::string_view key, EncodedValue* out, DecodeError* error) {
    if (map.begin_ == nullptr || !map.is_map()) return false;
    return FindTextIn(map.base_, map.data_, map.data_ + map.size_, map.count_, key, out, error);
  }

  static bool FindTextIn(const uint8_t* base, const uint8_t* p, const uint8_t* end, uint32_t count,
                         std::string_view key, EncodedValue* out, DecodeError* error) {
    uint64_t number = 0;
    int numeric = -1;  // parsed lazily: most maps have no ulong keys
    DecodeError e;
    for (uint32_t i = count / 2; i > 0; --i) {
      bool match = false;
      const uint8_t* kend = nullptr;
      const size_t left = BytesLeft(p, end);
      if (left >= 2 && (p[0] == code::kStr8 || p[0] == code::kSym8) && size_t{p[1]} <= left - 2) {
        const uint8_t n = p[1];
        match = n == key.size() && std::memcmp(p + 2, key.data(), n) == 0;
        kend = p + 2 + n;
      } else {
        EncodedValue k;
        kend = Value(base, p, end, &k, &e, 0);
        if (kend == nullptr) break;
        uint64_t u = 0;
        if (KeyIsText(k, key)) {
          match = true;
        } else if (k.descriptor_ == nullptr &&
                   (k.code_ == code::kULong || k.code_ == code::kSmallULong || k.code_ == code::kULong0) &&
                   k.GetUnsigned(&u)) {
          if (numeric < 0) numeric = ParseDecimalKey(key, &number) ? 1 : 0;
          match = numeric == 1 && u == number;
        }
      }
      if (match) {
        if (Value(base, kend, end, out, &e, 0) == nullptr) break;
        return true;
      }
      p = QuickSkip(kend, end);
      if (p == nullptr) {
        EncodedValue v;
        p = Value(base, kend, end, &v, &e, 0);
        if (p == nullptr) break;
      }
    }
    if (!e.ok() && error != nullptr) *error = e;
    return false;
  }

  // The value inside a described value (which may itself be described).
  static EncodedValue Inner(const EncodedValue& v) {
    EncodedValue inner = v;
    inner.descriptor_ = nullptr;
    if (v.descriptor_ == nullptr || v.descriptor_ != v.begin_ + 1) return inner;  // array element
    EncodedValue d;
    const uint8_t* p = Value(v.base_, v.descriptor_, v.end_, &d, nullptr, 0);
    if (p == nullptr || p >= v.end_) return inner;
    inner.begin_ = p;
    if (*p == code::kDescribed) inner.descriptor_ = p + 1;
    return inner;
  }
};

const uint8_t* ReadValue(const uint8_t* base, const uint8_t* p, const uint8_t* limit, EncodedValue* out,
                         DecodeError* error) {
  return ValueReader::Value(base, p, limit, out, error, 0);
}

const uint8_t* internal::ReadSelectorValueSlow(const uint8_t* base, const uint8_t* p, const uint8_t* limit,
                                               amqp::Value* out, DecodeError* error) {
  EncodedValue v;
  const uint8_t* end = ValueReader::Value(base, p, limit, &v, error, 0);
  if (end != nullptr) *out = v.ToValue();
  return end;
}

const uint8_t* SkipValue(const uint8_t* base, const uint8_t* p, const uint8_t* limit, DecodeError* error) {
  const uint8_t* end = ValueReader::QuickSkip(p, limit);
  if (end != nullptr) return end;
  EncodedValue v;
  return ValueReader::Value(base, p, limit, &v, error, 0);
}

const uint8_t* ReadPayload(const uint8_t* base, uint8_t format_code, const uint8_t* p, const uint8_t* limit,
                           EncodedValue* out, DecodeError* error) {
  return ValueReader::Element(base, format_code, nullptr, p, limit, out, error);
}

// ---- Cursor (cursor.h) ----

Cursor::Cursor(std::span<const uint8_t> bytes)
    : base_(bytes.data()), p_(bytes.data()), limit_(bytes.data() + bytes.size()) {}

Cursor::Cursor(const uint8_t* base, const uint8_t* p, const uint8_t* limit) : base_(base), p_(p), limit_(limit) {}

Cursor Cursor::Elements(const EncodedValue& compound) {
  Cursor c;
  if (!compound.is_compound()) return c;  // an empty compound's cursor is done at its payload
  c.base_ = compound.base_;
  c.p_ = compound.data_;
  c.limit_ = compound.data_ + compound.size_;
  c.counted_ = true;
  c.remaining_ = compound.count_;
  if (compound.is_array()) {
    c.array_ = true;
    c.element_code_ = compound.element_code_;
    c.element_descriptor_ = compound.element_descriptor_;
  }
  return c;
}

bool Cursor::Next(EncodedValue* out) {
  if (!error_.ok()) return false;
  if (counted_ ? remaining_ == 0 : p_ >= limit_) return false;
  const uint8_t* next = array_
                            ? ValueReader::Element(base_, element_code_, element_descriptor_, p_, limit_, out, &error_)
                            : ValueReader::Value(base_, p_, limit_, out, &error_, 0);
  if (next == nullptr) return false;
  p_ = next;
  if (counted_) --remaining_;
  return true;
}

// ---- EncodedValue ----

bool EncodedValue::Descriptor(EncodedValue* out, DecodeError* error) const {
  if (descriptor_ == nullptr) return false;
  return ValueReader::Value(base_, descriptor_, end_, out, error, 1) != nullptr;
}

EncodedValue EncodedValue::WithoutDescriptor() const { return ValueReader::Inner(*this); }

amqp::Value EncodedValue::ToValue() const {
  if (begin_ == nullptr) return Value::Missing();
  if (descriptor_ != nullptr) {
    Value v = Value::Compound(ValueType::kDescribed);
    v.data = reinterpret_cast<const char*>(begin_);
    v.size = static_cast<uint32_t>(end_ - begin_);
    return v;
  }
  Value v;
  if (internal::PlainValue(code_, data_, size_, &v)) return v;
  ValueType t = is_map() ? ValueType::kMap : is_array() ? ValueType::kArray : ValueType::kList;
  v = Value::Compound(t);
  v.data = reinterpret_cast<const char*>(begin_);
  v.size = static_cast<uint32_t>(end_ - begin_);
  return v;
}

bool EncodedValue::GetBoolean(bool* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  switch (code_) {
    case code::kTrue: *out = true; return true;
    case code::kFalse: *out = false; return true;
    case code::kBoolean: *out = data_[0] != 0; return true;
    default: return false;
  }
}

bool EncodedValue::GetUnsigned(uint64_t* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  switch (code_) {
    case code::kUByte:
    case code::kSmallUInt:
    case code::kSmallULong: *out = data_[0]; return true;
    case code::kUShort: *out = base::LoadBE16(data_); return true;
    case code::kUInt: *out = base::LoadBE32(data_); return true;
    case code::kULong: *out = base::LoadBE64(data_); return true;
    case code::kUInt0:
    case code::kULong0: *out = 0; return true;
    default: return false;
  }
}

bool EncodedValue::GetSigned(int64_t* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  switch (code_) {
    case code::kByte:
    case code::kSmallInt:
    case code::kSmallLong: *out = static_cast<int8_t>(data_[0]); return true;
    case code::kShort: *out = static_cast<int16_t>(base::LoadBE16(data_)); return true;
    case code::kInt: *out = static_cast<int32_t>(base::LoadBE32(data_)); return true;
    case code::kLong: *out = static_cast<int64_t>(base::LoadBE64(data_)); return true;
    default: return false;
  }
}

bool EncodedValue::GetDouble(double* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  if (code_ == code::kFloat) {
    *out = std::bit_cast<float>(base::LoadBE32(data_));
    return true;
  }
  if (code_ == code::kDouble) {
    *out = std::bit_cast<double>(base::LoadBE64(data_));
    return true;
  }
  return false;
}

bool EncodedValue::GetTimestamp(int64_t* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr || code_ != code::kTimestamp) return false;
  *out = static_cast<int64_t>(base::LoadBE64(data_));
  return true;
}

bool EncodedValue::GetChar(uint32_t* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr || code_ != code::kChar) return false;
  *out = base::LoadBE32(data_);
  return true;
}

bool EncodedValue::GetString(std::string_view* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  if (code_ != code::kStr8 && code_ != code::kStr32) return false;
  *out = {reinterpret_cast<const char*>(data_), size_};
  return true;
}

bool EncodedValue::GetSymbol(std::string_view* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  if (code_ != code::kSym8 && code_ != code::kSym32) return false;
  *out = {reinterpret_cast<const char*>(data_), size_};
  return true;
}

bool EncodedValue::GetBinary(std::span<const uint8_t>* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr) return false;
  if (code_ != code::kVbin8 && code_ != code::kVbin32) return false;
  *out = {data_, size_};
  return true;
}

bool EncodedValue::GetUuid(std::span<const uint8_t>* out) const {
  if (begin_ == nullptr || descriptor_ != nullptr || code_ != code::kUuid) return false;
  *out = {data_, size_};
  return true;
}

bool EncodedValue::ElementAt(uint64_t index, EncodedValue* out, DecodeError* error) const {
  if (begin_ == nullptr || !(is_list() || is_array()) || index >= count_) return false;
  if (is_array() && FixedWidth(element_code_) >= 0) {
    ValueReader::FixedElement(*this, index, out);  // O(1): extent checked when the array was read
    return true;
  }
  Cursor c = Cursor::Elements(*this);
  EncodedValue v;
  for (uint64_t i = 0; i <= index; ++i) {
    if (!c.Next(&v)) {
      if (error != nullptr) *error = c.error();
      return false;
    }
  }
  *out = v;
  return true;
}

namespace {

// Walks a map's entries; calls match(key) on each key, returns the value of the first match.
template <typename Match>
bool FindEntry(const EncodedValue& map, Match match, EncodedValue* out, DecodeError* error) {
  if (!map.valid() || !map.is_map()) return false;
  Cursor c = Cursor::Elements(map);
  EncodedValue key;
  EncodedValue value;
  while (c.Next(&key)) {
    if (!c.Next(&value)) break;
    if (match(key)) {
      *out = value;
      return true;
    }
  }
  if (!c.ok() && error != nullptr) *error = c.error();
  return false;
}

}  // namespace

bool FindKeyInMap(const uint8_t* base, const uint8_t* map, const uint8_t* limit, std::string_view key,
                  EncodedValue* out, DecodeError* error) {
  const size_t left = BytesLeft(map, limit);
  if (left >= 3 && map[0] == code::kMap8 && size_t{map[1]} <= left - 2 && map[1] >= 1 && map[2] <= map[1] - 1 &&
      (map[2] & 1) == 0) {
    // map8 whose size, count and parity are sound: scan in place.
    const uint8_t* data = map + 3;
    return ValueReader::FindTextIn(base, data, map + 2 + map[1], map[2], key, out, error);
  }
  EncodedValue m;
  DecodeError e;
  if (ReadValue(base, map, limit, &m, &e) == nullptr) {
    if (error != nullptr) *error = e;
    return false;
  }
  return ValueReader::FindText(m, key, out, error);
}

bool EncodedValue::FindKey(std::string_view key, EncodedValue* out, DecodeError* error) const {
  return ValueReader::FindText(*this, key, out, error);
}

bool EncodedValue::FindULongKey(uint64_t key, EncodedValue* out, DecodeError* error) const {
  return FindEntry(
      *this,
      [&](const EncodedValue& k) {
        const uint8_t c = k.format_code();
        uint64_t u = 0;
        return !k.is_described() && (c == code::kULong || c == code::kSmallULong || c == code::kULong0) &&
               k.GetUnsigned(&u) && u == key;
      },
      out, error);
}

}  // namespace sift::amqp
