// DecodeToTypedJson (typed_json.h): one pass from the encoded bytes of a message to its typed JSON
// text, with no decoded tree in between.
//
// The text is exactly what the earlier writer produced (bytes -> Proton pn_data_t -> nlohmann JSON ->
// dump): the same keys in the same order, the same wrapper decisions, the same number text
// (nlohmann's own shortest double formatting), the same string escaping with invalid UTF-8 replaced by
// U+FFFD as nlohmann's "replace" error handler does. The same messages are refused: the message
// structure of core part 3, section 3.2 as ProtonSections::Split checks it, Proton's own decoding rules
// (descriptors are never compound; at most 65535 values per section), and the conversion errors
// (non-ASCII symbols, maps with an odd count, header / properties lists longer than the spec, nesting
// deeper than kMaxJsonDepth). Where a message breaks several rules the first one reported may differ.
//
// Values are located with the shared readers (SkipPlainValue, ReadValue, ReadPayload) and decoded with
// internal::PlainValue, so the extent rules live in one place (encoded_value.h). A compound's elements
// must fill exactly the size it declares.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/amqp_fields.h"
#include "base/base64.h"
#include "base/byte_order.h"
#include "base/hex.h"
#include "base/utf8.h"
#include "amqp/coding.h"
#include "amqp/encoded_value.h"
#include "amqp/json_text.h"
#include "amqp/limits.h"
#include "amqp/type_codes.h"
#include "amqp/typed_json.h"
#include "amqp/typed_json_types.h"

namespace sift::amqp {
namespace {

// A data section's binary is written as plain base64.
constexpr PlainHint kDataPlainHint{ValueType::kLong, ValueType::kDouble, ValueType::kBinary};

// The type a format code decodes to (Proton's pn_code2type); kMissing for invalid codes.
ValueType TypeOfCodeSlow(uint8_t c) {
  switch (c) {
    case code::kDescribed: return ValueType::kDescribed;
    case code::kList0:
    case code::kList8:
    case code::kList32: return ValueType::kList;
    case code::kMap8:
    case code::kMap32: return ValueType::kMap;
    case code::kArray8:
    case code::kArray32: return ValueType::kArray;
    default: break;
  }
  Value v;
  static constexpr uint8_t kZeros[16] = {};
  if (!IsValidFormatCode(c) || !internal::PlainValue(c, kZeros, 0, &v)) return ValueType::kMissing;
  return v.type;
}

ValueType TypeOfCode(uint8_t c) {
  static const std::array<ValueType, 256> kTypes = [] {
    std::array<ValueType, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = TypeOfCodeSlow(static_cast<uint8_t>(i));
    return t;
  }();
  return kTypes[c];
}

// Compound codes other than list0: Proton refuses them (and 0x00) as descriptors.
bool ProtonDescriptorCodeOk(uint8_t c) {
  return c != code::kDescribed && c != code::kList8 && c != code::kList32 && c != code::kMap8 && c != code::kMap32 &&
         c != code::kArray8 && c != code::kArray32;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// --- text ----------------------------------------------------------------------------------------

// 0: copied as is; 1: needs an escape; 2: the lead byte of a multi-byte sequence (or an invalid one).
struct EscapeTable {
  uint8_t how[256] = {};
  constexpr EscapeTable() {
    for (int c = 0; c < 0x20; ++c) how[c] = 1;
    how[static_cast<uint8_t>('"')] = 1;
    how[static_cast<uint8_t>('\\')] = 1;
    for (int c = 0x80; c < 256; ++c) how[c] = 2;
  }
};
constexpr EscapeTable kEscape;

// Appends `text` as a JSON string, as nlohmann's dump(-1, ' ', false, replace) writes it.
void AppendJsonString(std::string_view text, JsonText* out) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  out->push_back('"');
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    // Eight bytes at a time while none is a control character, '"', '\\' or non-ASCII.
    for (; run + 8 <= n; run += 8) {
      uint64_t w;
      std::memcpy(&w, s + run, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ull;
      constexpr uint64_t kHigh = 0x8080808080808080ull;
      const uint64_t quote = w ^ (kOnes * '"');
      const uint64_t backslash = w ^ (kOnes * '\\');
      // A byte is flagged when it is under 0x20, is zero after an xor (a match), or has its top bit.
      const uint64_t special = ((w - kOnes * 0x20) | (quote - kOnes) | (backslash - kOnes) | w) & kHigh;
      if (special != 0) break;
    }
    while (run < n && kEscape.how[s[run]] == 0) ++run;
    out->append(text.data() + i, run - i);
    i = run;
    if (i >= n) break;
    const uint8_t b = s[i];
    if (kEscape.how[b] == 1) {
      char esc[6] = {'\\', 0, 0, 0, 0, 0};
      size_t len = 2;
      switch (b) {
        case '\b': esc[1] = 'b'; break;
        case '\t': esc[1] = 't'; break;
        case '\n': esc[1] = 'n'; break;
        case '\f': esc[1] = 'f'; break;
        case '\r': esc[1] = 'r'; break;
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        default:
          esc[1] = 'u';
          esc[2] = '0';
          esc[3] = '0';
          esc[4] = base::HexDigit(b >> 4, base::HexCase::kLower);
          esc[5] = base::HexDigit(b, base::HexCase::kLower);
          len = 6;
      }
      out->append(esc, len);
      ++i;
      continue;
    }
    // A sequence that is not well formed becomes one U+FFFD for the bytes before the first one that
    // cannot continue it (at least one byte), as nlohmann's serializer.hpp replaces it.
    size_t valid_prefix = 0;
    const size_t len = base::CheckUtf8Sequence(s + i, n - i, &valid_prefix);
    if (len > 0) {
      out->append(text.data() + i, len);
      i += len;
    } else {
      out->append("\xEF\xBF\xBD");
      i += std::max<size_t>(valid_prefix, 1);
    }
  }
  out->push_back('"');
}

void AppendUnsigned(uint64_t v, JsonText* out) {
  char* at = out->Room(24);
  out->commit(static_cast<size_t>(std::to_chars(at, at + 24, v).ptr - at));
}

void AppendSigned(int64_t v, JsonText* out) {
  char* at = out->Room(24);
  out->commit(static_cast<size_t>(std::to_chars(at, at + 24, v).ptr - at));
}

// A finite double as nlohmann's serializer writes it (its grisu2 shortest form).
void AppendDouble(double d, JsonText* out) {
  char buf[64];
  char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, d);
  out->append(buf, static_cast<size_t>(end - buf));
}

void AppendHex(const uint8_t* p, size_t n, JsonText* out) {
  base::EncodeHex(p, n, out->Room(2 * n), base::HexCase::kLower);
  out->commit(2 * n);
}

void AppendBase64(const uint8_t* p, size_t n, JsonText* out) {
  const size_t size = base::Base64EncodedSize(n);
  base::EncodeBase64(p, n, out->Room(size));
  out->commit(size);
}

// --- the writer ----------------------------------------------------------------------------------

// A map key as the object form of a map needs it: string / symbol text, or a ulong (annotations).
struct MapKey;
std::vector<MapKey>& KeyScratch();

struct MapKey {
  const uint8_t* text = nullptr;
  uint64_t size_or_value = 0;
  bool is_ulong = false;
  uint64_t fingerprint = 0;        // of a text key: its first and last 8 bytes (TextFingerprint)
  const uint8_t* value = nullptr;  // the entry's value (its first byte)

