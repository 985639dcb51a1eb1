// Spec types of header / properties fields and of section values (field_types.h).
#include "engine/amqp/field_types.h"

namespace sift::amqp {
namespace {

bool IsBoolean(uint8_t c) { return c == code::kTrue || c == code::kFalse || c == code::kBoolean; }
bool IsUInt(uint8_t c) { return c == code::kUInt || c == code::kSmallUInt || c == code::kUInt0; }
bool IsULong(uint8_t c) { return c == code::kULong || c == code::kSmallULong || c == code::kULong0; }
bool IsString(uint8_t c) { return c == code::kStr8 || c == code::kStr32; }
bool IsSymbol(uint8_t c) { return c == code::kSym8 || c == code::kSym32; }
bool IsBinary(uint8_t c) { return c == code::kVbin8 || c == code::kVbin32; }
// message-id and correlation-id (core part 3, section 3.2.11 - 3.2.15).
bool IsMessageId(uint8_t c) { return IsULong(c) || c == code::kUuid || IsBinary(c) || IsString(c); }

constexpr const char* kHeaderLabels[] = {"header field durable", "header field priority",
                                         "header field ttl", "header field first-acquirer",
                                         "header field delivery-count"};
constexpr const char* kHeaderExpected[] = {"a boolean", "a ubyte", "a uint", "a boolean", "a uint"};
constexpr const char* kPropertiesLabels[] = {
    "properties field message-id",     "properties field user-id",
    "properties field to",             "properties field subject",
    "properties field reply-to",       "properties field correlation-id",
    "properties field content-type",   "properties field content-encoding",
    "properties field absolute-expiry-time", "properties field creation-time",
    "properties field group-id",       "properties field group-sequence",
    "properties field reply-to-group-id"};
constexpr const char* kMessageIdExpected = "a ulong, uuid, binary or string";
constexpr const char* kPropertiesExpected[] = {
    kMessageIdExpected, "a binary", "a string", "a string", "a string", kMessageIdExpected,
    "a symbol", "a symbol", "a timestamp", "a timestamp", "a string", "a uint", "a string"};
constexpr const char* kSectionLabels[] = {
    "header", "delivery-annotations", "message-annotations", "properties",
    "application-properties", "data", "amqp-sequence", "amqp-value", "footer"};

}  // namespace

bool HeaderFieldTypeOk(int index, const EncodedValue& value) {
  if (value.is_described()) return false;
  const uint8_t c = value.format_code();
  switch (index) {
    case 0: return IsBoolean(c);
    case 1: return c == code::kUByte;
    case 2: return IsUInt(c);
    case 3: return IsBoolean(c);
    case 4: return IsUInt(c);
    default: return false;
  }
}

bool PropertiesFieldTypeOk(int index, const EncodedValue& value) {
  if (value.is_described()) return false;
  const uint8_t c = value.format_code();
  switch (index) {
    case 0:
    case 5: return IsMessageId(c);
    case 1: return IsBinary(c);
    case 2:
    case 3:
    case 4:
    case 10:
    case 12: return IsString(c);
    case 6:
    case 7: return IsSymbol(c);
    case 8:
    case 9: return c == code::kTimestamp;
    case 11: return IsUInt(c);
    default: return false;
  }
}

const char* HeaderFieldExpected(int index) { return kHeaderExpected[index]; }
const char* PropertiesFieldExpected(int index) { return kPropertiesExpected[index]; }
const char* HeaderFieldLabel(int index) { return kHeaderLabels[index]; }
const char* PropertiesFieldLabel(int index) { return kPropertiesLabels[index]; }

bool SectionValueTypeOk(SectionKind kind, const EncodedValue& value) {
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties:
    case SectionKind::kAmqpSequence: return !value.is_described() && value.is_list();
    case SectionKind::kDeliveryAnnotations:
    case SectionKind::kMessageAnnotations:
    case SectionKind::kApplicationProperties:
    case SectionKind::kFooter: return !value.is_described() && value.is_map();
    case SectionKind::kData: return !value.is_described() && IsBinary(value.format_code());
    case SectionKind::kAmqpValue: return true;
  }
  return false;
}

const char* SectionValueExpected(SectionKind kind) {
  switch (kind) {
    case SectionKind::kHeader:
    case SectionKind::kProperties:
    case SectionKind::kAmqpSequence: return "a list";
    case SectionKind::kData: return "a binary";
    case SectionKind::kAmqpValue: return "a value";
    default: return "a map";
  }
}

const char* SectionLabel(SectionKind kind) { return kSectionLabels[static_cast<int>(kind)]; }

}  // namespace sift::amqp
