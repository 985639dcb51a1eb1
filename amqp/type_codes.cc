// Names of AMQP 1.0 format codes (type_codes.h).
#include "amqp/type_codes.h"

namespace sift::amqp {

std::string_view FormatCodeName(uint8_t format_code) {
  switch (format_code) {
    case code::kDescribed: return "described";
    case code::kNull: return "null";
    case code::kTrue: return "true";
    case code::kFalse: return "false";
    case code::kUInt0: return "uint0";
    case code::kULong0: return "ulong0";
    case code::kList0: return "list0";
    case code::kUByte: return "ubyte";
    case code::kByte: return "byte";
    case code::kSmallUInt: return "smalluint";
    case code::kSmallULong: return "smallulong";
    case code::kSmallInt: return "smallint";
    case code::kSmallLong: return "smalllong";
    case code::kBoolean: return "boolean";
    case code::kUShort: return "ushort";
    case code::kShort: return "short";
    case code::kUInt: return "uint";
    case code::kInt: return "int";
    case code::kFloat: return "float";
    case code::kChar: return "char";
    case code::kDecimal32: return "decimal32";
    case code::kULong: return "ulong";
    case code::kLong: return "long";
    case code::kDouble: return "double";
    case code::kTimestamp: return "timestamp";
    case code::kDecimal64: return "decimal64";
    case code::kDecimal128: return "decimal128";
    case code::kUuid: return "uuid";
    case code::kVbin8: return "vbin8";
    case code::kStr8: return "str8";
    case code::kSym8: return "sym8";
    case code::kVbin32: return "vbin32";
    case code::kStr32: return "str32";
    case code::kSym32: return "sym32";
    case code::kList8: return "list8";
    case code::kMap8: return "map8";
    case code::kList32: return "list32";
    case code::kMap32: return "map32";
    case code::kArray8: return "array8";
    case code::kArray32: return "array32";
    default: return "invalid";
  }
}

}  // namespace sift::amqp
