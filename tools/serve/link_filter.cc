// Parses a source filter-set into a compiled filter-set and a start position (see link_filter.h). Only the AMQP
// part is here: the filter-set map, descriptors, the offset spec; the filters themselves are compiled
// by the engine's filter-set compiler (sift/filter_set.h), as `sift`'s filter flags are.
#include "tools/serve/link_filter.h"

#include <string_view>
#include <utility>
#include <vector>

#include "amqp/cursor.h"
#include "amqp/encoded_value.h"
#include "amqp/validate.h"
#include "sift/filter_set.h"

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
bool ParseStart(const amqp::EncodedValue& value, StartPosition* start, std::string* why) {
  std::string_view text;
  uint64_t u = 0;
  int64_t s = 0;
  if (value.GetSymbol(&text) || value.GetString(&text)) {
    if (text == "first")
      *start = StartPosition::First();
    else if (text == "last")
      *start = StartPosition::Last();
    else if (text == "next")
      *start = StartPosition::Next();
    else {
      *why = "unknown offset spec '" + std::string(text) + "' (expected first, last, next, an offset or a timestamp)";
      return false;
    }
    return true;
  }
  if (value.GetTimestamp(&s)) {
    *start = StartPosition::Timestamp(s);
    return true;
  }
  if (value.GetUnsigned(&u)) {
    *start = StartPosition::Offset(u);
    return true;
  }
  if (value.GetSigned(&s)) {
    if (s < 0) {
      *why = "offset " + std::to_string(s) + " is negative";
      return false;
    }
    *start = StartPosition::Offset(static_cast<uint64_t>(s));
    return true;
  }
  *why = "offset spec must be first, last, next, an integer offset or a timestamp";
  return false;
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
  std::vector<Filter> filters;
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
        filters.push_back({d.kind == Kind::kSql ? FilterKind::kSql : FilterKind::kJms, FilterForm::kText,
                           std::string(text), where + " (" + d.text + ")"});
        break;
      }
      case Kind::kProperties:
      case Kind::kApplicationProperties: {
        std::span<const uint8_t> raw = inner.raw();
        filters.push_back({d.kind == Kind::kProperties ? FilterKind::kProperties : FilterKind::kApplicationProperties,
                           FilterForm::kAmqpMap, std::string(raw.begin(), raw.end()), where + " (" + d.text + ")"});
        break;
      }
      case Kind::kUnknown: *error = where + ": unsupported filter type " + d.text; return false;
    }
  }
  if (!entries.ok()) {
    *error = "malformed filter-set: " + entries.error().Message();
    return false;
  }
  FilterError compile_error;
  if (!CompileFilterSet(filters, &out->filter, &compile_error).ok()) {
    // The selector's own error keeps its code and position ("syntax error at byte 9: ...").
    *error = filters[compile_error.clause].origin + ": " +
             (compile_error.code.empty() ? compile_error.why : out->filter.error());
    return false;
  }
  out->filter_count = static_cast<int>(filters.size());
  return true;
}

}  // namespace sift::tools
