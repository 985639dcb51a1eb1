// The reader of chunk summaries: ChunkSummaryFacts answers a chunk predicate's questions
// (selector/chunk_predicate.h) from the bytes of one summary (chunk_summary_format.h), so that a
// filtered read can skip a chunk none of whose messages can match without reading it. It reads the
// summary in place and allocates nothing per summary.
#ifndef SIFT_ENGINE_CHUNK_SUMMARY_FACTS_H_
#define SIFT_ENGINE_CHUNK_SUMMARY_FACTS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "selector/chunk_predicate.h"
#include "selector/field_source.h"

namespace sift::engine {

// The facts of one summary for the fields of a predicate (by slot). Reset() allocates nothing.
class ChunkSummaryFacts final : public selector::ChunkFacts {
 public:
  explicit ChunkSummaryFacts(std::span<const selector::FieldRef> fields);
  ~ChunkSummaryFacts() override;

  // Points at another summary (which must outlive the questions). False when the summary cannot be
  // read (another version, damaged): nothing is known then.
  bool Reset(std::string_view summary);

  bool Field(uint32_t slot, selector::FieldFacts* facts) const override;
  bool MayHoldText(uint32_t slot, std::string_view text) const override;

 private:
  struct Slot;
  bool ReadField(uint32_t slot, selector::FieldFacts* facts, std::string_view* set) const;
  std::vector<Slot> slots_;
  uint32_t messages_ = 0;
  bool complete_ = false;
  bool readable_ = false;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_CHUNK_SUMMARY_FACTS_H_
