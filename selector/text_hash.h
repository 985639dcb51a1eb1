// HashText: a fast hash of short byte strings for the in-memory sets of the selector and the engine
// (IN lists, the text prefilter's member sets). Not stable across versions, not for storage, not
// resistant to chosen input: members are always confirmed by comparison, the hash only spreads them.
#ifndef SIFT_SELECTOR_TEXT_HASH_H_
#define SIFT_SELECTOR_TEXT_HASH_H_

#include <cstdint>
#include <cstring>
#include <string_view>

namespace sift::selector {

namespace text_hash_internal {

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a ^ 0x9E3779B97F4A7C15ull) * (b ^ 0xC2B2AE3D27D4EB4Full);
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

}  // namespace text_hash_internal

// Word at a time (the shape of wyhash): one or two 128-bit multiplies for the short keys sets hold,
// instead of a dependent multiply per byte.
inline uint64_t HashText(std::string_view s) {
  using namespace text_hash_internal;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t a, b;
  if (n >= 8) {
    uint64_t h = n;
    for (size_t i = 0; n - i > 16; i += 16) h = Mix(Load64(p + i) ^ h, Load64(p + i + 8));
    // The last 16 bytes (all of them under 16) hold whatever the loop left; words may overlap.
    a = Load64(p + (n >= 16 ? n - 16 : 0)) ^ h;
    b = Load64(p + n - 8);
  } else if (n >= 4) {
    a = Load32(p) ^ (uint64_t{n} << 32);
    b = Load32(p + n - 4);
  } else {
    a = n == 0 ? 0
               : (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
                     (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
    b = n;
  }
  return Mix(a, b ^ n);
}

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_TEXT_HASH_H_
