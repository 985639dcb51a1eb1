// The durable-end mark and fencing, on a file system that blocks or fails syncs and fills up
// (tests/support/fault_file_system.h): a consumer never sees an append before its fsync returned, a
// failed sync is never delivered and fences the stream until the store recovers, and a full disk is
// recovered from without reopening the engine. Offsets stay dense and no offset a consumer saw ever
// holds another message, also after the store is reopened.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "engine/stream_engine_impl.h"
#include "sift/stream_engine.h"
#include "tests/engine/consumer_test_support.h"
#include "tests/support/fault_file_system.h"

namespace sift::engine {
namespace {

using namespace std::chrono_literals;
using testing::StoreFolder;
using FaultFs = sift::testing::FaultFileSystem;

// An AMQP message of one amqp-value section holding `body` (a str8): unique bodies make messages
// comparable by bytes.
std::string Message(const std::string& body) {
  std::string m("\x00\x53\x77\xa1", 4);
  m.push_back(static_cast<char>(body.size()));
  return m + body;
}

struct Harness {
  explicit Harness(const std::string& name, bool sync = true, bool deferred = false) : folder(name) {
    options.store.sync = sync;
    options.store.deferred_sync = deferred;
    Open();
  }
  void Open() {
    storage::StoreOptions extra;
    extra.env = FaultFs::NewEnv(fs);
    Status s = StreamEngineInternals::Open(folder.path(), options, extra, &engine);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // What a consumer from the first offset reads now (waiting up to `wait` for each poll).
  std::vector<std::pair<uint64_t, std::string>> ReadAll(std::chrono::milliseconds wait = 0ms) {
    ConsumerOptions o;
    o.stream = "s";
    o.follow = wait.count() > 0;
    std::unique_ptr<Consumer> c;
    EXPECT_TRUE(engine->NewConsumer(o, &c).ok());
    std::vector<std::pair<uint64_t, std::string>> out;
    DeliveryBatch batch;
    for (int i = 0; i < 100; ++i) {
      Status s = c->Poll(&batch, wait);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (batch.empty()) break;
      for (const Delivery& d : batch) out.emplace_back(d.offset(), std::string(d.bytes()));
    }
    return out;
  }

  std::shared_ptr<FaultFs> fs = FaultFs::Make();
  StoreFolder folder;
  EngineOptions options;
  std::unique_ptr<StreamEngine> engine;
};

// Appends until the store has recovered: within 10 s (RocksDB looks for free space every 5 s).
Status AppendUntilRecovered(StreamEngine* engine, const std::string& message, uint64_t* offset) {
  Status s;
  for (int attempt = 0; attempt < 200; ++attempt) {
    s = engine->Append("s", message, offset);
    if (s.ok() || !s.IsIOError()) return s;
    std::this_thread::sleep_for(50ms);
  }
  return s;
}

// How many messages a parallel scan of the whole stream delivers.
uint64_t Scanned(StreamEngine* engine) {
  struct Count : ScanSink {
    bool Deliver(const Delivery&) override {
      ++n;
      return true;
    }
    uint64_t n = 0;
  } sink;
  ParallelScanOptions o;
  o.consumer.stream = "s";
  Status s = engine->ParallelScan(o, &sink);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return sink.n;
}

TEST(DurabilityTest, AConsumerSeesNothingOfAnAppendWhoseSyncIsBlocked) {
  Harness h("durable-slow-sync");
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  ASSERT_TRUE(h.engine->Append("s", Message("first")).ok());

  ConsumerOptions o;
  o.stream = "s";
  o.follow = true;
  std::unique_ptr<Consumer> consumer;
  ASSERT_TRUE(h.engine->NewConsumer(o, &consumer).ok());
  DeliveryBatch batch;
  ASSERT_TRUE(consumer->Poll(&batch, 0ms).ok());
  ASSERT_EQ(batch.size(), 1u);

  h.fs->BlockLogSyncs(true);
  auto append = std::async(std::launch::async, [&] {
    uint64_t offset = 0;
    Status s = h.engine->Append("s", Message("second"), &offset);
    return std::make_pair(s, offset);
  });
  ASSERT_TRUE(h.fs->WaitForBlockedSync(5s));
  // The append's records are written (the log holds them) but not durable: nothing of them is seen.
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(consumer->Poll(&batch, 20ms).ok());
    EXPECT_TRUE(batch.empty()) << "offset " << batch[0].offset() << " delivered before its fsync returned";
  }
  EXPECT_EQ(h.ReadAll().size(), 1u);
  StreamInfo info;
  ASSERT_TRUE(h.engine->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 1u);
  EXPECT_EQ(append.wait_for(0ms), std::future_status::timeout);

