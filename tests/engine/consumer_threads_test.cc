// Thread safety of the engine facade as documented in sift/consumer.h / sift/stream_engine.h: many consumers
// on many threads over one engine, and appends concurrent with following (tailing) consumers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/engine/consumer_test_support.h"

namespace sift::engine::testing {
namespace {

class ConsumerThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::make_unique<StoreFolder>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    EngineOptions options;
    options.store.sync = false;
    options.store.max_chunk_messages = 256;
    Status s = StreamEngine::Open(folder_->path(), options, &engine_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(engine_->CreateStream("orders").ok());
  }

  std::unique_ptr<StoreFolder> folder_;
  std::unique_ptr<StreamEngine> engine_;
};

TEST_F(ConsumerThreadsTest, ManyConsumersOnManyThreads) {
  constexpr uint64_t kMessages = 20000;
  AppendOrders(engine_.get(), "orders", 0, kMessages);
  struct Case {
    std::string sql;
    std::vector<uint64_t> expected;
    std::vector<uint64_t> got;
  };
  std::vector<Case> cases = {
      {"region = 'eu-west'",
       ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) { return o.region == "eu-west"; }),
       {}},
      {"amount > 900",
       ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) { return o.amount > 900; }),
       {}},
      {"vip AND tier = 3",
       ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) { return o.vip && o.tier == 3; }),
       {}},
      {"color IN ('red', 'blue') AND price < 50",
       ExpectedOffsets(
           0, kMessages,
           [](const synthetic::SyntheticOrder& o) { return (o.color == "red" || o.color == "blue") && o.price < 50; }),
       {}},
      {"p.subject = 'paid' OR h.priority = 9",
       ExpectedOffsets(0, kMessages,
                       [](const synthetic::SyntheticOrder& o) { return o.subject == "paid" || o.priority == 9; }),
       {}},
      {"customer LIKE 'cust-0001%'",
       ExpectedOffsets(0, kMessages,
                       [](const synthetic::SyntheticOrder& o) { return o.customer >= 10 && o.customer < 20; }),
       {}},
  };
  // Every case twice, each on its own thread with its own consumer, all at once.
  std::vector<std::vector<uint64_t>> results(cases.size() * 2);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      ConsumerOptions options;
      options.stream = "orders";
      options.filter = Sql(cases[t % cases.size()].sql);
      options.credit = 64;
      std::unique_ptr<Consumer> consumer;
      if (!engine_->NewConsumer(options, &consumer).ok()) {
        ++failures;
        return;
      }
      Status s;
      results[t] = Drain(consumer.get(), &s);
      if (!s.ok()) ++failures;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (size_t t = 0; t < results.size(); ++t) {
    EXPECT_EQ(results[t], cases[t % cases.size()].expected) << cases[t % cases.size()].sql;
  }
}

TEST_F(ConsumerThreadsTest, FollowingConsumersSeeConcurrentAppends) {
  constexpr uint64_t kMessages = 6000;
  AppendOrders(engine_.get(), "orders", 0, 100);  // some history before the consumers start
  std::atomic<bool> appending{true};
  std::thread appender([&] {
    for (uint64_t first = 100; first < kMessages; first += 100) {
      AppendOrders(engine_.get(), "orders", first, 100, 1, 100);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    appending = false;
  });
  const std::vector<uint64_t> amounts =
      ExpectedOffsets(0, kMessages, [](const synthetic::SyntheticOrder& o) { return o.amount > 500; });
  std::vector<std::vector<uint64_t>> got(3);
  std::vector<std::thread> followers;
  for (size_t f = 0; f < got.size(); ++f) {
    followers.emplace_back([&, f] {
      ConsumerOptions options;
      options.stream = "orders";
      options.follow = true;
      options.credit = 50;
      if (f == 0) options.filter = Sql("amount > 500");
      std::unique_ptr<Consumer> consumer;
      ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
      const size_t want = f == 0 ? amounts.size() : kMessages;
      DeliveryBatch batch;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (got[f].size() < want && std::chrono::steady_clock::now() < deadline) {
        Status s = consumer->Poll(&batch, std::chrono::milliseconds(50));
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_FALSE(consumer->done());  // a follower never ends without an end bound
        for (const Delivery& d : batch) got[f].push_back(d.offset());
      }
    });
  }
  appender.join();
  for (std::thread& t : followers) t.join();
  EXPECT_FALSE(appending.load());
  EXPECT_EQ(got[0], amounts);
  EXPECT_EQ(got[1], Iota(0, kMessages));
  EXPECT_EQ(got[2], Iota(0, kMessages));
}

TEST_F(ConsumerThreadsTest, FollowerFromNextEndsAtItsEndBound) {
  AppendOrders(engine_.get(), "orders", 0, 10);
  ConsumerOptions options;
  options.stream = "orders";
  options.follow = true;
  options.start = StartPosition::Next();
  options.end = EndPosition::Offset(25);
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(engine_->NewConsumer(options, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch, std::chrono::milliseconds(20)).ok());
  EXPECT_TRUE(batch.empty());
  EXPECT_FALSE(consumer->done());
  std::thread appender([&] { AppendOrders(engine_.get(), "orders", 10, 30); });
  std::vector<uint64_t> offsets;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!consumer->done() && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(consumer->Poll(&batch, std::chrono::milliseconds(50)).ok());
    for (const Delivery& d : batch) offsets.push_back(d.offset());
  }
  appender.join();
  EXPECT_TRUE(consumer->done());
  EXPECT_EQ(offsets, Iota(10, 25));
}

}  // namespace
}  // namespace sift::engine::testing
