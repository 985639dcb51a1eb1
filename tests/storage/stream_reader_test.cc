// StreamReader: seeks (offset, timestamp, first, last, end), chunk boundaries, zero-copy lifetime,
// snapshot vs tailing, and waiting for appends.
#include "storage/stream_reader.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <thread>

#include "storage/stream_store.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage {
namespace {

// A stream "s" of 100 messages in chunks of 10 (offsets 10k..10k+9), chunk k appended at time
// 1000 * (k + 1).
class ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o = FastOptions();
    o.clock = clock_.AsClock();
    o.max_chunk_messages = 10;
    store_ = OpenStore(dir_.path(), o);
    ASSERT_TRUE(store_->CreateStream("s").ok());
    for (int k = 0; k < 10; ++k) {
      clock_.Set(1000 * (k + 1));
      std::vector<std::string> msgs;
      for (int i = 0; i < 10; ++i) msgs.push_back(Message(10 * k + i));
      std::vector<std::string_view> views(msgs.begin(), msgs.end());
      ASSERT_TRUE(store_->AppendBatch("s", views).ok());
    }
  }

  std::unique_ptr<StreamReader> NewReader(ReaderOptions o = {}) {
    std::unique_ptr<StreamReader> r;
    Status s = store_->NewReader("s", o, &r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }

  TempDir dir_;
  FakeClock clock_{0};
  std::unique_ptr<StreamStore> store_;
};

TEST_F(ReaderTest, NewReaderStartsAtTheFirstMessage) {
  auto r = NewReader();
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 0u);
  EXPECT_EQ(rec.data, "message-0");
  EXPECT_EQ(rec.timestamp_ms, 1000);
  EXPECT_TRUE(rec.chunk_start);
  EXPECT_EQ(r->position(), 1u);
}

TEST_F(ReaderTest, NewReaderOfMissingStreamIsNotFound) {
  std::unique_ptr<StreamReader> r;
  EXPECT_TRUE(store_->NewReader("absent", {}, &r).IsNotFound());
  EXPECT_EQ(r, nullptr);
}

TEST_F(ReaderTest, ReportsChunkBoundaries) {
  auto r = NewReader();
  Record rec;
  int starts = 0, n = 0;
  while (r->Next(&rec)) {
    EXPECT_EQ(rec.chunk_start, rec.offset % 10 == 0) << rec.offset;
    starts += rec.chunk_start;
    EXPECT_EQ(r->current_chunk().first_offset, rec.offset / 10 * 10);
    EXPECT_EQ(r->current_chunk().count, 10u);
    EXPECT_EQ(r->current_chunk().first_timestamp_ms, static_cast<int64_t>(rec.offset / 10 + 1) * 1000);
    ++n;
  }
  EXPECT_TRUE(r->status().ok());
  EXPECT_EQ(n, 100);
  EXPECT_EQ(starts, 10);
  EXPECT_EQ(r->chunks_visited(), 10u);
}

TEST_F(ReaderTest, SeekToOffsetInsideAChunk) {
  auto r = NewReader();
  ASSERT_TRUE(r->Seek(37).ok());
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 37u);
  EXPECT_EQ(rec.data, "message-37");
  EXPECT_TRUE(rec.chunk_start);  // the first record delivered from that chunk
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 38u);
  EXPECT_FALSE(rec.chunk_start);
}

TEST_F(ReaderTest, SeekToChunkBoundaryAndToTheLastOffset) {
  auto r = NewReader();
  ASSERT_TRUE(r->Seek(40).ok());
  auto got = Drain(*r);
  ASSERT_EQ(got.size(), 60u);
  EXPECT_EQ(got.front().offset, 40u);
  ASSERT_TRUE(r->Seek(99).ok());
  got = Drain(*r);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, "message-99");
}

TEST_F(ReaderTest, SeekPastTheEndYieldsNothing) {
  auto r = NewReader();
  ASSERT_TRUE(r->Seek(100).ok());
  Record rec;
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().ok());
  ASSERT_TRUE(r->Seek(uint64_t{1} << 40).ok());
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().ok());
}

TEST_F(ReaderTest, SeekToFirstAfterReading) {
  auto r = NewReader();
  Drain(*r);
  ASSERT_TRUE(r->SeekToFirst().ok());
  EXPECT_EQ(Drain(*r).size(), 100u);
}

TEST_F(ReaderTest, SeekToLastAndToEnd) {
  auto r = NewReader();
  ASSERT_TRUE(r->SeekToLast().ok());
  auto got = Drain(*r);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].offset, 99u);
  ASSERT_TRUE(r->SeekToEnd().ok());
  EXPECT_EQ(r->position(), 100u);
  EXPECT_TRUE(Drain(*r).empty());
}

