// The engine facade: StreamEngine (open, streams, validated appends) and Consumer (filters, start and
// end positions, credit, statistics, deliveries and their full decode, corruption policy input).
#include <gtest/gtest.h>
#include <proton/message.h>

#include <nlohmann/json.hpp>

#include "tests/engine/consumer_test_support.h"

namespace sift::engine::testing {
namespace {

constexpr uint64_t kMessages = 5000;

class ConsumerApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::make_unique<StoreFolder>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    EngineOptions options;
    options.store.sync = false;
    options.store.max_chunk_messages = 512;  // several chunks
    Status s = StreamEngine::Open(folder_->path(), options, &engine_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(engine_->CreateStream("orders").ok());
    AppendOrders(engine_.get(), "orders", 0, kMessages);
  }

  std::vector<uint64_t> Offsets(ConsumerOptions options) {
    options.stream = "orders";
    std::unique_ptr<Consumer> consumer;
    Status s = engine_->NewConsumer(options, &consumer);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return {};
    Status final_status;
    std::vector<uint64_t> out = Drain(consumer.get(), &final_status);
    EXPECT_TRUE(final_status.ok()) << final_status.ToString();
    return out;
  }

  std::unique_ptr<StoreFolder> folder_;
  std::unique_ptr<StreamEngine> engine_;
};

TEST_F(ConsumerApiTest, FilterDeliversExactlyTheMatches) {
  ConsumerOptions options;
  options.filter = Sql("region = 'eu-west' AND amount > 500");
  EXPECT_EQ(Offsets(options), ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) {
              return o.region == "eu-west" && o.amount > 500;
            }));
}

TEST_F(ConsumerApiTest, DefaultFilterDeliversEverything) { EXPECT_EQ(Offsets({}), Iota(0, kMessages)); }

// Release drops the store iterator between polls; the next poll re-seeks, so what is delivered is
// exactly what an unreleased consumer delivers.
TEST_F(ConsumerApiTest, ReleaseBetweenPollsChangesNothingDelivered) {
  ConsumerOptions options;
  options.stream = "orders";
  options.filter = Sql("amount > 500");
  options.credit = 37;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  EXPECT_FALSE(consumer->released());
  std::vector<uint64_t> got;
  DeliveryBatch batch;
  for (int polls = 0; polls < 10000 && !consumer->done(); ++polls) {
    ASSERT_TRUE(consumer->Poll(&batch).ok());
    for (const Delivery& d : batch) got.push_back(d.offset());
    const uint64_t position = consumer->position();
    consumer->Release();
    EXPECT_TRUE(consumer->released() || consumer->done());
    EXPECT_EQ(consumer->position(), position);
  }
  EXPECT_TRUE(consumer->done());
  EXPECT_EQ(got, ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) { return o.amount > 500; }));
}

// A byte bound ends a batch early (after at least one match); a time bound ends a poll early; neither
// changes what is delivered in all.
TEST_F(ConsumerApiTest, BatchBytesAndPollTimeBoundAPoll) {
  ConsumerOptions options;
  options.stream = "orders";
  options.credit = 1000;
  options.max_batch_bytes = 1;  // one delivery per batch
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  EXPECT_EQ(batch.size(), 1u);

  options.max_batch_bytes = 0;
  options.max_poll_time = std::chrono::microseconds(1);
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  std::vector<uint64_t> got;
  size_t polls = 0;
  for (; polls < 100000 && !consumer->done(); ++polls) {
    ASSERT_TRUE(consumer->Poll(&batch).ok());
    for (const Delivery& d : batch) got.push_back(d.offset());
  }
  EXPECT_GT(polls, kMessages / 1000);  // a credit of 1000 alone would take 5 polls and an empty one
  EXPECT_EQ(got, Iota(0, kMessages));
}