  bool Is(std::string_view s) const {
    return !is_ulong && size_or_value == s.size() && std::memcmp(text, s.data(), s.size()) == 0;
  }
  bool operator==(const MapKey& o) const {
    if (is_ulong != o.is_ulong || size_or_value != o.size_or_value || fingerprint != o.fingerprint) return false;
    return is_ulong || std::memcmp(text, o.text, size_or_value) == 0;
  }
  // A total order in which equal keys are neighbours.
  bool operator<(const MapKey& o) const {
    if (is_ulong != o.is_ulong) return is_ulong < o.is_ulong;
    if (size_or_value != o.size_or_value) return size_or_value < o.size_or_value;
    if (fingerprint != o.fingerprint) return fingerprint < o.fingerprint;
    return !is_ulong && std::memcmp(text, o.text, size_or_value) < 0;
  }
};

// Tells most unequal keys of the same length apart without a call to memcmp.
uint64_t TextFingerprint(const uint8_t* text, size_t size) {
  uint64_t head = 0, tail = 0;
  if (size >= 8) {
    std::memcpy(&head, text, 8);
    std::memcpy(&tail, text + size - 8, 8);
  } else if (size > 0) {
    std::memcpy(&head, text, size);
  }
  return head ^ (tail * 0x9e3779b97f4a7c15u);
}

std::vector<MapKey>& KeyScratch() {
  thread_local std::vector<MapKey> keys;
  keys.clear();
  return keys;
}

enum class MapKind { kNested, kAnnotations, kStrings };

class Writer {
 public:
  Writer(std::span<const uint8_t> bytes, JsonText* out)
      : base_(bytes.data()), end_(bytes.data() + bytes.size()), out_(*out) {}

  // Writes the sections (after the caller's "{" and any "offset"), or returns false with error().
  bool Sections();

  const std::string& error() const { return error_.empty() ? deferred_ : error_; }
  bool failed() const { return !error_.empty() || !deferred_.empty(); }

 private:
  uint32_t Offset(const uint8_t* p) const { return static_cast<uint32_t>(p - base_); }

  bool Fail(const uint8_t* at, std::string_view why) {
    if (error_.empty()) error_ = fmt::format("byte {}: {}", Offset(at), why);
    return false;
  }
  bool Fail(const DecodeError& e) {
    if (error_.empty()) error_ = e.Message();
    return false;
  }
  // The error of a value whose read failed, as proton_sections.cc's EncodingWalk words it for the
  // extent errors it finds (its texts are part of the contract tests pin down); otherwise `e`.
  // `code` is the constructor at `ctor`, `q` the first byte after it (array elements: ctor == q).
  bool FailRead(uint8_t code, const uint8_t* ctor, const uint8_t* q, const uint8_t* limit, const DecodeError& e);

  // A conversion error (the earlier writer's second phase): kept, and reported unless the bytes
  // turn out to be malformed further on.
  void Convert(std::string_view why) {
    if (!deferred_.empty()) return;
    deferred_ = context_label_.empty() ? std::string(why)
                                       : fmt::format("byte {}: {}: {}", context_offset_, context_label_, why);
  }

