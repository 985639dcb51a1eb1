// The typed JSON writer as it was before DecodeToTypedJson wrote JSON straight from the encoded bytes:
// bytes -> Proton pn_data_t (ProtonSections::Split) -> nlohmann JSON -> text. Kept, header-only, as
// the reference the one-pass writer is compared with (typed_json_differential_test.cc and
// tests/fuzz/typed_json_fuzzer.cc): same text for every message it accepts, an error for every message
// it rejects.
#ifndef SIFT_TESTS_ENGINE_AMQP_REFERENCE_TYPED_JSON_H_
#define SIFT_TESTS_ENGINE_AMQP_REFERENCE_TYPED_JSON_H_

#include <proton/codec.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "amqp/json_value.h"
#include "amqp/proton_message.h"
#include "amqp/proton_sections.h"

namespace sift::amqp::reference {
namespace detail {

bool GetJson(pn_data_t* data, const JsonHint& hint, Json* out, std::string* error, int depth = 0);
std::string Base64Encode(std::string_view bytes);

enum class PlainKind { kNone, kInteger, kNumber, kString };

inline PlainKind PlainKindOf(pn_type_t type) {
  switch (type) {
    case PN_UBYTE:
    case PN_USHORT:
    case PN_UINT:
    case PN_ULONG:
    case PN_BYTE:
    case PN_SHORT:
    case PN_INT:
    case PN_LONG:
    case PN_TIMESTAMP: return PlainKind::kInteger;
    case PN_FLOAT:
    case PN_DOUBLE: return PlainKind::kNumber;
    case PN_CHAR:
    case PN_DECIMAL32:
    case PN_DECIMAL64:
    case PN_DECIMAL128:
    case PN_UUID:
    case PN_BINARY:
    case PN_STRING:
    case PN_SYMBOL: return PlainKind::kString;
    default: return PlainKind::kNone;
  }
}

// Whether a T value may be written plain under `hint`: reading the plain form back gives T again.
inline bool WritesPlain(pn_type_t type, const JsonHint& hint) {
  pn_type_t reads_as;
  pn_type_t natural;
  switch (PlainKindOf(type)) {
    case PlainKind::kInteger:
      reads_as = hint.integer;
      natural = PN_LONG;
      break;
    case PlainKind::kNumber:
      reads_as = hint.number;
      natural = PN_DOUBLE;
      break;
    case PlainKind::kString:
      reads_as = hint.string;
      natural = PN_STRING;
      break;
    default: return true;
  }
  return reads_as == type && (hint.plain_output || type == natural);
}

inline std::string HexEncode(const uint8_t* bytes, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

// Canonical UUID text (RFC 4122 section 3): 8-4-4-4-12 lower-case hex digits.
inline std::string UuidText(const pn_uuid_t& uuid) {
  const auto* b = reinterpret_cast<const uint8_t*>(uuid.bytes);
  std::string hex = HexEncode(b, 16);
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4), hex.substr(16, 4),
                     hex.substr(20, 12));
}

// One Unicode scalar value as UTF-8, or false when `cp` is not one (a surrogate or above U+10FFFF).
inline bool Utf8Encode(uint32_t cp, std::string* out) {
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp <= 0x10FFFF) {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    return false;
  }
  return true;
}

// The shape of a wrapper: an object with a string "type", a "value", and no key but the wrapper keys
// ("encoding", "element", "descriptor"). Inside values such an object is always read as a wrapper (an
// unknown type name is an error, not a map), and a map that would look like one is written in the
// {"type": "map"} form.
inline bool HasWrapperShape(const Json& json, std::string_view* name) {
  if (!json.is_object()) return false;
  auto t = json.find("type");
  if (t == json.end() || !t->is_string() || !json.contains("value")) return false;
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string& key = it.key();
    if (key != "type" && key != "value" && key != "encoding" && key != "element" && key != "descriptor") {
      return false;
    }
  }
  *name = t->get_ref<const std::string&>();
  return true;
}

// At the top of a section map only a "map" wrapper is one: {"type": "order", "value": 5} there is
// two application properties.
inline bool IsSectionMapWrapper(const Json& json) {
  std::string_view name;
  return HasWrapperShape(json, &name) && name == "map";
}

