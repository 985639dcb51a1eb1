// Full decode into pn_message_t; see proton_message.h.
//
// One pass over the message's sections with the project's readers checks each section and builds the
// value of every map and body section node by node (pn_data_put_*) straight into the pn_data_t of the
// message that keeps it, as Proton's own decoder (pn_data_decode) would have built it; header and
// properties fields are read in place and set through the pn_message setters. Nothing is decoded
// twice, nothing is copied node by node afterwards, and Proton's decoder is not used at all: building
// the nodes directly costs less than Proton's decode (which also walks the bytes) after our own walk.
//
// The structure checks are those of a faithful decode:
// - nesting at most kMaxProtonWalkDepth levels deep (limits.h);
// - every compound filled exactly by its elements (Proton's decoder reads a compound's count and
//   ignores its size, so bytes it would read out of step are refused);
// - an array's count at most its size (zero-width elements would otherwise let a few bytes make
//   billions of nodes);
// - a described value whose value is itself described (0x00 d 0x00 ...) only where nothing follows
//   it up to the end of its section: Proton 0.37's decoder fails to leave a level after one, so a
//   message holding one elsewhere would decode differently through Proton (pn_message_decode, or a
//   client re-reading what sift sends), and is refused rather than delivered two ways.
// Then come the message rules of core part 3, section 3.2: described sections with known
// descriptors, in spec order, each once, a body of one or more data, one or more amqp-sequence or
// one amqp-value section, each section's value of its type. All structure errors of the message are
// reported before the errors about what pn_message_t cannot hold (header and properties fields of
// the wrong type or with a NUL byte, lists too long, a second data or amqp-sequence section).
#include "amqp/proton_message.h"

#include <proton/error.h>

#include <bit>
#include <cstring>
#include <exception>
#include <string_view>

#include <fmt/format.h>

#include "base/amqp_fields.h"
#include "amqp/coding.h"
#include "amqp/decode_error.h"
#include "amqp/encoded_value.h"
#include "amqp/json_value.h"
#include "amqp/limits.h"
#include "amqp/type_codes.h"