  // Writes the value at p (before limit) under `hint`; returns the first byte after it or nullptr.
  // `w` is the nesting level as proton_sections.cc's EncodingWalk counts it (checked when
  // `check_walk`), `g` as the reference writer's GetJson counts it.
  const uint8_t* WriteValue(const uint8_t* p, const uint8_t* limit, const PlainHint& hint, int w, int g,
                            bool check_walk = true);
  const uint8_t* WriteDescribed(const uint8_t* p, const uint8_t* limit, int w, int g);
  // A descriptor (of a described value or an array): Proton takes only scalars (and list0).
  const uint8_t* WriteDescriptor(const uint8_t* p, const uint8_t* limit, int w, int g);
  // A located plain value: scalars from their payload, compounds element by element.
  bool WriteEncoded(const EncodedValue& v, const PlainHint& hint, int w, int g);
  void WriteScalar(const Value& v, const PlainHint& hint);
  bool WriteList(const EncodedValue& v, int w, int g);
  bool WriteArray(const EncodedValue& v, int w, int g);
  // A map's entries: `MapKind` says which object form applies (the reference writer's GetJson for
  // nested maps, GetSectionMap for section maps).
  bool WriteMap(const EncodedValue& v, MapKind kind, int w, int g);
  bool ObjectForm(const EncodedValue& v, MapKind kind);
  bool HasDuplicateKey(size_t base);

  // Counts one Proton node of the current section.
  bool Node(const uint8_t* at) {
    if (++nodes_ > kMaxSectionNodes) {
      return Fail(at, fmt::format("more than {} values in one section (Proton's limit)", kMaxSectionNodes));
    }
    return true;
  }

  bool Section(const uint8_t* p, const uint8_t** next);
  template <size_t N>
  bool WriteFields(const EncodedValue& list, const std::array<TypedJsonField, N>& fields, std::string_view name,
                   const uint8_t* section);

  const uint8_t* base_;
  const uint8_t* end_;
  JsonText& out_;
  std::string error_;
  std::string deferred_;
  // Conversion errors say "byte <context_offset_>: <context_label_>: why" (the label empty: just why).
  uint32_t context_offset_ = 0;
  std::string_view context_label_;
  const uint8_t* section_end_ = nullptr;
  uint32_t nodes_ = 0;
  // Scratch for ObjectForm, used as a stack; per thread, so its memory outlives one message.
  std::vector<MapKey>& keys_ = KeyScratch();

