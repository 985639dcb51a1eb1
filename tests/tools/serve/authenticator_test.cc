// Authenticator: which clients are admitted, which mechanisms are offered, password checks and
// permissions, with and without a users file.
#include "tools/serve/authenticator.h"

#include <gtest/gtest.h>
#include <proton/transport.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "tools/serve/password_hash.h"

namespace sift::tools {
namespace {

// A users file in a fresh temporary folder, removed at the end.
class UsersFileOnDisk {
 public:
  explicit UsersFileOnDisk(const std::string& text) {
    char folder[] = "/tmp/sift-authenticator-test-XXXXXX";
    folder_ = mkdtemp(folder);
    path_ = folder_ + "/users";
    std::ofstream(path_) << text;
  }
  ~UsersFileOnDisk() {
    unlink(path_.c_str());
    rmdir(folder_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string folder_, path_;
};

std::string Hash(const std::string& password) {
  std::string hash, error;
  EXPECT_TRUE(HashPassword(password, &hash, &error)) << error;
  return hash;
}

TEST(Authenticator, WithoutUsersFileAnonymousMayDoAllButOnlyFromLoopback) {
  Authenticator a(/*allow_remote_anonymous=*/false, /*external=*/false, /*verbose=*/false);
  EXPECT_TRUE(a.open());
  EXPECT_TRUE(a.offers_anonymous());
  EXPECT_TRUE(a.Allows("anonymous", kPermissionCreate, "any-stream"));
  // A transport with no peer address (not connected) is no loopback peer.
  pn_transport_t* t = pn_transport();
  std::string why;
  EXPECT_FALSE(a.Admits(t, "anonymous", &why));
  EXPECT_NE(why.find("from loopback only"), std::string::npos) << why;
  Authenticator remote(/*allow_remote_anonymous=*/true, false, false);
  EXPECT_TRUE(remote.Admits(t, "anonymous", &why));
  EXPECT_FALSE(PeerIsLoopback(t));
  EXPECT_EQ(PeerName(t), "unknown peer");
  pn_transport_free(t);
}

TEST(Authenticator, UsersFileDecidesPasswordsPermissionsAndAnonymous) {
  UsersFileOnDisk file("alice:" + Hash("s3cret") + "\n  read,write orders-*\nbob:" + Hash("pw") + "\nanonymous:\n");
  Authenticator a(false, false, false);
  std::string error;
  ASSERT_TRUE(a.Load(file.path(), &error)) << error;
  EXPECT_FALSE(a.open());
  EXPECT_FALSE(a.offers_anonymous());  // the entry grants nothing
  EXPECT_TRUE(a.Check("alice", "s3cret"));
  EXPECT_FALSE(a.Check("alice", "S3cret"));
  EXPECT_FALSE(a.Check("carol", "s3cret"));
  EXPECT_FALSE(a.Check("anonymous", ""));
  EXPECT_TRUE(a.Allows("alice", kPermissionRead, "orders-1"));
  EXPECT_TRUE(a.Allows("alice", kPermissionWrite, "orders-1"));
  EXPECT_FALSE(a.Allows("alice", kPermissionCreate, "orders-1"));
  EXPECT_FALSE(a.Allows("alice", kPermissionRead, "audit"));
  EXPECT_FALSE(a.Allows("bob", kPermissionRead, "orders-1"));
  EXPECT_FALSE(a.Allows("carol", kPermissionRead, "orders-1"));
  pn_transport_t* t = pn_transport();  // with a users file, Proton enforces SASL: any peer may try
  std::string why;
  EXPECT_TRUE(a.Admits(t, "alice", &why));
  pn_transport_free(t);

  UsersFileOnDisk granted("anonymous:\n  read public-*\n");
  Authenticator b(false, false, false);
  ASSERT_TRUE(b.Load(granted.path(), &error)) << error;
  EXPECT_TRUE(b.offers_anonymous());
  EXPECT_TRUE(b.Allows("anonymous", kPermissionRead, "public-news"));
  EXPECT_FALSE(b.Allows("anonymous", kPermissionWrite, "public-news"));
}

TEST(Authenticator, BadUsersFileIsRefusedNamingTheLine) {
  UsersFileOnDisk file("# users\nalice:s3cret\n");
  Authenticator a(false, false, false);
  std::string error;
  EXPECT_FALSE(a.Load(file.path(), &error));
  EXPECT_NE(error.find(file.path() + ": line 2: user 'alice': not a crypt(3) hash"), std::string::npos) << error;
  EXPECT_FALSE(a.Load("/nonexistent/users", &error));
  EXPECT_NE(error.find("/nonexistent/users: cannot read the users file"), std::string::npos) << error;
}

}  // namespace
}  // namespace sift::tools
