// StreamEngine::AppendEach: a batch of valid, malformed and too-large messages gets one outcome per
// message; the valid ones are stored in batch order in dense offsets and read back byte for byte; a
// write that fails (no such stream, a read-only store, a file the disk refuses to grow) fails every
// valid message with the write's error and leaves the refused ones with their own.
// AppendBatch's bulk path (AppendOptions::bulk) keeps AppendBatch's contract.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/engine/consumer_test_support.h"

namespace sift::engine::testing {
namespace {

constexpr uint32_t kMaxMessageBytes = 4096;

// An empty data section followed by a stray byte: well-formed up to byte 3, then garbage.
const std::string_view kTrailingByte("\x00\x53\x75\xa0\x00\x01", 6);
// A properties list whose size runs past the end of the message.
const std::string_view kTruncated("\x00\x53\x73\xc0\x09\x01", 6);

std::vector<std::string> Orders(uint64_t first, uint64_t count) {
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  EXPECT_TRUE(synthetic::SyntheticOrders::Create({}, &orders).ok());
  std::vector<std::string> out(count);
  for (uint64_t i = 0; i < count; ++i) EXPECT_TRUE(orders->Encode(first + i, &out[i]).ok());
  return out;
}

// Every stored message of `stream` from its first offset, as (offset, bytes).
std::vector<std::pair<uint64_t, std::string>> ReadAll(StreamEngine* engine, const std::string& stream) {
  ConsumerOptions options;
  options.stream = stream;
  std::unique_ptr<Consumer> consumer;
  Status s = engine->NewConsumer(options, &consumer);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::pair<uint64_t, std::string>> out;
  if (!s.ok()) return out;
  DeliveryBatch batch;
  while (!consumer->done()) {
    s = consumer->Poll(&batch);
    for (const Delivery& d : batch) out.emplace_back(d.offset(), std::string(d.bytes()));
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) break;
  }
  return out;
}

class AppendEachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::make_unique<StoreFolder>(std::string("append-each-") +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    options_.store.sync = false;
    options_.store.max_message_bytes = kMaxMessageBytes;
    options_.store.max_chunk_messages = 3;  // the stored messages span several chunks
    Open();
    ASSERT_TRUE(engine_->CreateStream("s").ok());
  }

