// Full decode into pn_message_t; see proton_message.h.
//
// One pass over the message's sections with the project's readers (ReadValue, SkipPlainValue) checks
// the structure that Proton's decoder cannot be trusted with, and every map and body section is then
// handed to Proton's own C decoder (pn_data_decode) straight into the pn_data_t of the message that
// keeps it. Header and properties fields are read in place and set through the pn_message setters.
// Nothing is decoded twice and nothing is copied node by node.
//
// The structure checks are those a decode through Proton needs to be safe and faithful:
// - nesting at most kMaxWalkDepth levels deep (Proton 0.37's decoder recurses without a limit);
// - a described value whose value is itself described (0x00 d 0x00 ...) only where nothing follows
//   it up to the end of its section: after one, Proton 0.37 fails to leave a level, so what follows
//   would land in the wrong container, silently;
// - an array's count at most its size (zero-width elements would otherwise let a few bytes make
//   Proton build billions of nodes);
// - a compound's elements inside its size; in the sections Proton decodes, that Proton's decoder
//   ends exactly at the section's end (it reads a compound's count and ignores its size, so a
//   compound its elements do not fill would be read out of step with its bytes); in the sections
//   read in place or dropped (header, properties, a footer nobody asked for), that every compound
//   is filled exactly by its elements, which is what that comes to.
// Then come the message rules of core part 3, section 3.2: described sections with known
// descriptors, in spec order, each once, a body of one or more data, one or more amqp-sequence or
// one amqp-value section, each section's value of its type. All structure errors of the message are
// reported before the errors about what pn_message_t cannot hold (header and properties fields of
// the wrong type or with a NUL byte, lists too long, a second data or amqp-sequence section).
#include "engine/amqp/proton_message.h"

#include <proton/error.h>

#include <cstring>
#include <exception>
#include <string_view>

#include <fmt/format.h>

#include "engine/amqp/coding.h"
#include "engine/amqp/decode_error.h"
#include "engine/amqp/encoded_value.h"
#include "engine/amqp/json_value.h"
#include "engine/amqp/type_codes.h"

namespace sift::amqp {
namespace {

constexpr int kMaxWalkDepth = 200;

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

bool IsSizedCompound(uint8_t c) {
  return c == code::kList8 || c == code::kList32 || c == code::kMap8 || c == code::kMap32 || c == code::kArray8 ||
         c == code::kArray32;
}

// The structure checks of the file comment, over one section at a time.
class StructureWalk {
 public:
  explicit StructureWalk(const uint8_t* base) : base_(base) {}

  // Walks the section at p (a top-level value), bounded by limit; returns its end, or nullptr with
  // error() set.
  // With `exact`, every compound must be filled exactly by its elements.
  const uint8_t* Section(const uint8_t* p, const uint8_t* limit, bool exact) {
    nested_ = nullptr;
    nested_end_ = nullptr;
    exact_ = exact;
    section_ = p;
    const uint8_t* end;
    if (limit - p >= 4 && p[0] == code::kDescribed && p[1] == code::kSmallULong) {
      // 0x00 0x53 <code>, the form every client writes: only the value is left to walk.
      end = Value(p + 3, limit, 1);
      if (end != nullptr && p[3] == code::kDescribed) Note(p + 3, end);
    } else {
      end = Value(p, limit, 0);
    }
    if (end == nullptr) return nullptr;
    if (nested_ != nullptr && nested_end_ != end) {
      return Fail(nested_,
                  "a described value inside a described value, followed by more values: "
                  "Proton 0.37 decodes this wrongly, so it cannot be fully decoded");
    }
    return end;
  }

  const std::string& error() const { return error_; }

