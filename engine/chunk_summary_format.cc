// The byte layout of chunk summaries (see chunk_summary_format.h and docs/store-format.md).
#include "engine/chunk_summary_format.h"

#include "engine/bloom_filter.h"
#include "engine/text_hash.h"

namespace sift::engine {
namespace {

using selector::FieldFacts;
using selector::Number;
using selector::Section;

void AppendSized(std::string_view bytes, std::string* out) {
  base::AppendVarint64(out, bytes.size());
  out->append(bytes);
}

// u8 kind, then the 8 bytes of its value little-endian (a double's bits).
void AppendNumber(const Number& n, std::string* out) {
  char bytes[9];
  bytes[0] = static_cast<char>(n.kind);
  base::StoreLE64(bytes + 1, n.u);
  out->append(bytes, sizeof bytes);
}

}  // namespace

bool IsSummarizedField(const selector::FieldRef& f) {
  return f.path.empty() && (f.section == Section::kHeader || f.section == Section::kProperties ||
                            f.section == Section::kApplicationProperties);
}

void AppendSummaryHeader(uint32_t messages, bool complete, size_t fields, std::string* out) {
  out->push_back(static_cast<char>(kSummaryVersion));
  base::AppendVarint64(out, messages);
  out->push_back(static_cast<char>(complete ? kSummaryComplete : 0));
  base::AppendVarint64(out, fields);
}

void AppendSummaryField(uint8_t section, std::string_view name, std::string_view body, std::string* out) {
  out->push_back(static_cast<char>(section));
  AppendSized(name, out);
  AppendSized(body, out);
}

void AppendFieldBody(const FieldFacts& f, std::string* out) {
  base::AppendVarint64(out, f.present);
  base::AppendVarint64(out, f.nulls);
  base::AppendVarint64(out, f.texts);
  base::AppendVarint64(out, f.numbers);
  base::AppendVarint64(out, f.booleans);
  base::AppendVarint64(out, f.others);
  uint8_t flags = (f.has_nan ? kFieldHasNan : 0) | (f.has_number_range ? kFieldHasNumberRange : 0) |
                  (f.seen_true ? kFieldSeenTrue : 0) | (f.seen_false ? kFieldSeenFalse : 0);
  if (f.texts > 0) {
    flags |= (f.text_min_exact ? kFieldTextMinExact : 0) | (f.text_max_exact ? kFieldTextMaxExact : 0) |
             (f.text_max_unbounded ? kFieldTextMaxUnbounded : 0);
  }
  out->push_back(static_cast<char>(flags));
  if (f.has_number_range) {
    AppendNumber(f.number_min, out);
    AppendNumber(f.number_max, out);
  }
  if (f.texts > 0) {
    AppendSized(f.text_min, out);
    if (!f.text_max_unbounded) AppendSized(f.text_max, out);
  }
}

void AppendNoTextSet(std::string* out) { out->push_back(static_cast<char>(TextSetKind::kNone)); }

void AppendExactTextSet(std::span<const std::string_view> texts, std::string* out) {
  out->push_back(static_cast<char>(TextSetKind::kExact));
  base::AppendVarint64(out, texts.size());
  for (const std::string_view t : texts) AppendSized(t, out);
}

void AppendBloomTextSet(uint8_t probes, std::string_view filter, std::string* out) {
  out->push_back(static_cast<char>(TextSetKind::kBloom));
  out->push_back(static_cast<char>(probes));
  AppendSized(filter, out);
}

bool ReadSummaryHeader(SummaryInput* in, SummaryHeader* header) {
  if (in->Byte() != kSummaryVersion) return false;
  header->messages = static_cast<uint32_t>(in->Varint());
  header->complete = (in->Byte() & kSummaryComplete) != 0;
  header->fields = in->Varint();
  return in->ok();
}

void ReadSummaryField(SummaryInput* in, SummaryField* field) {
  field->section = in->Byte();
  field->name = in->Sized();
  field->body = in->Sized();
}

bool ReadFieldBody(std::string_view body, FieldFacts* facts, std::string_view* text_set) {
  SummaryInput in(body);
  facts->present = static_cast<uint32_t>(in.Varint());
  facts->nulls = static_cast<uint32_t>(in.Varint());
  facts->texts = static_cast<uint32_t>(in.Varint());
  facts->numbers = static_cast<uint32_t>(in.Varint());
  facts->booleans = static_cast<uint32_t>(in.Varint());
  facts->others = static_cast<uint32_t>(in.Varint());
  const uint8_t flags = in.Byte();
  facts->has_nan = flags & kFieldHasNan;
  facts->has_number_range = flags & kFieldHasNumberRange;
  facts->seen_true = flags & kFieldSeenTrue;
  facts->seen_false = flags & kFieldSeenFalse;
  if (facts->has_number_range) {
    facts->number_min = in.ReadNumber();
    facts->number_max = in.ReadNumber();
  }
  *text_set = std::string_view();
  if (facts->texts > 0) {
    facts->text_min = in.Sized();
    facts->text_min_exact = flags & kFieldTextMinExact;
    facts->text_max_exact = flags & kFieldTextMaxExact;
    facts->text_max_unbounded = flags & kFieldTextMaxUnbounded;
    if (!facts->text_max_unbounded) facts->text_max = in.Sized();
    *text_set = in.Rest();
  }
  // Counts must add up; anything else is a damaged summary.
  const uint64_t sum = uint64_t{facts->nulls} + facts->texts + facts->numbers + facts->booleans + facts->others;
  return in.ok() && sum == facts->present;
}

bool TextSetMayHold(std::string_view text_set, std::string_view text) {
  SummaryInput in(text_set);
  const uint8_t kind = in.Byte();
  if (!in.ok()) return true;
  if (kind == static_cast<uint8_t>(TextSetKind::kExact)) {
    const uint64_t n = in.Varint();
    for (uint64_t i = 0; i < n && in.ok(); ++i) {
      if (in.Sized() == text) return true;
    }
    return !in.ok();
  }
  if (kind == static_cast<uint8_t>(TextSetKind::kBloom)) {
    const uint8_t probes = in.Byte();
    const std::string_view filter = in.Sized();
    if (!in.ok()) return true;
    return BloomFilterMayHold(filter, probes, TextHash(text));
  }
  return true;
}

}  // namespace sift::engine
