#include "base/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace sift::base {
namespace {

std::string Encode(std::string_view bytes) {
  std::string s;
  AppendBase64(bytes, &s);
  return s;
}

// The decoded bytes, or "!" + reason + "@" + position.
std::string Decode(std::string_view text) {
  std::string out;
  Base64Error error;
  if (DecodeBase64(text, &out, &error)) return out;
  return "!" + std::string(Base64ReasonText(error.reason)) + "@" + std::to_string(error.position);
}

TEST(Base64Test, EncodesRfc4648TestVectors) {
  EXPECT_EQ(Encode(""), "");
  EXPECT_EQ(Encode("f"), "Zg==");
  EXPECT_EQ(Encode("fo"), "Zm8=");
  EXPECT_EQ(Encode("foo"), "Zm9v");
  EXPECT_EQ(Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Encode("\xfb\xff\xbf"), "+/+/");  // the standard alphabet on output
  EXPECT_EQ(Base64EncodedSize(0), 0u);
  EXPECT_EQ(Base64EncodedSize(4), 8u);
}

TEST(Base64Test, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(Decode(""), "");
  EXPECT_EQ(Decode("Zg=="), "f");
  EXPECT_EQ(Decode("Zg"), "f");
  EXPECT_EQ(Decode("Zm8="), "fo");
  EXPECT_EQ(Decode("Zm8"), "fo");
  EXPECT_EQ(Decode("Zm9v"), "foo");
  EXPECT_EQ(Decode("Zm9vYmFy"), "foobar");
}

TEST(Base64Test, AcceptsBothAlphabets) {
  EXPECT_EQ(Decode("+/+/"), "\xfb\xff\xbf");
  EXPECT_EQ(Decode("-_-_"), "\xfb\xff\xbf");
  EXPECT_EQ(Decode("+_-/"), "\xfb\xff\xbf");
}

TEST(Base64Test, RefusesBadPadding) {
  EXPECT_EQ(Decode("Zg="), "!bad padding@2");
  EXPECT_EQ(Decode("Zm9vY=="), "!bad padding@5");
  EXPECT_EQ(Decode("="), "!bad padding@0");
  // A third '=' is not padding; nor is '=' before the end.
  EXPECT_EQ(Decode("Z==="), "!bad character@1");
  EXPECT_EQ(Decode("Zg==Zg=="), "!bad character@2");
  EXPECT_EQ(Decode("===="), "!bad character@0");
}

TEST(Base64Test, RefusesCharactersOutsideBothAlphabets) {
  EXPECT_EQ(Decode("Zm9v\n"), "!bad character@4");
  EXPECT_EQ(Decode("Zm 9v"), "!bad character@2");
  EXPECT_EQ(Decode("%m9v"), "!bad character@0");
  EXPECT_EQ(Decode("Zm9."), "!bad character@3");
  EXPECT_EQ(Decode(std::string_view("Zm\0v", 4)), "!bad character@2");
  EXPECT_EQ(Decode("Zm9\xc3"), "!bad character@3");
}

TEST(Base64Test, RefusesAOneCharacterFinalGroup) {
  EXPECT_EQ(Decode("Z"), "!truncated final group@0");
  EXPECT_EQ(Decode("Zm9vY"), "!truncated final group@4");
}

TEST(Base64Test, RefusesNonZeroUnusedBits) {
  // "Zg" is 'f'; "Zh" sets one of the four unused bits, "Zm9" is "fo", "Zm-" sets unused bits too.
  EXPECT_EQ(Decode("Zh"), "!unused bits of the final group are not zero@1");
  EXPECT_EQ(Decode("Zh=="), "!unused bits of the final group are not zero@1");
  EXPECT_EQ(Decode("Zm9="), "!unused bits of the final group are not zero@2");
  EXPECT_EQ(Decode("Zm_"), "!unused bits of the final group are not zero@2");
  EXPECT_EQ(Decode("Zm8"), "fo");
}

TEST(Base64Test, RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int n = 0; n < 300; ++n) {
    ASSERT_EQ(Decode(Encode(bytes)), bytes) << n;
    std::string unpadded = Encode(bytes);
    while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
    ASSERT_EQ(Decode(unpadded), bytes) << n;
    bytes.push_back(static_cast<char>(n * 37 + 11));
  }
}

}  // namespace
}  // namespace sift::base
