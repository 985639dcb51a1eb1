// MessageFieldSource: one pass per section over an encoded message (message_field_source.h).
//
// The hot path is a message the selector rejects after one or two fields, so per message the work
// is: Reset() (a counter bump), the section scan in MessageView, and here one walk over the wanted
// section that compares encoded keys in place and skips unwanted values through their size
// prefix. Every result is what the general readers (ReadValue, Cursor, EncodedValue::ToValue,
// field_types.h) would give: the fast paths below take only encodings whose extent they fully
// check, and hand everything else to those readers.
#include "engine/message_field_source.h"

#include <algorithm>
#include <cstring>

#include "amqp/coding.h"
#include "amqp/field_types.h"
#include "selector/bytes_equal.h"

namespace sift::engine {
namespace {

using amqp::EncodedValue;
using selector::Section;
using selector::Value;

constexpr int kHeaderIndex = static_cast<int>(Section::kHeader);
constexpr int kPropertiesIndex = static_cast<int>(Section::kProperties);

amqp::SectionKind KindOf(int section) { return static_cast<amqp::SectionKind>(section); }

uint64_t Load8(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A copy of a Value written just before, field by field: the fields were stored one at a time
// (a byte, then 8, 8 and 4 bytes), and a wider load spanning several of them cannot be forwarded
// from the store buffer, which stalls until they reach the cache. The empty asm statements keep the
// compiler from merging the loads.
Value FreshCopy(const Value& v) {
  Value out;
  uint8_t type = static_cast<uint8_t>(v.type);
  uint64_t bits = v.u64;
  const char* data = v.data;
  uint32_t size = v.size;
  asm("" : "+r"(type), "+r"(bits), "+r"(data), "+r"(size));
  out.type = static_cast<selector::ValueType>(type);
  out.u64 = bits;
  out.data = data;
  out.size = size;
  return out;
}

}  // namespace

MessageFieldSource::MessageFieldSource(std::span<const selector::FieldRef> fields) {
  slots_.resize(fields.size());
  states_.resize(fields.size());
  slot_section_.assign(fields.size(), kSections);
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
    const int si = static_cast<int>(f.section);
    if (si < 0 || si >= kSections) continue;
    slot_section_[i] = static_cast<uint8_t>(si);
    section_slots_[si].push_back(static_cast<uint32_t>(i));
    if (si == kHeaderIndex || si == kPropertiesIndex) {
      const int li = si == kHeaderIndex ? 0 : 1;
      if (s.field_index >= 0) {
        list_wanted_[li] |= 1u << s.field_index;
        list_last_[li] = std::max(list_last_[li], s.field_index);
        index_slots_[li][s.field_index].push_back(static_cast<uint32_t>(i));
      }
      continue;
    }
    KeyProbe k;
    k.size = static_cast<uint32_t>(s.key.size());
    k.slot = static_cast<uint32_t>(i);
    k.key_is_ulong = s.key_is_ulong;
    k.ulong_key = s.ulong_key;
    k.has_path = !s.path.empty();
    uint8_t head[8] = {};
    uint8_t mask[8] = {};
    if (s.key.size() <= 255) {
      // Byte 0 (str8 0xa1 or sym8 0xa3) is checked before the compare; byte 1 is the length.
      head[1] = static_cast<uint8_t>(s.key.size());
      mask[1] = 0xff;
      for (size_t b = 0; b < 6 && b < s.key.size(); ++b) {
        head[2 + b] = static_cast<uint8_t>(s.key[b]);
        mask[2 + b] = 0xff;
      }
    } else {
      mask[0] = 0xff;  // no str8 / sym8 holds it: byte 0 (0xa1 / 0xa3) never equals 0
    }
    std::memcpy(&k.head, head, 8);
    std::memcpy(&k.mask, mask, 8);
    // Slots of one key are matched together: chain each to the next probe with the same key.
    for (KeyProbe& earlier : probes_[si]) {
      if (earlier.next_same == KeyProbe::kNone && slots_[earlier.slot].key == s.key) {
        earlier.next_same = static_cast<uint32_t>(probes_[si].size());
      }
    }
    probes_[si].push_back(k);
    probe_heads_[si].push_back(k.head);
    probe_heads_[si].push_back(k.mask);
  }
  // Which plain format codes each header / properties field accepts, as field_types.h decides: each
  // non-compound code is read once from a zero-filled encoding and checked.
  for (int c = 0x01; c < 0xc0; ++c) {
    if (!amqp::IsValidFormatCode(static_cast<uint8_t>(c))) continue;
    uint8_t bytes[24] = {};
    bytes[0] = static_cast<uint8_t>(c);
    EncodedValue v;
    amqp::DecodeError e;
    if (amqp::ReadValue(bytes, bytes, bytes + sizeof bytes, &v, &e) == nullptr) continue;
    for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
      list_types_[0][i][c] = amqp::HeaderFieldTypeOk(i, v);
    }
    for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
      list_types_[1][i][c] = amqp::PropertiesFieldTypeOk(i, v);
    }
  }
}

