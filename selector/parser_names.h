// Name resolution for the parser (parser.cc): what the names of the selector language refer to.
// Sections by identifier or one-letter short name, header and properties fields by the spec's names
// (base/amqp_fields.h), functions, and the JMS header names of the AMQP JMS mapping. Private to
// selector/.
#ifndef SIFT_SELECTOR_PARSER_NAMES_H_
#define SIFT_SELECTOR_PARSER_NAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/amqp_fields.h"
#include "selector/ast.h"
#include "selector/field_source.h"

namespace sift::selector {

// The section `name` (before a '.') names: its identifier (SectionIdentifier: "delivery_annotations") or
// its one-letter short name ("d"), in any case. False for anything else.
bool LookupSection(std::string_view name, Section* section);

// Header and properties fields are a fixed vocabulary: written with '_' for the spec's '-', matched
// case-insensitively, stored with the spec's name. True with *spec set to the spec's name of field
// `written` of `section` (kHeader or kProperties); false with *known set to the section's fields as
// they are written ("durable, priority, ttl, first_acquirer, delivery_count").
bool ResolveSpecFieldName(Section section, std::string_view written, std::string* spec, std::string* known);

struct FunctionEntry {
  const char* name;
  Function function;
  uint8_t min_args;
  uint8_t max_args;
};
// The function `name` names, in any case; nullptr for none.
const FunctionEntry* LookupFunction(std::string_view name);

// The AMQP JMS mapping (Qpid JMS / AMQP JMS Mapping draft): a JMS header name and the AMQP field
// it reads, through `function` (kNone: the field as it is).
struct JmsMapping {
  const char* jms;
  const amqp::FieldInfo& field;  // the AMQP field, from base/amqp_fields.h
  Function function;             // kNone: the field as it is
};
// The mapping of JMS header name `name` (exact case); nullptr for none.
const JmsMapping* LookupJmsHeader(std::string_view name);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_PARSER_NAMES_H_
