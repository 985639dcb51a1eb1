// ProtonFieldSource: the decode-everything baseline's field source, over a message Qpid Proton has
// fully decoded (pn_message_decode into a pn_message_t). Used by `sift bench` and bench/.
//
// This is what a broker that decodes every message does before it evaluates a selector: Proton's
// getters for the header and properties fields, and a linear search of the decoded map (pn_data_t)
// for an application property or an annotation. The same compiled selector::Selector runs on it as on
// engine::MessageFieldSource, so the two differ only in how fields are obtained.
//
// Field mapping (what pn_message_t can tell):
// - header: durable, priority, first-acquirer, delivery-count from Proton's getters (which apply the
//   AMQP defaults, as sift does); ttl reads kMissing when Proton reports 0 (it cannot tell "absent"
//   from 0).
// - properties: message-id and correlation-id keep their AMQP type; to, subject, reply-to, group-id,
//   reply-to-group-id are strings; content-type and content-encoding symbols; creation-time and
//   absolute-expiry-time are timestamps, kMissing when 0; group-sequence a uint; user-id a binary,
//   kMissing when empty.
// - application properties, message and delivery annotations: the first entry whose string or
//   symbol key equals the name.
// - footer fields and FieldRef paths into compound values read kMissing (pn_message_t has no footer;
//   no benchmark selector uses a path). A selector that reads them, or a ttl of 0, can match
//   differently here than in sift; `sift bench` compares the matches of both and reports that.
// Byte views in returned values point into Proton's decoded message and live until the next decode
// into it. Not thread-safe: one source (and one pn_message_t) per thread.
#ifndef SIFT_TOOLS_BASELINE_PROTON_FIELD_SOURCE_H_
#define SIFT_TOOLS_BASELINE_PROTON_FIELD_SOURCE_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <span>
#include <vector>

#include "base/amqp_fields.h"
#include "selector/field_source.h"
#include "selector/value.h"

namespace sift::baseline {

class ProtonFieldSource final : public selector::FieldSource {
 public:
  // `fields` (a selector's field list) is copied; slot i is fields[i].
  explicit ProtonFieldSource(std::span<const selector::FieldRef> fields);

  // Reads fields of `message` (owned by the caller) from now on.
  void Reset(pn_message_t* message) { message_ = message; }

  selector::Value Get(uint32_t slot) override;

 private:
  // Where a slot's value comes from: a header or properties getter (`index`: the field's
  // amqp::HeaderField / PropertiesField), or a decoded map.
  enum class Kind : uint8_t {
    kUnknown,
    kHeader,
    kProperties,
    kApplicationProperty,
    kMessageAnnotation,
    kDeliveryAnnotation,
  };
  struct Slot {
    Kind kind = Kind::kUnknown;
    int index = 0;          // kHeader / kProperties: the field's place in its list
    std::vector<char> key;  // map fields: the key's bytes
    pn_atom_t atom{};       // keeps the atom a uuid / decimal128 view points into
    uint8_t decimal[8]{};   // decimal32 / decimal64 as big-endian bytes (Proton holds them as integers)
  };

  selector::Value Header(amqp::HeaderField field);
  selector::Value Property(Slot& slot, amqp::PropertiesField field);
  selector::Value Atom(Slot& slot, const pn_atom_t& atom);
  selector::Value MapEntry(Slot& slot, pn_data_t* data);

  std::vector<Slot> slots_;
  pn_message_t* message_ = nullptr;
};

}  // namespace sift::baseline

#endif  // SIFT_TOOLS_BASELINE_PROTON_FIELD_SOURCE_H_
