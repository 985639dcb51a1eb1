// FilterSpec: the text front end of the filter-set compiler (see sift/filter_spec.h, sift/filter_set.h).
#include "sift/filter_spec.h"

#include <utility>

namespace sift {

Status FilterSpec::Compile(CompiledFilter* out, FilterError* error) const {
  std::vector<Filter> filters;
  filters.reserve(clauses_.size());
  size_t per_kind[4] = {};
  for (const FilterClause& clause : clauses_) {
    const size_t ordinal = ++per_kind[static_cast<int>(clause.kind)];
    filters.push_back({clause.kind, FilterForm::kText, clause.text,
                       std::string(FilterKindName(clause.kind)) + " filter " + std::to_string(ordinal)});
  }
  return CompileFilterSet(filters, out, error);
}

}  // namespace sift
