// CRC32C: known test vectors (RFC 3720 B.4), hardware and table implementations agree on every
// length and alignment, and Extend composes.
#include "storage/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace sift::storage {
namespace {

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xE3069283u);
  std::string zeros(32, '\0'), ones(32, '\xff');
  EXPECT_EQ(crc32c::Value(zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(crc32c::Value(ones.data(), ones.size()), 0x62A8AB43u);
  std::string inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  EXPECT_EQ(crc32c::Value(inc.data(), inc.size()), 0x46DD794Eu);
  EXPECT_EQ(crc32c::ExtendPortable(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c::Value("", 0), 0u);
}

TEST(Crc32c, HardwareAndPortableAgreeOnAllLengthsAndAlignments) {
  std::mt19937_64 rng(1);
  std::string data(3 * 4096 * 3 + 100, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  for (size_t len : {0, 1, 7, 8, 9, 63, 64, 4095, 4096, 12287, 12288, 12289, 24576, 36963}) {
    for (size_t align = 0; align < 8; ++align) {
      if (align + len > data.size()) continue;
      EXPECT_EQ(crc32c::Value(data.data() + align, len), crc32c::ExtendPortable(0, data.data() + align, len))
          << "len " << len << " align " << align;
    }
  }
  for (int i = 0; i < 200; ++i) {
    const size_t len = rng() % data.size();
    EXPECT_EQ(crc32c::Value(data.data(), len), crc32c::ExtendPortable(0, data.data(), len)) << len;
  }
}

TEST(Crc32c, ExtendComposes) {
  std::string data(50000, 'q');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131);
  const uint32_t whole = crc32c::Value(data.data(), data.size());
  for (size_t split : {0, 1, 100, 12288, 30000, 50000}) {
    EXPECT_EQ(crc32c::Extend(crc32c::Value(data.data(), split), data.data() + split, data.size() - split), whole)
        << split;
  }
}

TEST(Crc32c, EverySingleBitFlipChangesTheChecksum) {
  std::string data(1500, '\0');
  std::mt19937_64 rng(2);
  for (auto& c : data) c = static_cast<char>(rng());
  const uint32_t good = crc32c::Value(data.data(), data.size());
  for (size_t bit = 0; bit < data.size() * 8; ++bit) {
    data[bit / 8] = static_cast<char>(data[bit / 8] ^ (1 << (bit % 8)));
    ASSERT_NE(crc32c::Value(data.data(), data.size()), good) << bit;
    data[bit / 8] = static_cast<char>(data[bit / 8] ^ (1 << (bit % 8)));
  }
}

}  // namespace
}  // namespace sift::storage
