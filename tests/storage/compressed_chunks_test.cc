// Compressed chunks: every write path stores them, readers get the messages back byte for byte, the
// setting is per stream and kept across reopen, records that do not shrink stay raw, and a damaged
// compressed chunk is a Corruption error like any other (never a crash or a wrong message).
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "storage/chunk_compression.h"
#include "storage/chunk_format.h"
#include "storage/key_layout.h"
#include "storage/stream_store.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage {
namespace {

constexpr uint32_t kFirstStreamId = 1;

ChunkCompression Zstd(int level = 1) {
  ChunkCompression c;
  c.codec = ChunkCompression::Codec::kZstd;
  c.level = level;
  return c;
}

// Text that compresses as order messages do: repeated field names, a few distinct values.
std::vector<std::string> TextMessages(int n, int seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back("{\"order\": " + std::to_string(seed * 100000 + i) + ", \"region\": \"" +
                  (rng() % 2 != 0 ? "eu-west" : "us-east") + "\", \"amount\": " + std::to_string(rng() % 1000) +
                  ", \"note\": \"" + std::string(40 + rng() % 80, static_cast<char>('a' + rng() % 3)) + "\"}");
  }
  return out;
}

std::vector<std::string_view> Views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

std::unique_ptr<rocksdb::DB> OpenRaw(const std::string& path) {
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(rocksdb::Options(), path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<rocksdb::DB>(db);
}

TEST(CompressedChunks, EveryWritePathRoundTripsAndTheSettingSurvivesReopen) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 64;
  const std::vector<std::string> a = TextMessages(1000, 1), b = TextMessages(3000, 2);
  {
    auto store = OpenStore(dir.path(), o);
    StreamOptions so;
    so.compression = Zstd(3);
    ASSERT_TRUE(store->CreateStream("s", so).ok());
    ASSERT_TRUE(store->AppendBatch("s", Views(a)).ok());  // group commit
    ASSERT_TRUE(store->IngestBatch("s", Views(b)).ok());  // bulk
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Append("s", a[i]).ok());
  }
  auto store = OpenStore(dir.path(), o);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.compression, Zstd(3));
  EXPECT_EQ(info.message_count, 4010u);
  EXPECT_LT(info.bytes * 3, info.raw_bytes) << info.bytes << " of " << info.raw_bytes;
  const std::vector<OwnedRecord> got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 4010u);
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string& want = i < 1000 ? a[i] : i < 4000 ? b[i - 1000] : a[i - 4000];
    ASSERT_EQ(got[i].data, want) << i;
    EXPECT_EQ(got[i].offset, i);
  }
  // Seeks land inside compressed chunks too.
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", {}, &r).ok());
  ASSERT_TRUE(r->Seek(2345).ok());
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 2345u);
  EXPECT_EQ(rec.data, b[1345]);
}

TEST(CompressedChunks, RecordsThatDoNotShrinkAreStoredRaw) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  StreamOptions so;
  so.compression = Zstd();
  ASSERT_TRUE(store->CreateStream("s", so).ok());
  std::vector<std::string> random;
  for (int i = 0; i < 300; ++i) random.push_back(RandomBytes(500, i));
  ASSERT_TRUE(store->IngestBatch("s", Views(random)).ok());
  ASSERT_TRUE(store->AppendBatch("s", Views(random)).ok());
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.bytes, info.raw_bytes);
  const auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 600u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].data, random[i % 300]);
}

TEST(CompressedChunks, ASettingChangeAppliesToLaterChunksOnly) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  const std::vector<std::string> m = TextMessages(900, 3);
  const auto v = Views(m);
  ASSERT_TRUE(store->AppendBatch("s", std::span(v).subspan(0, 300)).ok());
  StreamInfo raw;
  ASSERT_TRUE(store->GetStreamInfo("s", &raw).ok());
  EXPECT_EQ(raw.bytes, raw.raw_bytes);
  ASSERT_TRUE(store->SetCompression("s", Zstd(-3)).ok());
  ASSERT_TRUE(store->AppendBatch("s", std::span(v).subspan(300, 300)).ok());
  ASSERT_TRUE(store->SetCompression("s", ChunkCompression()).ok());
  ASSERT_TRUE(store->IngestBatch("s", std::span(v).subspan(600)).ok());
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.compression, ChunkCompression());
  EXPECT_LT(info.bytes, info.raw_bytes);
  EXPECT_GT(info.bytes - raw.bytes, (info.raw_bytes - raw.raw_bytes) / 2);  // the last third is raw
  const auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 900u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].data, m[i]);
}

TEST(CompressedChunks, LevelsOutOfRangeAreRefused) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  EXPECT_TRUE(store->SetCompression("s", Zstd(20)).IsInvalidArgument());
  EXPECT_TRUE(store->SetCompression("s", Zstd(-8)).IsInvalidArgument());
  EXPECT_TRUE(store->SetCompression("nope", Zstd()).IsNotFound());
  TempDir other;
  StoreOptions o = FastOptions();
  o.compression = Zstd(99);
  std::unique_ptr<StreamStore> bad;
  EXPECT_TRUE(StreamStore::Open(other.path(), o, &bad).IsInvalidArgument());
}

