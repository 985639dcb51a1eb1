// Arithmetic rules (see arithmetic.h).
#include "selector/arithmetic.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "selector/compare.h"

namespace sift::selector {
namespace {

using i128 = __int128;

Value FromI128(i128 r) {
  if (r >= std::numeric_limits<int64_t>::min() && r <= std::numeric_limits<int64_t>::max()) {
    return Value::Long(static_cast<int64_t>(r));
  }
  if (r >= 0 && r <= static_cast<i128>(std::numeric_limits<uint64_t>::max())) {
    return Value::Unsigned(ValueType::kULong, static_cast<uint64_t>(r));
  }
  return Value::Null();  // overflow: UNKNOWN
}

i128 ToI128(const Number& n) { return n.kind == Number::Kind::kSigned ? i128{n.i} : static_cast<i128>(n.u); }

double ToDouble(const Number& n) {
  switch (n.kind) {
    case Number::Kind::kSigned: return static_cast<double>(n.i);
    case Number::Kind::kUnsigned: return static_cast<double>(n.u);
    case Number::Kind::kDouble: return n.d;
  }
  return 0;
}

}  // namespace

Value Arithmetic(Op op, const Value& a, const Value& b, EvalContext& context) {
  ValueClass ca = ClassOf(a.type);
  ValueClass cb = ClassOf(b.type);
  if (op == Op::kAdd && ca == ValueClass::kText && cb == ValueClass::kText) {
    char ba[4], bb[4];
    std::string_view x = TextOf(a, ba);
    std::string_view y = TextOf(b, bb);
    size_t n = x.size() + y.size();
    if (n > std::numeric_limits<uint32_t>::max()) return Value::Null();
    char* out = context.Allocate(n == 0 ? 1 : n);
    if (!x.empty()) std::memcpy(out, x.data(), x.size());
    if (!y.empty()) std::memcpy(out + x.size(), y.data(), y.size());
    return Value::String(std::string_view(out, n));
  }
  Number x, y;
  if (ca != ValueClass::kNumber || cb != ValueClass::kNumber || !ToNumber(a, &x) || !ToNumber(b, &y)) {
    return Value::Null();
  }
  if (x.is_integer() && y.is_integer()) {
    i128 p = ToI128(x), q = ToI128(y), r;
    switch (op) {
      case Op::kAdd: r = p + q; break;
      case Op::kSub: r = p - q; break;
      case Op::kMul:
        if (__builtin_mul_overflow(p, q, &r)) return Value::Null();
        break;
      case Op::kDiv:
        if (q == 0) return Value::Null();
        r = p / q;
        break;
      case Op::kMod:
        if (q == 0) return Value::Null();
        r = p % q;
        break;
      default: return Value::Null();
    }
    return FromI128(r);
  }
  double p = ToDouble(x), q = ToDouble(y);
  switch (op) {
    case Op::kAdd: return Value::Double(p + q);
    case Op::kSub: return Value::Double(p - q);
    case Op::kMul: return Value::Double(p * q);
    case Op::kDiv:
      if (q == 0) return Value::Null();
      return Value::Double(p / q);
    case Op::kMod:
      if (q == 0) return Value::Null();
      return Value::Double(std::fmod(p, q));
    default: return Value::Null();
  }
}

Value UnaryArithmetic(Op op, const Value& a) {
  Number x;
  if (ClassOf(a.type) != ValueClass::kNumber || !ToNumber(a, &x)) return Value::Null();
  if (op == Op::kPlus) {
    // Unary plus keeps the value; a timestamp becomes its number of milliseconds.
    if (a.type == ValueType::kTimestamp) return Value::Long(a.i64);
    if (x.kind == Number::Kind::kDouble && a.type != ValueType::kFloat && a.type != ValueType::kDouble) {
      return Value::Double(x.d);  // decimals
    }
    return a;
  }
  if (x.kind == Number::Kind::kDouble) return Value::Double(-x.d);
  return FromI128(-ToI128(x));
}

}  // namespace sift::selector
