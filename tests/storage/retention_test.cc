// Retention: whole chunks deleted from the oldest end by bytes and by age; offsets never reused,
// also across reopen; readers behind the deleted range jump forward.
#include <gtest/gtest.h>

#include "storage/retention.h"
#include "storage/stream_store.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage {
namespace {

std::deque<ChunkMeta> Chunks(std::initializer_list<std::pair<uint32_t, int64_t>> bytes_and_last_ts) {
  std::deque<ChunkMeta> out;
  uint64_t first = 0;
  for (auto [bytes, ts] : bytes_and_last_ts) {
    out.push_back(ChunkMeta{first, 1, bytes, ts, ts, bytes});
    ++first;
  }
  return out;
}

TEST(ChunksToDelete, NoLimitsDeleteNothing) {
  auto c = Chunks({{100, 1}, {100, 2}});
  EXPECT_EQ(ChunksToDelete(c, 200, RetentionPolicy{}, 1000000), 0u);
}

TEST(ChunksToDelete, MaxBytesBoundaries) {
  auto c = Chunks({{100, 1}, {100, 2}, {100, 3}});
  EXPECT_EQ(ChunksToDelete(c, 300, RetentionPolicy{300, std::chrono::milliseconds(0)}, 0),
            0u);  // exactly at the limit: kept
  EXPECT_EQ(ChunksToDelete(c, 300, RetentionPolicy{299, std::chrono::milliseconds(0)}, 0),
            1u);  // one byte over: oldest goes
  EXPECT_EQ(ChunksToDelete(c, 300, RetentionPolicy{200, std::chrono::milliseconds(0)}, 0), 1u);
  EXPECT_EQ(ChunksToDelete(c, 300, RetentionPolicy{199, std::chrono::milliseconds(0)}, 0), 2u);
  EXPECT_EQ(ChunksToDelete(c, 300, RetentionPolicy{99, std::chrono::milliseconds(0)}, 0), 3u);  // even the newest chunk
}

TEST(ChunksToDelete, MaxAgeBoundaries) {
  auto c = Chunks({{10, 1000}, {10, 2000}, {10, 3000}});
  // A chunk goes when its newest message is older than now - max_age.
  EXPECT_EQ(ChunksToDelete(c, 30, RetentionPolicy{0, std::chrono::milliseconds(1000)}, 2000),
            0u);  // 1000 == cutoff: kept
  EXPECT_EQ(ChunksToDelete(c, 30, RetentionPolicy{0, std::chrono::milliseconds(1000)}, 2001), 1u);
  EXPECT_EQ(ChunksToDelete(c, 30, RetentionPolicy{0, std::chrono::milliseconds(1000)}, 3001), 2u);
  EXPECT_EQ(ChunksToDelete(c, 30, RetentionPolicy{0, std::chrono::milliseconds(1000)}, 4001), 3u);
}

TEST(ChunksToDelete, BothLimitsTakeTheLarger) {
  auto c = Chunks({{10, 1000}, {10, 2000}, {10, 3000}});
  EXPECT_EQ(ChunksToDelete(c, 30, RetentionPolicy{10, std::chrono::milliseconds(1000)}, 2001), 2u);
  EXPECT_EQ(ChunksToDelete(c, 30, RetentionPolicy{25, std::chrono::milliseconds(1000)}, 3001), 2u);
}

class RetentionTest : public ::testing::Test {
 protected:
  void Open() {
    StoreOptions o = FastOptions();
    o.clock = clock_.AsClock();
    o.max_chunk_messages = 10;
    store_ = OpenStore(dir_.path(), o);
  }
  // Appends `chunks` chunks of 10 messages of 100 bytes, one chunk per batch, the clock advancing
  // 1000 ms before each.
  void Fill(std::string_view stream, int chunks) {
    for (int k = 0; k < chunks; ++k) {
      clock_.Advance(1000);
      std::vector<std::string> msgs(10, std::string(100, 'x'));
      std::vector<std::string_view> v(msgs.begin(), msgs.end());
      ASSERT_TRUE(store_->AppendBatch(stream, v).ok());
    }
  }
  StreamInfo Info(std::string_view stream) {
    StreamInfo info;
    EXPECT_TRUE(store_->GetStreamInfo(stream, &info).ok());
    return info;
  }

