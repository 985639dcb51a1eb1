// Chunk format: round trip, the exact header layout of docs/store-format.md, and every kind of
// malformed value rejected with its reason (never a crash or an out-of-range read).
#include "storage/chunk_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "storage/crc32c.h"

namespace sift::storage {
namespace {

std::string Build(uint64_t first, int64_t ts, const std::vector<std::string>& msgs) {
  ChunkBuilder b;
  b.Reset(first, ts);
  for (const auto& m : msgs) b.Add(ts, m);
  return std::string(b.Finish());
}

uint64_t LE(const std::string& v, size_t at, int n) {
  uint64_t x = 0;
  for (int i = n - 1; i >= 0; --i) x = (x << 8) | static_cast<uint8_t>(v[at + i]);
  return x;
}

TEST(ChunkFormat, RoundTrip) {
  const std::vector<std::string> msgs = {"a", "", std::string(300, 'z'), "last"};
  const std::string v = Build(1000, 1764460800000, msgs);
  ChunkHeader h;
  const char* why = nullptr;
  ASSERT_TRUE(DecodeChunk(v, true, &h, &why)) << why;
  EXPECT_EQ(h.count, 4u);
  EXPECT_EQ(h.first_offset, 1000u);
  EXPECT_EQ(h.first_timestamp_ms, 1764460800000);
  EXPECT_EQ(h.last_timestamp_ms, 1764460800000);
  const char* p = v.data() + kChunkHeaderSize;
  const char* limit = v.data() + v.size();
  for (const auto& m : msgs) {
    int64_t delta;
    std::string_view data;
    ASSERT_TRUE(ReadRecord(&p, limit, &delta, &data));
    EXPECT_EQ(delta, 0);
    EXPECT_EQ(data, m);
  }
  EXPECT_EQ(p, limit);
}

TEST(ChunkFormat, HeaderLayoutIsAsDocumented) {
  const std::string v = Build(0x0102030405060708, 77, {"hello"});
  ASSERT_EQ(v.size(), kChunkHeaderSize + 1 + 1 + 5);
  EXPECT_EQ(v.substr(0, 4), "SFTC");
  EXPECT_EQ(LE(v, 4, 1), 1u);   // version
  EXPECT_EQ(LE(v, 5, 1), 0u);   // flags
  EXPECT_EQ(LE(v, 6, 2), 48u);  // header size
  EXPECT_EQ(LE(v, 8, 4), 1u);   // count
  EXPECT_EQ(LE(v, 12, 4), 7u);  // payload bytes
  EXPECT_EQ(LE(v, 16, 8), 0x0102030405060708u);
  EXPECT_EQ(LE(v, 24, 8), 77u);
  EXPECT_EQ(LE(v, 32, 8), 77u);
  EXPECT_EQ(LE(v, 40, 4), crc32c::Value(v.data() + 48, 7));
  EXPECT_EQ(LE(v, 44, 4), crc32c::Value(v.data(), 44));
  EXPECT_EQ(v.substr(48), std::string("\x00\x05hello", 7));
}

TEST(ChunkFormat, TimestampDeltas) {
  ChunkBuilder b;
  b.Reset(5, 1000);
  b.Add(1000, "x");
  b.Add(1300, "y");
  const std::string v(b.Finish());
  ChunkHeader h;
  const char* why;
  ASSERT_TRUE(DecodeChunk(v, true, &h, &why));
  EXPECT_EQ(h.last_timestamp_ms, 1300);
  const char* p = v.data() + kChunkHeaderSize;
  int64_t d;
  std::string_view data;
  ASSERT_TRUE(ReadRecord(&p, v.data() + v.size(), &d, &data));
  EXPECT_EQ(d, 0);
  ASSERT_TRUE(ReadRecord(&p, v.data() + v.size(), &d, &data));
  EXPECT_EQ(d, 300);
}

// Rewrites the header checksum so a test can reach the checks behind it.
void Reseal(std::string* v) {
  const uint32_t c = crc32c::Value(v->data(), 44);
  std::memcpy(v->data() + 44, &c, 4);
}

void ExpectRejected(const std::string& v, const char* reason) {
  ChunkHeader h;
  const char* why = nullptr;
  EXPECT_FALSE(DecodeChunk(v, true, &h, &why));
  ASSERT_NE(why, nullptr);
  EXPECT_STREQ(why, reason);
}

TEST(ChunkFormat, MalformedValuesAreRejectedWithAReason) {
  const std::string good = Build(10, 5, {"abc", "de"});
  ExpectRejected("", "value shorter than a chunk header");
  ExpectRejected(good.substr(0, 47), "value shorter than a chunk header");
  std::string v = good;
  v[20] ^= 1;
  ExpectRejected(v, "header checksum mismatch");
  v = good;
  v[0] = 'X';
  Reseal(&v);
  ExpectRejected(v, "bad magic");
  v = good;
  v[4] = 2;
  Reseal(&v);
  ExpectRejected(v, "unsupported chunk version");
  v = good;
  v[6] = 40;
  Reseal(&v);
  ExpectRejected(v, "bad header size or flags");
  v = good;
  std::memset(v.data() + 8, 0, 4);
  Reseal(&v);
  ExpectRejected(v, "empty chunk");
  ExpectRejected(good + "x", "payload size does not match the value size");
  v = good;
  v.back() ^= 0x40;
  ExpectRejected(v, "payload checksum mismatch");
  v = good;
  v[24] = 9;  // first timestamp after the last
  Reseal(&v);
  ExpectRejected(v, "last timestamp before first timestamp");
  v = good;
  std::memset(v.data() + 16, 0xff, 8);
  Reseal(&v);
  ExpectRejected(v, "offset range overflows");
}

TEST(ChunkFormat, MalformedRecordsAreRejected) {
  int64_t d;
  std::string_view data;
  const std::string truncated_len("\x00\x85", 2);
  const char* p = truncated_len.data();
  EXPECT_FALSE(ReadRecord(&p, p + truncated_len.size(), &d, &data));
  const std::string too_long(
      "\x00\x05"
      "abc",
      5);
  p = too_long.data();
  EXPECT_FALSE(ReadRecord(&p, p + too_long.size(), &d, &data));
  const std::string overlong_varint("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x00", 11);
  p = overlong_varint.data();
  EXPECT_FALSE(ReadRecord(&p, p + overlong_varint.size(), &d, &data));
  p = too_long.data();
  EXPECT_FALSE(ReadRecord(&p, p, &d, &data));  // empty input
}

}  // namespace
}  // namespace sift::storage
