// LoginThrottle: what failed password logins cost the address they came from.
//
// A password hash is slow on purpose, so a client that tries passwords makes the server spend CPU on
// each try. The throttle keeps, per client address and per (address, user name), the failures seen
// since the entry's last quiet period, and turns them into:
// - a delay: the outcome of a failed login from an address that failed more than `free_failures`
//   times is held back, 2x longer for every further failure up to `max_delay`, so a client that waits
//   for its outcome before trying again tries a few times a second at most. A successful login is
//   never delayed;
// - a refusal: a user name that failed `lockout_failures` times from one address is refused from that
//   address without its password being hashed, until `window` has passed since its last failure. The
//   same user from another address, and other users from the same address, are not affected;
// - an order: checks waiting for a hashing thread go in order of Rank(), so logins from addresses
//   and names without failures are checked before those of a client that keeps failing.
// An entry is forgotten `window` after its last failure; at most `max_entries` are kept (the
// entries that failed longest ago make room). Not thread-safe: LoginChecker holds it under its lock.
#ifndef SIFT_TOOLS_SERVE_LOGIN_THROTTLE_H_
#define SIFT_TOOLS_SERVE_LOGIN_THROTTLE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sift::tools {

struct LoginThrottlePolicy {
  uint32_t free_failures = 3;
  std::chrono::milliseconds first_delay{250};
  std::chrono::milliseconds max_delay{2000};
  uint32_t lockout_failures = 10;
  std::chrono::milliseconds window{std::chrono::minutes(10)};
  size_t max_entries = 65536;
};

class LoginThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LoginThrottle(LoginThrottlePolicy policy = {}) : policy_(policy) {}

  // True when `user` is locked out from `address` at `now`: refused without a check.
  bool LockedOut(std::string_view address, std::string_view user, Clock::time_point now) const;

  // Failures that count against a check from `address` as `user` at `now`: of the pair first (in the
  // high bits), then of the address. Lower ranks are checked first.
  uint64_t Rank(std::string_view address, std::string_view user, Clock::time_point now) const;

  // Records a failed login (a wrong password, an unknown user, or a lockout) at `now`; returns how
  // long its outcome is held back.
  std::chrono::milliseconds Failed(std::string_view address, std::string_view user, Clock::time_point now);

  // Records a successful login: the pair's failures are forgotten (the address's are not).
  void Succeeded(std::string_view address, std::string_view user);

  const LoginThrottlePolicy& policy() const { return policy_; }
  size_t entries() const { return failures_.size(); }

 private:
  struct Entry {
    uint32_t failures = 0;
    Clock::time_point last;
  };
  // Keys: "A\0ADDRESS" for an address, "U\0ADDRESS\0USER" for a pair.
  static std::string AddressKey(std::string_view address);
  static std::string PairKey(std::string_view address, std::string_view user);
  uint32_t Count(const std::string& key, Clock::time_point now) const;
  uint32_t Bump(const std::string& key, Clock::time_point now);
  void MakeRoom(Clock::time_point now);

  LoginThrottlePolicy policy_;
  std::unordered_map<std::string, Entry> failures_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_LOGIN_THROTTLE_H_
