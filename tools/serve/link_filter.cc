// Parses a source filter-set into a selector and a start position (see link_filter.h).
#include "tools/serve/link_filter.h"

#include <string_view>
#include <utility>
#include <vector>

#include "engine/amqp/cursor.h"
#include "engine/amqp/encoded_value.h"
#include "engine/amqp/validate.h"

namespace sift::tools {
namespace {

enum class Kind { kSql, kJms, kProperties, kApplicationProperties, kOffsetSpec, kUnknown };

constexpr std::string_view kOffsetSpecKey = "rabbitmq:stream-offset-spec";

struct Descriptor {
  Kind kind = Kind::kUnknown;
  std::string text;  // as the client wrote it, for messages
};

Descriptor Classify(const amqp::EncodedValue& descriptor) {
  Descriptor d;
  uint64_t code = 0;
  std::string_view symbol;
  if (descriptor.GetUnsigned(&code)) {
    char buf[32];
    snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(code));
    d.text = buf;
    if (code == 0x120) d.kind = Kind::kSql;
    if (code == 0x0000468C00000004ull) d.kind = Kind::kJms;
    if (code == 0x173) d.kind = Kind::kProperties;
    if (code == 0x174) d.kind = Kind::kApplicationProperties;
  } else if (descriptor.GetSymbol(&symbol) || descriptor.GetString(&symbol)) {
    d.text = std::string(symbol);
    if (symbol == "amqp:sql-filter") d.kind = Kind::kSql;
    if (symbol == "apache.org:selector-filter:string") d.kind = Kind::kJms;
    if (symbol == "amqp:properties-filter") d.kind = Kind::kProperties;
    if (symbol == "amqp:application-properties-filter") d.kind = Kind::kApplicationProperties;
    if (symbol == kOffsetSpecKey) d.kind = Kind::kOffsetSpec;
  } else {
    d.text = "a descriptor that is neither a symbol nor a ulong";
  }
  return d;
}

// rabbitmq:stream-offset-spec: first | last | next | offset | timestamp.
bool ParseStart(const amqp::EncodedValue& value, engine::StartPosition* start, std::string* why) {
  std::string_view text;
  uint64_t u = 0;
  int64_t s = 0;
  if (value.GetSymbol(&text) || value.GetString(&text)) {
    if (text == "first") *start = engine::StartPosition::First();
    else if (text == "last") *start = engine::StartPosition::Last();
    else if (text == "next") *start = engine::StartPosition::Next();
    else {
      *why = "unknown offset spec '" + std::string(text) + "' (expected first, last, next, an offset or a timestamp)";
      return false;
    }
    return true;
  }
  if (value.GetTimestamp(&s)) {
    *start = engine::StartPosition::Timestamp(s);
    return true;
  }
  if (value.GetUnsigned(&u)) {
    *start = engine::StartPosition::Offset(u);
    return true;
  }
  if (value.GetSigned(&s)) {
    if (s < 0) {
      *why = "offset " + std::to_string(s) + " is negative";
      return false;
    }
    *start = engine::StartPosition::Offset(static_cast<uint64_t>(s));
    return true;
  }
  *why = "offset spec must be first, last, next, an integer offset or a timestamp";
  return false;
}

// The entries of a property filter's map, as selector values viewing `map`'s bytes.
bool PropertyFields(const amqp::EncodedValue& map, bool symbol_keys,
                    std::vector<std::pair<std::string, selector::Value>>* fields, std::string* why) {
  if (!map.is_map()) {
    *why = "the filter value must be a map";
    return false;
  }
  amqp::Cursor elements = amqp::Cursor::Elements(map);
  amqp::EncodedValue key, value;
  while (elements.Next(&key)) {
    if (!elements.Next(&value)) break;
    std::string_view name;
    bool is_symbol = key.GetSymbol(&name);
    if (!is_symbol && !key.GetString(&name)) {
      *why = std::string("a key of the map is not a ") + (symbol_keys ? "symbol" : "string");
      return false;
    }
    if (value.is_compound() || value.is_described()) {
      *why = "the reference value of '" + std::string(name) + "' is not a simple value";
      return false;
    }
    fields->emplace_back(std::string(name), value.ToValue());
  }
  if (!elements.ok()) {
    *why = elements.error().Message();
    return false;
  }
  return true;
}

}  // namespace

