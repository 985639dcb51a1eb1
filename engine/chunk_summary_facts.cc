// Reading chunk summaries (see chunk_summary_facts.h; the layout is chunk_summary_format.h's).
#include "engine/chunk_summary_facts.h"

#include "engine/chunk_summary_format.h"

namespace sift::engine {

using selector::FieldFacts;
using selector::FieldRef;

struct ChunkSummaryFacts::Slot {
  bool summarized = false;  // a field summaries cover (IsSummarizedField)
  uint8_t section = 0;
  std::string name;
  std::string_view body;  // this summary's entry for the field (empty data() when not listed)
  bool listed = false;
};

ChunkSummaryFacts::ChunkSummaryFacts(std::span<const FieldRef> fields) {
  slots_.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldRef& f = fields[i];
    Slot& s = slots_[i];
    s.summarized = IsSummarizedField(f);
    s.section = static_cast<uint8_t>(f.section);
    s.name = f.name;
  }
}

ChunkSummaryFacts::~ChunkSummaryFacts() = default;

bool ChunkSummaryFacts::Reset(std::string_view summary) {
  readable_ = false;
  for (Slot& s : slots_) s.listed = false;
  SummaryInput in(summary);
  SummaryHeader header;
  if (!ReadSummaryHeader(&in, &header)) return false;
  messages_ = header.messages;
  complete_ = header.complete;
  for (uint64_t k = 0; k < header.fields && in.ok(); ++k) {
    SummaryField field;
    ReadSummaryField(&in, &field);
    for (Slot& s : slots_) {
      if (s.summarized && s.section == field.section && s.name == field.name) {
        s.body = field.body;
        s.listed = true;
      }
    }
  }
  readable_ = in.ok() && messages_ > 0;
  return readable_;
}

bool ChunkSummaryFacts::Field(uint32_t slot, FieldFacts* facts) const {
  std::string_view set;
  return ReadField(slot, facts, &set);
}

// The facts of field `slot` and, in *set, the bytes of its text set (what follows the text bounds):
// the one reader of a field's entry, shared by Field() and MayHoldText().
bool ChunkSummaryFacts::ReadField(uint32_t slot, FieldFacts* facts, std::string_view* set) const {
  if (!readable_ || slot >= slots_.size() || !slots_[slot].summarized) return false;
  const Slot& s = slots_[slot];
  *facts = FieldFacts();
  facts->messages = messages_;
  *set = std::string_view();
  if (!s.listed) return complete_;  // complete: no message holds the field
  // A damaged body, or one that counts more messages than the chunk has: nothing is known.
  return ReadFieldBody(s.body, facts, set) && facts->present <= messages_;
}

bool ChunkSummaryFacts::MayHoldText(uint32_t slot, std::string_view text) const {
  FieldFacts facts;
  std::string_view set;
  if (!ReadField(slot, &facts, &set)) return true;
  if (facts.texts == 0) return false;
  return TextSetMayHold(set, text);
}

}  // namespace sift::engine
