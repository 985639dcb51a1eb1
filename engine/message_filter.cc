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
  if (use_prefilter_) {
    if (bypass_left_ > 0) {
      --bypass_left_;
    } else {
      ++stats_.prefilter_checked;
      ++window_checked_;
      const bool check_sections = sections_bypass_left_ == 0;
      if (!check_sections) --sections_bypass_left_;
      const TextPrefilter::Verdict verdict = prefilter_.Check(message, check_sections);
      const bool may = verdict == TextPrefilter::Verdict::kMayMatch;
      if (check_sections && verdict != TextPrefilter::Verdict::kNotInMessage) {
        ++sections_window_checked_;
        sections_window_rejected_ += verdict == TextPrefilter::Verdict::kNotInSection;
        if (sections_window_checked_ == kProbeWindow) {
          if (adaptive_ && sections_window_rejected_ * 4 < kProbeWindow) sections_bypass_left_ = kBypassStretch;
          sections_window_checked_ = 0;
          sections_window_rejected_ = 0;
        }
      }
      if (!may) {
        ++stats_.prefilter_rejected;
        ++window_rejected_;
      }
      if (window_checked_ == kProbeWindow) {
        // Rejecting under a quarter of the window: the search costs more than the parses it saves.
        if (adaptive_ && window_rejected_ * 4 < kProbeWindow) bypass_left_ = kBypassStretch;
        window_checked_ = 0;
        window_rejected_ = 0;
      }
      if (!may) return false;
    }
  }
  source_.Reset(message);
  const bool match = selector_.Evaluate(source_, context_) == selector::Truth::kTrue;
  stats_.matched += match;
  return match;
}

}  // namespace sift::engine
