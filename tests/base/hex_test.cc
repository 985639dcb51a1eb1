#include "base/hex.h"

#include <gtest/gtest.h>

#include <string>

namespace sift::base {
namespace {

TEST(HexTest, DigitValues) {
  EXPECT_EQ(HexDigitValue('0'), 0);
  EXPECT_EQ(HexDigitValue('9'), 9);
  EXPECT_EQ(HexDigitValue('a'), 10);
  EXPECT_EQ(HexDigitValue('f'), 15);
  EXPECT_EQ(HexDigitValue('A'), 10);
  EXPECT_EQ(HexDigitValue('F'), 15);
  for (char c : std::string("gG/:@`xX -\0", 11)) EXPECT_EQ(HexDigitValue(c), -1) << int{c};
  EXPECT_EQ(HexDigitValue(static_cast<char>(0xb0)), -1);
  EXPECT_TRUE(IsHexDigit('c'));
  EXPECT_FALSE(IsHexDigit('z'));
}

TEST(HexTest, DecodesPairsOfEitherCase) {
  std::string out = "old";
  ASSERT_TRUE(DecodeHex("", &out));
  EXPECT_EQ(out, "");
  ASSERT_TRUE(DecodeHex("00ff7Fa0", &out));
  EXPECT_EQ(out, std::string("\x00\xff\x7f\xa0", 4));
  ASSERT_TRUE(DecodeHex("DEADbeef", &out));
  EXPECT_EQ(out, "\xde\xad\xbe\xef");
}

TEST(HexTest, RefusesOddLengthAndBadDigits) {
  std::string out;
  EXPECT_FALSE(DecodeHex("0", &out));
  EXPECT_FALSE(DecodeHex("abc", &out));
  EXPECT_FALSE(DecodeHex("0g", &out));
  EXPECT_FALSE(DecodeHex("g0", &out));
  EXPECT_FALSE(DecodeHex("00 1", &out));
  EXPECT_FALSE(DecodeHex("0x00", &out));
  EXPECT_FALSE(DecodeHex(" 00 ", &out));
}

TEST(HexTest, EncodesInTheCaseAsked) {
  std::string s = "id:";
  AppendHex(std::string_view("\x01\xab\xff\x00", 4), HexCase::kLower, &s);
  EXPECT_EQ(s, "id:01abff00");
  s.clear();
  AppendHex(std::string_view("\x01\xab\xff\x00", 4), HexCase::kUpper, &s);
  EXPECT_EQ(s, "01ABFF00");
  char buf[2];
  EncodeHex("\x5e", 1, buf, HexCase::kUpper);
  EXPECT_EQ(std::string(buf, 2), "5E");
  EXPECT_EQ(HexDigit(0xc, HexCase::kLower), 'c');
  EXPECT_EQ(HexDigit(0xc, HexCase::kUpper), 'C');
}

TEST(HexTest, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (HexCase c : {HexCase::kLower, HexCase::kUpper}) {
    std::string text, back;
    AppendHex(all, c, &text);
    ASSERT_EQ(text.size(), 512u);
    ASSERT_TRUE(DecodeHex(text, &back));
    EXPECT_EQ(back, all);
  }
}

}  // namespace
}  // namespace sift::base
