// Private to amqp: splits one encoded message into its sections with Proton's decoder
// (pn_data_t), checking the message structure of core part 3, section 3.2. Shared by the full decode
// into pn_message_t (proton_message.cc) and the typed JSON writer (typed_json.cc), and used by tests as
// the reference ("what Proton decodes") that MessageView is compared with.
//
// Invariants of a successful Split: every section is a described value whose descriptor is one of the
// nine section codes, as a ulong (0x70..0x78) or as its symbol; sections come in spec order
// (header, delivery-annotations, message-annotations, properties, application-properties, body,
// footer), each non-body section at most once, the body is one or more data sections, or one or more
// amqp-sequence sections, or one amqp-value section; each section's value has the section's type
// (list, map, binary). The values are owned by the ProtonSections object.
#ifndef SIFT_ENGINE_AMQP_PROTON_SECTIONS_H_
#define SIFT_ENGINE_AMQP_PROTON_SECTIONS_H_

#include <proton/codec.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/amqp_fields.h"

namespace sift::amqp {

// Section kinds in spec order (core part 3, section 3.2); the value is the ulong descriptor's low byte
// (the descriptor code of base/amqp_fields.h).
enum class ProtonSectionKind : uint8_t {
  kHeader = amqp::SectionDescriptor(amqp::Section::kHeader),
  kDeliveryAnnotations = amqp::SectionDescriptor(amqp::Section::kDeliveryAnnotations),
  kMessageAnnotations = amqp::SectionDescriptor(amqp::Section::kMessageAnnotations),
  kProperties = amqp::SectionDescriptor(amqp::Section::kProperties),
  kApplicationProperties = amqp::SectionDescriptor(amqp::Section::kApplicationProperties),
  kData = amqp::SectionDescriptor(amqp::Section::kData),
  kAmqpSequence = amqp::SectionDescriptor(amqp::Section::kAmqpSequence),
  kAmqpValue = amqp::SectionDescriptor(amqp::Section::kAmqpValue),
  kFooter = amqp::SectionDescriptor(amqp::Section::kFooter),
};

// The spec's name of a section ("header", "application-properties", "amqp-value", ...).
std::string_view ProtonSectionName(ProtonSectionKind kind);

struct ProtonSection {
  ProtonSectionKind kind;
  size_t offset = 0;          // byte offset of the section's first byte in the message
  size_t size = 0;            // encoded size of the section, descriptor included
  bool symbolic = false;      // the descriptor was the symbol rather than the ulong
  pn_data_t* data = nullptr;  // owned by ProtonSections; holds the whole described section

  // Positions `data` on the section's value (inside the described node, after the descriptor) and
  // returns it. Calling it again rewinds; pn_data_next at that level then finds nothing more.
  pn_data_t* Value() const;
};

class ProtonSections {
 public:
  ProtonSections() = default;
  ~ProtonSections();
  ProtonSections(const ProtonSections&) = delete;
  ProtonSections& operator=(const ProtonSections&) = delete;

  // Decodes `bytes` into sections. On error returns false and sets *error to "byte N: reason".
  // Replaces whatever the object held.
  bool Split(std::span<const uint8_t> bytes, std::string* error);

  const std::vector<ProtonSection>& sections() const { return sections_; }
  // The first section of `kind`, or nullptr.
  const ProtonSection* Find(ProtonSectionKind kind) const;

 private:
  void Clear();
  std::vector<ProtonSection> sections_;
};

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_PROTON_SECTIONS_H_