namespace sift::amqp {
namespace {

// The pn_type_t Proton decodes a value with format code `c` into (PN_DESCRIBED for 0x00).
pn_type_t ProtonType(uint8_t c) {
  switch (c) {
    case code::kDescribed: return PN_DESCRIBED;
    case code::kNull: return PN_NULL;
    case code::kTrue:
    case code::kFalse:
    case code::kBoolean: return PN_BOOL;
    case code::kUByte: return PN_UBYTE;
    case code::kByte: return PN_BYTE;
    case code::kUShort: return PN_USHORT;
    case code::kShort: return PN_SHORT;
    case code::kUInt0:
    case code::kSmallUInt:
    case code::kUInt: return PN_UINT;
    case code::kSmallInt:
    case code::kInt: return PN_INT;
    case code::kChar: return PN_CHAR;
    case code::kFloat: return PN_FLOAT;
    case code::kSmallLong:
    case code::kLong: return PN_LONG;
    case code::kTimestamp: return PN_TIMESTAMP;
    case code::kDouble: return PN_DOUBLE;
    case code::kDecimal32: return PN_DECIMAL32;
    case code::kDecimal64: return PN_DECIMAL64;
    case code::kDecimal128: return PN_DECIMAL128;
    case code::kUuid: return PN_UUID;
    case code::kULong0:
    case code::kSmallULong:
    case code::kULong: return PN_ULONG;
    case code::kVbin8:
    case code::kVbin32: return PN_BINARY;
    case code::kStr8:
    case code::kStr32: return PN_STRING;
    case code::kSym8:
    case code::kSym32: return PN_SYMBOL;
    case code::kList0:
    case code::kList8:
    case code::kList32: return PN_LIST;
    case code::kMap8:
    case code::kMap32: return PN_MAP;
    case code::kArray8:
    case code::kArray32: return PN_ARRAY;
    default: return PN_INVALID;
  }
}

// Puts the scalar of format code c into d as Proton's decoder would: `data` is its payload (after the
// size prefix for binary, string and symbol), whose extent the caller has checked. list0 is the
// empty list.
void PutScalar(pn_data_t* d, uint8_t c, const uint8_t* data, size_t size) {
  switch (c) {
    case code::kNull: pn_data_put_null(d); return;
    case code::kTrue: pn_data_put_bool(d, true); return;
    case code::kFalse: pn_data_put_bool(d, false); return;
    case code::kBoolean: pn_data_put_bool(d, data[0] != 0); return;
    case code::kUByte: pn_data_put_ubyte(d, data[0]); return;
    case code::kByte: pn_data_put_byte(d, static_cast<int8_t>(data[0])); return;
    case code::kUShort: pn_data_put_ushort(d, base::LoadBE16(data)); return;
    case code::kShort: pn_data_put_short(d, static_cast<int16_t>(base::LoadBE16(data))); return;
    case code::kUInt0: pn_data_put_uint(d, 0); return;
    case code::kSmallUInt: pn_data_put_uint(d, data[0]); return;
    case code::kUInt: pn_data_put_uint(d, base::LoadBE32(data)); return;
    case code::kSmallInt: pn_data_put_int(d, static_cast<int8_t>(data[0])); return;
    case code::kInt: pn_data_put_int(d, static_cast<int32_t>(base::LoadBE32(data))); return;
    case code::kChar: pn_data_put_char(d, base::LoadBE32(data)); return;
    case code::kFloat: pn_data_put_float(d, std::bit_cast<float>(base::LoadBE32(data))); return;
    case code::kDecimal32: pn_data_put_decimal32(d, base::LoadBE32(data)); return;
    case code::kULong0: pn_data_put_ulong(d, 0); return;
    case code::kSmallULong: pn_data_put_ulong(d, data[0]); return;
    case code::kULong: pn_data_put_ulong(d, base::LoadBE64(data)); return;
    case code::kSmallLong: pn_data_put_long(d, static_cast<int8_t>(data[0])); return;
    case code::kLong: pn_data_put_long(d, static_cast<int64_t>(base::LoadBE64(data))); return;
    case code::kTimestamp: pn_data_put_timestamp(d, static_cast<int64_t>(base::LoadBE64(data))); return;
    case code::kDouble: pn_data_put_double(d, std::bit_cast<double>(base::LoadBE64(data))); return;
    case code::kDecimal64: pn_data_put_decimal64(d, base::LoadBE64(data)); return;
    case code::kDecimal128: {
      pn_decimal128_t v;
      std::memcpy(v.bytes, data, sizeof v.bytes);
      pn_data_put_decimal128(d, v);
      return;
    }
    case code::kUuid: {
      pn_uuid_t v;
      std::memcpy(v.bytes, data, sizeof v.bytes);
      pn_data_put_uuid(d, v);
      return;
    }
    case code::kList0: pn_data_put_list(d); return;
    case code::kVbin8:
    case code::kVbin32: pn_data_put_binary(d, pn_bytes(size, reinterpret_cast<const char*>(data))); return;
    case code::kStr8:
    case code::kStr32: pn_data_put_string(d, pn_bytes(size, reinterpret_cast<const char*>(data))); return;
    case code::kSym8:
    case code::kSym32: pn_data_put_symbol(d, pn_bytes(size, reinterpret_cast<const char*>(data))); return;
    default: return;  // not a scalar: the callers never pass one
  }
}

// Walks one section's value, checks it (the structure checks of the file comment, and every compound
// filled exactly by its elements) and, when given a destination, builds it there node by node as
// Proton's decoder would: one top-level value, the current node on it.
class ValueBuilder {
 public:
  explicit ValueBuilder(const uint8_t* base) : base_(base) {}

  // Walks the section at p (a top-level value, descriptor included), bounded by limit, building its
  // value (after the descriptor) into dst when dst is not null (it must be empty: pn_message_clear
  // empties the message's own); returns its end, or nullptr with error() set.
  const uint8_t* Section(const uint8_t* p, const uint8_t* limit, pn_data_t* dst) {
    const uint8_t* end;
    if (limit - p >= 4 && p[0] == code::kDescribed && p[1] == code::kSmallULong) {
      // 0x00 0x53 <code>, the form every client writes: only the value is left to walk.
      Start(p, dst);
      end = Value(p + 3, limit, 1);
      if (end != nullptr && p[3] == code::kDescribed) Note(p + 3, end);
    } else {
      Start(p, nullptr);
      end = Value(p, limit, 0);
    }
    return Finish(end);
  }

  // The pn_data_t the last Section() built the value into (nullptr: none).
  pn_data_t* built() const { return dst_; }

  // After a build: the first described value whose descriptor Proton's decoder refuses (a compound
  // other than list0, or a described value), which pn_data_t cannot be trusted with; nullptr if none.
  const uint8_t* refused_descriptor() const { return refused_; }

  // Builds the value [value, end) of the section at `section` (walked before by Section()) into dst
  // (empty).
  bool Build(const uint8_t* section, const uint8_t* value, const uint8_t* end, pn_data_t* dst) {
    Start(section, dst);
    return Finish(Value(value, end, 1)) != nullptr;
  }

  const std::string& error() const { return error_; }

 private:
  void Start(const uint8_t* section, pn_data_t* dst) {
    nested_ = nullptr;
    nested_end_ = nullptr;
    refused_ = nullptr;
    section_ = section;
    dst_ = dst;
  }

