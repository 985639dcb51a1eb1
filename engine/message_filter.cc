// MessageFilter: prefilter, then the selector on the lazy field source (message_filter.h).
#include "engine/message_filter.h"

namespace sift::engine {

MessageFilter::MessageFilter(const selector::Selector& selector, MessageFilterOptions options)
    : selector_(selector),
      source_(selector_.fields()),
      prefilter_(selector_.required_texts()),
      use_prefilter_(options.prefilter && !prefilter_.empty()),
      adaptive_(options.adaptive) {}

bool MessageFilter::Matches(std::span<const uint8_t> message) {
  ++stats_.messages;
  if (use_prefilter_ && prefilter_calibration_.Runs()) {
    ++stats_.prefilter_checked;
    TextPrefilter::Steps steps;
    steps.sections = sections_calibration_.Runs();
    steps.flat = !steps.sections || flat_calibration_.Runs();  // one of them always runs
    stats_.flat_searched += steps.flat;
    stats_.sections_checked += steps.sections;
    const TextPrefilter::Verdict verdict = prefilter_.Check(message, steps);
    const bool may = verdict == TextPrefilter::Verdict::kMayMatch;
    // Each step is judged by what it rejects when it could have been left out: the flat search
    // beside the section check, the section check on what the flat search let through.
    if (steps.flat && steps.sections) {
      flat_calibration_.Record(verdict == TextPrefilter::Verdict::kNotInMessage, adaptive_);
    }
    if (steps.sections && verdict != TextPrefilter::Verdict::kNotInMessage) {
      sections_calibration_.Record(verdict == TextPrefilter::Verdict::kNotInSection, adaptive_);
    }
    prefilter_calibration_.Record(!may, adaptive_);
    stats_.prefilter_rejected += !may;
    if (!may) return false;
  }
  source_.Reset(message);
  const bool match = selector_.Evaluate(source_, context_) == selector::Truth::kTrue;
  stats_.matched += match;
  return match;
}

}  // namespace sift::engine
