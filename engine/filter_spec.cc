// FilterSpec: compiling a filter-set (see filter_spec.h). The JSON of the property filters is parsed
// here into selector reference values, following the typed JSON value mapping (docs/typed-json.md,
// "Filter reference values").
#include "engine/filter_spec.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <utility>

namespace sift::engine {
namespace {

using nlohmann::json;
using selector::Value;
using selector::ValueType;

// Parses reference values; owns the bytes that string-like values view until compilation copies them.
class ReferenceParser {
 public:
  // Converts one typed JSON value; false with *why set on error.
  bool Parse(const json& j, Value* out, std::string* why) {
    switch (j.type()) {
      case json::value_t::null: *out = Value::Null(); return true;
      case json::value_t::boolean: *out = Value::Boolean(j.get<bool>()); return true;
      case json::value_t::number_integer: *out = Value::Long(j.get<int64_t>()); return true;
      case json::value_t::number_unsigned: {
        uint64_t u = j.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          *out = Value::Unsigned(ValueType::kULong, u);  // beyond long: the only exact AMQP type is ulong
        } else {
          *out = Value::Long(static_cast<int64_t>(u));
        }
        return true;
      }
      case json::value_t::number_float: *out = Value::Double(j.get<double>()); return true;
      case json::value_t::string: *out = Value::String(Keep(j.get<std::string>())); return true;
      case json::value_t::object: return ParseTyped(j, out, why);
      default:
        *why = "a filter reference value must be a single value, not a list";
        return false;
    }
  }

 private:
  std::string_view Keep(std::string s) { return kept_.emplace_back(std::move(s)); }