  const uint8_t* Finish(const uint8_t* end) {
    if (end == nullptr) return nullptr;
    if (nested_ != nullptr && nested_end_ != end) {
      return Fail(nested_,
                  "a described value inside a described value, followed by more values: "
                  "Proton 0.37 decodes this wrongly, so it cannot be fully decoded");
    }
    return end;
  }

  // The plain scalar at p (p < limit; its code below 0xc0 and not 0x00), built; its end, or nullptr
  // when it is not a valid value or does not fit (Value() then says why).
  const uint8_t* Scalar(const uint8_t* p, const uint8_t* limit) {
    const uint8_t c = *p;
    const uint8_t how = internal::kSkip.how[c];
    if (how <= 16) {
      if (static_cast<size_t>(limit - p) - 1 < how) return nullptr;
      if (dst_ != nullptr) PutScalar(dst_, c, p + 1, how);
      return p + 1 + how;
    }
    if (how == internal::kSlow) return nullptr;
    const uint8_t* data = nullptr;
    const uint8_t* end = internal::SizedExtent(how, p + 1, limit, &data);
    if (end != nullptr && dst_ != nullptr) PutScalar(dst_, c, data, static_cast<size_t>(end - data));
    return end;
  }

  const uint8_t* Value(const uint8_t* p, const uint8_t* limit, int depth) {
    if (depth > kMaxProtonWalkDepth) {
      return Fail(p, fmt::format("values nested deeper than {} levels", kMaxProtonWalkDepth));
    }
    if (p < limit) {
      const uint8_t c = *p;
      if (c == code::kDescribed) {
        if (dst_ != nullptr) {
          pn_data_put_described(dst_);
          pn_data_enter(dst_);
          CheckDescriptor(p + 1, limit);
        }
        const uint8_t* value = Value(p + 1, limit, depth + 1);  // the descriptor
        if (value == nullptr) return nullptr;
        const uint8_t* end = Value(value, limit, depth + 1);
        if (end == nullptr) return nullptr;
        if (dst_ != nullptr) pn_data_exit(dst_);
        if (*value == code::kDescribed) Note(value, end);
        return end;
      }
      if (c < code::kList8) {
        const uint8_t* end = Scalar(p, limit);
        if (end != nullptr) return end;
      } else if (c != code::kArray8 && c != code::kArray32) {
        // A list or map, the common compound, without the general reader.
        const bool map = (c & 0x0f) == 0x01;
        const uint8_t* q = nullptr;
        const uint8_t* end = nullptr;
        uint32_t count = 0;
        if (PlainCompound(p, limit, map, &q, &end, &count)) {
          if (dst_ != nullptr) {
            map ? pn_data_put_map(dst_) : pn_data_put_list(dst_);
            pn_data_enter(dst_);
          }
          if (!Elements(p, q, end, count, depth)) return nullptr;
          if (dst_ != nullptr) pn_data_exit(dst_);
          return end;
        }
      }
    }
    EncodedValue v;
    DecodeError e;
    const uint8_t* end = ReadValue(base_, p, limit, &v, &e);
    if (end == nullptr) return Fail(e);
    if (!v.is_compound()) return Fail(p, "not a value Proton can decode");  // Scalar() takes every other
    if (!Compound(v, depth)) return nullptr;
    return end;
  }

  // The plain compound v, whose body sits at `depth`: its node, then its elements inside it.
  bool Compound(const EncodedValue& v, int depth) {
    if (dst_ == nullptr) return Content(v, depth);
    if (v.is_array()) {
      pn_data_put_array(dst_, v.element_described(), ProtonType(v.element_format_code()));
    } else if (v.is_map()) {
      pn_data_put_map(dst_);
    } else {
      pn_data_put_list(dst_);
    }
    pn_data_enter(dst_);
    if (!Content(v, depth)) return false;
    pn_data_exit(dst_);
    return true;
  }

