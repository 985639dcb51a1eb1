// End-to-end tests of `sift users` (add, remove, list, grant, revoke): the file it writes (hashes, no
// clear text, mode 0600, canonical form), the password read from stdin or a file and never from a flag,
// and each refused input with exit 2 and its reason, the file untouched; concurrent edits of one file
// all kept, and symlinks followed to the file they name.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

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

// 50 edits of one file at once, half of them through a symlink to it, in 10 rounds (3 under
// AddressSanitizer, where each of the 500 processes starts several times slower): every edit exits 0
// and is in the file at the end. Each edit touches its own user or pattern, so each is checked: an add
// of a new user, a grant of a new pattern to an existing user, a revoke of one permission from her line.
TEST_F(CliUsersTest, ConcurrentEditsAreAllKept) {
  constexpr int kEdits = 50;
#ifdef __SANITIZE_ADDRESS__
  constexpr int kRounds = 3;
#else
  constexpr int kRounds = 10;
#endif
  std::string hash, error;
  ASSERT_TRUE(tools::HashPassword("x", &hash, &error)) << error;
  WriteFile(Path("pw"), "x\n");
  ASSERT_EQ(symlink("users", Path("link").c_str()), 0);
  auto user = [](int i) { return "user-" + std::to_string(i); };
  auto stream = [](int i) { return "stream-" + std::to_string(i); };
  for (int round = 0; round < kRounds; ++round) {
    tools::UsersFile start;
    for (int i = 0; i < kEdits; ++i) {
      start.users.push_back({user(i), hash, {{tools::kPermissionRead | tools::kPermissionWrite, stream(i)}}});
    }
    ASSERT_TRUE(tools::WriteUsersFile(Path("users"), start, &error)) << error;
    std::string script;
    for (int i = 0; i < kEdits; ++i) {
      const std::string n = std::to_string(i);
      std::string edit = Quote(SiftBinary()) + " users ";
      const std::string file = i % 2 == 0 ? "users" : "link";
      switch (i % 3) {
        case 0: edit += "add --file " + file + " new-" + n + " --password-file pw"; break;
        case 1: edit += "grant --file " + file + " " + user(i) + " create 'granted-" + n + "-*'"; break;
        default: edit += "revoke --file " + file + " " + user(i) + " write " + stream(i); break;
      }
      script += "(" + edit + " >/dev/null 2>err." + n + "; echo $? >rc." + n + ") &\n";
    }
    script += "wait\n";
    RunShell(script, dir_->path());

    tools::UsersFile end = Read();
    size_t added = 0;
    for (int i = 0; i < kEdits; ++i) {
      const std::string n = std::to_string(i);
      SCOPED_TRACE("round " + std::to_string(round) + ", edit " + n);
      ASSERT_EQ(ReadFile(Path("rc." + n)), "0\n") << ReadFile(Path("err." + n));
      const tools::UserEntry* u = end.Find(user(i));
      ASSERT_NE(u, nullptr);
      std::vector<std::string> lines;
      for (const tools::Grant& g : u->grants) lines.push_back(tools::PermissionsText(g.permissions) + " " + g.pattern);
      switch (i % 3) {
        case 0:
          ++added;
          ASSERT_NE(end.Find("new-" + n), nullptr);
          EXPECT_EQ(lines, std::vector<std::string>{"read,write " + stream(i)});
          break;
        case 1:
          EXPECT_EQ(lines, (std::vector<std::string>{"read,write " + stream(i), "create granted-" + n + "-*"}));
          break;
        default: EXPECT_EQ(lines, std::vector<std::string>{"read " + stream(i)}); break;
      }
    }
    EXPECT_EQ(end.users.size(), kEdits + added);
    struct stat st;
    ASSERT_EQ(lstat(Path("link").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
  }
}

// An edit through a symlink (or a chain of them) edits the file it names, in that file's folder, and
// leaves the links as they were; a link to a file not made yet has it made by `add`.
TEST_F(CliUsersTest, SymlinksAreFollowedToTheFileTheyName) {
  WriteFile(Path("pw"), "x\n");
  std::filesystem::create_directory(Path("etc"));
  ASSERT_EQ(Sift("users add --file etc/users alice --password-file pw").exit_code, 0);
  ASSERT_EQ(symlink("etc/users", Path("link").c_str()), 0);
  ASSERT_EQ(symlink(Path("link").c_str(), Path("chain").c_str()), 0);  // absolute, to a relative link
  CliResult r = Sift("users grant --file chain alice read 'orders-*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "granted read to 'alice' on 'orders-*'\n");
  r = Sift("users add --file link bob --password-file pw");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Sift("users list --file etc/users").out, "alice\n  read orders-*\nbob\n");
  EXPECT_EQ(Sift("users list --file chain").out, "alice\n  read orders-*\nbob\n");
  struct stat st;
  for (const char* name : {"link", "chain"}) {
    ASSERT_EQ(lstat(Path(name).c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << name;
    EXPECT_FALSE(std::filesystem::exists(Path(name) + ".lock")) << name;
  }
  ASSERT_EQ(stat(Path("etc/users").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(std::filesystem::exists(Path("etc/users.lock")));  // the lock is the target's

  // A dangling link: add makes the file it names.
  ASSERT_EQ(symlink("etc/new-users", Path("dangling").c_str()), 0);
  ASSERT_EQ(Sift("users add --file dangling carol --password-file pw").exit_code, 0);
  ASSERT_EQ(lstat(Path("dangling").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Sift("users list --file etc/new-users").out, "carol\n");
}

// An edit that cannot take the lock changes nothing and says why, exit 3.
TEST_F(CliUsersTest, AnEditThatCannotLockIsRefused) {
  WriteFile(Path("pw"), "x\n");
  ASSERT_EQ(Sift("users add --file users alice --password-file pw").exit_code, 0);
  const std::string before = ReadFile(Path("users"));
  ASSERT_EQ(symlink("loop-b", Path("loop-a").c_str()), 0);
  ASSERT_EQ(symlink("loop-a", Path("loop-b").c_str()), 0);
  CliResult r = Sift("users grant --file loop-a alice read x");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "sift: cannot lock users file: loop-a: too many levels of symbolic links\n");
  EXPECT_EQ(r.out, "");

  std::filesystem::remove(Path("users.lock"));
  std::filesystem::create_directory(Path("users.lock"));  // a lock file that cannot be opened
  r = Sift("users grant --file users alice read x");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "sift: cannot lock users file: users.lock: cannot create the lock file: Is a directory\n");
  r = Sift("users add --file users bob --password-file pw");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(ReadFile(Path("users")), before);
}

}  // namespace
}  // namespace sift::testing
