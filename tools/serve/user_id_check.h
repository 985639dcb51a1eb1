// The user-id check of published messages: a message whose properties carry a user-id (core part 3,
// section 3.2.4) must name the user who published it, byte for byte, or it is refused. Only the
// properties section is read (amqp/message_view.h), not the whole message.
#ifndef SIFT_TOOLS_SERVE_USER_ID_CHECK_H_
#define SIFT_TOOLS_SERVE_USER_ID_CHECK_H_

#include <string>
#include <string_view>

namespace sift::tools {

// True when `message` (encoded sections) has no user-id, or one equal to `user`. False with *claimed
// set to the user-id (bytes outside printable ASCII as \xNN) otherwise. A user-id that cannot be read
// (malformed or mistyped properties) passes here: the append's validation refuses such a message.
bool UserIdMatches(std::string_view message, std::string_view user, std::string* claimed);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_USER_ID_CHECK_H_
