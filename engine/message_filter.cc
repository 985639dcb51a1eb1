// MessageFilter: prefilter, then the selector on the lazy field source (message_filter.h).
#include "engine/message_filter.h"

#include <algorithm>
#include <iterator>

namespace sift::engine {

MessageFilter::MessageFilter(const selector::Selector& selector, MessageFilterOptions options)
    : selector_(selector),
      source_(selector_.fields()),
      prefilter_(selector_.required_texts()),
      use_prefilter_(options.prefilter && !prefilter_.empty()),
      adaptive_(options.adaptive),
      evaluation_cost_(std::max(kMinEvaluationCost, selector_.estimated_cost())) {
  static_assert(kMaxRequirements <= 8, "a window keeps one count per set of requirements");
  for (size_t i = 0; i < prefilter_.requirement_count(); ++i) plan_order_[i] = static_cast<uint8_t>(i);
  plan_count_ = prefilter_.requirement_count();
  if (!adaptive_) probe_left_ = 0;  // the full plan on every message
}

void MessageFilter::Calibrate() {
  const size_t n = prefilter_.requirement_count();
  const uint32_t sets = 1u << n;
  // Messages some requirement of `active` rejects, by each step.
  auto rejected = [&](const uint32_t* counts, uint32_t active) {
    uint32_t total = 0;
    for (uint32_t m = 1; m < sets; ++m) total += (m & active) != 0 ? counts[m] : 0;
    return total;
  };
  // Whether rejecting `part` of `of` messages saves more evaluation than `step_cost` per message.
  auto pays = [&](uint32_t part, uint32_t of, double step_cost) {
    return part > 0 && static_cast<double>(part) * evaluation_cost_ >= static_cast<double>(of) * step_cost;
  };
  plan_use_ = pays(rejected(not_in_section_, sets - 1), kProbeWindow, kStepCost);
  if (plan_use_) {
    uint32_t alone[kMaxRequirements] = {};  // what each requirement rejects on its own
    for (size_t i = 0; i < n; ++i) alone[i] = rejected(not_in_section_, 1u << i);
    size_t order[kMaxRequirements] = {};
    for (size_t i = 0; i < n; ++i) {  // by what they reject, most first (an insertion sort: no buffer)
      size_t k = i;
      for (; k > 0 && alone[order[k - 1]] < alone[i]; --k) order[k] = order[k - 1];
      order[k] = i;
    }
    size_t kept = 0;
    uint32_t active = 0;
    for (size_t k = 0; k < n; ++k) {
      if (kept > 0 && !pays(alone[order[k]], kProbeWindow, kRequirementCost)) break;
      plan_order_[kept++] = static_cast<uint8_t>(order[k]);
      active |= 1u << order[k];
    }
    plan_count_ = kept;
    const uint32_t flat = rejected(not_in_message_, active);
    const uint32_t sections_only = rejected(not_in_section_, active) - flat;
    plan_steps_.flat = pays(flat, kProbeWindow, kStepCost);
    plan_steps_.sections = !plan_steps_.flat || pays(sections_only, kProbeWindow - flat, kStepCost);
  }
  std::fill(std::begin(not_in_message_), std::end(not_in_message_), 0u);
  std::fill(std::begin(not_in_section_), std::end(not_in_section_), 0u);
  stretch_left_ = kStretch;
}

bool MessageFilter::Matches(std::span<const uint8_t> message) {
  ++stats_.messages;
  evaluated_ = false;
  if (use_prefilter_) {
    bool may = true;
    if (probe_left_ > 0) {
      // Probing: every requirement, both steps, counted.
      ++stats_.prefilter_checked;
      ++stats_.flat_searched;
      ++stats_.sections_checked;
      uint32_t not_in_message = 0;
      uint32_t not_in_section = 0;
      prefilter_.Measure(message, &not_in_message, &not_in_section);
      ++not_in_message_[not_in_message];
      ++not_in_section_[not_in_section];
      may = not_in_section == 0;
      if (--probe_left_ == 0) Calibrate();
    } else {
      if (adaptive_ && --stretch_left_ == 0) probe_left_ = kProbeWindow;
      if (plan_use_) {
        ++stats_.prefilter_checked;
        stats_.flat_searched += plan_steps_.flat;
        stats_.sections_checked += plan_steps_.sections;
        TextPrefilter::Steps steps = plan_steps_;
        steps.order = std::span<const uint8_t>(plan_order_, plan_count_);  // not kept: a move would stale it
        may = prefilter_.Check(message, steps) == TextPrefilter::Verdict::kMayMatch;
      }
    }
    stats_.prefilter_rejected += !may;
    if (!may) return false;
  }
  source_.Reset(message);
  evaluated_ = true;
  const bool match = selector_.Evaluate(source_, context_) == selector::Truth::kTrue;
  stats_.matched += match;
  return match;
}

}  // namespace sift::engine
