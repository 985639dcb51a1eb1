// MessageView: lazy, zero-copy typed access to one encoded AMQP 1.0 message.
//
// The view locates sections only when a field of one is asked for (core part 3, section 3.2: header,
// delivery-annotations, message-annotations, properties, application-properties, the body — one or
// more data, one or more amqp-sequence, or one amqp-value — and footer). Section descriptors are
// accepted as smallulong, ulong or symbol (0x53 0x70, 0x80 ... 0x70, "amqp:header:list"). Locating a
// section skips the sections before it in O(1) each; reading a field reads its section's bytes from
// the section start to that field, and nothing else.
//
// Values are views into the message bytes (amqp::Value's data() points into them), valid while
// those bytes live. Nothing here allocates. The view is lenient where it can be (sections out of
// order or repeated are still found: the first occurrence wins) and never fails: a field of a
// malformed or absent section reads as kMissing, and error() reports the first problem met. Strict
// checking of a whole message is Validate() in validate.h.
//
// A MessageView is cheap to make and to Reset(); it caches what it has located, so it is not safe to
// share between threads.
#ifndef SIFT_ENGINE_AMQP_MESSAGE_VIEW_H_
#define SIFT_ENGINE_AMQP_MESSAGE_VIEW_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "base/amqp_fields.h"
#include "amqp/decode_error.h"
#include "amqp/encoded_value.h"
#include "amqp/type_codes.h"
#include "base/amqp_value.h"

namespace sift::amqp {

// The fields of the header and properties sections (HeaderField, PropertiesField, their names and
// list indices) are base/amqp_fields.h's one table.

enum class BodyKind : uint8_t { kNone, kData, kAmqpSequence, kAmqpValue };

class MessageView {
 public:
  MessageView() = default;
  // A view over `message`, which must outlive the view and every value read from it.
  explicit MessageView(std::span<const uint8_t> message) { Reset(message); }

  // Points the view at another message, forgetting everything located so far. Never allocates.
  void Reset(std::span<const uint8_t> message);

  std::span<const uint8_t> bytes() const { return {begin_, static_cast<size_t>(end_ - begin_)}; }

  // The first problem met so far by any read through this view (ok() if none). A read that meets a
  // problem returns kMissing / false; reads of other sections go on working where they can.
  const DecodeError& error() const { return error_; }

  // ---- Sections ----
  // True and *value set to the section's value (its descriptor dropped) when the message has that
  // section; for data and amqp-sequence, the first one.
  bool FindSection(SectionKind kind, EncodedValue* value) const;
  bool HasSection(SectionKind kind) const;
  // The first byte of the section's value (its constructor, after the descriptor) when the message
  // has that section, else nullptr; the value itself is not read or checked (the first occurrence,
  // as FindSection). The bytes from there up to bytes().end() are the caller's to bound-check: for
  // readers that parse the common encodings in place and take FindSection for the rest.
  const uint8_t* SectionValue(SectionKind kind) const {
    return Located(kind) || Locate(kind) ? sections_[static_cast<int>(kind)] : nullptr;
  }

  // ---- Header (core part 3, section 3.2.1) ----
  // The field's value, or its AMQP default when the header or the field is absent or null (durable
  // false, priority 4, first-acquirer false, delivery-count 0; ttl has none: kMissing). kMissing also
  // when the header is malformed or the field has the wrong type.
  amqp::Value Header(HeaderField field) const;
  bool durable() const;
  uint8_t priority() const;
  // False when the message has no ttl.
  bool ttl(uint32_t* milliseconds) const;
  bool first_acquirer() const;
  uint32_t delivery_count() const;

  // ---- Properties (core part 3, section 3.2.4) ----
  // The field's value; kMissing when absent (no properties, a list too short, or null), malformed or
  // of the wrong type.
  amqp::Value Property(PropertiesField field) const;

  // ---- Application properties (core part 3, section 3.2.5) ----
  // The value under string key `key` (a symbol key is matched too); kMissing when absent. Compound
  // values (not allowed by the spec, but readable) come back as kList/kMap/kArray.
  amqp::Value ApplicationProperty(std::string_view key) const;
  bool FindApplicationProperty(std::string_view key, EncodedValue* value) const;