 private:
  const uint8_t* Value(const uint8_t* p, const uint8_t* limit, int depth) {
    if (depth > kMaxWalkDepth) {
      return Fail(p, fmt::format("values nested deeper than {} levels", kMaxWalkDepth));
    }
    if (p < limit) {
      const uint8_t c = *p;
      if (c == code::kDescribed) {
        const uint8_t* value = Value(p + 1, limit, depth + 1);  // the descriptor
        if (value == nullptr) return nullptr;
        const uint8_t* end = Value(value, limit, depth + 1);
        if (end == nullptr) return nullptr;
        if (*value == code::kDescribed) Note(value, end);
        return end;
      }
      if (!IsSizedCompound(c)) {
        const uint8_t* end = SkipPlainValue(p, limit);
        if (end != nullptr) return end;
      }
    }
    EncodedValue v;
    DecodeError e;
    const uint8_t* end = ReadValue(base_, p, limit, &v, &e);
    if (end == nullptr) return Fail(e);
    if (v.is_compound() && !Content(v, depth)) return nullptr;
    return end;
  }

  // The elements of the plain compound v, whose body sits at `depth`.
  bool Content(const EncodedValue& v, int depth) {
    const uint8_t* q = v.payload().data();
    const uint8_t* const end = q + v.payload().size();
    if (!v.is_array()) {
      for (uint32_t i = 0; i < v.count(); ++i) {
        // Scalars (the common element) inline; compounds, described values and anything the
        // quick skip does not take go through Value().
        const uint8_t* next = q < end && *q != code::kDescribed && *q < code::kList8 ? SkipPlainValue(q, end) : nullptr;
        q = next != nullptr ? next : Value(q, end, depth + 1);
        if (q == nullptr) return false;
      }
      return Filled(v, q, end, depth);
    }
    // The size prefix counts from the count prefix, which ends where the element constructor
    // (with its descriptor, if any) begins.
    const size_t width = v.format_code() == code::kArray8 ? 1 : 4;
    const uint8_t* const count_prefix = (v.element_described() ? v.element_descriptor_data() - 1 : q - 1) - width;
    const size_t size = static_cast<size_t>(end - count_prefix);
    if (v.count() > size) {
      Fail(count_prefix - width - 1, fmt::format("compound count {} exceeds its size {}", v.count(), size));
      return false;
    }
    if (v.element_described() && Value(v.element_descriptor_data(), q - 1, depth + 2) == nullptr) {
      return false;
    }
    const uint8_t ec = v.element_format_code();
    const int w = FixedWidth(ec);
    if (w >= 0) return Filled(v, q + uint64_t{v.count()} * static_cast<uint64_t>(w), end, depth);
    for (uint32_t i = 0; i < v.count(); ++i) {
      EncodedValue e;
      DecodeError error;
      q = ReadPayload(base_, ec, q, end, &e, &error);
      if (q == nullptr) return Fail(error) != nullptr;
      if (e.is_compound() && !Content(e, depth + 1)) return false;
    }
    return Filled(v, q, end, depth);
  }