  TempDir dir_;
  FakeClock clock_{0};
  std::unique_ptr<StreamStore> store_;
};

TEST_F(RetentionTest, MaxBytesDeletesWholeOldestChunksAfterAppend) {
  Open();
  ASSERT_TRUE(store_->CreateStream("s").ok());
  Fill("s", 1);
  const uint64_t chunk_bytes = Info("s").bytes;
  ASSERT_GT(chunk_bytes, 1000u);
  ASSERT_TRUE(store_->SetRetention("s", RetentionPolicy{3 * chunk_bytes, std::chrono::milliseconds(0)}).ok());
  Fill("s", 2);
  EXPECT_EQ(Info("s").chunk_count, 3u);  // exactly at the limit
  Fill("s", 1);
  StreamInfo info = Info("s");
  EXPECT_EQ(info.chunk_count, 3u);
  EXPECT_EQ(info.first_offset, 10u);
  EXPECT_EQ(info.next_offset, 40u);
  EXPECT_EQ(info.bytes, 3 * chunk_bytes);
  EXPECT_EQ(info.first_timestamp_ms, 2000);
  auto got = ReadAll(*store_, "s");
  ASSERT_EQ(got.size(), 30u);
  EXPECT_EQ(got.front().offset, 10u);
}

TEST_F(RetentionTest, MaxAgeDeletesExpiredChunksOnEnforce) {
  Open();
  ASSERT_TRUE(store_->CreateStream("s", StreamOptions{RetentionPolicy{0, std::chrono::milliseconds(2500)}, {}}).ok());
  Fill("s", 5);  // chunks at 1000..5000; each append applies retention at its own time
  StreamInfo info = Info("s");
  EXPECT_EQ(info.first_offset, 20u);  // 5000 - 2500 = 2500: chunks at 1000 and 2000 expired
  clock_.Set(7000);                   // cutoff 4500: the chunks at 3000 and 4000 expire, the one at 5000 stays
  ASSERT_TRUE(store_->EnforceRetention().ok());
  info = Info("s");
  EXPECT_EQ(info.first_offset, 40u);
  EXPECT_EQ(info.chunk_count, 1u);
  clock_.Set(8000);  // cutoff 5500: everything expired
  ASSERT_TRUE(store_->EnforceRetention().ok());
  info = Info("s");
  EXPECT_EQ(info.chunk_count, 0u);
  EXPECT_EQ(info.first_offset, 50u);
}

TEST_F(RetentionTest, OffsetsAreNeverReusedEvenWhenEverythingIsDeleted) {
  Open();
  ASSERT_TRUE(store_->CreateStream("s").ok());
  Fill("s", 3);
  ASSERT_TRUE(store_->SetRetention("s", RetentionPolicy{0, std::chrono::milliseconds(1)}).ok());
  clock_.Advance(10000);
  ASSERT_TRUE(store_->EnforceRetention().ok());
  StreamInfo info = Info("s");
  EXPECT_EQ(info.chunk_count, 0u);
  EXPECT_EQ(info.bytes, 0u);
  EXPECT_EQ(info.first_offset, 30u);
  EXPECT_EQ(info.next_offset, 30u);
  EXPECT_EQ(info.message_count, 0u);
  EXPECT_TRUE(ReadAll(*store_, "s").empty());
  store_.reset();
  Open();  // recovery must not fall back to offset 0 although no chunk is left
  info = Info("s");
  EXPECT_EQ(info.next_offset, 30u);
  EXPECT_EQ(info.retention, (RetentionPolicy{0, std::chrono::milliseconds(1)}));
  uint64_t off = 0;
  ASSERT_TRUE(store_->Append("s", "after", &off).ok());
  EXPECT_EQ(off, 30u);
}

TEST_F(RetentionTest, RetentionSurvivesReopen) {
  Open();
  ASSERT_TRUE(store_->CreateStream("s", StreamOptions{RetentionPolicy{100000, std::chrono::milliseconds(0)}, {}}).ok());
  Fill("s", 4);
  const uint64_t chunk_bytes = Info("s").bytes / 4;
  ASSERT_TRUE(store_->SetRetention("s", RetentionPolicy{2 * chunk_bytes, std::chrono::milliseconds(0)}).ok());
  EXPECT_EQ(Info("s").first_offset, 20u);
  store_.reset();
  Open();
  StreamInfo info = Info("s");
  EXPECT_EQ(info.first_offset, 20u);
  EXPECT_EQ(info.next_offset, 40u);
  EXPECT_EQ(info.chunk_count, 2u);
  auto got = ReadAll(*store_, "s");
  ASSERT_EQ(got.size(), 20u);
  EXPECT_EQ(got.front().offset, 20u);
}

TEST_F(RetentionTest, ReaderBehindDeletedChunksJumpsForward) {
  Open();
  ASSERT_TRUE(store_->CreateStream("s").ok());
  Fill("s", 5);
  ReaderOptions ro;
  ro.tailing = true;
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(store_->NewReader("s", ro, &r).ok());
  ASSERT_TRUE(r->Seek(5).ok());
  ASSERT_TRUE(store_->SetRetention("s", RetentionPolicy{0, std::chrono::milliseconds(1)}).ok());  // all expired
  Fill("s", 1);  // offsets 50..59, appended now
  ASSERT_TRUE(r->Seek(5).ok());
  Record rec;
  ASSERT_TRUE(r->Next(&rec));
  EXPECT_EQ(rec.offset, 50u);
}

TEST_F(RetentionTest, SetRetentionOfMissingStreamIsNotFound) {
  Open();
  EXPECT_TRUE(store_->SetRetention("nope", RetentionPolicy{1, std::chrono::milliseconds(0)}).IsNotFound());
  ASSERT_TRUE(store_->CreateStream("s").ok());
  EXPECT_TRUE(store_->SetRetention("s", RetentionPolicy{0, std::chrono::milliseconds(-1)}).IsInvalidArgument());
}

}  // namespace
}  // namespace sift::storage
