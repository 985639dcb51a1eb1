// End-to-end tests of the chunk flags of `sift append` and of `sift stream` (create, info,
// set-retention, delete, enforce-retention): what each does to the store, what it prints, and the
// strict reading of sizes and durations (a bad value: exit 2, the flag named, nothing written).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace sift::testing {
namespace {

constexpr uint64_t kMessages = 3000;

class CliStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<ScratchDir>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    CliResult gen = Sift("gen --count " + std::to_string(kMessages) + " --seed 3 -o orders.amqp");
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
  }

  CliResult Sift(const std::string& args) { return RunSift(args, dir_->path()); }
  std::string Path(const std::string& name) { return *dir_ / name; }

  // `sift stream info --json` of `stream` in ./store.
  nlohmann::json Info(const std::string& stream) {
    CliResult r = Sift("stream info --store store --stream " + stream + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  }

  // Expects a usage error (exit 2, one error line naming `command` and holding `text`).
  void ExpectUsageError(const std::string& args, const std::string& command, const std::string& text) {
    CliResult r = Sift(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
    EXPECT_EQ(r.ErrLines().size(), 1u) << args << ": " << r.err;
    EXPECT_TRUE(r.err.rfind("sift: usage: " + command + ": ", 0) == 0) << args << ": " << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << args << ": " << r.err;
  }

  std::unique_ptr<ScratchDir> dir_;
};

TEST_F(CliStreamTest, AppendChunkFlagsBoundTheChunksItWrites) {
  CliResult r = Sift("append --store store --stream a --no-sync --max-chunk-messages 100 orders.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Info("a")["chunks"], kMessages / 100);

  r = Sift("append --store store --stream b --no-sync --max-chunk-bytes 16KiB orders.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json b = Info("b");
  const uint64_t bytes = b["bytes"];
  EXPECT_GE(b["chunks"].get<uint64_t>(), bytes / (16 << 10));  // no chunk holds more than 16 KiB of records
  EXPECT_EQ(b["messages"], kMessages);

  // Typed JSON lines take the group-commit path: bounded the same way.
  ASSERT_EQ(Sift("cat orders.amqp > orders.jsonl").exit_code, 0);
  r = Sift("append --store store --stream c --format json --no-sync --max-chunk-messages 1000 orders.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Info("c")["chunks"], kMessages / 1000);

  ExpectUsageError("append --store other --stream a --max-chunk-bytes 16KB orders.amqp", "sift append",
                   "--max-chunk-bytes: bad size '16KB': unit 'KB' is ambiguous: use K or KiB");
  ExpectUsageError("append --store other --stream a --max-chunk-bytes 0 orders.amqp", "sift append",
                   "--max-chunk-bytes: bad size '0': must be from 1 to 1GiB");
  ExpectUsageError("append --store other --stream a --max-chunk-bytes 1.5M orders.amqp", "sift append",
                   "--max-chunk-bytes: bad size '1.5M': expected a whole number of bytes");
  ExpectUsageError("append --store other --stream a --max-chunk-messages 0 orders.amqp", "sift append",
                   "--max-chunk-messages");
  EXPECT_FALSE(std::filesystem::exists(Path("other")));  // a bad flag writes nothing
}

// A following replay that starts at offsets retention already deleted says so on stderr, one line for
// the run of them, and goes on at the oldest offset kept; --stats counts them. A replay that ends
// inside the run resumes nowhere; one starting at the oldest offset kept has nothing to say.
TEST_F(CliStreamTest, FollowingReplayReportsOffsetsDeletedByRetention) {
  ASSERT_EQ(Sift("append --store store --stream s --no-sync --max-chunk-messages 100 orders.amqp").exit_code, 0);
  const uint64_t chunk_bytes = Info("s")["bytes"].get<uint64_t>() / 30;
  CliResult r =
      Sift("stream set-retention --store store --stream s --max-bytes " + std::to_string(chunk_bytes * 11 / 2));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Info("s")["first_offset"], 2500);
  const std::string replay = "timeout 20 " + Quote(SiftBinary()) + " replay --store store --stream s --follow ";

  r = RunShell(replay + "-o 5 --until 2503 --stats", dir_->path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), (std::vector<std::string>{"2500", "2501", "2502"}));
  const std::vector<std::string> err = r.ErrLines();
  ASSERT_EQ(err.size(), 2u) << r.err;
  EXPECT_EQ(err[0],
            "sift: replay: stream 's': offsets 5..2499 were deleted by retention before they were read; resuming "
            "at 2500");
  EXPECT_NE(err[1].find(", deleted by retention before read 2495"), std::string::npos) << err[1];

  r = RunShell(replay + "-o 5 --until 100", dir_->path());
  EXPECT_EQ(r.exit_code, 1) << r.err;  // nothing matched
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "sift: replay: stream 's': offsets 5..99 were deleted by retention before they were read\n");

  r = RunShell(replay + "-o beginning --until 2502", dir_->path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), (std::vector<std::string>{"2500", "2501"}));
  EXPECT_EQ(r.err, "");
}

