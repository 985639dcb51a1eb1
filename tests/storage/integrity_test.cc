// Integrity: chunk checksums catch every flipped bit (injected through RocksDB itself), a damaged
// chunk is a Corruption error naming stream, chunk and offset range, the reader stops or skips as
// asked, and damaged RocksDB files make Open or reads fail with an error instead of crashing.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "storage/chunk_format.h"
#include "storage/crc32c.h"
#include "storage/key_layout.h"
#include "storage/stream_store.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage {
namespace {

// Opens the store's RocksDB database directly (the store must be closed).
std::unique_ptr<rocksdb::DB> OpenRaw(const std::string& path) {
  rocksdb::Options o;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(o, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<rocksdb::DB>(db);
}

// The first stream gets id 1 (ids count from 1 and are never reused).
constexpr uint32_t kFirstStreamId = 1;

// Writes `chunks` chunks of `per_chunk` random messages to stream "s"; returns all messages.
std::vector<std::string> FillStream(StreamStore& store, int chunks, int per_chunk, uint64_t seed) {
  std::vector<std::string> all;
  EXPECT_TRUE(store.CreateStream("s").ok());
  for (int k = 0; k < chunks; ++k) {
    std::vector<std::string> msgs;
    for (int i = 0; i < per_chunk; ++i)
      msgs.push_back(RandomBytes(20 + (seed + k * 31 + i * 7) % 90, seed * 1000003 + k * 101 + i));
    std::vector<std::string_view> v(msgs.begin(), msgs.end());
    EXPECT_TRUE(store.AppendBatch("s", v).ok());
    all.insert(all.end(), msgs.begin(), msgs.end());
  }
  return all;
}

TEST(Integrity, EveryFlippedBitInAChunkIsDetected) {
  TempDir dir;
  constexpr int kChunks = 1100, kPerChunk = 8, kFlips = 1000;
  std::vector<std::string> all;
  {
    auto store = OpenStore(dir.path());
    all = FillStream(*store, kChunks, kPerChunk, 7);
  }
  // Flip one random bit in each of 1000 distinct chunks, anywhere in the value (header or records).
  std::mt19937_64 rng(12345);
  std::set<uint64_t> damaged;  // first offsets of damaged chunks
  {
    auto db = OpenRaw(dir.path());
    std::vector<int> order(kChunks);
    for (int i = 0; i < kChunks; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (int i = 0; i < kFlips; ++i) {
      const uint64_t first = static_cast<uint64_t>(order[i]) * kPerChunk;
      const std::string key = keys::ChunkKey(kFirstStreamId, first);
      std::string value;
      ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), key, &value).ok());
      const size_t bit = rng() % (value.size() * 8);
      value[bit / 8] = static_cast<char>(value[bit / 8] ^ (1 << (bit % 8)));
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
      damaged.insert(first);
    }
  }
  auto store = OpenStore(dir.path());
  // Stop mode: every damaged chunk stops the reader with Corruption naming it; SkipChunk continues.
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", ReaderOptions{}, &r).ok());
  std::set<uint64_t> reported;
  uint64_t delivered = 0;
  Record rec;
  for (;;) {
    if (r->Next(&rec)) {
      ASSERT_EQ(damaged.count(rec.offset / kPerChunk * kPerChunk), 0u)
          << "delivered from a damaged chunk: " << rec.offset;
      ASSERT_EQ(rec.data, all[rec.offset]);
      ++delivered;
      continue;
    }
    if (r->status().ok()) break;
    ASSERT_TRUE(r->status().IsCorruption()) << r->status().ToString();
    const std::string msg(r->status().why());
    const uint64_t first = r->position() / kPerChunk * kPerChunk;
    EXPECT_NE(msg.find("stream 's'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("chunk at offset " + std::to_string(first) + " (offsets " + std::to_string(first) + ".." +
                       std::to_string(first + kPerChunk - 1) + ")"),
              std::string::npos)
        << msg;
    reported.insert(first);
    r->SkipChunk();
    ASSERT_TRUE(r->status().ok());
  }
  EXPECT_EQ(reported, damaged);  // 100% detection, no false alarm
  EXPECT_EQ(delivered, uint64_t{(kChunks - kFlips) * kPerChunk});
  EXPECT_EQ(r->chunks_skipped(), uint64_t{kFlips});

  // Skip mode: the same, without stopping.
  ReaderOptions skip;
  skip.on_corruption = CorruptionPolicy::kSkip;
  auto got = ReadAll(*store, "s", skip);
  EXPECT_EQ(got.size(), uint64_t{(kChunks - kFlips) * kPerChunk});
  for (const auto& g : got) ASSERT_EQ(g.data, all[g.offset]);
}

TEST(Integrity, StopModeStaysStoppedUntilSeek) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    FillStream(*store, 3, 4, 1);
  }
  {
    auto db = OpenRaw(dir.path());
    const std::string key = keys::ChunkKey(kFirstStreamId, 4);
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), key, &value).ok());
    value.back() ^= 0x01;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
  }
  auto store = OpenStore(dir.path());
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", {}, &r).ok());
  Record rec;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(r->Next(&rec));
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().IsCorruption());
  EXPECT_NE(r->status().why().find("payload checksum mismatch"), std::string_view::npos) << r->status().ToString();
  EXPECT_FALSE(r->Next(&rec));  // still stopped
  EXPECT_TRUE(r->status().IsCorruption());
  ASSERT_TRUE(r->Seek(8).ok());
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 8u);
}

