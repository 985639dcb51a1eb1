// Per-thread mutable state for evaluating compiled selectors.
//
// A compiled Program is immutable and shared between threads; everything an evaluation writes lives
// here instead: scratch bytes for values computed during one evaluation (string concatenation, LOWER,
// UPPER, LEFT, RIGHT, SUBSTRING results, JMS identifier strings) and the clock reading UTC() returns.
//
// Invariants:
// - Scratch is reset at the start of every evaluation; a byte view into it lives until the next
//   evaluation with the same context starts.
// - Scratch grows (heap) only when an evaluation needs more than any earlier one did; after that
//   warm-up, evaluations allocate nothing. Grown space is coalesced into one block at the next reset.
// - One EvalContext must not be used by two threads at once; use one per thread.
#ifndef SIFT_SELECTOR_EVAL_CONTEXT_H_
#define SIFT_SELECTOR_EVAL_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace sift::selector {

class EvalContext {
 public:
  // `initial_scratch` bytes are reserved up front (0 defers all allocation to first use).
  explicit EvalContext(size_t initial_scratch = 1024);
  ~EvalContext();
  EvalContext(const EvalContext&) = delete;
  EvalContext& operator=(const EvalContext&) = delete;

  // Fixes the instant UTC() returns, in milliseconds since the Unix epoch (for tests and replays).
  void SetNow(int64_t ms_since_epoch) { fixed_now_ = ms_since_epoch; }
  // Makes UTC() read the system clock again (the default): once per evaluation, on first use, so
  // every UTC() in one evaluation sees the same instant.
  void UseSystemClock() { fixed_now_.reset(); }

  // --- Used by the evaluator (selector/program.h); not needed by callers of Selector. ---

  // Starts one evaluation: forgets earlier scratch contents and the cached clock reading.
  void BeginEvaluation() {
    if (blocks_.size() > 1) Coalesce();
    used_ = 0;
    total_used_ = 0;
    now_.reset();
  }
  // The instant UTC() stands for in the current evaluation.
  int64_t Now();
  // `n` bytes of scratch, valid until the next BeginEvaluation(). Never fails (grows on demand).
  char* Allocate(size_t n);

 private:
  struct Block {
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
  };
  char* Grow(size_t n);
  void Coalesce();

  std::vector<Block> blocks_;  // blocks_[0] is the main block; more only during warm-up
  size_t used_ = 0;            // bytes used of blocks_.back()
  size_t total_used_ = 0;      // bytes handed out in this evaluation, across blocks
  std::optional<int64_t> fixed_now_;
  std::optional<int64_t> now_;  // this evaluation's clock reading
};

inline char* EvalContext::Allocate(size_t n) {
  if (!blocks_.empty() && blocks_.back().size - used_ >= n) {
    char* p = blocks_.back().bytes.get() + used_;
    used_ += n;
    total_used_ += n;
    return p;
  }
  return Grow(n);
}

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_EVAL_CONTEXT_H_