  void Open() {
    engine_.reset();
    Status s = StreamEngine::Open(folder_->path(), options_, &engine_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::unique_ptr<StoreFolder> folder_;
  EngineOptions options_;
  std::unique_ptr<StreamEngine> engine_;
};

TEST_F(AppendEachTest, RefusesBadMessagesAloneAndStoresTheOthersInDenseOffsets) {
  // Something already stored, so offsets do not start at 0.
  const std::vector<std::string> before = Orders(100, 2);
  ASSERT_TRUE(engine_->AppendBatch("s", std::vector<std::string_view>(before.begin(), before.end())).ok());

  const std::vector<std::string> good = Orders(0, 5);
  const std::string huge(kMaxMessageBytes + 1, 'x');
  const std::vector<std::string_view> batch = {good[0], kTrailingByte, good[1], huge, good[2],
                                               good[3], kTruncated,    good[4], huge};
  std::vector<AppendOutcome> outcomes = {AppendOutcome{}};  // resized by the call
  Status s = engine_->AppendEach("s", batch, &outcomes);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outcomes.size(), batch.size());

  // The valid ones: stored at 2, 3, 4, ... in batch order.
  const std::vector<size_t> valid = {0, 2, 4, 5, 7};
  for (size_t k = 0; k < valid.size(); ++k) {
    const AppendOutcome& o = outcomes[valid[k]];
    EXPECT_TRUE(o.status.ok()) << valid[k] << ": " << o.status.ToString();
    EXPECT_EQ(o.offset, 2 + k) << valid[k];
  }
  // The malformed ones name the byte and the reason, as a single Append does.
  for (size_t i : {size_t{1}, size_t{6}}) {
    EXPECT_TRUE(outcomes[i].status.IsMalformed()) << i << ": " << outcomes[i].status.ToString();
    EXPECT_EQ(outcomes[i].status.what(), "malformed message");
    Status single = engine_->Append("s", batch[i]);
    EXPECT_EQ(outcomes[i].status.ToString(), single.ToString());
  }
  EXPECT_EQ(outcomes[1].status.where(), "byte 5");
  // The too-large ones say so, with both sizes.
  for (size_t i : {size_t{3}, size_t{8}}) {
    const Status& t = outcomes[i].status;
    EXPECT_TRUE(t.IsInvalidArgument()) << i << ": " << t.ToString();
    EXPECT_EQ(t.what(), "message too large");
    EXPECT_NE(t.why().find(std::to_string(kMaxMessageBytes + 1) + " bytes"), std::string_view::npos) << t.ToString();
    EXPECT_NE(t.why().find(std::to_string(kMaxMessageBytes)), std::string_view::npos) << t.ToString();
  }

  StreamInfo info;
  ASSERT_TRUE(engine_->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 7u);  // the refused messages took no offset
  const auto stored = ReadAll(engine_.get(), "s");
  ASSERT_EQ(stored.size(), 7u);
  for (size_t k = 0; k < stored.size(); ++k) {
    EXPECT_EQ(stored[k].first, k);
    EXPECT_EQ(stored[k].second, k < 2 ? before[k] : good[k - 2]) << k;
  }

  // The next append continues right after them, also after a reopen.
  Open();
  uint64_t offset = 0;
  ASSERT_TRUE(engine_->Append("s", good[0], &offset).ok());
  EXPECT_EQ(offset, 7u);
}

TEST_F(AppendEachTest, NothingToStoreIsOkAndStoresNothing) {
  std::vector<AppendOutcome> outcomes;
  Status s = engine_->AppendEach("s", {}, &outcomes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(outcomes.empty());

  const std::vector<std::string_view> bad = {kTrailingByte, kTruncated};
  s = engine_->AppendEach("s", bad, &outcomes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_TRUE(outcomes[0].status.IsMalformed());
  EXPECT_TRUE(outcomes[1].status.IsMalformed());
  StreamInfo info;
  ASSERT_TRUE(engine_->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 0u);
  EXPECT_EQ(info.chunk_count, 0u);
}

TEST_F(AppendEachTest, WithoutValidationOnlyTheSizeIsChecked) {
  options_.validate = false;
  Open();
  const std::string huge(kMaxMessageBytes + 1, 'x');
  const std::vector<std::string_view> batch = {kTrailingByte, huge};
  std::vector<AppendOutcome> outcomes;
  ASSERT_TRUE(engine_->AppendEach("s", batch, &outcomes).ok());
  EXPECT_TRUE(outcomes[0].status.ok()) << outcomes[0].status.ToString();
  EXPECT_EQ(outcomes[0].offset, 0u);
  EXPECT_TRUE(outcomes[1].status.IsInvalidArgument()) << outcomes[1].status.ToString();
}

TEST_F(AppendEachTest, AMissingStreamFailsTheValidMessagesOnly) {
  const std::vector<std::string> good = Orders(0, 2);
  const std::vector<std::string_view> batch = {good[0], kTrailingByte, good[1]};
  std::vector<AppendOutcome> outcomes;
  Status s = engine_->AppendEach("nope", batch, &outcomes);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].status.ToString(), s.ToString());
  EXPECT_EQ(outcomes[2].status.ToString(), s.ToString());
  EXPECT_TRUE(outcomes[1].status.IsMalformed()) << outcomes[1].status.ToString();

  // Nothing valid to store: the missing stream is still reported.
  s = engine_->AppendEach("nope", std::vector<std::string_view>{kTrailingByte}, &outcomes);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(outcomes[0].status.IsMalformed());
}

TEST_F(AppendEachTest, AReadOnlyStoreRefusesTheWrite) {
  engine_.reset();
  options_.store.read_only = true;
  Open();
  const std::vector<std::string> good = Orders(0, 1);
  const std::vector<std::string_view> batch = {kTruncated, good[0]};
  std::vector<AppendOutcome> outcomes;
  Status s = engine_->AppendEach("s", batch, &outcomes);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_TRUE(outcomes[0].status.IsMalformed());
  EXPECT_TRUE(outcomes[1].status.IsNotSupported());
}

// A write the file system refuses: in a child process whose files may not grow past 1 MiB, a batch of
// ~2 MiB of valid messages cannot be written to the write-ahead log. The write fails as IOError,
// every valid message carries it, the refused ones keep their own reason, and nothing is stored.
// (The child re-runs this test from the start, in a store folder of its own, and removes it.)
TEST_F(AppendEachTest, AFailingWriteFailsEveryValidMessage) {
  engine_.reset();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = folder_->path();
  EngineOptions options = options_;
  options.store.sync = true;
  options.store.max_chunk_messages = 4096;
  auto child = [&]() -> int {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing the process
    std::unique_ptr<StreamEngine> engine;
    if (!StreamEngine::Open(path, options, &engine).ok()) return 10;
    rlimit limit{1u << 20, 1u << 20};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 11;
    const std::vector<std::string> good = Orders(0, 5000);
    const std::string huge(kMaxMessageBytes + 1, 'x');
    std::vector<std::string_view> batch(good.begin(), good.end());
    batch.insert(batch.begin() + 1, kTrailingByte);
    batch.insert(batch.begin() + 3, huge);
    std::vector<AppendOutcome> outcomes;
    Status s = engine->AppendEach("s", batch, &outcomes);
    if (!s.IsIOError()) {
      fprintf(stderr, "expected IOError, got %s\n", s.ToString().c_str());
      return 12;
    }
    if (outcomes.size() != batch.size()) return 13;
    if (!outcomes[1].status.IsMalformed() || !outcomes[3].status.IsInvalidArgument()) return 14;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (i == 1 || i == 3) continue;
      if (outcomes[i].status.ToString() != s.ToString()) return 15;
    }
    StreamInfo info;
    if (!engine->GetStreamInfo("s", &info).ok() || info.next_offset != 0) return 16;
    fprintf(stderr, "write failed as expected: %s\n", s.ToString().c_str());
    return 0;
  };
  // The store's files are in an error state after the failed write: no orderly close, just exit.
  EXPECT_EXIT(
      {
        const int code = child();
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
        std::fflush(stderr);
        _exit(code);
      },
      ::testing::ExitedWithCode(0), "write failed as expected");
}

