// UserIdMatches: the properties' user-id against the authenticated user, read from the encoded bytes.
#include "tools/serve/user_id_check.h"

#include <gtest/gtest.h>
#include <proton/codec.h>
#include <proton/message.h>

#include <string>
#include <vector>

namespace sift::tools {
namespace {

std::string Encode(const char* user_id, size_t size) {
  pn_message_t* m = pn_message();
  if (user_id != nullptr) pn_message_set_user_id(m, pn_bytes(size, user_id));
  pn_message_set_subject(m, "s");
  pn_data_put_string(pn_message_body(m), pn_bytes(4, "body"));
  std::vector<char> buf(4096);
  size_t n = buf.size();
  EXPECT_EQ(pn_message_encode(m, buf.data(), &n), 0);
  pn_message_free(m);
  return std::string(buf.data(), n);
}

TEST(UserIdCheck, AbsentOrEqualUserIdPasses) {
  std::string claimed;
  EXPECT_TRUE(UserIdMatches(Encode(nullptr, 0), "alice", &claimed));
  EXPECT_TRUE(UserIdMatches(Encode("alice", 5), "alice", &claimed));
}

TEST(UserIdCheck, OtherUserIdFailsNamingIt) {
  std::string claimed;
  EXPECT_FALSE(UserIdMatches(Encode("bob", 3), "alice", &claimed));
  EXPECT_EQ(claimed, "bob");
  EXPECT_FALSE(UserIdMatches(Encode("alic", 4), "alice", &claimed));   // byte-equal, not a prefix
  EXPECT_FALSE(UserIdMatches(Encode("Alice", 5), "alice", &claimed));  // nor case-blind
  EXPECT_FALSE(UserIdMatches(Encode("al\nce", 5), "alice", &claimed));
  EXPECT_EQ(claimed, "al\\x0ace");  // printable in a description
  EXPECT_FALSE(UserIdMatches(Encode("", 0), "alice", &claimed));
}

TEST(UserIdCheck, MalformedMessageIsLeftToValidation) {
  std::string claimed;
  EXPECT_TRUE(UserIdMatches(std::string("\x00\x53\x73\xc0\x05", 5), "alice", &claimed));  // truncated list
  EXPECT_TRUE(UserIdMatches("", "alice", &claimed));
}

}  // namespace
}  // namespace sift::tools
