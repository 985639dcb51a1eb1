// StreamEngine::ParallelScan: the ranges scanned side by side deliver exactly what one consumer
// delivers, in the same order, for every thread count, position, stop, buffer bound and corruption
// policy.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/chunk_corruption.h"
#include "tests/engine/consumer_test_support.h"

namespace sift::engine::testing {
namespace {

constexpr uint64_t kMessages = 12000;

struct Match {
  uint64_t offset;
  std::string bytes;
  bool operator==(const Match&) const = default;
};

class CollectingSink : public ScanSink {
 public:
  explicit CollectingSink(size_t limit = 0) : limit_(limit) {}
  bool Deliver(const Delivery& delivery) override {
    matches.push_back({delivery.offset(), std::string(delivery.bytes())});
    if (decode) {
      // A match is a Delivery like a consumer's: it decodes in full, held or not.
      std::string json;
      const Status s = delivery.ToJson(&json);
      EXPECT_TRUE(s.ok()) << s.ToString();
      EXPECT_NE(json.find("\"offset\":" + std::to_string(delivery.offset())), std::string::npos) << json;
      ++decoded;
    }
    return limit_ == 0 || matches.size() < limit_;
  }
  bool decode = false;
  size_t decoded = 0;
  void Progress(uint64_t scanned, uint64_t total) override {
    EXPECT_LE(scanned, total);
    ++progress_calls;
  }
  std::vector<Match> matches;
  size_t progress_calls = 0;

 private:
  size_t limit_;
};

class ParallelScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::make_unique<StoreFolder>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    Open();
    ASSERT_TRUE(engine_->CreateStream("orders").ok());
    AppendOrders(engine_.get(), "orders", 0, kMessages);
  }

