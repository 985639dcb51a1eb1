// Private to amqp: one typed JSON value (docs/typed-json.md, "Values") into one Proton
// pn_data_t node. typed_json.cc builds whole messages from these; the other direction, bytes to typed
// JSON text, is typed_json_writer.cc, which follows the same rules without Proton. Both take the type
// vocabulary (the wrapper type names, the plain kinds, the hints) from typed_json_types.h. Three files
// hold what is declared here: json_proton_types.cc (the edge between Proton's types and ValueType),
// json_text_codecs.cc (the text forms of binary and uuid values) and json_to_amqp.cc (the values).
//
// Plain JSON maps naturally (string -> string, integer -> long, other number -> double, boolean, null,
// object -> map with string keys, array -> list); every other type is a wrapper
// {"type": T, "value": V, ...}. A PlainHint changes which AMQP type a *plain* JSON scalar means at one
// place (header.priority: an integer is a ubyte).
//
// An object is read as a wrapper iff it has a string "type", a "value" and no keys but those
// ("encoding", "element", "descriptor"); an unknown type name is then an error. Any other object is a
// map. Conversely a string-keyed map whose object form has that shape is written in the
// {"type": "map"} form. At the top of a section map only {"type": "map", ...} counts as a wrapper.
#ifndef SIFT_ENGINE_AMQP_JSON_VALUE_H_
#define SIFT_ENGINE_AMQP_JSON_VALUE_H_

#include <proton/codec.h>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "base/amqp_value.h"
#include "amqp/limits.h"
#include "amqp/typed_json_types.h"

namespace sift::amqp {

// Objects keep their key order: AMQP maps are ordered, and the order is part of the encoding.
using Json = nlohmann::ordered_json;

// The Proton edge of the type vocabulary: the ValueType of a pn_type_t (kMissing for PN_INVALID), and
// back.
ValueType ValueTypeOfProton(pn_type_t type);
pn_type_t ProtonTypeOf(ValueType type);
// The wrapper type name (TypedJsonTypeName) of a type Proton reports, for errors about its values.
std::string_view JsonTypeName(pn_type_t type);

// Appends `json` at data's current position. `path` names the place for errors ("properties.to",
// "body.value[2]"); it is used as scratch and restored. On error returns false with
// *error = "<path>: <reason>".
bool PutJson(const Json& json, const PlainHint& hint, std::string& path, pn_data_t* data, std::string* error);

// As PutJson, for a descriptor: a plain string is a symbol, a plain integer a ulong.
bool PutJsonDescriptor(const Json& json, std::string& path, pn_data_t* data, std::string* error);

// Section-level maps. Annotations (delivery-, message-annotations, footer; core 3.2.10) are objects
// keyed by the symbol text, a ulong key as its decimal text; on input an all-digit key is a ulong.
// Application properties are objects keyed by the string. A map these objects cannot say exactly
// (other key types, duplicates, an all-digit symbol key, a shape that reads as a wrapper) is written
// and read in the {"type": "map", "value": [[k, v], ...]} form instead.
enum class MapKeys { kAnnotations, kStrings };
bool PutSectionMap(const Json& json, MapKeys keys, std::string& path, pn_data_t* data, std::string* error);

// Decodes base64 by base/base64.h's reading rule (either alphabet, padding optional, no whitespace)
// or, when `hex`, pairs of hex digits.
bool DecodeBinaryText(std::string_view text, bool hex, std::string* out, std::string* why);
// Reads a uuid's text form, 8-4-4-4-12 hex digits; false when `text` is not one.
bool ParseUuid(std::string_view text, pn_uuid_t* uuid);

// A typed JSON scalar standing alone (a property filter's reference value): the same value forms and
// codec rules as everywhere (docs/typed-json.md, "Values"), with these differences of shape.
struct JsonScalarOptions {
  // A plain integer above the long range is a ulong, its only exact AMQP type (elsewhere an error).
  bool ulong_above_long = false;
};

// Appends at data's current position the one scalar `json` says: a plain string, integer, number,
// boolean or null (with their natural types), or a wrapper of a scalar type. A single value is
// required: an array, a list / map / array / described wrapper, and any object that is not a wrapper
// (there are no plain maps here) are errors. On error returns false with *error = "<path>: <reason>"
// ("<reason>" alone when `path` is empty).
bool PutJsonScalar(const Json& json, const JsonScalarOptions& options, std::string& path, pn_data_t* data,
                   std::string* error);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_JSON_VALUE_H_
