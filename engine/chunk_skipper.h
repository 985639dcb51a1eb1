// ChunkSkipper: a reader's chunk filter. It joins the selector's chunk predicate
// (selector/chunk_predicate.h) with what a chunk says of its messages: its summary
// (ChunkSummaryFacts), and its terms (storage/term_index.h) through ChunkTermFacts, which answers the
// same predicate from the terms alone: every fact unknown except which texts a field may hold, so that
// `customer = 'c-1'` rules out a chunk whose terms lack it without its summary being read.
#ifndef SIFT_ENGINE_CHUNK_SKIPPER_H_
#define SIFT_ENGINE_CHUNK_SKIPPER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chunk_summary_facts.h"
#include "selector/chunk_predicate.h"
#include "selector/field_source.h"
#include "selector/selector.h"
#include "storage/options.h"

namespace sift::engine {

// The facts a chunk's terms give (ChunkSkipper::MayMatchTerms): of a summarized field, every value may
// occur but texts whose term the chunk lacks.
class ChunkTermFacts final : public selector::ChunkFacts {
 public:
  explicit ChunkTermFacts(std::span<const selector::FieldRef> fields);
  ~ChunkTermFacts() override;
  // The terms to answer from (null: every text may occur); they must outlive the questions.
  void Reset(const storage::ChunkTermLookup* lookup) { lookup_ = lookup; }

  bool Field(uint32_t slot, selector::FieldFacts* facts) const override;
  bool MayHoldText(uint32_t slot, std::string_view text) const override;

 private:
  struct Slot {
    bool summarized = false;
    selector::Section section{};
    std::string name;
  };
  std::vector<Slot> slots_;
  const storage::ChunkTermLookup* lookup_ = nullptr;
};

// The selector's chunk predicate over summaries, and over terms. Not thread-safe.
class ChunkSkipper {
 public:
  explicit ChunkSkipper(const selector::Selector& selector);
  // False when no message of the summarized chunk can match.
  bool MayMatch(std::string_view summary);
  bool useful() const { return predicate_.useful(); }

  // The terms whose absence can rule a chunk out for this selector (the texts it compares fields with),
  // or none when terms cannot help it (then no term filter is worth setting). Few: a selector that
  // would look in more than kMaxTermPartitions partitions gets none, for it would read most of them.
  const std::vector<uint64_t>& terms() const { return terms_; }
  static constexpr size_t kMaxTermPartitions = 8;
  // False when no message of the chunk whose terms `lookup` gives can match.
  bool MayMatchTerms(const storage::ChunkTermLookup& lookup);

 private:
  selector::ChunkPredicate predicate_;
  ChunkSummaryFacts facts_;
  ChunkTermFacts term_facts_;
  std::vector<uint64_t> terms_;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_CHUNK_SKIPPER_H_