  // Sections seen so far.
  int last_rank_ = -1;
  SectionKind last_kind_ = SectionKind::kHeader;
  // The body: where its first item starts, how many items, their kind.
  size_t body_item_ = 0;
  int body_items_ = 0;
  SectionKind body_kind_ = SectionKind::kAmqpValue;
};

bool Writer::FailRead(uint8_t code, const uint8_t* ctor, const uint8_t* q, const uint8_t* limit, const DecodeError& e) {
  const char* kPast = "value runs past the end";
  const size_t left = BytesLeft(q, limit);
  const int width = FixedWidth(code);
  if (!IsValidFormatCode(code)) return Fail(e);
  if (width >= 0) return left < static_cast<size_t>(width) ? Fail(q, kPast) : Fail(e);
  const size_t prefix = (code & 0x10) ? 4 : 1;
  if (left < prefix) return Fail(q, kPast);
  const uint32_t size = prefix == 1 ? q[0] : base::LoadBE32(q);
  const uint8_t* start = q + prefix;
  if ((code >> 4) <= 0xb) return size > BytesLeft(start, limit) ? Fail(start, kPast) : Fail(e);
  if (size < prefix || BytesLeft(start, limit) < size) {
    return Fail(start, "compound size runs past the end");
  }
  const uint32_t count = prefix == 1 ? start[0] : base::LoadBE32(start);
  if (count > size) {
    return Fail(ctor, fmt::format("compound count {} exceeds its size {}", count, size));
  }
  if (code >= code::kArray8 && size == prefix) {
    return Fail(start + prefix, "array constructor runs past the end");
  }
  return Fail(e);
}

void Writer::WriteScalar(const Value& v, const PlainHint& hint) {
  const size_t start = out_.size();
  bool plain_ok = true;
  switch (v.type) {
    case ValueType::kNull: out_.append("null"); return;
    case ValueType::kBoolean: out_.append(v.boolean ? "true" : "false"); return;
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong: AppendUnsigned(v.u64, &out_); break;
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong:
    case ValueType::kTimestamp: AppendSigned(v.i64, &out_); break;
    case ValueType::kFloat:
    case ValueType::kDouble:
      if (std::isnan(v.f64)) {
        out_.append("\"NaN\"");
        plain_ok = false;
      } else if (std::isinf(v.f64)) {
        out_.append(v.f64 > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        plain_ok = false;
      } else {
        AppendDouble(v.f64, &out_);
      }
      break;
    case ValueType::kChar: {
      char utf8[4];
      if (const size_t len = base::EncodeUtf8(v.u32, utf8); len > 0) {
        AppendJsonString(std::string_view(utf8, len), &out_);
      } else {
        AppendUnsigned(v.u32, &out_);
        plain_ok = false;
      }
      break;
    }
    case ValueType::kDecimal32:
    case ValueType::kDecimal64:
    case ValueType::kDecimal128: {
      out_.push_back('"');
      AppendHex(reinterpret_cast<const uint8_t*>(v.bytes().data()), v.bytes().size(), &out_);
      out_.push_back('"');
      break;
    }
    case ValueType::kUuid: {
      const auto* b = reinterpret_cast<const uint8_t*>(v.bytes().data());
      out_.push_back('"');
      AppendHex(b, 4, &out_);
      out_.push_back('-');
      AppendHex(b + 4, 2, &out_);
      out_.push_back('-');
      AppendHex(b + 6, 2, &out_);
      out_.push_back('-');
      AppendHex(b + 8, 2, &out_);
      out_.push_back('-');
      AppendHex(b + 10, 6, &out_);
      out_.push_back('"');
      break;
    }
    case ValueType::kBinary:
      out_.push_back('"');
      AppendBase64(reinterpret_cast<const uint8_t*>(v.bytes().data()), v.bytes().size(), &out_);
      out_.push_back('"');
      break;
    case ValueType::kString: AppendJsonString(v.bytes(), &out_); break;
    case ValueType::kSymbol:
      AppendJsonString(v.bytes(), &out_);
      for (char c : v.bytes()) {
        if (static_cast<uint8_t>(c) >= 0x80) {
          // Typed JSON input refuses such a symbol, so writing it would break the round trip.
          Convert(fmt::format("symbol {} is not ASCII (core 1.6.21)", std::string_view(out_).substr(start)));
          break;
        }
      }
      break;
    default: return;
  }
  if (plain_ok && WritesPlain(v.type, hint)) return;
  // {"type": T, "value": V}
  std::string_view name = TypedJsonTypeName(v.type);
  char prefix[48];
  size_t len = 0;
  auto put = [&](std::string_view s) {
    std::memcpy(prefix + len, s.data(), s.size());
    len += s.size();
  };
  put("{\"type\":\"");
  put(name);
  put("\",\"value\":");
  out_.insert(start, prefix, len);
  out_.push_back('}');
}

const uint8_t* Writer::WriteDescriptor(const uint8_t* p, const uint8_t* limit, int w, int g) {
  if (p < limit && !ProtonDescriptorCodeOk(*p)) {
    Fail(p, fmt::format("a descriptor must be a scalar, found {} (Proton refuses it)", FormatCodeName(*p)));
    return nullptr;
  }
  return WriteValue(p, limit, kDescriptorPlainHint, w, g);
}

const uint8_t* Writer::WriteDescribed(const uint8_t* p, const uint8_t* limit, int w, int g) {
  if (!Node(p)) return nullptr;
  out_.append("{\"type\":\"described\",\"descriptor\":");
  const uint8_t* q = WriteDescriptor(p + 1, limit, w + 1, g + 1);
  if (q == nullptr) return nullptr;
  out_.append(",\"value\":");
  const bool nested = q < limit && *q == code::kDescribed;
  const uint8_t* r = WriteValue(q, limit, kNaturalPlainHint, w + 1, g + 1);
  if (r == nullptr) return nullptr;
  if (nested && r != section_end_) {
    Fail(q,
         "a described value inside a described value, followed by more values: Proton 0.37 "
         "decodes this wrongly, so it cannot be fully decoded");
    return nullptr;
  }
  out_.push_back('}');
  return r;
}

const uint8_t* Writer::WriteValue(const uint8_t* p, const uint8_t* limit, const PlainHint& hint, int w, int g,
                                  bool check_walk) {
  if (check_walk && w > kMaxProtonWalkDepth) {
    Fail(p, fmt::format("values nested deeper than {} levels", kMaxProtonWalkDepth));
    return nullptr;
  }
  if (g > kMaxJsonDepth) {
    Convert(fmt::format("values nested deeper than {} levels", kMaxJsonDepth));
    error_ = deferred_;
    return nullptr;
  }
  if (p >= limit) {
    Fail(p, "value runs past the end");
    return nullptr;
  }
  if (*p == code::kDescribed) return WriteDescribed(p, limit, w, g);
  if (!Node(p)) return nullptr;
  // The commonest scalars, written straight from their bytes when their plain JSON form reads back
  // as their own type under `hint` (what WriteScalar decides for them, without a Value between).
  const size_t left = BytesLeft(p, limit);
  switch (*p) {
    case code::kStr8:
      if (hint.string == ValueType::kString && left >= 2 && size_t{p[1]} <= left - 2) {
        AppendJsonString({reinterpret_cast<const char*>(p + 2), p[1]}, &out_);
        return p + 2 + p[1];
      }
      break;
    case code::kTrue: out_.append("true"); return p + 1;
    case code::kFalse: out_.append("false"); return p + 1;
    case code::kSmallLong:
      if (hint.integer == ValueType::kLong && left >= 2) {
        AppendSigned(static_cast<int8_t>(p[1]), &out_);
        return p + 2;
      }
      break;
    case code::kLong:
      if (hint.integer == ValueType::kLong && left >= 9) {
        AppendSigned(static_cast<int64_t>(base::LoadBE64(p + 1)), &out_);
        return p + 9;
      }
      break;
    case code::kDouble:
      if (hint.number == ValueType::kDouble && left >= 9) {
        const double d = std::bit_cast<double>(base::LoadBE64(p + 1));
        if (std::isfinite(d)) {
          AppendDouble(d, &out_);
          return p + 9;
        }
      }
      break;
    default: break;
  }
  // Scalars: located by their constructor and size prefix alone.
  if (const uint8_t* q = SkipPlainValue(p, limit); q != nullptr) {
    const uint8_t how = internal::kSkip.how[*p];
    const uint8_t* payload = p + 1 + (how == internal::kSize1 ? 1 : how == internal::kSize4 ? 4 : 0);
    Value v;
    if (internal::PlainValue(*p, payload, static_cast<uint32_t>(q - payload), &v)) {
      WriteScalar(v, hint);
      return q;
    }
  }
  EncodedValue v;
  DecodeError e;
  const uint8_t* q = ReadValue(base_, p, limit, &v, &e);
  if (q == nullptr) {
    if (e.code == DecodeErrorCode::kOddMapCount) {
      Convert(fmt::format("map with an odd number ({}) of keys and values", e.a));
      error_ = deferred_;
      return nullptr;
    }
    FailRead(*p, p, p + 1, limit, e);
    return nullptr;
  }
  if (!WriteEncoded(v, hint, w, g)) return nullptr;
  return q;
}

bool Writer::WriteEncoded(const EncodedValue& v, const PlainHint& hint, int w, int g) {
  if (v.is_list()) return WriteList(v, w, g);
  if (v.is_map()) return WriteMap(v, MapKind::kNested, w, g);
  if (v.is_array()) return WriteArray(v, w, g);
  Value value;
  const auto payload = v.payload();
  if (!internal::PlainValue(v.format_code(), payload.data(), static_cast<uint32_t>(payload.size()), &value)) {
    return Fail(DecodeError::Make(DecodeErrorCode::kInvalidFormatCode, v.offset(), v.format_code()));
  }
  WriteScalar(value, hint);
  return true;
}

bool Writer::WriteList(const EncodedValue& v, int w, int g) {
  const uint8_t* p = v.payload().data();
  const uint8_t* end = p + v.payload().size();
  out_.push_back('[');
  for (uint32_t i = 0; i < v.count(); ++i) {
    if (i > 0) out_.push_back(',');
    p = WriteValue(p, end, kNaturalPlainHint, w + 1, g + 1);
    if (p == nullptr) return false;
  }
  if (p != end) {
    return Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, v.offset(), v.format_code(), end - p, 0));
  }
  out_.push_back(']');
  return true;
}

