// Compiling a filter-set (see sift/filter_set.h). A property filter written as JSON is first encoded as
// the AMQP map a link would carry, its values read by the typed JSON parser, so that both forms reach
// the selector through the same reading of an AMQP map.
#include "sift/filter_set.h"

#include <proton/codec.h>

#include <memory>
#include <utility>
#include <vector>

#include "amqp/cursor.h"
#include "amqp/encoded_value.h"
#include "amqp/json_value.h"
#include "amqp/validate.h"
#include "engine/compiled_filter.h"

namespace sift {

// The engine's internals behind the API.
using engine::SelectorOf;
using engine::ToCompiledFilter;
namespace {

using Fields = std::vector<std::pair<std::string, selector::Value>>;

bool IsExpression(FilterKind kind) { return kind == FilterKind::kSql || kind == FilterKind::kJms; }

// A property filter's JSON object into the AMQP encoding of its map. Properties field names may be
// written with underscores (typed JSON's spelling); the spec's hyphens are what the selector expects.
bool JsonObjectToMap(const std::string& text, bool properties, std::string* encoded, FilterError* error) {
  amqp::Json j;
  try {
    j = amqp::Json::parse(text);
  } catch (const amqp::Json::parse_error& e) {
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
  std::unique_ptr<pn_data_t, decltype(&pn_data_free)> data(pn_data(0), pn_data_free);
  pn_data_put_map(data.get());
  pn_data_enter(data.get());
  std::string path;  // empty: the error names the key itself
  amqp::JsonScalarOptions options;
  options.ulong_above_long = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string name = it.key();
    if (properties) {
      for (char& c : name) {
        if (c == '_') c = '-';
      }
      pn_data_put_symbol(data.get(), pn_bytes(name.size(), name.data()));
    } else {
      pn_data_put_string(data.get(), pn_bytes(name.size(), name.data()));
    }
    std::string why;
    if (!amqp::PutJsonScalar(it.value(), options, path, data.get(), &why)) {
      error->why = "'" + it.key() + "': " + why;
      size_t at = text.find("\"" + it.key() + "\"");
      if (at != std::string::npos) {
        error->has_position = true;
        error->position = at;
      }
      return false;
    }
  }
  pn_data_exit(data.get());
  pn_data_rewind(data.get());
  const ssize_t size = pn_data_encoded_size(data.get());
  encoded->resize(static_cast<size_t>(std::max<ssize_t>(size, 0)));
  if (size < 0 || pn_data_encode(data.get(), encoded->data(), encoded->size()) != size) {
    error->why = "the reference values cannot be encoded";
    return false;
  }
  return true;
}

// The entries of a property filter's encoded map, as selector values viewing `encoded`.
bool MapFields(std::span<const uint8_t> encoded, bool symbol_keys, Fields* fields, std::string* why) {
  amqp::DecodeError bad = amqp::ValidateValue(encoded);
  if (!bad.ok()) {
    *why = "malformed filter value: " + bad.Message();
    return false;
  }
  amqp::Cursor top(encoded);
  amqp::EncodedValue map;
  if (!top.Next(&map) || !map.is_map()) {
    *why = "the filter value must be a map";
    return false;
  }
  amqp::Cursor elements = amqp::Cursor::Elements(map);
  amqp::EncodedValue key, value;
  while (elements.Next(&key)) {
    if (!elements.Next(&value)) break;
    std::string_view name;
    if (!key.GetSymbol(&name) && !key.GetString(&name)) {
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

// One filter into its selector; false with *error filled (all but `clause`) when it does not compile.
bool CompileOne(const Filter& filter, selector::Selector* out, FilterError* error) {
  error->kind = filter.kind;
  if (IsExpression(filter.kind)) {
    if (filter.form != FilterForm::kText) {
      error->why = "an expression must be given as text";
      return false;
    }
    selector::CompileOptions options;
    options.dialect = filter.kind == FilterKind::kSql ? selector::Dialect::kSql : selector::Dialect::kJms;
    *out = selector::Selector::Compile(filter.source, options);
  } else {
    const bool properties = filter.kind == FilterKind::kProperties;
    std::string json_encoded;
    const std::string* encoded = &filter.source;
    if (filter.form == FilterForm::kText) {
      if (!JsonObjectToMap(filter.source, properties, &json_encoded, error)) return false;
      encoded = &json_encoded;
    }
    Fields fields;
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(encoded->data()), encoded->size());
    if (!MapFields(bytes, properties, &fields, &error->why)) return false;
    *out = properties ? selector::Selector::CompilePropertiesFilter(fields)
                      : selector::Selector::CompileApplicationPropertiesFilter(fields);
  }
  if (out->ok()) return true;
  const selector::Error& e = out->error();
  error->code = selector::ErrorCodeName(e.code);
  error->why = e.message;
  if (IsExpression(filter.kind)) {
    error->has_position = true;
    error->position = e.position;
  } else if (!e.token.empty()) {
    error->why += " ('" + e.token + "')";  // a property filter's position counts entries: name the key
  }
  return false;
}

// What *out becomes when a filter failed before the selector compiler saw it: a selector that cannot
// run (a consumer refuses it).
selector::Selector Refused(const Status& status) {
  selector::Error error;
  error.code = selector::ErrorCode::kInvalidPropertyFilter;
  error.message = status.ToString();
  return selector::Selector::Failed(std::move(error));
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

// CompileFilterSet into the selector a CompiledFilter holds.
Status CompileSelector(std::span<const Filter> filters, selector::Selector* out, FilterError* error_out) {
  std::vector<selector::Selector> parts;
  parts.reserve(filters.size());
  for (size_t i = 0; i < filters.size(); ++i) {
    const Filter& filter = filters[i];
    FilterError error;
    error.clause = i;
    selector::Selector part;
    if (CompileOne(filter, &part, &error)) {
      parts.push_back(std::move(part));
      continue;
    }
    std::string where = filter.origin;
    if (error.has_position) where += ", byte " + std::to_string(error.position);
    Status status =
        Status::InvalidArgument(IsExpression(filter.kind) ? "bad selector" : "bad filter", where, error.why);
    *out = error.code.empty() ? Refused(status) : std::move(part);  // the selector's own error
    if (error_out != nullptr) *error_out = std::move(error);
    return status;
  }
  // AllOf of parts that compiled cannot fail.
  if (parts.empty()) {
    *out = selector::Selector();
  } else if (parts.size() == 1) {
    *out = std::move(parts.front());
  } else {
    *out = selector::Selector::AllOf(parts);
  }
  return Status::OK();
}

}  // namespace

CompiledFilter::CompiledFilter() = default;
CompiledFilter::~CompiledFilter() = default;
CompiledFilter::CompiledFilter(const CompiledFilter&) = default;
CompiledFilter& CompiledFilter::operator=(const CompiledFilter&) = default;
CompiledFilter::CompiledFilter(CompiledFilter&&) noexcept = default;
CompiledFilter& CompiledFilter::operator=(CompiledFilter&&) noexcept = default;

bool CompiledFilter::ok() const { return SelectorOf(*this).ok(); }

std::string CompiledFilter::error() const {
  const selector::Error& e = SelectorOf(*this).error();
  if (e.ok()) return std::string();
  return e.code == selector::ErrorCode::kInvalidPropertyFilter ? e.message : e.ToString();
}

std::string CompiledFilter::Explain() const { return SelectorOf(*this).Explain(); }

Status CompileFilterSet(std::span<const Filter> filters, CompiledFilter* out, FilterError* error) {
  selector::Selector compiled;
  Status status = CompileSelector(filters, &compiled, error);
  *out = ToCompiledFilter(std::move(compiled));
  return status;
}

}  // namespace sift
