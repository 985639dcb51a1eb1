// Two pieces of work measured in alternating turns over the same input, for the benchmarks whose
// targets compare sift with Proton (bench/codec, bench/filter). On a shared machine whose speed
// drifts over seconds, two benchmarks run one after the other can meet different conditions; in
// turns of a few milliseconds or less, both meet the same ones.
#pragma once

#include <time.h>

namespace sift::bench {

// The calling thread's CPU time in nanoseconds: a neighbour's load on the machine is not counted.
inline double ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Runs both turns of one block; which goes first alternates from call to call, so that neither
// always finds the block in cache or always pays to bring it in.
class PairedTurns {
 public:
  template <typename A, typename B>
  void Run(A&& a, B&& b) {
    if (a_first_) {
      a();
      b();
    } else {
      b();
      a();
    }
    a_first_ = !a_first_;
  }

 private:
  bool a_first_ = true;
};

}  // namespace sift::bench