Value MessageFieldSource::Get(uint32_t slot) {
  if (slot < states_.size()) {
    const SlotState& s = states_[slot];
    if (s.epoch == epoch_) return s.value;
  }
  return GetSlow(slot);
}

Value MessageFieldSource::GetSlow(uint32_t slot) {
  if (slot >= states_.size()) return Value::Missing();
  const int si = slot_section_[slot];
  if (si >= kSections) return Value::Missing();
  if (((loaded_ >> si) & 1u) == 0) {
    LoadSection(si);
    const SlotState& s = states_[slot];
    if (s.epoch == epoch_) return FreshCopy(s.value);
  } else {
    const SlotState& s = states_[slot];
    if (s.epoch == epoch_) return s.value;
  }
  return ResolvePath(slot);
}

Value MessageFieldSource::ResolvePath(uint32_t slot) {
  // A slot with a path whose field was found: descend now, once.
  SlotState& s = states_[slot];
  s.epoch = epoch_;
  s.value = Value::Missing();
  const std::span<const uint8_t> bytes = view_->bytes();
  EncodedValue v;
  if (amqp::ReadValue(bytes.data(), s.located, bytes.data() + bytes.size(), &v, nullptr) == nullptr) {
    return s.value;  // cannot happen: the section walk read this value
  }
  for (const selector::PathStep& step : slots_[slot].path) {
    EncodedValue next;
    amqp::DecodeError error;
    const bool found = step.kind == selector::PathStep::Kind::kIndex ? v.ElementAt(step.index, &next, &error)
                                                                     : v.FindKey(step.key, &next, &error);
    if (!found) {
      malformed_ |= !error.ok();
      return s.value;
    }
    v = next;
  }
  s.value = v.ToValue();
  return s.value;
}

void MessageFieldSource::Found(uint32_t slot, const uint8_t* at, const Value& value) {
  SlotState& s = states_[slot];
  if (slots_[slot].path.empty()) {
    s.value = value;
  } else {
    s.located = at;
    s.epoch = 0;  // pending: GetSlow() descends the path
  }
}

void MessageFieldSource::LoadSection(int section) {
  loaded_ |= 1u << section;
  for (uint32_t slot : section_slots_[section]) {
    SlotState& s = states_[slot];
    s.value = Value::Missing();
    s.located = nullptr;
    s.epoch = epoch_;
  }
  if (section == kHeaderIndex || section == kPropertiesIndex) {
    LoadList(section);
  } else {
    LoadMap(section);
  }
}

