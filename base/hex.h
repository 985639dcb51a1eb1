// Hexadecimal text: two digits per byte, the high nibble first. Reading accepts either case; writing
// picks one, because the formats sift writes differ (typed JSON and AMQP uuids are lower-case, the
// JMS "ID:AMQP_BINARY:" form is upper-case).
#ifndef SIFT_BASE_HEX_H_
#define SIFT_BASE_HEX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::base {

// The value of hex digit `c` (0-9, a-f, A-F), or -1 when it is not one.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr bool IsHexDigit(char c) { return HexDigitValue(c) >= 0; }

enum class HexCase { kLower, kUpper };

// The digit for a nibble (0..15).
constexpr char HexDigit(unsigned nibble, HexCase letter_case) {
  return (letter_case == HexCase::kLower ? "0123456789abcdef" : "0123456789ABCDEF")[nibble & 15];
}

// Reads `text` as pairs of hex digits into `out` (replacing its contents). False, with `out`
// unspecified, when the length is odd or a character is not a hex digit. The empty text is zero bytes.
bool DecodeHex(std::string_view text, std::string* out);

// Writes the 2 * n digits of the n bytes at `bytes` to `out`.
inline void EncodeHex(const void* bytes, size_t n, char* out, HexCase letter_case) {
  const auto* p = static_cast<const uint8_t*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = HexDigit(p[i] >> 4, letter_case);
    out[2 * i + 1] = HexDigit(p[i], letter_case);
  }
}

// Appends the hex digits of `bytes` to `out`.
void AppendHex(std::string_view bytes, HexCase letter_case, std::string* out);

}  // namespace sift::base

#endif  // SIFT_BASE_HEX_H_
