// The user-id check, on the encoded message through the lazy MessageView (see user_id_check.h).
#include "tools/serve/user_id_check.h"

#include <cstdint>
#include <cstdio>

#include "engine/amqp/message_view.h"

namespace sift::tools {

bool UserIdMatches(std::string_view message, std::string_view user, std::string* claimed) {
  amqp::MessageView view({reinterpret_cast<const uint8_t*>(message.data()), message.size()});
  const selector::Value id = view.Property(amqp::PropertiesField::kUserId);
  if (id.type != selector::ValueType::kBinary || id.bytes() == user) return true;
  claimed->clear();
  for (char c : id.bytes().substr(0, 256)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      *claimed += c;
    } else {
      char hex[8];
      snprintf(hex, sizeof hex, "\\x%02x", u);
      *claimed += hex;
    }
  }
  return false;
}

}  // namespace sift::tools