TEST_F(CliStreamTest, RetentionIsSetShownAndAppliedAtOnce) {
  ASSERT_EQ(Sift("append --store store --stream s --no-sync --max-chunk-messages 100 orders.amqp").exit_code, 0);
  CliResult r = Sift("stream info --store store --stream s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.rfind("s messages=3000 offsets=0..2999 chunks=30 bytes=", 0) == 0) << r.out;
  EXPECT_NE(r.out.find(" raw-bytes="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" stored=100.0% "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" max-bytes=- max-age=- compression=none\n"), std::string::npos) << r.out;
  nlohmann::json info = Info("s");
  EXPECT_EQ(info["max_bytes"], 0);
  EXPECT_EQ(info["max_age_ms"], 0);
  const uint64_t chunk_bytes = info["bytes"].get<uint64_t>() / 30;

  // A byte limit of about five chunks: the oldest chunks go at once, whole.
  r = Sift("stream set-retention --store store --stream s --max-bytes " + std::to_string(chunk_bytes * 11 / 2));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.rfind("s messages=500 offsets=2500..2999 chunks=5 ", 0) == 0) << r.out;
  info = Info("s");
  EXPECT_EQ(info["first_offset"], 2500);
  EXPECT_EQ(info["next_offset"], 3000);
  EXPECT_EQ(info["max_bytes"], chunk_bytes * 11 / 2);

  // A limit not given is kept; units are read and shown back.
  r = Sift("stream set-retention --store store --stream s --max-age 3d");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" max-age=3d compression=none\n"), std::string::npos) << r.out;
  info = Info("s");
  EXPECT_EQ(info["max_bytes"], chunk_bytes * 11 / 2);
  EXPECT_EQ(info["max_age_ms"], 3 * 86'400'000LL);

  // Appends go on after the last offset, and the limit keeps the stream short.
  r = Sift("append --store store --stream s --no-sync --max-chunk-messages 100 orders.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3000..5999\n");
  info = Info("s");
  EXPECT_EQ(info["first_offset"], 5500);
  EXPECT_EQ(info["next_offset"], 6000);
  r = Sift("replay --store store --stream s -f count");
  EXPECT_EQ(r.out, "500\n");

  // 0 removes a limit.
  r = Sift("stream set-retention --store store --stream s --max-bytes 0 --max-age 0 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["max_bytes"], 0);
  EXPECT_EQ(info["max_age_ms"], 0);
  r = Sift("stream set-retention --store store --stream s --max-bytes 1GiB --max-age 36h");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" max-bytes=1GiB max-age=36h compression=none\n"), std::string::npos) << r.out;
}

TEST_F(CliStreamTest, CompressionIsChosenAtCreateAndAppendAndShown) {
  CliResult r = Sift("stream create --store store --stream s --compression zstd:3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "s messages=0 offsets=- chunks=0 bytes=0 raw-bytes=0 stored=- first=- last=- max-bytes=- max-age=- "
            "compression=zstd:3\n");
  ASSERT_EQ(Sift("append --store store --stream s --no-sync --max-chunk-messages 100 orders.amqp").exit_code, 0);
  nlohmann::json info = Info("s");
  EXPECT_EQ(info["compression"], "zstd:3");
  EXPECT_LT(info["bytes"].get<uint64_t>() * 3, info["raw_bytes"].get<uint64_t>()) << info.dump();
  CliResult amqp = Sift("replay --store store --stream s -f amqp > back.amqp");
  ASSERT_EQ(amqp.exit_code, 0) << amqp.err;
  EXPECT_EQ(ReadFile(Path("back.amqp")), ReadFile(Path("orders.amqp")));

  // append --compression on a stream that exists changes its setting for what it appends and after.
  ASSERT_EQ(Sift("append --store store --stream s --no-sync --compression none orders.amqp").exit_code, 0);
  info = Info("s");
  EXPECT_EQ(info["compression"], "none");
  EXPECT_EQ(info["messages"], 6000);
  ASSERT_EQ(Sift("append --store store --stream t --no-sync --compression zstd orders.amqp").exit_code, 0);
  EXPECT_EQ(Info("t")["compression"], "zstd:-2");
  r = Sift("stats --store store --stream t");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("stored=100.0%"), std::string::npos) << r.out;

  for (const char* bad : {"lz4", "zstd:20", "zstd:-8", "zstd:", "zstd:1x", "ZSTD"}) {
    r = Sift(std::string("append --store store --stream s --compression ") + bad + " orders.amqp");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--compression: '" + std::string(bad) + "' is not none, zstd or zstd:LEVEL"),
              std::string::npos)
        << r.err;
    r = Sift(std::string("stream create --store store --stream u --compression ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
  }
  EXPECT_EQ(Info("s")["messages"], 6000);  // nothing appended by the refused runs
}