TEST(Integrity, ChunkValueReplacedOrTruncatedIsCorruption) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    FillStream(*store, 4, 4, 2);
  }
  {
    auto db = OpenRaw(dir.path());
    std::string v0, v1;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), keys::ChunkKey(kFirstStreamId, 0), &v0).ok());
    // Chunk 4 gets chunk 0's (valid) value: its header names the wrong first offset.
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 4), v0).ok());
    // Chunk 8 is truncated to half.
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), keys::ChunkKey(kFirstStreamId, 8), &v1).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 8), v1.substr(0, v1.size() / 2)).ok());
    // Chunk 12 is shorter than a header.
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 12), "tiny").ok());
  }
  auto store = OpenStore(dir.path());
  ReaderOptions skip;
  skip.on_corruption = CorruptionPolicy::kSkip;
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", skip, &r).ok());
  auto got = Drain(*r);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got.back().offset, 3u);
  EXPECT_EQ(r->chunks_skipped(), 3u);
  EXPECT_NE(r->last_skipped().why().find("chunk at offset 12 (offsets 12..15)"), std::string_view::npos)
      << r->last_skipped().ToString();
}

TEST(Integrity, RecordsThatContradictAValidHeaderAreCorruption) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    FillStream(*store, 3, 2, 6);
  }
  {
    // Well-sealed chunks (both checksums right) whose records contradict the header: a record
    // timestamp after the header's last one, and a count larger than the records present.
    ChunkBuilder b;
    b.Reset(2, 1000);
    b.Add(1000, "a");
    b.Add(1500, "b");
    std::string v(b.Finish());
    const int64_t last = 1200;
    std::memcpy(v.data() + 32, &last, 8);
    uint32_t crc = crc32c::Value(v.data(), 44);
    std::memcpy(v.data() + 44, &crc, 4);
    auto db = OpenRaw(dir.path());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 2), v).ok());
    ChunkBuilder c;
    c.Reset(4, 1000);
    c.Add(1000, "x");
    c.Add(1000, "y");
    std::string w(c.Finish());
    const uint32_t count = 3;
    std::memcpy(w.data() + 8, &count, 4);
    crc = crc32c::Value(w.data(), 44);
    std::memcpy(w.data() + 44, &crc, 4);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 4), w).ok());
  }
  auto store = OpenStore(dir.path());
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store->NewReader("s", {}, &r).ok());
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  ASSERT_TRUE(r->Next(&rec));
  ASSERT_TRUE(r->Next(&rec));  // offset 2 ("a") is consistent with the header
  EXPECT_EQ(rec.offset, 2u);
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().IsCorruption());
  EXPECT_NE(r->status().why().find("chunk at offset 2 (offsets 2..3): record at offset 3 has a timestamp after"),
            std::string_view::npos)
      << r->status().ToString();
  r->SkipChunk();
  ASSERT_TRUE(r->status().ok());
  ASSERT_TRUE(r->Next(&rec));  // chunk 4 delivers its two records, then finds the third missing
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.data, "y");
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().IsCorruption());
  EXPECT_NE(r->status().why().find("malformed record at offset 6"), std::string_view::npos) << r->status().ToString();
}

