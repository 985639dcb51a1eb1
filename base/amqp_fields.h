// The names of an AMQP 1.0 message's sections and of the fields of its header and properties
// sections (core part 3, section 3.2): the one table every layer spells them from.
//
// A section has its ulong descriptor code (0x70 header .. 0x78 footer, domain 0x00000000), its
// name ("delivery-annotations"), its symbolic descriptor ("amqp:delivery-annotations:map") and its
// identifier (the name with '_' for '-': "delivery_annotations", the spelling of typed JSON keys and
// of the selector language). A header or properties field has its name ("first-acquirer"), its
// identifier ("first_acquirer"), its section, its index in the section's list and the type the spec
// gives it. Names and numbers only: how the values are encoded is amqp's business, and the
// selector uses the names without knowing any bytes.
//
// Every text here is a string literal, so a std::string_view's data() is NUL-terminated.
#ifndef SIFT_BASE_AMQP_FIELDS_H_
#define SIFT_BASE_AMQP_FIELDS_H_

#include <cstdint>
#include <span>
#include <string_view>

namespace sift::amqp {

// ---- Sections (core part 3, section 3.2) ----

// The nine sections, in the order the spec requires them; the enumerator is the section's index in
// kSections and its descriptor code minus kFirstSectionDescriptor.
enum class Section : uint8_t {
  kHeader,
  kDeliveryAnnotations,
  kMessageAnnotations,
  kProperties,
  kApplicationProperties,
  kData,
  kAmqpSequence,
  kAmqpValue,
  kFooter,
};
inline constexpr int kSectionCount = 9;
inline constexpr uint64_t kFirstSectionDescriptor = 0x70;

struct SectionInfo {
  Section section;
  uint64_t descriptor;          // the ulong descriptor code
  std::string_view name;        // the spec's name
  std::string_view identifier;  // the name with '_' for '-'
  std::string_view symbol;      // the symbolic descriptor
};

inline constexpr SectionInfo kSections[kSectionCount] = {
    {Section::kHeader, 0x70, "header", "header", "amqp:header:list"},
    {Section::kDeliveryAnnotations, 0x71, "delivery-annotations", "delivery_annotations",
     "amqp:delivery-annotations:map"},
    {Section::kMessageAnnotations, 0x72, "message-annotations", "message_annotations", "amqp:message-annotations:map"},
    {Section::kProperties, 0x73, "properties", "properties", "amqp:properties:list"},
    {Section::kApplicationProperties, 0x74, "application-properties", "application_properties",
     "amqp:application-properties:map"},
    {Section::kData, 0x75, "data", "data", "amqp:data:binary"},
    {Section::kAmqpSequence, 0x76, "amqp-sequence", "amqp_sequence", "amqp:amqp-sequence:list"},
    {Section::kAmqpValue, 0x77, "amqp-value", "amqp_value", "amqp:amqp-value:*"},
    {Section::kFooter, 0x78, "footer", "footer", "amqp:footer:map"},
};

constexpr const SectionInfo& Info(Section section) { return kSections[static_cast<int>(section)]; }
// "header", "delivery-annotations", ..., "footer".
constexpr std::string_view SectionName(Section section) { return Info(section).name; }
// "amqp:header:list", ...
constexpr std::string_view SectionSymbol(Section section) { return Info(section).symbol; }
// 0x70, ..., 0x78.
constexpr uint64_t SectionDescriptor(Section section) { return Info(section).descriptor; }

// The section a ulong descriptor code (0x70..0x78) names; false for anything else. On the hot path
// of every section read: one subtraction and one compare.
constexpr bool SectionFromDescriptorCode(uint64_t descriptor, Section* out) {
  if (descriptor - kFirstSectionDescriptor >= static_cast<uint64_t>(kSectionCount)) return false;
  *out = static_cast<Section>(descriptor - kFirstSectionDescriptor);
  return true;
}
// The section a symbolic descriptor ("amqp:header:list", ...) names; false for anything else.
constexpr bool SectionFromDescriptorSymbol(std::string_view descriptor, Section* out) {
  for (const SectionInfo& s : kSections) {
    if (s.symbol == descriptor) {
      *out = s.section;
      return true;
    }
  }
  return false;
}

// ---- Header and properties fields (core part 3, sections 3.2.1, 3.2.4) ----

// The types the spec gives the fields: the primitive types, and message-id (core part 3, sections
// 3.2.11 - 3.2.15: a ulong, uuid, binary or string), which message-id and correlation-id take.
enum class FieldType : uint8_t { kBoolean, kUByte, kUInt, kMessageId, kBinary, kString, kSymbol, kTimestamp };

// Fields of the header section, in list order.
enum class HeaderField : uint8_t { kDurable, kPriority, kTtl, kFirstAcquirer, kDeliveryCount };
inline constexpr int kHeaderFieldCount = 5;

// Fields of the properties section, in list order.
enum class PropertiesField : uint8_t {
  kMessageId,
  kUserId,
  kTo,
  kSubject,
  kReplyTo,
  kCorrelationId,
  kContentType,
  kContentEncoding,
  kAbsoluteExpiryTime,
  kCreationTime,
  kGroupId,
  kGroupSequence,
  kReplyToGroupId,
};
inline constexpr int kPropertiesFieldCount = 13;

struct FieldInfo {
  std::string_view name;        // the spec's name
  std::string_view identifier;  // the name with '_' for '-'
  Section section;              // kHeader or kProperties
  uint8_t index;                // the field's position in its section's list
  FieldType type;