  // The elements of the plain compound v, whose body sits at `depth`.
  bool Content(const EncodedValue& v, int depth) {
    const uint8_t* q = v.payload().data();
    const uint8_t* const end = q + v.payload().size();
    if (!v.is_array()) return Elements(v.raw().data(), q, end, v.count(), depth);
    // The size prefix counts from the count prefix, which ends where the element constructor
    // (with its descriptor, if any) begins.
    const size_t width = v.format_code() == code::kArray8 ? 1 : 4;
    const uint8_t* const count_prefix = (v.element_described() ? v.element_descriptor_data() - 1 : q - 1) - width;
    const size_t size = static_cast<size_t>(end - count_prefix);
    if (v.count() > size) {
      Fail(count_prefix - width - 1, fmt::format("compound count {} exceeds its size {}", v.count(), size));
      return false;
    }
    if (v.element_described()) {
      if (dst_ != nullptr) CheckDescriptor(v.element_descriptor_data(), q - 1);
      if (Value(v.element_descriptor_data(), q - 1, depth + 2) == nullptr) return false;
    }
    const uint8_t ec = v.element_format_code();
    const int w = FixedWidth(ec);
    if (w >= 0) {
      const uint8_t* const elements_end = q + uint64_t{v.count()} * static_cast<uint64_t>(w);
      if (dst_ != nullptr && elements_end <= end) {
        // By count: zero-width elements (null, true, uint0, list0, ...) take no bytes.
        for (uint32_t i = 0; i < v.count(); ++i, q += w) PutScalar(dst_, ec, q, static_cast<size_t>(w));
      }
      return Filled(v.raw().data(), v.format_code(), elements_end, end, depth);
    }
    for (uint32_t i = 0; i < v.count(); ++i) {
      EncodedValue e;
      DecodeError error;
      q = ReadPayload(base_, ec, q, end, &e, &error);
      if (q == nullptr) return Fail(error) != nullptr;
      if (e.is_compound()) {
        if (!Compound(e, depth + 1)) return false;
      } else if (dst_ != nullptr) {
        PutScalar(dst_, ec, e.payload().data(), e.payload().size());
      }
    }
    return Filled(v.raw().data(), v.format_code(), q, end, depth);
  }

  // The `count` elements [q, end) of the list or map at `value`, whose body sits at `depth`.
  bool Elements(const uint8_t* value, const uint8_t* q, const uint8_t* end, uint32_t count, int depth) {
    for (uint32_t i = 0; i < count; ++i) {
      // Scalars (the common element) inline; compounds, described values and anything the quick
      // read does not take go through Value().
      const uint8_t* next = q < end && *q != code::kDescribed && *q < code::kList8 ? Scalar(q, end) : nullptr;
      q = next != nullptr ? next : Value(q, end, depth + 1);
      if (q == nullptr) return false;
    }
    return Filled(value, *value, q, end, depth);
  }

  // Notes the descriptor at d when Proton's decoder refuses it (see refused_descriptor()).
  void CheckDescriptor(const uint8_t* d, const uint8_t* limit) {
    if (refused_ == nullptr && d < limit && (*d == code::kDescribed || *d >= code::kList8)) refused_ = d;
  }

  // The elements of the compound at `value` (format code `code`), which end at q, must end at its end.
  bool Filled(const uint8_t* value, uint8_t code, const uint8_t* q, const uint8_t* end, int depth) {
    if (q == end) return true;
    if (depth == 1 && Below(section_, value)) {
      // The section's own value: what Proton's decoder would have said about the section.
      error_ = fmt::format("byte {}: Proton decoded {} bytes of a section {} bytes long", section_ - base_,
                           q - section_, end - section_);
      return false;
    }
    Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, static_cast<uint32_t>(value - base_), code,
                           static_cast<uint64_t>(end - q), 0));
    return false;
  }

  // True when the value at `value` is the value of the described section at `section` (with a
  // smallulong descriptor, the form every client writes; other forms get the reader's text).
  static bool Below(const uint8_t* section, const uint8_t* value) {
    return section[0] == code::kDescribed && section[1] == code::kSmallULong && value == section + 3;
  }

  // Remembers the nested described value [start, end) that ends first.
  void Note(const uint8_t* start, const uint8_t* end) {
    if (nested_ == nullptr || end < nested_end_) {
      nested_ = start;
      nested_end_ = end;
    }
  }

  const uint8_t* Fail(const uint8_t* at, std::string_view why) {
    error_ = fmt::format("byte {}: {}", at - base_, why);
    return nullptr;
  }
  // A reader's error, in the words of the byte-by-byte walk this decoder used before for what
  // runs past the end (so such errors name the byte where the missing bytes should be).
  const uint8_t* Fail(const DecodeError& e) {
    const uint8_t* at = base_ + e.offset;
    const uint8_t c = e.format_code;
    const size_t prefix = (c & 0x10) ? 4 : 1;
    const auto what = [&e](const char* name) { return e.what != nullptr && std::strcmp(e.what, name) == 0; };
    switch (e.code) {
      case DecodeErrorCode::kTruncated:
        if (what("constructor") || what("described value constructor")) {
          return Fail(at, "value runs past the end");
        }
        if (what("array element constructor")) return Fail(at, "array constructor runs past the end");
        if (what("count")) return Fail(at + 1 + prefix, "compound size runs past the end");
        return Fail(at + 1, "value runs past the end");
      case DecodeErrorCode::kLengthExceeds:
        if ((c >> 4) <= 0xb) return Fail(at + 1 + prefix, "value runs past the end");
        return Fail(at + 1 + prefix, "compound size runs past the end");
      default: error_ = e.Message(); return nullptr;
    }
  }

