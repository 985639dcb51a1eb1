// A consumer's filter-set in one form, and the one compiler that turns it into the Selector the
// consumer runs.
//
// A filter-set (AMQP core part 3, section 3.5.8) is any number of filters, all of which must match:
// SQL filter expressions (filter expressions section 6), JMS selectors, a properties filter and an
// application-properties filter (section 4.1). Filters reach sift written two ways: as text (the
// `sift` flags and FilterSpec: expressions, property filters as JSON objects of typed JSON reference
// values) and as AMQP values (the filters a client puts on a link's source, where a property filter
// is an encoded map). Both come here, so that a filter means the same and fails with the same reason
// whichever way it came.
#ifndef SIFT_FILTER_SET_H_
#define SIFT_FILTER_SET_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "selector/selector.h"
#include "sift/status.h"

namespace sift::engine {

enum class FilterKind : uint8_t {
  kSql,                    // amqp:sql-filter
  kJms,                    // apache.org:selector-filter:string
  kProperties,             // amqp:properties-filter
  kApplicationProperties,  // amqp:application-properties-filter
};

// "sql", "jms", "properties", "application-properties".
std::string_view FilterKindName(FilterKind kind);

// How a filter's source is written.
enum class FilterForm : uint8_t {
  // SQL / JMS: the expression. Property filters: a JSON object of field names (properties: the spec's
  // names with hyphens, "message-id", or typed JSON's underscores) and typed JSON reference values
  // (docs/typed-json.md, "Filter reference values").
  kText,
  // Property filters only: the AMQP encoding of the filter's map (symbol keys for properties, string
  // keys for application properties; simple values), as a link's source carries it.
  kAmqpMap,
};

struct Filter {
  FilterKind kind = FilterKind::kSql;
  FilterForm form = FilterForm::kText;
  std::string source;  // the text, or the AMQP bytes
  std::string origin;  // how errors name the filter: "sql filter 2", "filter 'f' (amqp:sql-filter)"
};

// Where and why a filter-set does not compile.
struct FilterError {
  size_t clause = 0;  // index of the failing filter
  FilterKind kind = FilterKind::kSql;
  bool has_position = false;       // `position` points into the filter's text
  size_t position = 0;             // byte offset into the text where the problem starts
  std::string why;                 // one sentence, without the position; names the key of a property filter
  selector::Error selector_error;  // the selector compiler's own error when it refused the filter
                                   // (ok() when the filter failed before reaching it)
};

// Compiles `filters` into *out, ANDed with Selector::AllOf so that a consumer reads each section of a
// message once for all of them (a selector matching everything when there are none). The first bad
// filter is the error: returns InvalidArgument with what "bad selector" (SQL, JMS) or "bad filter"
// (property filters), where the filter's origin plus ", byte P" when there is a position, why the
// reason; sets *out to a selector that cannot run (ok() false: a consumer refuses it, so a caller that
// misses the status delivers nothing rather than every message) and, when `error` is not null, fills it.
Status CompileFilterSet(std::span<const Filter> filters, selector::Selector* out, FilterError* error = nullptr,
                        const selector::Limits& limits = {});

}  // namespace sift::engine

#endif  // SIFT_FILTER_SET_H_