// AppendBatch with AppendOptions::bulk keeps AppendBatch's contract: the batch lands in consecutive
// offsets after what the log path stored, reads back byte for byte beside it, and a malformed message
// refuses the whole batch, naming it, with nothing stored.
TEST_F(AppendEachTest, BulkAppendBatchKeepsTheContractOfTheLogPath) {
  const std::vector<std::string> logged = Orders(0, 4);
  const std::vector<std::string> bulk = Orders(4, 10);
  uint64_t first = 99;
  ASSERT_TRUE(engine_->AppendBatch("s", std::vector<std::string_view>(logged.begin(), logged.end()), &first).ok());
  EXPECT_EQ(first, 0u);
  AppendOptions options;
  options.bulk = true;
  Status s = engine_->AppendBatch("s", std::vector<std::string_view>(bulk.begin(), bulk.end()), &first, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(first, 4u);

  std::vector<std::string_view> bad(bulk.begin(), bulk.begin() + 3);
  bad.push_back(kTruncated);
  s = engine_->AppendBatch("s", bad, &first, options);
  EXPECT_TRUE(s.IsMalformed()) << s.ToString();
  EXPECT_EQ(s.where(), "message 3 of the batch, byte 3");
  EXPECT_TRUE(engine_->AppendBatch("missing", std::vector<std::string_view>(bulk.begin(), bulk.end()), &first, options)
                  .IsNotFound());

  const auto stored = ReadAll(engine_.get(), "s");
  ASSERT_EQ(stored.size(), logged.size() + bulk.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i].first, i);
    EXPECT_EQ(stored[i].second, i < logged.size() ? logged[i] : bulk[i - logged.size()]) << i;
  }
}

}  // namespace
}  // namespace sift::engine::testing
