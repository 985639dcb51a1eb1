#include "base/byte_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace sift::base {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(ByteOrderTest, KnownImages) {
  char buf[8];
  StoreLE16(buf, 0x0102);
  EXPECT_EQ(std::string(buf, 2), Bytes({0x02, 0x01}));
  StoreBE16(buf, 0x0102);
  EXPECT_EQ(std::string(buf, 2), Bytes({0x01, 0x02}));
  StoreLE32(buf, 0x01020304);
  EXPECT_EQ(std::string(buf, 4), Bytes({0x04, 0x03, 0x02, 0x01}));
  StoreBE32(buf, 0x01020304);
  EXPECT_EQ(std::string(buf, 4), Bytes({0x01, 0x02, 0x03, 0x04}));
  StoreLE64(buf, 0x0102030405060708);
  EXPECT_EQ(std::string(buf, 8), Bytes({0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}));
  StoreBE64(buf, 0x0102030405060708);
  EXPECT_EQ(std::string(buf, 8), Bytes({0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}));

  const std::string le = Bytes({0xf8, 0xf7, 0xf6, 0xf5, 0xf4, 0xf3, 0xf2, 0xf1});
  EXPECT_EQ(LoadLE16(le.data()), 0xf7f8u);
  EXPECT_EQ(LoadLE32(le.data()), 0xf5f6f7f8u);
  EXPECT_EQ(LoadLE64(le.data()), 0xf1f2f3f4f5f6f7f8u);
  EXPECT_EQ(LoadBE16(le.data()), 0xf8f7u);
  EXPECT_EQ(LoadBE32(le.data()), 0xf8f7f6f5u);
  EXPECT_EQ(LoadBE64(le.data()), 0xf8f7f6f5f4f3f2f1u);
}

TEST(ByteOrderTest, AppendWritesTheSameBytesAsStore) {
  std::string s = "x";
  AppendLE16(&s, 0xabcd);
  AppendLE32(&s, 0x01234567);
  AppendLE64(&s, 0x0123456789abcdef);
  AppendBE16(&s, 0xabcd);
  AppendBE32(&s, 0x01234567);
  AppendBE64(&s, 0x0123456789abcdef);
  EXPECT_EQ(s, "x" + Bytes({0xcd, 0xab}) + Bytes({0x67, 0x45, 0x23, 0x01}) +
                   Bytes({0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}) + Bytes({0xab, 0xcd}) +
                   Bytes({0x01, 0x23, 0x45, 0x67}) + Bytes({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}));
}

TEST(ByteOrderTest, RoundTripsAtEveryWidthAndOrderOnUnalignedBuffers) {
  const uint64_t samples[] = {0,
                              1,
                              0x80,
                              0xff,
                              0x100,
                              0x7fff,
                              0x8000,
                              0xffff,
                              0x12345678,
                              0x80000000,
                              0xffffffff,
                              0x100000000,
                              0x0123456789abcdef,
                              std::numeric_limits<uint64_t>::max()};
  uint8_t buf[9];
  for (uint64_t v : samples) {
    const auto v16 = static_cast<uint16_t>(v);
    const auto v32 = static_cast<uint32_t>(v);
    StoreLE16(buf + 1, v16);
    EXPECT_EQ(LoadLE16(buf + 1), v16);
    StoreBE16(buf + 1, v16);
    EXPECT_EQ(LoadBE16(buf + 1), v16);
    StoreLE32(buf + 1, v32);
    EXPECT_EQ(LoadLE32(buf + 1), v32);
    StoreBE32(buf + 1, v32);
    EXPECT_EQ(LoadBE32(buf + 1), v32);
    StoreLE64(buf + 1, v);
    EXPECT_EQ(LoadLE64(buf + 1), v);
    StoreBE64(buf + 1, v);
    EXPECT_EQ(LoadBE64(buf + 1), v);
    std::string s;
    AppendLE64(&s, v);
    AppendBE64(&s, v);
    EXPECT_EQ(LoadLE64(s.data()), v);
    EXPECT_EQ(LoadBE64(s.data() + 8), v);
  }
}

TEST(ByteOrderTest, BigEndianBytesSortAsNumbers) {
  // Why RocksDB keys hold big-endian integers: bytewise order is numeric order.
  std::string a, b;
  AppendBE64(&a, 0xff);
  AppendBE64(&b, 0x100);
  EXPECT_LT(a, b);
}

static_assert(ByteSwap16(0x0102) == 0x0201);
static_assert(ByteSwap32(0x01020304) == 0x04030201);
static_assert(ByteSwap64(0x0102030405060708) == 0x0807060504030201);

}  // namespace
}  // namespace sift::base
