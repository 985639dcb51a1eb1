// Client-supplied bytes (user names, user-ids) made safe for a log line or an error description:
// printable ASCII stays, every other byte (and the backslash) becomes \xNN, and the text is cut after
// 256 bytes, so a hostile client can neither forge log lines nor flood them.
#ifndef SIFT_TOOLS_SERVE_PRINTABLE_TEXT_H_
#define SIFT_TOOLS_SERVE_PRINTABLE_TEXT_H_

#include <cstdio>
#include <string>
#include <string_view>

namespace sift::tools {

inline std::string PrintableText(std::string_view bytes) {
  std::string out;
  for (char c : bytes.substr(0, 256)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      out += c;
    } else {
      char hex[8];
      snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  if (bytes.size() > 256) out += "...";
  return out;
}

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_PRINTABLE_TEXT_H_
