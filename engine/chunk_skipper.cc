// A reader's chunk filter (see chunk_skipper.h).
#include "engine/chunk_skipper.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "engine/chunk_summary_format.h"
#include "engine/text_hash.h"
#include "storage/term_index.h"

namespace sift::engine {

using selector::FieldFacts;
using selector::FieldRef;
using selector::Number;

namespace {

// Facts under which every value may occur: some messages lack the field, some hold null, text (any),
// numbers (any, NaN too), both booleans and other values.
FieldFacts AnythingFacts() {
  FieldFacts f;
  f.messages = 6;
  f.present = 5;
  f.nulls = f.texts = f.numbers = f.booleans = f.others = 1;
  f.has_nan = true;
  f.has_number_range = true;
  f.number_min = Number::Double(-std::numeric_limits<double>::infinity());
  f.number_max = Number::Double(std::numeric_limits<double>::infinity());
  f.text_min = std::string_view();
  f.text_max_unbounded = true;
  f.seen_true = f.seen_false = true;
  return f;
}

// Records the texts the predicate asks about, saying that every one (or none) may occur.
class TextRecorder final : public selector::ChunkFacts {
 public:
  TextRecorder(std::span<const FieldRef> fields, bool answer) : fields_(fields), answer_(answer) {}
  bool Field(uint32_t slot, FieldFacts* facts) const override {
    if (slot >= fields_.size() || !IsSummarizedField(fields_[slot])) return false;
    *facts = AnythingFacts();
    return true;
  }
  bool MayHoldText(uint32_t slot, std::string_view text) const override {
    if (slot < fields_.size() && IsSummarizedField(fields_[slot]))
      terms->push_back(TextTerm(fields_[slot].section, fields_[slot].name, text));
    return answer_;
  }
  std::vector<uint64_t>* terms = nullptr;

 private:
  std::span<const FieldRef> fields_;
  const bool answer_;
};

}  // namespace

ChunkTermFacts::ChunkTermFacts(std::span<const FieldRef> fields) {
  slots_.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    slots_[i].summarized = IsSummarizedField(fields[i]);
    slots_[i].section = fields[i].section;
    slots_[i].name = fields[i].name;
  }
}

ChunkTermFacts::~ChunkTermFacts() = default;

bool ChunkTermFacts::Field(uint32_t slot, FieldFacts* facts) const {
  if (slot >= slots_.size() || !slots_[slot].summarized) return false;
  static const FieldFacts kAnything = AnythingFacts();
  *facts = kAnything;
  return true;
}

bool ChunkTermFacts::MayHoldText(uint32_t slot, std::string_view text) const {
  if (lookup_ == nullptr || slot >= slots_.size() || !slots_[slot].summarized) return true;
  return lookup_->MayHold(TextTerm(slots_[slot].section, slots_[slot].name, text));
}

ChunkSkipper::ChunkSkipper(const selector::Selector& selector)
    : predicate_(selector::ChunkPredicate::For(selector)),
      facts_(predicate_.fields()),
      term_facts_(predicate_.fields()) {
  if (!predicate_.useful()) return;
  // Evaluations under facts that allow everything ask about the texts the predicate compares fields
  // with: one where every text may occur, one where none does (an IN list stops at the first text that
  // may occur). A text missed here is one the lookup knows nothing of: it may occur.
  std::vector<uint64_t> terms;
  for (const bool answer : {true, false}) {
    TextRecorder recorder(predicate_.fields(), answer);
    recorder.terms = &terms;
    (void)predicate_.MayMatch(recorder);
  }
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  uint64_t partitions = 0;
  for (const uint64_t t : terms) partitions |= uint64_t{1} << storage::TermPartition(t);
  if (std::popcount(partitions) <= static_cast<int>(kMaxTermPartitions)) terms_ = std::move(terms);
}

bool ChunkSkipper::MayMatch(std::string_view summary) {
  if (!facts_.Reset(summary)) return true;
  return predicate_.MayMatch(facts_);
}

bool ChunkSkipper::MayMatchTerms(const storage::ChunkTermLookup& lookup) {
  term_facts_.Reset(&lookup);
  const bool may = predicate_.MayMatch(term_facts_);
  term_facts_.Reset(nullptr);
  return may;
}

}  // namespace sift::engine
