// Reopen after kill -9: 20 random kills of an appender process (sync on); after each restart every
// acknowledged offset is present and byte-identical and offsets are dense. The long run (>= 100
// kills) is crash_recovery_heavy_test.cc. SIFT_CRASH_RUNS overrides the number of runs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/storage/crash_harness.h"

namespace sift::storage {
namespace {

TEST(CrashRecovery, AcknowledgedAppendsSurviveKill9) {
  const char* env = std::getenv("SIFT_CRASH_RUNS");
  const int runs = env != nullptr ? std::atoi(env) : 20;
  CrashStats stats = RunCrashCycles(runs, 20261130, 10, 250);
  EXPECT_EQ(stats.runs, runs);
  EXPECT_GT(stats.acknowledged, 0u);
  std::printf(
      "crash runs %d, acknowledged %llu, stored %llu (unacknowledged but stored %llu), killed before "
      "the first acknowledgement %d\n",
      stats.runs, static_cast<unsigned long long>(stats.acknowledged), static_cast<unsigned long long>(stats.stored),
      static_cast<unsigned long long>(stats.unacknowledged_found), stats.killed_before_first_ack);
}

}  // namespace
}  // namespace sift::storage
