// The type vocabulary of typed JSON (docs/typed-json.md, "Values"), written once for both directions:
// the reader (typed_json.cc, json_to_amqp.cc) and the writer (typed_json_writer.cc). One row per
// AMQP type, keyed by ValueType, says
// - the name a wrapper gives the type ({"type": "ubyte", ...});
// - its plain kind: the JSON scalar its plain form is, which decides what a hint can make a plain value
//   mean and so when the writer may leave the wrapper out;
// - how a header or properties field of that spec type takes plain JSON.
// The reader meets Proton's pn_type_t only at its edge, where it becomes a ValueType (json_value.h).
#ifndef SIFT_ENGINE_AMQP_TYPED_JSON_TYPES_H_
#define SIFT_ENGINE_AMQP_TYPED_JSON_TYPES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/amqp_fields.h"
#include "base/amqp_value.h"

namespace sift::amqp {

// The JSON scalar a type's plain form is. kNone: null, boolean and the compounds, whose plain forms
// (null, true / false, arrays and objects) mean one type whatever the place.
enum class PlainKind : uint8_t { kNone, kInteger, kNumber, kString };

// How a header or properties field whose spec type is the row's takes plain JSON.
enum class FieldPlain : uint8_t {
  kPlain,      // a plain value of the type's kind means the type, and the type is written plain
  kInputOnly,  // read as the type, written as a wrapper: timestamps, so that they read as times
  kNatural,    // plain JSON keeps its natural meaning: a binary field's plain string is a string, as
               // everywhere but in data sections
};

struct TypedJsonType {
  ValueType type;
  std::string_view name;  // "invalid" for kMissing, which no wrapper names
  PlainKind plain;
  FieldPlain field;
};

// In ValueType order, so that a type's row is found by its value.
inline constexpr TypedJsonType kTypedJsonTypes[] = {
    {ValueType::kMissing, "invalid", PlainKind::kNone, FieldPlain::kNatural},
    {ValueType::kNull, "null", PlainKind::kNone, FieldPlain::kNatural},
    {ValueType::kBoolean, "boolean", PlainKind::kNone, FieldPlain::kPlain},
    {ValueType::kUByte, "ubyte", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kUShort, "ushort", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kUInt, "uint", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kULong, "ulong", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kByte, "byte", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kShort, "short", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kInt, "int", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kLong, "long", PlainKind::kInteger, FieldPlain::kPlain},
    {ValueType::kFloat, "float", PlainKind::kNumber, FieldPlain::kPlain},
    {ValueType::kDouble, "double", PlainKind::kNumber, FieldPlain::kPlain},
    {ValueType::kDecimal32, "decimal32", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kDecimal64, "decimal64", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kDecimal128, "decimal128", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kChar, "char", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kTimestamp, "timestamp", PlainKind::kInteger, FieldPlain::kInputOnly},
    {ValueType::kUuid, "uuid", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kBinary, "binary", PlainKind::kString, FieldPlain::kNatural},
    {ValueType::kString, "string", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kSymbol, "symbol", PlainKind::kString, FieldPlain::kPlain},
    {ValueType::kList, "list", PlainKind::kNone, FieldPlain::kNatural},
    {ValueType::kMap, "map", PlainKind::kNone, FieldPlain::kNatural},
    {ValueType::kArray, "array", PlainKind::kNone, FieldPlain::kNatural},
    {ValueType::kDescribed, "described", PlainKind::kNone, FieldPlain::kNatural},
};

constexpr bool RowsInValueTypeOrder() {
  for (size_t i = 0; i < std::size(kTypedJsonTypes); ++i) {
    if (static_cast<size_t>(kTypedJsonTypes[i].type) != i) return false;
  }
  return std::size(kTypedJsonTypes) == static_cast<size_t>(ValueType::kDescribed) + 1;
}
static_assert(RowsInValueTypeOrder(), "one row per ValueType, in its order");

constexpr const TypedJsonType& TypedJsonTypeOf(ValueType type) { return kTypedJsonTypes[static_cast<size_t>(type)]; }

// The types of one plain kind as a bit set over ValueType: PlainKindOf is then bit tests against
// constants, with no load from the table, on the writer's path for every scalar.
constexpr uint32_t TypesOfKind(PlainKind kind) {
  uint32_t set = 0;
  for (const TypedJsonType& t : kTypedJsonTypes) {
    if (t.plain == kind) set |= uint32_t{1} << static_cast<unsigned>(t.type);
  }
  return set;
}
static_assert(static_cast<unsigned>(ValueType::kDescribed) < 32, "ValueType fits a 32-bit set");
inline constexpr uint32_t kIntegerTypes = TypesOfKind(PlainKind::kInteger);
inline constexpr uint32_t kNumberTypes = TypesOfKind(PlainKind::kNumber);
inline constexpr uint32_t kStringTypes = TypesOfKind(PlainKind::kString);

constexpr PlainKind PlainKindOf(ValueType type) {
  const uint32_t bit = uint32_t{1} << static_cast<unsigned>(type);
  if ((kIntegerTypes & bit) != 0) return PlainKind::kInteger;
  if ((kNumberTypes & bit) != 0) return PlainKind::kNumber;
  if ((kStringTypes & bit) != 0) return PlainKind::kString;
  return PlainKind::kNone;
}

// A wrapper's type name: "ubyte", "decimal128", "described", ...
constexpr std::string_view TypedJsonTypeName(ValueType type) { return TypedJsonTypeOf(type).name; }

// The type a wrapper's type name says; false for a name that is none.
constexpr bool TypedJsonTypeFromName(std::string_view name, ValueType* type) {
  for (const TypedJsonType& t : kTypedJsonTypes) {
    if (t.type != ValueType::kMissing && t.name == name) {
      *type = t.type;
      return true;
    }
  }
  return false;
}

// What a plain JSON scalar means at one place (header.priority: an integer is a ubyte). The writer
// takes the same hint to decide when a value may be written plain: only when reading the plain form
// back under the hint gives the value's type again, so write-then-read never changes a type.
struct PlainHint {
  ValueType integer = ValueType::kLong;   // what a plain JSON integer means
  ValueType number = ValueType::kDouble;  // what a plain JSON number with a fraction or exponent means
  ValueType string = ValueType::kString;  // what a plain JSON string means
  bool plain_output = true;               // false: the writer wraps every type but the natural ones
};

inline constexpr PlainHint kNaturalPlainHint{};
// Descriptors and the keys of annotation maps: a plain integer is a ulong, a plain string a symbol.
inline constexpr PlainHint kDescriptorPlainHint{ValueType::kULong, ValueType::kDouble, ValueType::kSymbol};

// The hint under which the plain form of a `type` value means `type` (array elements of that type).
// A plain integer among floats or doubles is one of them too.
constexpr PlainHint HintFor(ValueType type) {
  PlainHint hint;
  switch (PlainKindOf(type)) {
    case PlainKind::kInteger: hint.integer = type; break;
    case PlainKind::kNumber:
      hint.integer = type;
      hint.number = type;
      break;
    case PlainKind::kString: hint.string = type; break;
    case PlainKind::kNone: break;
  }
  return hint;
}

// Whether a `type` value may be written plain under `hint`: reading it back gives `type` again.
constexpr bool WritesPlain(ValueType type, const PlainHint& hint) {
  switch (PlainKindOf(type)) {
    case PlainKind::kInteger: return hint.integer == type && (hint.plain_output || type == kNaturalPlainHint.integer);
    case PlainKind::kNumber: return hint.number == type && (hint.plain_output || type == kNaturalPlainHint.number);
    case PlainKind::kString: return hint.string == type && (hint.plain_output || type == kNaturalPlainHint.string);
    case PlainKind::kNone: break;
  }
  return true;
}

// The type whose row says how a field of spec type `type` takes plain JSON: message-id's integer form
// is message-id-ulong (core part 3, section 3.2.11), and its string form the natural string.
constexpr ValueType FieldValueType(FieldType type) {
  switch (type) {
    case FieldType::kBoolean: return ValueType::kBoolean;
    case FieldType::kUByte: return ValueType::kUByte;
    case FieldType::kUInt: return ValueType::kUInt;
    case FieldType::kMessageId: return ValueType::kULong;
    case FieldType::kBinary: return ValueType::kBinary;
    case FieldType::kString: return ValueType::kString;
    case FieldType::kSymbol: return ValueType::kSymbol;
    case FieldType::kTimestamp: return ValueType::kTimestamp;
  }
  return ValueType::kMissing;
}

constexpr PlainHint FieldHint(FieldType field_type) {
  const ValueType type = FieldValueType(field_type);
  PlainHint hint = HintFor(type);
  switch (TypedJsonTypeOf(type).field) {
    case FieldPlain::kPlain: break;
    case FieldPlain::kInputOnly: hint.plain_output = false; break;
    case FieldPlain::kNatural: hint = kNaturalPlainHint; break;
  }
  return hint;
}

// A field of the header or properties list: its typed JSON key and how plain JSON maps to its type.
struct TypedJsonField {
  std::string_view key;
  PlainHint hint;
};

template <size_t N>
constexpr std::array<TypedJsonField, N> TypedJsonFields(const FieldInfo (&fields)[N]) {
  std::array<TypedJsonField, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = {fields[i].identifier, FieldHint(fields[i].type)};
  return out;
}

// The header (core part 3, section 3.2.1) and properties (section 3.2.4) fields in list order, keyed
// by their identifiers (base/amqp_fields.h).
inline constexpr auto kHeaderJsonFields = TypedJsonFields(kHeaderFields);
inline constexpr auto kPropertiesJsonFields = TypedJsonFields(kPropertiesFields);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_TYPED_JSON_TYPES_H_
