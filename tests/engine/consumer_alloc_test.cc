// Invariant 1 of docs/architecture.md at the consumer: scanning 100,000 stored messages that the
// filter rejects makes no heap allocation per message once the consumer has warmed up (its first
// poll).
#include <gtest/gtest.h>

#include "tests/engine/consumer_test_support.h"
#include "tests/support/allocation_counter.h"

namespace sift::engine::testing {
namespace {

constexpr uint64_t kMessages = 100000;

class ConsumerAllocTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new StoreFolder("consumer-alloc");
    EngineOptions options;
    options.store.sync = false;
    ASSERT_TRUE(StreamEngine::Open(folder_->path(), options, &engine_).ok());
    ASSERT_TRUE(engine_->CreateStream("orders").ok());
    AppendOrders(engine_.get(), "orders", 0, kMessages, 1, 4096);
    // The same orders in compressed chunks: each is decompressed into the consumer's buffer.
    ASSERT_TRUE(engine_->CreateStream("compressed").ok());
    ChunkCompression zstd;
    zstd.codec = ChunkCompression::Codec::kZstd;
    ASSERT_TRUE(engine_->SetCompression("compressed", zstd).ok());
    AppendOrders(engine_.get(), "compressed", 0, kMessages, 1, 4096);
  }
  static void TearDownTestSuite() {
    engine_.reset();
    delete folder_;
  }

  // Scans the whole stream with `sql` (which must reject everything); returns the allocations made
  // after the first poll, and checks that every message was scanned.
  static uint64_t AllocationsAfterWarmUp(const std::string& sql, const std::string& stream = "orders") {
    ConsumerOptions options;
    options.stream = stream;
    options.filter = Sql(sql);
    options.max_scan_per_poll = 1000;  // the first poll (the warm-up) scans 1,000 messages
    // The per-message reject path is what is measured: chunk summaries would skip these chunks unread.
    options.skip_chunks = false;
    std::unique_ptr<Consumer> consumer;
    EXPECT_TRUE(engine_->NewConsumer(options, &consumer).ok());
    DeliveryBatch batch;
    EXPECT_TRUE(consumer->Poll(&batch).ok());
    uint64_t allocations = 0;
    {
      sift::testing::AllocationScope scope;
      while (!consumer->done()) {
        Status s = consumer->Poll(&batch);
        if (!s.ok() || !batch.empty()) break;
      }
      allocations = scope.Allocations();
    }
    EXPECT_TRUE(consumer->done());
    EXPECT_EQ(consumer->stats().scanned, kMessages);
    EXPECT_EQ(consumer->stats().matched, 0u);
    return allocations;
  }

  static StoreFolder* folder_;
  static std::unique_ptr<StreamEngine> engine_;
};

StoreFolder* ConsumerAllocTest::folder_ = nullptr;
std::unique_ptr<StreamEngine> ConsumerAllocTest::engine_;

TEST_F(ConsumerAllocTest, RejectingApplicationPropertyFilterAllocatesNothingPerMessage) {
  EXPECT_EQ(AllocationsAfterWarmUp("region = 'mars' AND amount > 0"), 0u);
}

TEST_F(ConsumerAllocTest, RejectingFilterOverSeveralSectionsAllocatesNothingPerMessage) {
  EXPECT_EQ(AllocationsAfterWarmUp("p.subject = 'lost' OR (h.priority > 9 AND color LIKE 'z%') OR "
                                   "m.[x-opt-partition] = 99 OR customer IN ('nobody', 'none')"),
            0u);
}

TEST_F(ConsumerAllocTest, RejectingStringFunctionsAllocateNothingPerMessage) {
  EXPECT_EQ(AllocationsAfterWarmUp("UPPER(region) = 'MARS' OR region + '/' + color = 'x'"), 0u);
}

TEST_F(ConsumerAllocTest, RejectingCompressedChunksAllocatesNothingPerChunk) {
  StreamInfo info;
  ASSERT_TRUE(engine_->GetStreamInfo("compressed", &info).ok());
  ASSERT_LT(info.bytes * 2, info.raw_bytes);  // the chunks are compressed
  EXPECT_EQ(AllocationsAfterWarmUp("region = 'mars' AND amount > 0", "compressed"), 0u);
}

}  // namespace
}  // namespace sift::engine::testing