bool ParseLinkFilter(std::span<const uint8_t> filter_set, LinkFilter* out, std::string* error) {
  *out = LinkFilter();
  if (filter_set.empty()) return true;
  amqp::DecodeError bad = amqp::ValidateValue(filter_set);
  if (!bad.ok()) {
    *error = "malformed filter-set: " + bad.Message();
    return false;
  }
  amqp::Cursor top(filter_set);
  amqp::EncodedValue map;
  if (!top.Next(&map) || map.is_null()) return true;
  if (!map.is_map()) {
    *error = "the filter-set is not a map";
    return false;
  }
  std::vector<selector::Selector> parts;
  amqp::Cursor entries = amqp::Cursor::Elements(map);
  amqp::EncodedValue key, value;
  while (entries.Next(&key)) {
    if (!entries.Next(&value)) break;
    std::string_view key_text;
    if (!key.GetSymbol(&key_text) && !key.GetString(&key_text)) {
      *error = "a filter-set key is not a symbol";
      return false;
    }
    const std::string where = "filter '" + std::string(key_text) + "'";
    Descriptor d;
    amqp::EncodedValue inner = value;
    amqp::EncodedValue descriptor;
    if (value.Descriptor(&descriptor)) {
      d = Classify(descriptor);
      inner = value.WithoutDescriptor();
    } else if (key_text == kOffsetSpecKey) {
      d.kind = Kind::kOffsetSpec;
    } else {
      *error = where + ": the value is not a described filter";
      return false;
    }
    std::string why;
    switch (d.kind) {
      case Kind::kOffsetSpec:
        if (!ParseStart(inner, &out->start, &why)) {
          *error = where + " (" + std::string(kOffsetSpecKey) + "): " + why;
          return false;
        }
        break;
      case Kind::kSql:
      case Kind::kJms: {
        std::string_view text;
        if (!inner.GetString(&text) && !inner.GetSymbol(&text)) {
          *error = where + " (" + d.text + "): the expression must be a string";
          return false;
        }
        selector::CompileOptions options;
        options.dialect = d.kind == Kind::kSql ? selector::Dialect::kSql : selector::Dialect::kJms;
        selector::Selector compiled = selector::Selector::Compile(text, options);
        if (!compiled.ok()) {
          *error = where + " (" + d.text + "): " + compiled.error().ToString();
          return false;
        }
        parts.push_back(std::move(compiled));
        ++out->filter_count;
        break;
      }
      case Kind::kProperties:
      case Kind::kApplicationProperties: {
        std::vector<std::pair<std::string, selector::Value>> fields;
        const bool properties = d.kind == Kind::kProperties;
        if (!PropertyFields(inner, properties, &fields, &why)) {
          *error = where + " (" + d.text + "): " + why;
          return false;
        }
        selector::Selector compiled =
            properties ? selector::Selector::CompilePropertiesFilter(fields)
                       : selector::Selector::CompileApplicationPropertiesFilter(fields);
        if (!compiled.ok()) {
          *error = where + " (" + d.text + "): " + compiled.error().ToString();
          return false;
        }
        parts.push_back(std::move(compiled));
        ++out->filter_count;
        break;
      }
      case Kind::kUnknown:
        *error = where + ": unsupported filter type " + d.text;
        return false;
    }
  }
  if (!entries.ok()) {
    *error = "malformed filter-set: " + entries.error().Message();
    return false;
  }
  if (!parts.empty()) {
    out->selector = parts.size() == 1 ? parts[0] : selector::Selector::AllOf(parts);
    if (!out->selector.ok()) {
      *error = "filter-set: " + out->selector.error().ToString();
      return false;
    }
  }
  return true;
}

}  // namespace sift::tools
