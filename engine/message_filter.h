// MessageFilter: decides, per encoded AMQP message, whether a compiled selector delivers it.
//
// The one place the engine evaluates a selector on stored bytes (consumers, `sift replay` and
// `sift filter`, the benchmarks). Per message it runs, cheapest first:
//   1. the text prefilter (text_prefilter.h), when the selector publishes required texts: a byte
//      search of the sections that hold them rejects a message that cannot be TRUE without reading a
//      field;
//   2. the selector program over a MessageFieldSource (lazy, in-place reads, each section at most
//      once).
// Only TRUE matches (three-valued logic), so the prefilter, which cannot tell FALSE from UNKNOWN,
// never changes a result.
//
// The prefilter adapts to the data (the calibration step of Sparser): it is probed on a window of
// messages, and when it rejects fewer than a quarter of them its byte search costs more than the
// parses it saves, so it is bypassed for a longer stretch and then probed again. Its two steps are
// calibrated the same way: the section check (for messages whose bytes hold the texts somewhere),
// when it rejects under a quarter of the messages that reach it, leaves the flat search alone for a
// stretch; the flat search, when it rejects under a quarter (the texts are in nearly every message,
// as with a LIKE whose pattern the section check tests), leaves the section check alone.
//
// Memory: everything is allocated at construction; Matches() never allocates once the evaluation
// context has warmed up (a LIKE through re2 may grow its cache in the first messages). One filter
// per thread; the Selector it was built from may be shared.
#ifndef SIFT_ENGINE_MESSAGE_FILTER_H_
#define SIFT_ENGINE_MESSAGE_FILTER_H_

#include <cstdint>
#include <span>

#include "engine/message_field_source.h"
#include "engine/text_prefilter.h"
#include "selector/eval_context.h"
#include "selector/selector.h"

namespace sift::engine {

struct MessageFilterOptions {
  // Use the text prefilter when the selector has required texts. Off only to measure without it.
  bool prefilter = true;
  // Bypass the prefilter while it rejects too little (see above). Off: it runs on every message
  // (tests of its soundness, measurements of its cost).
  bool adaptive = true;
};

struct MessageFilterStats {
  uint64_t messages = 0;            // Matches() calls
  uint64_t prefilter_checked = 0;   // messages the prefilter looked at
  uint64_t prefilter_rejected = 0;  // of those, rejected without reading a field
  uint64_t flat_searched = 0;       // of those checked, how many the flat search ran on
  uint64_t sections_checked = 0;    // ... and the section check
  uint64_t matched = 0;             // messages the selector accepted
};

class MessageFilter {
 public:
  // `selector` must be ok(); it is copied (cheap: the program is shared).
  explicit MessageFilter(const selector::Selector& selector, MessageFilterOptions options = {});

  // True when the selector is TRUE on the message. `message` must stay valid until the next call
  // (field values read for the decision view it).
  bool Matches(std::span<const uint8_t> message);

  const selector::Selector& selector() const { return selector_; }
  // The evaluation context, e.g. to pin the clock UTC() reads (EvalContext::SetNow).
  selector::EvalContext& context() { return context_; }
  const MessageFilterStats& stats() const { return stats_; }
  // Whether the selector has required texts (and the prefilter was not turned off).
  bool has_prefilter() const { return use_prefilter_; }

 private:
  // Probe window and bypass stretch, in messages.
  static constexpr uint32_t kProbeWindow = 512;
  static constexpr uint32_t kBypassStretch = 32768;

  // The calibration of one step (the whole prefilter, or one of its steps): it runs, and its
  // rejections are counted, over windows of kProbeWindow messages; a window in which it rejected
  // under a quarter starts a bypass of kBypassStretch messages.
  class Calibration {
   public:
    // Whether the step runs for this message (a bypassed step counts the message off its stretch).
    bool Runs() {
      if (bypass_left_ == 0) return true;
      --bypass_left_;
      return false;
    }
    void Record(bool rejected, bool adaptive) {
      rejected_ += rejected;
      if (++checked_ < kProbeWindow) return;
      if (adaptive && rejected_ * 4 < kProbeWindow) bypass_left_ = kBypassStretch;
      checked_ = 0;
      rejected_ = 0;
    }

   private:
    uint32_t bypass_left_ = 0;
    uint32_t checked_ = 0;
    uint32_t rejected_ = 0;
  };

  selector::Selector selector_;
  MessageFieldSource source_;
  selector::EvalContext context_;
  TextPrefilter prefilter_;
  bool use_prefilter_ = false;
  bool adaptive_ = true;
  Calibration prefilter_calibration_;
  Calibration flat_calibration_;
  Calibration sections_calibration_;
  MessageFilterStats stats_;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_MESSAGE_FILTER_H_