  bool ParseTyped(const json& j, Value* out, std::string* why) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() != "type" && it.key() != "value" && it.key() != "encoding") {
        *why = "unknown key '" + it.key() + "' in a typed value (expected type, value, encoding)";
        return false;
      }
    }
    if (!j.contains("type") || !j["type"].is_string() || !j.contains("value")) {
      *why = "a typed value needs a string \"type\" and a \"value\"";
      return false;
    }
    const std::string type = j["type"].get<std::string>();
    const json& v = j["value"];
    struct IntType {
      const char* name;
      ValueType type;
      bool is_signed;
      int64_t min;
      uint64_t max;
    };
    static constexpr std::array<IntType, 9> kInts = {{
        {"ubyte", ValueType::kUByte, false, 0, 0xff},
        {"ushort", ValueType::kUShort, false, 0, 0xffff},
        {"uint", ValueType::kUInt, false, 0, 0xffffffffull},
        {"ulong", ValueType::kULong, false, 0, std::numeric_limits<uint64_t>::max()},
        {"byte", ValueType::kByte, true, -128, 127},
        {"short", ValueType::kShort, true, -32768, 32767},
        {"int", ValueType::kInt, true, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()},
        {"long", ValueType::kLong, true, std::numeric_limits<int64_t>::min(),
         static_cast<uint64_t>(std::numeric_limits<int64_t>::max())},
        {"timestamp", ValueType::kTimestamp, true, std::numeric_limits<int64_t>::min(),
         static_cast<uint64_t>(std::numeric_limits<int64_t>::max())},
    }};
    for (const IntType& t : kInts) {
      if (type != t.name) continue;
      if (!v.is_number_integer()) {
        *why = type + " value must be an integer";
        return false;
      }
      if (v.is_number_unsigned()) {
        uint64_t u = v.get<uint64_t>();
        if (u > t.max) {
          *why = type + " value " + std::to_string(u) + " is out of range";
          return false;
        }
        *out = t.is_signed ? Value::Signed(t.type, static_cast<int64_t>(u)) : Value::Unsigned(t.type, u);
        return true;
      }
      int64_t s = v.get<int64_t>();
      if (s < t.min || (s >= 0 && static_cast<uint64_t>(s) > t.max)) {
        *why = type + " value " + std::to_string(s) + " is out of range";
        return false;
      }
      *out = t.is_signed ? Value::Signed(t.type, s) : Value::Unsigned(t.type, static_cast<uint64_t>(s));
      return true;
    }
    if (type == "float" || type == "double") {
      if (!v.is_number()) {
        *why = type + " value must be a number";
        return false;
      }
      double d = v.get<double>();
      if (type == "float") {
        *out = Value::Float(static_cast<float>(d));
      } else {
        *out = Value::Double(d);
      }
      return true;
    }
    if (!v.is_string()) {
      *why = type + " value must be a string";
      return false;
    }
    const std::string text = v.get<std::string>();
    if (type == "string") {
      *out = Value::String(Keep(text));
      return true;
    }
    if (type == "symbol") {
      for (unsigned char c : text) {
        if (c >= 0x80) {
          *why = "symbol value must be ASCII";
          return false;
        }
      }
      *out = Value::Symbol(Keep(text));
      return true;
    }
    if (type == "char") {
      uint32_t cp = 0;
      if (!SingleCodePoint(text, &cp)) {
        *why = "char value must be a one-character string";
        return false;
      }
      *out = Value::Char(cp);
      return true;
    }
    if (type == "decimal32" || type == "decimal64" || type == "decimal128") {
      const size_t bytes = type == "decimal32" ? 4 : type == "decimal64" ? 8 : 16;
      std::string raw;
      if (!FromHex(text, &raw) || raw.size() != bytes) {
        *why = type + " value must be " + std::to_string(bytes * 2) + " hex digits";
        return false;
      }
      ValueType t = bytes == 4 ? ValueType::kDecimal32 : bytes == 8 ? ValueType::kDecimal64 : ValueType::kDecimal128;
      *out = Value::Bytes(t, Keep(std::move(raw)));
      return true;
    }
    if (type == "uuid") {
      std::string hex;
      for (size_t i = 0; i < text.size(); ++i) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
          if (text[i] != '-') break;
          continue;
        }
        hex.push_back(text[i]);
      }
      std::string raw;
      if (text.size() != 36 || !FromHex(hex, &raw) || raw.size() != 16) {
        *why = "uuid value must be canonical text (8-4-4-4-12 hex digits)";
        return false;
      }
      *out = Value::Bytes(ValueType::kUuid, Keep(std::move(raw)));
      return true;
    }
    if (type == "binary") {
      std::string raw;
      const bool hex = j.contains("encoding") && j["encoding"] == "hex";
      if (j.contains("encoding") && !hex && j["encoding"] != "base64") {
        *why = "binary encoding must be base64 or hex";
        return false;
      }
      if (hex ? !FromHex(text, &raw) : !FromBase64(text, &raw)) {
        *why = std::string("binary value is not valid ") + (hex ? "hex" : "base64");
        return false;
      }
      *out = Value::Binary(Keep(std::move(raw)));
      return true;
    }
    if (type == "array" || type == "map" || type == "list" || type == "described") {
      *why = "a filter reference value must be a single value, not " + type;
      return false;
    }
    *why = "unknown type '" + type + "'";
    return false;
  }

  static bool SingleCodePoint(std::string_view s, uint32_t* cp) {
    if (s.empty()) return false;
    const unsigned char c0 = static_cast<unsigned char>(s[0]);
    size_t n = c0 < 0x80 ? 1 : (c0 >> 5) == 6 ? 2 : (c0 >> 4) == 14 ? 3 : (c0 >> 3) == 30 ? 4 : 0;
    if (n == 0 || s.size() != n) return false;
    uint32_t v = n == 1 ? c0 : n == 2 ? (c0 & 0x1f) : n == 3 ? (c0 & 0x0f) : (c0 & 0x07);
    for (size_t i = 1; i < n; ++i) v = (v << 6) | (static_cast<unsigned char>(s[i]) & 0x3f);
    *cp = v;
    return true;
  }

  static bool FromHex(std::string_view s, std::string* out) {
    if (s.size() % 2 != 0) return false;
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    out->clear();
    for (size_t i = 0; i < s.size(); i += 2) {
      int hi = digit(s[i]), lo = digit(s[i + 1]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
    }
    return true;
  }

  static bool FromBase64(std::string_view s, std::string* out) {
    auto digit = [](char c) -> int {
      if (c >= 'A' && c <= 'Z') return c - 'A';
      if (c >= 'a' && c <= 'z') return c - 'a' + 26;
      if (c >= '0' && c <= '9') return c - '0' + 52;
      if (c == '+' || c == '-') return 62;
      if (c == '/' || c == '_') return 63;
      return -1;
    };
    while (!s.empty() && s.back() == '=') s.remove_suffix(1);
    if (s.size() % 4 == 1) return false;
    out->clear();
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
      int d = digit(c);
      if (d < 0) return false;
      acc = (acc << 6) | static_cast<uint32_t>(d);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out->push_back(static_cast<char>((acc >> bits) & 0xff));
      }
    }
    return true;
  }

  std::deque<std::string> kept_;
};

