// The text forms typed JSON gives the byte-carrying types, read into bytes: binary as base64 or hex
// digits, uuid as 8-4-4-4-12 hex digits; see json_value.h.
#include "amqp/json_value.h"

#include <fmt/format.h>

#include "base/base64.h"
#include "base/hex.h"

namespace sift::amqp {

bool ParseUuid(std::string_view text, pn_uuid_t* uuid) {
  if (text.size() != 36) return false;
  int n = 0;
  for (size_t i = 0; i < 36; ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
      continue;
    }
    int hi = base::HexDigitValue(text[i]);
    if (hi < 0) return false;
    if (n % 2 == 0) {
      uuid->bytes[n / 2] = static_cast<char>(hi << 4);
    } else {
      uuid->bytes[n / 2] = static_cast<char>(static_cast<uint8_t>(uuid->bytes[n / 2]) | hi);
    }
    ++n;
  }
  return true;
}

bool DecodeBinaryText(std::string_view text, bool hex, std::string* out, std::string* why) {
  if (hex) {
    if (!base::DecodeHex(text, out)) {
      *why = "binary value with \"encoding\": \"hex\" must be pairs of hex digits";
      return false;
    }
    return true;
  }
  base::Base64Error error;
  if (base::DecodeBase64(text, out, &error)) return true;
  if (error.reason == base::Base64Error::Reason::kBadCharacter) {
    *why = fmt::format("binary value is not valid base64 (character {} at {})",
                       Json(std::string(1, text[error.position])).dump(), error.position);
  } else {
    *why = fmt::format("binary value is not valid base64 ({})", base::Base64ReasonText(error.reason));
  }
  return false;
}

}  // namespace sift::amqp