inline Json Wrapper(pn_type_t type, Json value) {
  Json out = Json::object();
  out["type"] = JsonTypeName(type);
  out["value"] = std::move(value);
  return out;
}

inline Json FloatingJson(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

inline Json CharJson(uint32_t cp) {
  std::string s;
  if (Utf8Encode(cp, &s)) return s;
  return cp;
}

inline bool GetScalar(pn_data_t* data, pn_type_t type, const JsonHint& hint, Json* out, std::string* error) {
  Json v;
  bool plain_ok = true;
  switch (type) {
    case PN_NULL: *out = nullptr; return true;
    case PN_BOOL: *out = pn_data_get_bool(data); return true;
    case PN_UBYTE: v = pn_data_get_ubyte(data); break;
    case PN_USHORT: v = pn_data_get_ushort(data); break;
    case PN_UINT: v = pn_data_get_uint(data); break;
    case PN_ULONG: v = pn_data_get_ulong(data); break;
    case PN_BYTE: v = pn_data_get_byte(data); break;
    case PN_SHORT: v = pn_data_get_short(data); break;
    case PN_INT: v = pn_data_get_int(data); break;
    case PN_LONG: v = pn_data_get_long(data); break;
    case PN_TIMESTAMP: v = pn_data_get_timestamp(data); break;
    case PN_FLOAT: {
      float f = pn_data_get_float(data);
      plain_ok = std::isfinite(f);
      v = FloatingJson(f);
      break;
    }
    case PN_DOUBLE: {
      double d = pn_data_get_double(data);
      plain_ok = std::isfinite(d);
      v = FloatingJson(d);
      break;
    }
    case PN_CHAR: {
      v = CharJson(pn_data_get_char(data));
      plain_ok = v.is_string();
      break;
    }
    case PN_DECIMAL32: {
      uint32_t d = pn_data_get_decimal32(data);
      uint8_t be[4] = {static_cast<uint8_t>(d >> 24), static_cast<uint8_t>(d >> 16), static_cast<uint8_t>(d >> 8),
                       static_cast<uint8_t>(d)};
      v = HexEncode(be, 4);
      break;
    }
    case PN_DECIMAL64: {
      uint64_t d = pn_data_get_decimal64(data);
      uint8_t be[8];
      for (int i = 0; i < 8; ++i) be[i] = static_cast<uint8_t>(d >> (56 - 8 * i));
      v = HexEncode(be, 8);
      break;
    }
    case PN_DECIMAL128: {
      pn_decimal128_t d = pn_data_get_decimal128(data);
      v = HexEncode(reinterpret_cast<const uint8_t*>(d.bytes), 16);
      break;
    }
    case PN_UUID: v = UuidText(pn_data_get_uuid(data)); break;
    case PN_BINARY: {
      pn_bytes_t b = pn_data_get_binary(data);
      v = Base64Encode(std::string_view(b.start, b.size));
      break;
    }
    case PN_STRING: {
      pn_bytes_t b = pn_data_get_string(data);
      v = std::string(b.start, b.size);
      break;
    }
    case PN_SYMBOL: {
      pn_bytes_t b = pn_data_get_symbol(data);
      v = std::string(b.start, b.size);
      for (size_t i = 0; i < b.size; ++i) {
        if (static_cast<uint8_t>(b.start[i]) >= 0x80) {
          // Typed JSON input refuses such a symbol, so writing it would break the round trip.
          *error = fmt::format("symbol {} is not ASCII (core 1.6.21)",
                               v.dump(-1, ' ', false, Json::error_handler_t::replace));
          return false;
        }
      }
      break;
    }
    default: *error = fmt::format("value of unknown type {}", static_cast<int>(type)); return false;
  }
  if (plain_ok && WritesPlain(type, hint)) {
    *out = std::move(v);
  } else {
    *out = Wrapper(type, std::move(v));
  }
  return true;
}

inline bool GetPairs(pn_data_t* data, std::vector<std::pair<Json, Json>>* pairs, std::vector<pn_type_t>* key_types,
                     std::string* error, int depth) {
  size_t count = pn_data_get_map(data);
  if (count % 2 != 0) {
    *error = fmt::format("map with an odd number ({}) of keys and values", count);
    return false;
  }
  pn_data_enter(data);
  for (size_t i = 0; i < count; i += 2) {
    Json key, value;
    pn_data_next(data);
    key_types->push_back(pn_data_type(data));
    if (!GetJson(data, kNaturalHint, &key, error, depth + 1)) return false;
    pn_data_next(data);
    if (!GetJson(data, kNaturalHint, &value, error, depth + 1)) return false;
    pairs->emplace_back(std::move(key), std::move(value));
  }
  pn_data_exit(data);
  return true;
}

inline Json PairsWrapper(std::vector<std::pair<Json, Json>>& pairs) {
  Json items = Json::array();
  for (auto& [k, v] : pairs) items.push_back(Json::array({std::move(k), std::move(v)}));
  return Wrapper(PN_MAP, std::move(items));
}

inline bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

inline std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (bytes.size() - i == 1) {
    uint32_t n = b(i) << 16;
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.append("==");
  } else if (bytes.size() - i == 2) {
    uint32_t n = (b(i) << 16) | (b(i + 1) << 8);
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}
inline bool GetJson(pn_data_t* data, const JsonHint& hint, Json* out, std::string* error, int depth) {
  if (depth > kMaxJsonDepth) {
    *error = fmt::format("values nested deeper than {} levels", kMaxJsonDepth);
    return false;
  }
  pn_type_t type = pn_data_type(data);
  switch (type) {
    case PN_LIST: {
      size_t count = pn_data_get_list(data);
      Json items = Json::array();
      pn_data_enter(data);
      for (size_t i = 0; i < count; ++i) {
        pn_data_next(data);
        Json item;
        if (!GetJson(data, kNaturalHint, &item, error, depth + 1)) return false;
        items.push_back(std::move(item));
      }
      pn_data_exit(data);
      *out = std::move(items);
      return true;
    }
    case PN_MAP: {
      std::vector<std::pair<Json, Json>> pairs;
      std::vector<pn_type_t> key_types;
      if (!GetPairs(data, &pairs, &key_types, error, depth)) return false;
      bool as_object = true;
      Json object = Json::object();
      for (size_t i = 0; i < pairs.size() && as_object; ++i) {
        if (key_types[i] != PN_STRING || object.contains(pairs[i].first.get_ref<const std::string&>())) {
          as_object = false;
        } else {
          object[pairs[i].first.get_ref<const std::string&>()] = pairs[i].second;
        }
      }
      std::string_view name;
      if (as_object && !HasWrapperShape(object, &name)) {
        *out = std::move(object);
      } else {
        *out = PairsWrapper(pairs);
      }
      return true;
    }
    case PN_ARRAY: {
      size_t count = pn_data_get_array(data);
      bool described = pn_data_is_array_described(data);
      pn_type_t element = pn_data_get_array_type(data);
      Json result = Json::object();
      result["type"] = "array";
      result["element"] = JsonTypeName(element);
      pn_data_enter(data);
      if (described) {
        pn_data_next(data);
        JsonHint dh;
        dh.integer = PN_ULONG;
        dh.string = PN_SYMBOL;
        Json descriptor;
        if (!GetJson(data, dh, &descriptor, error, depth + 1)) return false;
        result["descriptor"] = std::move(descriptor);
      }
      Json items = Json::array();
      for (size_t i = 0; i < count; ++i) {
        pn_data_next(data);
        Json item;
        if (!GetJson(data, kNaturalHint, &item, error, depth + 1)) return false;
        items.push_back(std::move(item));
      }
      pn_data_exit(data);
      result["value"] = std::move(items);
      *out = std::move(result);
      return true;
    }
    case PN_DESCRIBED: {
      Json result = Json::object();
      result["type"] = "described";
      pn_data_enter(data);
      pn_data_next(data);
      JsonHint dh;
      dh.integer = PN_ULONG;
      dh.string = PN_SYMBOL;
      Json descriptor, value;
      if (!GetJson(data, dh, &descriptor, error, depth + 1)) return false;
      pn_data_next(data);
      if (!GetJson(data, kNaturalHint, &value, error, depth + 1)) return false;
      pn_data_exit(data);
      result["descriptor"] = std::move(descriptor);
      result["value"] = std::move(value);
      *out = std::move(result);
      return true;
    }
    default: return GetScalar(data, type, hint, out, error);
  }
}

inline bool GetSectionMap(pn_data_t* data, MapKeys keys, Json* out, std::string* error) {
  std::vector<std::pair<Json, Json>> pairs;
  std::vector<pn_type_t> key_types;
  if (!GetPairs(data, &pairs, &key_types, error, 0)) return false;
  Json object = Json::object();
  bool as_object = true;
  for (size_t i = 0; i < pairs.size() && as_object; ++i) {
    const Json& key = pairs[i].first;
    std::string text;
    if (keys == MapKeys::kStrings) {
      as_object = key_types[i] == PN_STRING;
      if (as_object) text = key.get<std::string>();
    } else if (key_types[i] == PN_SYMBOL) {
      text = key["value"].get<std::string>();
      as_object = !AllDigits(text);
    } else if (key_types[i] == PN_ULONG) {
      text = std::to_string(key["value"].get<uint64_t>());
    } else {
      as_object = false;
    }
    if (as_object && object.contains(text)) as_object = false;
    if (as_object) object[text] = pairs[i].second;
  }
  if (as_object && !IsSectionMapWrapper(object)) {
    *out = std::move(object);
  } else {
    *out = PairsWrapper(pairs);
  }
  return true;
}

// A field of the header or properties list: its JSON key and how plain JSON maps to its spec type.
struct ListField {
  std::string_view key;
  JsonHint hint;
};

constexpr JsonHint Hint(pn_type_t integer, pn_type_t string = PN_STRING, bool plain_output = true) {
  JsonHint hint;
  hint.integer = integer;
  hint.string = string;
  hint.plain_output = plain_output;
  return hint;
}

// core part 3, section 3.2.1.
constexpr std::array<ListField, 5> kHeaderFields = {{
    {"durable", kNaturalHint},
    {"priority", Hint(PN_UBYTE)},
    {"ttl", Hint(PN_UINT)},
    {"first_acquirer", kNaturalHint},
    {"delivery_count", Hint(PN_UINT)},
}};

// core part 3, section 3.2.4. Timestamps are written as wrappers (docs/typed-json.md) but a
// plain integer is read as one; message and correlation ids read a plain integer as a ulong (the
// message-id-ulong type, core 3.2.11), the content fields read a plain string as a symbol.
constexpr std::array<ListField, 13> kPropertiesFields = {{
    {"message_id", Hint(PN_ULONG)},
    {"user_id", kNaturalHint},
    {"to", kNaturalHint},
    {"subject", kNaturalHint},
    {"reply_to", kNaturalHint},
    {"correlation_id", Hint(PN_ULONG)},
    {"content_type", Hint(PN_LONG, PN_SYMBOL)},
    {"content_encoding", Hint(PN_LONG, PN_SYMBOL)},
    {"absolute_expiry_time", Hint(PN_TIMESTAMP, PN_STRING, false)},
    {"creation_time", Hint(PN_TIMESTAMP, PN_STRING, false)},
    {"group_id", kNaturalHint},
    {"group_sequence", Hint(PN_UINT)},
    {"reply_to_group_id", kNaturalHint},
}};

template <size_t N>
inline bool DecodeFieldList(const ProtonSection& section, const std::array<ListField, N>& fields, Json* out,
                            std::string* error) {
  pn_data_t* data = section.Value();
  size_t count = pn_data_get_list(data);
  if (count > N) {
    *error = fmt::format("byte {}: {} list has {} fields, the spec defines {}", section.offset,
                         ProtonSectionName(section.kind), count, N);
    return false;
  }
  *out = Json::object();
  pn_data_enter(data);
  for (size_t i = 0; i < count; ++i) {
    pn_data_next(data);
    if (pn_data_type(data) == PN_NULL) continue;
    Json value;
    std::string why;
    if (!GetJson(data, fields[i].hint, &value, &why)) {
      *error = fmt::format("byte {}: {}: {}", section.offset, fields[i].key, why);
      return false;
    }
    (*out)[std::string(fields[i].key)] = std::move(value);
  }
  return true;
}

inline bool DecodeMessage(std::span<const uint8_t> bytes, Json* message, std::string* error) {
  ProtonSections sections;
  if (!sections.Split(bytes, error)) return false;
  Json body_items = Json::array();
  ProtonSectionKind body_kind = ProtonSectionKind::kAmqpValue;
  for (const ProtonSection& section : sections.sections()) {
    std::string why;
    Json value;
    bool ok = true;
    const char* key = nullptr;
    switch (section.kind) {
      case ProtonSectionKind::kHeader:
        if (!DecodeFieldList(section, kHeaderFields, &value, error)) return false;
        key = "header";
        break;
      case ProtonSectionKind::kProperties:
        if (!DecodeFieldList(section, kPropertiesFields, &value, error)) return false;
        key = "properties";
        break;
      case ProtonSectionKind::kDeliveryAnnotations:
        ok = GetSectionMap(section.Value(), MapKeys::kAnnotations, &value, &why);
        key = "delivery_annotations";
        break;
      case ProtonSectionKind::kMessageAnnotations:
        ok = GetSectionMap(section.Value(), MapKeys::kAnnotations, &value, &why);
        key = "message_annotations";
        break;
      case ProtonSectionKind::kApplicationProperties:
        ok = GetSectionMap(section.Value(), MapKeys::kStrings, &value, &why);
        key = "application_properties";
        break;
      case ProtonSectionKind::kFooter: break;  // written after the body, below
      case ProtonSectionKind::kData: {
        pn_bytes_t b = pn_data_get_binary(section.Value());
        body_items.push_back(Base64Encode(std::string_view(b.start, b.size)));
        body_kind = section.kind;
        break;
      }
      case ProtonSectionKind::kAmqpSequence:
      case ProtonSectionKind::kAmqpValue:
        ok = GetJson(section.Value(), kNaturalHint, &value, &why);
        body_items.push_back(std::move(value));
        body_kind = section.kind;
        break;
    }
    if (!ok) {
      *error = fmt::format("byte {}: {}: {}", section.offset, ProtonSectionName(section.kind), why);
      return false;
    }
    if (key != nullptr) (*message)[key] = std::move(value);
  }
  if (!body_items.empty()) {
    Json body = Json::object();
    if (body_kind == ProtonSectionKind::kData) {
      body["data"] = body_items.size() == 1 ? std::move(body_items[0]) : std::move(body_items);
    } else if (body_kind == ProtonSectionKind::kAmqpSequence) {
      if (body_items.size() == 1) {
        body["sequence"] = std::move(body_items[0]);
      } else {
        body["sequences"] = std::move(body_items);
      }
    } else {
      body["value"] = std::move(body_items[0]);
    }
    (*message)["body"] = std::move(body);
  }
  // The footer comes last in typed JSON's key order (docs/typed-json.md), after the body.
  if (const ProtonSection* footer = sections.Find(ProtonSectionKind::kFooter); footer != nullptr) {
    Json value;
    std::string why;
    if (!GetSectionMap(footer->Value(), MapKeys::kAnnotations, &value, &why)) {
      *error = fmt::format("byte {}: footer: {}", footer->offset, why);
      return false;
    }
    (*message)["footer"] = std::move(value);
  }
  return true;
}

}  // namespace detail

// DecodeToTypedJson as it was: see amqp/typed_json.h for the contract.
inline ConversionStatus ReferenceDecodeToTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset,
                                                   std::string* out) {
  try {
    Json message = Json::object();
    if (offset.has_value()) message["offset"] = *offset;
    std::string error;
    if (!detail::DecodeMessage(bytes, &message, &error)) return ConversionStatus::Error(error);
    *out = message.dump(-1, ' ', false, Json::error_handler_t::replace);
    return ConversionStatus::Ok();
  } catch (const std::exception& e) {
    return ConversionStatus::Error(fmt::format("cannot write the message as JSON: {}", e.what()));
  }
}

}  // namespace sift::amqp::reference

#endif  // SIFT_TESTS_ENGINE_AMQP_REFERENCE_TYPED_JSON_H_
