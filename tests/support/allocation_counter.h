// Counts heap allocations made through global operator new / delete in this process.
//
// Linking the sift_allocation_counter library replaces the global allocation functions, so it belongs
// only in test and benchmark binaries. Two counts are kept: process-wide (relaxed atomics, for the
// benchmarks, which read it around the code they measure with nothing else running) and per thread
// (AllocationScope: what the measuring thread itself allocated, so a store's background threads,
// flushing or compacting, do not count against the code under test).
#ifndef SIFT_TESTS_SUPPORT_ALLOCATION_COUNTER_H_
#define SIFT_TESTS_SUPPORT_ALLOCATION_COUNTER_H_

#include <cstdint>

namespace sift::testing {

// Total number of operator new calls (all forms) since the process started.
uint64_t AllocationCount();

// Number of operator new calls made by the calling thread since it started.
uint64_t ThisThreadAllocationCount();

// Counts the allocations the constructing thread makes between construction and Allocations() (call
// it on that thread).
class AllocationScope {
 public:
  AllocationScope() : start_(ThisThreadAllocationCount()) {}
  uint64_t Allocations() const { return ThisThreadAllocationCount() - start_; }

 private:
  uint64_t start_;
};

}  // namespace sift::testing

#endif  // SIFT_TESTS_SUPPORT_ALLOCATION_COUNTER_H_
