// BytesEqual: equality of two short byte ranges without a call into the C library.
//
// The selector and the engine's prefilter compare many short texts (a LIKE segment's literal head,
// the middle of a prefilter candidate) whose length is known only at run time; std::memcmp is then
// an out-of-line call that costs more than the comparison. Up to 16 bytes this compares two
// overlapping fixed-size loads from each end, which the compiler turns into plain moves.
#ifndef SIFT_SELECTOR_BYTES_EQUAL_H_
#define SIFT_SELECTOR_BYTES_EQUAL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sift::selector {

inline bool BytesEqual(const void* a, const void* b, size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  auto same = [&](size_t at, auto word) {
    decltype(word) u, v;
    std::memcpy(&u, x + at, sizeof u);
    std::memcpy(&v, y + at, sizeof v);
    return u == v;
  };
  if (n >= 8) {
    if (n > 16) return std::memcmp(x, y, n) == 0;
    return same(0, uint64_t{}) && same(n - 8, uint64_t{});
  }
  if (n >= 4) return same(0, uint32_t{}) && same(n - 4, uint32_t{});
  if (n == 0) return true;
  return x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1];  // 1..3 bytes
}

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_BYTES_EQUAL_H_