void MessageFieldSource::LoadList(int section) {
  const std::vector<uint32_t>& slots = section_slots_[section];
  const bool header = section == kHeaderIndex;
  const int li = header ? 0 : 1;
  const amqp::SectionKind kind = KindOf(section);
  const std::span<const uint8_t> bytes = view_->bytes();
  const uint8_t* base = bytes.data();
  const uint8_t* limit = base + bytes.size();
  const uint8_t* at = view_->SectionValue(kind);
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  uint32_t count = 0;
  bool absent = at == nullptr;
  if (!absent && !amqp::PlainCompound(at, limit, /*map=*/false, &p, &end, &count)) {
    // Described, of another type, or malformed: the general reader decides.
    EncodedValue list;
    if (!view_->FindSection(kind, &list)) {
      absent = true;  // unreadable: MessageView::Header() says what the header fields read as
    } else if (!amqp::SectionValueTypeOk(kind, list)) {
      malformed_ = true;  // a section of the wrong type: every field missing
      return;
    } else {
      p = list.payload().data();
      end = p + list.payload().size();
      count = list.count();
    }
  }
  if (absent) {
    // No such section: header fields take their defaults (or are missing if the message is
    // unreadable where the header would be: MessageView decides), properties are all absent.
    if (header) {
      for (uint32_t slot : slots) {
        const Slot& s = slots_[slot];
        if (s.field_index >= 0 && s.path.empty()) {
          states_[slot].value = view_->Header(static_cast<amqp::HeaderField>(s.field_index));
        }
      }
    }
    return;
  }
  // One walk up to the highest index asked for. Plain non-compound elements are skipped by their
  // constructor and size alone; compounds and described elements are read by ReadValue, as a Cursor
  // over the list would (so a malformed one makes the whole section missing, as it would there).
  const uint32_t wanted = list_wanted_[li];
  const int last = list_last_[li];
  uint32_t found = 0;  // indexes whose value was taken
  uint32_t wrong = 0;  // indexes present with the wrong type: missing, no default
  bool malformed = false;
  for (int i = 0; i <= last && static_cast<uint32_t>(i) < count; ++i) {
    if (p >= end) {
      malformed = true;
      break;
    }
    const uint8_t c = *p;
    const bool want = ((wanted >> i) & 1u) != 0;
    const uint8_t* next = c < 0xc0 ? amqp::SkipPlainValue(p, end) : nullptr;
    if (next != nullptr) {
      if (want && c != amqp::code::kNull) {
        if (list_types_[li][i][c]) {
          // Decoded straight into each slot of the field (the skip above checked the extent).
          for (uint32_t slot : index_slots_[li][i]) {
            SlotState& st = states_[slot];
            if (slots_[slot].path.empty()) {
              amqp::ReadSelectorValue(base, p, end, &st.value, nullptr);
            } else {
              st.located = p;
              st.epoch = 0;  // pending: GetSlow() descends the path
            }
          }
          found |= 1u << i;
        } else {
          wrong |= 1u << i;
        }
      }
      p = next;
      continue;
    }
    EncodedValue e;
    next = amqp::ReadValue(base, p, end, &e, nullptr);
    if (next == nullptr) {
      malformed = true;
      break;
    }
    if (want && !e.is_null()) {
      const bool ok = header ? amqp::HeaderFieldTypeOk(i, e) : amqp::PropertiesFieldTypeOk(i, e);
      if (ok) {
        const Value v = e.ToValue();
        for (uint32_t slot : index_slots_[li][i]) Found(slot, p, v);
        found |= 1u << i;
      } else {
        wrong |= 1u << i;
      }
    }
    p = next;
  }
  if (malformed) {  // malformed header / properties: every field of it is missing
    malformed_ = true;
    for (uint32_t slot : slots) {
      SlotState& s = states_[slot];
      s.value = Value::Missing();
      s.located = nullptr;
      s.epoch = epoch_;
    }
    return;
  }
  if (header) {  // absent or null fields read as their defaults (core part 3, section 3.2.1)
    for (uint32_t slot : slots) {
      const Slot& s = slots_[slot];
      if (s.field_index < 0 || !s.path.empty()) continue;
      if (((found | wrong) >> s.field_index) & 1u) continue;
      states_[slot].value = amqp::HeaderFieldDefault(s.field_index);
    }
  }
}

