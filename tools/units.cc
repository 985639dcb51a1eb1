// Byte sizes and durations (see units.h).
#include "tools/units.h"

#include <array>
#include <cctype>
#include <limits>
#include <utility>

namespace sift::tools {
namespace {

// The leading decimal digits of `text` as a number; false when there are none or they overflow.
bool LeadingNumber(std::string_view text, uint64_t* value, size_t* digits, bool* overflow) {
  uint64_t v = 0;
  size_t i = 0;
  *overflow = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) *overflow = true;
    v = v * 10 + d;
  }
  *value = v;
  *digits = i;
  return i > 0 && !*overflow;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

constexpr char kSizeForm[] = "expected a whole number of bytes with an optional unit B, K/KiB, M/MiB, G/GiB or T/TiB";
constexpr char kDurationForm[] = "expected a whole number with a unit ms, s, m, h, d or w";

}  // namespace

bool ParseByteSize(std::string_view text, uint64_t* bytes, std::string* error) {
  uint64_t value = 0;
  size_t digits = 0;
  bool overflow = false;
  if (!LeadingNumber(text, &value, &digits, &overflow)) {
    *error = overflow ? "larger than 2^64 - 1 bytes" : std::string(kSizeForm);
    return false;
  }
  const std::string unit = Lower(text.substr(digits));
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  if (unit == "k" || unit == "kib") shift = 10;
  if (unit == "m" || unit == "mib") shift = 20;
  if (unit == "g" || unit == "gib") shift = 30;
  if (unit == "t" || unit == "tib") shift = 40;
  if (shift < 0) {
    if (unit == "kb" || unit == "mb" || unit == "gb" || unit == "tb") {
      *error = "unit '" + std::string(text.substr(digits)) + "' is ambiguous: use " +
               static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))) + " or " +
               static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))) + "iB (powers of 1024)";
    } else {
      *error = std::string(kSizeForm);
    }
    return false;
  }
  if (shift > 0 && value > (std::numeric_limits<uint64_t>::max() >> shift)) {
    *error = "larger than 2^64 - 1 bytes";
    return false;
  }
  *bytes = value << shift;
  return true;
}

bool ParseDuration(std::string_view text, int64_t* ms, std::string* error) {
  uint64_t value = 0;
  size_t digits = 0;
  bool overflow = false;
  if (!LeadingNumber(text, &value, &digits, &overflow)) {
    *error = overflow ? "longer than 2^63 - 1 milliseconds" : std::string(kDurationForm);
    return false;
  }
  const std::string_view unit = text.substr(digits);
  static constexpr std::array<std::pair<std::string_view, uint64_t>, 6> kUnits = {{
      {"ms", 1},
      {"s", 1000},
      {"m", 60'000},
      {"h", 3'600'000},
      {"d", 86'400'000},
      {"w", 604'800'000},
  }};
  uint64_t scale = 0;
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) scale = factor;
  }
  if (unit.empty() && value == 0) scale = 1;
  if (scale == 0) {
    *error =
        unit.empty() ? "a duration needs a unit (ms, s, m, h, d or w), e.g. 30s or 7d" : std::string(kDurationForm);
    return false;
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (value > kMax / scale) {
    *error = "longer than 2^63 - 1 milliseconds";
    return false;
  }
  *ms = static_cast<int64_t>(value * scale);
  return true;
}

std::string FormatByteSize(uint64_t bytes) {
  static constexpr std::array<std::pair<const char*, int>, 4> kUnits = {{
      {"TiB", 40},
      {"GiB", 30},
      {"MiB", 20},
      {"KiB", 10},
  }};
  if (bytes != 0) {
    for (const auto& [name, shift] : kUnits) {
      if ((bytes & ((uint64_t{1} << shift) - 1)) == 0) return std::to_string(bytes >> shift) + name;
    }
  }
  return std::to_string(bytes);
}

std::string FormatDuration(int64_t ms) {
  static constexpr std::array<std::pair<const char*, int64_t>, 5> kUnits = {{
      {"w", 604'800'000},
      {"d", 86'400'000},
      {"h", 3'600'000},
      {"m", 60'000},
      {"s", 1000},
  }};
  if (ms == 0) return "0";
  for (const auto& [name, factor] : kUnits) {
    if (ms % factor == 0) return std::to_string(ms / factor) + name;
  }
  return std::to_string(ms) + "ms";
}

}  // namespace sift::tools