bool Writer::WriteArray(const EncodedValue& v, int w, int g) {
  const uint8_t c = v.element_format_code();
  const auto raw = v.raw();
  const uint32_t prefix = v.format_code() == code::kArray8 ? 1 : 4;
  const uint64_t declared = raw.size() - 1 - prefix;
  if (v.count() > declared) {  // EncodingWalk's bound: keeps zero-width element arrays linear
    return Fail(raw.data(), fmt::format("compound count {} exceeds its size {}", v.count(), declared));
  }
  out_.append("{\"type\":\"array\",\"element\":\"");
  out_.append(TypedJsonTypeName(TypeOfCode(c)));
  out_.append("\",");
  const uint8_t* end = v.payload().data() + v.payload().size();
  if (v.element_described()) {
    out_.append("\"descriptor\":");
    const uint8_t* d = v.element_descriptor_data();
    if (WriteDescriptor(d, end, w + 2, g + 1) == nullptr) return false;
    out_.push_back(',');
  }
  out_.append("\"value\":[");
  const uint8_t* p = v.payload().data();
  const int width = FixedWidth(c);
  for (uint32_t i = 0; i < v.count(); ++i) {
    if (i > 0) out_.push_back(',');
    if (g + 1 > kMaxJsonDepth) {
      Convert(fmt::format("values nested deeper than {} levels", kMaxJsonDepth));
      error_ = deferred_;
      return false;
    }
    if (!Node(p)) return false;
    if (width >= 0) {
      if (static_cast<size_t>(end - p) < static_cast<size_t>(width)) {
        return Fail(p, "value runs past the end");
      }
      Value value;
      internal::PlainValue(c, p, static_cast<uint32_t>(width), &value);
      if (c == code::kList0) {
        out_.append("[]");
      } else {
        WriteScalar(value, kNaturalPlainHint);
      }
      p += width;
      continue;
    }
    EncodedValue e;
    DecodeError err;
    const uint8_t* q = ReadPayload(base_, c, p, end, &e, &err);
    if (q == nullptr) {
      if (err.code == DecodeErrorCode::kOddMapCount) {
        Convert(fmt::format("map with an odd number ({}) of keys and values", err.a));
        error_ = deferred_;
        return false;
      }
      return FailRead(c, p, p, end, err);
    }
    if (!WriteEncoded(e, kNaturalPlainHint, w + 1, g + 1)) return false;
    p = q;
  }
  if (p != end) {
    return Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, v.offset(), v.format_code(), end - p, 0));
  }
  out_.append("]}");
  return true;
}

// Whether two of the keys from `base` on are equal (a JSON object cannot hold both). A map of many
// keys is sorted rather than compared pair by pair: a message of one map with 100,000 keys would
// otherwise cost five billion comparisons. Which keys come first does not matter to the callers.
bool Writer::HasDuplicateKey(size_t base) {
  const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(base);
  const size_t n = keys_.size() - base;
  if (n <= 16) {
    for (size_t i = base + 1; i < keys_.size(); ++i) {
      for (size_t k = base; k < i; ++k) {
        if (keys_[k] == keys_[i]) return true;
      }
    }
    return false;
  }
  std::sort(first, keys_.end());
  return std::adjacent_find(first, keys_.end()) != keys_.end();
}

