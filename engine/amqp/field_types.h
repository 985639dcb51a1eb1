// The types the spec gives each header and properties field (core part 3, sections 3.2.1, 3.2.4),
// and the type each section's value must have: shared by MessageView (which reads a field of the wrong
// type as missing) and Validate (which rejects it), so the two always agree. Internal to engine/amqp.
#ifndef SIFT_ENGINE_AMQP_FIELD_TYPES_H_
#define SIFT_ENGINE_AMQP_FIELD_TYPES_H_

#include "engine/amqp/encoded_value.h"
#include "engine/amqp/type_codes.h"

namespace sift::amqp {

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

// "header", ... as a static C string.
const char* SectionLabel(SectionKind kind);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_FIELD_TYPES_H_