  // A consumer waiting when the sync returns is woken by the mark moving.
  auto waiting = std::async(std::launch::async, [&] {
    DeliveryBatch b;
    Status s = consumer->Poll(&b, 1s);
    return std::make_pair(s, b.empty() ? std::string() : std::string(b[0].bytes()));
  });
  std::this_thread::sleep_for(50ms);
  h.fs->BlockLogSyncs(false);
  const auto [status, offset] = append.get();
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(offset, 1u);
  const auto [poll_status, seen] = waiting.get();
  ASSERT_TRUE(poll_status.ok());
  EXPECT_EQ(seen, Message("second"));
}

TEST(DurabilityTest, DeferredSyncAppendsBecomeVisibleAtTheFlushThatSyncsThem) {
  Harness h("durable-deferred", /*sync=*/false, /*deferred=*/true);
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  uint64_t offset = 99;
  ASSERT_TRUE(h.engine->Append("s", Message("a"), &offset).ok());
  EXPECT_EQ(offset, 0u);
  ASSERT_TRUE(h.engine->Append("s", Message("b"), &offset).ok());
  EXPECT_EQ(offset, 1u);
  EXPECT_TRUE(h.ReadAll().empty());  // written, not durable
  StreamInfo info;
  ASSERT_TRUE(h.engine->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 0u);
  EXPECT_EQ(info.message_count, 0u);
  EXPECT_EQ(Scanned(h.engine.get()), 0u);

  h.fs->BlockLogSyncs(true);
  auto flush = std::async(std::launch::async, [&] { return h.engine->Flush(); });
  ASSERT_TRUE(h.fs->WaitForBlockedSync(5s));
  EXPECT_TRUE(h.ReadAll().empty());
  h.fs->BlockLogSyncs(false);
  ASSERT_TRUE(flush.get().ok());
  const auto read = h.ReadAll();
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].second, Message("b"));
  EXPECT_EQ(Scanned(h.engine.get()), 2u);
}

TEST(DurabilityTest, DeferredSyncRefusesSyncOn) {
  StoreFolder folder("durable-bad-options");
  EngineOptions options;
  options.store.deferred_sync = true;  // sync still on
  std::unique_ptr<StreamEngine> engine;
  Status s = StreamEngine::Open(folder.path(), options, &engine);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// Checks a failed sync in either mode: `fail` makes the append (or its flush) fail.
void CheckFailedSyncIsFencedAndRecovered(Harness& h, bool deferred) {
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(h.engine->Append("s", Message("kept" + std::to_string(i))).ok());
  if (deferred) {
    ASSERT_TRUE(h.engine->Flush().ok());
  }
  ASSERT_EQ(h.ReadAll().size(), 3u);
  // A consumer that lives through the failure and the recovery.
  ConsumerOptions o;
  o.stream = "s";
  o.follow = true;
  std::unique_ptr<Consumer> live;
  ASSERT_TRUE(h.engine->NewConsumer(o, &live).ok());
  std::vector<std::pair<uint64_t, std::string>> live_seen;
  DeliveryBatch batch;
  auto poll_live = [&] {
    Status p = live->Poll(&batch, 20ms);
    EXPECT_TRUE(p.ok()) << p.ToString();
    for (const Delivery& d : batch) live_seen.emplace_back(d.offset(), std::string(d.bytes()));
  };
  poll_live();
  ASSERT_EQ(live_seen.size(), 3u);

  h.fs->FailLogSyncs(true, /*retryable=*/true);
  Status s = h.engine->Append("s", Message("doomed"));
  if (deferred) {
    ASSERT_TRUE(s.ok()) << s.ToString();  // written; the flush decides
    s = h.engine->Flush();
  }
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();  // transient, not a refusal of the message
  EXPECT_FALSE(h.engine->Health().writable);
  EXPECT_EQ(h.engine->Health().failures, 1u);

  // Fenced: while the store has not recovered, appends are refused and nothing past offset 2 is read.
  s = h.engine->Append("s", Message("refused"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  std::vector<std::pair<uint64_t, std::string>> read = h.ReadAll(30ms);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read.back().second, Message("kept2"));
  poll_live();
  EXPECT_EQ(live_seen.size(), 3u);

  h.fs->FailLogSyncs(false);
  uint64_t offset = 0;
  s = AppendUntilRecovered(h.engine.get(), Message("next"), &offset);
  ASSERT_TRUE(s.ok()) << s.ToString() << " (health: " << h.engine->Health().error << ")";
  if (deferred) {
    ASSERT_TRUE(h.engine->Flush().ok());
  }
  EXPECT_EQ(offset, 3u);  // the next dense offset
  EXPECT_TRUE(h.engine->Health().writable);
  EXPECT_EQ(h.engine->Health().recoveries, 1u);
  read = h.ReadAll();
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[3], std::make_pair(uint64_t{3}, Message("next")));
  poll_live();
  ASSERT_EQ(live_seen.size(), 4u);  // the consumer that saw the failure gets the message now at 3
  EXPECT_EQ(live_seen[3], read[3]);
  live.reset();

  // The same after the store is reopened: nothing of what failed comes back.
  h.engine.reset();
  h.Open();
  read = h.ReadAll();
  ASSERT_EQ(read.size(), 4u);
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i].first, i);
  EXPECT_EQ(read[3].second, Message("next"));
  ASSERT_TRUE(h.engine->Append("s", Message("after"), &offset).ok());
  EXPECT_EQ(offset, 4u);
}