void MessageFieldSource::LoadMap(int section) {
  std::vector<KeyProbe>& probes = probes_[section];
  if (probes.empty()) return;
  const amqp::SectionKind kind = KindOf(section);
  const uint8_t* at = view_->SectionValue(kind);
  if (at == nullptr) return;
  const std::span<const uint8_t> bytes = view_->bytes();
  const uint8_t* base = bytes.data();
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  uint32_t count = 0;
  if (!amqp::PlainCompound(at, base + bytes.size(), /*map=*/true, &p, &end, &count)) {
    // Described, of another type, or malformed: the general reader decides.
    EncodedValue map;
    if (!view_->FindSection(kind, &map)) return;  // absent, or malformed (the view's error says so)
    if (!amqp::SectionValueTypeOk(kind, map)) {
      malformed_ = true;  // a section of the wrong type
      return;
    }
    p = map.payload().data();
    end = p + map.payload().size();
    count = map.count();
  }
  // One pass over the entries, matching every requested key of this section; the first entry with
  // a key wins. A str8 / sym8 key is compared in place (its first 8 bytes against each probe's
  // head, then the rest of a longer key); other keys (str32, sym32, ulong, described...) are read
  // by ReadValue (GeneralKeyMatch). An unmatched value is skipped by its size prefix. The pass
  // stops when every key is found, or at the first unreadable key or matched value, or an
  // unmatched value SkipValue cannot pass (what was found before it stands). Errors are not
  // kept: the field source reads a malformed section as missing fields, and says so (read_malformed).
  const size_t probe_count = probes.size();
  KeyProbe* const probe = probes.data();
  const uint64_t epoch = epoch_;  // a probe is found for this message when found_epoch == epoch
  size_t wanted = probe_count;
  const uint64_t* const heads = probe_heads_[section].data();  // head, mask per probe
  uint32_t n = count / 2;
  while (n > 0) {
    // The common entry, in a loop of its own so it stays in registers: a str8 (0xa1) or sym8
    // (0xa3) key with 8 bytes readable, compared with every probe's head in place, whose first 8
    // bytes match none, and a plain value, skipped by its size prefix. It stops at an entry with
    // a head match (key_end set, j the first probe matched), at an unmatched key whose value needs
    // the general skip (key_end set, j == probe_count) or at a key of another form (key_end null).
    const uint8_t* key_end = nullptr;
    size_t j = probe_count;
    for (; n > 0; --n) {
      const size_t left = amqp::BytesLeft(p, end);
      if (left < 8 || (p[0] | 0x02) != amqp::code::kSym8 || size_t{p[1]} > left - 2) break;
      const uint64_t head = Load8(p);
      j = 0;
      while (j < probe_count && ((head ^ heads[2 * j]) & heads[2 * j + 1]) != 0) ++j;
      if (j < probe_count) {
        key_end = p + 2 + p[1];
        break;
      }
      const uint8_t* next = amqp::SkipPlainValue(p + 2 + p[1], end);
      if (next == nullptr) {
        key_end = p + 2 + p[1];
        break;
      }
      p = next;
    }
    if (n == 0) break;
    --n;
    size_t first = probe_count;
    if (key_end != nullptr) {
      // Confirm the head match (not found yet, the rest of a longer key), else look further.
      const uint64_t head = Load8(p);
      for (; j < probe_count; ++j) {
        if (((head ^ heads[2 * j]) & heads[2 * j + 1]) == 0 && Confirm(probe[j], p)) {
          first = j;
          break;
        }
      }
    } else {
      key_end = GeneralKeyMatch(base, p, end, probe, probe_count, epoch, &first);
      if (key_end == nullptr) {
        malformed_ = true;
        break;
      }
    }
    if (first == probe_count) {  // no requested key: skip the value by its size prefix
      p = amqp::SkipPlainValue(key_end, end);
      if (p == nullptr) p = amqp::SkipValue(base, key_end, end, nullptr);
      if (p == nullptr) {
        malformed_ = true;
        break;
      }
      continue;
    }
    p = TakeValue(base, key_end, end, probe, first, &wanted);
    if (p == nullptr) {
      malformed_ = true;
      break;
    }
    if (wanted == 0) break;
  }
}

