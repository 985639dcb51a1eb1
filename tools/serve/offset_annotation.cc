// Rewrites the message-annotations section to carry `x-stream-offset` (see offset_annotation.h).
#include "tools/serve/offset_annotation.h"

#include <span>

#include "engine/amqp/cursor.h"
#include "engine/amqp/encoded_value.h"
#include "engine/amqp/type_codes.h"

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

bool IsOffsetKey(const amqp::EncodedValue& key) {
  std::string_view text;
  return (key.GetSymbol(&text) || key.GetString(&text)) && text == kStreamOffsetAnnotation;
}

// Appends the message-annotations section: `entries` (raw key/value pairs of the old map, already
// filtered) and the offset entry.
void WriteAnnotations(std::string_view entries, uint32_t entry_values, uint64_t offset, std::string* out) {
  static constexpr char kDescriptor[] = {0x00, 0x53, 0x72};
  out->append(kDescriptor, 3);
  out->push_back(static_cast<char>(amqp::code::kMap32));
  // size counts the count field and the elements (core part 1, section 1.6.23 / 1.2).
  const uint32_t key_bytes = 2 + static_cast<uint32_t>(kStreamOffsetAnnotation.size());
  const uint32_t size = 4 + static_cast<uint32_t>(entries.size()) + key_bytes + 9;
  PutUint32(size, out);
  PutUint32(entry_values + 2, out);
  out->append(entries);
  out->push_back(static_cast<char>(amqp::code::kSym8));
  out->push_back(static_cast<char>(kStreamOffsetAnnotation.size()));
  out->append(kStreamOffsetAnnotation);
  out->push_back(static_cast<char>(0x81));  // long
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(offset >> shift));
}

}  // namespace

bool AddOffsetAnnotation(std::string_view message, uint64_t offset, std::string* out) {
  out->clear();
  out->reserve(message.size() + 32);
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
        if (IsOffsetKey(key)) continue;
        const auto* k = reinterpret_cast<const char*>(key.raw().data());
        entries.append(k, key.raw().size());
        const auto* v = reinterpret_cast<const char*>(value.raw().data());
        entries.append(v, value.raw().size());
        values += 2;
      }
      if (!elements.ok()) return false;
      WriteAnnotations(entries, values, offset, out);
      copied = end;
      written = true;
    } else if (static_cast<int>(kind) > static_cast<int>(amqp::SectionKind::kMessageAnnotations)) {
      out->append(message.substr(copied, begin - copied));
      WriteAnnotations({}, 0, offset, out);
      copied = begin;
      written = true;
    }
  }
  if (!sections.ok()) return false;
  out->append(message.substr(copied));
  if (!written) WriteAnnotations({}, 0, offset, out);
  return true;
}

}  // namespace sift::tools
