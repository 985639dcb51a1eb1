// The user-id check, on the encoded message through the lazy MessageView (see user_id_check.h).
#include "tools/serve/user_id_check.h"

#include <cstdint>

#include "amqp/message_view.h"
#include "tools/serve/printable_text.h"

namespace sift::tools {

bool UserIdMatches(std::string_view message, std::string_view user, std::string* claimed) {
  amqp::MessageView view({reinterpret_cast<const uint8_t*>(message.data()), message.size()});
  const amqp::Value id = view.Property(amqp::PropertiesField::kUserId);
  if (id.type != amqp::ValueType::kBinary || id.bytes() == user) return true;
  *claimed = PrintableText(id.bytes());
  return false;
}

}  // namespace sift::tools
