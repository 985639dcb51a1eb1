// Test oracle for amqp::DecodeToTypedJson: the typed JSON of a message written from docs/typed-json.md
// over Qpid Proton's decode of its sections (oracle_sections.h), with nlohmann::ordered_json building
// the objects and printing them. It shares no code with amqp/ (type names, the plain-or-wrapper rule,
// base64, uuid and decimal text are written here from the document), so a writer bug shows up as a
// different line.
#ifndef SIFT_TESTS_AMQP_ORACLE_TYPED_JSON_H_
#define SIFT_TESTS_AMQP_ORACLE_TYPED_JSON_H_

#include <proton/codec.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/amqp/oracle_sections.h"

namespace sift::testing::oracle {

namespace typed_json_detail {

using J = nlohmann::ordered_json;

// docs/typed-json.md, "Wrappers": the name of every type.
inline const char* TypeName(pn_type_t t) {
  switch (t) {
    case PN_NULL: return "null";
    case PN_BOOL: return "boolean";
    case PN_UBYTE: return "ubyte";
    case PN_USHORT: return "ushort";
    case PN_UINT: return "uint";
    case PN_ULONG: return "ulong";
    case PN_BYTE: return "byte";
    case PN_SHORT: return "short";
    case PN_INT: return "int";
    case PN_LONG: return "long";
    case PN_FLOAT: return "float";
    case PN_DOUBLE: return "double";
    case PN_DECIMAL32: return "decimal32";
    case PN_DECIMAL64: return "decimal64";
    case PN_DECIMAL128: return "decimal128";
    case PN_CHAR: return "char";
    case PN_TIMESTAMP: return "timestamp";
    case PN_UUID: return "uuid";
    case PN_SYMBOL: return "symbol";
    case PN_BINARY: return "binary";
    case PN_STRING: return "string";
    case PN_LIST: return "list";
    case PN_MAP: return "map";
    case PN_ARRAY: return "array";
    case PN_DESCRIBED: return "described";
    default: return "invalid";
  }
}

// What a plain JSON integer and a plain JSON string read as at one place. Everywhere else a plain
// number is a double, and a plain boolean or null what it says.
struct Place {
  pn_type_t integer = PN_LONG;
  pn_type_t text = PN_STRING;
  bool timestamps_wrapped = false;  // the two timestamp properties are always wrappers
};

inline std::string Hex(const uint8_t* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

// RFC 4648 base64 with padding.
inline std::string Base64(const char* p, size_t n) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  uint32_t bits = 0;
  int have = 0;
  for (size_t i = 0; i < n; ++i) {
    bits = (bits << 8) | static_cast<uint8_t>(p[i]);
    have += 8;
    while (have >= 6) {
      have -= 6;
      s += kAlphabet[(bits >> have) & 63];
    }
  }
  if (have > 0) s += kAlphabet[(bits << (6 - have)) & 63];
  while (s.size() % 4 != 0) s += '=';
  return s;
}

inline J Number(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

// docs/typed-json.md, "char": a scalar value as a one-character string, anything else as its number.
inline J CharValue(uint32_t cp) {
  if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return cp;
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xc0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xe0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return s;
}

inline J Wrap(pn_type_t t, J value) {
  J w = J::object();
  w["type"] = TypeName(t);
  w["value"] = std::move(value);
  return w;
}

// docs/typed-json.md, "Wrappers": an object with a string "type", a "value" and only wrapper keys.
inline bool LooksLikeWrapper(const J& object) {
  if (!object.contains("type") || !object["type"].is_string() || !object.contains("value")) return false;
  for (const auto& [key, unused] : object.items()) {
    if (key != "type" && key != "value" && key != "encoding" && key != "element" && key != "descriptor") return false;
  }
  return true;
}

class Writer {
 public:
  std::string error;

  // The value at d's current node; false (error set) when typed JSON cannot say it.
  bool Value(pn_data_t* d, const Place& place, int depth, J* out) {
    if (depth > 200) return Fail("values nested deeper than 200 levels");
    const pn_type_t t = pn_data_type(d);
    switch (t) {
      case PN_LIST: {
        const size_t n = pn_data_get_list(d);
        *out = J::array();
        pn_data_enter(d);
        for (size_t i = 0; i < n; ++i) {
          pn_data_next(d);
          J item;
          if (!Value(d, Place{}, depth + 1, &item)) return false;
          out->push_back(std::move(item));
        }
        pn_data_exit(d);
        return true;
      }
      case PN_MAP: {
        std::vector<Entry> entries;
        if (!Entries(d, depth, &entries)) return false;
        J object = J::object();
        bool fits = true;
        for (const Entry& e : entries) {
          fits = fits && e.key_type == PN_STRING && !object.contains(e.key.get<std::string>());
          if (fits) object[e.key.get<std::string>()] = e.value;
        }
        *out = fits && !LooksLikeWrapper(object) ? std::move(object) : Pairs(entries);
        return true;
      }
      case PN_ARRAY: {
        const size_t n = pn_data_get_array(d);
        const bool described = pn_data_is_array_described(d);
        J a = J::object();
        a["type"] = "array";
        a["element"] = TypeName(pn_data_get_array_type(d));
        pn_data_enter(d);
        if (described) {
          pn_data_next(d);
          J descriptor;
          if (!Value(d, Descriptor(), depth + 1, &descriptor)) return false;
          a["descriptor"] = std::move(descriptor);
        }
        J items = J::array();
        for (size_t i = 0; i < n; ++i) {
          pn_data_next(d);
          J item;
          if (!Value(d, Place{}, depth + 1, &item)) return false;
          items.push_back(std::move(item));
        }
        pn_data_exit(d);
        a["value"] = std::move(items);
        *out = std::move(a);
        return true;
      }
      case PN_DESCRIBED: {
        J descriptor, value;
        pn_data_enter(d);
        pn_data_next(d);
        if (!Value(d, Descriptor(), depth + 1, &descriptor)) return false;
        pn_data_next(d);
        if (!Value(d, Place{}, depth + 1, &value)) return false;
        pn_data_exit(d);
        J w = J::object();
        w["type"] = "described";
        w["descriptor"] = std::move(descriptor);
        w["value"] = std::move(value);
        *out = std::move(w);
        return true;
      }
      default: return Scalar(d, t, place, out);
    }
  }

  // A section's map (docs/typed-json.md, "Annotation maps and application properties").
  bool SectionMap(pn_data_t* d, bool annotations, J* out) {
    std::vector<Entry> entries;
    if (!Entries(d, 0, &entries)) return false;
    J object = J::object();
    bool fits = true;
    for (const Entry& e : entries) {
      std::string name;
      if (!annotations) {
        fits = e.key_type == PN_STRING;
        if (fits) name = e.key.get<std::string>();
      } else if (e.key_type == PN_ULONG) {
        name = std::to_string(e.key["value"].get<uint64_t>());
      } else if (e.key_type == PN_SYMBOL) {
        name = e.key["value"].get<std::string>();
        // A key of digits would read back as a ulong; an empty key has none, so stays a symbol.
        fits = name.empty() || name.find_first_not_of("0123456789") != std::string::npos;
      } else {
        fits = false;
      }
      fits = fits && !object.contains(name);
      if (!fits) break;
      object[name] = e.value;
    }
    const bool map_wrapper_shape = fits && LooksLikeWrapper(object) && object["type"] == "map";
    *out = fits && !map_wrapper_shape ? std::move(object) : Pairs(entries);
    return true;
  }

 private:
  struct Entry {
    pn_type_t key_type;
    J key;
    J value;
  };

  static Place Descriptor() {
    Place p;
    p.integer = PN_ULONG;
    p.text = PN_SYMBOL;
    return p;
  }

  bool Fail(std::string why) {
    error = std::move(why);
    return false;
  }

  bool Entries(pn_data_t* d, int depth, std::vector<Entry>* entries) {
    const size_t n = pn_data_get_map(d);
    if (n % 2 != 0) return Fail("a map with an odd count");
    pn_data_enter(d);
    for (size_t i = 0; i < n; i += 2) {
      Entry e;
      pn_data_next(d);
      e.key_type = pn_data_type(d);
      if (!Value(d, Place{}, depth + 1, &e.key)) return false;
      pn_data_next(d);
      if (!Value(d, Place{}, depth + 1, &e.value)) return false;
      entries->push_back(std::move(e));
    }
    pn_data_exit(d);
    return true;
  }

  static J Pairs(const std::vector<Entry>& entries) {
    J pairs = J::array();
    for (const Entry& e : entries) pairs.push_back(J::array({e.key, e.value}));
    return Wrap(PN_MAP, std::move(pairs));
  }

  // A plain form is written only when reading it back at the same place gives the same type.
  bool Scalar(pn_data_t* d, pn_type_t t, const Place& place, J* out) {
    J v;
    bool plain = false;
    switch (t) {
      case PN_NULL: *out = nullptr; return true;
      case PN_BOOL: *out = pn_data_get_bool(d); return true;
      case PN_UBYTE: v = pn_data_get_ubyte(d); break;
      case PN_USHORT: v = pn_data_get_ushort(d); break;
      case PN_UINT: v = pn_data_get_uint(d); break;
      case PN_ULONG: v = pn_data_get_ulong(d); break;
      case PN_BYTE: v = pn_data_get_byte(d); break;
      case PN_SHORT: v = pn_data_get_short(d); break;
      case PN_INT: v = pn_data_get_int(d); break;
      case PN_LONG: v = pn_data_get_long(d); break;
      case PN_TIMESTAMP: v = pn_data_get_timestamp(d); break;
      case PN_FLOAT: v = Number(pn_data_get_float(d)); break;
      case PN_DOUBLE:
        v = Number(pn_data_get_double(d));
        plain = std::isfinite(pn_data_get_double(d));
        break;
      case PN_CHAR: v = CharValue(pn_data_get_char(d)); break;
      case PN_DECIMAL32: {
        const uint32_t x = pn_data_get_decimal32(d);
        uint8_t b[4];
        for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(x >> (24 - 8 * i));
        v = Hex(b, 4);
        break;
      }
      case PN_DECIMAL64: {
        const uint64_t x = pn_data_get_decimal64(d);
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(x >> (56 - 8 * i));
        v = Hex(b, 8);
        break;
      }
      case PN_DECIMAL128: {
        const pn_decimal128_t x = pn_data_get_decimal128(d);
        v = Hex(reinterpret_cast<const uint8_t*>(x.bytes), 16);
        break;
      }
      case PN_UUID: {
        const pn_uuid_t u = pn_data_get_uuid(d);
        const std::string h = Hex(reinterpret_cast<const uint8_t*>(u.bytes), 16);
        v = h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
        break;
      }
      case PN_BINARY: {
        const pn_bytes_t b = pn_data_get_binary(d);
        v = Base64(b.start, b.size);
        break;
      }
      case PN_STRING: {
        const pn_bytes_t b = pn_data_get_string(d);
        v = std::string(b.start, b.size);
        break;
      }
      case PN_SYMBOL: {
        const pn_bytes_t b = pn_data_get_symbol(d);
        for (size_t i = 0; i < b.size; ++i) {
          if (static_cast<uint8_t>(b.start[i]) >= 0x80) return Fail("a symbol that is not ASCII");
        }
        v = std::string(b.start, b.size);
        break;
      }
      default: return Fail("a value of no AMQP type");
    }
    const bool integer = t == PN_UBYTE || t == PN_USHORT || t == PN_UINT || t == PN_ULONG || t == PN_BYTE ||
                         t == PN_SHORT || t == PN_INT || t == PN_LONG || t == PN_TIMESTAMP;
    const bool text = t == PN_STRING || t == PN_SYMBOL || t == PN_BINARY || t == PN_UUID || t == PN_CHAR ||
                      t == PN_DECIMAL32 || t == PN_DECIMAL64 || t == PN_DECIMAL128;
    if (integer) plain = place.integer == t && !(t == PN_TIMESTAMP && place.timestamps_wrapped);
    if (text) plain = place.text == t;
    *out = plain ? std::move(v) : Wrap(t, std::move(v));
    return true;
  }
};

struct Field {
  const char* key;
  Place place;
};

inline Place At(pn_type_t integer, pn_type_t text = PN_STRING, bool timestamps_wrapped = false) {
  Place p;
  p.integer = integer;
  p.text = text;
  p.timestamps_wrapped = timestamps_wrapped;
  return p;
}

// docs/typed-json.md, "Header and properties fields": names and the type plain JSON takes there.
inline const std::vector<Field>& HeaderFields() {
  static const std::vector<Field> f = {{"durable", Place{}},
                                       {"priority", At(PN_UBYTE)},
                                       {"ttl", At(PN_UINT)},
                                       {"first_acquirer", Place{}},
                                       {"delivery_count", At(PN_UINT)}};
  return f;
}

inline const std::vector<Field>& PropertiesFields() {
  static const std::vector<Field> f = {{"message_id", At(PN_ULONG)},
                                       {"user_id", Place{}},
                                       {"to", Place{}},
                                       {"subject", Place{}},
                                       {"reply_to", Place{}},
                                       {"correlation_id", At(PN_ULONG)},
                                       {"content_type", At(PN_LONG, PN_SYMBOL)},
                                       {"content_encoding", At(PN_LONG, PN_SYMBOL)},
                                       {"absolute_expiry_time", At(PN_TIMESTAMP, PN_STRING, true)},
                                       {"creation_time", At(PN_TIMESTAMP, PN_STRING, true)},
                                       {"group_id", Place{}},
                                       {"group_sequence", At(PN_UINT)},
                                       {"reply_to_group_id", Place{}}};
  return f;
}

inline Verdict Fields(const SectionPiece& s, const std::vector<Field>& fields, J* out) {
  pn_data_t* d = s.Value();
  const size_t n = pn_data_get_list(d);
  if (n > fields.size()) return Verdict::Bad("more fields than the spec defines");
  *out = J::object();
  pn_data_enter(d);
  for (size_t i = 0; i < n; ++i) {
    pn_data_next(d);
    if (pn_data_type(d) == PN_NULL) continue;
    Writer w;
    J v;
    if (!w.Value(d, fields[i].place, 0, &v)) return Verdict::Bad(std::string(fields[i].key) + ": " + w.error);
    (*out)[fields[i].key] = std::move(v);
  }
  return Verdict::Ok();
}

inline Verdict Message(std::span<const uint8_t> bytes, J* message) {
  std::vector<SectionPiece> sections;
  Verdict v = CutSections(bytes, &sections);
  if (!v.ok()) return v;
  J body_parts = J::array();
  int body_kind = -1;
  J footer;
  for (const SectionPiece& s : sections) {
    Writer w;
    J value;
    bool ok = true;
    switch (s.kind) {
      case kHeader:
        v = Fields(s, HeaderFields(), &value);
        if (!v.ok()) return v;
        (*message)["header"] = std::move(value);
        break;
      case kProperties:
        v = Fields(s, PropertiesFields(), &value);
        if (!v.ok()) return v;
        (*message)["properties"] = std::move(value);
        break;
      case kDeliveryAnnotations:
      case kMessageAnnotations:
        ok = w.SectionMap(s.Value(), true, &value);
        (*message)[s.kind == kDeliveryAnnotations ? "delivery_annotations" : "message_annotations"] = std::move(value);
        break;
      case kApplicationProperties:
        ok = w.SectionMap(s.Value(), false, &value);
        (*message)["application_properties"] = std::move(value);
        break;
      case kData: {
        const pn_bytes_t b = pn_data_get_binary(s.Value());
        body_parts.push_back(Base64(b.start, b.size));
        body_kind = kData;
        break;
      }
      case kAmqpSequence:
      case kAmqpValue:
        ok = w.Value(s.Value(), Place{}, 0, &value);
        body_parts.push_back(std::move(value));
        body_kind = s.kind;
        break;
      case kFooter: ok = w.SectionMap(s.Value(), true, &footer); break;
    }
    if (!ok) return Verdict::Bad(std::string(kKindInfo[s.kind].name) + ": " + w.error);
  }
  // docs/typed-json.md, "Body": one key, singular for one section.
  if (!body_parts.empty()) {
    J body = J::object();
    const bool one = body_parts.size() == 1;
    if (body_kind == kData) {
      body["data"] = one ? body_parts[0] : body_parts;
    } else if (body_kind == kAmqpSequence) {
      body[one ? "sequence" : "sequences"] = one ? body_parts[0] : body_parts;
    } else {
      body["value"] = body_parts[0];
    }
    (*message)["body"] = std::move(body);
  }
  if (!footer.is_null()) (*message)["footer"] = std::move(footer);
  return Verdict::Ok();
}

}  // namespace typed_json_detail

// The typed JSON line of `bytes`, with "offset" first when one is given.
inline Verdict OracleDecodeToTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset,
                                       std::string* out) {
  namespace t = typed_json_detail;
  try {
    t::J message = t::J::object();
    if (offset.has_value()) message["offset"] = *offset;
    Verdict v = t::Message(bytes, &message);
    if (!v.ok()) return v;
    // Strings that are not UTF-8 get U+FFFD for each bad sequence (docs/typed-json.md, "Strings").
    *out = message.dump(-1, ' ', false, t::J::error_handler_t::replace);
    return Verdict::Ok();
  } catch (const std::exception& e) {
    return Verdict::Bad(std::string("cannot write the JSON: ") + e.what());
  }
}

}  // namespace sift::testing::oracle

#endif  // SIFT_TESTS_AMQP_ORACLE_TYPED_JSON_H_
