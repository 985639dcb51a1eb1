// Comparison of two Values under the selector's rules (docs/selector-semantics.md, "Comparison").
//
// - A missing or null operand makes every comparison UNKNOWN.
// - Values compare within a class; across classes the result is UNKNOWN:
//   text (string, symbol, char as a one-code-point string): all six operators, by code point
//     (= unsigned byte order of the UTF-8);
//   numbers (byte..long, ubyte..ulong, float, double, decimal32/64/128, timestamp as signed ms):
//     all six operators, compared exactly as mathematical values (ulong beyond 2^63 included);
//     decimals enter as their nearest double; NaN is unequal to everything (= FALSE, <> TRUE,
//     ordering FALSE);
//   boolean: = and <> only (ordering is UNKNOWN);
//   binary, uuid: all six operators, by unsigned byte order;
//   list, map, array, described: UNKNOWN.
// Nothing here allocates.
#ifndef SIFT_SELECTOR_COMPARE_H_
#define SIFT_SELECTOR_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "selector/ast.h"
#include "selector/selector.h"
#include "selector/value.h"

namespace sift::selector {

// A number in one of three exact representations.
struct Number {
  enum class Kind : uint8_t { kSigned, kUnsigned, kDouble };
  Kind kind = Kind::kSigned;
  union {
    int64_t i;
    uint64_t u;
    double d;
  };
  Number() : i(0) {}
  static Number Signed(int64_t x) {
    Number n;
    n.kind = Kind::kSigned;
    n.i = x;
    return n;
  }
  static Number Unsigned(uint64_t x) {
    Number n;
    n.kind = Kind::kUnsigned;
    n.u = x;
    return n;
  }
  static Number Double(double x) {
    Number n;
    n.kind = Kind::kDouble;
    n.d = x;
    return n;
  }
  bool is_integer() const { return kind != Kind::kDouble; }
};

enum class ValueClass : uint8_t { kAbsent, kText, kNumber, kBoolean, kBinary, kUuid, kOther };

// The class of each ValueType, indexed by its value (kept in the order of selector/value.h).
inline constexpr ValueClass kValueClass[] = {
    ValueClass::kAbsent, ValueClass::kAbsent, ValueClass::kBoolean, ValueClass::kNumber, ValueClass::kNumber,
    ValueClass::kNumber, ValueClass::kNumber, ValueClass::kNumber,  ValueClass::kNumber, ValueClass::kNumber,
    ValueClass::kNumber, ValueClass::kNumber, ValueClass::kNumber,  ValueClass::kNumber, ValueClass::kNumber,
    ValueClass::kNumber, ValueClass::kText,   ValueClass::kNumber,  ValueClass::kUuid,   ValueClass::kBinary,
    ValueClass::kText,   ValueClass::kText,   ValueClass::kOther,   ValueClass::kOther,  ValueClass::kOther,
    ValueClass::kOther,
};
static_assert(sizeof(kValueClass) / sizeof(kValueClass[0]) == static_cast<size_t>(ValueType::kDescribed) + 1);

inline ValueClass ClassOf(ValueType type) {
  auto i = static_cast<size_t>(type);
  return i < sizeof(kValueClass) / sizeof(kValueClass[0]) ? kValueClass[i] : ValueClass::kOther;
}

// Decimals (out of line: BID decoding).
bool DecimalToNumber(const Value& v, Number* out);

// True and *out set for the numeric types (timestamp included); decimals become doubles.
inline bool ToNumber(const Value& v, Number* out) {
  switch (v.type) {
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong:
    case ValueType::kTimestamp: *out = Number::Signed(v.i64); return true;
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong: *out = Number::Unsigned(v.u64); return true;
    case ValueType::kFloat:
    case ValueType::kDouble: *out = Number::Double(v.f64); return true;
    case ValueType::kDecimal32:
    case ValueType::kDecimal64:
    case ValueType::kDecimal128: return DecimalToNumber(v, out);
    default: return false;
  }
}

// Three-way comparison of numbers: -1, 0, 1, or 2 when unordered (a NaN is involved).
int CompareNumbers(const Number& a, const Number& b);

// The text bytes of a text-class value; a char is encoded into `buffer` (4 bytes) as UTF-8, or as
// U+FFFD when it is not a Unicode scalar value (a surrogate, or above U+10FFFF).
std::string_view TextOf(const Value& v, char* buffer);

// Which rules a comparison follows where the two languages part (docs/selector-semantics.md):
//   kFilterExpressions  values of different classes (or of class other) compare UNKNOWN, and so
//                       does an ordering of booleans; text has all six operators.
//   kJms                Jakarta Messaging 3.1, section 3.8.1.2: "If the comparison of non-like type
//                       values is attempted, the value of the operation is false", and "String and
//                       Boolean comparison is restricted to = and <>": such a comparison is FALSE.
// Under both, a missing or null operand makes a comparison UNKNOWN.
enum class CompareRules : uint8_t { kFilterExpressions, kJms };

// The truth of `op` (kEq, kNe, kLt, kLe, kGt, kGe) for an ordering `c`: negative, 0 or positive as
// the left operand sorts before, equal to or after the right; 2 when they are unordered (a NaN), which
// only <> holds for. Any other op is UNKNOWN.
inline Truth FromOrder(Op op, int c) {
  if (c == 2) return op == Op::kNe ? Truth::kTrue : Truth::kFalse;
  bool r = false;
  switch (op) {
    case Op::kEq: r = c == 0; break;
    case Op::kNe: r = c != 0; break;
    case Op::kLt: r = c < 0; break;
    case Op::kLe: r = c <= 0; break;
    case Op::kGt: r = c > 0; break;
    case Op::kGe: r = c >= 0; break;
    default: return Truth::kUnknown;
  }
  return r ? Truth::kTrue : Truth::kFalse;
}

// op is one of kEq, kNe, kLt, kLe, kGt, kGe.
Truth CompareValues(Op op, const Value& a, const Value& b, CompareRules rules = CompareRules::kFilterExpressions);

// Equality as filter expressions section 4.1.1 defines it for property filters: numbers of any types
// are equal when equal as double; text equal by bytes (string and symbol alike); other values equal
// when of the same class with the same bytes / value.
bool PropertyEquals(const Value& value, const Value& reference);

inline Truth Not(Truth t) { return t == Truth::kUnknown ? t : (t == Truth::kTrue ? Truth::kFalse : Truth::kTrue); }

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_COMPARE_H_
