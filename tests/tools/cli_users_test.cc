// End-to-end tests of `sift users` (add, remove, list, grant, revoke): the file it writes (hashes, no
// clear text, mode 0600, canonical form), the password read from stdin or a file and never from a flag,
// and each refused input with exit 2 and its reason, the file untouched.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "tests/tools/cli_runner.h"
#include "tools/serve/password_hash.h"
#include "tools/serve/users_file.h"

namespace sift::testing {
namespace {

class CliUsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<ScratchDir>(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  CliResult Sift(const std::string& args, const std::string& stdin_file = "") {
    return RunSift(args, dir_->path(), stdin_file);
  }
  std::string Path(const std::string& name) { return *dir_ / name; }
  tools::UsersFile Read() {
    tools::UsersFile file;
    std::string error;
    EXPECT_TRUE(tools::ReadUsersFile(Path("users"), &file, &error)) << error;
    return file;
  }
  // Expects exit 2 with `text` in the one error line, and the users file unchanged.
  void ExpectRefused(const std::string& args, const std::string& text, const std::string& stdin_file = "") {
    const std::string before = ReadFile(Path("users"));
    CliResult r = Sift(args, stdin_file);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.ErrLines().size(), 1u) << r.err;
    EXPECT_EQ(ReadFile(Path("users")), before) << args;
  }

  std::unique_ptr<ScratchDir> dir_;
};

TEST_F(CliUsersTest, AddHashesThePasswordFromStdinOrAFile) {
  WriteFile(Path("alice.pw"), "alice pass\n");
  CliResult r = Sift("users add --file users alice", Path("alice.pw"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "added user 'alice'\n");
  WriteFile(Path("bob.pw"), "bob:pass:word\r\n");
  r = Sift("users add --file users bob --password-file bob.pw");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFile(Path("users"));
  EXPECT_EQ(text.find("alice pass"), std::string::npos);
  EXPECT_EQ(text.find("bob:pass"), std::string::npos);
  struct stat st;
  ASSERT_EQ(stat(Path("users").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  tools::UsersFile file = Read();
  ASSERT_EQ(file.users.size(), 2u);
  EXPECT_TRUE(tools::VerifyPassword("alice pass", file.Find("alice")->hash));
  EXPECT_TRUE(tools::VerifyPassword("bob:pass:word", file.Find("bob")->hash));  // the \r is not part of it

  // Adding her again changes the password and keeps her permissions.
  ASSERT_EQ(Sift("users grant --file users alice read 'orders-*'").exit_code, 0);
  WriteFile(Path("new.pw"), "new pass\n");
  r = Sift("users add --file users alice", Path("new.pw"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "changed the password of 'alice'\n");
  file = Read();
  EXPECT_TRUE(tools::VerifyPassword("new pass", file.Find("alice")->hash));
  EXPECT_FALSE(tools::VerifyPassword("alice pass", file.Find("alice")->hash));
  ASSERT_EQ(file.Find("alice")->grants.size(), 1u);
}

TEST_F(CliUsersTest, GrantRevokeAndListEditPermissionLines) {
  WriteFile(Path("pw"), "x\n");
  ASSERT_EQ(Sift("users add --file users alice", Path("pw")).exit_code, 0);
  ASSERT_EQ(Sift("users grant --file users alice read 'orders-*'").exit_code, 0);
  CliResult r = Sift("users grant --file users alice write,create 'orders-*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "granted write,create to 'alice' on 'orders-*'\n");
  ASSERT_EQ(Sift("users grant --file users alice read audit").exit_code, 0);
  ASSERT_EQ(Sift("users grant --file users anonymous read 'public-*'").exit_code, 0);  // creates the entry
  r = Sift("users list --file users");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "alice\n  all orders-*\n  read audit\nanonymous\n  read public-*\n");
  r = Sift("users revoke --file users alice write 'orders-*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "revoked write from 'alice' on 'orders-*'\n");
  ASSERT_EQ(Sift("users revoke --file users alice read audit").exit_code, 0);  // the line goes
  r = Sift("users list --file users");
  EXPECT_EQ(r.out, "alice\n  read,create orders-*\nanonymous\n  read public-*\n");
  r = Sift("users remove --file users alice");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "removed user 'alice'\n");
  EXPECT_EQ(Sift("users list --file users").out, "anonymous\n  read public-*\n");
}

TEST_F(CliUsersTest, BadInputIsRefusedWithItsReasonAndTheFileUntouched) {
  WriteFile(Path("pw"), "x\n");
  WriteFile(Path("empty.pw"), "\n");
  ASSERT_EQ(Sift("users add --file users alice", Path("pw")).exit_code, 0);
  ExpectRefused("users add --file users carol", "empty password", Path("empty.pw"));
  ExpectRefused("users add --file users carol", "no password", "/dev/null");
  ExpectRefused("users add --file users 'a:b'", "may not hold ':'", Path("pw"));
  ExpectRefused("users add --file users anonymous", "the anonymous entry has no password", Path("pw"));
  ExpectRefused("users add --file users carol --password x", "--password");  // no such flag
  ExpectRefused("users remove --file users carol", "no user 'carol'");
  ExpectRefused("users grant --file users carol read x", "no user 'carol'");
  ExpectRefused("users grant --file users alice fly x", "unknown permission 'fly'");
  ExpectRefused("users grant --file users alice read 'a b'", "may not hold white space");
  ExpectRefused("users revoke --file users alice read x", "user 'alice' has no read permission on 'x'");
  WriteFile(Path("clear"), "alice:s3cret\n");
  CliResult r = Sift("users list --file clear");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("clear: line 1: user 'alice': not a crypt(3) hash"), std::string::npos) << r.err;
  r = Sift("users list --file missing");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing: cannot read the users file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sift::testing
