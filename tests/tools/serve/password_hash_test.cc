// Password hashes: made salted in yescrypt, verified, and stored hashes checked for form.
#include "tools/serve/password_hash.h"

#include <gtest/gtest.h>

#include <string>

namespace sift::tools {
namespace {

TEST(PasswordHash, HashVerifiesItsPasswordOnly) {
  std::string hash, error;
  ASSERT_TRUE(HashPassword("correct horse", &hash, &error)) << error;
  EXPECT_EQ(hash.rfind("$y$", 0), 0u) << hash;
  EXPECT_EQ(hash.find("correct horse"), std::string::npos);
  EXPECT_TRUE(CheckPasswordHash(hash, &error)) << error;
  EXPECT_TRUE(VerifyPassword("correct horse", hash));
  EXPECT_FALSE(VerifyPassword("correct hors", hash));
  EXPECT_FALSE(VerifyPassword("correct horse ", hash));
  EXPECT_FALSE(VerifyPassword("", hash));
  EXPECT_FALSE(VerifyPassword(std::string("correct horse\0x", 15), hash));  // crypt would cut at the NUL
}

TEST(PasswordHash, EachHashHasItsOwnSalt) {
  std::string a, b, error;
  ASSERT_TRUE(HashPassword("same", &a, &error));
  ASSERT_TRUE(HashPassword("same", &b, &error));
  EXPECT_NE(a, b);
  EXPECT_TRUE(VerifyPassword("same", a));
  EXPECT_TRUE(VerifyPassword("same", b));
}

TEST(PasswordHash, Sha512CryptFromOtherToolsVerifies) {
  // `openssl passwd -6 -salt saltsalt secret`
  const std::string hash =
      "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1";
  std::string why;
  EXPECT_TRUE(CheckPasswordHash(hash, &why)) << why;
  EXPECT_TRUE(VerifyPassword("secret", hash));
  EXPECT_FALSE(VerifyPassword("Secret", hash));
}

TEST(PasswordHash, NonHashesAreRefusedWithAReason) {
  std::string why;
  EXPECT_FALSE(CheckPasswordHash("s3cret", &why));
  EXPECT_NE(why.find("not a crypt(3) hash"), std::string::npos) << why;
  EXPECT_FALSE(CheckPasswordHash("", &why));
  EXPECT_FALSE(CheckPasswordHash("$1$saltsalt$abcdefghijklmnopqrstuv", &why));  // MD5: weak
  EXPECT_NE(why.find("'$1$'"), std::string::npos) << why;
  EXPECT_FALSE(CheckPasswordHash("$y$j9T$nTQI4mph2U7rgscWqAg3t.$GBBh8caSXegAv8l7HTSOb1AvTWnC3vvnH1Q4mtXV", &why));
  EXPECT_NE(why.find("incomplete $y$ hash"), std::string::npos) << why;
  EXPECT_FALSE(CheckPasswordHash("$y$j9T$nTQI4mph2U7rgscWqAg3t.$GBBh8caSXegAv8l7HTSOb1AvTWnC3vvnH1Q4mtXV.9 ", &why));
  EXPECT_NE(why.find("only letters"), std::string::npos) << why;
  EXPECT_FALSE(CheckPasswordHash("$6$", &why));
}

TEST(PasswordHash, AMalformedStoredHashNeverVerifies) {
  EXPECT_FALSE(VerifyPassword("", "s3cret"));
  EXPECT_FALSE(VerifyPassword("s3cret", "s3cret"));
  EXPECT_FALSE(VerifyPassword("x", "$y$"));
  EXPECT_FALSE(VerifyPassword("x", ""));
}

}  // namespace
}  // namespace sift::tools
