#include "base/hex.h"

namespace sift::base {

bool DecodeHex(std::string_view text, std::string* out) {
  if (text.size() % 2 != 0) return false;
  out->resize(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = HexDigitValue(text[i]), lo = HexDigitValue(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i / 2] = static_cast<char>(hi * 16 + lo);
  }
  return true;
}

void AppendHex(std::string_view bytes, HexCase letter_case, std::string* out) {
  const size_t at = out->size();
  out->resize(at + 2 * bytes.size());
  EncodeHex(bytes.data(), bytes.size(), out->data() + at, letter_case);
}

}  // namespace sift::base
