// Spec types of header / properties fields and of section values (field_types.h).
#include "engine/amqp/field_types.h"

namespace sift::amqp {
namespace {

constexpr const char* kHeaderLabels[] = {"header field durable", "header field priority", "header field ttl",
                                         "header field first-acquirer", "header field delivery-count"};
constexpr const char* kHeaderExpected[] = {"a boolean", "a ubyte", "a uint", "a boolean", "a uint"};
constexpr const char* kPropertiesLabels[] = {
    "properties field message-id",       "properties field user-id",          "properties field to",
    "properties field subject",          "properties field reply-to",         "properties field correlation-id",
    "properties field content-type",     "properties field content-encoding", "properties field absolute-expiry-time",
    "properties field creation-time",    "properties field group-id",         "properties field group-sequence",
    "properties field reply-to-group-id"};
constexpr const char* kMessageIdExpected = "a ulong, uuid, binary or string";
constexpr const char* kPropertiesExpected[] = {kMessageIdExpected, "a binary", "a string", "a string",    "a string",
                                               kMessageIdExpected, "a symbol", "a symbol", "a timestamp", "a timestamp",
                                               "a string",         "a uint",   "a string"};
constexpr const char* kSectionLabels[] = {
    "header", "delivery-annotations", "message-annotations", "properties", "application-properties",
    "data",   "amqp-sequence",        "amqp-value",          "footer"};

}  // namespace

bool HeaderFieldTypeOk(int index, const EncodedValue& value) {
  return !value.is_described() && HeaderFieldCodeOk(index, value.format_code());
}

bool PropertiesFieldTypeOk(int index, const EncodedValue& value) {
  return !value.is_described() && PropertiesFieldCodeOk(index, value.format_code());
}

const char* HeaderFieldExpected(int index) { return kHeaderExpected[index]; }
const char* PropertiesFieldExpected(int index) { return kPropertiesExpected[index]; }
const char* HeaderFieldLabel(int index) { return kHeaderLabels[index]; }
const char* PropertiesFieldLabel(int index) { return kPropertiesLabels[index]; }

bool SectionValueTypeOk(SectionKind kind, const EncodedValue& value) {
  if (kind == SectionKind::kAmqpValue) return true;
  return !value.is_described() && SectionValueCodeOk(kind, value.format_code());
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
