// Spec types of header / properties fields and of section values (field_types.h).
#include "amqp/field_types.h"

#include <string_view>

namespace sift::amqp {
namespace {

// "header field durable", ...: the labels errors name fields by, made at compile time from the
// names in base/amqp_fields.h, NUL-terminated (DecodeError keeps a static C string).
template <int N>
struct FieldLabels {
  static constexpr size_t kMaxLength = 48;
  char text[N][kMaxLength] = {};

  explicit constexpr FieldLabels(const FieldInfo (&fields)[N]) {
    for (int i = 0; i < N; ++i) {
      size_t n = 0;
      for (std::string_view part :
           {amqp::SectionName(fields[i].section), std::string_view(" field "), fields[i].name}) {
        for (char c : part) text[i][n++] = c;
      }
    }
  }
};
constexpr FieldLabels kHeaderLabels(amqp::kHeaderFields);
constexpr FieldLabels kPropertiesLabels(amqp::kPropertiesFields);

// "a boolean", ...: what a field of the type must be, for errors.
const char* Expected(FieldType type) {
  switch (type) {
    case FieldType::kBoolean: return "a boolean";
    case FieldType::kUByte: return "a ubyte";
    case FieldType::kUInt: return "a uint";
    case FieldType::kMessageId: return "a ulong, uuid, binary or string";
    case FieldType::kBinary: return "a binary";
    case FieldType::kString: return "a string";
    case FieldType::kSymbol: return "a symbol";
    case FieldType::kTimestamp: return "a timestamp";
  }
  return "its spec type";
}

}  // namespace

bool HeaderFieldTypeOk(int index, const EncodedValue& value) {
  return !value.is_described() && HeaderFieldCodeOk(index, value.format_code());
}

bool PropertiesFieldTypeOk(int index, const EncodedValue& value) {
  return !value.is_described() && PropertiesFieldCodeOk(index, value.format_code());
}

const char* HeaderFieldExpected(int index) { return Expected(amqp::kHeaderFields[index].type); }
const char* PropertiesFieldExpected(int index) { return Expected(amqp::kPropertiesFields[index].type); }
const char* HeaderFieldLabel(int index) { return kHeaderLabels.text[index]; }
const char* PropertiesFieldLabel(int index) { return kPropertiesLabels.text[index]; }

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

// The table's names are string literals, so data() is NUL-terminated (base/amqp_fields.h).
const char* SectionLabel(SectionKind kind) { return SectionName(kind).data(); }

}  // namespace sift::amqp
