// Self-describing messages for the crash tests: the first 8 bytes are a nonce, the rest is a
// deterministic function of it, so any stored message can be checked byte for byte.
#ifndef SIFT_TESTS_STORAGE_CRASH_MESSAGES_H_
#define SIFT_TESTS_STORAGE_CRASH_MESSAGES_H_

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace sift::storage::test {

inline std::string CrashMessage(uint64_t nonce) {
  std::mt19937_64 rng(nonce);
  // Mostly small messages, sometimes large ones that fill or exceed a chunk.
  const uint64_t r = rng();
  size_t size = 8 + r % 600;
  if (r % 97 == 0) size = 8 + (r >> 8) % (200 * 1024);
  std::string s(size, '\0');
  std::memcpy(s.data(), &nonce, 8);
  for (size_t i = 8; i < size; ++i) s[i] = static_cast<char>(rng());
  return s;
}

// True if `data` is exactly CrashMessage(its own nonce).
inline bool IsCrashMessage(std::string_view data, uint64_t* nonce) {
  if (data.size() < 8) return false;
  std::memcpy(nonce, data.data(), 8);
  return CrashMessage(*nonce) == data;
}

}  // namespace sift::storage::test

#endif  // SIFT_TESTS_STORAGE_CRASH_MESSAGES_H_