TEST_F(ConsumerApiTest, FilterSpecAndsAllKinds) {
  FilterSpec spec;
  spec.AddSql("amount > 100");
  spec.AddJms("JMSPriority = 4");
  spec.AddProperties(R"({"subject": "&p:sh"})");
  spec.AddApplicationProperties(R"({"tier": {"type": "ubyte", "value": 1}, "vip": false})");
  ConsumerOptions options;
  ASSERT_TRUE(spec.Compile(&options.filter).ok());
  EXPECT_EQ(Offsets(options), ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) {
              return o.amount > 100 && o.priority == 4 && o.subject == "shipped" && o.tier == 1 && !o.vip;
            }));
}

TEST_F(ConsumerApiTest, FilterSpecErrorsSayWhichClauseAndWhere) {
  FilterSpec spec;
  spec.AddSql("amount > 1");
  spec.AddSql("amount > ");
  CompiledFilter s;
  FilterError error;
  Status status = spec.Compile(&s, &error);
  EXPECT_TRUE(status.IsInvalidArgument());
  EXPECT_EQ(status.what(), "bad selector");
  EXPECT_EQ(status.where(), "sql filter 2, byte 9");
  EXPECT_EQ(error.clause, 1u);
  EXPECT_TRUE(error.has_position);
  EXPECT_EQ(error.position, 9u);

  FilterSpec json;
  json.AddApplicationProperties(R"({"region": {"type": "ushort", "value": -1}})");
  status = json.Compile(&s, &error);
  EXPECT_EQ(status.what(), "bad filter");
  EXPECT_NE(error.why.find("out of range"), std::string::npos) << error.why;
  FilterSpec unknown;
  unknown.AddProperties(R"({"colour": "red"})");
  EXPECT_FALSE(unknown.Compile(&s).ok());
}

// The embedding example's shape, with the compile status not looked at: a filter that failed to
// compile must not become "every message". The consumer refuses it, naming the error.
TEST_F(ConsumerApiTest, AFilterThatFailedToCompileIsRefusedNotMatchAll) {
  for (const bool sql : {true, false}) {
    FilterSpec spec;
    if (sql) {
      spec.AddSql("region = ");
    } else {
      spec.AddProperties(R"({"colour": "red"})");
    }
    ConsumerOptions options;
    options.stream = "orders";
    const Status compiled = spec.Compile(&options.filter);
    ASSERT_FALSE(compiled.ok());
    EXPECT_FALSE(options.filter.ok());
    std::unique_ptr<Consumer> consumer;
    const Status s = engine_->NewConsumer(options, &consumer);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_EQ(consumer, nullptr);
    EXPECT_NE(s.ToString().find(sql ? "expected an expression" : "colour"), std::string::npos) << s.ToString();
  }
}

TEST_F(ConsumerApiTest, StartPositions) {
  ConsumerOptions options;
  options.start = StartPosition::Offset(4990);
  EXPECT_EQ(Offsets(options), Iota(4990, kMessages));
  options.start = StartPosition::FromEnd(3);
  EXPECT_EQ(Offsets(options), Iota(kMessages - 3, kMessages));
  options.start = StartPosition::FromEnd(kMessages * 2);
  EXPECT_EQ(Offsets(options).size(), kMessages);
  options.start = StartPosition::Last();
  EXPECT_EQ(Offsets(options), Iota(kMessages - 1, kMessages));
  options.start = StartPosition::Next();
  EXPECT_TRUE(Offsets(options).empty());
  options.start = StartPosition::Timestamp(0);
  EXPECT_EQ(Offsets(options).size(), kMessages);
  options.start = StartPosition::Timestamp(INT64_MAX);
  EXPECT_TRUE(Offsets(options).empty());
  options.start = StartPosition::Offset(kMessages + 10);
  EXPECT_TRUE(Offsets(options).empty());
}

TEST_F(ConsumerApiTest, EndPositionsAreExclusive) {
  ConsumerOptions options;
  options.start = StartPosition::Offset(100);
  options.end = EndPosition::Offset(110);
  EXPECT_EQ(Offsets(options), Iota(100, 110));
  options.end = EndPosition::Offset(100);
  EXPECT_TRUE(Offsets(options).empty());
  options.end = EndPosition::Timestamp(0);
  EXPECT_TRUE(Offsets(options).empty());
  options.end = EndPosition::Timestamp(INT64_MAX);
  EXPECT_EQ(Offsets(options), Iota(100, kMessages));
}