TEST_F(ReaderTest, SeekToTimestampFindsTheFirstMessageAtOrAfter) {
  auto r = NewReader();
  // Exactly a chunk's timestamp.
  ASSERT_TRUE(r->SeekToTimestamp(3000).ok());
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 20u);
  EXPECT_EQ(rec.timestamp_ms, 3000);
  // Between two chunks' timestamps: the later chunk.
  ASSERT_TRUE(r->SeekToTimestamp(3001).ok());
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 30u);
  EXPECT_EQ(rec.timestamp_ms, 4000);
  // Before everything: the first message.
  ASSERT_TRUE(r->SeekToTimestamp(-5).ok());
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 0u);
  // The newest timestamp, and past it.
  ASSERT_TRUE(r->SeekToTimestamp(10000).ok());
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 90u);
  ASSERT_TRUE(r->SeekToTimestamp(10001).ok());
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().ok());
  EXPECT_EQ(r->position(), 100u);
}

TEST_F(ReaderTest, SeekToTimestampOnOneMessageChunks) {
  // Every append of one group shares its timestamp, so a chunk holds one timestamp; check the exact
  // message boundary with one message per chunk.
  ASSERT_TRUE(store_->CreateStream("t").ok());
  for (int i = 0; i < 30; ++i) {
    clock_.Set(50000 + i * 10);
    ASSERT_TRUE(store_->Append("t", Message(i)).ok());
  }
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store_->NewReader("t", {}, &r).ok());
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(r->SeekToTimestamp(50000 + i * 10 - 5).ok());
    Record rec;
    ASSERT_TRUE(r->Next(&rec));
    EXPECT_EQ(rec.offset, static_cast<uint64_t>(i));
    ASSERT_TRUE(r->SeekToTimestamp(50000 + i * 10).ok());
    ASSERT_TRUE(r->Next(&rec));
    EXPECT_EQ(rec.offset, static_cast<uint64_t>(i));
  }
}

TEST_F(ReaderTest, SkipChunkMovesToTheNextChunk) {
  auto r = NewReader();
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  r->SkipChunk();
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 10u);
  EXPECT_TRUE(rec.chunk_start);
}

TEST_F(ReaderTest, RecordViewsStayValidWithinTheChunk) {
  auto r = NewReader();
  std::vector<std::string_view> views;
  Record rec;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(r->Next(&rec));
    views.push_back(rec.data);
  }
  // All ten records of chunk 0 are still readable: the chunk stays pinned until the reader leaves it.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(views[i], Message(i));
}

TEST_F(ReaderTest, NonTailingReaderSeesASnapshot) {
  auto r = NewReader();
  ASSERT_TRUE(store_->Append("s", "late").ok());
  EXPECT_EQ(Drain(*r).size(), 100u);
  Record rec;
  EXPECT_FALSE(r->Next(&rec));
  ASSERT_TRUE(r->Seek(100).ok());  // a new seek sees the new state
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.data, "late");
}

TEST_F(ReaderTest, TailingReaderSeesLaterAppends) {
  ReaderOptions o;
  o.tailing = true;
  auto r = NewReader(o);
  EXPECT_EQ(Drain(*r).size(), 100u);
  Record rec;
  EXPECT_FALSE(r->Next(&rec));
  ASSERT_TRUE(store_->Append("s", "late-1").ok());
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 100u);
  EXPECT_EQ(rec.data, "late-1");
  EXPECT_TRUE(rec.chunk_start);
  EXPECT_FALSE(r->Next(&rec));
  std::vector<std::string_view> two = {"late-2", "late-3"};
  ASSERT_TRUE(store_->AppendBatch("s", two).ok());
  auto got = Drain(*r);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].offset, 102u);
}

TEST_F(ReaderTest, TailingFromTheEndSeesOnlyNewMessages) {
  ReaderOptions o;
  o.tailing = true;
  auto r = NewReader(o);
  ASSERT_TRUE(r->SeekToEnd().ok());
  Record rec;
  EXPECT_FALSE(r->Next(&rec));
  std::thread appender([&] {
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(store_->Append("s", Message(1000 + i)).ok());
  });
  std::vector<std::string> seen;
  while (seen.size() < 50) {
    if (r->Next(&rec)) {
      seen.emplace_back(rec.data);
      EXPECT_EQ(rec.offset, 100 + seen.size() - 1);
    } else {
      ASSERT_TRUE(r->status().ok());
      store_->WaitForAppend("s", r->position(), std::chrono::milliseconds(100));
    }
  }
  appender.join();
  for (int i = 0; i < 50; ++i) EXPECT_EQ(seen[i], Message(1000 + i));
}

TEST_F(ReaderTest, WaitForAppendTimesOutOrWakes) {
  EXPECT_TRUE(store_->WaitForAppend("s", 99, std::chrono::milliseconds(0)));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(store_->WaitForAppend("s", 100, std::chrono::milliseconds(50)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  std::thread appender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(store_->Append("s", "x").ok());
  });
  EXPECT_TRUE(store_->WaitForAppend("s", 100, std::chrono::seconds(20)));
  appender.join();
  EXPECT_FALSE(store_->WaitForAppend("absent", 0, std::chrono::milliseconds(1)));
}

