// MessageFieldSource: one pass per section over an encoded message (message_field_source.h).
#include "engine/message_field_source.h"

#include <cstring>

#include "engine/amqp/coding.h"
#include "engine/amqp/cursor.h"
#include "engine/amqp/field_types.h"

namespace sift::engine {
namespace {

using amqp::EncodedValue;
using selector::Section;
using selector::Value;

int SectionIndex(Section s) { return static_cast<int>(s); }

amqp::SectionKind KindOf(Section s) {
  switch (s) {
    case Section::kHeader: return amqp::SectionKind::kHeader;
    case Section::kDeliveryAnnotations: return amqp::SectionKind::kDeliveryAnnotations;
    case Section::kMessageAnnotations: return amqp::SectionKind::kMessageAnnotations;
    case Section::kProperties: return amqp::SectionKind::kProperties;
    case Section::kApplicationProperties: return amqp::SectionKind::kApplicationProperties;
    case Section::kFooter: return amqp::SectionKind::kFooter;
  }
  return amqp::SectionKind::kFooter;
}

}  // namespace

MessageFieldSource::MessageFieldSource(std::span<const selector::FieldRef> fields) {
  slots_.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const selector::FieldRef& f = fields[i];
    Slot& s = slots_[i];
    s.section = f.section;
    s.path = f.path;
    s.key = f.name;
    if (f.section == Section::kHeader) {
      amqp::HeaderField h;
      if (amqp::HeaderFieldFromName(f.name, &h)) s.field_index = static_cast<int>(h);
    } else if (f.section == Section::kProperties) {
      amqp::PropertiesField p;
      if (amqp::PropertiesFieldFromName(f.name, &p)) s.field_index = static_cast<int>(p);
    } else if (f.section != Section::kApplicationProperties) {
      s.key_is_ulong = amqp::ParseDecimalKey(f.name, &s.ulong_key);
    }
    const int si = SectionIndex(f.section);
    if (si >= 0 && si < kSections) section_slots_[si].push_back(static_cast<uint32_t>(i));
  }
}

void MessageFieldSource::Reset(const amqp::MessageView& message) {
  view_ = &message;
  for (bool& l : loaded_) l = false;
}

void MessageFieldSource::Reset(std::span<const uint8_t> message) {
  own_view_.Reset(message);
  Reset(own_view_);
}

void MessageFieldSource::LoadSection(Section section) {
  const int si = SectionIndex(section);
  loaded_[si] = true;
  for (uint32_t slot : section_slots_[si]) {
    Slot& s = slots_[slot];
    s.found = false;
    s.resolved = false;
    s.value = Value::Missing();
  }
  if (section == Section::kHeader || section == Section::kProperties) {
    LoadList(section, KindOf(section));
  } else {
    LoadMap(section, KindOf(section));
  }
}

void MessageFieldSource::LoadList(Section section, amqp::SectionKind kind) {
  const int si = SectionIndex(section);
  const bool header = section == Section::kHeader;
  EncodedValue list;
  if (!view_->FindSection(kind, &list)) {
    // No such section: header fields take their defaults (or are missing if the message is
    // unreadable where the header would be: MessageView decides), properties are all absent.
    for (uint32_t slot : section_slots_[si]) {
      Slot& s = slots_[slot];
      s.resolved = true;
      if (header && s.field_index >= 0 && s.path.empty()) {
        s.value = view_->Header(static_cast<amqp::HeaderField>(s.field_index));
      }
    }
    return;
  }
  if (!amqp::SectionValueTypeOk(kind, list)) {
    for (uint32_t slot : section_slots_[si]) slots_[slot].resolved = true;
    return;
  }
  // The highest field index asked for bounds the walk.
  int last = -1;
  for (uint32_t slot : section_slots_[si]) last = std::max(last, slots_[slot].field_index);
  amqp::Cursor c = amqp::Cursor::Elements(list);
  EncodedValue e;
  for (int i = 0; i <= last && c.Next(&e); ++i) {
    if (e.is_null()) continue;
    const bool ok = header ? amqp::HeaderFieldTypeOk(i, e) : amqp::PropertiesFieldTypeOk(i, e);
    for (uint32_t slot : section_slots_[si]) {
      Slot& s = slots_[slot];
      if (s.field_index != i) continue;
      if (ok) {
        s.located = e;
        s.found = true;
      } else {
        s.resolved = true;  // wrong type: missing
      }
    }
  }
  if (!c.ok()) {  // malformed header / properties: every field of it is missing
    for (uint32_t slot : section_slots_[si]) {
      slots_[slot].found = false;
      slots_[slot].resolved = true;
    }
    return;
  }
  if (header) {  // absent or null fields read as their defaults (core part 3, section 3.2.1)
    for (uint32_t slot : section_slots_[si]) {
      Slot& s = slots_[slot];
      if (s.found || s.resolved || s.field_index < 0 || !s.path.empty()) continue;
      s.resolved = true;
      switch (static_cast<amqp::HeaderField>(s.field_index)) {
        case amqp::HeaderField::kDurable:
        case amqp::HeaderField::kFirstAcquirer: s.value = Value::Boolean(false); break;
        case amqp::HeaderField::kPriority:
          s.value = Value::Unsigned(selector::ValueType::kUByte, 4);
          break;
        case amqp::HeaderField::kDeliveryCount:
          s.value = Value::Unsigned(selector::ValueType::kUInt, 0);
          break;
        case amqp::HeaderField::kTtl: break;
      }
    }
  }
}

