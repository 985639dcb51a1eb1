// End-to-end tests of the store-backed commands: append, replay, stats, streams — positions, ends,
// follow mode, output formats, and the storage errors (missing store, missing stream, corrupt chunk
// with --on-corruption stop and skip).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/synthetic/synthetic_orders.h"
#include "tests/support/chunk_corruption.h"
#include "tests/tools/cli_runner.h"

namespace sift::testing {
namespace {

constexpr uint64_t kMessages = 3000;

std::vector<std::string> Range(uint64_t from, uint64_t to) {
  std::vector<std::string> out;
  for (uint64_t i = from; i < to; ++i) out.push_back(std::to_string(i));
  return out;
}

class CliStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<ScratchDir>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    CliResult gen = Sift("gen --count " + std::to_string(kMessages) + " --seed 3 -o orders.amqp");
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
  }

  CliResult Sift(const std::string& args) { return RunSift(args, dir_->path()); }
  std::string Path(const std::string& name) { return *dir_ / name; }

  void Append() {
    CliResult r = Sift("append --store store --stream orders --no-sync orders.amqp");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(r.out, "0.." + std::to_string(kMessages - 1) + "\n");
  }

  template <typename Predicate>
  std::vector<std::string> Expected(Predicate predicate, uint64_t from = 0, uint64_t to = kMessages) {
    std::unique_ptr<synthetic::SyntheticOrders> orders;
    synthetic::SyntheticOrdersOptions options;
    options.seed = 3;
    EXPECT_TRUE(synthetic::SyntheticOrders::Create(options, &orders).ok());
    std::vector<std::string> offsets;
    for (uint64_t i = from; i < to; ++i) {
      if (predicate(orders->Describe(i))) offsets.push_back(std::to_string(i));
    }
    return offsets;
  }

  // Flips one byte in the middle of the records of the chunk number `chunk` (0-based) of the store's
  // only stream, behind the store's back (the store is closed): the chunk's checksum no longer holds.
  // Returns the number of chunks.
  size_t CorruptChunk(size_t chunk) { return CorruptStoredChunk(Path("store"), chunk); }

  std::unique_ptr<ScratchDir> dir_;
};

TEST_F(CliStoreTest, AppendPrintsTheOffsetRangeAndCreatesStoreAndStream) {
  Append();
  EXPECT_TRUE(std::filesystem::is_directory(Path("store")));
  CliResult r = Sift("append --store store --stream orders --no-sync orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(kMessages) + ".." + std::to_string(2 * kMessages - 1) + "\n");
  r = Sift("streams --store store");
  EXPECT_EQ(r.out, "orders\n");
  r = Sift("stats --store store --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stream"], "orders");
  EXPECT_EQ(j["messages"], 2 * kMessages);
  EXPECT_EQ(j["first_offset"], 0);
  EXPECT_EQ(j["next_offset"], 2 * kMessages);
  EXPECT_GE(j["chunks"].get<uint64_t>(), 2u);
  EXPECT_GT(j["bytes"].get<uint64_t>(), ReadFile(Path("orders.amqp")).size());
}