  const uint8_t* base_;
  const uint8_t* section_ = nullptr;
  pn_data_t* dst_ = nullptr;  // where values are built; nullptr: walk only
  const uint8_t* refused_ = nullptr;
  const uint8_t* nested_ = nullptr;
  const uint8_t* nested_end_ = nullptr;
  std::string error_;
};

// Rank in spec order: the three body kinds share one.
int Rank(SectionKind kind) {
  const int k = static_cast<int>(kind);
  if (kind == SectionKind::kData || kind == SectionKind::kAmqpSequence || kind == SectionKind::kAmqpValue) {
    return 5;
  }
  return k < 5 ? k : 6;
}

// The type each section's value must have; PN_INVALID for amqp-value (any).
pn_type_t SectionType(SectionKind kind) {
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties:
    case SectionKind::kAmqpSequence: return PN_LIST;
    case SectionKind::kData: return PN_BINARY;
    case SectionKind::kAmqpValue: return PN_INVALID;
    default: return PN_MAP;
  }
}

// One located, checked section.
struct Section {
  SectionKind kind = SectionKind::kHeader;
  const uint8_t* begin = nullptr;  // its first byte
  const uint8_t* value = nullptr;  // its value's first byte, after the descriptor
  const uint8_t* end = nullptr;
};

// Resolves the descriptor at d (core part 1, section 1.5: a ulong code or a symbol) of the section
// [d - 1, end); sets *value to the first byte after it. On failure *why names the descriptor.
bool ResolveDescriptor(const uint8_t* base, const uint8_t* d, const uint8_t* end, SectionKind* kind,
                       const uint8_t** value, std::string* why) {
  if (const uint8_t* after = SmallSectionDescriptor(d, end, kind)) {  // every client's form
    *value = after;
    return true;
  }
  EncodedValue v;
  *value = ReadValue(base, d, end, &v, nullptr);
  const uint8_t c = *value == nullptr || v.is_described() ? code::kDescribed : v.format_code();
  uint64_t u = 0;
  std::string_view s;
  if (ProtonType(c) == PN_ULONG && v.GetUnsigned(&u)) {
    if (SectionFromDescriptorCode(u, kind)) return true;
    *why = fmt::format("ulong 0x{:016x}", u);
  } else if (c != code::kDescribed && v.GetSymbol(&s)) {
    if (SectionFromDescriptorSymbol(s, kind)) return true;
    *why = fmt::format("symbol \"{}\"", s);
  } else {
    *why = fmt::format("a {}", JsonTypeName(ProtonType(c)));
  }
  return false;
}

// A header or properties field read in place: its format code (0x00 when described) and payload.
struct Field {
  uint8_t code = 0;
  const uint8_t* begin = nullptr;  // the whole encoding
  const uint8_t* end = nullptr;
  const uint8_t* data = nullptr;  // payload: fixed-width bytes, or the content of binary/string/symbol
  size_t size = 0;
};

// The end of the value at p, which the ValueBuilder has accepted (so it is well formed and at most
// kMaxProtonWalkDepth deep; its descriptors are skipped one by one, as the walk took them).
const uint8_t* SkipWalked(const uint8_t* base, const uint8_t* p, const uint8_t* limit) {
  if (*p == code::kDescribed) return SkipWalked(base, SkipWalked(base, p + 1, limit), limit);
  EncodedValue v;
  return ReadValue(base, p, limit, &v, nullptr);
}

// Reads the field at p (already walked, so well formed) bounded by limit.
const uint8_t* ReadField(const uint8_t* base, const uint8_t* p, const uint8_t* limit, Field* f) {
  f->begin = p;
  f->code = *p;
  if (f->code != code::kDescribed) {
    const uint8_t how = internal::kSkip.how[f->code];
    if (how <= 16) {
      f->data = p + 1;
      f->size = how;
      f->end = p + 1 + how;
      return f->end;
    }
    if (how == internal::kSize1 && (f->code >> 4) == 0xa) {
      f->data = p + 2;
      f->size = p[1];
      f->end = f->data + f->size;
      return f->end;
    }
    if (how == internal::kSize4 && (f->code >> 4) == 0xb) {
      f->data = p + 5;
      f->size = base::LoadBE32(p + 1);
      f->end = f->data + f->size;
      return f->end;
    }
  }
  f->data = nullptr;
  f->size = 0;
  f->end = SkipWalked(base, p, limit);
  return f->end;
}

