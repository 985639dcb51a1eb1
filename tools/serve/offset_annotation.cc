// Rewrites the message-annotations section to carry `x-stream-offset` and, after a retention gap,
// `x-opt-sift-retention-skipped` (see offset_annotation.h).
#include "tools/serve/offset_annotation.h"

#include <span>

#include "amqp/cursor.h"
#include "amqp/encoded_value.h"
#include "amqp/type_codes.h"

namespace sift::tools {
namespace {

bool SectionOf(const amqp::EncodedValue& section, amqp::SectionKind* kind) {
  amqp::EncodedValue descriptor;
  if (!section.Descriptor(&descriptor)) return false;
  uint64_t code = 0;
  std::string_view symbol;
  if (descriptor.GetUnsigned(&code)) return amqp::SectionFromDescriptorCode(code, kind);
  if (descriptor.GetSymbol(&symbol)) return amqp::SectionFromDescriptorSymbol(symbol, kind);
  return false;
}

void PutUint32(uint32_t v, std::string* out) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 4);
}

// True for a key this file writes: an earlier entry under it is dropped.
bool IsOurKey(const amqp::EncodedValue& key) {
  std::string_view text;
  return (key.GetSymbol(&text) || key.GetString(&text)) &&
         (text == kStreamOffsetAnnotation || text == kRetentionSkippedAnnotation);
}

// The bytes of one entry `key` => long `value`.
uint32_t LongEntrySize(std::string_view key) { return 2 + static_cast<uint32_t>(key.size()) + 9; }

void PutLongEntry(std::string_view key, uint64_t value, std::string* out) {
  out->push_back(static_cast<char>(amqp::code::kSym8));
  out->push_back(static_cast<char>(key.size()));
  out->append(key);
  out->push_back(static_cast<char>(0x81));  // long
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(value >> shift));
}

// Appends the message-annotations section: `entries` (raw key/value pairs of the old map, already
// filtered), the offset entry and the retention entry when `retention_skipped` is not 0.
void WriteAnnotations(std::string_view entries, uint32_t entry_values, uint64_t offset, uint64_t retention_skipped,
                      std::string* out) {
  static constexpr char kDescriptor[] = {0x00, 0x53, 0x72};
  out->append(kDescriptor, 3);
  out->push_back(static_cast<char>(amqp::code::kMap32));
  // size counts the count field and the elements (core part 1, section 1.6.23 / 1.2).
  uint32_t size = 4 + static_cast<uint32_t>(entries.size()) + LongEntrySize(kStreamOffsetAnnotation);
  uint32_t values = entry_values + 2;
  if (retention_skipped != 0) {
    size += LongEntrySize(kRetentionSkippedAnnotation);
    values += 2;
  }
  PutUint32(size, out);
  PutUint32(values, out);
  out->append(entries);
  PutLongEntry(kStreamOffsetAnnotation, offset, out);
  if (retention_skipped != 0) PutLongEntry(kRetentionSkippedAnnotation, retention_skipped, out);
}

}  // namespace

bool AddOffsetAnnotation(std::string_view message, uint64_t offset, std::string* out, uint64_t retention_skipped) {
  out->clear();
  out->reserve(message.size() + 80);
  const auto* base = reinterpret_cast<const uint8_t*>(message.data());
  amqp::Cursor sections(std::span<const uint8_t>(base, message.size()));
  amqp::EncodedValue section;
  size_t copied = 0;  // bytes of `message` already in *out
  bool written = false;
  while (sections.Next(&section)) {
    amqp::SectionKind kind;
    if (!SectionOf(section, &kind)) return false;
    const size_t begin = section.offset();
    const size_t end = begin + section.raw().size();
    if (written) continue;
    if (kind == amqp::SectionKind::kMessageAnnotations) {
      out->append(message.substr(copied, begin - copied));
      amqp::EncodedValue map = section.WithoutDescriptor();
      if (!map.is_map()) return false;
      std::string entries;
      uint32_t values = 0;
      amqp::Cursor elements = amqp::Cursor::Elements(map);
      amqp::EncodedValue key, value;
      while (elements.Next(&key)) {
        if (!elements.Next(&value)) return false;
        if (IsOurKey(key)) continue;
        const auto* k = reinterpret_cast<const char*>(key.raw().data());
        entries.append(k, key.raw().size());
        const auto* v = reinterpret_cast<const char*>(value.raw().data());
        entries.append(v, value.raw().size());
        values += 2;
      }
      if (!elements.ok()) return false;
      WriteAnnotations(entries, values, offset, retention_skipped, out);
      copied = end;
      written = true;
    } else if (static_cast<int>(kind) > static_cast<int>(amqp::SectionKind::kMessageAnnotations)) {
      out->append(message.substr(copied, begin - copied));
      WriteAnnotations({}, 0, offset, retention_skipped, out);
      copied = begin;
      written = true;
    }
  }
  if (!sections.ok()) return false;
  out->append(message.substr(copied));
  if (!written) WriteAnnotations({}, 0, offset, retention_skipped, out);
  return true;
}

}  // namespace sift::tools