TEST(Integrity, DamagedLastChunkStillRecoversTheNextOffset) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    FillStream(*store, 3, 5, 3);
  }
  {
    auto db = OpenRaw(dir.path());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::ChunkKey(kFirstStreamId, 10), std::string(60, 'z')).ok());
  }
  auto store = OpenStore(dir.path());
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 15u);  // from the chunk index: offsets are not reused
  uint64_t off;
  ASSERT_TRUE(store->Append("s", "x", &off).ok());
  EXPECT_EQ(off, 15u);
}

// A last chunk without an index entry (its entry lost behind the store's back) is found when the store
// opens and indexed from its own header, read-only opens included: its offsets are read and never reused.
TEST(Integrity, LastChunkWithoutIndexEntryIsIndexedFromItsHeader) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    FillStream(*store, 3, 5, 3);
  }
  {
    auto db = OpenRaw(dir.path());
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), keys::IndexKey(kFirstStreamId, 10)).ok());
  }
  for (const bool read_only : {true, false}) {
    StoreOptions o = FastOptions();
    o.read_only = read_only;
    auto store = OpenStore(dir.path(), o);
    StreamInfo info;
    ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
    EXPECT_EQ(info.next_offset, 15u);
    EXPECT_EQ(ReadAll(*store, "s").size(), 15u);
    std::vector<ChunkInfo> chunks;
    ASSERT_TRUE(store->ListChunks("s", &chunks).ok());
    ASSERT_EQ(chunks.size(), 3u);
    EXPECT_EQ(chunks[2].first_offset, 10u);
    EXPECT_EQ(chunks[2].count, 5u);
    if (read_only) continue;
    uint64_t off;
    ASSERT_TRUE(store->Append("s", "x", &off).ok());
    EXPECT_EQ(off, 15u);
  }
}

TEST(Integrity, DamagedStreamRecordFailsOpen) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    FillStream(*store, 1, 1, 4);
  }
  {
    auto db = OpenRaw(dir.path());
    std::string v;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), keys::StreamKey("s"), &v).ok());
    v[3] ^= 0x10;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), keys::StreamKey("s"), v).ok());
  }
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(dir.path(), FastOptions(), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.why().find("stream 's'"), std::string_view::npos) << s.ToString();
}

// Overwrites `count` bytes at the middle of every file whose name ends with `suffix`.
int DamageFiles(const std::string& dir, const std::string& suffix, size_t count) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const auto size = std::filesystem::file_size(e.path());
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    for (size_t i = 0; i < count; ++i) f.put(static_cast<char>(0xA5 ^ i));
    ++n;
  }
  return n;
}

// Writes a stream and makes RocksDB move it from the log into table (.sst) files.
void FillAndFlush(const std::string& path) {
  {
    auto store = OpenStore(path);
    FillStream(*store, 200, 20, 5);
  }
  auto db = OpenRaw(path);
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
}

// Opens and reads everything; returns the first error met (ok if none).
Status OpenAndScan(const std::string& path) {
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(path, FastOptions(), &store);
  if (!s.ok()) return s;
  std::unique_ptr<StreamReader> r;
  s = store->NewReader("s", {}, &r);
  if (!s.ok()) return s;
  Record rec;
  while (r->Next(&rec)) {
  }
  return r->status();
}

TEST(Integrity, DamagedTableFileIsAnErrorNotACrash) {
  TempDir dir;
  FillAndFlush(dir.path());
  ASSERT_GT(DamageFiles(dir.path(), ".sst", 64), 0);
  Status s = OpenAndScan(dir.path());
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption() || s.IsIOError()) << s.ToString();
}

