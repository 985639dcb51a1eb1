// The kill -9 harness: runs the appender process (crash_appender.cc) on a store, kills it with
// SIGKILL at a random moment, then checks the store: every acknowledged offset is present and
// byte-identical, offsets are dense from 0, and every stored message is intact.
#ifndef SIFT_TESTS_STORAGE_CRASH_HARNESS_H_
#define SIFT_TESTS_STORAGE_CRASH_HARNESS_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "storage/crc32c.h"
#include "storage/stream_store.h"
#include "tests/storage/crash_messages.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage::test {

struct CrashStats {
  int runs = 0;
  uint64_t acknowledged = 0;          // acknowledged messages over all runs
  uint64_t stored = 0;                // messages in the store after the last run
  uint64_t unacknowledged_found = 0;  // stored messages whose acknowledgement the kill cut off
  int killed_before_first_ack = 0;
};

// One appender run: returns the acknowledged (offset -> nonce) pairs it reported before the kill.
inline std::map<uint64_t, uint64_t> RunAndKill(const std::string& store, uint64_t seed, int kill_after_ms) {
  const std::string exe = (std::filesystem::path(SIFT_BINARY_DIR) / "tests/storage/storage_crash_appender").string();
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    const std::string seed_text = std::to_string(seed);
    execl(exe.c_str(), exe.c_str(), store.c_str(), seed_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kill_after_ms);
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) > 0) {
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;  // the appender died on its own: its stderr says why
      out.append(buf, static_cast<size_t>(n));
    }
  }
  kill(pid, SIGKILL);
  for (;;) {  // lines written before the kill are still in the pipe
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  EXPECT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
      << "the appender exited on its own, status " << wstatus;
  std::map<uint64_t, uint64_t> acked;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (lines.eof()) break;  // a line cut by the kill has no newline: not a complete acknowledgement
    std::istringstream f(line);
    uint64_t offset, nonce;
    if (f >> offset >> nonce) acked[offset] = nonce;
  }
  return acked;
}

// Runs `runs` kill cycles on one store folder and checks it after each.
// Each kill comes a random time in [min_kill_ms, max_kill_ms) after the appender starts (so some
// kills hit its recovery, most hit appends).
inline CrashStats RunCrashCycles(int runs, uint64_t seed, int min_kill_ms, int max_kill_ms) {
  TempDir dir;
  std::mt19937_64 rng(seed);
  std::map<uint64_t, uint64_t> all_acked;
  // Every stored message is compared byte for byte with its regenerated content once, after the run
  // that stored it; later runs compare its CRC32C and size with that verified copy (keeps the check
  // of the whole store linear).
  struct VerifiedMessage {
    uint32_t crc;
    size_t size;
    bool operator==(const VerifiedMessage&) const = default;
  };
  std::vector<VerifiedMessage> verified;
  CrashStats stats;
  for (int run = 0; run < runs; ++run) {
    const int kill_after = min_kill_ms + static_cast<int>(rng() % static_cast<uint64_t>(max_kill_ms - min_kill_ms));
    auto acked = RunAndKill(dir.path(), rng(), kill_after);
    ++stats.runs;
    if (acked.empty()) ++stats.killed_before_first_ack;
    stats.acknowledged += acked.size();
    for (const auto& [offset, nonce] : acked) {
      auto [it, inserted] = all_acked.emplace(offset, nonce);
      EXPECT_TRUE(inserted) << "run " << run << ": offset " << offset << " acknowledged twice";
    }
    // Recovery: open (sync on, as the appender), read everything, compare.
    StoreOptions o;
    o.block_cache_bytes = 8u << 20;
    std::unique_ptr<StreamStore> store;
    Status s = StreamStore::Open(dir.path(), o, &store);
    EXPECT_TRUE(s.ok()) << "run " << run << ": " << s.ToString();
    if (!s.ok()) break;
    std::unique_ptr<StreamReader> r;
    s = store->NewReader("s", {}, &r);
    if (s.IsNotFound()) {
      EXPECT_TRUE(all_acked.empty()) << "run " << run << ": stream lost";
      continue;
    }
    EXPECT_TRUE(s.ok()) << s.ToString();
    uint64_t expect = 0;
    Record rec;
    while (r->Next(&rec)) {
      EXPECT_EQ(rec.offset, expect) << "run " << run << ": offsets not dense";
      expect = rec.offset + 1;
      uint64_t nonce = 0;
      const uint32_t crc = crc32c::Value(rec.data.data(), rec.data.size());
      if (rec.offset < verified.size()) {
        // Compared byte for byte after an earlier run: now it must still be the same bytes.
        EXPECT_EQ(verified[rec.offset], (VerifiedMessage{crc, rec.data.size()}))
            << "run " << run << ": offset " << rec.offset << " changed";
        continue;
      }
      EXPECT_TRUE(IsCrashMessage(rec.data, &nonce)) << "run " << run << ": damaged message at offset " << rec.offset;
      verified.push_back(VerifiedMessage{crc, rec.data.size()});
      auto it = all_acked.find(rec.offset);
      if (it != all_acked.end()) {
        EXPECT_EQ(it->second, nonce) << "run " << run << ": offset " << rec.offset << " holds another message";
      } else {
        ++stats.unacknowledged_found;
      }
    }
    EXPECT_GE(expect, verified.size()) << "run " << run << ": messages stored before this run were lost";
    EXPECT_TRUE(r->status().ok()) << "run " << run << ": " << r->status().ToString();
    // Every acknowledged offset is below the recovered end (dense reading above saw them all).
    if (!all_acked.empty()) {
      EXPECT_GT(expect, all_acked.rbegin()->first) << "run " << run << ": acknowledged offset "
                                                   << all_acked.rbegin()->first << " lost; store ends at " << expect;
    }
    StreamInfo info;
    EXPECT_TRUE(store->GetStreamInfo("s", &info).ok());
    EXPECT_EQ(info.next_offset, expect) << "run " << run;
    stats.stored = expect;
    // Unacknowledged-but-stored messages become part of the stream: later acks continue after them.
    if (::testing::Test::HasFailure()) break;
  }
  return stats;
}

}  // namespace sift::storage::test

#endif  // SIFT_TESTS_STORAGE_CRASH_HARNESS_H_