  constexpr FieldInfo(std::string_view n, std::string_view id, HeaderField f, FieldType t)
      : name(n), identifier(id), section(Section::kHeader), index(static_cast<uint8_t>(f)), type(t) {}
  constexpr FieldInfo(std::string_view n, std::string_view id, PropertiesField f, FieldType t)
      : name(n), identifier(id), section(Section::kProperties), index(static_cast<uint8_t>(f)), type(t) {}
};

inline constexpr FieldInfo kHeaderFields[kHeaderFieldCount] = {
    {"durable", "durable", HeaderField::kDurable, FieldType::kBoolean},
    {"priority", "priority", HeaderField::kPriority, FieldType::kUByte},
    {"ttl", "ttl", HeaderField::kTtl, FieldType::kUInt},  // milliseconds
    {"first-acquirer", "first_acquirer", HeaderField::kFirstAcquirer, FieldType::kBoolean},
    {"delivery-count", "delivery_count", HeaderField::kDeliveryCount, FieldType::kUInt},
};

inline constexpr FieldInfo kPropertiesFields[kPropertiesFieldCount] = {
    {"message-id", "message_id", PropertiesField::kMessageId, FieldType::kMessageId},
    {"user-id", "user_id", PropertiesField::kUserId, FieldType::kBinary},
    {"to", "to", PropertiesField::kTo, FieldType::kString},  // address-string
    {"subject", "subject", PropertiesField::kSubject, FieldType::kString},
    {"reply-to", "reply_to", PropertiesField::kReplyTo, FieldType::kString},  // address-string
    {"correlation-id", "correlation_id", PropertiesField::kCorrelationId, FieldType::kMessageId},
    {"content-type", "content_type", PropertiesField::kContentType, FieldType::kSymbol},
    {"content-encoding", "content_encoding", PropertiesField::kContentEncoding, FieldType::kSymbol},
    {"absolute-expiry-time", "absolute_expiry_time", PropertiesField::kAbsoluteExpiryTime, FieldType::kTimestamp},
    {"creation-time", "creation_time", PropertiesField::kCreationTime, FieldType::kTimestamp},
    {"group-id", "group_id", PropertiesField::kGroupId, FieldType::kString},
    {"group-sequence", "group_sequence", PropertiesField::kGroupSequence, FieldType::kUInt},  // sequence-no
    {"reply-to-group-id", "reply_to_group_id", PropertiesField::kReplyToGroupId, FieldType::kString},
};

constexpr const FieldInfo& Info(HeaderField field) { return kHeaderFields[static_cast<int>(field)]; }
constexpr const FieldInfo& Info(PropertiesField field) { return kPropertiesFields[static_cast<int>(field)]; }
// "delivery-count", "reply-to-group-id", ...
constexpr std::string_view HeaderFieldName(HeaderField field) { return Info(field).name; }
constexpr std::string_view PropertiesFieldName(PropertiesField field) { return Info(field).name; }

// The fields of `section`, in list order: empty for a section without named fields.
constexpr std::span<const FieldInfo> FieldsOf(Section section) {
  if (section == Section::kHeader) return kHeaderFields;
  if (section == Section::kProperties) return kPropertiesFields;
  return {};
}
// The field of `section` whose spec name is `name` (exactly: hyphens, lower case); nullptr if none.
constexpr const FieldInfo* FindField(Section section, std::string_view name) {
  for (const FieldInfo& f : FieldsOf(section)) {
    if (f.name == name) return &f;
  }
  return nullptr;
}
// Field by spec name; false for an unknown name.
constexpr bool HeaderFieldFromName(std::string_view name, HeaderField* out) {
  const FieldInfo* f = FindField(Section::kHeader, name);
  if (f != nullptr) *out = static_cast<HeaderField>(f->index);
  return f != nullptr;
}
constexpr bool PropertiesFieldFromName(std::string_view name, PropertiesField* out) {
  const FieldInfo* f = FindField(Section::kProperties, name);
  if (f != nullptr) *out = static_cast<PropertiesField>(f->index);
  return f != nullptr;
}

namespace internal {
// The table's own rules, checked at compile time: entries in enumerator order, descriptors in a row,
// every identifier the name with '_' for '-'.
constexpr bool IsIdentifierOf(std::string_view identifier, std::string_view name) {
  if (identifier.size() != name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (identifier[i] != (name[i] == '-' ? '_' : name[i])) return false;
  }
  return true;
}
constexpr bool TableIsConsistent() {
  for (int i = 0; i < kSectionCount; ++i) {
    const SectionInfo& s = kSections[i];
    if (static_cast<int>(s.section) != i || s.descriptor != kFirstSectionDescriptor + static_cast<uint64_t>(i) ||
        !IsIdentifierOf(s.identifier, s.name)) {
      return false;
    }
  }
  for (Section section : {Section::kHeader, Section::kProperties}) {
    int i = 0;
    for (const FieldInfo& f : FieldsOf(section)) {
      if (f.section != section || f.index != i++ || !IsIdentifierOf(f.identifier, f.name)) return false;
    }
  }
  return true;
}
static_assert(TableIsConsistent());
}  // namespace internal

}  // namespace sift::amqp

#endif  // SIFT_BASE_AMQP_FIELDS_H_