// Whether the map's entries can be written as a JSON object: the reference writer's GetJson (nested
// maps) and GetSectionMap (section maps) decisions, made from the keys before anything is written.
bool Writer::ObjectForm(const EncodedValue& v, MapKind kind) {
  const size_t base = keys_.size();
  struct Pop {
    std::vector<MapKey>& keys;
    size_t size;
    ~Pop() { keys.resize(size); }
  } pop{keys_, base};
  const uint8_t* p = v.payload().data();
  const uint8_t* end = p + v.payload().size();
  auto skip = [&](const uint8_t* q) -> const uint8_t* {
    while (q != nullptr && q < end && *q == code::kDescribed) q = SkipPlainValue(q + 1, end);
    return q == nullptr ? nullptr : SkipPlainValue(q, end);
  };
  for (uint32_t i = 0; i < v.count() / 2; ++i) {
    if (p >= end) return false;
    MapKey key;
    const uint8_t c = *p;
    const uint8_t* payload = p + 1 + ((c & 0x10) ? 4 : 1);
    const uint8_t* q = skip(p);
    if (q == nullptr) return false;  // malformed: an error follows
    if (kind == MapKind::kAnnotations && (c == code::kSym8 || c == code::kSym32)) {
      key.text = payload;
      key.size_or_value = static_cast<uint64_t>(q - payload);
      if (AllDigits({reinterpret_cast<const char*>(key.text), key.size_or_value})) return false;
    } else if (kind == MapKind::kAnnotations && (c == code::kULong0 || c == code::kSmallULong || c == code::kULong)) {
      Value u;
      internal::PlainValue(c, p + 1, static_cast<uint32_t>(q - p - 1), &u);
      key.is_ulong = true;
      key.size_or_value = u.u64;
    } else if (kind != MapKind::kAnnotations && (c == code::kStr8 || c == code::kStr32)) {
      key.text = payload;
      key.size_or_value = static_cast<uint64_t>(q - payload);
    } else {
      return false;
    }
    if (!key.is_ulong) key.fingerprint = TextFingerprint(key.text, key.size_or_value);
    key.value = q;
    keys_.push_back(key);
    p = skip(q);
    if (p == nullptr) return false;
  }
  if (HasDuplicateKey(base)) return false;
  // The wrapper shape (json_to_amqp.cc's HasWrapperShape): a "type" whose value is a JSON string, a
  // "value", no other key but "encoding", "element", "descriptor". At the top of a section map only
  // {"type": "map", ...} counts.
  const MapKey* type = nullptr;
  bool has_value = false;
  for (size_t k = base; k < keys_.size(); ++k) {
    const MapKey& key = keys_[k];
    if (key.Is("type")) {
      type = &key;
    } else if (key.Is("value")) {
      has_value = true;
    } else if (!key.Is("encoding") && !key.Is("element") && !key.Is("descriptor")) {
      return true;
    }
  }
  if (type == nullptr || !has_value) return true;
  const uint8_t* tv = type->value;
  if (*tv != code::kStr8 && *tv != code::kStr32) return true;  // not a plain JSON string
  if (kind == MapKind::kNested) return false;
  const uint8_t* text = tv + ((*tv & 0x10) ? 5 : 2);
  const uint8_t* text_end = SkipPlainValue(tv, end);
  return std::string_view(reinterpret_cast<const char*>(text), text_end - text) != "map";
}

bool Writer::WriteMap(const EncodedValue& v, MapKind kind, int w, int g) {
  const uint8_t* p = v.payload().data();
  const uint8_t* end = p + v.payload().size();
  const bool object = ObjectForm(v, kind);
  out_.append(object ? "{" : "{\"type\":\"map\",\"value\":[");
  const PlainHint key_hint = kind == MapKind::kAnnotations && object ? kDescriptorPlainHint : kNaturalPlainHint;
  for (uint32_t i = 0; i < v.count() / 2; ++i) {
    if (i > 0) out_.push_back(',');
    if (!object) out_.push_back('[');
    const size_t key_at = out_.size();
    const bool ulong_key = object && *p != code::kSym8 && *p != code::kSym32 && kind == MapKind::kAnnotations;
    p = WriteValue(p, end, key_hint, w + 1, g + 1);
    if (p == nullptr) return false;
    if (ulong_key) {
      out_.insert(key_at, 1, '"');
      out_.push_back('"');
    }
    out_.push_back(object ? ':' : ',');
    p = WriteValue(p, end, kNaturalPlainHint, w + 1, g + 1);
    if (p == nullptr) return false;
    if (!object) out_.push_back(']');
  }
  if (p != end) {
    return Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, v.offset(), v.format_code(), end - p, 0));
  }
  out_.append(object ? "}" : "]}");
  return true;
}

template <size_t N>
bool Writer::WriteFields(const EncodedValue& list, const std::array<TypedJsonField, N>& fields, std::string_view name,
                         const uint8_t* section) {
  if (list.count() > N) {
    context_label_ = {};
    Convert(fmt::format("byte {}: {} list has {} fields, the spec defines {}", Offset(section), name, list.count(), N));
  }
  const uint8_t* p = list.payload().data();
  const uint8_t* end = p + list.payload().size();
  out_.push_back('{');
  bool first = true;
  for (uint32_t i = 0; i < list.count(); ++i) {
    if (p < end && *p == code::kNull) {  // absent
      if (!Node(p)) return false;
      ++p;
      continue;
    }
    const TypedJsonField& field = fields[i < N ? i : 0];
    if (!first) out_.push_back(',');
    first = false;
    out_.push_back('"');
    out_.append(field.key);
    out_.append("\":");
    context_offset_ = Offset(section);
    context_label_ = field.key;
    p = WriteValue(p, end, field.hint, 2, 0);
    if (p == nullptr) return false;
  }
  if (p != end) {
    return Fail(DecodeError::Make(DecodeErrorCode::kSizeMismatch, list.offset(), list.format_code(), end - p, 0));
  }
  out_.push_back('}');
  return true;
}

