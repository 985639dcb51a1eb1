// Stores written before the term index (store format 2: 32-byte index entries, chunk summaries without
// term entries) open and replay the same, skip chunks by their summaries, take appends, and get their
// term entries from SummarizeChunks (`sift reindex`). tests/storage/data/store-v2 was written by that
// version of `sift append`: stream "orders", 300 `sift gen --seed 7` orders in 6 raw chunks of 50
// (`--max-chunk-messages 50`), stream "zipped", the same orders in 3 zstd chunks of 100
// (`--compression zstd --max-chunk-messages 100`), both ingested as table files, and stream "kept",
// 20 `--profile wide --seed 8` messages appended as typed JSON through the write-ahead log.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "engine/compiled_filter.h"
#include "selector/selector.h"
#include "sift/stream_engine.h"
#include "storage/crc32c.h"

namespace sift::engine {
namespace {

constexpr uint32_t kOrdersCrc = 0xd29a056c;  // CRC32C of the record file `sift gen --seed 7 --count 300` wrote
constexpr uint32_t kKeptCrc = 0xf2c3da70;    // and of the wide messages as a record file

class StoreFormatV2 : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sift_store_v2_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::copy(SIFT_TEST_DATA "/store-v2", dir_, std::filesystem::copy_options::recursive);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<StreamEngine> Open(bool read_only) {
    EngineOptions options;
    options.store.read_only = read_only;
    options.store.create_if_missing = false;
    std::unique_ptr<StreamEngine> engine;
    const Status s = StreamEngine::Open(dir_.string(), options, &engine);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return engine;
  }

  struct Replayed {
    std::vector<uint64_t> offsets;
    uint32_t crc = 0;  // of the deliveries as a record file (4-byte big-endian length, then the message)
    ConsumerStats stats;
  };
  static Replayed Replay(StreamEngine* engine, const std::string& stream, const std::string& sql, bool skip) {
    Replayed r;
    ConsumerOptions o;
    o.stream = stream;
    const selector::Selector selector = selector::Selector::Compile(sql);
    EXPECT_TRUE(selector.ok()) << sql;
    o.filter = ToCompiledFilter(selector);
    o.skip_chunks = skip;
    o.end = EndPosition::Offset(UINT64_MAX);
    std::unique_ptr<Consumer> consumer;
    const Status s = engine->NewConsumer(o, &consumer);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return r;
    DeliveryBatch batch;
    while (!consumer->done()) {
      EXPECT_TRUE(consumer->Poll(&batch).ok());
      for (const Delivery& d : batch) {
        r.offsets.push_back(d.offset());
        char length[4];
        base::StoreBE32(length, static_cast<uint32_t>(d.bytes().size()));
        r.crc = storage::crc32c::Extend(r.crc, length, 4);
        r.crc = storage::crc32c::Extend(r.crc, d.bytes().data(), d.bytes().size());
      }
    }
    r.stats = consumer->stats();
    return r;
  }

  void ExpectTheSameStreams(StreamEngine* engine) {
    StreamInfo orders, zipped, kept;
    ASSERT_TRUE(engine->GetStreamInfo("orders", &orders).ok());
    ASSERT_TRUE(engine->GetStreamInfo("zipped", &zipped).ok());
    ASSERT_TRUE(engine->GetStreamInfo("kept", &kept).ok());
    EXPECT_EQ(orders.message_count, 300u);
    EXPECT_EQ(orders.chunk_count, 6u);
    EXPECT_EQ(zipped.message_count, 300u);
    EXPECT_EQ(zipped.chunk_count, 3u);
    EXPECT_LT(zipped.bytes, zipped.raw_bytes);
    EXPECT_EQ(kept.message_count, 20u);
    EXPECT_EQ(Replay(engine, "orders", "TRUE", false).crc, kOrdersCrc);
    EXPECT_EQ(Replay(engine, "zipped", "TRUE", false).crc, kOrdersCrc);
    EXPECT_EQ(Replay(engine, "kept", "TRUE", false).crc, kKeptCrc);
  }