TEST_F(ConsumerApiTest, CreditBoundsEachBatchAndScanBudgetBoundsEachPoll) {
  ConsumerOptions options;
  options.stream = "orders";
  options.credit = 7;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  ASSERT_EQ(batch.size(), 7u);
  for (size_t i = 0; i < batch.size(); ++i) EXPECT_EQ(batch[i].offset(), i);
  EXPECT_EQ(consumer->position(), 7u);

  options.credit = 1000;
  options.max_scan_per_poll = 100;
  options.filter = Sql("region = 'nowhere'");
  options.skip_chunks = false;  // the scan budget is about records read: read every chunk
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_FALSE(consumer->done());
  EXPECT_EQ(consumer->stats().scanned, 100u);
}

TEST_F(ConsumerApiTest, StatisticsCountScannedMatchedBytesChunks) {
  ConsumerOptions options;
  options.stream = "orders";
  options.filter = Sql("vip");
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  std::vector<uint64_t> offsets = Drain(consumer.get());
  const ConsumerStats& stats = consumer->stats();
  EXPECT_EQ(stats.scanned, kMessages);
  EXPECT_EQ(stats.matched, offsets.size());
  EXPECT_EQ(offsets, ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) { return o.vip; }));
  StreamInfo info;
  ASSERT_TRUE(engine_->GetStreamInfo("orders", &info).ok());
  EXPECT_EQ(stats.chunks, info.chunk_count);
  EXPECT_GE(stats.chunks, kMessages / 512);
  EXPECT_GT(stats.bytes, kMessages * 300);
  EXPECT_LT(stats.bytes, info.bytes);
  EXPECT_GT(stats.elapsed.count(), 0);
  EXPECT_EQ(stats.chunks_corrupt, 0u);
}

TEST_F(ConsumerApiTest, DeliveriesCarryBytesAndDecodeOnRequest) {
  ConsumerOptions options;
  options.stream = "orders";
  options.start = StartPosition::Offset(42);
  options.credit = 3;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch).ok());
  ASSERT_EQ(batch.size(), 3u);
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  ASSERT_TRUE(synthetic::SyntheticOrders::Create({}, &orders).ok());
  pn_message_t* message = pn_message();
  for (size_t i = 0; i < 3; ++i) {
    const Delivery& d = batch[i];
    std::string expected;
    ASSERT_TRUE(orders->Encode(42 + i, &expected).ok());
    EXPECT_EQ(d.bytes(), expected);  // the stored bytes, unchanged
    EXPECT_GT(d.timestamp_ms(), 0);
    ASSERT_TRUE(d.ToProton(message).ok());
    EXPECT_STREQ(pn_message_get_subject(message), std::string(orders->Describe(42 + i).subject).c_str());
    std::string json;
    ASSERT_TRUE(d.ToJson(&json).ok());
    nlohmann::json j = nlohmann::json::parse(json);
    EXPECT_EQ(j["offset"], 42 + i);
    EXPECT_EQ(j["application_properties"]["amount"], orders->Describe(42 + i).amount);
  }
  pn_message_free(message);
}

TEST_F(ConsumerApiTest, ABatchReleasedOrClearedFillsAgainWithTheNextDeliveries) {
  ConsumerOptions options;
  options.stream = "orders";
  options.credit = 5;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  ASSERT_TRUE(synthetic::SyntheticOrders::Create({}, &orders).ok());
  DeliveryBatch batch;
  uint64_t next = 0;
  for (int round = 0; round < 4; ++round) {
    ASSERT_TRUE(consumer->Poll(&batch).ok());
    ASSERT_EQ(batch.size(), 5u);
    for (const Delivery& d : batch) {
      std::string expected;
      ASSERT_TRUE(orders->Encode(next, &expected).ok());
      EXPECT_EQ(d.offset(), next);
      EXPECT_EQ(d.bytes(), expected);
      ++next;
    }
    if (round % 2 == 0) {
      batch.Release();
    } else {
      batch.Clear();
    }
    EXPECT_TRUE(batch.empty());
  }
}