  // In an exact walk, the elements of v, which end at q, must end at its end.
  bool Filled(const EncodedValue& v, const uint8_t* q, const uint8_t* end, int depth) {
    if (!exact_ || q == end) return true;
    if (depth == 1 && v.raw().data() + v.raw().size() == end && Below(section_, v.raw().data())) {
      // The section's own value: what Proton's decoder would have said about the section.
      error_ = fmt::format("byte {}: Proton decoded {} bytes of a section {} bytes long", section_ - base_,
                           q - section_, end - section_);
      return false;
    }
    Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, v.offset(), v.format_code(), static_cast<uint64_t>(end - q),
                           0));
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
  bool exact_ = false;
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

// Decodes the encoded value [p, end) into dst with Proton's decoder, leaving dst as a node-by-node
// copy would: one top-level value, the current node on it.
bool ProtonDecode(const uint8_t* p, const uint8_t* end, pn_data_t* dst, ssize_t* used) {
  pn_data_clear(dst);
  *used = pn_data_decode(dst, reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
  if (*used != end - p) return false;
  pn_data_rewind(dst);
  pn_data_next(dst);
  return true;
}

// A header or properties field read in place: its format code (0x00 when described) and payload.
struct Field {
  uint8_t code = 0;
  const uint8_t* begin = nullptr;  // the whole encoding
  const uint8_t* end = nullptr;
  const uint8_t* data = nullptr;  // payload: fixed-width bytes, or the content of binary/string/symbol
  size_t size = 0;
};

// The end of the value at p, which the StructureWalk has accepted (so it is well formed and at most
// kMaxWalkDepth deep; its descriptors are skipped one by one, as the walk took them).
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
      f->size = LoadU32(p + 1);
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

  // Walks and checks every section; decodes the map and body sections into the message.
  bool Structure() {
    StructureWalk walk(base_);
    int last_rank = -1;
    SectionKind previous = SectionKind::kHeader;
    size_t index = 0;
    std::string why;
    for (const uint8_t* p = base_; p < limit_; ++index) {
      const size_t offset = Offset(p);
      Section s;
      s.begin = p;
      // The kind, when the descriptor has the usual form, says whether to walk exactly now.
      SectionKind peek = SectionKind::kHeader;
      const bool peeked = SmallSectionHeader(p, limit_, &peek) != nullptr;
      const bool exact = peeked && ReadInPlace(peek, peek == previous && last_rank == 5);
      s.end = walk.Section(p, limit_, exact);
      if (s.end == nullptr) {
        *error_ = walk.error();
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
      if (!exact && ReadInPlace(s.kind, repeat) && walk.Section(p, limit_, true) == nullptr) {
        *error_ = walk.error();
        return false;
      }
      last_rank = rank;
      previous = s.kind;
      if (!Keep(s, repeat, index)) return false;
      p = s.end;
    }
    return true;
  }

  // True for the sections Proton's decoder does not see: read in place or dropped.
  bool ReadInPlace(SectionKind kind, bool repeat) const {
    switch (kind) {
      case SectionKind::kHeader:
      case SectionKind::kProperties: return true;
      case SectionKind::kFooter: return footer_ == nullptr;
      case SectionKind::kData:
      case SectionKind::kAmqpSequence: return repeat;
      default: return false;
    }
  }

  // Where a checked section goes.
  bool Keep(const Section& s, bool repeat, size_t index) {
    pn_data_t* dst = nullptr;
    switch (s.kind) {
      case SectionKind::kHeader: header_ = s; return true;
      case SectionKind::kProperties: properties_ = s; return true;
      case SectionKind::kDeliveryAnnotations: dst = pn_message_instructions(msg_); break;
      case SectionKind::kMessageAnnotations: dst = pn_message_annotations(msg_); break;
      case SectionKind::kApplicationProperties: dst = pn_message_properties(msg_); break;
      case SectionKind::kData:
      case SectionKind::kAmqpSequence:
        if (repeat) {
          if (second_body_.value == nullptr) second_body_ = s;
          return true;
        }
        // Proton's convention: a data or amqp-sequence body is "inferred" (core 3.2.6, 3.2.7).
        pn_message_set_inferred(msg_, true);
        dst = pn_message_body(msg_);
        break;
      case SectionKind::kAmqpValue:
        pn_message_set_inferred(msg_, false);
        dst = pn_message_body(msg_);
        break;
      case SectionKind::kFooter:
        if (footer_ == nullptr) return true;
        dst = footer_;
        break;
    }
    ssize_t used = 0;
    if (ProtonDecode(s.value, s.end, dst, &used)) return true;
    if (used <= 0) {
      const char* text = pn_error_text(pn_data_error(dst));
      *error_ = fmt::format("byte {}: section {}: not a well-formed AMQP value ({}{}{})", Offset(s.begin), index,
                            used == 0 ? "no progress" : pn_code(static_cast<int>(used)),
                            text != nullptr && *text != '\0' ? ": " : "", text != nullptr ? text : "");
    } else {
      *error_ = fmt::format("byte {}: Proton decoded {} bytes of a section {} bytes long", Offset(s.begin),
                            (s.value - s.begin) + used, s.end - s.begin);
    }
    return false;
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
    *count = LoadU32(s.value + 5);
    return s.value + 9;
  }

  static bool IsUInt(uint8_t c) { return c == code::kUInt || c == code::kSmallUInt || c == code::kUInt0; }
  static uint32_t UInt(const Field& f) {
    return f.code == code::kUInt ? LoadU32(f.data) : f.code == code::kSmallUInt ? f.data[0] : 0;
  }
  static bool IsBool(uint8_t c) { return c == code::kTrue || c == code::kFalse || c == code::kBoolean; }
  static bool Bool(const Field& f) { return f.code == code::kTrue || (f.code == code::kBoolean && f.data[0] != 0); }

  // core part 3, section 3.2.1.
  bool Header() {
    const Section& s = header_;
    uint32_t count = 0;
    const uint8_t* q = ListElements(s, &count);
    if (count > 5) return Fail(s, "", fmt::format("list has {} fields, the spec defines 5", count));
    static constexpr std::string_view kNames[] = {"durable", "priority", "ttl", "first-acquirer", "delivery-count"};
    Field f;
    for (uint32_t i = 0; i < count; ++i) {
      q = ReadField(base_, q, s.end, &f);
      if (f.code == code::kNull) continue;
      switch (i) {
        case 0:
        case 3:
          if (!IsBool(f.code)) return WrongType(s, kNames[i], f, "a boolean");
          if (i == 0) {
            pn_message_set_durable(msg_, Bool(f));
          } else {
            pn_message_set_first_acquirer(msg_, Bool(f));
          }
          break;
        case 1:
          if (f.code != code::kUByte) return WrongType(s, kNames[i], f, "a ubyte");
          pn_message_set_priority(msg_, f.data[0]);
          break;
        default:
          if (!IsUInt(f.code)) return WrongType(s, kNames[i], f, "a uint");
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

  // message-id or correlation-id: any type, kept as it is, by Proton's decoder.
  bool Id(const Section& s, const Field& f, pn_data_t* dst) {
    ssize_t used = 0;
    if (ProtonDecode(f.begin, f.end, dst, &used)) return true;
    const char* text = pn_error_text(pn_data_error(dst));
    return Fail(s, "",
                fmt::format("cannot decode the field at byte {} ({})", Offset(f.begin), text != nullptr ? text : ""));
  }

  static bool IsText(uint8_t c) {
    return c == code::kStr8 || c == code::kStr32 || c == code::kSym8 || c == code::kSym32;
  }

  // core part 3, section 3.2.4.
  bool Properties() {
    const Section& s = properties_;
    uint32_t count = 0;
    const uint8_t* q = ListElements(s, &count);
    if (count > 13) return Fail(s, "", fmt::format("list has {} fields, the spec defines 13", count));
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
            return WrongType(s, "user-id", f, "a binary");
          }
          pn_message_set_user_id(msg_, pn_bytes(f.size, reinterpret_cast<const char*>(f.data)));
          break;
        case 2:
          if (!Text(s, "to", f, pn_message_set_address)) return false;
          break;
        case 3:
          if (!Text(s, "subject", f, pn_message_set_subject)) return false;
          break;
        case 4:
          if (!Text(s, "reply-to", f, pn_message_set_reply_to)) return false;
          break;
        case 6:
          if (!Text(s, "content-type", f, pn_message_set_content_type)) return false;
          break;
        case 7:
          if (!Text(s, "content-encoding", f, pn_message_set_content_encoding)) return false;
          break;
        case 8:
          if (f.code != code::kTimestamp) {
            return WrongType(s, "absolute-expiry-time", f, "a timestamp");
          }
          pn_message_set_expiry_time(msg_, static_cast<pn_timestamp_t>(LoadU64(f.data)));
          break;
        case 9:
          if (f.code != code::kTimestamp) return WrongType(s, "creation-time", f, "a timestamp");
          pn_message_set_creation_time(msg_, static_cast<pn_timestamp_t>(LoadU64(f.data)));
          break;
        case 10:
          if (!Text(s, "group-id", f, pn_message_set_group_id)) return false;
          break;
        case 11:
          if (!IsUInt(f.code)) return WrongType(s, "group-sequence", f, "a uint");
          // pn_sequence_t is signed; Proton writes it back as the same 32 bits of a uint.
          pn_message_set_group_sequence(msg_, static_cast<pn_sequence_t>(UInt(f)));
          break;
        case 12:
          if (!Text(s, "reply-to-group-id", f, pn_message_set_reply_to_group_id)) return false;
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
