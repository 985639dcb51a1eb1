#include "base/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace sift::base {
namespace {

std::string Encoded(uint64_t v) {
  std::string s;
  AppendVarint64(&s, v);
  return s;
}

const char* Decode(const std::string& s, uint64_t* v) { return DecodeVarint64(s.data(), s.data() + s.size(), v); }

TEST(VarintTest, KnownImages) {
  EXPECT_EQ(Encoded(0), std::string("\x00", 1));
  EXPECT_EQ(Encoded(1), "\x01");
  EXPECT_EQ(Encoded(127), "\x7f");
  EXPECT_EQ(Encoded(128), "\x80\x01");
  EXPECT_EQ(Encoded(300), "\xac\x02");
  EXPECT_EQ(Encoded(16383), "\xff\x7f");
  EXPECT_EQ(Encoded(16384), "\x80\x80\x01");
  EXPECT_EQ(Encoded(std::numeric_limits<uint64_t>::max()), "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
}

TEST(VarintTest, RoundTripsAtEveryLength) {
  std::vector<uint64_t> values = {0, 1, std::numeric_limits<uint64_t>::max()};
  for (int bits = 1; bits < 64; ++bits) {
    const uint64_t edge = uint64_t{1} << bits;
    values.insert(values.end(), {edge - 1, edge, edge + 1});
  }
  for (const uint64_t v : values) {
    const std::string s = Encoded(v);
    EXPECT_EQ(s.size(), VarintLength(v)) << v;
    EXPECT_LE(s.size(), kMaxVarint64Bytes);
    uint64_t back = 0;
    EXPECT_EQ(Decode(s, &back), s.data() + s.size()) << v;
    EXPECT_EQ(back, v);
  }
}

TEST(VarintTest, DecodeStopsAtTheVarintsEnd) {
  const std::string s = Encoded(300) + Encoded(5);
  uint64_t v = 0;
  const char* p = Decode(s, &v);
  ASSERT_EQ(p, s.data() + 2);
  EXPECT_EQ(v, 300u);
  p = DecodeVarint64(p, s.data() + s.size(), &v);
  EXPECT_EQ(p, s.data() + s.size());
  EXPECT_EQ(v, 5u);
}

TEST(VarintTest, TruncatedInputIsReported) {
  uint64_t v = 42;
  EXPECT_EQ(Decode("", &v), nullptr);
  EXPECT_EQ(Decode("\x80", &v), nullptr);
  EXPECT_EQ(Decode("\xff\xff", &v), nullptr);
  const std::string max = Encoded(std::numeric_limits<uint64_t>::max());
  for (size_t n = 0; n < max.size(); ++n) EXPECT_EQ(DecodeVarint64(max.data(), max.data() + n, &v), nullptr) << n;
  EXPECT_EQ(v, 42u);  // untouched by a failed decode
}

TEST(VarintTest, OverlongInputIsReported) {
  uint64_t v = 42;
  // An eleventh byte, and tenth bytes whose bits pass 64.
  EXPECT_EQ(Decode(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x80\x00", 11), &v), nullptr);
  EXPECT_EQ(Decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", &v), nullptr);
  EXPECT_EQ(Decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", &v), nullptr);
  EXPECT_EQ(Decode(std::string("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 11), &v), nullptr);
  EXPECT_EQ(v, 42u);
}

TEST(VarintTest, ZeroPaddedEncodingsReadAsTheirValue) {
  uint64_t v = 42;
  EXPECT_NE(Decode(std::string("\x80\x00", 2), &v), nullptr);
  EXPECT_EQ(v, 0u);
  EXPECT_NE(Decode(std::string("\x81\x80\x80\x80\x80\x80\x80\x80\x80\x00", 10), &v), nullptr);
  EXPECT_EQ(v, 1u);
}

}  // namespace
}  // namespace sift::base
