// Base64 (RFC 4648, section 4), as sift reads and writes binary values in text formats.
//
// Writing uses the standard alphabet `A-Z a-z 0-9 + /` with `=` padding to a multiple of four.
// Reading follows one rule:
//   - the characters are those of the standard alphabet, and also `-` and `_` of the URL-safe
//     alphabet (section 5), read as `+` and `/` (so either alphabet, or a mix, is accepted);
//   - padding is optional, but when present the text is a multiple of four characters long, with at
//     most two `=`, and only at the end;
//   - no whitespace or any other character;
//   - a final group of one character (six bits, not a byte) is refused, and the unused low bits of
//     the last character must be zero (section 3.5), so every byte string has exactly one unpadded
//     and one padded spelling per alphabet.
#ifndef SIFT_BASE_BASE64_H_
#define SIFT_BASE_BASE64_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::base {

// The number of characters EncodeBase64 writes for n bytes.
constexpr size_t Base64EncodedSize(size_t n) { return (n + 2) / 3 * 4; }

// Writes the padded standard base64 of the n bytes at `bytes`: Base64EncodedSize(n) characters.
void EncodeBase64(const void* bytes, size_t n, char* out);

// Appends the padded standard base64 of `bytes` to `out`.
void AppendBase64(std::string_view bytes, std::string* out);

// Why and where text is not base64.
struct Base64Error {
  enum class Reason : uint8_t {
    kBadCharacter,    // text[position] is in neither alphabet (or is a '=' before the end)
    kBadPadding,      // padding on text that is not a multiple of four long; position: the first '='
    kTruncatedGroup,  // the final group is one character; position: that character
    kUnusedBitsSet,   // the unused low bits of the last character are not zero; position: that character
  };
  Reason reason = Reason::kBadCharacter;
  size_t position = 0;
};

// Short English text for a reason, e.g. "bad padding", for callers' error messages.
std::string_view Base64ReasonText(Base64Error::Reason reason);

// Reads `text` by the rule above into `out` (replacing its contents). On failure returns false, sets
// *error, and leaves `out` unspecified.
bool DecodeBase64(std::string_view text, std::string* out, Base64Error* error);

}  // namespace sift::base

#endif  // SIFT_BASE_BASE64_H_