bool IsBody(SectionKind kind) {
  return kind == SectionKind::kData || kind == SectionKind::kAmqpSequence || kind == SectionKind::kAmqpValue;
}

int Rank(SectionKind kind) {
  const int code = static_cast<int>(kind);
  if (IsBody(kind)) return 5;
  return code < 5 ? code : 6;
}

// The JSON key of a section: a non-body section's identifier (base/amqp_fields.h), else "body".
std::string_view SectionKey(SectionKind kind) {
  switch (kind) {
    case SectionKind::kData:
    case SectionKind::kAmqpSequence:
    case SectionKind::kAmqpValue: return "body";
    default: return amqp::Info(kind).identifier;
  }
}

// The type a section's value must have (proton_sections.cc); kMissing for amqp-value (any).
ValueType SectionValueType(SectionKind kind) {
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties:
    case SectionKind::kAmqpSequence: return ValueType::kList;
    case SectionKind::kData: return ValueType::kBinary;
    case SectionKind::kAmqpValue: return ValueType::kMissing;
    default: return ValueType::kMap;
  }
}

bool Writer::Section(const uint8_t* p, const uint8_t** next) {
  nodes_ = 0;
  section_end_ = end_;  // until the section's extent is known: see below
  const uint8_t* section = p;
  std::string problem;  // a structure error found before the whole section has been read
  SectionKind kind = SectionKind::kHeader;
  const uint8_t* value = nullptr;
  if (*p != code::kDescribed) {
    problem =
        fmt::format("byte {}: expected a described section, found a {}", Offset(p), TypedJsonTypeName(TypeOfCode(*p)));
  } else {
    // Descriptor: a ulong code or the symbol (core part 3, section 3.2).
    const uint8_t* d = p + 1;
    const size_t mark = out_.size();  // the descriptor is checked, not written
    if (!Node(p)) return false;
    bool known = false;
    Value dv;
    uint8_t dc = 0;  // the descriptor's constructor, read once the descriptor is known to be there
    if ((value = SmallSectionDescriptor(d, end_, &kind)) != nullptr) {
      known = true;  // the common descriptor: a scalar WriteDescriptor would accept, naming `kind`
      if (!Node(d)) return false;
    } else {
      value = WriteDescriptor(d, end_, 1, 1);
      out_.resize(mark);
      if (value == nullptr) return false;
      dc = *d;
      const uint8_t dhow = internal::kSkip.how[dc];
      const uint8_t* payload = d + 1 + (dhow == internal::kSize1 ? 1 : dhow == internal::kSize4 ? 4 : 0);
      internal::PlainValue(dc, payload, static_cast<uint32_t>(value - payload), &dv);
    }
    if (known) {
      // named above
    } else if (dv.type == ValueType::kULong) {
      known = SectionFromDescriptorCode(dv.u64, &kind);
      if (!known) problem = fmt::format("byte {}: unknown section descriptor ulong 0x{:016x}", Offset(section), dv.u64);
    } else if (dv.type == ValueType::kSymbol) {
      known = SectionFromDescriptorSymbol(dv.bytes(), &kind);
      if (!known)
        problem = fmt::format("byte {}: unknown section descriptor symbol \"{}\"", Offset(section), dv.bytes());
    } else {
      problem = fmt::format("byte {}: unknown section descriptor a {}", Offset(section),
                            TypedJsonTypeName(dv.type == ValueType::kMissing ? TypeOfCode(dc) : dv.type));
    }
    if (known) {
      const ValueType want = SectionValueType(kind);
      const ValueType have = value < end_ ? TypeOfCode(*value) : ValueType::kMissing;
      const std::string_view name = SectionName(kind);
      const int rank = Rank(kind);
      if (value >= end_) {
        // malformed: reported when the value is read
      } else if (want != ValueType::kMissing && have != want && have != ValueType::kMissing) {
        problem = fmt::format("byte {}: {} section holds a {}, expected a {}", Offset(section), name,
                              TypedJsonTypeName(have), TypedJsonTypeName(want));
      } else if (rank < last_rank_) {
        problem = fmt::format(
            "byte {}: {} section after a later section (core 3.2: sections come "
            "in spec order)",
            Offset(section), name);
      } else if (rank == last_rank_ &&
                 !(kind == last_kind_ && (kind == SectionKind::kData || kind == SectionKind::kAmqpSequence))) {
        if (IsBody(kind)) {
          problem = fmt::format(
              "byte {}: {} section after {} section (core 3.2: the body is one or "
              "more data, one or more amqp-sequence, or one amqp-value section)",
              Offset(section), name, SectionName(last_kind_));
        } else {
          problem = fmt::format("byte {}: second {} section", Offset(section), name);
        }
      }
    }
  }
  if (!problem.empty()) {
    // The earlier writer read the whole section before judging its structure: a malformed value
    // is reported first.
    JsonText scratch;
    std::swap(scratch, out_);
    const uint8_t* q = value == nullptr ? WriteValue(p, end_, kNaturalPlainHint, 0, 0)
                                        : WriteValue(value, end_, kNaturalPlainHint, 1, 0);
    std::swap(scratch, out_);
    if (q == nullptr && !error_.empty()) return false;
    error_ = std::move(problem);
    return false;
  }
  // Locate the section's end first: the nested-described rule and errors need it.
  {
    const uint8_t* q = value;
    while (q != nullptr && q < end_ && *q == code::kDescribed) q = SkipPlainValue(q + 1, end_);
    const uint8_t* after = q == nullptr ? nullptr : SkipPlainValue(q, end_);
    section_end_ = after != nullptr ? after : end_;
  }
  const std::string_view name = SectionName(kind);
  // Close the body before a footer.
  if (IsBody(kind)) {
    if (body_items_ == 0) {
      out_.append(out_.size() > 1 ? ",\"body\":{" : "\"body\":{");
      out_.append(kind == SectionKind::kData           ? "\"data\":"
                  : kind == SectionKind::kAmqpSequence ? "\"sequence\":"
                                                       : "\"value\":");
      body_item_ = out_.size();
    } else {
      if (body_items_ == 1) {
        out_.insert(body_item_, 1, '[');
        if (kind == SectionKind::kAmqpSequence) out_.insert(body_item_ - 2, 1, 's');
      }
      out_.push_back(',');
    }
    ++body_items_;
    body_kind_ = kind;
  } else {
    if (body_items_ > 0) {
      if (body_items_ > 1) out_.push_back(']');
      out_.push_back('}');
      body_items_ = -1;  // closed
    }
    if (out_.size() > 1) out_.push_back(',');
    out_.push_back('"');
    out_.append(SectionKey(kind));
    out_.append("\":");
  }
  context_offset_ = Offset(section);
  context_label_ = name;
  if (value >= end_) return Fail(value, "value runs past the end");
  const uint8_t* q = nullptr;
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties: {
      if (!Node(value)) return false;
      EncodedValue list;
      DecodeError e;
      q = ReadValue(base_, value, end_, &list, &e);
      if (q == nullptr) return FailRead(*value, value, value + 1, end_, e);
      const bool ok = kind == SectionKind::kHeader ? WriteFields(list, kHeaderJsonFields, name, section)
                                                   : WriteFields(list, kPropertiesJsonFields, name, section);
      if (!ok) return false;
      break;
    }
    case SectionKind::kDeliveryAnnotations:
    case SectionKind::kMessageAnnotations:
    case SectionKind::kApplicationProperties:
    case SectionKind::kFooter: {
      if (!Node(value)) return false;
      EncodedValue map;
      DecodeError e;
      q = ReadValue(base_, value, end_, &map, &e);
      if (q == nullptr) {
        if (e.code == DecodeErrorCode::kOddMapCount) {
          Convert(fmt::format("map with an odd number ({}) of keys and values", e.a));
          error_ = deferred_;
          return false;
        }
        return FailRead(*value, value, value + 1, end_, e);
      }
      const MapKind mk = kind == SectionKind::kApplicationProperties ? MapKind::kStrings : MapKind::kAnnotations;
      if (!WriteMap(map, mk, 1, 0)) return false;
      break;
    }
    case SectionKind::kData: {
      q = WriteValue(value, end_, kDataPlainHint, 1, 0);
      if (q == nullptr) return false;
      break;
    }
    case SectionKind::kAmqpSequence:
    case SectionKind::kAmqpValue:
      q = WriteValue(value, end_, kNaturalPlainHint, 1, 0);
      if (q == nullptr) return false;
      break;
  }
  last_rank_ = Rank(kind);
  last_kind_ = kind;
  *next = q;
  return true;
}

