// BID decimal -> double (see decimal.h).
#include "selector/decimal.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace sift::selector {
namespace {

using u128 = unsigned __int128;

struct Format {
  int bytes;
  int exponent_bits;  // width of the exponent continuation (w + 2)
  int bias;
  u128 max_coefficient;
};

u128 Pow10(int n) {
  u128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

}  // namespace

bool DecimalToDouble(ValueType type, std::string_view bytes, double* out) {
  Format f;
  switch (type) {
    case ValueType::kDecimal32: f = {4, 8, 101, Pow10(7) - 1}; break;
    case ValueType::kDecimal64: f = {8, 10, 398, Pow10(16) - 1}; break;
    case ValueType::kDecimal128: f = {16, 14, 6176, Pow10(34) - 1}; break;
    default: return false;
  }
  if (static_cast<int>(bytes.size()) != f.bytes) return false;
  u128 bits = 0;
  for (unsigned char c : bytes) bits = (bits << 8) | c;
  const int total = f.bytes * 8;
  const bool negative = (bits >> (total - 1)) & 1;
  // The five bits after the sign: 11110 is infinity, 11111 NaN.
  const unsigned top5 = static_cast<unsigned>((bits >> (total - 6)) & 0x1F);
  if (top5 == 0x1E) {
    *out = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  if (top5 == 0x1F) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const int trailing_bits = total - 1 - f.exponent_bits;  // significand bits stored after the exponent
  unsigned exponent;
  u128 coefficient;
  if (((bits >> (total - 3)) & 0x3) == 0x3) {
    // Large form: 11 then the exponent, then the significand's low bits with an implicit 100 prefix.
    exponent = static_cast<unsigned>((bits >> (trailing_bits - 2)) & ((u128{1} << f.exponent_bits) - 1));
    coefficient = (u128{4} << (trailing_bits - 2)) | (bits & ((u128{1} << (trailing_bits - 2)) - 1));
  } else {
    exponent = static_cast<unsigned>((bits >> trailing_bits) & ((u128{1} << f.exponent_bits) - 1));
    coefficient = bits & ((u128{1} << trailing_bits) - 1);
  }
  if (coefficient > f.max_coefficient) coefficient = 0;  // non-canonical
  const int e = static_cast<int>(exponent) - f.bias;
  if (coefficient == 0) {
    *out = negative ? -0.0 : 0.0;
    return true;
  }
  // Correctly rounded through the C library: "<digits>e<exponent>".
  char digits[48];
  int n = 0;
  char reversed[48];
  for (u128 c = coefficient; c != 0; c /= 10) reversed[n++] = static_cast<char>('0' + static_cast<int>(c % 10));
  int p = 0;
  if (negative) digits[p++] = '-';
  while (n > 0) digits[p++] = reversed[--n];
  std::snprintf(digits + p, sizeof digits - p, "e%d", e);
  *out = std::strtod(digits, nullptr);
  return true;
}

}  // namespace sift::selector
