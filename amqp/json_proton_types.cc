// Where the typed JSON reader meets Proton's types: each pn_type_t and the ValueType it is, so that
// everything past this edge speaks ValueType and takes names and hints from typed_json_types.h.
#include "amqp/json_value.h"

namespace sift::amqp {
namespace {

struct ProtonType {
  pn_type_t proton;
  ValueType type;
};

constexpr ProtonType kProtonTypes[] = {
    {PN_NULL, ValueType::kNull},
    {PN_BOOL, ValueType::kBoolean},
    {PN_UBYTE, ValueType::kUByte},
    {PN_USHORT, ValueType::kUShort},
    {PN_UINT, ValueType::kUInt},
    {PN_ULONG, ValueType::kULong},
    {PN_BYTE, ValueType::kByte},
    {PN_SHORT, ValueType::kShort},
    {PN_INT, ValueType::kInt},
    {PN_LONG, ValueType::kLong},
    {PN_FLOAT, ValueType::kFloat},
    {PN_DOUBLE, ValueType::kDouble},
    {PN_DECIMAL32, ValueType::kDecimal32},
    {PN_DECIMAL64, ValueType::kDecimal64},
    {PN_DECIMAL128, ValueType::kDecimal128},
    {PN_CHAR, ValueType::kChar},
    {PN_TIMESTAMP, ValueType::kTimestamp},
    {PN_UUID, ValueType::kUuid},
    {PN_SYMBOL, ValueType::kSymbol},
    {PN_BINARY, ValueType::kBinary},
    {PN_STRING, ValueType::kString},
    {PN_LIST, ValueType::kList},
    {PN_MAP, ValueType::kMap},
    {PN_ARRAY, ValueType::kArray},
    {PN_DESCRIBED, ValueType::kDescribed},
};

}  // namespace

ValueType ValueTypeOfProton(pn_type_t type) {
  for (const ProtonType& t : kProtonTypes) {
    if (t.proton == type) return t.type;
  }
  return ValueType::kMissing;
}

pn_type_t ProtonTypeOf(ValueType type) {
  for (const ProtonType& t : kProtonTypes) {
    if (t.type == type) return t.proton;
  }
  return PN_INVALID;
}

std::string_view JsonTypeName(pn_type_t type) { return TypedJsonTypeName(ValueTypeOfProton(type)); }

}  // namespace sift::amqp
