// Typed JSON values into Proton pn_data_t nodes (JSON to AMQP); see json_value.h. The type names and
// hints it reads by are typed_json_types.h's, the text codecs json_text_codecs.cc's.
#include "amqp/json_value.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "base/byte_order.h"
#include "base/hex.h"
#include "base/utf8.h"

namespace sift::amqp {
namespace {

bool Fail(const std::string& path, std::string_view why, std::string* error) {
  *error = path.empty() ? std::string(why) : fmt::format("{}: {}", path, why);
  return false;
}

// Restores a path string to its old length when a nested step is done.
class PathStep {
 public:
  PathStep(std::string& path, std::string_view step) : path_(path), size_(path.size()) { path_.append(step); }
  ~PathStep() { path_.resize(size_); }
  PathStep(const PathStep&) = delete;
  PathStep& operator=(const PathStep&) = delete;

 private:
  std::string& path_;
  size_t size_;
};

std::string IndexStep(size_t i) { return fmt::format("[{}]", i); }
std::string KeyStep(std::string_view key) { return fmt::format("[{}]", Json(key).dump()); }

std::string_view KindOf(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "an unsupported JSON value";
  }
}

// --- reading typed JSON into pn_data_t -----------------------------------------------------------

bool GetInteger(const Json& v, bool* negative, uint64_t* magnitude) {
  if (v.is_number_unsigned()) {
    *negative = false;
    *magnitude = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    *negative = i < 0;
    *magnitude = i < 0 ? static_cast<uint64_t>(-(i + 1)) + 1 : static_cast<uint64_t>(i);
    return true;
  }
  return false;
}

// Checks `v` is an integer in [min, max] and returns it as int64 (signed) or uint64 bits.
bool IntegerInRange(const Json& v, int64_t min, uint64_t max, std::string_view type_name, const std::string& path,
                    uint64_t* bits, std::string* error) {
  bool negative;
  uint64_t magnitude;
  if (!GetInteger(v, &negative, &magnitude)) {
    return Fail(path, fmt::format("{} value must be an integer, found {}", type_name, KindOf(v)), error);
  }
  bool ok = negative ? (min < 0 && magnitude <= static_cast<uint64_t>(-(min + 1)) + 1) : magnitude <= max;
  if (!ok) {
    return Fail(path, fmt::format("{} is out of range for {} ({}..{})", v.dump(), type_name, min, max), error);
  }
  *bits = negative ? static_cast<uint64_t>(-static_cast<int64_t>(magnitude - 1) - 1) : magnitude;
  return true;
}

bool GetFloating(const Json& v, std::string_view type_name, const std::string& path, double* out, std::string* error) {
  if (v.is_number()) {
    *out = v.get<double>();
    return true;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "NaN") {
      *out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (s == "Infinity") {
      *out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (s == "-Infinity") {
      *out = -std::numeric_limits<double>::infinity();
      return true;
    }
  }
  return Fail(path,
              fmt::format("{} value must be a number or \"NaN\", \"Infinity\", \"-Infinity\", "
                          "found {}",
                          type_name, v.is_string() ? v.dump() : std::string(KindOf(v))),
              error);
}

bool GetText(const Json& v, std::string_view type_name, const std::string& path, const std::string** out,
             std::string* error) {
  if (!v.is_string()) {
    return Fail(path, fmt::format("{} value must be a string, found {}", type_name, KindOf(v)), error);
  }
  *out = &v.get_ref<const std::string&>();
  return true;
}

pn_bytes_t Bytes(const std::string& s) { return pn_bytes(s.size(), s.data()); }

// Puts the scalar T whose wrapper value is `v`.
bool PutScalar(ValueType type, const Json& v, bool hex, const std::string& path, pn_data_t* data, std::string* error) {
  std::string_view name = TypedJsonTypeName(type);
  uint64_t bits = 0;
  const std::string* text = nullptr;
  switch (type) {
    case ValueType::kNull:
      if (!v.is_null()) return Fail(path, fmt::format("null value must be null, found {}", KindOf(v)), error);
      pn_data_put_null(data);
      return true;
    case ValueType::kBoolean:
      if (!v.is_boolean()) {
        return Fail(path, fmt::format("boolean value must be true or false, found {}", KindOf(v)), error);
      }
      pn_data_put_bool(data, v.get<bool>());
      return true;
    case ValueType::kUByte:
      if (!IntegerInRange(v, 0, UINT8_MAX, name, path, &bits, error)) return false;
      pn_data_put_ubyte(data, static_cast<uint8_t>(bits));
      return true;
    case ValueType::kUShort:
      if (!IntegerInRange(v, 0, UINT16_MAX, name, path, &bits, error)) return false;
      pn_data_put_ushort(data, static_cast<uint16_t>(bits));
      return true;
    case ValueType::kUInt:
      if (!IntegerInRange(v, 0, UINT32_MAX, name, path, &bits, error)) return false;
      pn_data_put_uint(data, static_cast<uint32_t>(bits));
      return true;
    case ValueType::kULong:
      if (!IntegerInRange(v, 0, UINT64_MAX, name, path, &bits, error)) return false;
      pn_data_put_ulong(data, bits);
      return true;
    case ValueType::kByte:
      if (!IntegerInRange(v, INT8_MIN, INT8_MAX, name, path, &bits, error)) return false;
      pn_data_put_byte(data, static_cast<int8_t>(static_cast<int64_t>(bits)));
      return true;
    case ValueType::kShort:
      if (!IntegerInRange(v, INT16_MIN, INT16_MAX, name, path, &bits, error)) return false;
      pn_data_put_short(data, static_cast<int16_t>(static_cast<int64_t>(bits)));
      return true;
    case ValueType::kInt:
      if (!IntegerInRange(v, INT32_MIN, INT32_MAX, name, path, &bits, error)) return false;
      pn_data_put_int(data, static_cast<int32_t>(static_cast<int64_t>(bits)));
      return true;
    case ValueType::kLong:
    case ValueType::kTimestamp:
      if (!IntegerInRange(v, INT64_MIN, INT64_MAX, name, path, &bits, error)) return false;
      if (type == ValueType::kLong) {
        pn_data_put_long(data, static_cast<int64_t>(bits));
      } else {
        pn_data_put_timestamp(data, static_cast<int64_t>(bits));
      }
      return true;
    case ValueType::kFloat: {
      double d;
      if (!GetFloating(v, name, path, &d, error)) return false;
      if (std::isfinite(d) && std::fabs(d) > FLT_MAX) {
        return Fail(path, fmt::format("{} is out of range for float", v.dump()), error);
      }
      pn_data_put_float(data, static_cast<float>(d));
      return true;
    }
    case ValueType::kDouble: {
      double d;
      if (!GetFloating(v, name, path, &d, error)) return false;
      pn_data_put_double(data, d);
      return true;
    }
    case ValueType::kChar: {
      uint32_t cp = 0;
      if (v.is_number_integer()) {
        if (!IntegerInRange(v, 0, UINT32_MAX, name, path, &bits, error)) return false;
        cp = static_cast<uint32_t>(bits);
      } else if (!v.is_string() || !base::DecodeSingleCodePoint(v.get_ref<const std::string&>(), &cp)) {
        return Fail(path,
                    fmt::format("char value must be a one-character string, found {}",
                                v.is_string() ? v.dump() : std::string(KindOf(v))),
                    error);
      }
      pn_data_put_char(data, cp);
      return true;
    }
    case ValueType::kDecimal32:
    case ValueType::kDecimal64:
    case ValueType::kDecimal128: {
      size_t width = type == ValueType::kDecimal32 ? 4 : type == ValueType::kDecimal64 ? 8 : 16;
      std::string raw;
      if (!GetText(v, name, path, &text, error)) return false;
      if (text->size() != width * 2 || !base::DecodeHex(*text, &raw)) {
        return Fail(path,
                    fmt::format("{} value must be {} hex digits (the raw IEEE 754 encoding, "
                                "big-endian), found {}",
                                name, width * 2, v.dump()),
                    error);
      }
      if (type == ValueType::kDecimal32) {
        pn_data_put_decimal32(data, base::LoadBE32(raw.data()));
      } else if (type == ValueType::kDecimal64) {
        pn_data_put_decimal64(data, base::LoadBE64(raw.data()));
      } else {
        pn_decimal128_t d;
        std::memcpy(d.bytes, raw.data(), 16);
        pn_data_put_decimal128(data, d);
      }
      return true;
    }
    case ValueType::kUuid: {
      pn_uuid_t uuid;
      if (!GetText(v, name, path, &text, error)) return false;
      if (!ParseUuid(*text, &uuid)) {
        return Fail(path, fmt::format("uuid value must be 8-4-4-4-12 hex digits, found {}", v.dump()), error);
      }
      pn_data_put_uuid(data, uuid);
      return true;
    }
    case ValueType::kBinary: {
      std::string raw, why;
      if (!GetText(v, name, path, &text, error)) return false;
      if (!DecodeBinaryText(*text, hex, &raw, &why)) return Fail(path, why, error);
      pn_data_put_binary(data, Bytes(raw));
      return true;
    }
    case ValueType::kString:
      if (!GetText(v, name, path, &text, error)) return false;
      pn_data_put_string(data, Bytes(*text));
      return true;
    case ValueType::kSymbol:
      if (!GetText(v, name, path, &text, error)) return false;
      for (char c : *text) {
        if (static_cast<uint8_t>(c) >= 0x80) {
          return Fail(path, fmt::format("symbol {} is not ASCII (core 1.6.21)", v.dump()), error);
        }
      }
      pn_data_put_symbol(data, Bytes(*text));
      return true;
    default: return Fail(path, fmt::format("{} is not a scalar type", name), error);
  }
}

bool AllowedWrapperKey(ValueType type, std::string_view key) {
  if (key == "type" || key == "value") return true;
  if (type == ValueType::kBinary) return key == "encoding";
  if (type == ValueType::kArray) return key == "element" || key == "descriptor";
  if (type == ValueType::kDescribed) return key == "descriptor";
  return false;
}

// The shape of a wrapper: an object with a string "type", a "value", and no key but the wrapper keys
// ("encoding", "element", "descriptor"). Inside values such an object is always read as a wrapper (an
// unknown type name is an error, not a map), and a map that would look like one is written in the
// {"type": "map"} form.
bool HasWrapperShape(const Json& json, std::string_view* name) {
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
bool IsSectionMapWrapper(const Json& json) {
  std::string_view name;
  return HasWrapperShape(json, &name) && name == "map";
}

bool PutList(const Json& items, std::string& path, pn_data_t* data, std::string* error) {
  pn_data_put_list(data);
  pn_data_enter(data);
  for (size_t i = 0; i < items.size(); ++i) {
    PathStep step(path, IndexStep(i));
    if (!PutJson(items[i], kNaturalPlainHint, path, data, error)) return false;
  }
  pn_data_exit(data);
  return true;
}

bool PutPairs(const Json& pairs, std::string& path, pn_data_t* data, std::string* error) {
  if (!pairs.is_array()) {
    return Fail(path, fmt::format("map value must be an array of [key, value] pairs, found {}", KindOf(pairs)), error);
  }
  pn_data_put_map(data);
  pn_data_enter(data);
  for (size_t i = 0; i < pairs.size(); ++i) {
    PathStep step(path, IndexStep(i));
    const Json& pair = pairs[i];
    if (!pair.is_array() || pair.size() != 2) {
      return Fail(path, "map entry must be a [key, value] pair", error);
    }
    if (!PutJson(pair[0], kNaturalPlainHint, path, data, error)) return false;
    if (!PutJson(pair[1], kNaturalPlainHint, path, data, error)) return false;
  }
  pn_data_exit(data);
  return true;
}

bool PutArray(const Json& json, std::string& path, pn_data_t* data, std::string* error) {
  const Json& items = json["value"];
  if (!items.is_array()) {
    return Fail(path, fmt::format("array value must be an array, found {}", KindOf(items)), error);
  }
  ValueType element = ValueType::kMissing;
  if (auto e = json.find("element"); e != json.end()) {
    if (!e->is_string() || !TypedJsonTypeFromName(e->get_ref<const std::string&>(), &element) ||
        element == ValueType::kDescribed) {
      return Fail(path, fmt::format("array element must be a type name, found {}", e->dump()), error);
    }
  } else if (items.empty()) {
    return Fail(path, "an empty array needs \"element\" (its element type)", error);
  } else {
    pn_data_t* scratch = pn_data(0);
    PathStep step(path, "[0]");
    bool ok = PutJson(items[0], kNaturalPlainHint, path, scratch, error);
    if (ok) {
      pn_data_rewind(scratch);
      pn_data_next(scratch);
      element = ValueTypeOfProton(pn_data_type(scratch));
    }
    pn_data_free(scratch);
    if (!ok) return false;
    if (element == ValueType::kDescribed) {
      return Fail(path, "array elements cannot be described values; give the array a \"descriptor\"", error);
    }
  }
  auto descriptor = json.find("descriptor");
  bool described = descriptor != json.end();
  const pn_type_t proton_element = ProtonTypeOf(element);
  pn_data_put_array(data, described, proton_element);
  pn_data_enter(data);
  if (described) {
    PathStep step(path, ".descriptor");
    if (!PutJsonDescriptor(*descriptor, path, data, error)) return false;
  }
  const PlainHint hint = HintFor(element);
  for (size_t i = 0; i < items.size(); ++i) {
    PathStep step(path, IndexStep(i));
    if (!PutJson(items[i], hint, path, data, error)) return false;
    if (pn_data_type(data) != proton_element) {
      return Fail(path,
                  fmt::format("array element is a {}, but the array holds {} elements",
                              JsonTypeName(pn_data_type(data)), TypedJsonTypeName(element)),
                  error);
    }
  }
  pn_data_exit(data);
  return true;
}

bool PutWrapper(const Json& json, ValueType type, std::string& path, pn_data_t* data, std::string* error) {
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string& key = it.key();
    if (!AllowedWrapperKey(type, key)) {
      return Fail(path, fmt::format("unknown key \"{}\" in a {} wrapper", key, TypedJsonTypeName(type)), error);
    }
  }
  const Json& value = json["value"];
  switch (type) {
    case ValueType::kList:
      if (!value.is_array()) {
        return Fail(path, fmt::format("list value must be an array, found {}", KindOf(value)), error);
      }
      return PutList(value, path, data, error);
    case ValueType::kMap: return PutPairs(value, path, data, error);
    case ValueType::kArray: return PutArray(json, path, data, error);
    case ValueType::kDescribed: {
      auto descriptor = json.find("descriptor");
      if (descriptor == json.end()) return Fail(path, "described value needs a \"descriptor\"", error);
      pn_data_put_described(data);
      pn_data_enter(data);
      {
        PathStep step(path, ".descriptor");
        if (!PutJsonDescriptor(*descriptor, path, data, error)) return false;
      }
      {
        PathStep step(path, ".value");
        if (!PutJson(value, kNaturalPlainHint, path, data, error)) return false;
      }
      pn_data_exit(data);
      return true;
    }
    default: {
      bool hex = false;
      if (auto e = json.find("encoding"); e != json.end()) {
        if (*e == "hex") {
          hex = true;
        } else if (*e != "base64") {
          return Fail(path, fmt::format("binary encoding must be \"base64\" or \"hex\", found {}", e->dump()), error);
        }
      }
      return PutScalar(type, value, hex, path, data, error);
    }
  }
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

bool PutJson(const Json& json, const PlainHint& hint, std::string& path, pn_data_t* data, std::string* error) {
  switch (json.type()) {
    case Json::value_t::null: pn_data_put_null(data); return true;
    case Json::value_t::boolean: pn_data_put_bool(data, json.get<bool>()); return true;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return PutScalar(hint.integer, json, false, path, data, error);
    case Json::value_t::number_float: return PutScalar(hint.number, json, false, path, data, error);
    case Json::value_t::string: return PutScalar(hint.string, json, false, path, data, error);
    case Json::value_t::array: return PutList(json, path, data, error);
    case Json::value_t::object: {
      std::string_view name;
      if (HasWrapperShape(json, &name)) {
        ValueType type;
        if (!TypedJsonTypeFromName(name, &type)) {
          return Fail(path, fmt::format("unknown type \"{}\" in a typed value", name), error);
        }
        return PutWrapper(json, type, path, data, error);
      }
      pn_data_put_map(data);
      pn_data_enter(data);
      for (auto it = json.begin(); it != json.end(); ++it) {
        const std::string& key = it.key();
        const Json& value = it.value();
        pn_data_put_string(data, pn_bytes(key.size(), key.data()));
        PathStep step(path, KeyStep(key));
        if (!PutJson(value, kNaturalPlainHint, path, data, error)) return false;
      }
      pn_data_exit(data);
      return true;
    }
    default: return Fail(path, fmt::format("{} has no AMQP form", KindOf(json)), error);
  }
}

bool PutJsonDescriptor(const Json& json, std::string& path, pn_data_t* data, std::string* error) {
  std::string_view name;
  if (!json.is_string() && !json.is_number_integer() && !HasWrapperShape(json, &name)) {
    return Fail(path, fmt::format("descriptor must be a symbol text, a ulong or a typed value, found {}", KindOf(json)),
                error);
  }
  return PutJson(json, kDescriptorPlainHint, path, data, error);
}

bool PutSectionMap(const Json& json, MapKeys keys, std::string& path, pn_data_t* data, std::string* error) {
  if (!json.is_object()) {
    return Fail(path, fmt::format("expected an object, found {}", KindOf(json)), error);
  }
  if (IsSectionMapWrapper(json)) return PutWrapper(json, ValueType::kMap, path, data, error);
  pn_data_put_map(data);
  pn_data_enter(data);
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string& key = it.key();
    const Json& value = it.value();
    PathStep step(path, KeyStep(key));
    if (keys == MapKeys::kStrings) {
      pn_data_put_string(data, pn_bytes(key.size(), key.data()));
    } else if (AllDigits(key)) {
      uint64_t bits = 0;
      for (char c : key) {
        uint64_t digit = static_cast<uint64_t>(c - '0');
        if (bits > (UINT64_MAX - digit) / 10) {
          return Fail(path, "an all-digit annotation key is a ulong, and this one is out of range", error);
        }
        bits = bits * 10 + digit;
      }
      pn_data_put_ulong(data, bits);
    } else {
      for (char c : key) {
        if (static_cast<uint8_t>(c) >= 0x80) {
          return Fail(path, "annotation key is a symbol, which must be ASCII (core 1.6.21)", error);
        }
      }
      pn_data_put_symbol(data, pn_bytes(key.size(), key.data()));
    }
    if (!PutJson(value, kNaturalPlainHint, path, data, error)) return false;
  }
  pn_data_exit(data);
  return true;
}

bool PutJsonScalar(const Json& json, const JsonScalarOptions& options, std::string& path, pn_data_t* data,
                   std::string* error) {
  if (json.is_array()) return Fail(path, "expected a single value, found an array", error);
  if (json.is_object()) {
    std::string_view name;
    if (!HasWrapperShape(json, &name)) {
      return Fail(path,
                  "expected a single value, found an object that is not a typed value "
                  "{\"type\": T, \"value\": V}",
                  error);
    }
    ValueType type;
    if (TypedJsonTypeFromName(name, &type) && (type == ValueType::kList || type == ValueType::kMap ||
                                               type == ValueType::kArray || type == ValueType::kDescribed)) {
      return Fail(path, fmt::format("expected a single value, found a {} wrapper", name), error);
    }
  }
  if (options.ulong_above_long && json.is_number_unsigned() &&
      json.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    pn_data_put_ulong(data, json.get<uint64_t>());
    return true;
  }
  return PutJson(json, kNaturalPlainHint, path, data, error);
}

}  // namespace sift::amqp