TEST_F(CliStoreTest, AppendFromStdinAndJsonLines) {
  CliResult r = RunSift("append --store store --stream s --no-sync -", dir_->path(), Path("orders.amqp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Sift("cat orders.amqp > orders.jsonl").exit_code, 0);
  r = Sift("append --store store --stream s --format json --no-sync orders.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(kMessages) + ".." + std::to_string(2 * kMessages - 1) + "\n");
  // Both copies hold the same messages.
  r = Sift("replay --store store --stream s -o " + std::to_string(kMessages) + " -f amqp > second.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(Path("second.amqp")), ReadFile(Path("orders.amqp")));
}

TEST_F(CliStoreTest, DefaultStoreIsSiftDataOrSiftStore) {
  CliResult r = Sift("append --stream orders --no-sync orders.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_directory(Path("sift-data")));
  r = Sift("replay --stream orders -f count");
  EXPECT_EQ(r.out, std::to_string(kMessages) + "\n");
  r = RunShell("SIFT_STORE=elsewhere " + Quote(SiftBinary()) + " append --stream x --no-sync orders.amqp",
               dir_->path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_directory(Path("elsewhere")));
  r = RunShell("SIFT_STORE=elsewhere " + Quote(SiftBinary()) + " streams", dir_->path());
  EXPECT_EQ(r.out, "x\n");
}

TEST_F(CliStoreTest, AppendStopsAtAMalformedRecordKeepingThoseBefore) {
  std::string bytes = ReadFile(Path("orders.amqp")).substr(0, 0);
  RunSift("gen -n 5 --seed 3 -o five.amqp", dir_->path());
  bytes = ReadFile(Path("five.amqp")) + std::string("\x00\x00\x00\x03\x00\x53\x99", 7);
  WriteFile(Path("bad.amqp"), bytes);
  CliResult r = Sift("append --store store --stream s --no-sync bad.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: malformed record: bad.amqp: record 5 at byte ", 0) == 0) << r.err;
  r = Sift("stats --store store --stream s --json");
  EXPECT_EQ(nlohmann::json::parse(r.out)["messages"], 0) << r.out;
  // A record cut short is refused the same way: nothing of its batch is stored.
  const std::string five = ReadFile(Path("five.amqp"));
  WriteFile(Path("cut.amqp"), five.substr(0, five.size() - 10));
  r = Sift("append --store store --stream s cut.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: malformed record: cut.amqp: record 4 at byte ", 0) == 0) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = Sift("stats --store store --stream s --json");
  EXPECT_EQ(nlohmann::json::parse(r.out)["messages"], 0) << r.out;
}

TEST_F(CliStoreTest, AppendOfALargeFileStoresTheBatchesBeforeAMalformedRecord) {
  // A record file is stored in batches (at most 262,144 records or 64 MiB), each validated while the
  // one before it is stored: a malformed record leaves the batches before its own stored, a prefix of
  // the file, and nothing of its batch.
  ASSERT_EQ(Sift("gen --count 160000 --seed 3 -o big.amqp").exit_code, 0);
  std::string bytes = ReadFile(Path("big.amqp"));
  size_t p = 0;
  for (int i = 0; i < 155000; ++i) {
    const uint32_t n =
        (uint32_t{static_cast<uint8_t>(bytes[p])} << 24) | (uint32_t{static_cast<uint8_t>(bytes[p + 1])} << 16) |
        (uint32_t{static_cast<uint8_t>(bytes[p + 2])} << 8) | uint32_t{static_cast<uint8_t>(bytes[p + 3])};
    p += 4 + n;
  }
  bytes[p + 4] = '\x01';  // record 155000 no longer starts with a described section
  WriteFile(Path("big-bad.amqp"), bytes);
  CliResult r = Sift("append --store store --stream s big-bad.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: malformed record: big-bad.amqp: record 155000 at byte " + std::to_string(p + 4) + ": ",
                          0) == 0)
      << r.err;
  CliResult stats = Sift("stats --store store --stream s --json");
  const uint64_t stored = nlohmann::json::parse(stats.out)["messages"];
  EXPECT_GT(stored, 0u);
  EXPECT_LT(stored, 155000u);
  EXPECT_EQ(r.out, "0.." + std::to_string(stored - 1) + "\n");
  EXPECT_EQ(Sift("replay --store store --stream s -f amqp > prefix.amqp").exit_code, 0);
  const std::string prefix = ReadFile(Path("prefix.amqp"));
  EXPECT_EQ(prefix, bytes.substr(0, prefix.size()));
  // The whole file, valid, goes in as it is.
  r = Sift("append --store store --stream whole big.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0..159999\n");
  EXPECT_EQ(Sift("replay --store store --stream whole -f amqp > back.amqp").exit_code, 0);
  EXPECT_EQ(ReadFile(Path("back.amqp")), ReadFile(Path("big.amqp")));
}

TEST_F(CliStoreTest, ReplayAgreesWithFilter) {
  Append();
  const std::string selector = "-e \"region = 'eu-west' AND amount > 500\" --jms \"JMSPriority >= 4\"";
  CliResult replay = Sift("replay --store store --stream orders " + selector);
  CliResult filter = Sift("filter " + selector + " orders.amqp");
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(replay.out, filter.out);
  EXPECT_EQ(replay.OutLines(), Expected([](const synthetic::SyntheticOrder& o) {
              return o.region == "eu-west" && o.amount > 500 && o.priority >= 4;
            }));
}

TEST_F(CliStoreTest, ReplayStartPositions) {
  Append();
  EXPECT_EQ(Sift("replay --store store --stream orders -o 2990").OutLines(), Range(2990, kMessages));
  EXPECT_EQ(Sift("replay --store store --stream orders -o beginning -c 3").OutLines(), Range(0, 3));
  EXPECT_EQ(Sift("replay --store store --stream orders -o -4").OutLines(), Range(kMessages - 4, kMessages));
  EXPECT_EQ(Sift("replay --store store --stream orders --offset=-2").OutLines(), Range(kMessages - 2, kMessages));
  EXPECT_EQ(Sift("replay --store store --stream orders -o last").OutLines(), Range(kMessages - 1, kMessages));
  EXPECT_EQ(Sift("replay --store store --stream orders -o s@0 -c 2").OutLines(), Range(0, 2));
  CliResult end = Sift("replay --store store --stream orders -o end");
  EXPECT_EQ(end.exit_code, 1);
  EXPECT_TRUE(end.out.empty());
  CliResult future = Sift("replay --store store --stream orders -o s@99999999999999");
  EXPECT_EQ(future.exit_code, 1);
  CliResult bad = Sift("replay --store store --stream orders -o yesterday");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.rfind("sift: usage: sift replay: --offset yesterday: ", 0) == 0) << bad.err;
}

TEST_F(CliStoreTest, ReplayEndsAndCounts) {
  Append();
  EXPECT_EQ(Sift("replay --store store --stream orders -o 10 --until 15").OutLines(), Range(10, 15));
  EXPECT_EQ(Sift("replay --store store --stream orders -o 10 --until 15 -f count").out, "5\n");
  EXPECT_EQ(Sift("replay --store store --stream orders --until e@0").exit_code, 1);
  EXPECT_EQ(Sift("replay --store store --stream orders --until e@99999999999999 -f count").out,
            std::to_string(kMessages) + "\n");
  const std::vector<std::string> vip = Expected([](const synthetic::SyntheticOrder& o) { return o.vip; });
  ASSERT_GE(vip.size(), 4u);
  EXPECT_EQ(Sift("replay --store store --stream orders -e vip -c 4").OutLines(),
            std::vector<std::string>(vip.begin(), vip.begin() + 4));
  CliResult bad = Sift("replay --store store --stream orders --until soon");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.rfind("sift: usage: sift replay: --until soon: ", 0) == 0) << bad.err;
}