class Decoder {
 public:
  Decoder(std::span<const uint8_t> bytes, pn_message_t* msg, pn_data_t* footer, std::string* error)
      : base_(bytes.data()), limit_(bytes.data() + bytes.size()), msg_(msg), footer_(footer), error_(error) {}

  bool Run() {
    pn_message_clear(msg_);
    if (footer_ != nullptr) pn_data_clear(footer_);
    if (!Structure()) return false;
    if (header_.value != nullptr && !Header()) return false;
    if (properties_.value != nullptr && !Properties()) return false;
    if (second_body_.value != nullptr) {
      return Fail(second_body_, "", "a second body section of this kind, which pn_message_t cannot hold");
    }
    return true;
  }

 private:
  size_t Offset(const uint8_t* p) const { return static_cast<size_t>(p - base_); }

  // Walks and checks every section; builds the map and body sections into the message.
  bool Structure() {
    int last_rank = -1;
    SectionKind previous = SectionKind::kHeader;
    size_t index = 0;
    std::string why;
    for (const uint8_t* p = base_; p < limit_; ++index) {
      const size_t offset = Offset(p);
      Section s;
      s.begin = p;
      // The kind, when the descriptor has the usual form, says where to build the value now.
      SectionKind peek = SectionKind::kHeader;
      const bool peeked = SmallSectionHeader(p, limit_, &peek) != nullptr;
      s.end = builder_.Section(p, limit_, peeked ? Destination(peek, peek == previous && last_rank == 5) : nullptr);
      if (s.end == nullptr) {
        *error_ = builder_.error();
        return false;
      }
      if (*p != code::kDescribed) {
        *error_ =
            fmt::format("byte {}: expected a described section, found a {}", offset, JsonTypeName(ProtonType(*p)));
        return false;
      }
      if (!ResolveDescriptor(base_, p + 1, s.end, &s.kind, &s.value, &why)) {
        *error_ = fmt::format("byte {}: unknown section descriptor {}", offset, why);
        return false;
      }
      const pn_type_t expected = SectionType(s.kind);
      const pn_type_t type = ProtonType(*s.value);
      if (expected != PN_INVALID && type != expected) {
        *error_ = fmt::format("byte {}: {} section holds a {}, expected a {}", offset, SectionName(s.kind),
                              JsonTypeName(type), JsonTypeName(expected));
        return false;
      }
      const int rank = Rank(s.kind);
      if (rank < last_rank) {
        *error_ = fmt::format(
            "byte {}: {} section after a later section (core 3.2: sections come "
            "in spec order)",
            offset, SectionName(s.kind));
        return false;
      }
      bool repeat = false;
      if (rank == last_rank) {
        repeat = s.kind == previous && (s.kind == SectionKind::kData || s.kind == SectionKind::kAmqpSequence);
        if (!repeat) {
          if (rank == 5) {
            *error_ = fmt::format(
                "byte {}: {} section after {} section (core 3.2: the body is one "
                "or more data, one or more amqp-sequence, or one amqp-value "
                "section)",
                offset, SectionName(s.kind), SectionName(previous));
          } else {
            *error_ = fmt::format("byte {}: second {} section", offset, SectionName(s.kind));
          }
          return false;
        }
      }
      last_rank = rank;
      previous = s.kind;
      pn_data_t* const dst = Destination(s.kind, repeat);
      if (dst != nullptr && dst != builder_.built() && !builder_.Build(s.begin, s.value, s.end, dst)) {
        *error_ = builder_.error();  // not expected: the section was walked above
        return false;
      }
      if (dst != nullptr && builder_.refused_descriptor() != nullptr) {
        *error_ = fmt::format("byte {}: section {}: {}", offset, index, RefusedDescriptor());
        return false;
      }
      Keep(s, repeat);
      p = s.end;
    }
    return true;
  }

  // Where the value of a section goes: the message's pn_data_t for it, or nullptr for the sections
  // read in place (header, properties) or dropped (a repeated data or amqp-sequence section, reported
  // later; a footer nobody asked for).
  pn_data_t* Destination(SectionKind kind, bool repeat) const {
    switch (kind) {
      case SectionKind::kHeader:
      case SectionKind::kProperties: return nullptr;
      case SectionKind::kDeliveryAnnotations: return pn_message_instructions(msg_);
      case SectionKind::kMessageAnnotations: return pn_message_annotations(msg_);
      case SectionKind::kApplicationProperties: return pn_message_properties(msg_);
      case SectionKind::kData:
      case SectionKind::kAmqpSequence: return repeat ? nullptr : pn_message_body(msg_);
      case SectionKind::kAmqpValue: return pn_message_body(msg_);
      case SectionKind::kFooter: return footer_;
    }
    return nullptr;
  }