TEST_F(ConsumerApiTest, NewConsumerErrors) {
  std::unique_ptr<Consumer> consumer;
  ConsumerOptions options;
  options.stream = "nope";
  Status s = engine_->NewConsumer(options, &consumer);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_EQ(s.what(), "no such stream");
  options.stream = "orders";
  options.credit = 0;
  EXPECT_TRUE(engine_->NewConsumer(options, &consumer).IsInvalidArgument());
  options.credit = 1;
  options.filter = ToCompiledFilter(selector::Selector::Compile("amount >"));
  EXPECT_TRUE(engine_->NewConsumer(options, &consumer).IsInvalidArgument());
}

// The engine keeps the storage codes a caller acts on differently: a store locked by another writer
// (Busy) is not a failing disk (IOError), and a write to a store opened read-only is NotSupported.
TEST_F(ConsumerApiTest, StoreErrorsKeepTheirCodes) {
  EngineOptions options;
  std::unique_ptr<StreamEngine> second;
  Status s = StreamEngine::Open(folder_->path(), options, &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_FALSE(s.IsInputError());

  options.store.read_only = true;
  std::unique_ptr<StreamEngine> reader;
  ASSERT_TRUE(StreamEngine::Open(folder_->path(), options, &reader).ok());
  s = reader->CreateStream("fresh");
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_FALSE(s.IsInputError());
}

TEST_F(ConsumerApiTest, AppendValidatesMessages) {
  uint64_t offset = 0;
  Status s = engine_->Append("orders", std::string_view("\x00\x53\x70\xc0\x09\x01", 6), &offset);
  EXPECT_TRUE(s.IsMalformed()) << s.ToString();
  EXPECT_EQ(s.what(), "malformed message");
  EXPECT_TRUE(s.where().rfind("byte ", 0) == 0) << s.ToString();
  std::string good;
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  ASSERT_TRUE(synthetic::SyntheticOrders::Create({}, &orders).ok());
  ASSERT_TRUE(orders->Encode(0, &good).ok());
  std::vector<std::string_view> batch = {good, std::string_view("\x00\x53\x75\xa0\x01", 5), good};
  s = engine_->AppendBatch("orders", batch);
  EXPECT_TRUE(s.IsMalformed());
  EXPECT_TRUE(s.where().rfind("message 1 of the batch, byte ", 0) == 0) << s.ToString();
  StreamInfo info;
  ASSERT_TRUE(engine_->GetStreamInfo("orders", &info).ok());
  EXPECT_EQ(info.next_offset, kMessages);  // nothing of the refused batch was stored
  ASSERT_TRUE(engine_->Append("orders", good, &offset).ok());
  EXPECT_EQ(offset, kMessages);
  EXPECT_TRUE(engine_->Append("nope", good).IsNotFound());
}

TEST_F(ConsumerApiTest, StreamsAreListedAndDeleted) {
  ASSERT_TRUE(engine_->CreateStream("other").ok());
  ASSERT_TRUE(engine_->CreateStream("other").ok());  // idempotent
  std::vector<std::string> names;
  ASSERT_TRUE(engine_->ListStreams(&names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"orders", "other"}));
  ASSERT_TRUE(engine_->DeleteStream("other").ok());
  EXPECT_TRUE(engine_->DeleteStream("other").IsNotFound());
  EXPECT_TRUE(engine_->CreateStream(std::string("bad\x01name", 8)).IsInvalidArgument());
}

TEST(StreamEngineOpenTest, MissingStoreIsNotFoundWithoutCreate) {
  StoreFolder folder("missing-store");
  EngineOptions options;
  options.store.create_if_missing = false;
  std::unique_ptr<StreamEngine> engine;
  Status s = StreamEngine::Open(folder.path(), options, &engine);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_EQ(s.ToString(), "cannot open store: " + folder.path() + ": no such directory");
  EXPECT_FALSE(std::filesystem::exists(folder.path()));
}

}  // namespace
}  // namespace sift::engine::testing