  void Open() {
    EngineOptions options;
    options.store.sync = false;
    options.store.max_chunk_messages = 500;  // 24 chunks
    Status s = StreamEngine::Open(folder_->path(), options, &engine_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // What one consumer delivers, and its final status.
  std::vector<Match> Sequential(ConsumerOptions options, Status* status = nullptr, ConsumerStats* stats = nullptr) {
    options.stream = "orders";
    std::unique_ptr<Consumer> consumer;
    EXPECT_TRUE(engine_->NewConsumer(options, &consumer).ok());
    std::vector<Match> out;
    DeliveryBatch batch;
    Status s;
    while (!consumer->done()) {
      s = consumer->Poll(&batch);
      for (const Delivery& d : batch) out.push_back({d.offset(), std::string(d.bytes())});
      if (!s.ok()) break;
    }
    if (status != nullptr) *status = s;
    if (stats != nullptr) *stats = consumer->stats();
    return out;
  }

  std::vector<Match> Parallel(ConsumerOptions options, uint32_t threads, Status* status = nullptr,
                              ParallelScanStats* stats = nullptr, size_t limit = 0, size_t max_buffered = 64 << 20) {
    ParallelScanOptions scan;
    scan.consumer = std::move(options);
    scan.consumer.stream = "orders";
    scan.threads = threads;
    scan.min_messages_per_thread = 100;
    scan.max_buffered_bytes = max_buffered;
    CollectingSink sink(limit);
    Status s = engine_->ParallelScan(scan, &sink, stats);
    if (status != nullptr) {
      *status = s;
    } else {
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    return sink.matches;
  }

  // Flips a byte in the middle of chunk `index` (the engine is closed and reopened around it).
  void CorruptChunk(size_t index) {
    engine_.reset();
    ASSERT_GT(sift::testing::CorruptStoredChunk(folder_->path(), index), index);
    Open();
  }

  std::unique_ptr<StoreFolder> folder_;
  std::unique_ptr<StreamEngine> engine_;
};

TEST_F(ParallelScanTest, SameMatchesInTheSameOrderForEveryThreadCount) {
  ConsumerOptions options;
  options.filter = Sql("region = 'eu-west' AND amount > 300");
  ConsumerStats one;
  const std::vector<Match> want = Sequential(options, nullptr, &one);
  ASSERT_GT(want.size(), 100u);
  for (uint32_t threads : {1u, 2u, 3u, 4u, 7u}) {
    ParallelScanStats stats;
    EXPECT_EQ(Parallel(options, threads, nullptr, &stats), want) << threads << " threads";
    EXPECT_EQ(stats.threads, threads);
    EXPECT_EQ(stats.consumer.scanned, kMessages);
    EXPECT_EQ(stats.consumer.matched, want.size());
    EXPECT_EQ(stats.consumer.chunks, one.chunks) << "a chunk read by two ranges";
    EXPECT_EQ(stats.consumer.bytes, one.bytes);
  }
}

TEST_F(ParallelScanTest, PositionsAreResolvedOnceAndHonoured) {
  ConsumerOptions options;
  options.filter = Sql("color IN ('red', 'blue')");
  options.start = StartPosition::Offset(1234);
  options.end = EndPosition::Offset(10001);
  EXPECT_EQ(Parallel(options, 3), Sequential(options));
  options.start = StartPosition::FromEnd(5000);
  options.end = EndPosition::None();
  EXPECT_EQ(Parallel(options, 2), Sequential(options));
  options.start = StartPosition::Next();  // nothing appended after the scan starts
  EXPECT_TRUE(Parallel(options, 2).empty());
  options.start = StartPosition::First();
  options.end = EndPosition::Timestamp(0);  // a timestamp end runs on one thread
  ParallelScanStats stats;
  EXPECT_EQ(Parallel(options, 2, nullptr, &stats), Sequential(options));
  EXPECT_EQ(stats.threads, 1u);
}

TEST_F(ParallelScanTest, SinkStopEndsTheScanAfterExactlyThoseMatches) {
  ConsumerOptions options;  // every message
  const std::vector<Match> all = Sequential(options);
  for (size_t limit : {1u, 17u, 6001u, 11999u}) {
    std::vector<Match> got = Parallel(options, 4, nullptr, nullptr, limit);
    ASSERT_EQ(got.size(), limit);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin())) << limit;
  }
}

TEST_F(ParallelScanTest, LaterRangesWaitWhenTheirBufferIsFull) {
  ConsumerOptions options;  // every message, so later ranges fill their buffers at once
  EXPECT_EQ(Parallel(options, 4, nullptr, nullptr, 0, /*max_buffered=*/1), Sequential(options));
}

// The sink gets each match as a Delivery, so it can decode it in full, whether the match came straight
// from the range in turn or was held by a later range (a 1-byte buffer makes later ranges hold).
TEST_F(ParallelScanTest, MatchesAreDeliveriesThatDecode) {
  ParallelScanOptions scan;
  scan.consumer.stream = "orders";
  scan.consumer.filter = Sql("amount > 900");
  scan.threads = 4;
  scan.min_messages_per_thread = 100;
  scan.max_buffered_bytes = 1;
  CollectingSink sink;
  sink.decode = true;
  ASSERT_TRUE(engine_->ParallelScan(scan, &sink).ok());
  EXPECT_GT(sink.decoded, 100u);
  EXPECT_EQ(sink.decoded, sink.matches.size());
  EXPECT_EQ(sink.matches, Sequential(scan.consumer));
}

TEST_F(ParallelScanTest, CorruptChunkStopsWhereOneConsumerStops) {
  CorruptChunk(17);  // in a later range
  ConsumerOptions options;
  Status one_status;
  const std::vector<Match> want = Sequential(options, &one_status);
  ASSERT_TRUE(one_status.IsCorruption()) << one_status.ToString();
  for (uint32_t threads : {2u, 4u}) {
    Status status;
    EXPECT_EQ(Parallel(options, threads, &status), want) << threads;
    EXPECT_TRUE(status.IsCorruption()) << status.ToString();
    EXPECT_EQ(status.ToString(), one_status.ToString());
  }
}

TEST_F(ParallelScanTest, CorruptChunkIsSkippedLikeOneConsumerSkipsIt) {
  CorruptChunk(5);
  ConsumerOptions options;
  options.on_corruption = CorruptionPolicy::kSkip;
  Status one_status;
  ConsumerStats one;
  const std::vector<Match> want = Sequential(options, &one_status, &one);
  ASSERT_TRUE(one_status.ok());
  ASSERT_EQ(one.chunks_corrupt, 1u);
  ParallelScanStats stats;
  EXPECT_EQ(Parallel(options, 3, nullptr, &stats), want);
  EXPECT_EQ(stats.consumer.chunks_corrupt, 1u);
  EXPECT_FALSE(stats.last_corruption.ok());
}

TEST_F(ParallelScanTest, BadOptionsAndMissingStreamAreErrors) {
  ParallelScanOptions scan;
  scan.consumer.stream = "orders";
  scan.threads = 0;
  CollectingSink sink;
  EXPECT_TRUE(engine_->ParallelScan(scan, &sink).IsInvalidArgument());
  scan.threads = 2;
  scan.consumer.stream = "nope";
  EXPECT_TRUE(engine_->ParallelScan(scan, &sink).IsNotFound());
  scan.consumer.stream = "orders";
  scan.consumer.filter = ToCompiledFilter(selector::Selector::Compile("a >< 1"));
  EXPECT_TRUE(engine_->ParallelScan(scan, &sink).IsInvalidArgument());
  EXPECT_TRUE(sink.matches.empty());
}

}  // namespace
}  // namespace sift::engine::testing
