// Chunk skipping with REGEXP_LIKE: a store of 120,000 synthetic orders of 2,000,000 customers, one
// customer sought by `customer = 'cust-N'` and by `REGEXP_LIKE(customer, '^cust-N$')`. The regular
// expression reads no more chunks than the equality (its summaries answer it as the equality), and
// both deliver the same offsets, with skipping on and off. A prefix `^cust-N` that no chunk's text
// range admits reads nothing, and a pattern with no literal reads everything.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/engine/consumer_test_support.h"

namespace sift::engine {
namespace {

using testing::Sql;
using testing::StoreFolder;

constexpr uint64_t kMessages = 120000;

struct Replayed {
  std::vector<uint64_t> offsets;
  ConsumerStats stats;
};

Replayed Replay(StreamEngine* engine, const std::string& sql, bool skip) {
  ConsumerOptions o;
  o.stream = "orders";
  o.filter = Sql(sql);
  o.skip_chunks = skip;
  o.end = EndPosition::Offset(kMessages);
  std::unique_ptr<Consumer> consumer;
  Replayed run;
  EXPECT_TRUE(engine->NewConsumer(o, &consumer).ok()) << sql;
  if (consumer == nullptr) return run;
  DeliveryBatch batch;
  while (!consumer->done()) {
    EXPECT_TRUE(consumer->Poll(&batch).ok());
    for (const Delivery& d : batch) run.offsets.push_back(d.offset());
  }
  run.stats = consumer->stats();
  return run;
}

TEST(RegexpChunkSkip, OneCustomerReadsNoMoreChunksThanTheEquality) {
  StoreFolder folder("regexp-chunk-skip");
  EngineOptions options;
  options.store.sync = false;
  std::unique_ptr<StreamEngine> engine;
  ASSERT_TRUE(StreamEngine::Open(folder.path(), options, &engine).ok());
  ASSERT_TRUE(engine->CreateStream("orders").ok());
  synthetic::SyntheticOrdersOptions generator;
  generator.seed = 7;
  generator.customers = 2000000;
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  ASSERT_TRUE(synthetic::SyntheticOrders::Create(generator, &orders).ok());
  std::vector<std::string> bytes(2000);
  std::vector<std::string_view> views;
  for (uint64_t i = 0; i < kMessages;) {
    views.clear();
    for (size_t n = 0; n < bytes.size() && i < kMessages; ++n, ++i) {
      ASSERT_TRUE(orders->Encode(i, &bytes[n]).ok());
      views.emplace_back(bytes[n]);
    }
    ASSERT_TRUE(engine->AppendBatch("orders", views).ok());
  }
  char customer[32];
  std::snprintf(customer, sizeof customer, "cust-%05u", orders->Describe(kMessages / 2).customer);

  const Replayed equality = Replay(engine.get(), "customer = '" + std::string(customer) + "'", true);
  const Replayed regexp = Replay(engine.get(), "REGEXP_LIKE(customer, '^" + std::string(customer) + "$')", true);
  const Replayed regexp_all = Replay(engine.get(), "REGEXP_LIKE(customer, '^" + std::string(customer) + "$')", false);
  const uint64_t chunks = regexp_all.stats.chunks;
  std::printf("%s: %llu chunks; equality reads %llu, REGEXP_LIKE '^...$' reads %llu, %zu matches\n", customer,
              static_cast<unsigned long long>(chunks), static_cast<unsigned long long>(equality.stats.chunks),
              static_cast<unsigned long long>(regexp.stats.chunks), regexp.offsets.size());
  EXPECT_GE(regexp.offsets.size(), 1u);
  EXPECT_EQ(regexp.offsets, equality.offsets);
  EXPECT_EQ(regexp.offsets, regexp_all.offsets);
  EXPECT_LE(regexp.stats.chunks, equality.stats.chunks);
  EXPECT_GT(chunks, 20u);
  EXPECT_LT(regexp.stats.chunks * 4, chunks);  // most chunks are skipped

  // A prefix beyond every customer: no chunk's text range admits it.
  const Replayed prefix = Replay(engine.get(), "REGEXP_LIKE(customer, '^cust-9999999')", true);
  EXPECT_TRUE(prefix.offsets.empty());
  EXPECT_EQ(prefix.stats.chunks, 0u);
  // No literal to go by: every chunk is read.
  const Replayed any = Replay(engine.get(), "REGEXP_LIKE(customer, '[0-9]{7}')", true);
  EXPECT_EQ(any.stats.chunks, chunks);
  EXPECT_EQ(any.offsets, Replay(engine.get(), "REGEXP_LIKE(customer, '[0-9]{7}')", false).offsets);
}

}  // namespace
}  // namespace sift::engine