TEST(CompressedChunks, EveryFlippedBitIsDetected) {
  TempDir dir;
  constexpr int kChunks = 200, kPerChunk = 16, kFlips = 150;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = kPerChunk;
  o.compression = Zstd();
  const std::vector<std::string> all = TextMessages(kChunks * kPerChunk, 4);
  {
    auto store = OpenStore(dir.path(), o);
    ASSERT_TRUE(store->CreateStream("s").ok());  // the store's default: zstd
    ASSERT_TRUE(store->IngestBatch("s", Views(all)).ok());
  }
  std::mt19937_64 rng(99);
  std::set<uint64_t> damaged;
  {
    auto db = OpenRaw(dir.path());
    for (int i = 0; i < kFlips; ++i) {
      const uint64_t first = (rng() % kChunks) * kPerChunk;
      if (!damaged.insert(first).second) continue;
      const std::string key = keys::ChunkKey(kFirstStreamId, first);
      std::string value;
      ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), key, &value).ok());
      ASSERT_EQ(value[5], static_cast<char>(kChunkFlagZstd));
      const size_t bit = rng() % (value.size() * 8);
      value[bit / 8] = static_cast<char>(value[bit / 8] ^ (1 << (bit % 8)));
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
    }
  }
  auto store = OpenStore(dir.path(), o);
  ReaderOptions skip;
  skip.on_corruption = CorruptionPolicy::kSkip;
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", skip, &r).ok());
  Record rec;
  uint64_t delivered = 0;
  while (r->Next(&rec)) {
    ASSERT_EQ(damaged.count(rec.offset / kPerChunk * kPerChunk), 0u) << rec.offset;
    ASSERT_EQ(rec.data, all[rec.offset]);
    ++delivered;
  }
  ASSERT_TRUE(r->status().ok());
  EXPECT_EQ(r->chunks_skipped(), damaged.size());
  EXPECT_EQ(delivered, (kChunks - damaged.size()) * kPerChunk);
}

TEST(CompressedChunks, AFrameThatDoesNotGiveTheHeadersRecordsIsCorruption) {
  TempDir dir;
  const std::vector<std::string> m = TextMessages(12, 5);
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(store->CreateStream("s").ok());
    const auto v = Views(m);
    for (size_t k = 0; k < 3; ++k) ASSERT_TRUE(store->AppendBatch("s", std::span(v).subspan(k * 4, 4)).ok());
  }
  {
    // Both checksums right, but the frame decompresses to fewer bytes than the header says (chunk 4),
    // or is no zstd frame at all (chunk 8).
    std::string records;
    const auto v = Views(m);
    AppendRecordsAtOneTime(std::span(v).subspan(4, 4), &records);
    std::string frame;
    ChunkCompressor compressor;
    ASSERT_TRUE(compressor.Compress(records, 1, &frame));
    std::string short_value, garbage_value;
    EncodeCompressedChunk(4, 1000, 4, static_cast<uint32_t>(records.size() + 7), frame, &short_value);
    EncodeCompressedChunk(8, 1000, 4, static_cast<uint32_t>(records.size()), std::string(64, 'z'), &garbage_value);
    auto db = OpenRaw(dir.path());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 4), short_value).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 8), garbage_value).ok());
  }
  auto store = OpenStore(dir.path());
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", {}, &r).ok());
  Record rec;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(r->Next(&rec));
  EXPECT_FALSE(r->Next(&rec));
  ASSERT_TRUE(r->status().IsCorruption());
  EXPECT_NE(r->status().why().find("chunk at offset 4 (offsets 4..7): compressed records decompress to another size"),
            std::string_view::npos)
      << r->status().ToString();
  r->SkipChunk();
  EXPECT_FALSE(r->Next(&rec));
  ASSERT_TRUE(r->status().IsCorruption());
  EXPECT_NE(r->status().why().find("chunk at offset 8 (offsets 8..11): "), std::string_view::npos)
      << r->status().ToString();
  r->SkipChunk();
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().ok());
}

TEST(ChunkCompression, CompressorAndDecompressorRoundTripAndRefuseWhatTheyShould) {
  ChunkCompressor c;
  ChunkDecompressor d;
  std::string records(100000, 'q'), frame = "kept";
  ASSERT_TRUE(c.Compress(records, 1, &frame));
  EXPECT_EQ(frame.substr(0, 4), "kept");  // appended after what was there
  std::string_view out;
  const char* why = nullptr;
  ASSERT_TRUE(d.Decompress(std::string_view(frame).substr(4), records.size(), &out, &why));
  EXPECT_EQ(out, records);
  EXPECT_FALSE(d.Decompress(std::string_view(frame).substr(4), records.size() - 1, &out, &why));
  EXPECT_FALSE(d.Decompress(std::string_view(frame).substr(4, 10), records.size(), &out, &why));
  EXPECT_FALSE(d.Decompress("not a frame at all", 5, &out, &why));
  ASSERT_NE(why, nullptr);
  const std::string noise = RandomBytes(4096, 1);
  std::string none;
  EXPECT_FALSE(c.Compress(noise, 1, &none));  // would not shrink
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(c.Compress("", 1, &none));
}

}  // namespace
}  // namespace sift::storage
