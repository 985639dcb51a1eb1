// The byte layout of a chunk summary (docs/store-format.md, "Chunk summaries", version 1): its header,
// its field entries, a field entry's body and the body's text set, each written and read here, so
// that the builder (chunk_summary_builder.h) and the reader (chunk_summary_facts.h) share one
// description of the bytes. Storage keeps a summary without looking inside.
//
//   header: u8 version, varint messages, u8 flags (kSummaryComplete), varint field count
//   field:  u8 section, varint name length + name, varint body length + body
//   body:   varints present, nulls, texts, numbers, booleans, others; u8 flags (kField*); the number
//           range; the text bounds; the text set (none, exact list, or Bloom filter)
//
// Reading is bounded and allocates nothing: damaged bytes read as a summary that knows nothing.
#ifndef SIFT_ENGINE_CHUNK_SUMMARY_FORMAT_H_
#define SIFT_ENGINE_CHUNK_SUMMARY_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/byte_order.h"
#include "base/varint.h"
#include "selector/chunk_predicate.h"
#include "selector/field_source.h"

namespace sift::engine {

// The header: its version byte, and its flags.
inline constexpr uint8_t kSummaryVersion = 1;
inline constexpr uint8_t kSummaryComplete = 1;  // every summarized field of every message is listed

// Bounds of what a summary holds. Past kMaxSummaryFields fields a summary lists no more and says it is
// incomplete: a field it does not list is then unknown rather than absent. Texts longer than
// kMaxSummaryTextBound are summarized by a bound of that length (a prefix, or the smallest string above
// every text with that prefix).
inline constexpr size_t kMaxSummaryFields = 64;
inline constexpr size_t kMaxSummaryTextBound = 128;

// A field body's flags.
enum : uint8_t {
  kFieldHasNan = 1,
  kFieldHasNumberRange = 2,
  kFieldSeenTrue = 4,
  kFieldSeenFalse = 8,
  kFieldTextMinExact = 16,
  kFieldTextMaxExact = 32,
  kFieldTextMaxUnbounded = 64,
};

// The kinds of a field's text set.
enum class TextSetKind : uint8_t { kNone = 0, kExact = 1, kBloom = 2 };

// Whether summaries cover a field: one of the header, the properties or the application properties,
// read whole (no path into its value).
bool IsSummarizedField(const selector::FieldRef& field);

// ---------------------------------------------------------------------------------------------------
// Writing: each appends to *out.

void AppendSummaryHeader(uint32_t messages, bool complete, size_t fields, std::string* out);
void AppendSummaryField(uint8_t section, std::string_view name, std::string_view body, std::string* out);
// A body up to its text set, from `facts` (all but `messages`): the counts, the flags, the number
// range when has_number_range, and, when texts > 0, the text bounds as they are (the caller bounds
// them to kMaxSummaryTextBound bytes) and their exactness; one of the Append*TextSet must follow then.
void AppendFieldBody(const selector::FieldFacts& facts, std::string* out);
void AppendNoTextSet(std::string* out);
// `texts` sorted and distinct.
void AppendExactTextSet(std::span<const std::string_view> texts, std::string* out);
void AppendBloomTextSet(uint8_t probes, std::string_view filter, std::string* out);

// ---------------------------------------------------------------------------------------------------
// Reading.

// A bounded reader of summary bytes: any overrun makes ok() false and every later read a no-op.
class SummaryInput {
 public:
  explicit SummaryInput(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  bool ok() const { return ok_; }
  uint8_t Byte() {
    if (p_ >= end_) return Fail(), 0;
    return static_cast<uint8_t>(*p_++);
  }
  uint64_t Varint() {
    uint64_t v = 0;
    const char* const next = base::DecodeVarint64(p_, end_, &v);
    if (next == nullptr) return Fail(), 0;
    p_ = next;
    return v;
  }
  std::string_view Bytes(uint64_t n) {
    if (static_cast<uint64_t>(end_ - p_) < n) return Fail(), std::string_view();
    std::string_view s(p_, n);
    p_ += n;
    return s;
  }
  // A varint length, then that many bytes.
  std::string_view Sized() { return Bytes(Varint()); }
  // The bytes not read yet.
  std::string_view Rest() const { return std::string_view(p_, static_cast<size_t>(end_ - p_)); }
  // u8 kind, then the 8 bytes of its value little-endian (a double's bits).
  selector::Number ReadNumber() {
    const uint8_t kind = Byte();
    const std::string_view b = Bytes(8);
    if (!ok_ || kind > static_cast<uint8_t>(selector::Number::Kind::kDouble)) return Fail(), selector::Number();
    selector::Number n;
    n.kind = static_cast<selector::Number::Kind>(kind);
    n.u = base::LoadLE64(b.data());
    return n;
  }

 private:
  void Fail() { ok_ = false, p_ = end_; }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

struct SummaryHeader {
  uint32_t messages = 0;
  bool complete = false;
  uint64_t fields = 0;  // the field entries that follow
};
// False for a summary of another version or a damaged header.
bool ReadSummaryHeader(SummaryInput* in, SummaryHeader* header);

struct SummaryField {
  uint8_t section = 0;
  std::string_view name;
  std::string_view body;
};
// The next field entry (in->ok() false when there is none to read).
void ReadSummaryField(SummaryInput* in, SummaryField* field);

// A body's facts (all but `messages`) and, in *text_set, the bytes of its text set (empty when it has
// no texts). False for a damaged body (too short, or counts that do not add up).
bool ReadFieldBody(std::string_view body, selector::FieldFacts* facts, std::string_view* text_set);

// False only when the text set `text_set` (of ReadFieldBody) rules `text` out; a set of an unknown kind
// or a damaged one rules nothing out.
bool TextSetMayHold(std::string_view text_set, std::string_view text);

}  // namespace sift::engine

#endif  // SIFT_ENGINE_CHUNK_SUMMARY_FORMAT_H_
