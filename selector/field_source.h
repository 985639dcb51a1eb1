// Where a selector's field values come from.
//
// A compiled selector reads a fixed, published list of fields (Selector::fields()); it asks its source
// for a field by that list's index (the "slot"). Knowing the whole list up front lets a source fetch
// every field of one section in a single pass over that section the first time any of them is asked
// for, which is how engine::MessageFieldSource reads encoded AMQP bytes. Tests use a map-backed source.
#ifndef SIFT_SELECTOR_FIELD_SOURCE_H_
#define SIFT_SELECTOR_FIELD_SOURCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/amqp_fields.h"
#include "selector/value.h"

namespace sift::selector {

// The sections of an AMQP 1.0 message (base/amqp_fields.h). Fields are read from the header, the
// annotation maps, the properties, the application-properties and the footer; a body section holds
// no named field.
using Section = amqp::Section;

// One step into a compound value: a list / array element by index, or a map entry by key.
struct PathStep {
  enum class Kind : uint8_t { kIndex, kKey };
  Kind kind = Kind::kIndex;
  uint64_t index = 0;  // kIndex
  std::string key;     // kKey: matched against string and symbol keys

  bool operator==(const PathStep&) const = default;
};

// A field a selector reads.
// - kHeader / kProperties: `name` is the spec's field name with hyphens ("priority", "delivery-count",
//   "message-id", "reply-to-group-id"). A header field the message lacks reads as its AMQP default
//   (durable false, priority 4, first-acquirer false, delivery-count 0); the source applies it.
// - kApplicationProperties: `name` is the string key.
// - kDeliveryAnnotations / kMessageAnnotations / kFooter: `name` is the symbol key (a decimal text
//   key also matches a ulong key).
// `path` descends into the field's value; an empty path reads the field itself.
struct FieldRef {
  Section section = Section::kApplicationProperties;
  std::string name;
  std::vector<PathStep> path;

  bool operator==(const FieldRef&) const = default;
};

class FieldSource {
 public:
  virtual ~FieldSource() = default;

  // The value of field number `slot` of the list the source was built for, for the current message:
  // kMissing when absent. Byte views in the result stay valid until the source moves to another
  // message. Must not allocate on the heap (invariant 1 of docs/architecture.md) and must not fail:
  // a malformed section reads as kMissing for every field in it.
  virtual Value Get(uint32_t slot) = 0;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_FIELD_SOURCE_H_
