// MessageFieldSource: the selector's field source over encoded AMQP 1.0 messages.
//
// Built once for the field list a compiled selector publishes (Selector::fields()), it precomputes
// for each slot its section and, for header / properties fields, the list index. Per message, Reset()
// points it at the bytes; Get(slot) reads the slot's section the first time any slot of that section
// is asked for, and in that one pass over the section fills every slot of the section (an
// application-properties map is scanned once for all requested keys). So each section is read at
// most once per message (invariant 1 of ARCHITECTURE.md). FieldRef paths are resolved lazily on the
// located value. Header defaults are applied (durable false, priority 4, first-acquirer false,
// delivery-count 0).
//
// Memory: all slot storage is allocated at construction; Reset() and Get() never allocate. Values
// returned view the message bytes and live until the next Reset() (or until the bytes go). A
// malformed section reads as kMissing for all its fields. Not thread-safe: one source per thread.
#ifndef SIFT_ENGINE_MESSAGE_FIELD_SOURCE_H_
#define SIFT_ENGINE_MESSAGE_FIELD_SOURCE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "engine/amqp/encoded_value.h"
#include "engine/amqp/message_view.h"
#include "selector/field_source.h"
#include "selector/value.h"

namespace sift::engine {

class MessageFieldSource : public selector::FieldSource {
 public:
  // `fields` is copied; slot i is fields[i].
  explicit MessageFieldSource(std::span<const selector::FieldRef> fields);

  // Moves to another message (a view that must outlive the reads of this message). Never allocates.
  void Reset(const amqp::MessageView& message);
  // Same, over bytes (an internal view is kept).
  void Reset(std::span<const uint8_t> message);

  selector::Value Get(uint32_t slot) override;

  size_t size() const { return slots_.size(); }
  // The view of the current message.
  const amqp::MessageView& view() const { return *view_; }

 private:
  struct Slot {
    selector::Section section = selector::Section::kApplicationProperties;
    int field_index = -1;            // header / properties list index; -1 for an unknown name
    std::vector<selector::PathStep> path;
    std::string key;                 // map sections: the key
    bool key_is_ulong = false;       // annotations / footer: `key` is decimal text of a ulong
    uint64_t ulong_key = 0;
    // Per message:
    amqp::EncodedValue located;      // the field's value before the path, when found
    bool found = false;
    bool resolved = false;           // `value` is final
    selector::Value value;
  };
  static constexpr int kSections = 6;

  void LoadSection(selector::Section section);
  void LoadList(selector::Section section, amqp::SectionKind kind);
  void LoadMap(selector::Section section, amqp::SectionKind kind);

  std::vector<Slot> slots_;
  std::vector<uint32_t> section_slots_[kSections];  // slots of each section
  bool loaded_[kSections] = {};
  amqp::MessageView own_view_;
  const amqp::MessageView* view_ = &own_view_;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_MESSAGE_FIELD_SOURCE_H_
