// Counts every malloc / calloc / realloc call of the process, C libraries included.
//
// The project's counting allocator (tests/support/allocation_counter.h) counts C++ operator new, which
// is what sift's own code uses; Qpid Proton and RocksDB allocate with malloc directly. Linking
// malloc_counter.cc into a benchmark binary interposes glibc's malloc, calloc and realloc (the
// executable's definitions take precedence for every shared library) and forwards each call to glibc's
// own implementation (__libc_malloc ...), so the baseline's allocations are counted too. free is not
// interposed: the memory still comes from glibc. Counting is process-wide, relaxed-atomic; read it
// around the code measured, with nothing else running.
#ifndef SIFT_BENCH_FILTER_MALLOC_COUNTER_H_
#define SIFT_BENCH_FILTER_MALLOC_COUNTER_H_

#include <cstdint>

namespace sift::bench {

// malloc + calloc + realloc calls since the process started.
uint64_t MallocCount();

}  // namespace sift::bench

#endif  // SIFT_BENCH_FILTER_MALLOC_COUNTER_H_