  // Notes a checked section: where the header and properties are, the first repeated body section,
  // and Proton's body convention.
  void Keep(const Section& s, bool repeat) {
    switch (s.kind) {
      case SectionKind::kHeader: header_ = s; return;
      case SectionKind::kProperties: properties_ = s; return;
      case SectionKind::kData:
      case SectionKind::kAmqpSequence:
        if (repeat) {
          if (second_body_.value == nullptr) second_body_ = s;
          return;
        }
        // Proton's convention: a data or amqp-sequence body is "inferred" (core 3.2.6, 3.2.7).
        pn_message_set_inferred(msg_, true);
        return;
      case SectionKind::kAmqpValue: pn_message_set_inferred(msg_, false); return;
      default: return;
    }
  }

  bool Fail(const Section& s, std::string_view field, std::string_view why) {
    *error_ =
        fmt::format("byte {}: {}{}{}: {}", Offset(s.begin), SectionName(s.kind), field.empty() ? "" : " ", field, why);
    return false;
  }

  bool WrongType(const Section& s, std::string_view field, const Field& f, std::string_view expected) {
    return Fail(s, field, fmt::format("has type {}, expected {}", JsonTypeName(ProtonType(f.code)), expected));
  }

  // The elements of a header or properties list: *count and where they start.
  static const uint8_t* ListElements(const Section& s, uint32_t* count) {
    const uint8_t c = *s.value;
    if (c == code::kList0) {
      *count = 0;
      return s.value + 1;
    }
    if (c == code::kList8) {
      *count = s.value[2];
      return s.value + 3;
    }
    *count = base::LoadBE32(s.value + 5);
    return s.value + 9;
  }

  static bool IsUInt(uint8_t c) { return c == code::kUInt || c == code::kSmallUInt || c == code::kUInt0; }
  static uint32_t UInt(const Field& f) {
    return f.code == code::kUInt ? base::LoadBE32(f.data) : f.code == code::kSmallUInt ? f.data[0] : 0;
  }
  static bool IsBool(uint8_t c) { return c == code::kTrue || c == code::kFalse || c == code::kBoolean; }
  static bool Bool(const Field& f) { return f.code == code::kTrue || (f.code == code::kBoolean && f.data[0] != 0); }

  // core part 3, section 3.2.1.
  bool Header() {
    const Section& s = header_;
    uint32_t count = 0;
    const uint8_t* q = ListElements(s, &count);
    if (count > amqp::kHeaderFieldCount) {
      return Fail(s, "", fmt::format("list has {} fields, the spec defines {}", count, amqp::kHeaderFieldCount));
    }
    const auto name = [](uint32_t i) { return amqp::kHeaderFields[i].name; };
    Field f;
    for (uint32_t i = 0; i < count; ++i) {
      q = ReadField(base_, q, s.end, &f);
      if (f.code == code::kNull) continue;
      switch (i) {
        case 0:
        case 3:
          if (!IsBool(f.code)) return WrongType(s, name(i), f, "a boolean");
          if (i == 0) {
            pn_message_set_durable(msg_, Bool(f));
          } else {
            pn_message_set_first_acquirer(msg_, Bool(f));
          }
          break;
        case 1:
          if (f.code != code::kUByte) return WrongType(s, name(i), f, "a ubyte");
          pn_message_set_priority(msg_, f.data[0]);
          break;
        default:
          if (!IsUInt(f.code)) return WrongType(s, name(i), f, "a uint");
          if (i == 2) {
            pn_message_set_ttl(msg_, UInt(f));
          } else {
            pn_message_set_delivery_count(msg_, UInt(f));
          }
          break;
      }
    }
    return true;
  }

  // A string or symbol field through a setter taking NUL-terminated text.
  bool Text(const Section& s, std::string_view field, const Field& f, int (*set)(pn_message_t*, const char*)) {
    if (f.code != code::kStr8 && f.code != code::kStr32 && f.code != code::kSym8 && f.code != code::kSym32) {
      return WrongType(s, field, f, "a string");
    }
    if (std::memchr(f.data, '\0', f.size) != nullptr) {
      return Fail(s, field, "holds a NUL character, which pn_message_t cannot keep");
    }
    char small[256];
    if (f.size >= sizeof(small)) {
      text_.assign(reinterpret_cast<const char*>(f.data), f.size);
      set(msg_, text_.c_str());
      return true;
    }
    std::memcpy(small, f.data, f.size);
    small[f.size] = '\0';
    set(msg_, small);
    return true;
  }

