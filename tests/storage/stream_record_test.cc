#include "storage/stream_record.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "storage/crc32c.h"

namespace sift::storage {
namespace {

TEST(StreamRecordTest, RoundTrips) {
  const StreamRecord samples[] = {
      {},
      {1, {0, 0}, 0},
      {7, {1u << 30, 3'600'000}, 123'456'789},
      {0xfffffffe,
       {std::numeric_limits<uint64_t>::max(), std::numeric_limits<int64_t>::min()},
       std::numeric_limits<uint64_t>::max()},
      {42, {0, -1}, 1},
  };
  for (const StreamRecord& r : samples) {
    const std::string v = EncodeStreamRecord(r);
    ASSERT_EQ(v.size(), kStreamRecordSize);
    StreamRecord back{99, {99, 99}, 99};
    ASSERT_TRUE(DecodeStreamRecord(v, &back));
    EXPECT_EQ(back, r);
  }
}

// The bytes are the stored format (docs/store-format.md): version, id, max bytes, max age, floor,
// CRC32C of the 29 bytes before it, every integer little-endian.
TEST(StreamRecordTest, KnownImage) {
  const std::string v = EncodeStreamRecord({0x01020304, {0x1112131415161718, -2}, 0x2122232425262728});
  const std::string body(
      "\x01"
      "\x04\x03\x02\x01"
      "\x18\x17\x16\x15\x14\x13\x12\x11"
      "\xfe\xff\xff\xff\xff\xff\xff\xff"
      "\x28\x27\x26\x25\x24\x23\x22\x21",
      29);
  ASSERT_EQ(body.size(), 29u);
  const uint32_t crc = crc32c::Value(body.data(), body.size());
  std::string want = body;
  for (int i = 0; i < 4; ++i) want.push_back(static_cast<char>(crc >> (8 * i)));
  EXPECT_EQ(v, want);
}

TEST(StreamRecordTest, RefusesDamagedRecords) {
  const std::string good = EncodeStreamRecord({3, {100, 200}, 300});
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
  // Another version with a correct checksum is refused too.
  std::string v2 = good.substr(0, kStreamRecordSize - 4);
  v2[0] = 2;
  const uint32_t crc = crc32c::Value(v2.data(), v2.size());
  for (int i = 0; i < 4; ++i) v2.push_back(static_cast<char>(crc >> (8 * i)));
  EXPECT_FALSE(DecodeStreamRecord(v2, &r));
}

}  // namespace
}  // namespace sift::storage
