// Stores written before compressed chunks (store format 1: 28-byte index entries, 33-byte stream
// records) open and read the same, read-only and for writing, and take appends, raw and compressed.
// tests/storage/data/store-v1 was written by that version of `sift append`: stream "orders", 300
// `sift gen --seed 7` orders in 6 chunks ingested as table files, and stream "kept" (retention
// max-age 3650d), 20 `--profile wide --seed 8` messages appended through the write-ahead log.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "storage/crc32c.h"
#include "storage/stream_store.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage {
namespace {

// The CRC32C of the stream read back as a record file (4-byte big-endian length, then the message),
// which is what `sift gen` wrote: CRC32C of the record files appended then.
uint32_t RecordFileCrc(const std::vector<OwnedRecord>& records) {
  uint32_t crc = 0;
  for (const OwnedRecord& r : records) {
    char length[4];
    base::StoreBE32(length, static_cast<uint32_t>(r.data.size()));
    crc = crc32c::Extend(crc, length, 4);
    crc = crc32c::Extend(crc, r.data.data(), r.data.size());
  }
  return crc;
}

constexpr uint32_t kOrdersCrc = 0xd29a056c;
constexpr uint32_t kKeptCrc = 0xf2c3da70;

class StoreFormatV1 : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(SIFT_TEST_DATA "/store-v1", dir_.path(), std::filesystem::copy_options::recursive);
  }

  void ExpectTheSameStreams(StreamStore& store) {
    StreamInfo orders, kept;
    ASSERT_TRUE(store.GetStreamInfo("orders", &orders).ok());
    ASSERT_TRUE(store.GetStreamInfo("kept", &kept).ok());
    EXPECT_EQ(orders.message_count, 300u);
    EXPECT_EQ(orders.chunk_count, 6u);
    EXPECT_EQ(orders.raw_bytes, orders.bytes);
    EXPECT_EQ(orders.compression, ChunkCompression());
    EXPECT_EQ(kept.message_count, 20u);
    EXPECT_EQ(kept.retention.max_age.count(), int64_t{3650} * 86'400'000);
    const std::vector<OwnedRecord> o = ReadAll(store, "orders");
    ASSERT_EQ(o.size(), 300u);
    EXPECT_EQ(RecordFileCrc(o), kOrdersCrc);
    const std::vector<OwnedRecord> k = ReadAll(store, "kept");
    ASSERT_EQ(k.size(), 20u);
    EXPECT_EQ(RecordFileCrc(k), kKeptCrc);
  }

  TempDir dir_;
};

TEST_F(StoreFormatV1, OpensReadOnlyAndReadsTheSame) {
  StoreOptions o = FastOptions();
  o.read_only = true;
  o.create_if_missing = false;
  auto store = OpenStore(dir_.path(), o);
  ASSERT_NE(store, nullptr);
  ExpectTheSameStreams(*store);
}

TEST_F(StoreFormatV1, TakesAppendsRawAndCompressedAndReadsThemBackAfterReopen) {
  std::vector<std::string> more;
  for (int i = 0; i < 500; ++i)
    more.push_back("appended after the upgrade " + std::to_string(i) + std::string(300, 'x'));
  const std::vector<std::string_view> views(more.begin(), more.end());
  {
    auto store = OpenStore(dir_.path());
    ASSERT_NE(store, nullptr);
    ExpectTheSameStreams(*store);
    ASSERT_TRUE(store->AppendBatch("orders", std::span(views).subspan(0, 100)).ok());
    ChunkCompression zstd;
    zstd.codec = ChunkCompression::Codec::kZstd;
    ASSERT_TRUE(store->SetCompression("orders", zstd).ok());
    ASSERT_TRUE(store->AppendBatch("orders", std::span(views).subspan(100, 100)).ok());
    ASSERT_TRUE(store->IngestBatch("orders", std::span(views).subspan(200)).ok());
  }
  auto store = OpenStore(dir_.path());
  ASSERT_NE(store, nullptr);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("orders", &info).ok());
  EXPECT_EQ(info.compression.codec, ChunkCompression::Codec::kZstd);
  EXPECT_EQ(info.message_count, 800u);
  EXPECT_LT(info.bytes, info.raw_bytes);
  const std::vector<OwnedRecord> all = ReadAll(*store, "orders");
  ASSERT_EQ(all.size(), 800u);
  EXPECT_EQ(RecordFileCrc(std::vector<OwnedRecord>(all.begin(), all.begin() + 300)), kOrdersCrc);
  for (size_t i = 0; i < more.size(); ++i) EXPECT_EQ(all[300 + i].data, more[i]) << i;
}

}  // namespace
}  // namespace sift::storage