TEST_F(CliStoreTest, ReplayOutputFormats) {
  Append();
  CliResult json = Sift("replay --store store --stream orders -o 100 --until 103 -f json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::vector<std::string> lines = json.OutLines();
  ASSERT_EQ(lines.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["offset"], 100 + i);
    EXPECT_EQ(j["properties"]["message_id"], "order-00000" + std::to_string(100 + i));
  }
  CliResult amqp = Sift("replay --store store --stream orders -f amqp > all.amqp");
  ASSERT_EQ(amqp.exit_code, 0) << amqp.err;
  EXPECT_EQ(ReadFile(Path("all.amqp")), ReadFile(Path("orders.amqp")));
}

TEST_F(CliStoreTest, ReplayStatsLine) {
  Append();
  CliResult r = Sift("replay --store store --stream orders -e \"amount > 990\" -f count --stats");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(IsStatsLine(r.err, 3000, /*chunks=*/true)) << r.err;
  // The summaries consulted to decide what to skip are counted.
  EXPECT_NE(r.err.find(", summaries read "), std::string::npos) << r.err;
  CliResult all = Sift("replay --store store --stream orders -f count --stats");
  EXPECT_EQ(all.err.find("summaries read"), std::string::npos) << all.err;
}

TEST_F(CliStoreTest, AppendWithoutPageCacheStoresTheSame) {
  CliResult r = Sift("append --store store --stream orders --no-page-cache orders.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out, "0.." + std::to_string(kMessages - 1) + "\n");
  CliResult amqp = Sift("replay --store store --stream orders -f amqp > all.amqp");
  ASSERT_EQ(amqp.exit_code, 0) << amqp.err;
  EXPECT_EQ(ReadFile(Path("all.amqp")), ReadFile(Path("orders.amqp")));
}

TEST_F(CliStoreTest, ReplayFollowEndsAtItsBound) {
  // A store is held by one process at a time, so a following replay tails appends made in its own
  // process (tests/engine/consumer_follow_test.cc); here --follow must still stop at --until and -c.
  Append();
  CliResult r = RunShell(
      "timeout 20 " + Quote(SiftBinary()) + " replay --store store --stream orders --follow -o 2995 --until 2998",
      dir_->path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), Range(2995, 2998));
  r = RunShell("timeout 20 " + Quote(SiftBinary()) + " replay --store store --stream orders --follow -o 10 -c 2",
               dir_->path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), Range(10, 12));
}

