// Literal values of the selector language (parser_literals.h).
#include "selector/parser_literals.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "base/hex.h"

namespace sift::selector {
namespace {

bool Fail(std::string message, std::string* why) {
  *why = std::move(message);
  return false;
}

}  // namespace

bool IntegerLiteral(std::string_view text, Dialect dialect, Value* out, std::string* why) {
  std::string digits;  // the literal without the underscores Java allows between digits
  for (char c : text) {
    if (c != '_') digits += c;
  }
  std::string_view raw = digits;
  int base = 10;
  if (dialect == Dialect::kJms) {
    if (raw.back() == 'l' || raw.back() == 'L') raw.remove_suffix(1);
    if (raw.size() > 2 && (raw[1] == 'x' || raw[1] == 'X')) {
      base = 16;
      raw.remove_prefix(2);
    } else if (raw.size() > 2 && (raw[1] == 'b' || raw[1] == 'B')) {
      base = 2;
      raw.remove_prefix(2);
    } else if (raw.size() > 1 && raw[0] == '0') {
      base = 8;
      raw.remove_prefix(1);
      for (char c : raw) {
        if (c > '7') {
          return Fail("octal literal '" + std::string(text) + "' has a digit above 7", why);
        }
      }
    }
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v, base);
  if (ec != std::errc() || ptr != raw.data() + raw.size()) {
    return Fail("integer literal '" + std::string(text) + "' is out of range (above 2^64-1)", why);
  }
  // A hexadecimal, octal or binary literal is a Java long's 64 bits (two's complement: 0xFFFF_FFFF_
  // FFFF_FFFF is -1); a decimal one above 2^63-1 is a ulong (documented extension).
  Value value = v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) || base != 10
                    ? Value::Long(static_cast<int64_t>(v))
                    : Value::Unsigned(ValueType::kULong, v);
  *out = value;
  return true;
}

bool FloatingLiteral(std::string_view text, Dialect dialect, Value* out, std::string* why) {
  std::string digits;  // the literal without the underscores Java allows between digits
  for (char c : text) {
    if (c != '_') digits += c;
  }
  std::string_view raw = digits;
  bool is_float = false;
  if (dialect == Dialect::kJms) {
    char last = raw.back();
    if (last == 'f' || last == 'F') {
      is_float = true;
      raw.remove_suffix(1);
    } else if (last == 'd' || last == 'D') {
      raw.remove_suffix(1);
    }
  }
  // A Java hexadecimal floating-point literal (JMS): 0x1.8p3 is 1.5 * 2^3.
  const bool hex = raw.size() > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X');
  if (hex) raw.remove_prefix(2);
  auto is_digit = [hex](char c) { return (c >= '0' && c <= '9') || (hex && ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')); };
  // Normalise the Java forms ".5", "5.", "5.e3" for from_chars.
  std::string s;
  s.reserve(raw.size() + 2);
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '.') {
      if (i == 0) s += '0';
      s += '.';
      if (i + 1 >= raw.size() || !is_digit(raw[i + 1])) s += '0';
    } else {
      s += raw[i];
    }
  }
  const char* exponent_marks = hex ? "pP" : "eE";
  double d = 0;
  auto [ptr, ec] =
      std::from_chars(s.data(), s.data() + s.size(), d, hex ? std::chars_format::hex : std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    // Underflow to zero is harmless; overflow is not a number anyone meant.
    bool tiny = false;
    for (char c : s) {
      if (c == exponent_marks[0] || c == exponent_marks[1]) break;
      if (c != '0' && c != '.' && is_digit(c)) tiny = true;
    }
    size_t e = s.find_first_of(exponent_marks);
    if (tiny && e != std::string::npos && s[e + 1] == '-') {
      d = 0;
    } else {
      return Fail("number '" + std::string(text) + "' is out of the range of a double", why);
    }
  } else if (ec != std::errc() || ptr != s.data() + s.size()) {
    return Fail("malformed number '" + std::string(text) + "'", why);
  }
  if (is_float) {
    if (std::abs(d) > std::numeric_limits<float>::max()) {
      return Fail("number '" + std::string(text) + "' is out of the range of a float", why);
    }
    *out = Value::Float(static_cast<float>(d));
    return true;
  }
  *out = Value::Double(d);
  return true;
}

std::string StringLiteral(std::string_view text) {
  std::string s;
  char quote = text[0];
  s.reserve(text.size());
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    s += text[i];
    if (text[i] == quote) ++i;  // doubled quote
  }
  return s;
}

std::string BinaryLiteral(std::string_view text) {
  std::string b;
  base::DecodeHex(text.substr(2), &b);  // the lexer let through only pairs of hex digits
  return b;
}

}  // namespace sift::selector
