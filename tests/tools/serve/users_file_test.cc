// The users file: parsing (each bad line named with its reason), permissions, canonical formatting
// and the atomic rewrite.
#include "tools/serve/users_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace sift::tools {
namespace {

constexpr const char* kHash = "$y$j9T$nTQI4mph2U7rgscWqAg3t.$GBBh8caSXegAv8l7HTSOb1AvTWnC3vvnH1Q4mtXV.9.";

std::string User(const std::string& name) { return name + ":" + kHash + "\n"; }

std::string ParseError(const std::string& text) {
  UsersFile file;
  std::string error;
  EXPECT_FALSE(ParseUsersFile(text, "users", &file, &error)) << text;
  return error;
}

TEST(UsersFile, ParsesUsersTheirPermissionsAndTheAnonymousEntry) {
  const std::string text = "# users of sift serve\n\n" + User("alice") +
                           "  read,write orders-*\n"
                           "\tcreate   orders-*  \n"
                           "# a comment between users\n" +
                           User("bob") + "anonymous:\n  read public-*\r\n";
  UsersFile file;
  std::string error;
  ASSERT_TRUE(ParseUsersFile(text, "users", &file, &error)) << error;
  ASSERT_EQ(file.users.size(), 3u);
  EXPECT_EQ(file.header.size(), 2u);
  const UserEntry* alice = file.Find("alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->hash, kHash);
  ASSERT_EQ(alice->grants.size(), 2u);
  EXPECT_EQ(alice->grants[0].permissions, kPermissionRead | kPermissionWrite);
  EXPECT_EQ(alice->grants[1].permissions, kPermissionCreate);
  EXPECT_EQ(alice->grants[1].pattern, "orders-*");
  EXPECT_TRUE(file.Find("bob")->grants.empty());
  const UserEntry* anonymous = file.Find("anonymous");
  ASSERT_NE(anonymous, nullptr);
  EXPECT_EQ(anonymous->hash, "");
  EXPECT_EQ(anonymous->grants[0].pattern, "public-*");
  EXPECT_EQ(file.Find("carol"), nullptr);
}

TEST(UsersFile, PermissionsApplyPerPatternAndAddUp) {
  UserEntry u{"alice", kHash, {{kPermissionRead, "orders-*"}, {kPermissionWrite | kPermissionCreate, "orders-eu"}}};
  EXPECT_TRUE(u.Allows(kPermissionRead, "orders-us"));
  EXPECT_FALSE(u.Allows(kPermissionWrite, "orders-us"));
  EXPECT_TRUE(u.Allows(kPermissionWrite, "orders-eu"));
  EXPECT_TRUE(u.Allows(kPermissionRead, "orders-eu"));
  EXPECT_TRUE(u.Allows(kPermissionCreate, "orders-eu"));
  EXPECT_FALSE(u.Allows(kPermissionRead, "audit"));
  UserEntry none{"bob", kHash, {}};
  EXPECT_FALSE(none.Allows(kPermissionRead, "orders-us"));
}

TEST(UsersFile, EachBadLineIsNamedWithItsReason) {
  EXPECT_EQ(ParseError("# ok\nalice:s3cret\n"),
            "users: line 2: user 'alice': not a crypt(3) hash (clear-text passwords are refused; set one with "
            "'sift users add')");
  EXPECT_EQ(ParseError("alice:$6$salt$short\n"),
            "users: line 1: user 'alice': an incomplete $6$ hash (5 characters after the last '$', expected 86)");
  EXPECT_EQ(ParseError("alice\n"), "users: line 1: expected NAME:HASH");
  EXPECT_EQ(ParseError(":" + std::string(kHash) + "\n"), "users: line 1: empty user name");
  EXPECT_EQ(ParseError("#x\n  read *\n"), "users: line 2: a permission line before any user");
  EXPECT_EQ(ParseError(User("alice") + "  read\n"),
            "users: line 2: expected PERMISSIONS PATTERN, e.g. 'read orders-*'");
  EXPECT_EQ(ParseError(User("alice") + "  read,fly *\n"),
            "users: line 2: unknown permission 'fly' (expected read, write, create, manage or all)");
  EXPECT_EQ(ParseError(User("alice") + "  read, *\n"),
            "users: line 2: unknown permission '' (expected read, write, create, manage or all)");
  EXPECT_EQ(ParseError(User("alice") + "  read a b\n"),
            "users: line 2: a stream pattern may not hold white space or control characters");
  EXPECT_EQ(ParseError(User("alice") + User("alice")), "users: line 2: user 'alice' is listed twice");
  EXPECT_EQ(ParseError("anonymous:" + std::string(kHash) + "\n"),
            "users: line 1: the anonymous entry takes no password (write 'anonymous:')");
  EXPECT_EQ(ParseError("carol:\n"), "users: line 1: user 'carol' has no password hash");
  EXPECT_EQ(ParseError("al ice:" + std::string(kHash) + "\n"),
            "users: line 1: a user name may not hold ':', white space or control characters");
}

TEST(UsersFile, PermissionsTextRoundTrips) {
  for (Permissions p = 1; p <= (kAllPermissions | kPermissionManage); ++p) {
    Permissions back = 0;
    std::string why;
    ASSERT_TRUE(ParsePermissions(PermissionsText(p), &back, &why)) << why;
    EXPECT_EQ(back, p);
  }
  EXPECT_EQ(PermissionsText(kAllPermissions), "all");
  EXPECT_EQ(PermissionsText(kPermissionWrite | kPermissionRead), "read,write");
  EXPECT_EQ(PermissionsText(0), "none");
  EXPECT_EQ(PermissionsText(kAllPermissions | kPermissionManage), "all,manage");
  EXPECT_EQ(PermissionsText(kPermissionManage | kPermissionRead), "read,manage");
  Permissions parsed = 0;
  std::string why;
  ASSERT_TRUE(ParsePermissions("manage,all", &parsed, &why)) << why;
  EXPECT_EQ(parsed, kAllPermissions | kPermissionManage);
  ASSERT_TRUE(ParsePermissions("all", &parsed, &why)) << why;
  EXPECT_EQ(parsed & kPermissionManage, 0) << "'all' must not grant management";
}

TEST(UsersFile, FormatIsCanonicalAndParsesBack) {
  const std::string text = "# header\n" + User("alice") + "\t read,write,create   x*\n# dropped\n" + "anonymous:\n";
  UsersFile file;
  std::string error;
  ASSERT_TRUE(ParseUsersFile(text, "users", &file, &error)) << error;
  const std::string formatted = FormatUsersFile(file);
  EXPECT_EQ(formatted, "# header\n" + User("alice") + "  all x*\nanonymous:\n");
  UsersFile again;
  ASSERT_TRUE(ParseUsersFile(formatted, "users", &again, &error)) << error;
  EXPECT_EQ(FormatUsersFile(again), formatted);
}

TEST(UsersFile, WriteReplacesTheFileAtomicallyWithMode0600) {
  char folder[] = "/tmp/sift-users-test-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  const std::string path = std::string(folder) + "/users";
  {
    std::ofstream old(path);
    old << "old content\n";
  }
  chmod(path.c_str(), 0644);
  UsersFile file;
  file.users.push_back(UserEntry{"alice", kHash, {{kPermissionRead, "s"}}});
  std::string error;
  ASSERT_TRUE(WriteUsersFile(path, file, &error)) << error;
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  UsersFile back;
  ASSERT_TRUE(ReadUsersFile(path, &back, &error)) << error;
  EXPECT_EQ(FormatUsersFile(back), FormatUsersFile(file));
  // No temporary file is left beside it.
  std::string listing;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    listing += entry.path().filename().string() + ";";
  EXPECT_EQ(listing, "users;");
  // A folder that does not exist: an error naming the file, nothing written.
  EXPECT_FALSE(WriteUsersFile(std::string(folder) + "/missing/users", file, &error));
  EXPECT_NE(error.find("/missing/users: cannot create a temporary file"), std::string::npos) << error;
  EXPECT_FALSE(ReadUsersFile(std::string(folder) + "/missing/users", &back, &error));
  EXPECT_NE(error.find("cannot read the users file"), std::string::npos) << error;
  unlink(path.c_str());
  rmdir(folder);
}

}  // namespace
}  // namespace sift::tools