bool MessageFieldSource::Confirm(const KeyProbe& k, const uint8_t* p) const {
  return k.found_epoch != epoch_ &&
         (k.size <= 6 || selector::BytesEqual(p + 8, slots_[k.slot].key.data() + 6, k.size - 6));
}

const uint8_t* MessageFieldSource::GeneralKeyMatch(const uint8_t* base, const uint8_t* p, const uint8_t* end,
                                                   const KeyProbe* probe, size_t probe_count, uint64_t epoch,
                                                   size_t* first) const {
  std::string_view text;
  bool is_text = false;
  bool is_ulong = false;
  uint64_t number = 0;
  const uint8_t* key_end = nullptr;
  const size_t left = amqp::BytesLeft(p, end);
  if (left >= 2 && (p[0] == amqp::code::kStr8 || p[0] == amqp::code::kSym8) && size_t{p[1]} <= left - 2) {
    key_end = p + 2 + p[1];
    text = {reinterpret_cast<const char*>(p + 2), p[1]};
    is_text = true;
  } else {
    EncodedValue key;
    key_end = amqp::ReadValue(base, p, end, &key, nullptr);
    if (key_end == nullptr) return nullptr;
    const uint8_t code = key.format_code();
    if (!key.is_described()) {
      if (code == amqp::code::kStr32 || code == amqp::code::kSym32) {
        text = {reinterpret_cast<const char*>(key.payload().data()), key.payload().size()};
        is_text = true;
      } else if (code == amqp::code::kULong || code == amqp::code::kSmallULong || code == amqp::code::kULong0) {
        is_ulong = key.GetUnsigned(&number);
      }
    }
  }
  for (size_t j = 0; j < probe_count; ++j) {
    const KeyProbe& k = probe[j];
    if (k.found_epoch == epoch) continue;
    if ((is_text && k.size == text.size() && std::memcmp(slots_[k.slot].key.data(), text.data(), k.size) == 0) ||
        (is_ulong && k.key_is_ulong && k.ulong_key == number)) {
      *first = j;
      break;
    }
  }
  return key_end;
}

const uint8_t* MessageFieldSource::TakeValue(const uint8_t* base, const uint8_t* at, const uint8_t* end,
                                             KeyProbe* probe, size_t first, size_t* wanted) {
  KeyProbe& k = probe[first];
  SlotState& s = states_[k.slot];
  const uint8_t* next;
  if (!k.has_path) {
    // Decoded straight into the slot: on failure it is left as it was (kMissing).
    next = amqp::ReadSelectorValue(base, at, end, &s.value, nullptr);
  } else {
    Value checked;  // the value must be readable for its path to be followed later
    next = amqp::ReadSelectorValue(base, at, end, &checked, nullptr);
    if (next != nullptr) {
      s.located = at;
      s.epoch = 0;  // pending: GetSlow() descends the path
    }
  }
  if (next == nullptr) return nullptr;
  const uint64_t epoch = epoch_;
  k.found_epoch = epoch;
  --*wanted;
  // More slots for the same key: not found yet either, since they match exactly when k does.
  for (uint32_t j = k.next_same; j != KeyProbe::kNone; j = probe[j].next_same) {
    probe[j].found_epoch = epoch;
    --*wanted;
    CopyFound(k.slot, probe[j].slot, at);
  }
  return next;
}

void MessageFieldSource::CopyFound(uint32_t from, uint32_t to, const uint8_t* at) {
  if (slots_[to].path.empty()) {
    if (slots_[from].path.empty()) {
      states_[to].value = states_[from].value;
    } else {
      EncodedValue v;  // `from` keeps only the location: decode for `to`
      const std::span<const uint8_t> bytes = view_->bytes();
      amqp::DecodeError e;
      if (amqp::ReadValue(bytes.data(), at, bytes.data() + bytes.size(), &v, &e) != nullptr) {
        states_[to].value = v.ToValue();
      }
    }
  } else {
    states_[to].located = at;
    states_[to].epoch = 0;
  }
}

}  // namespace sift::engine