TEST(Integrity, MissingCurrentFileIsAnErrorNotACrash) {
  TempDir dir;
  FillAndFlush(dir.path());
  std::filesystem::remove(dir.path() + "/CURRENT");
  StoreOptions o = FastOptions();
  o.create_if_missing = false;
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(dir.path(), o, &store);
  EXPECT_FALSE(s.ok());
}

TEST(Integrity, DamagedManifestIsAnErrorNotACrash) {
  TempDir dir;
  FillAndFlush(dir.path());
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().filename().string().rfind("MANIFEST-", 0) == 0) {
      std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) / 2);
      ++n;
    }
  }
  ASSERT_GT(n, 0);
  Status s = OpenAndScan(dir.path());
  EXPECT_FALSE(s.ok()) << "a truncated MANIFEST must not open silently";
}

TEST(Integrity, TruncatedTableFileIsAnErrorNotACrash) {
  TempDir dir;
  FillAndFlush(dir.path());
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().extension() == ".sst") {
      std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) / 3);
      ++n;
    }
  }
  ASSERT_GT(n, 0);
  Status s = OpenAndScan(dir.path());
  EXPECT_FALSE(s.ok());
}

// Every byte of the table file that holds the chunk summaries, damaged one at a time: a reader that
// consults the summaries (and skips every chunk they allow) meets an error or reads on, and never
// crashes. RocksDB's checksum must be verified on every block it parses: on some damaged keys its
// block parser asserts rather than fails.
TEST(Integrity, EveryDamagedByteOfTheSummaryTableIsAnErrorNotACrash) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 4;
  o.chunk_summarizer = [] {
    struct Count : ChunkSummarizer {
      size_t n = 0;
      void Reset() override { n = 0; }
      void Add(std::string_view) override { ++n; }
      // Large enough that the summaries fill blocks of their own, which the reader alone reads.
      void Finish(std::string* out) override { *out = "summary of " + std::to_string(n) + std::string(300, '.'); }
    };
    return std::unique_ptr<ChunkSummarizer>(new Count);
  };
  {
    auto store = OpenStore(dir.path(), o);
    ASSERT_TRUE(store->CreateStream("s").ok());
    std::vector<std::string> msgs;
    for (int i = 0; i < 240; ++i) msgs.push_back(RandomBytes(100 + i % 40, i));  // chunks larger than summaries
    std::vector<std::string_view> views(msgs.begin(), msgs.end());
    ASSERT_TRUE(store->IngestBatch("s", views).ok());  // index entries and summaries: a table file of their own
  }
  std::string table;
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), dir.path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::vector<rocksdb::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    for (const rocksdb::LiveFileMetaData& f : files) {
      if (!f.largestkey.empty() && f.largestkey[0] == keys::kSummaryPrefix) table = f.db_path + f.name;
    }
  }
  ASSERT_FALSE(table.empty());
  std::string bytes;
  {
    std::ifstream in(table, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(bytes.size(), 20000u);
  o.read_only = true;
  o.create_if_missing = false;
  int errors = 0;
  // The second half (summary blocks, then the table's own index and footer; the first block, with
  // the index entries, is read and checked at open), every fifth byte: each key's type byte, among
  // others, is met many times over.
  for (size_t at = bytes.size() / 2; at < bytes.size(); at += 5) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    {
      std::ofstream out(table, std::ios::binary | std::ios::trunc);
      out.write(damaged.data(), static_cast<std::streamsize>(damaged.size()));
    }
    std::unique_ptr<StreamStore> store;
    Status s = StreamStore::Open(dir.path(), o, &store);
    if (s.ok()) {
      ReaderOptions ro;
      ro.chunk_filter = [](std::string_view) { return false; };
      std::unique_ptr<StreamReader> r;
      s = store->NewReader("s", ro, &r);
      if (s.ok()) {
        Record rec;
        while (r->Next(&rec)) {
        }
        s = r->status();
      }
    }
    if (!s.ok()) ++errors;
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace sift::storage