TEST_F(CliStreamTest, BadRetentionValuesAreUsageErrorsNamingTheFlag) {
  ASSERT_EQ(Sift("stream create --store store --stream s").exit_code, 0);
  const std::string set = "stream set-retention --store store --stream s ";
  const std::string command = "sift stream set-retention";
  ExpectUsageError(set + "--max-age 7", command,
                   "--max-age: bad duration '7': a duration needs a unit (ms, s, m, h, d or w), e.g. 30s or 7d");
  ExpectUsageError(set + "--max-age 1y", command, "--max-age: bad duration '1y': expected a whole number with a unit");
  ExpectUsageError(set + "--max-age 1h30m", command, "--max-age: bad duration '1h30m'");
  ExpectUsageError(set + "--max-age=-1d", command, "--max-age: bad duration '-1d'");
  ExpectUsageError(set + "--max-bytes 10GB", command, "--max-bytes: bad size '10GB': unit 'GB' is ambiguous");
  ExpectUsageError(set + "--max-bytes lots", command, "--max-bytes: bad size 'lots'");
  ExpectUsageError(set + "--max-bytes 99999999999999999999", command, "larger than 2^64 - 1 bytes");
  ExpectUsageError(set, command, "give --max-bytes, --max-age or both");
  ExpectUsageError("stream create --store store --stream t --max-age 3", "sift stream create", "--max-age");
  ExpectUsageError("stream", "sift stream", "a subcommand is required");
  const nlohmann::json info = Info("s");  // nothing changed
  EXPECT_EQ(info["max_bytes"], 0);
  EXPECT_EQ(info["max_age_ms"], 0);

  // A stream or store that is not there: exit 3, nothing created.
  CliResult r = Sift("stream set-retention --store store --stream nope --max-age 1d");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.err.rfind("sift: no such stream: nope: ", 0) == 0) << r.err;
  r = Sift("stream set-retention --store no-store --stream s --max-age 1d");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(Path("no-store")));
  r = Sift("stream info --store no-store --stream s");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(Path("no-store")));
}

TEST_F(CliStreamTest, CreateWithRetentionAndDelete) {
  CliResult r = Sift("stream create --store store --stream s --max-bytes 64MiB --max-age 12h");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "s messages=0 offsets=- chunks=0 bytes=0 raw-bytes=0 stored=- first=- last=- max-bytes=64MiB max-age=12h "
            "compression=none\n");
  r = Sift("stream create --store store --stream s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sift: cannot create stream: s: it exists (sift stream set-retention changes its retention)\n");
  // Appending to it keeps its retention.
  ASSERT_EQ(Sift("append --store store --stream s --no-sync orders.amqp").exit_code, 0);
  EXPECT_EQ(Info("s")["max_age_ms"], 12 * 3'600'000);

  r = Sift("stream delete --store store --stream s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "stream 's' deleted (3000 messages)\n");
  EXPECT_EQ(Sift("streams --store store").out, "");
  r = Sift("stream delete --store store --stream s");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.err.rfind("sift: no such stream: s: ", 0) == 0) << r.err;
  // A new stream of the name starts again at 0, with no retention.
  r = Sift("append --store store --stream s --no-sync orders.amqp");
  EXPECT_EQ(r.out, "0..2999\n");
  EXPECT_EQ(Info("s")["max_age_ms"], 0);
}

TEST_F(CliStreamTest, EnforceRetentionAgesStreamsNobodyAppendsTo) {
  ASSERT_EQ(Sift("stream create --store store --stream s --max-age 1s").exit_code, 0);
  ASSERT_EQ(Sift("append --store store --stream s --no-sync orders.amqp").exit_code, 0);
  ASSERT_EQ(Sift("append --store store --stream keep --no-sync orders.amqp").exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(Info("s")["messages"], kMessages);  // reading applies nothing
  CliResult r = Sift("stream enforce-retention --store store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  const nlohmann::json info = Info("s");
  EXPECT_EQ(info["messages"], 0);
  EXPECT_EQ(info["first_offset"], kMessages);
  EXPECT_EQ(info["next_offset"], kMessages);
  EXPECT_EQ(Info("keep")["messages"], kMessages);
  r = Sift("append --store store --stream s --no-sync orders.amqp");
  EXPECT_EQ(r.out, "3000..5999\n");  // offsets are never reused
  EXPECT_EQ(Sift("stream enforce-retention --store no-store").exit_code, 3);
}

}  // namespace
}  // namespace sift::testing
