// How many times the calling thread called malloc, calloc or realloc: what `sift bench` reports as
// allocations per rejected message, for sift's side and for the decode-everything baseline (Qpid
// Proton allocates with malloc; C++ operator new does too).
//
// The sift binary defines malloc, calloc and realloc (malloc_count.cc): each adds one to a counter of
// the calling thread and forwards to glibc's own (__libc_malloc ...); an executable's definitions take
// precedence for every shared library, Proton's included. free is left to glibc. The counter is a
// thread-local word (initial-exec TLS, no call, no atomic): on `sift append` and `sift filter -f json`,
// the commands that allocate most, it costs nothing above run-to-run noise (README.md, "Benchmark",
// gives the runs). Under AddressSanitizer, which owns malloc, nothing is defined and nothing is counted.
#ifndef SIFT_TOOLS_SIFT_MALLOC_COUNT_H_
#define SIFT_TOOLS_SIFT_MALLOC_COUNT_H_

#include <cstdint>

namespace sift::tools {

// False in a build that does not count (the sanitizer builds): ThreadMallocCount() is then always 0.
bool MallocCounted();

// malloc + calloc + realloc calls the calling thread made since it started.
uint64_t ThreadMallocCount();

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_MALLOC_COUNT_H_
