// Comparison rules (see compare.h).
#include "selector/compare.h"

#include <cmath>
#include <cstring>

#include "base/utf8.h"
#include "selector/decimal.h"

namespace sift::selector {

bool DecimalToNumber(const Value& v, Number* out) {
  double d;
  if (!DecimalToDouble(v.type, v.bytes(), &d)) return false;
  *out = Number::Double(d);
  return true;
}

namespace {

template <typename T>
int Sign3(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Exact comparison of an int64 with a double.
int CompareSignedDouble(int64_t i, double d) {
  if (std::isnan(d)) return 2;
  // Doubles at or beyond +-2^63 are outside int64's range.
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  double t = std::trunc(d);
  int64_t di = static_cast<int64_t>(t);  // exact: |t| < 2^63
  if (i != di) return i < di ? -1 : 1;
  return t == d ? 0 : (d > t ? -1 : 1);
}

int CompareUnsignedDouble(uint64_t u, double d) {
  if (std::isnan(d)) return 2;
  if (d < 0) return 1;
  if (d >= 18446744073709551616.0) return -1;
  double t = std::trunc(d);
  uint64_t du = static_cast<uint64_t>(t);
  if (u != du) return u < du ? -1 : 1;
  return t == d ? 0 : -1;
}

int CompareSignedUnsigned(int64_t i, uint64_t u) {
  if (i < 0) return -1;
  return Sign3(static_cast<uint64_t>(i), u);
}

}  // namespace

int CompareNumbers(const Number& a, const Number& b) {
  using K = Number::Kind;
  switch (a.kind) {
    case K::kSigned:
      switch (b.kind) {
        case K::kSigned: return Sign3(a.i, b.i);
        case K::kUnsigned: return CompareSignedUnsigned(a.i, b.u);
        case K::kDouble: return CompareSignedDouble(a.i, b.d);
      }
      break;
    case K::kUnsigned:
      switch (b.kind) {
        case K::kSigned: return -CompareSignedUnsigned(b.i, a.u);
        case K::kUnsigned: return Sign3(a.u, b.u);
        case K::kDouble: return CompareUnsignedDouble(a.u, b.d);
      }
      break;
    case K::kDouble:
      switch (b.kind) {
        case K::kSigned: {
          int c = CompareSignedDouble(b.i, a.d);
          return c == 2 ? 2 : -c;
        }
        case K::kUnsigned: {
          int c = CompareUnsignedDouble(b.u, a.d);
          return c == 2 ? 2 : -c;
        }
        case K::kDouble:
          if (std::isnan(a.d) || std::isnan(b.d)) return 2;
          return Sign3(a.d, b.d);
      }
      break;
  }
  return 2;
}

std::string_view TextOf(const Value& v, char* buffer) {
  if (v.type != ValueType::kChar) return v.bytes();
  size_t n = base::EncodeUtf8(v.u32, buffer);
  if (n == 0) n = base::EncodeUtf8(0xFFFD, buffer);  // not a scalar value: the replacement character
  return {buffer, n};
}

namespace {

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return Sign3(a.size(), b.size());
}

}  // namespace

Truth CompareValues(Op op, const Value& a, const Value& b, CompareRules rules) {
  ValueClass ca = ClassOf(a.type);
  ValueClass cb = ClassOf(b.type);
  if (ca == ValueClass::kAbsent || cb == ValueClass::kAbsent) return Truth::kUnknown;
  // What a comparison the rules do not allow gives.
  const Truth refused = rules == CompareRules::kJms ? Truth::kFalse : Truth::kUnknown;
  if (ca != cb || ca == ValueClass::kOther) return refused;
  const bool equality = op == Op::kEq || op == Op::kNe;
  switch (ca) {
    case ValueClass::kText: {
      if (!equality && rules == CompareRules::kJms) return refused;
      char ba[4], bb[4];
      return FromOrder(op, CompareBytes(TextOf(a, ba), TextOf(b, bb)));
    }
    case ValueClass::kNumber: {
      Number na, nb;
      if (!ToNumber(a, &na) || !ToNumber(b, &nb)) return Truth::kUnknown;
      return FromOrder(op, CompareNumbers(na, nb));
    }
    case ValueClass::kBoolean:
      if (op == Op::kEq) return a.boolean == b.boolean ? Truth::kTrue : Truth::kFalse;
      if (op == Op::kNe) return a.boolean != b.boolean ? Truth::kTrue : Truth::kFalse;
      return refused;
    case ValueClass::kBinary:
    case ValueClass::kUuid: return FromOrder(op, CompareBytes(a.bytes(), b.bytes()));
    default: return Truth::kUnknown;
  }
}

bool PropertyEquals(const Value& value, const Value& reference) {
  ValueClass cv = ClassOf(value.type);
  ValueClass cr = ClassOf(reference.type);
  if (cv != cr || cv == ValueClass::kAbsent || cv == ValueClass::kOther) return false;
  if (cv == ValueClass::kNumber) {
    // Section 4.1.1: numbers of different types are equal when equal as floating point.
    Number a, b;
    if (!ToNumber(value, &a) || !ToNumber(reference, &b)) return false;
    if (value.type == reference.type || (a.is_integer() && b.is_integer())) return CompareNumbers(a, b) == 0;
    auto as_double = [](const Number& n) {
      return n.kind == Number::Kind::kSigned     ? static_cast<double>(n.i)
             : n.kind == Number::Kind::kUnsigned ? static_cast<double>(n.u)
                                                 : n.d;
    };
    return as_double(a) == as_double(b);
  }
  return CompareValues(Op::kEq, value, reference) == Truth::kTrue;
}

}  // namespace sift::selector