  // ---- Annotations and footer (core part 3, sections 3.2.2, 3.2.3, 3.2.10) ----
  // The value under symbol key `key`, or under the ulong key whose decimal text is `key`.
  amqp::Value MessageAnnotation(std::string_view key) const;
  amqp::Value DeliveryAnnotation(std::string_view key) const;
  amqp::Value FooterEntry(std::string_view key) const;
  // The value under ulong key `key`.
  amqp::Value MessageAnnotation(uint64_t key) const;
  amqp::Value DeliveryAnnotation(uint64_t key) const;
  amqp::Value FooterEntry(uint64_t key) const;
  // Same, for any map section (delivery/message annotations, application properties, footer), as an
  // EncodedValue to descend into.
  bool FindMapEntry(SectionKind map_section, std::string_view key, EncodedValue* value) const;
  bool FindMapEntry(SectionKind map_section, uint64_t key, EncodedValue* value) const;

  // ---- Body (core part 3, sections 3.2.6 - 3.2.8) ----
  // The kind of the first body section; kNone without one.
  BodyKind body_kind() const;
  // How many body sections of that kind follow one another (data and amqp-sequence may repeat).
  uint32_t body_section_count() const;
  // The i-th body section's value: binary for data, list for amqp-sequence, any for amqp-value.
  bool BodySection(uint32_t index, EncodedValue* value) const;
  // The content of the first data section (empty when there is none).
  std::span<const uint8_t> data() const;
  // The encoded bytes of all body sections, descriptors included ([first body start, last body end)).
  std::span<const uint8_t> body_bytes() const;

 private:
  // Locates the next top-level section; false when there is none or it is malformed (error_ set).
  bool ScanOne() const;
  // ScanOne() for anything but the 0x00 0x53 0x7N encoding with a plain section value.
  bool ScanOneSlow() const;
  // Records where section `kind` starts (value: after its descriptor) and ends (next).
  void Note(SectionKind kind, const uint8_t* value, const uint8_t* next) const;
  // Locates sections until one of `kind` is found or there are none left.
  bool Locate(SectionKind kind) const;
  // The section's value when present and of its spec type (else false; a wrong type sets error_).
  bool TypedSection(SectionKind kind, EncodedValue* value) const;
  amqp::Value MapValue(SectionKind kind, std::string_view key) const;
  amqp::Value MapValue(SectionKind kind, uint64_t key) const;
  void Fail(const DecodeError& error) const;
  bool Located(SectionKind kind) const { return (located_ >> static_cast<int>(kind)) & 1u; }

  const uint8_t* begin_ = nullptr;
  const uint8_t* end_ = nullptr;
  // Sections located so far: the first byte of each section's value, after its descriptor (parsed
  // only when a field of it is read). Meaningful only where located_ has the bit, so Reset() need not
  // clear them. For data and amqp-sequence, the first one.
  mutable const uint8_t* sections_[kSectionKindCount] = {};
  mutable uint32_t located_ = 0;           // bit k: sections_[k] is section k of this message
  mutable const uint8_t* scan_ = nullptr;  // next top-level byte not yet looked at
  mutable bool scan_done_ = false;         // every section located, or the scan met an error
  mutable bool scan_failed_ = false;       // the scan stopped at a malformed section
  mutable bool failed_ = false;            // error_ holds a problem (so Reset() must clear it)
  mutable uint32_t sections_seen_ = 0;     // top-level sections located so far
  mutable uint32_t body_count_ = 0;        // body sections of body_kind_ in a row
  // Meaningful only while body_count_ > 0, so Reset() need not clear them.
  mutable SectionKind body_kind_ = SectionKind::kData;
  mutable const uint8_t* body_begin_ = nullptr;
  mutable const uint8_t* body_end_ = nullptr;
  mutable DecodeError error_;
};

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_MESSAGE_VIEW_H_