  // message-id or correlation-id: any type, kept as it is (the field was walked with its section).
  bool Id(const Section& s, const Field& f, pn_data_t* dst) {
    if (!builder_.Build(s.begin, f.begin, f.end, dst)) {
      return Fail(s, "", fmt::format("cannot decode the field at byte {} ({})", Offset(f.begin), builder_.error()));
    }
    if (builder_.refused_descriptor() == nullptr) return true;
    return Fail(s, "", fmt::format("cannot decode the field at byte {}: {}", Offset(f.begin), RefusedDescriptor()));
  }

  std::string RefusedDescriptor() const {
    const uint8_t* d = builder_.refused_descriptor();
    return fmt::format("the descriptor at byte {} is a {}, which Proton's decoder refuses", Offset(d),
                       JsonTypeName(ProtonType(*d)));
  }

  static bool IsText(uint8_t c) {
    return c == code::kStr8 || c == code::kStr32 || c == code::kSym8 || c == code::kSym32;
  }

  // core part 3, section 3.2.4.
  bool Properties() {
    const Section& s = properties_;
    uint32_t count = 0;
    const uint8_t* q = ListElements(s, &count);
    if (count > amqp::kPropertiesFieldCount) {
      return Fail(s, "", fmt::format("list has {} fields, the spec defines {}", count, amqp::kPropertiesFieldCount));
    }
    const auto name = [](amqp::PropertiesField f) { return amqp::PropertiesFieldName(f); };
    using F = amqp::PropertiesField;
    Field f;
    for (uint32_t i = 0; i < count; ++i) {
      q = ReadField(base_, q, s.end, &f);
      if (f.code == code::kNull) continue;
      switch (i) {
        case 0:  // message-id: any type is kept as it is (core 3.2.11 - 3.2.15 allow four)
          if (!Id(s, f, pn_message_id(msg_))) return false;
          break;
        case 5:  // correlation-id
          if (!Id(s, f, pn_message_correlation_id(msg_))) return false;
          break;
        case 1:
          if (f.code != code::kVbin8 && f.code != code::kVbin32) {
            return WrongType(s, name(F::kUserId), f, "a binary");
          }
          pn_message_set_user_id(msg_, pn_bytes(f.size, reinterpret_cast<const char*>(f.data)));
          break;
        case 2:
          if (!Text(s, name(F::kTo), f, pn_message_set_address)) return false;
          break;
        case 3:
          if (!Text(s, name(F::kSubject), f, pn_message_set_subject)) return false;
          break;
        case 4:
          if (!Text(s, name(F::kReplyTo), f, pn_message_set_reply_to)) return false;
          break;
        case 6:
          if (!Text(s, name(F::kContentType), f, pn_message_set_content_type)) return false;
          break;
        case 7:
          if (!Text(s, name(F::kContentEncoding), f, pn_message_set_content_encoding)) return false;
          break;
        case 8:
          if (f.code != code::kTimestamp) {
            return WrongType(s, name(F::kAbsoluteExpiryTime), f, "a timestamp");
          }
          pn_message_set_expiry_time(msg_, static_cast<pn_timestamp_t>(base::LoadBE64(f.data)));
          break;
        case 9:
          if (f.code != code::kTimestamp) return WrongType(s, name(F::kCreationTime), f, "a timestamp");
          pn_message_set_creation_time(msg_, static_cast<pn_timestamp_t>(base::LoadBE64(f.data)));
          break;
        case 10:
          if (!Text(s, name(F::kGroupId), f, pn_message_set_group_id)) return false;
          break;
        case 11:
          if (!IsUInt(f.code)) return WrongType(s, name(F::kGroupSequence), f, "a uint");
          // pn_sequence_t is signed; Proton writes it back as the same 32 bits of a uint.
          pn_message_set_group_sequence(msg_, static_cast<pn_sequence_t>(UInt(f)));
          break;
        case 12:
          if (!Text(s, name(F::kReplyToGroupId), f, pn_message_set_reply_to_group_id)) return false;
          break;
      }
    }
    return true;
  }

  const uint8_t* base_;
  const uint8_t* limit_;
  pn_message_t* msg_;
  pn_data_t* footer_;
  std::string* error_;
  ValueBuilder builder_{base_};
  Section header_;
  Section properties_;
  Section second_body_;  // the first data or amqp-sequence section after the first
  std::string text_;     // a text field too long for the stack buffer
};

}  // namespace

ConversionStatus DecodeToProton(std::span<const uint8_t> bytes, pn_message_t* out, pn_data_t* footer) {
  try {
    std::string error;
    Decoder decoder(bytes, out, footer, &error);
    if (!decoder.Run()) return ConversionStatus::Error(error);
    return ConversionStatus::Ok();
  } catch (const std::exception& e) {
    return ConversionStatus::Error(fmt::format("cannot decode the message: {}", e.what()));
  }
}

}  // namespace sift::amqp
