// Retention through the engine: set at create and later, read back in StreamInfo, kept across reopen,
// and enforced — by bytes after appends and at once when set, by age through EnforceRetention (a
// fake clock) — deleting whole chunks from the oldest end without ever reusing an offset.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/engine/consumer_test_support.h"

namespace sift::engine::testing {
namespace {

constexpr uint32_t kChunkMessages = 10;

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::make_unique<StoreFolder>(std::string("retention-") +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    options_.store.sync = false;
    options_.store.max_chunk_messages = kChunkMessages;
    options_.store.clock = [this] { return now_ms_.load(); };
    Open();
  }

  void Open() {
    engine_.reset();
    Status s = StreamEngine::Open(folder_->path(), options_, &engine_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Appends `count` orders in one batch (whole chunks of kChunkMessages); returns the first offset.
  uint64_t Append(const std::string& stream, uint64_t count) {
    std::unique_ptr<synthetic::SyntheticOrders> orders;
    EXPECT_TRUE(synthetic::SyntheticOrders::Create({}, &orders).ok());
    std::vector<std::string> bytes(count);
    for (uint64_t i = 0; i < count; ++i) EXPECT_TRUE(orders->Encode(i, &bytes[i]).ok());
    uint64_t first = 0;
    Status s = engine_->AppendBatch(stream, std::vector<std::string_view>(bytes.begin(), bytes.end()), &first);
    EXPECT_TRUE(s.ok()) << s.ToString();
    s = engine_->Flush();  // makes deferred appends visible; a no-op otherwise
    EXPECT_TRUE(s.ok()) << s.ToString();
    return first;
  }

  StreamInfo Info(const std::string& stream) {
    StreamInfo info;
    Status s = engine_->GetStreamInfo(stream, &info);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return info;
  }

  std::vector<uint64_t> Offsets(const std::string& stream) {
    ConsumerOptions options;
    options.stream = stream;
    std::unique_ptr<Consumer> consumer;
    EXPECT_TRUE(engine_->NewConsumer(options, &consumer).ok());
    if (consumer == nullptr) return {};
    Status s;
    std::vector<uint64_t> out = Drain(consumer.get(), &s);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  std::unique_ptr<StoreFolder> folder_;
  EngineOptions options_;
  std::atomic<int64_t> now_ms_{1'000'000};
  std::unique_ptr<StreamEngine> engine_;
};

TEST_F(RetentionTest, IsSetAtCreateReadBackAndKeptAcrossReopen) {
  ASSERT_TRUE(engine_->CreateStream("a", RetentionPolicy{1 << 20, std::chrono::milliseconds(60'000)}).ok());
  ASSERT_TRUE(engine_->CreateStream("b").ok());
  EXPECT_EQ(Info("a").retention, (RetentionPolicy{1 << 20, std::chrono::milliseconds(60'000)}));
  EXPECT_EQ(Info("b").retention, RetentionPolicy{});
  // Creating an existing stream again is ok and leaves its retention alone.
  ASSERT_TRUE(engine_->CreateStream("a", RetentionPolicy{5, std::chrono::milliseconds(5)}).ok());
  EXPECT_EQ(Info("a").retention, (RetentionPolicy{1 << 20, std::chrono::milliseconds(60'000)}));

  ASSERT_TRUE(engine_->SetRetention("b", RetentionPolicy{0, std::chrono::milliseconds(7 * 86'400'000LL)}).ok());
  Open();
  EXPECT_EQ(Info("a").retention, (RetentionPolicy{1 << 20, std::chrono::milliseconds(60'000)}));
  EXPECT_EQ(Info("b").retention, (RetentionPolicy{0, std::chrono::milliseconds(7 * 86'400'000LL)}));
  ASSERT_TRUE(engine_->SetRetention("b", RetentionPolicy{}).ok());  // back to keeping everything
  EXPECT_EQ(Info("b").retention, RetentionPolicy{});
}

TEST_F(RetentionTest, BadArgumentsAndReadOnlyStores) {
  ASSERT_TRUE(engine_->CreateStream("s").ok());
  Status s = engine_->SetRetention("nope", RetentionPolicy{1, std::chrono::milliseconds(0)});
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_EQ(s.what(), "no such stream");
  s = engine_->SetRetention("s", RetentionPolicy{0, std::chrono::milliseconds(-1)});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = engine_->CreateStream("t", RetentionPolicy{0, std::chrono::milliseconds(-1)});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();

  engine_.reset();
  options_.store.read_only = true;
  Open();
  EXPECT_TRUE(engine_->SetRetention("s", RetentionPolicy{1, std::chrono::milliseconds(0)}).IsNotSupported());
  EXPECT_TRUE(engine_->EnforceRetention().IsNotSupported());
  EXPECT_EQ(Info("s").retention, RetentionPolicy{});
}

TEST_F(RetentionTest, ByteLimitDeletesOldestChunksAndNeverReusesOffsets) {
  ASSERT_TRUE(engine_->CreateStream("s").ok());
  ASSERT_TRUE(engine_->CreateStream("other").ok());
  EXPECT_EQ(Append("s", 100), 0u);
  EXPECT_EQ(Append("other", 30), 0u);
  StreamInfo info = Info("s");
  ASSERT_EQ(info.chunk_count, 10u);
  const uint64_t chunk_bytes = info.bytes / info.chunk_count;  // the orders are alike in size

  // Room for three and a half chunks: the seven oldest go at once.
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{chunk_bytes * 7 / 2, std::chrono::milliseconds(0)}).ok());
  info = Info("s");
  EXPECT_EQ(info.chunk_count, 3u);
  EXPECT_EQ(info.first_offset, 70u);
  EXPECT_EQ(info.next_offset, 100u);
  EXPECT_LE(info.bytes, chunk_bytes * 7 / 2);
  EXPECT_EQ(Offsets("s"), Iota(70, 100));

  // Appends go on from 100 and push the oldest chunks out as they come.
  EXPECT_EQ(Append("s", 20), 100u);
  info = Info("s");
  EXPECT_EQ(info.first_offset, 90u);
  EXPECT_EQ(info.next_offset, 120u);
  EXPECT_EQ(Offsets("s"), Iota(90, 120));
  EXPECT_EQ(Info("other").message_count, 30u);  // other streams keep their own retention

  // A limit smaller than one chunk deletes everything; the next offset stays, also across reopen.
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{1, std::chrono::milliseconds(0)}).ok());
  info = Info("s");
  EXPECT_EQ(info.chunk_count, 0u);
  EXPECT_EQ(info.message_count, 0u);
  EXPECT_EQ(info.first_offset, 120u);
  EXPECT_EQ(info.next_offset, 120u);
  Open();
  EXPECT_EQ(Info("s").next_offset, 120u);
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{}).ok());
  EXPECT_EQ(Append("s", 10), 120u);
  EXPECT_EQ(Offsets("s"), Iota(120, 130));
}

TEST_F(RetentionTest, AgeLimitIsEnforcedByTheExplicitCall) {
  ASSERT_TRUE(engine_->CreateStream("s", RetentionPolicy{0, std::chrono::milliseconds(10'000)}).ok());
  ASSERT_TRUE(engine_->CreateStream("keep").ok());
  now_ms_ = 1'000'000;
  EXPECT_EQ(Append("s", 20), 0u);  // two chunks stamped 1,000,000
  EXPECT_EQ(Append("keep", 10), 0u);
  now_ms_ = 1'005'000;
  EXPECT_EQ(Append("s", 10), 20u);  // one chunk stamped 1,005,000

  // Time passes with no append: only the explicit call ages the stream.
  now_ms_ = 1'012'000;  // the first two chunks are 12 s old, the third 7 s
  EXPECT_EQ(Info("s").first_offset, 0u);
  ASSERT_TRUE(engine_->EnforceRetention().ok());
  StreamInfo info = Info("s");
  EXPECT_EQ(info.first_offset, 20u);
  EXPECT_EQ(info.chunk_count, 1u);
  EXPECT_EQ(info.first_timestamp_ms, 1'005'000);
  EXPECT_EQ(Offsets("s"), Iota(20, 30));

  now_ms_ = 1'100'000;
  ASSERT_TRUE(engine_->EnforceRetention().ok());
  info = Info("s");
  EXPECT_EQ(info.message_count, 0u);
  EXPECT_EQ(info.first_offset, 30u);
  EXPECT_EQ(info.next_offset, 30u);
  EXPECT_EQ(Info("keep").message_count, 10u);  // no retention: nothing deleted however old

  Open();
  EXPECT_EQ(Append("s", 10), 30u);  // never reused, also after a reopen
  EXPECT_EQ(Offsets("s"), Iota(30, 40));
}

// A following consumer paused in the middle of a stream (as a broker's consumer without credit is),
// with its store iterator kept or released, while retention deletes the chunks it was about to read:
// it goes on at the first retained offset, and every offset it delivers holds its own message.
class RetentionUnderConsumerTest : public RetentionTest, public ::testing::WithParamInterface<bool> {};

TEST_P(RetentionUnderConsumerTest, APausedConsumerGoesOnAtTheFirstRetainedOffset) {
  const bool release = GetParam();
  options_.store.deferred_sync = true;  // as sift serve appends: visible at the Flush that syncs them
  Open();
  ASSERT_TRUE(engine_->CreateStream("s").ok());
  EXPECT_EQ(Append("s", 600), 0u);
  ConsumerOptions options;
  options.stream = "s";
  options.follow = true;
  ASSERT_TRUE(CompileFilterSet({}, &options.filter).ok());  // what a link without filters gets
  options.credit = 25;                                      // mid-chunk
  options.max_scan_per_poll = 1u << 15;                     // as sift serve polls
  options.max_poll_time = std::chrono::milliseconds(2);
  options.max_batch_bytes = 1u << 20;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  ASSERT_EQ(batch.size(), 25u);
  EXPECT_EQ(batch[24].offset(), 24u);
  if (release) consumer->Release();
  now_ms_ += 60'000;
  EXPECT_EQ(Append("s", 30), 600u);
  // The first 600 are a minute older than the rest: an age limit of 30 s deletes them.
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{0, std::chrono::milliseconds(30'000)}).ok());
  ASSERT_TRUE(engine_->EnforceRetention().ok());
  ASSERT_EQ(Info("s").first_offset, 600u);
  std::vector<uint64_t> offsets;
  for (int polls = 0; polls < 100 && (offsets.empty() || offsets.back() < 629); ++polls) {
    Status s = consumer->Poll(&batch);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (const Delivery& d : batch) offsets.push_back(d.offset());
    if (polls == 0 && release) {
      // Re-seeking, it finds offsets 25..599 gone: the first poll says so, and ends at the first offset after.
      EXPECT_EQ(consumer->retention_gap().first, 25u);
      EXPECT_EQ(consumer->retention_gap().end, 600u);
      ASSERT_EQ(batch.size(), 1u);
      EXPECT_EQ(batch[0].offset(), 600u);
    } else {
      EXPECT_TRUE(consumer->retention_gap().empty()) << polls;
    }
  }
  ASSERT_FALSE(offsets.empty());
  EXPECT_EQ(offsets.back(), 629u);
  for (size_t i = 1; i < offsets.size(); ++i) EXPECT_LT(offsets[i - 1], offsets[i]);
  // Kept, its iterator still holds the deleted chunks: it reads them, and loses nothing.
  EXPECT_EQ(consumer->stats().retention_lost, release ? 575u : 0u);
  EXPECT_EQ(consumer->stats().retention_gaps, release ? 1u : 0u);
}

// A following consumer that caught up, then fell behind while retention deleted what was appended: the
// poll that passes the deleted offsets returns with them in retention_gap() (and the first message
// after them, the last of its batch), the stats count them; a stream emptied by retention is a gap too.
TEST_F(RetentionTest, AConsumerOvertakenByRetentionLearnsWhatItLost) {
  ASSERT_TRUE(engine_->CreateStream("s").ok());
  EXPECT_EQ(Append("s", 100), 0u);
  ConsumerOptions options;
  options.stream = "s";
  options.follow = true;
  options.credit = 1000;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  ASSERT_EQ(batch.size(), 100u);
  EXPECT_TRUE(consumer->retention_gap().empty());
  const uint64_t chunk_bytes = Info("s").bytes / Info("s").chunk_count;

  EXPECT_EQ(Append("s", 100), 100u);
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{chunk_bytes * 11 / 2, std::chrono::milliseconds(0)}).ok());
  ASSERT_EQ(Info("s").first_offset, 150u);
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  EXPECT_EQ(consumer->retention_gap().first, 100u);
  EXPECT_EQ(consumer->retention_gap().end, 150u);
  EXPECT_EQ(consumer->retention_gap().count(), 50u);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].offset(), 150u);
  EXPECT_EQ(consumer->stats().retention_lost, 50u);
  EXPECT_EQ(consumer->stats().retention_gaps, 1u);
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  EXPECT_TRUE(consumer->retention_gap().empty());
  ASSERT_EQ(batch.size(), 49u);
  EXPECT_EQ(batch[0].offset(), 151u);

  // Everything after the position deleted: the stream is empty, the consumer waits at its end.
  EXPECT_EQ(Append("s", 10), 200u);
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{1, std::chrono::milliseconds(0)}).ok());
  ASSERT_EQ(Info("s").message_count, 0u);
  ASSERT_TRUE(consumer->Poll(&batch, std::chrono::milliseconds(10)).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_FALSE(consumer->done());
  EXPECT_EQ(consumer->retention_gap().first, 200u);
  EXPECT_EQ(consumer->retention_gap().end, 210u);
  EXPECT_EQ(consumer->position(), 210u);
  ASSERT_TRUE(consumer->Poll(&batch, std::chrono::milliseconds(10)).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_TRUE(consumer->retention_gap().empty());
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{}).ok());
  EXPECT_EQ(Append("s", 10), 210u);
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  EXPECT_TRUE(consumer->retention_gap().empty());
  ASSERT_EQ(batch.size(), 10u);
  EXPECT_EQ(batch[0].offset(), 210u);
  EXPECT_EQ(consumer->stats().retention_lost, 60u);
  EXPECT_EQ(consumer->stats().retention_gaps, 2u);
}

// A start offset already deleted is a gap as well (up to the end bound, when there is one); a consumer
// starting at the oldest message, or one behind a filter that rejects the message after the gap, is
// told the same way.
TEST_F(RetentionTest, AStartOffsetAlreadyDeletedIsAGap) {
  ASSERT_TRUE(engine_->CreateStream("s").ok());
  EXPECT_EQ(Append("s", 100), 0u);
  const uint64_t chunk_bytes = Info("s").bytes / Info("s").chunk_count;
  ASSERT_TRUE(engine_->SetRetention("s", RetentionPolicy{chunk_bytes * 7 / 2, std::chrono::milliseconds(0)}).ok());
  ASSERT_EQ(Info("s").first_offset, 70u);
  auto open = [&](StartPosition start, EndPosition end) {
    ConsumerOptions options;
    options.stream = "s";
    options.start = start;
    options.end = end;
    std::unique_ptr<Consumer> consumer;
    EXPECT_TRUE(engine_->NewConsumer(options, &consumer).ok());
    return consumer;
  };
  DeliveryBatch batch;
  std::unique_ptr<Consumer> c = open(StartPosition::Offset(5), EndPosition::None());
  ASSERT_TRUE(c->Poll(&batch).ok());
  EXPECT_EQ(c->retention_gap().first, 5u);
  EXPECT_EQ(c->retention_gap().end, 70u);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].offset(), 70u);
  Status s;
  EXPECT_EQ(Drain(c.get(), &s), Iota(71, 100));
  EXPECT_EQ(c->stats().retention_lost, 65u);
  EXPECT_EQ(c->stats().retention_gaps, 1u);

  c = open(StartPosition::Offset(5), EndPosition::Offset(40));
  ASSERT_TRUE(c->Poll(&batch).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_TRUE(c->done());
  EXPECT_EQ(c->retention_gap().first, 5u);
  EXPECT_EQ(c->retention_gap().end, 40u);
  EXPECT_EQ(c->stats().retention_lost, 35u);

  c = open(StartPosition::First(), EndPosition::None());
  EXPECT_EQ(Drain(c.get(), &s), Iota(70, 100));
  EXPECT_EQ(c->stats().retention_lost, 0u);
  EXPECT_EQ(c->stats().retention_gaps, 0u);

  ConsumerOptions options;
  options.stream = "s";
  options.start = StartPosition::Offset(0);
  FilterSpec spec;
  spec.AddSql("amount < 0");  // no order
  ASSERT_TRUE(spec.Compile(&options.filter).ok());
  ASSERT_TRUE(engine_->NewConsumer(options, &c).ok());
  ASSERT_TRUE(c->Poll(&batch).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(c->retention_gap().first, 0u);
  EXPECT_EQ(c->retention_gap().end, 70u);
  EXPECT_EQ(c->stats().scanned, 1u);
  EXPECT_EQ(c->stats().retention_lost, 70u);
}

INSTANTIATE_TEST_SUITE_P(KeptOrReleased, RetentionUnderConsumerTest, ::testing::Bool());

}  // namespace
}  // namespace sift::engine::testing
