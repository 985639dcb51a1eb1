// The type names of typed JSON wrappers, in both directions (an AMQP type's name, the type a name
// says), and the hints that make a plain JSON scalar mean a given type; see json_value.h.
#include "amqp/json_value.h"

namespace sift::amqp {
namespace {

struct TypeName {
  pn_type_t type;
  std::string_view name;
};

constexpr TypeName kTypeNames[] = {
    {PN_NULL, "null"},
    {PN_BOOL, "boolean"},
    {PN_UBYTE, "ubyte"},
    {PN_USHORT, "ushort"},
    {PN_UINT, "uint"},
    {PN_ULONG, "ulong"},
    {PN_BYTE, "byte"},
    {PN_SHORT, "short"},
    {PN_INT, "int"},
    {PN_LONG, "long"},
    {PN_FLOAT, "float"},
    {PN_DOUBLE, "double"},
    {PN_DECIMAL32, "decimal32"},
    {PN_DECIMAL64, "decimal64"},
    {PN_DECIMAL128, "decimal128"},
    {PN_CHAR, "char"},
    {PN_TIMESTAMP, "timestamp"},
    {PN_UUID, "uuid"},
    {PN_SYMBOL, "symbol"},
    {PN_BINARY, "binary"},
    {PN_STRING, "string"},
    {PN_LIST, "list"},
    {PN_MAP, "map"},
    {PN_ARRAY, "array"},
    {PN_DESCRIBED, "described"},
};

enum class PlainKind { kNone, kInteger, kNumber, kString };

PlainKind PlainKindOf(pn_type_t type) {
  switch (type) {
    case PN_UBYTE:
    case PN_USHORT:
    case PN_UINT:
    case PN_ULONG:
    case PN_BYTE:
    case PN_SHORT:
    case PN_INT:
    case PN_LONG:
    case PN_TIMESTAMP: return PlainKind::kInteger;
    case PN_FLOAT:
    case PN_DOUBLE: return PlainKind::kNumber;
    case PN_CHAR:
    case PN_DECIMAL32:
    case PN_DECIMAL64:
    case PN_DECIMAL128:
    case PN_UUID:
    case PN_BINARY:
    case PN_STRING:
    case PN_SYMBOL: return PlainKind::kString;
    default: return PlainKind::kNone;
  }
}

}  // namespace

bool TypeFromName(std::string_view name, pn_type_t* type) {
  for (const TypeName& t : kTypeNames) {
    if (t.name == name) {
      *type = t.type;
      return true;
    }
  }
  return false;
}

JsonHint HintFor(pn_type_t type) {
  JsonHint hint;
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

std::string_view JsonTypeName(pn_type_t type) {
  for (const TypeName& t : kTypeNames) {
    if (t.type == type) return t.name;
  }
  return "invalid";
}

}  // namespace sift::amqp
