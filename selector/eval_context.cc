// Scratch memory and clock of one evaluating thread (see eval_context.h).
#include "selector/eval_context.h"

#include <algorithm>
#include <chrono>

namespace sift::selector {

EvalContext::EvalContext(size_t initial_scratch) {
  blocks_.reserve(8);
  if (initial_scratch > 0) {
    blocks_.push_back(Block{std::make_unique<char[]>(initial_scratch), initial_scratch});
  }
}

EvalContext::~EvalContext() = default;

void EvalContext::Coalesce() {
  // Warm-up: the last evaluation needed more than the main block; replace all blocks by one that
  // holds everything it needed, so the next evaluation of that size allocates nothing.
  size_t total = 0;
  for (const Block& b : blocks_) total += b.size;
  total = std::max(total, total_used_);
  blocks_.clear();
  blocks_.push_back(Block{std::make_unique<char[]>(total), total});
}

char* EvalContext::Grow(size_t n) {
  size_t last = blocks_.empty() ? 0 : blocks_.back().size;
  size_t size = std::max<size_t>({n, last * 2, 256});
  blocks_.push_back(Block{std::make_unique<char[]>(size), size});
  used_ = n;
  total_used_ += n;
  return blocks_.back().bytes.get();
}

int64_t EvalContext::Now() {
  if (fixed_now_) return *fixed_now_;
  if (!now_) {
    now_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
               .count();
  }
  return *now_;
}

}  // namespace sift::selector
