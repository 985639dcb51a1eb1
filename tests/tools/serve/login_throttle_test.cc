// LoginThrottle: delays that grow with an address's failures, lockout of a name per address, the
// window after which failures are forgotten, the order of waiting checks, and the bounded table.
#include "tools/serve/login_throttle.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace sift::tools {
namespace {

using std::chrono::milliseconds;
using Clock = LoginThrottle::Clock;

LoginThrottlePolicy Policy() {
  LoginThrottlePolicy p;
  p.free_failures = 2;
  p.first_delay = milliseconds(100);
  p.max_delay = milliseconds(1000);
  p.lockout_failures = 5;
  p.window = milliseconds(60'000);
  p.max_entries = 1000;
  return p;
}

TEST(LoginThrottle, DelayGrowsWithTheAddresssFailuresUpToTheCap) {
  LoginThrottle t(Policy());
  const Clock::time_point now = Clock::now();
  // Different names, one address: the delay follows the address.
  EXPECT_EQ(t.Failed("10.0.0.1", "a", now), milliseconds(0));
  EXPECT_EQ(t.Failed("10.0.0.1", "b", now), milliseconds(0));
  EXPECT_EQ(t.Failed("10.0.0.1", "c", now), milliseconds(100));
  EXPECT_EQ(t.Failed("10.0.0.1", "d", now), milliseconds(200));
  EXPECT_EQ(t.Failed("10.0.0.1", "e", now), milliseconds(400));
  EXPECT_EQ(t.Failed("10.0.0.1", "f", now), milliseconds(800));
  EXPECT_EQ(t.Failed("10.0.0.1", "g", now), milliseconds(1000));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(t.Failed("10.0.0.1", "h", now), milliseconds(1000));
  // Another address starts from nothing.
  EXPECT_EQ(t.Failed("10.0.0.2", "a", now), milliseconds(0));
}

TEST(LoginThrottle, NameLockedOutFromOneAddressOnly) {
  LoginThrottle t(Policy());
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < 4; ++i) t.Failed("10.0.0.1", "alice", now);
  EXPECT_FALSE(t.LockedOut("10.0.0.1", "alice", now));
  t.Failed("10.0.0.1", "alice", now);
  EXPECT_TRUE(t.LockedOut("10.0.0.1", "alice", now));
  EXPECT_FALSE(t.LockedOut("10.0.0.2", "alice", now));
  EXPECT_FALSE(t.LockedOut("10.0.0.1", "bob", now));
}

TEST(LoginThrottle, FailuresAreForgottenAfterTheWindow) {
  LoginThrottle t(Policy());
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < 5; ++i) t.Failed("10.0.0.1", "alice", start);
  EXPECT_TRUE(t.LockedOut("10.0.0.1", "alice", start + milliseconds(59'999)));
  EXPECT_FALSE(t.LockedOut("10.0.0.1", "alice", start + milliseconds(60'000)));
  // The count starts again from one: no delay for the first failures after the window.
  EXPECT_EQ(t.Failed("10.0.0.1", "alice", start + milliseconds(60'000)), milliseconds(0));
  EXPECT_FALSE(t.LockedOut("10.0.0.1", "alice", start + milliseconds(60'000)));
}

TEST(LoginThrottle, SuccessClearsThePairButNotTheAddress) {
  LoginThrottle t(Policy());
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < 4; ++i) t.Failed("10.0.0.1", "alice", now);
  t.Succeeded("10.0.0.1", "alice");
  t.Failed("10.0.0.1", "alice", now);
  EXPECT_FALSE(t.LockedOut("10.0.0.1", "alice", now));
  // The address keeps its five failures: its sixth is held back 800 ms.
  EXPECT_EQ(t.Failed("10.0.0.1", "alice", now), milliseconds(800));
}

TEST(LoginThrottle, RankPutsCleanLoginsFirst) {
  LoginThrottle t(Policy());
  const Clock::time_point now = Clock::now();
  t.Failed("10.0.0.1", "mallory", now);
  t.Failed("10.0.0.1", "mallory", now);
  EXPECT_EQ(t.Rank("10.0.0.2", "alice", now), 0u);
  // Same address, another name: ranked by the address's failures only.
  EXPECT_LT(t.Rank("10.0.0.1", "alice", now), t.Rank("10.0.0.1", "mallory", now));
  EXPECT_LT(t.Rank("10.0.0.2", "alice", now), t.Rank("10.0.0.1", "alice", now));
  // A name that failed ranks behind any count of address failures.
  LoginThrottle u(Policy());
  for (int i = 0; i < 50; ++i) u.Failed("10.0.0.1", "x" + std::to_string(i), now);
  u.Failed("10.0.0.3", "carol", now);
  EXPECT_LT(u.Rank("10.0.0.1", "alice", now), u.Rank("10.0.0.3", "carol", now));
}

TEST(LoginThrottle, TableStaysBounded) {
  LoginThrottlePolicy p = Policy();
  p.max_entries = 100;
  LoginThrottle t(p);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < 10'000; ++i) {
    t.Failed("10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256), "u", start + milliseconds(i));
    ASSERT_LE(t.entries(), p.max_entries + 2);
  }
  // The newest failures are the ones kept.
  const Clock::time_point end = start + milliseconds(10'000);
  EXPECT_GT(t.Rank("10.0.39.15", "u", end), 0u);
}

}  // namespace
}  // namespace sift::tools