TEST(DurabilityTest, AFailedSyncIsNeverDeliveredAndTheStreamRecoversDense) {
  Harness h("durable-failed-sync");
  CheckFailedSyncIsFencedAndRecovered(h, /*deferred=*/false);
}

TEST(DurabilityTest, AFailedDeferredSyncIsNeverDeliveredAndTheStreamRecoversDense) {
  Harness h("durable-failed-flush", /*sync=*/false, /*deferred=*/true);
  CheckFailedSyncIsFencedAndRecovered(h, /*deferred=*/true);
}

TEST(DurabilityTest, RecoveryDiscardsEveryChunkOfAFailedDeferredBatch) {
  // Chunks of two messages: a failed batch of five leaves three chunks in the memtable, and the two
  // past the first are not overwritten by the appends after recovery unless they are discarded.
  Harness h("durable-discard", /*sync=*/false, /*deferred=*/true);
  h.options.store.max_chunk_messages = 2;
  h.engine.reset();
  h.Open();
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(h.engine->Append("s", Message("kept" + std::to_string(i))).ok());
  ASSERT_TRUE(h.engine->Flush().ok());

  auto batch_of = [](const std::string& prefix) {
    std::vector<std::string> messages;
    for (int i = 0; i < 5; ++i) messages.push_back(Message(prefix + std::to_string(i)));
    return messages;
  };
  const std::vector<std::string> doomed = batch_of("doomed");
  const std::vector<std::string> next = batch_of("next");
  std::vector<std::string_view> views(doomed.begin(), doomed.end());
  h.fs->FailLogSyncs(true, /*retryable=*/true);
  ASSERT_TRUE(h.engine->AppendBatch("s", views).ok());  // written; the flush decides
  EXPECT_TRUE(h.engine->Flush().IsIOError());
  h.fs->FailLogSyncs(false);

  // One message, then four: chunks at 3, 4 (4, 5) and 6 (6, 7), none starting where the failed
  // batch's chunks at 5 and 7 did.
  uint64_t first = 0;
  Status s = AppendUntilRecovered(h.engine.get(), next[0], &first);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(first, 3u);
  views.assign(next.begin() + 1, next.end());
  ASSERT_TRUE(h.engine->AppendBatch("s", views, &first).ok());
  EXPECT_EQ(first, 4u);
  ASSERT_TRUE(h.engine->Flush().ok());
  for (int reopen = 0; reopen < 2; ++reopen) {
    const auto read = h.ReadAll();
    ASSERT_EQ(read.size(), 8u) << "reopened: " << reopen;
    for (size_t i = 0; i < read.size(); ++i) {
      EXPECT_EQ(read[i].first, i);
      EXPECT_EQ(read[i].second, i < 3 ? Message("kept" + std::to_string(i)) : next[i - 3]);
    }
    h.engine.reset();
    h.Open();
  }
  uint64_t offset = 0;
  ASSERT_TRUE(h.engine->Append("s", Message("after"), &offset).ok());
  EXPECT_EQ(offset, 8u);
}

