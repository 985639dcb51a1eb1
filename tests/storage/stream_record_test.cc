#include "storage/stream_record_format.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "storage/crc32c.h"

namespace sift::storage {
namespace {

using Ms = std::chrono::milliseconds;

ChunkCompression Zstd(int level) {
  ChunkCompression c;
  c.codec = ChunkCompression::Codec::kZstd;
  c.level = level;
  return c;
}

TEST(StreamRecordTest, RoundTrips) {
  const StreamRecord samples[] = {
      {},
      {1, {0, Ms(0)}, 0, {}},
      {7, {1u << 30, Ms(3'600'000)}, 123'456'789, Zstd(1)},
      {0xfffffffe,
       {std::numeric_limits<uint64_t>::max(), Ms(std::numeric_limits<int64_t>::min())},
       std::numeric_limits<uint64_t>::max(),
       Zstd(-7)},
      {42, {0, Ms(-1)}, 1, Zstd(19)},
  };
  for (const StreamRecord& r : samples) {
    const std::string v = EncodeStreamRecord(r);
    ASSERT_EQ(v.size(), kStreamRecordSize);
    StreamRecord back{99, {99, Ms(99)}, 99, Zstd(5)};
    ASSERT_TRUE(DecodeStreamRecord(v, &back));
    EXPECT_EQ(back, r);
  }
}

// The bytes are the stored format (docs/store-format.md): version, id, max bytes, max age, floor,
// codec, level, CRC32C of the 31 bytes before it, every integer little-endian.
TEST(StreamRecordTest, KnownImage) {
  const std::string v = EncodeStreamRecord({0x01020304, {0x1112131415161718, Ms(-2)}, 0x2122232425262728, Zstd(-3)});
  const std::string body(
      "\x02"
      "\x04\x03\x02\x01"
      "\x18\x17\x16\x15\x14\x13\x12\x11"
      "\xfe\xff\xff\xff\xff\xff\xff\xff"
      "\x28\x27\x26\x25\x24\x23\x22\x21"
      "\x01\xfd",
      31);
  ASSERT_EQ(body.size(), 31u);
  const uint32_t crc = crc32c::Value(body.data(), body.size());
  std::string want = body;
  for (int i = 0; i < 4; ++i) want.push_back(static_cast<char>(crc >> (8 * i)));
  EXPECT_EQ(v, want);
}

// Version 1 (before compressed chunks): 33 bytes, no codec and level; read as uncompressed.
TEST(StreamRecordTest, ReadsVersionOne) {
  std::string v1(
      "\x01"
      "\x04\x03\x02\x01"
      "\x18\x17\x16\x15\x14\x13\x12\x11"
      "\xfe\xff\xff\xff\xff\xff\xff\xff"
      "\x28\x27\x26\x25\x24\x23\x22\x21",
      29);
  const uint32_t crc = crc32c::Value(v1.data(), v1.size());
  for (int i = 0; i < 4; ++i) v1.push_back(static_cast<char>(crc >> (8 * i)));
  StreamRecord r{9, {9, Ms(9)}, 9, Zstd(9)};
  ASSERT_TRUE(DecodeStreamRecord(v1, &r));
  EXPECT_EQ(r, (StreamRecord{0x01020304, {0x1112131415161718, Ms(-2)}, 0x2122232425262728, {}}));
  EXPECT_FALSE(DecodeStreamRecord(v1 + "xx", &r));  // a version 1 record of version 2's size
}

TEST(StreamRecordTest, RefusesDamagedRecords) {
  const std::string good = EncodeStreamRecord({3, {100, Ms(200)}, 300, Zstd(1)});
  StreamRecord r;
  ASSERT_TRUE(DecodeStreamRecord(good, &r));
  EXPECT_FALSE(DecodeStreamRecord("", &r));
  EXPECT_FALSE(DecodeStreamRecord(good.substr(0, kStreamRecordSize - 1), &r));
  EXPECT_FALSE(DecodeStreamRecord(good + "x", &r));
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    EXPECT_FALSE(DecodeStreamRecord(bad, &r)) << i;
  }
  // Another version, an unknown codec or a level out of range, with a correct checksum, are refused.
  for (const auto& [at, byte] : {std::pair<size_t, char>{0, 3}, {29, 2}, {30, 20}, {30, static_cast<char>(-8)}}) {
    std::string other = good.substr(0, kStreamRecordSize - 4);
    other[at] = byte;
    const uint32_t crc = crc32c::Value(other.data(), other.size());
    for (int i = 0; i < 4; ++i) other.push_back(static_cast<char>(crc >> (8 * i)));
    EXPECT_FALSE(DecodeStreamRecord(other, &r)) << at;
  }
}

}  // namespace
}  // namespace sift::storage