// Replay, stats and streams open the store read-only: they work while another process holds it open
// for appending (here an append of JSON lines waiting for its next line) and see what was stored when
// they started; a following replay needs the store to itself and says so.
TEST_F(CliStoreTest, ReadingCommandsWorkBesideAnAppendInProgress) {
  Append();
  const std::string sift = Quote(SiftBinary());
  CliResult r =
      RunShell("((echo '{\"application_properties\":{\"a\":1}}'; sleep 30) | " + sift + " append --store " +
                   Quote(Path("store")) + " --stream other --format json - >/dev/null 2>&1 &) ; sleep 1.5; " + sift +
                   " replay --store store --stream orders -f count && " + sift +
                   " stats --store store --stream orders | head -1 && " + sift + " streams --store store; " +
                   "timeout 5 " + sift + " replay --store store --stream orders --follow -c 1; echo follow=$?; " +
                   "pkill -f -- " + Quote("append --store " + Path("store")) + " ; true",
               dir_->path());
  const std::vector<std::string> lines = r.OutLines();
  ASSERT_GE(lines.size(), 3u) << r.out << r.err;
  EXPECT_EQ(lines[0], std::to_string(kMessages)) << r.err;
  EXPECT_NE(r.out.find("\nother\n"), std::string::npos) << r.out;  // what the append had stored when they opened
  EXPECT_NE(r.out.find("follow=3"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("sift: cannot open store: store: "), std::string::npos) << r.err;
}

TEST_F(CliStoreTest, MissingStoreIsExit3AndIsNotCreated) {
  for (const char* command : {"replay --stream orders", "stats", "streams"}) {
    CliResult r = Sift(std::string(command) + " --store no-store");
    EXPECT_EQ(r.exit_code, 3) << command;
    EXPECT_EQ(r.err, "sift: cannot open store: no-store: no such directory\n") << command;
    EXPECT_FALSE(std::filesystem::exists(Path("no-store")));
  }
  // A folder that exists but is not a store is missing too, and stays as it was.
  std::filesystem::create_directory(Path("empty"));
  CliResult r = Sift("replay --store empty --stream orders");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "sift: cannot open store: empty: not a sift store (empty directory)\n");
  EXPECT_TRUE(std::filesystem::is_empty(Path("empty")));
}

