// LoginChecker: password checks on threads of their own, so that a client trying passwords never holds
// up the event thread that serves everyone else.
//
// A check is queued by the event thread (Submit) and its verdict handed back through a callback on one
// of the checker's threads, which the caller turns into a wake of the connection. What a client can
// make it cost is bounded three ways: at most `threads` hashes run at once (the other cores stay with
// the event thread and the readers); at most `max_queued` checks wait, and one beyond them is refused
// at once as kBusy; and the LoginThrottle (login_throttle.h) orders the waiting checks, holds back the
// verdicts of failing addresses and refuses locked-out names without hashing their password.
#ifndef SIFT_TOOLS_SERVE_LOGIN_CHECKER_H_
#define SIFT_TOOLS_SERVE_LOGIN_CHECKER_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tools/serve/login_throttle.h"

namespace sift::tools {

struct LoginCheckerOptions {
  uint32_t threads = 1;
  size_t max_queued = 256;
  LoginThrottlePolicy policy;
};

class LoginChecker {
 public:
  enum class Verdict {
    kAccepted,   // the password is the user's
    kRejected,   // a wrong password or an unknown user
    kLockedOut,  // the name failed too often from this address: not checked
    kBusy,       // max_queued checks were waiting: not checked
  };
  // True when `password` is `user`'s. Called on the checker's threads, concurrently: it must be
  // thread-safe.
  using Verify = std::function<bool(std::string_view user, std::string_view password)>;
  using Done = std::function<void(Verdict)>;
  // False once nobody waits for the verdict (the client went away): the check is dropped unhashed.
  using Wanted = std::function<bool()>;

  LoginChecker(Verify verify, LoginCheckerOptions options);
  ~LoginChecker() { Stop(); }
  LoginChecker(const LoginChecker&) = delete;
  LoginChecker& operator=(const LoginChecker&) = delete;

  // Queues a check of `user`'s `password` from `address` (a host, without port). kBusy at once, with
  // `done` never called, when max_queued checks are waiting; else nullopt, and `done` is called once
  // with the verdict when it is due, on one of the checker's threads, unless Stop() comes first or
  // `wanted` (when given) says, just before the hash, that nobody waits for it any more.
  std::optional<Verdict> Submit(std::string address, std::string user, std::string password, Done done,
                                Wanted wanted = {});

  // Joins the threads; checks still waiting and verdicts still held back are dropped, their `done`
  // never called. Idempotent.
  void Stop();

  struct Counts {
    uint64_t checked = 0;     // passwords hashed
    uint64_t rejected = 0;    // of those, wrong
    uint64_t locked_out = 0;  // refused without a check
    uint64_t busy = 0;        // refused for a full queue
    uint64_t abandoned = 0;   // dropped unhashed: the client left first
  };
  Counts counts() const;

 private:
  using Clock = LoginThrottle::Clock;
  struct Job {
    std::string address;
    std::string user;
    std::string password;
    Done done;
    Wanted wanted;
  };
  struct Held {
    Verdict verdict;
    Done done;
  };
  void Loop();
  void Hold(Clock::time_point due, Verdict verdict, Done done);  // under mu_

  const Verify verify_;
  const LoginCheckerOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  uint64_t next_seq_ = 0;
  LoginThrottle throttle_;
  std::map<std::pair<uint64_t, uint64_t>, Job> queue_;  // (rank, arrival) -> check
  std::multimap<Clock::time_point, Held> held_;         // verdicts by when they are due
  Counts counts_;
  std::vector<std::thread> threads_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_LOGIN_CHECKER_H_
