// sift/filter_set.h: a consumer's filter-set in one form (Filter), the one compiler that turns it into
// what a consumer runs (CompileFilterSet), and its result (CompiledFilter).
//
// A filter-set (AMQP core part 3, section 3.5.8) is any number of filters, all of which must match:
// SQL filter expressions (filter expressions section 6), JMS selectors, a properties filter and an
// application-properties filter (section 4.1). Filters reach sift written two ways: as text (the
// `sift` flags and FilterSpec: expressions, property filters as JSON objects of typed JSON reference
// values) and as AMQP values (the filters a client puts on a link's source, where a property filter
// is an encoded map). Both come here, so that a filter means the same and fails with the same reason
// whichever way it came. The language is docs/selector-language.md; what it means,
// docs/selector-semantics.md (its limits against hostile expressions included).
//
// Thread safety: CompileFilterSet may be called from any number of threads at once. A CompiledFilter
// is immutable: copies share the compiled program, and any number of consumers on any threads may run
// one at the same time.
#ifndef SIFT_FILTER_SET_H_
#define SIFT_FILTER_SET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sift/status.h"

namespace sift {
namespace engine {
class CompiledFilterAccess;
}  // namespace engine

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
  bool has_position = false;  // `position` points into the filter's text
  size_t position = 0;        // byte offset into the text where the problem starts
  std::string why;            // one sentence, without the position; names the key of a property filter
  // The selector compiler's stable name for the problem ("syntax", "unexpected-end", "unknown-field",
  // "too-deep", ...: docs/selector-semantics.md, "Errors"), or empty when the filter was refused before
  // it reached the compiler (a property filter that is not a map of names and simple values).
  std::string code;
};

// A compiled filter-set: what CompileFilterSet and FilterSpec::Compile produce, and what a consumer
// runs (ConsumerOptions::filter). A default-constructed one matches every message (the empty
// filter-set). One that failed to compile is not ok(): a consumer refuses it (InvalidArgument), so a
// caller that misses the compile status delivers nothing rather than every message.
class CompiledFilter {
 public:
  CompiledFilter();
  ~CompiledFilter();
  CompiledFilter(const CompiledFilter&);
  CompiledFilter& operator=(const CompiledFilter&);
  CompiledFilter(CompiledFilter&&) noexcept;
  CompiledFilter& operator=(CompiledFilter&&) noexcept;

  // False when the filter-set did not compile.
  bool ok() const;
  // Why it did not compile, empty when ok(): the selector compiler's words with its error's name and
  // position ("syntax error at byte 9: ..."), or, for a property filter refused before the compiler,
  // the status CompileFilterSet returned as text.
  std::string error() const;

  // A readable plan: the fields read, the sections touched, the fast path chosen for each LIKE / IN /
  // comparison, the evaluation order of conjuncts, and a cost estimate (what `sift explain` prints).
  std::string Explain() const;

 private:
  friend class engine::CompiledFilterAccess;  // the engine's side (not part of the API)
  struct Rep;
  std::shared_ptr<const Rep> rep_;  // null: matches every message
};

// Compiles `filters` into *out, ANDed so that a consumer reads each section of a message once for all
// of them (a filter matching everything when there are none). The first bad filter is the error:
// returns InvalidArgument with what "bad selector" (SQL, JMS) or "bad filter" (property filters), where
// the filter's origin plus ", byte P" when there is a position, why the reason; sets *out to a filter
// that is not ok() and, when `error` is not null, fills it. No other error is returned.
Status CompileFilterSet(std::span<const Filter> filters, CompiledFilter* out, FilterError* error = nullptr);

}  // namespace sift

#endif  // SIFT_FILTER_SET_H_
