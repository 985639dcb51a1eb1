// Name resolution for the parser (parser_names.h).
#include "selector/parser_names.h"

namespace sift::selector {
namespace {

using amqp::HeaderField;
using amqp::Info;
using amqp::PropertiesField;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

constexpr FunctionEntry kFunctions[] = {
    {"UTC", Function::kUtc, 0, 0},     {"LOWER", Function::kLower, 1, 1},
    {"UPPER", Function::kUpper, 1, 1}, {"LEFT", Function::kLeft, 2, 2},
    {"RIGHT", Function::kRight, 2, 2}, {"SUBSTRING", Function::kSubstring, 2, 3},
    {"DATE", Function::kDate, 1, 1},   {"REGEXP_LIKE", Function::kRegexpLike, 2, 3},
};

constexpr JmsMapping kJmsMappings[] = {
    {"JMSMessageID", Info(PropertiesField::kMessageId), Function::kJmsMessageId},
    {"JMSCorrelationID", Info(PropertiesField::kCorrelationId), Function::kJmsCorrelationId},
    {"JMSPriority", Info(HeaderField::kPriority), Function::kNone},
    {"JMSTimestamp", Info(PropertiesField::kCreationTime), Function::kJmsTime},
    {"JMSExpiration", Info(PropertiesField::kAbsoluteExpiryTime), Function::kJmsTime},
    {"JMSDeliveryMode", Info(HeaderField::kDurable), Function::kJmsDeliveryMode},
    {"JMSType", Info(PropertiesField::kSubject), Function::kNone},
    {"JMSDestination", Info(PropertiesField::kTo), Function::kNone},
    {"JMSReplyTo", Info(PropertiesField::kReplyTo), Function::kNone},
    {"JMSRedelivered", Info(HeaderField::kDeliveryCount), Function::kJmsRedelivered},
    {"JMSXGroupID", Info(PropertiesField::kGroupId), Function::kNone},
    {"JMSXGroupSeq", Info(PropertiesField::kGroupSequence), Function::kNone},
    {"JMSXDeliveryCount", Info(HeaderField::kDeliveryCount), Function::kNone},
    {"JMSXUserID", Info(PropertiesField::kUserId), Function::kJmsUserId},
};

}  // namespace

bool LookupSection(std::string_view name, Section* section) {
  struct Entry {
    const char* short_name;
    Section section;
  };
  static constexpr Entry kSections[] = {
      {"h", Section::kHeader},     {"d", Section::kDeliveryAnnotations},   {"m", Section::kMessageAnnotations},
      {"p", Section::kProperties}, {"a", Section::kApplicationProperties}, {"f", Section::kFooter},
  };
  for (const Entry& e : kSections) {
    if (EqualsIgnoreCase(name, SectionIdentifier(e.section)) || EqualsIgnoreCase(name, e.short_name)) {
      *section = e.section;
      return true;
    }
  }
  return false;
}

bool ResolveSpecFieldName(Section section, std::string_view written, std::string* spec, std::string* known) {
  spec->clear();
  for (char c : written) {
    if (c == '_') c = '-';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    *spec += c;
  }
  if (amqp::FindField(section, *spec) != nullptr) return true;
  known->clear();
  for (const amqp::FieldInfo& f : amqp::FieldsOf(section)) {
    if (!known->empty()) *known += ", ";
    *known += f.identifier;
  }
  return false;
}

const FunctionEntry* LookupFunction(std::string_view name) {
  const FunctionEntry* entry = nullptr;
  for (const FunctionEntry& f : kFunctions) {
    if (EqualsIgnoreCase(name, f.name)) entry = &f;
  }
  return entry;
}

const JmsMapping* LookupJmsHeader(std::string_view name) {
  const JmsMapping* m = nullptr;
  for (const JmsMapping& candidate : kJmsMappings) {
    if (name == candidate.jms) m = &candidate;
  }
  return m;
}

}  // namespace sift::selector
