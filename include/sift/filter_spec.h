// sift/filter_spec.h: a consumer's filter-set as a user writes it (FilterSpec: the `sift` filter flags,
// JSON, an embedding program), compiled into the CompiledFilter a consumer runs.
//
// Clauses are text: SQL filter expressions, JMS selectors, and the two property filters as JSON
// objects (the `--properties` / `--application-properties` flags of `sift`): keys are field names
// (properties: the spec's names with hyphens, "message-id"; underscores are accepted for them too, as
// in typed JSON) or application-property keys; values are typed JSON values (docs/typed-json.md,
// "Filter reference values": "eu-west", 42, 1.5, true, null, {"type": "ubyte", "value": 2}), a string
// value possibly carrying the `&p:` (prefix), `&s:` (suffix) or `&&` (a literal leading `&`) modifier
// of filter expressions section 4.1.1. Compile() hands them to CompileFilterSet (sift/filter_set.h),
// which also compiles the filters clients put on an AMQP link, naming each clause "<kind> filter N".
//
// Thread safety: a FilterSpec is a plain value; Compile may run on several threads at once.
#ifndef SIFT_FILTER_SPEC_H_
#define SIFT_FILTER_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sift/filter_set.h"
#include "sift/status.h"

namespace sift {

struct FilterClause {
  FilterKind kind = FilterKind::kSql;
  std::string text;  // the expression, or the JSON object text
};

class FilterSpec {
 public:
  FilterSpec() = default;

  void Add(FilterKind kind, std::string text) { clauses_.push_back({kind, std::move(text)}); }
  void AddSql(std::string expression) { Add(FilterKind::kSql, std::move(expression)); }
  void AddJms(std::string selector) { Add(FilterKind::kJms, std::move(selector)); }
  void AddProperties(std::string json_object) { Add(FilterKind::kProperties, std::move(json_object)); }
  void AddApplicationProperties(std::string json_object) {
    Add(FilterKind::kApplicationProperties, std::move(json_object));
  }

  const std::vector<FilterClause>& clauses() const { return clauses_; }
  bool empty() const { return clauses_.empty(); }

  // Compiles the set into *out (a filter matching everything when the set is empty). On failure
  // returns InvalidArgument (what "bad selector" for SQL / JMS, "bad filter" for the property filters;
  // where "<kind> filter N" with N counted from 1 within its kind, plus ", byte P" when there is a
  // position; why the reason), sets *out to a filter that cannot run (ok() false: a consumer refuses
  // it, so a caller that misses the status delivers nothing rather than every message) and, when
  // `error` is not null, fills it (FilterError::clause indexes clauses()).
  Status Compile(CompiledFilter* out, FilterError* error = nullptr) const;

 private:
  std::vector<FilterClause> clauses_;
};

}  // namespace sift

#endif  // SIFT_FILTER_SPEC_H_
