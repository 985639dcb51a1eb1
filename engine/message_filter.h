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
// The prefilter adapts to the data (the calibration step of Sparser, Palkar et al., VLDB 2018): a
// probe window of messages runs every required text through both of its steps and counts what each
// would reject alone; the next, longer stretch then runs only what paid in that window, and a new
// window follows. A step pays when the evaluations it saves (the share of messages it rejects times
// the selector's estimated cost, Selector::estimated_cost()) outweigh its own cost, about half a
// field read: so a selector of one comparison needs a quarter of the messages rejected, a selector
// of ten conjuncts a fortieth. Over a stretch:
//   - the prefilter is bypassed when it did not pay;
//   - only the required texts that pay are tested (at least one), the most rejecting first (a text
//     that is in every message costs a search and rejects nothing, as `cust-` does for
//     `customer LIKE 'cust-%'`);
//   - the flat search runs when it pays, and the section check when it pays on the messages the
//     flat search lets through (one of them always runs).
//
// Memory: everything is allocated at construction; Matches() never allocates once the evaluation
// context has warmed up. One filter
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
  // Calibrate the prefilter on probe windows (see above). Off: every required text runs through
  // both steps on every message (tests of its soundness, measurements of its cost).
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
  // True when the last Matches() read a field from malformed bytes (MessageFieldSource::
  // read_malformed), so its "no" may rest on a broken message rather than on the selector. The
  // prefilter reads no field: a message it rejects lacks a text every match needs, broken or not.
  bool read_malformed() const { return evaluated_ && source_.read_malformed(); }
  // Whether the selector has required texts (and the prefilter was not turned off).
  bool has_prefilter() const { return use_prefilter_; }

 private:
  // Probe window and the stretch after it, in messages.
  static constexpr uint32_t kProbeWindow = 512;
  static constexpr uint32_t kStretch = 32768;
  static constexpr size_t kMaxRequirements = selector::kMaxRequiredTexts;
  // Costs in the units of Selector::estimated_cost() (about one field read): a prefilter step, one
  // more requirement in a step, and the least an evaluation is taken to cost.
  static constexpr double kStepCost = 0.5;
  static constexpr double kRequirementCost = 0.125;
  static constexpr double kMinEvaluationCost = 2.0;

  // Ends a probe window: chooses the plan for the stretch from its counts.
  void Calibrate();

  selector::Selector selector_;
  MessageFieldSource source_;
  selector::EvalContext context_;
  TextPrefilter prefilter_;
  bool use_prefilter_ = false;
  bool adaptive_ = true;
  double evaluation_cost_ = kMinEvaluationCost;
  // The plan for the current stretch (all requirements, both steps, until the first window ends).
  bool plan_use_ = true;
  uint8_t plan_order_[kMaxRequirements] = {};  // the requirements tested, plan_count_ of them
  size_t plan_count_ = 0;
  TextPrefilter::Steps plan_steps_;  // its steps (the order is set per message)
  // Messages left in the current probe window (> 0: probing) or stretch.
  uint32_t probe_left_ = kProbeWindow;
  uint32_t stretch_left_ = 0;
  // The window's counts: how many messages had each set of requirements (bit i: requirement i)
  // missing from the whole message, and from their sections.
  uint32_t not_in_message_[1u << kMaxRequirements] = {};
  uint32_t not_in_section_[1u << kMaxRequirements] = {};
  MessageFilterStats stats_;
  bool evaluated_ = false;  // the last message reached the selector (read_malformed)
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_MESSAGE_FILTER_H_
