// SharedWork: a helper waits for the work to start, takes pieces beside the owner, and the owner
// returns only once every helper has left; Close() and a finished Run() release a waiting helper.
#include "base/shared_work.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sift::base {
namespace {

using std::chrono::seconds;

// One thread tells another that something happened.
class Signal {
 public:
  void Set() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      set_ = true;
    }
    cv_.notify_all();
  }
  // True once Set(), false after 30 s without.
  bool Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, seconds(30), [this] { return set_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

TEST(SharedWork, RunAloneTakesEveryPieceOnceAndLaterHelpersFindNothing) {
  SharedWork work;
  std::atomic<int> next{0};
  std::vector<int> taken(100, 0);
  const std::function<void()> take = [&] {
    for (int k = next.fetch_add(1); k < 100; k = next.fetch_add(1)) ++taken[k];
  };
  work.Run(take);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(taken[k], 1) << k;
  work.Help();  // over: returns at once, takes nothing
  EXPECT_EQ(next.load(), 101);
}

TEST(SharedWork, AHelperWaitingBeforeRunTakesPiecesAndRunWaitsForItToLeave) {
  SharedWork work;
  constexpr int kPieces = 1000;
  std::atomic<int> next{0};
  std::vector<std::atomic<int>> taken(kPieces);
  Signal helper_took;
  std::atomic<bool> helper_left{false};
  const std::thread::id owner = std::this_thread::get_id();
  const std::function<void()> take = [&] {
    const bool on_owner = std::this_thread::get_id() == owner;
    for (int k = next.fetch_add(1); k < kPieces; k = next.fetch_add(1)) {
      taken[k].fetch_add(1);
      if (on_owner && k == 0) {
        ASSERT_TRUE(helper_took.Wait());  // hold the owner until the helper has a piece: it surely takes part
      } else if (!on_owner) {
        helper_took.Set();
      }
    }
    if (!on_owner) {
      // Still inside the work after the last piece is gone: Run() must wait for this.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      helper_left = true;
    }
  };
  std::thread helper([&] { work.Help(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the helper is waiting (or about to)
  work.Run(take);
  EXPECT_TRUE(helper_left.load());
  helper.join();
  EXPECT_TRUE(helper_took.Wait());  // set by then: at once
  for (int k = 0; k < kPieces; ++k) EXPECT_EQ(taken[k].load(), 1) << k;
}

TEST(SharedWork, CloseReleasesAWaitingHelperAndRunThenWorksAlone) {
  SharedWork work;
  std::atomic<bool> returned{false};
  std::thread helper([&] {
    work.Help();
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(returned.load());  // nothing to help with yet: it waits
  work.Close();
  helper.join();
  EXPECT_TRUE(returned.load());

  int runs = 0;
  const std::function<void()> take = [&] { ++runs; };
  work.Run(take);  // a Run after Close works alone
  EXPECT_EQ(runs, 1);
  work.Help();
  work.Close();  // harmless after Run
  EXPECT_EQ(runs, 1);
}

TEST(SharedWork, AnOwnerWhoseWorkThrowsStillWaitsForItsHelperAndEndsTheWork) {
  SharedWork work;
  Signal helper_in;
  std::atomic<bool> helper_left{false};
  const std::thread::id owner = std::this_thread::get_id();
  const std::function<void()> take = [&] {
    if (std::this_thread::get_id() != owner) {
      helper_in.Set();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      helper_left = true;
      return;
    }
    EXPECT_TRUE(helper_in.Wait());
    throw std::runtime_error("failed piece");
  };
  std::thread helper([&] { work.Help(); });
  EXPECT_THROW(work.Run(take), std::runtime_error);
  EXPECT_TRUE(helper_left.load());  // Run() waited for it, exception or not
  helper.join();
  work.Help();  // over: returns at once
}

}  // namespace
}  // namespace sift::base
