// Private to sift: the selector inside a CompiledFilter (sift/filter_set.h), for the engine's consumers
// and for the tools, tests and benchmarks that run a selector themselves (MessageFilter, explain).
#ifndef SIFT_ENGINE_COMPILED_FILTER_H_
#define SIFT_ENGINE_COMPILED_FILTER_H_

#include <memory>
#include <utility>

#include "selector/selector.h"
#include "sift/filter_set.h"

struct sift::CompiledFilter::Rep {
  selector::Selector selector;
};

namespace sift::engine {

class CompiledFilterAccess {
 public:
  // A CompiledFilter holding `selector` (a compiled filter-set, or one in the error state).
  static CompiledFilter Make(selector::Selector selector) {
    CompiledFilter out;
    out.rep_ = std::make_shared<const CompiledFilter::Rep>(CompiledFilter::Rep{std::move(selector)});
    return out;
  }
  // The selector of `filter`: one matching every message for a default-constructed filter.
  static const selector::Selector& Get(const CompiledFilter& filter) {
    static const selector::Selector kMatchAll;
    return filter.rep_ != nullptr ? filter.rep_->selector : kMatchAll;
  }
};

// Shorthands for CompiledFilterAccess.
inline CompiledFilter ToCompiledFilter(selector::Selector selector) {
  return CompiledFilterAccess::Make(std::move(selector));
}
inline const selector::Selector& SelectorOf(const CompiledFilter& filter) { return CompiledFilterAccess::Get(filter); }

}  // namespace sift::engine

#endif  // SIFT_ENGINE_COMPILED_FILTER_H_