void MessageFieldSource::LoadMap(Section section, amqp::SectionKind kind) {
  const int si = SectionIndex(section);
  const std::vector<uint32_t>& slots = section_slots_[si];
  EncodedValue map;
  if (slots.empty() || !view_->FindSection(kind, &map) ||
      !amqp::SectionValueTypeOk(kind, map)) {
    return;
  }
  // One pass over the entries, matching every requested key of this section. str8 / sym8 keys are
  // compared in place and unmatched values skipped in O(1), so no EncodedValue is built per entry.
  const uint8_t* base = map.raw().data() - map.offset();
  const uint8_t* p = map.payload().data();
  const uint8_t* end = p + map.payload().size();
  size_t wanted = slots.size();
  amqp::DecodeError error;
  for (uint32_t i = map.count() / 2; i > 0 && wanted > 0; --i) {
    std::string_view text;
    bool is_text = false;
    bool is_ulong = false;
    uint64_t number = 0;
    const uint8_t* key_end = nullptr;
    const size_t left = amqp::BytesLeft(p, end);
    if (left >= 2 && (p[0] == amqp::code::kStr8 || p[0] == amqp::code::kSym8) &&
        size_t{p[1]} <= left - 2) {
      text = {reinterpret_cast<const char*>(p + 2), p[1]};
      is_text = true;
      key_end = p + 2 + p[1];
    } else {
      EncodedValue key;
      key_end = amqp::ReadValue(base, p, end, &key, &error);
      if (key_end == nullptr) break;
      const uint8_t code = key.format_code();
      if (!key.is_described()) {
        if (code == amqp::code::kStr32 || code == amqp::code::kSym32) {
          text = {reinterpret_cast<const char*>(key.payload().data()), key.payload().size()};
          is_text = true;
        } else if (code == amqp::code::kULong || code == amqp::code::kSmallULong ||
                   code == amqp::code::kULong0) {
          is_ulong = key.GetUnsigned(&number);
        }
      }
    }
    auto matches = [&](const Slot& s) {
      return !s.found && ((is_text && s.key.size() == text.size() &&
                           std::memcmp(s.key.data(), text.data(), text.size()) == 0) ||
                          (is_ulong && s.key_is_ulong && s.ulong_key == number));
    };
    Slot* first = nullptr;
    for (uint32_t slot : slots) {
      if (matches(slots_[slot])) {
        first = &slots_[slot];
        break;
      }
    }
    if (first == nullptr) {
      p = amqp::SkipPlainValue(key_end, end);
      if (p == nullptr) p = amqp::SkipValue(base, key_end, end, &error);
      if (p == nullptr) break;
      continue;
    }
    // Read the value straight into the slot (no copy of a freshly written EncodedValue).
    p = amqp::ReadValue(base, key_end, end, &first->located, &error);
    if (p == nullptr) break;
    for (uint32_t slot : slots) {
      Slot& s = slots_[slot];
      if (&s != first && !matches(s)) continue;
      if (&s != first) s.located = first->located;
      s.found = true;
      --wanted;
    }
  }
}

Value MessageFieldSource::Get(uint32_t slot) {
  if (slot >= slots_.size()) return Value::Missing();
  Slot& s = slots_[slot];
  const int si = SectionIndex(s.section);
  if (!loaded_[si]) LoadSection(s.section);
  if (s.resolved) return s.value;
  s.resolved = true;
  if (!s.found) {
    s.value = Value::Missing();
    return s.value;
  }
  if (s.path.empty()) {
    s.value = s.located.ToValue();
    return s.value;
  }
  EncodedValue v = s.located;
  for (const selector::PathStep& step : s.path) {
    EncodedValue next;
    if (!v.Step(step, &next)) {
      s.value = Value::Missing();
      return s.value;
    }
    v = next;
  }
  s.value = v.ToValue();
  return s.value;
}

}  // namespace sift::engine
