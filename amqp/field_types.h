// The format codes the types the spec gives each header and properties field may have (the types are
// base/amqp_fields.h's; core part 3, sections 3.2.1, 3.2.4), and the type each section's value must
// have: shared by MessageView (which reads a field of the wrong type as missing) and Validate (which
// rejects it), so the two always agree. Internal to amqp.
#ifndef SIFT_ENGINE_AMQP_FIELD_TYPES_H_
#define SIFT_ENGINE_AMQP_FIELD_TYPES_H_

#include "base/amqp_fields.h"
#include "amqp/encoded_value.h"
#include "amqp/type_codes.h"

namespace sift::amqp {

namespace internal {
constexpr bool IsBooleanCode(uint8_t c) { return c == code::kTrue || c == code::kFalse || c == code::kBoolean; }
constexpr bool IsUIntCode(uint8_t c) { return c == code::kUInt || c == code::kSmallUInt || c == code::kUInt0; }
constexpr bool IsULongCode(uint8_t c) { return c == code::kULong || c == code::kSmallULong || c == code::kULong0; }
constexpr bool IsStringCode(uint8_t c) { return c == code::kStr8 || c == code::kStr32; }
constexpr bool IsSymbolCode(uint8_t c) { return c == code::kSym8 || c == code::kSym32; }
constexpr bool IsBinaryCode(uint8_t c) { return c == code::kVbin8 || c == code::kVbin32; }
constexpr bool IsListCode(uint8_t c) { return c == code::kList0 || c == code::kList8 || c == code::kList32; }
constexpr bool IsMapCode(uint8_t c) { return c == code::kMap8 || c == code::kMap32; }
// message-id and correlation-id (core part 3, section 3.2.11 - 3.2.15).
constexpr bool IsMessageIdCode(uint8_t c) {
  return IsULongCode(c) || c == code::kUuid || IsBinaryCode(c) || IsStringCode(c);
}
}  // namespace internal

// The format codes a plain (not described) value of a field's spec type (base/amqp_fields.h) may
// have: constexpr, so that the validator can fold the rules into tables indexed by format code.
constexpr bool FieldTypeCodeOk(amqp::FieldType type, uint8_t c) {
  switch (type) {
    case FieldType::kBoolean: return internal::IsBooleanCode(c);
    case FieldType::kUByte: return c == code::kUByte;
    case FieldType::kUInt: return internal::IsUIntCode(c);
    case FieldType::kMessageId: return internal::IsMessageIdCode(c);
    case FieldType::kBinary: return internal::IsBinaryCode(c);
    case FieldType::kString: return internal::IsStringCode(c);
    case FieldType::kSymbol: return internal::IsSymbolCode(c);
    case FieldType::kTimestamp: return c == code::kTimestamp;
  }
  return false;
}
constexpr bool HeaderFieldCodeOk(int index, uint8_t c) {
  return index >= 0 && index < amqp::kHeaderFieldCount && FieldTypeCodeOk(amqp::kHeaderFields[index].type, c);
}
constexpr bool PropertiesFieldCodeOk(int index, uint8_t c) {
  return index >= 0 && index < amqp::kPropertiesFieldCount && FieldTypeCodeOk(amqp::kPropertiesFields[index].type, c);
}
constexpr bool SectionValueCodeOk(SectionKind kind, uint8_t c) {
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties:
    case SectionKind::kAmqpSequence: return internal::IsListCode(c);
    case SectionKind::kDeliveryAnnotations:
    case SectionKind::kMessageAnnotations:
    case SectionKind::kApplicationProperties:
    case SectionKind::kFooter: return internal::IsMapCode(c);
    case SectionKind::kData: return internal::IsBinaryCode(c);
    case SectionKind::kAmqpValue: return true;
  }
  return false;
}

// What header field `index` (0..4) reads as when the header, or the field, is absent or null (core
// part 3, section 3.2.1): durable and first-acquirer false, priority 4, delivery-count 0; ttl has no
// default (kMissing).
inline amqp::Value HeaderFieldDefault(int index) {
  switch (static_cast<HeaderField>(index)) {
    case HeaderField::kDurable:
    case HeaderField::kFirstAcquirer: return amqp::Value::Boolean(false);
    case HeaderField::kPriority: return amqp::Value::Unsigned(amqp::ValueType::kUByte, 4);
    case HeaderField::kDeliveryCount: return amqp::Value::Unsigned(amqp::ValueType::kUInt, 0);
    default: return amqp::Value::Missing();
  }
}

// True when `value` (not null: null means absent) may be header field `index` (0..4).
bool HeaderFieldTypeOk(int index, const EncodedValue& value);
// True when `value` (not null) may be properties field `index` (0..12).
bool PropertiesFieldTypeOk(int index, const EncodedValue& value);
// "boolean", "ubyte", "ulong, uuid, binary or string", ...: what field `index` must be.
const char* HeaderFieldExpected(int index);
const char* PropertiesFieldExpected(int index);
// "header field durable", ...: static text naming the field in errors.
const char* HeaderFieldLabel(int index);
const char* PropertiesFieldLabel(int index);

// True when a section's value (descriptor dropped) has the type its section requires: a list for
// header, properties and amqp-sequence, a map for annotations, application-properties and footer,
// binary for data, anything for amqp-value.
bool SectionValueTypeOk(SectionKind kind, const EncodedValue& value);
const char* SectionValueExpected(SectionKind kind);
// The section a described top-level value is, from its descriptor (smallulong, ulong or symbol);
// false for anything else. Defined in message_view.cc.
bool SectionOfDescriptor(const EncodedValue& value, SectionKind* kind);

// "header", ... (the section's name) as a static C string.
const char* SectionLabel(SectionKind kind);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_FIELD_TYPES_H_