  std::filesystem::path dir_;
};

TEST_F(StoreFormatV2, OpensReadOnlyReadsTheSameAndSkipsBySummaries) {
  std::unique_ptr<StreamEngine> engine = Open(/*read_only=*/true);
  ASSERT_NE(engine, nullptr);
  ExpectTheSameStreams(engine.get());
  for (const char* stream : {"orders", "zipped"}) {
    // Offset 120's customer: one chunk holds it; the summaries rule out the others.
    const Replayed on = Replay(engine.get(), stream, "customer = 'cust-09940'", true);
    const Replayed off = Replay(engine.get(), stream, "customer = 'cust-09940'", false);
    EXPECT_EQ(on.offsets, off.offsets);
    EXPECT_NE(std::find(on.offsets.begin(), on.offsets.end(), 120u), on.offsets.end());
    EXPECT_GT(on.stats.chunks_pruned, 0u) << stream;
  }
  EXPECT_FALSE(engine->SummarizeChunks("orders").ok());  // read-only
}

TEST_F(StoreFormatV2, TakesAppendsAndGetsTermEntriesFromSummarizeChunks) {
  std::unique_ptr<StreamEngine> engine = Open(/*read_only=*/false);
  ASSERT_NE(engine, nullptr);
  ExpectTheSameStreams(engine.get());
  const std::string point = "customer = 'cust-09940'";
  const Replayed before = Replay(engine.get(), "orders", point, true);
  // Every chunk has its summary, none its terms: the six chunks are summarized again, with terms.
  SummarizeCounts counts;
  ASSERT_TRUE(engine->SummarizeChunks("orders", &counts).ok());
  EXPECT_EQ(counts.built, 6u);
  EXPECT_EQ(counts.present, 0u);
  ASSERT_TRUE(engine->SummarizeChunks("orders", &counts).ok());
  EXPECT_EQ(counts.built, 0u);
  EXPECT_EQ(counts.present, 6u);
  const Replayed after = Replay(engine.get(), "orders", point, true);
  EXPECT_EQ(after.offsets, before.offsets);
  EXPECT_EQ(after.stats.chunks_pruned, before.stats.chunks_pruned);
  // The chunks it rules out are ruled out by their terms: only the kept chunk's summary is read.
  EXPECT_LT(after.stats.summary_bytes_read * 2, before.stats.summary_bytes_read);

  // Appends after the old chunks, raw and compressed, read back with them.
  std::vector<std::string> copies;
  const Replayed all = Replay(engine.get(), "zipped", "TRUE", false);
  std::unique_ptr<Consumer> consumer;
  ConsumerOptions o;
  o.stream = "zipped";
  o.end = EndPosition::Offset(UINT64_MAX);
  ASSERT_TRUE(engine->NewConsumer(o, &consumer).ok());
  DeliveryBatch batch;
  while (!consumer->done()) {
    ASSERT_TRUE(consumer->Poll(&batch).ok());
    for (const Delivery& d : batch) copies.emplace_back(d.bytes());
  }
  std::vector<std::string_view> views(copies.begin(), copies.end());
  ASSERT_TRUE(engine->AppendBatch("zipped", views).ok());
  consumer.reset();  // before the engine it reads
  engine.reset();
  engine = Open(/*read_only=*/true);
  ASSERT_NE(engine, nullptr);
  StreamInfo zipped;
  ASSERT_TRUE(engine->GetStreamInfo("zipped", &zipped).ok());
  EXPECT_EQ(zipped.message_count, 600u);
  const Replayed twice = Replay(engine.get(), "zipped", point, true);
  const Replayed twice_off = Replay(engine.get(), "zipped", point, false);
  EXPECT_EQ(twice.offsets, twice_off.offsets);
  EXPECT_EQ(twice.offsets.size(), 2 * Replay(engine.get(), "orders", point, false).offsets.size());
  EXPECT_EQ(all.offsets.size(), 300u);
}

}  // namespace
}  // namespace sift::engine
