// Counts heap allocations made through global operator new / delete in this process.
//
// Linking the sift_allocation_counter library replaces the global allocation functions, so it belongs
// only in test and benchmark binaries. Counting is process-wide and uses relaxed atomics: a test reads
// the counter around the code it measures, on one thread, with nothing else running.
#ifndef SIFT_TESTS_SUPPORT_ALLOCATION_COUNTER_H_
#define SIFT_TESTS_SUPPORT_ALLOCATION_COUNTER_H_

#include <cstdint>

namespace sift::testing {

// Total number of operator new calls (all forms) since the process started.
uint64_t AllocationCount();

// Counts the allocations made between construction and Allocations().
class AllocationScope {
 public:
  AllocationScope() : start_(AllocationCount()) {}
  uint64_t Allocations() const { return AllocationCount() - start_; }

 private:
  uint64_t start_;
};

}  // namespace sift::testing

#endif  // SIFT_TESTS_SUPPORT_ALLOCATION_COUNTER_H_