// The JSON object of a property filter into (name, reference) pairs. Properties field names may be
// written with underscores (typed JSON's spelling); the spec's hyphens are what the selector expects.
bool ParsePropertyFilter(const std::string& text, bool properties, ReferenceParser* parser,
                         std::vector<std::pair<std::string, Value>>* fields, FilterError* error) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    error->has_position = true;
    error->position = e.byte > 0 ? e.byte - 1 : 0;
    std::string why = e.what();
    // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 5: <reason>".
    size_t colon = why.find(": ");
    error->why = "invalid JSON: " + (colon == std::string::npos ? why : why.substr(colon + 2));
    return false;
  }
  if (!j.is_object()) {
    error->why = "expected a JSON object of field names and reference values";
    return false;
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string name = it.key();
    if (properties) {
      for (char& c : name) {
        if (c == '_') c = '-';
      }
    }
    Value value;
    std::string why;
    if (!parser->Parse(it.value(), &value, &why)) {
      error->why = "'" + it.key() + "': " + why;
      size_t at = text.find("\"" + it.key() + "\"");
      if (at != std::string::npos) {
        error->has_position = true;
        error->position = at;
      }
      return false;
    }
    fields->emplace_back(std::move(name), value);
  }
  return true;
}

}  // namespace

std::string_view FilterKindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kSql: return "sql";
    case FilterKind::kJms: return "jms";
    case FilterKind::kProperties: return "properties";
    case FilterKind::kApplicationProperties: return "application-properties";
  }
  return "unknown";
}

namespace {

// What *out becomes when a filter-set fails to compile: a selector that cannot run (a consumer refuses
// it), so a caller that misses the status delivers nothing rather than every message.
selector::Selector Refused(const Status& status) {
  selector::Error error;
  error.code = selector::ErrorCode::kInvalidPropertyFilter;
  error.message = status.ToString();
  return selector::Selector::Failed(std::move(error));
}

}  // namespace

Status FilterSpec::Compile(selector::Selector* out, FilterError* error_out, const selector::Limits& limits) const {
  std::vector<selector::Selector> parts;
  parts.reserve(clauses_.size());
  size_t per_kind[4] = {};
  for (size_t i = 0; i < clauses_.size(); ++i) {
    const FilterClause& clause = clauses_[i];
    const size_t ordinal = ++per_kind[static_cast<int>(clause.kind)];
    FilterError error;
    error.clause = i;
    error.kind = clause.kind;
    bool failed = false;
    selector::Selector part;
    if (clause.kind == FilterKind::kSql || clause.kind == FilterKind::kJms) {
      selector::CompileOptions options;
      options.dialect = clause.kind == FilterKind::kSql ? selector::Dialect::kSql : selector::Dialect::kJms;
      options.limits = limits;
      part = selector::Selector::Compile(clause.text, options);
    } else {
      ReferenceParser parser;
      std::vector<std::pair<std::string, Value>> fields;
      const bool properties = clause.kind == FilterKind::kProperties;
      if (!ParsePropertyFilter(clause.text, properties, &parser, &fields, &error)) {
        failed = true;
      } else {
        part = properties ? selector::Selector::CompilePropertiesFilter(fields)
                          : selector::Selector::CompileApplicationPropertiesFilter(fields);
      }
    }
    if (!failed && !part.ok()) {
      failed = true;
      error.has_position = clause.kind == FilterKind::kSql || clause.kind == FilterKind::kJms;
      error.position = part.error().position;
      error.why = part.error().message;
      if (!part.error().token.empty() && !error.has_position) error.why += " ('" + part.error().token + "')";
    }
    if (failed) {
      const bool expression = clause.kind == FilterKind::kSql || clause.kind == FilterKind::kJms;
      std::string where = std::string(FilterKindName(clause.kind)) + " filter " + std::to_string(ordinal);
      if (error.has_position) where += ", byte " + std::to_string(error.position);
      Status status = Status::InvalidArgument(expression ? "bad selector" : "bad filter", where, error.why);
      *out = part.ok() ? Refused(status) : std::move(part);  // a selector's own error, else the filter's
      if (error_out != nullptr) *error_out = std::move(error);
      return status;
    }
    parts.push_back(std::move(part));
  }
  if (parts.empty()) {
    *out = selector::Selector();
  } else if (parts.size() == 1) {
    *out = std::move(parts.front());
  } else {
    selector::Selector all = selector::Selector::AllOf(parts);
    if (!all.ok()) {
      FilterError error;
      error.why = all.error().message;
      if (error_out != nullptr) *error_out = error;
      *out = std::move(all);  // its error state: nothing runs it
      return Status::InvalidArgument("bad selector", "filter set", error.why);
    }
    *out = std::move(all);
  }
  return Status::OK();
}

}  // namespace sift::engine
