// Failure counts per address and per (address, user), see login_throttle.h.
#include "tools/serve/login_throttle.h"

#include <algorithm>
#include <vector>

namespace sift::tools {

std::string LoginThrottle::AddressKey(std::string_view address) {
  std::string key("A");
  key.push_back('\0');
  key.append(address);
  return key;
}

std::string LoginThrottle::PairKey(std::string_view address, std::string_view user) {
  std::string key("U");
  key.push_back('\0');
  key.append(address);
  key.push_back('\0');
  key.append(user);
  return key;
}

uint32_t LoginThrottle::Count(const std::string& key, Clock::time_point now) const {
  auto it = failures_.find(key);
  if (it == failures_.end() || now - it->second.last >= policy_.window) return 0;
  return it->second.failures;
}

uint32_t LoginThrottle::Bump(const std::string& key, Clock::time_point now) {
  auto it = failures_.find(key);
  if (it == failures_.end()) {
    MakeRoom(now);
    it = failures_.emplace(key, Entry{}).first;
  } else if (now - it->second.last >= policy_.window) {
    it->second.failures = 0;
  }
  Entry& e = it->second;
  if (e.failures < UINT32_MAX) ++e.failures;
  e.last = now;
  return e.failures;
}

void LoginThrottle::MakeRoom(Clock::time_point now) {
  if (failures_.size() < policy_.max_entries) return;
  std::erase_if(failures_, [&](const auto& kv) { return now - kv.second.last >= policy_.window; });
  if (failures_.size() < policy_.max_entries) return;
  // Still full of recent failures: the older half goes, so this runs once per many insertions.
  std::vector<Clock::time_point> lasts;
  lasts.reserve(failures_.size());
  for (const auto& [key, e] : failures_) lasts.push_back(e.last);
  auto middle = lasts.begin() + static_cast<std::ptrdiff_t>(lasts.size() / 2);
  std::nth_element(lasts.begin(), middle, lasts.end());
  const Clock::time_point cut = *middle;
  std::erase_if(failures_, [&](const auto& kv) { return kv.second.last <= cut; });
}

bool LoginThrottle::LockedOut(std::string_view address, std::string_view user, Clock::time_point now) const {
  return policy_.lockout_failures > 0 && Count(PairKey(address, user), now) >= policy_.lockout_failures;
}

uint64_t LoginThrottle::Rank(std::string_view address, std::string_view user, Clock::time_point now) const {
  return (uint64_t{Count(PairKey(address, user), now)} << 32) | Count(AddressKey(address), now);
}

std::chrono::milliseconds LoginThrottle::Failed(std::string_view address, std::string_view user,
                                                Clock::time_point now) {
  Bump(PairKey(address, user), now);
  const uint32_t n = Bump(AddressKey(address), now);
  if (n <= policy_.free_failures) return std::chrono::milliseconds(0);
  // first_delay << (n - free_failures - 1), without overflowing the shift.
  std::chrono::milliseconds delay = policy_.first_delay;
  for (uint32_t i = policy_.free_failures + 1; i < n && delay < policy_.max_delay; ++i) delay *= 2;
  return std::min(delay, policy_.max_delay);
}

void LoginThrottle::Succeeded(std::string_view address, std::string_view user) {
  failures_.erase(PairKey(address, user));
}

}  // namespace sift::tools
