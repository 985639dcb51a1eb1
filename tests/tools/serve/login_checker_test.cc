// LoginChecker: verdicts come back on its own threads, clean logins are checked before those of a
// failing address, a full queue refuses at once, a locked-out name is refused without hashing, and a
// failing address's verdicts are held back while a good login is not, and a client that left first
// costs no hash.
#include "tools/serve/login_checker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sift::tools {
namespace {

using std::chrono::milliseconds;
using Verdict = LoginChecker::Verdict;

// Verdicts as they arrive, with the order and the thread they arrived on.
class Inbox {
 public:
  LoginChecker::Done Expect(std::string tag) {
    return [this, tag](Verdict v) {
      std::lock_guard<std::mutex> lock(mu_);
      got_.push_back({tag, v, std::this_thread::get_id(), std::chrono::steady_clock::now()});
      cv_.notify_all();
    };
  }
  struct Got {
    std::string tag;
    Verdict verdict;
    std::thread::id thread;
    std::chrono::steady_clock::time_point at;
  };
  std::vector<Got> WaitFor(size_t n, milliseconds limit = milliseconds(10'000)) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, limit, [&] { return got_.size() >= n; });
    return got_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Got> got_;
};

// "secret" is every user's password; each check takes `cost` and is counted.
struct SlowVerify {
  milliseconds cost;
  std::atomic<int>* calls;
  bool operator()(std::string_view, std::string_view password) const {
    ++*calls;
    std::this_thread::sleep_for(cost);
    return password == "secret";
  }
};

LoginCheckerOptions Options(uint32_t threads, size_t max_queued) {
  LoginCheckerOptions o;
  o.threads = threads;
  o.max_queued = max_queued;
  o.policy.free_failures = 1;
  o.policy.first_delay = milliseconds(300);
  o.policy.max_delay = milliseconds(300);
  o.policy.lockout_failures = 3;
  return o;
}

TEST(LoginChecker, VerdictsArriveOnTheCheckersThread) {
  std::atomic<int> calls{0};
  LoginChecker checker(SlowVerify{milliseconds(1), &calls}, Options(1, 16));
  Inbox inbox;
  EXPECT_FALSE(checker.Submit("10.0.0.1", "alice", "secret", inbox.Expect("good")).has_value());
  EXPECT_FALSE(checker.Submit("10.0.0.2", "bob", "wrong", inbox.Expect("bad")).has_value());
  auto got = inbox.WaitFor(2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(got[1].verdict, Verdict::kRejected);
  EXPECT_NE(got[0].thread, std::this_thread::get_id());
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(checker.counts().checked, 2u);
  EXPECT_EQ(checker.counts().rejected, 1u);
}

TEST(LoginChecker, CleanLoginsAreCheckedBeforeAFailingAddresss) {
  std::atomic<int> calls{0};
  LoginChecker checker(SlowVerify{milliseconds(30), &calls}, Options(1, 64));
  Inbox inbox;
  // The attacker fails once (so its address has a failure), then queues ten more behind a check
  // that holds the only thread.
  checker.Submit("10.0.0.66", "mallory", "wrong", inbox.Expect("first"));
  inbox.WaitFor(1);
  checker.Submit("10.0.0.66", "mallory", "wrong", inbox.Expect("busy-thread"));
  for (int i = 0; i < 10; ++i) checker.Submit("10.0.0.66", "mallory", "wrong", inbox.Expect("attack"));
  checker.Submit("10.0.0.7", "alice", "secret", inbox.Expect("alice"));
  auto got = inbox.WaitFor(3);
  ASSERT_GE(got.size(), 3u);
  // alice's verdict comes before any of the ten queued before her; the one already running may win.
  size_t alice = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].tag == "alice") alice = i;
  }
  EXPECT_GT(alice, 0u);
  EXPECT_EQ(got[alice].verdict, Verdict::kAccepted);
  for (size_t i = 0; i < alice; ++i) EXPECT_NE(got[i].tag, "attack") << i;
}

TEST(LoginChecker, FullQueueRefusesAtOnce) {
  std::atomic<int> calls{0};
  LoginChecker checker(SlowVerify{milliseconds(200), &calls}, Options(1, 2));
  Inbox inbox;
  int queued = 0, busy = 0;
  for (int i = 0; i < 10; ++i) {
    auto v = checker.Submit("10.0.0." + std::to_string(i), "u", "secret", inbox.Expect("x"));
    if (v.has_value()) {
      EXPECT_EQ(*v, Verdict::kBusy);
      ++busy;
    } else {
      ++queued;
    }
  }
  // One may have been taken by the thread already, two wait: at most three were accepted for checking.
  EXPECT_LE(queued, 3);
  EXPECT_GE(busy, 7);
  EXPECT_EQ(checker.counts().busy, static_cast<uint64_t>(busy));
  auto got = inbox.WaitFor(static_cast<size_t>(queued));
  EXPECT_EQ(got.size(), static_cast<size_t>(queued));
}

TEST(LoginChecker, LockedOutNameIsNotHashedAndFailuresAreHeldBack) {
  std::atomic<int> calls{0};
  LoginChecker checker(SlowVerify{milliseconds(1), &calls}, Options(1, 16));
  Inbox inbox;
  // Failures 1-3 from one address lock the name out (lockout_failures 3).
  for (int i = 0; i < 3; ++i) {
    checker.Submit("10.0.0.9", "alice", "wrong", inbox.Expect("wrong"));
    ASSERT_EQ(inbox.WaitFor(static_cast<size_t>(i + 1)).size(), static_cast<size_t>(i + 1));
  }
  EXPECT_EQ(calls.load(), 3);
  const auto before = std::chrono::steady_clock::now();
  checker.Submit("10.0.0.9", "alice", "secret", inbox.Expect("locked"));
  auto got = inbox.WaitFor(4);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[3].verdict, Verdict::kLockedOut);
  EXPECT_EQ(calls.load(), 3) << "a locked-out name's password was hashed";
  EXPECT_GE(got[3].at - before, milliseconds(300)) << "a failing address's verdict was not held back";
  EXPECT_EQ(checker.counts().locked_out, 1u);

