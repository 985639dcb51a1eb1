// Password checks on a small pool, ordered and throttled (see login_checker.h).
#include "tools/serve/login_checker.h"

#include <strings.h>

namespace sift::tools {

LoginChecker::LoginChecker(Verify verify, LoginCheckerOptions options)
    : verify_(std::move(verify)), options_(options), throttle_(options.policy) {
  const uint32_t n = options_.threads == 0 ? 1 : options_.threads;
  for (uint32_t i = 0; i < n; ++i) threads_.emplace_back([this] { Loop(); });
}

std::optional<LoginChecker::Verdict> LoginChecker::Submit(std::string address, std::string user, std::string password,
                                                          Done done, Wanted wanted) {
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = Clock::now();
  if (throttle_.LockedOut(address, user, now)) {
    ++counts_.locked_out;
    Hold(now + throttle_.Failed(address, user, now), Verdict::kLockedOut, std::move(done));
    explicit_bzero(password.data(), password.size());
    return std::nullopt;
  }
  if (queue_.size() >= options_.max_queued) {
    ++counts_.busy;
    explicit_bzero(password.data(), password.size());
    return Verdict::kBusy;
  }
  const uint64_t rank = throttle_.Rank(address, user, now);
  queue_.emplace(std::make_pair(rank, next_seq_++),
                 Job{std::move(address), std::move(user), std::move(password), std::move(done), std::move(wanted)});
  cv_.notify_one();
  return std::nullopt;
}

void LoginChecker::Hold(Clock::time_point due, Verdict verdict, Done done) {
  const bool earliest = held_.empty() || due < held_.begin()->first;
  held_.emplace(due, Held{verdict, std::move(done)});
  // A thread asleep until a later verdict, or with nothing to do, must look again.
  if (earliest) cv_.notify_all();
}

void LoginChecker::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!held_.empty() && held_.begin()->first <= Clock::now()) {
      Held h = std::move(held_.begin()->second);
      held_.erase(held_.begin());
      lock.unlock();
      h.done(h.verdict);
      lock.lock();
      continue;
    }
    if (!queue_.empty()) {
      Job job = std::move(queue_.begin()->second);
      queue_.erase(queue_.begin());
      lock.unlock();
      if (job.wanted && !job.wanted()) {
        // A client that sends its password and leaves at once costs no hash, and is no failure.
        explicit_bzero(job.password.data(), job.password.size());
        lock.lock();
        ++counts_.abandoned;
        continue;
      }
      const bool ok = verify_(job.user, job.password);
      explicit_bzero(job.password.data(), job.password.size());
      lock.lock();
      ++counts_.checked;
      const Clock::time_point now = Clock::now();
      std::chrono::milliseconds delay{0};
      if (ok) {
        throttle_.Succeeded(job.address, job.user);
      } else {
        ++counts_.rejected;
        delay = throttle_.Failed(job.address, job.user, now);
      }
      const Verdict verdict = ok ? Verdict::kAccepted : Verdict::kRejected;
      if (delay.count() > 0) {
        Hold(now + delay, verdict, std::move(job.done));
      } else {
        lock.unlock();
        job.done(verdict);
        lock.lock();
      }
      continue;
    }
    if (held_.empty()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, held_.begin()->first);
    }
  }
}

void LoginChecker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ && threads_.empty()) return;
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, job] : queue_) explicit_bzero(job.password.data(), job.password.size());
  queue_.clear();
  held_.clear();
}

LoginChecker::Counts LoginChecker::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

}  // namespace sift::tools
