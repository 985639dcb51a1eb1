#include "base/amqp_value.h"

namespace sift::amqp {

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kMissing: return "missing";
    case ValueType::kNull: return "null";
    case ValueType::kBoolean: return "boolean";
    case ValueType::kUByte: return "ubyte";
    case ValueType::kUShort: return "ushort";
    case ValueType::kUInt: return "uint";
    case ValueType::kULong: return "ulong";
    case ValueType::kByte: return "byte";
    case ValueType::kShort: return "short";
    case ValueType::kInt: return "int";
    case ValueType::kLong: return "long";
    case ValueType::kFloat: return "float";
    case ValueType::kDouble: return "double";
    case ValueType::kDecimal32: return "decimal32";
    case ValueType::kDecimal64: return "decimal64";
    case ValueType::kDecimal128: return "decimal128";
    case ValueType::kChar: return "char";
    case ValueType::kTimestamp: return "timestamp";
    case ValueType::kUuid: return "uuid";
    case ValueType::kBinary: return "binary";
    case ValueType::kString: return "string";
    case ValueType::kSymbol: return "symbol";
    case ValueType::kList: return "list";
    case ValueType::kMap: return "map";
    case ValueType::kArray: return "array";
    case ValueType::kDescribed: return "described";
  }
  return "?";
}

}  // namespace sift::amqp
