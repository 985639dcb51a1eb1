// SplitMix64: the deterministic random stream of the tests' generators (the same numbers on every
// platform and standard library, unlike <random>'s distributions).
#ifndef SIFT_TESTS_SUPPORT_SPLIT_MIX_H_
#define SIFT_TESTS_SUPPORT_SPLIT_MIX_H_

#include <cstddef>
#include <cstdint>

namespace sift::testing {

class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for test data; 0 when n is 0.
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

}  // namespace sift::testing

#endif  // SIFT_TESTS_SUPPORT_SPLIT_MIX_H_
