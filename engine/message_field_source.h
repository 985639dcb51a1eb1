// MessageFieldSource: the selector's field source over encoded AMQP 1.0 messages.
//
// Built once for the field list a compiled selector publishes (Selector::fields()), it precomputes
// for each slot its section and, for header / properties fields, the list index; for map sections,
// each requested key in the form of its str8 / sym8 encoding, so an encoded key is compared in place.
// Per message, Reset() points it at the bytes; Get(slot) reads the slot's section the first time any
// slot of that section is asked for, and in that one pass over the section fills every slot of the
// section (an application-properties map is scanned once for all requested keys, and the scan stops
// when all are found). So each section is read at most once per message (invariant 1 of
// docs/architecture.md). FieldRef paths are resolved lazily on the located value. Header defaults
// are applied (durable false, priority 4, first-acquirer false, delivery-count 0).
//
// Sections in the common encodings (list0 / list8 / list32 and map8 / map32 section values) are
// parsed in place from MessageView::SectionValue(); anything else (a described section value, a wrong
// type, a malformed size or count) goes through MessageView::FindSection, with the same results.
//
// Memory: all slot storage is allocated at construction; Reset() and Get() never allocate. Values
// returned view the message bytes and live until the next Reset() (or until the bytes go). A
// malformed section reads as kMissing for all its fields. Not thread-safe: one source per thread.
#ifndef SIFT_ENGINE_MESSAGE_FIELD_SOURCE_H_
#define SIFT_ENGINE_MESSAGE_FIELD_SOURCE_H_

#include <bitset>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "amqp/encoded_value.h"
#include "amqp/message_view.h"
#include "selector/field_source.h"
#include "selector/value.h"

namespace sift::engine {

class MessageFieldSource : public selector::FieldSource {
 public:
  // `fields` is copied; slot i is fields[i].
  explicit MessageFieldSource(std::span<const selector::FieldRef> fields);

  // Moves to another message (a view that must outlive the reads of this message). Never allocates.
  void Reset(const amqp::MessageView& message) {
    view_ = &message;
    ++epoch_;
    loaded_ = 0;
    malformed_ = false;
  }
  // Same, over bytes (an internal view is kept).
  void Reset(std::span<const uint8_t> message) {
    own_view_.Reset(message);
    Reset(own_view_);
  }

  selector::Value Get(uint32_t slot) override;

  size_t size() const { return slots_.size(); }
  // True when a read since Reset() met malformed bytes (a section, entry or path step that does not
  // parse), so some field read as missing only because the message is broken. Callers that do not
  // trust the bytes (offline filtering) validate such a message instead of taking the answer.
  bool read_malformed() const { return malformed_ || !view_->error().ok(); }
  // The view of the current message.
  const amqp::MessageView& view() const { return *view_; }

 private:
  static constexpr int kSections = amqp::kSectionCount;

  // What a slot asks for; built once.
  struct Slot {
    selector::Section section = selector::Section::kApplicationProperties;
    int field_index = -1;  // header / properties list index; -1 for an unknown name
    std::vector<selector::PathStep> path;
    std::string key;            // map sections: the key
    bool key_is_ulong = false;  // annotations / footer: `key` is decimal text of a ulong
    uint64_t ulong_key = 0;
  };
  // A slot's answer for the current message: what every Get() reads, kept small and apart.
  struct SlotState {
    selector::Value value;             // the answer, final when epoch == epoch_
    const uint8_t* located = nullptr;  // slots with a path: the field's value before the path
    uint64_t epoch = 0;                // epoch_ when `value` is final; 0 while a path is pending
  };
  // A requested key of a map section, for an in-place compare against an encoded key.
  struct KeyProbe {
    uint64_t head = 0;  // the str8 / sym8 encoding's first 8 bytes (constructor masked), as loaded
    uint64_t mask = 0;  // which bytes of `head` count: length byte and up to 6 key bytes
    uint32_t size = 0;  // of the key (Slot::key of `slot`)
    uint32_t slot = 0;
    bool key_is_ulong = false;
    uint64_t ulong_key = 0;
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t next_same = kNone;  // the next probe of this section with the same key
    bool has_path = false;       // the slot descends into the value (located, decoded later)
    uint64_t found_epoch = 0;    // per message: epoch_ once an entry matched this probe
  };

  selector::Value GetSlow(uint32_t slot);
  selector::Value ResolvePath(uint32_t slot);
  void LoadSection(int section);
  void LoadList(int section);
  void LoadMap(int section);
  // Marks `slot` found with its value at `at` (already checked readable) decoded into `value`.
  void Found(uint32_t slot, const uint8_t* at, const selector::Value& value);
  // LoadMap: probe[first] matched the key before `at`: reads the value at `at` for its slot
  // (decoded, or located for a path) and for every other probe of the same key not yet found,
  // counting them off *wanted. The value's end, or nullptr when it is malformed (slots left
  // missing).
  const uint8_t* TakeValue(const uint8_t* base, const uint8_t* at, const uint8_t* end, KeyProbe* probe, size_t first,
                           size_t* wanted);
  // LoadMap, after probe `k`'s head matched the str8 / sym8 key at p: true when `k` is not found
  // yet and the key bytes after the first 6 match too.
  bool Confirm(const KeyProbe& k, const uint8_t* p) const;
  // LoadMap, for a key not compared in place: reads the key at p and sets *first to the first
  // probe not yet found that it matches (untouched if none); the key's end, nullptr if malformed.
  const uint8_t* GeneralKeyMatch(const uint8_t* base, const uint8_t* p, const uint8_t* end, const KeyProbe* probe,
                                 size_t probe_count, uint64_t epoch, size_t* first) const;
  // LoadMap: slot `to` has the same key as `from`, found at `at`.
  void CopyFound(uint32_t from, uint32_t to, const uint8_t* at);

  std::vector<Slot> slots_;
  std::vector<SlotState> states_;
  std::vector<uint8_t> slot_section_;               // per slot: its section, kSections if none
  std::vector<uint32_t> section_slots_[kSections];  // slots of each section
  std::vector<KeyProbe> probes_[kSections];         // map sections: one per slot
  std::vector<uint64_t> probe_heads_[kSections];    // the same probes' head and mask, packed
  // List sections: the list indexes asked for (bit i), the highest, and per index the format codes
  // of plain values of the field's spec type (from field_types.h).
  uint32_t list_wanted_[2] = {};
  int list_last_[2] = {-1, -1};
  std::bitset<256> list_types_[2][amqp::kPropertiesFieldCount];
  std::vector<uint32_t> index_slots_[2][amqp::kPropertiesFieldCount];  // header / properties: slots by list index
  uint64_t epoch_ = 1;
  uint32_t loaded_ = 0;     // bit s: section s read for this message
  bool malformed_ = false;  // see read_malformed()
  amqp::MessageView own_view_;
  const amqp::MessageView* view_ = &own_view_;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_MESSAGE_FIELD_SOURCE_H_