TEST_F(CliStoreTest, MissingStreamIsExit3) {
  Append();
  CliResult r = Sift("replay --store store --stream nope");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.err.rfind("sift: no such stream: nope: ", 0) == 0) << r.err;
  r = Sift("stats --store store --stream nope");
  EXPECT_EQ(r.exit_code, 3);
}

TEST_F(CliStoreTest, ReplayThreadsFlag) {
  Append();
  // Any thread count gives the same output (a range this small is scanned on one thread anyway;
  // tests/engine/parallel_scan_test.cc splits small ranges on purpose).
  CliResult one = Sift("replay --store store --stream orders -e \"amount > 900\" --threads 1");
  CliResult four = Sift("replay --store store --stream orders -e \"amount > 900\" --threads 4");
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(four.exit_code, 0) << four.err;
  EXPECT_EQ(one.out, four.out);
  EXPECT_FALSE(one.out.empty());
  for (const char* bad : {"65", "-1", "two"}) {
    CliResult r = Sift(std::string("replay --store store --stream orders --threads ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(r.err.rfind("sift: usage: sift replay: --threads: ", 0) == 0) << r.err;
  }
}

TEST_F(CliStoreTest, BadSelectorInReplayIsExit2) {
  Append();
  CliResult r = Sift("replay --store store --stream orders -e \"amount >< 3\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: bad selector: --sql column ", 0) == 0) << r.err;
  EXPECT_EQ(r.ErrLines().size(), 3u) << r.err;
}

TEST_F(CliStoreTest, CorruptChunkStopsWithExit3) {
  Append();
  const size_t chunks = CorruptChunk(0);
  ASSERT_GE(chunks, 2u);
  CliResult r = Sift("replay --store store --stream orders -f count");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");  // a replay that stopped on an error prints no count as if it were the answer
  ASSERT_EQ(r.ErrLines().size(), 1u) << r.err;
  EXPECT_TRUE(r.err.rfind("sift: corrupt chunk: orders: ", 0) == 0) << r.err;
  // Explicit stop is the same.
  EXPECT_EQ(Sift("replay --store store --stream orders --on-corruption stop").exit_code, 3);
}

TEST_F(CliStoreTest, CorruptChunkIsSkippedWithSkip) {
  Append();
  const size_t chunks = CorruptChunk(0);
  ASSERT_GE(chunks, 2u);
  CliResult all = Sift("replay --store store --stream orders --on-corruption skip --stats");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  std::vector<std::string> offsets = all.OutLines();
  // Chunk 0 is missing, the rest is delivered: a dense run of offsets that ends at the last one.
  ASSERT_FALSE(offsets.empty());
  const uint64_t first = std::stoull(offsets.front());
  EXPECT_GT(first, 0u);
  EXPECT_EQ(offsets, Range(first, kMessages));
  EXPECT_NE(all.err.find("corrupt chunks skipped 1"), std::string::npos) << all.err;
  EXPECT_NE(all.err.find("sift: warning: orders: skipped 1 corrupt chunk(s)"), std::string::npos) << all.err;
}

// Chunk summaries: a stream appended without them reads every chunk; `sift reindex`, even killed
// part way, then a second run, summarizes every chunk; skipping then changes no result, and --stats
// says how many chunks it skipped.
// A chunk of one `sift gen` message is smaller than its summary: neither append nor reindex gives it one,
// and reindex says how many chunks it left without; chunks of 100 messages keep theirs.
TEST_F(CliStoreTest, ChunksSmallerThanTheirSummaryGetNone) {
  ASSERT_EQ(Sift("gen --count 200 --seed 3 -o few.amqp").exit_code, 0);
  for (const char* summary : {"", "--no-summary "}) {
    const std::string store = std::string("store") + (*summary ? "-without" : "-with");
    CliResult r =
        Sift("append --store " + store + " --stream s --no-sync " + summary + "--max-chunk-messages 1 few.amqp");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = Sift("reindex --store " + store + " --stream s");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("stream 's': 0 chunk summaries built, 0 already present, 200 chunks left without one"),
              std::string::npos)
        << store << ": " << r.out;
  }
  ASSERT_EQ(Sift("append --store store-big --stream s --no-sync --max-chunk-messages 100 few.amqp").exit_code, 0);
  CliResult r = Sift("reindex --store store-big --stream s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "stream 's': 0 chunk summaries built, 2 already present\n");
}

TEST_F(CliStoreTest, ReindexSurvivesKillAndSkippingKeepsEveryResult) {
  ASSERT_EQ(Sift("gen --count 60000 --customers 1000000 --seed 5 -o many.amqp").exit_code, 0);
  CliResult r = Sift("append --store store --stream s --no-sync --no-summary many.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string query =
      "replay --store store --stream s --sql \"customer IN ('cust-12345', 'cust-500000') OR "
      "properties.creation_time BETWEEN 1764460900000 AND 1764460901000\" --stats";
  CliResult before = Sift(query);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(before.err.find("skipped by summary"), std::string::npos) << before.err;

  // kill -9 at several moments of a reindex: every run leaves a store that reads the same.
  for (int delay_ms : {0, 5, 20, 60}) {
    CliResult killed = RunShell(Quote(SiftBinary()) + " reindex --store store --stream s & pid=$!; sleep " +
                                    std::to_string(delay_ms / 1000.0) + "; kill -9 $pid; wait $pid; true",
                                dir_->path());
    CliResult after_kill = Sift(query);
    ASSERT_EQ(after_kill.exit_code, 0) << after_kill.err;
    EXPECT_EQ(after_kill.out, before.out) << "after a kill at " << delay_ms << " ms";
  }
  CliResult reindex = Sift("reindex --store store --stream s");
  ASSERT_EQ(reindex.exit_code, 0) << reindex.err;
  EXPECT_NE(reindex.out.find("stream 's': "), std::string::npos) << reindex.out;
  CliResult again = Sift("reindex --store store --stream s");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find(": 0 chunk summaries built"), std::string::npos) << again.out;

  CliResult skipping = Sift(query);
  ASSERT_EQ(skipping.exit_code, 0) << skipping.err;
  EXPECT_EQ(skipping.out, before.out);
  EXPECT_NE(skipping.err.find("skipped by summary"), std::string::npos) << skipping.err;
  CliResult no_skip = Sift(query + " --no-skip");
  EXPECT_EQ(no_skip.out, before.out);
  EXPECT_EQ(no_skip.err.find("skipped by summary"), std::string::npos) << no_skip.err;

  CliResult explain = Sift("explain --sql \"customer = 'cust-1' AND amount + 1 > 2\"");
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("application_properties.customer = 'cust-1': text range, value set"), std::string::npos)
      << explain.out;
  CliResult nothing = Sift("explain --sql \"amount + 1 > 2\"");
  EXPECT_NE(nothing.out.find("chunk skipping (sift replay, consumers): none"), std::string::npos) << nothing.out;

  // Bad input: no --stream (usage, exit 2), a stream or store that does not exist (exit 3).
  EXPECT_EQ(Sift("reindex --store store").exit_code, 2);
  CliResult missing = Sift("reindex --store store --stream nope");
  EXPECT_EQ(missing.exit_code, 3);
  // The same words as every other command that names a stream the store lacks.
  EXPECT_NE(missing.err.find("no such stream: nope: the store store has no stream of that name"), std::string::npos)
      << missing.err;
  EXPECT_EQ(Sift("reindex --store no-such-store --stream s").exit_code, 3);
}

}  // namespace
}  // namespace sift::testing