  // From another address the same name is checked, and a good password answered without delay.
  const auto start = std::chrono::steady_clock::now();
  checker.Submit("10.0.0.10", "alice", "secret", inbox.Expect("elsewhere"));
  got = inbox.WaitFor(5);
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[4].verdict, Verdict::kAccepted);
  EXPECT_LT(got[4].at - start, milliseconds(250));

  // Another name from the failing address: a good password is not held back either.
  const auto again = std::chrono::steady_clock::now();
  checker.Submit("10.0.0.9", "bob", "secret", inbox.Expect("bob"));
  got = inbox.WaitFor(6);
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[5].verdict, Verdict::kAccepted);
  EXPECT_LT(got[5].at - again, milliseconds(250));
}

TEST(LoginChecker, ClientThatLeftCostsNoHash) {
  std::atomic<int> calls{0};
  LoginChecker checker(SlowVerify{milliseconds(1), &calls}, Options(1, 16));
  Inbox inbox;
  checker.Submit("10.0.0.1", "alice", "secret", inbox.Expect("gone"), [] { return false; });
  checker.Submit("10.0.0.1", "alice", "secret", inbox.Expect("here"), [] { return true; });
  auto got = inbox.WaitFor(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].tag, "here");
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(checker.counts().abandoned, 1u);
  EXPECT_EQ(checker.counts().rejected, 0u);
}

TEST(LoginChecker, StopDropsWhatIsWaitingWithoutCallingIt) {
  std::atomic<int> calls{0};
  std::atomic<int> answered{0};
  {
    LoginChecker checker(SlowVerify{milliseconds(50), &calls}, Options(1, 64));
    for (int i = 0; i < 20; ++i) {
      checker.Submit("10.0.0.1", "u" + std::to_string(i), "wrong", [&](Verdict) { ++answered; });
    }
    std::this_thread::sleep_for(milliseconds(20));
    checker.Stop();
    checker.Stop();
  }
  EXPECT_LE(calls.load(), 2);
  EXPECT_LE(answered.load(), 1);
}

}  // namespace
}  // namespace sift::tools