TEST(DurabilityTest, AFatalSyncErrorFencesUntilReopenedAndOffsetsStayDense) {
  Harness h("durable-fatal-sync");
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(h.engine->Append("s", Message("kept" + std::to_string(i))).ok());
  h.fs->FailLogSyncs(true);  // an I/O error RocksDB does not resume from
  Status s = h.engine->Append("s", Message("doomed"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  h.fs->FailLogSyncs(false);
  std::this_thread::sleep_for(150ms);  // past the recovery interval: the next append tries to resume
  s = h.engine->Append("s", Message("refused"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  const StoreHealth health = h.engine->Health();
  EXPECT_FALSE(health.writable);
  EXPECT_TRUE(health.needs_reopen);
  EXPECT_EQ(h.ReadAll(30ms).size(), 3u);  // fenced: nothing past the durable end

  // Reopened, the store's end is what its files hold: the failed append's record may have reached the
  // log (no consumer saw it: it was never durable before), and whatever the end, offsets are dense and
  // the offsets read before hold the same messages.
  h.engine.reset();
  h.Open();
  EXPECT_TRUE(h.engine->Health().writable);
  uint64_t offset = 0;
  ASSERT_TRUE(h.engine->Append("s", Message("after"), &offset).ok());
  const auto read = h.ReadAll();
  ASSERT_EQ(read.size(), offset + 1);
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i].first, i);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(read[i].second, Message("kept" + std::to_string(i)));
  EXPECT_EQ(read.back().second, Message("after"));
}

TEST(DurabilityTest, AFullDiskFailsAppendsTransientlyAndRecoversWithoutReopening) {
  Harness h("durable-full-disk");
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(h.engine->Append("s", Message("m" + std::to_string(i))).ok());

  h.fs->SetDiskFull(true);
  Status s = h.engine->Append("s", Message("no room"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  const StoreHealth health = h.engine->Health();
  EXPECT_FALSE(health.writable);
  EXPECT_NE(health.error.find("space"), std::string::npos) << health.error;
  // Readers keep reading what was durable.
  EXPECT_EQ(h.ReadAll().size(), 5u);
  std::this_thread::sleep_for(150ms);  // past the recovery interval: the next append tries (and fails)
  s = h.engine->Append("s", Message("still no room"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_GT(h.fs->failed_calls(), 1);

  h.fs->SetDiskFull(false);  // space returns
  // The periodic retention call recovers the store without an append (RocksDB looks for free space
  // every 5 s).
  for (int i = 0; i < 200 && !h.engine->Health().writable; ++i) {
    (void)h.engine->EnforceRetention();
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(h.engine->Health().writable) << h.engine->Health().error;
  uint64_t offset = 0;
  s = h.engine->Append("s", Message("m5"), &offset);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(offset, 5u);
  EXPECT_TRUE(h.engine->Health().writable);
  EXPECT_GE(h.engine->Health().recoveries, 1u);
  const auto read = h.ReadAll();
  ASSERT_EQ(read.size(), 6u);
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i].second, Message("m" + std::to_string(i)));
}

TEST(DurabilityTest, AFullDiskMetByABackgroundFlushShowsAtOnceAndRecovers) {
  Harness h("durable-flush-full");
  h.options.store.write_buffer_bytes = 64 << 10;  // the smallest memtable: a flush comes soon
  h.engine.reset();
  h.Open();
  ASSERT_TRUE(h.engine->CreateStream("s").ok());
  h.fs->SetDiskFull(true, /*tables_only=*/true);  // the log takes writes; a flush cannot write its table
  const std::string body(200, 'x');
  std::vector<std::string> messages;
  for (int i = 0; i < 100; ++i) messages.push_back(Message(body));
  const std::vector<std::string_view> views(messages.begin(), messages.end());
  uint64_t stored = 0;
  // Batch after batch until the store reports the failed flush; each batch is given the time for the
  // flush it may have started to fail, so the state shows before any append fails.
  for (int batch = 0; batch < 20 && h.engine->Health().writable; ++batch) {
    Status s = h.engine->AppendBatch("s", views);
    ASSERT_TRUE(s.ok()) << "an append failed before the store said it takes none: " << s.ToString();
    stored += views.size();
    for (int i = 0; i < 20 && h.engine->Health().writable; ++i) std::this_thread::sleep_for(10ms);
  }
  const StoreHealth health = h.engine->Health();
  ASSERT_FALSE(health.writable) << "no flush failed after " << stored << " messages";
  EXPECT_NE(health.error.find("space"), std::string::npos) << health.error;
  EXPECT_TRUE(h.engine->Append("s", Message("refused")).IsIOError());
  EXPECT_EQ(h.ReadAll().size(), stored);  // every acknowledged append is read

  h.fs->SetDiskFull(false);
  uint64_t offset = 0;
  Status s = AppendUntilRecovered(h.engine.get(), Message("after"), &offset);
  ASSERT_TRUE(s.ok()) << s.ToString() << " (health: " << h.engine->Health().error << ")";
  EXPECT_EQ(offset, stored);
  EXPECT_TRUE(h.engine->Health().writable);
  EXPECT_EQ(h.ReadAll().size(), stored + 1);
}

}  // namespace
}  // namespace sift::engine