bool Writer::Sections() {
  const uint8_t* p = base_;
  while (p < end_) {
    const uint8_t* next = nullptr;
    if (!Section(p, &next)) return false;
    p = next;
  }
  if (body_items_ > 0) {
    if (body_items_ > 1) out_.push_back(']');
    out_.push_back('}');
  }
  return deferred_.empty();
}

}  // namespace

ConversionStatus AppendTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset, JsonText* out) {
  const size_t start = out->size();
  out->Room(64 + bytes.size() * 2);
  out->push_back('{');
  if (offset.has_value()) {
    out->append("\"offset\":");
    AppendUnsigned(*offset, out);
  }
  Writer writer(bytes, out);
  if (!writer.Sections()) {
    out->resize(start);
    return ConversionStatus::Error(writer.error());
  }
  out->push_back('}');
  return ConversionStatus::Ok();
}

ConversionStatus AppendTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset, std::string* out) {
  // Built in a per-thread buffer (its capacity reused), copied out on success: *out is left alone on
  // error.
  thread_local JsonText text;
  text.clear();
  ConversionStatus s = AppendTypedJson(bytes, offset, &text);
  if (s.ok()) out->append(text.data(), text.size());
  return s;
}

ConversionStatus DecodeToTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset, std::string* out) {
  thread_local std::string line;
  line.clear();
  ConversionStatus s = AppendTypedJson(bytes, offset, &line);
  if (s.ok()) out->swap(line);  // the caller's old buffer becomes the next call's scratch
  return s;
}

}  // namespace sift::amqp