TEST_F(ReaderTest, ReaderOfDeletedStreamEnds) {
  ReaderOptions o;
  o.tailing = true;
  auto r = NewReader(o);
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  ASSERT_TRUE(store_->DeleteStream("s").ok());
  // The iterator keeps its snapshot of the current chunks; a new seek reports the deletion.
  Status s = r->SeekToFirst();
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_FALSE(r->Next(&rec));
}

TEST_F(ReaderTest, EmptyStreamReadsNothing) {
  ASSERT_TRUE(store_->CreateStream("empty").ok());
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store_->NewReader("empty", {}, &r).ok());
  Record rec;
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->status().ok());
  EXPECT_TRUE(r->SeekToLast().ok());
  EXPECT_FALSE(r->Next(&rec));
  EXPECT_TRUE(r->SeekToTimestamp(0).ok());
  EXPECT_FALSE(r->Next(&rec));
}

TEST_F(ReaderTest, ReaderOptionsForScansReadTheSame) {
  ReaderOptions o;
  o.fill_cache = false;
  o.readahead_bytes = 4 << 20;
  auto got = ReadAll(*store_, "s", o);
  ASSERT_EQ(got.size(), 100u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].data, Message(i));
}

// A chunk the chunk filter rules out is never read, not even to position the reader: seeking reads
// the block it lands on, and a chunk is a block of its own. Counted with RocksDB's per-thread block
// read counters, on table files (the store is reopened) and without the block cache.
TEST(ReaderPruning, ChunksRuledOutAreNeverRead) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 10;
  o.chunk_summarizer = [] {
    struct FirstMessage : ChunkSummarizer {
      std::string first;
      void Reset() override { first.clear(); }
      void Add(std::string_view m) override {
        if (first.empty()) first = m.substr(0, m.find(' '));
      }
      void Finish(std::string* out) override { *out = first; }
    };
    return std::unique_ptr<ChunkSummarizer>(new FirstMessage);
  };
  constexpr size_t kMessageBytes = 8000;
  {
    std::unique_ptr<StreamStore> store = OpenStore(dir.path(), o);
    ASSERT_TRUE(store->CreateStream("s").ok());
    std::vector<std::string> owned;
    for (int i = 0; i < 200; ++i) owned.push_back(Message(i) + std::string(kMessageBytes, ' '));
    const std::vector<std::string_view> views(owned.begin(), owned.end());
    ASSERT_TRUE(store->AppendBatch("s", views).ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  std::unique_ptr<StreamStore> store = OpenStore(dir.path(), o);
  ASSERT_NE(store, nullptr);
  const uint64_t chunk_bytes = 10 * kMessageBytes;

  struct Case {
    uint64_t seek;     // where the reader is positioned
    uint64_t end;      // its end bound
    std::string keep;  // the one chunk the filter lets through, by its first message
    uint64_t first_delivered, delivered;
  };
  for (const Case& c :
       {Case{0, UINT64_MAX, "message-70", 70, 10}, Case{35, UINT64_MAX, "message-120", 120, 10},
        Case{0, 130, "message-120", 120, 10}, Case{0, 120, "message-120", 0, 0}, Case{0, UINT64_MAX, "none", 0, 0}}) {
    ReaderOptions ro;
    ro.fill_cache = false;
    ro.end_offset = c.end;
    ro.chunk_filter = [&](std::string_view summary) { return summary == c.keep; };
    std::unique_ptr<StreamReader> reader;
    ASSERT_TRUE(store->NewReader("s", ro, &reader).ok());
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    ASSERT_TRUE(reader->Seek(c.seek).ok());
    Record r;
    uint64_t n = 0, first = 0;
    while (reader->Next(&r)) {
      if (n++ == 0) first = r.offset;
    }
    const uint64_t read = rocksdb::get_perf_context()->block_read_byte;
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    ASSERT_TRUE(reader->status().ok()) << reader->status().ToString();
    EXPECT_EQ(n, c.delivered) << c.keep;
    if (n > 0) {
      EXPECT_EQ(first, c.first_delivered) << c.keep;
    }
    // The chunk delivered from, if any, plus summary and index blocks (a few KiB); not a second chunk.
    EXPECT_LT(read, (c.delivered > 0 ? chunk_bytes : 0) + chunk_bytes / 2) << c.keep << " from " << c.seek;
    EXPECT_EQ(reader->chunks_visited(), c.delivered > 0 ? 1u : 0u) << c.keep;
    // Each summary read is counted, and no more than the stream holds.
    EXPECT_GT(reader->summary_bytes_read(), 0u) << c.keep;
    EXPECT_LT(reader->summary_bytes_read(), 40u * 32) << c.keep;
  }
}

}  // namespace
}  // namespace sift::storage
