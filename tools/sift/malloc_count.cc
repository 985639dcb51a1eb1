// Counts the calling thread's malloc, calloc and realloc calls; see malloc_count.h.
#include "tools/sift/malloc_count.h"

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SIFT_MALLOC_COUNT 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SIFT_MALLOC_COUNT 0
#endif
#endif
#ifndef SIFT_MALLOC_COUNT
#define SIFT_MALLOC_COUNT 1
#endif

#if SIFT_MALLOC_COUNT

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
}

namespace {
// Per thread by nature: each thread counts its own calls. Initial-exec: a fixed offset from the thread
// pointer, no lookup, safe in malloc (the executable's TLS exists before any of its code runs).
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_mallocs = 0;
}  // namespace

namespace sift::tools {
bool MallocCounted() { return true; }
uint64_t ThreadMallocCount() { return t_mallocs; }
}  // namespace sift::tools

extern "C" {
void* malloc(size_t size) noexcept {
  ++t_mallocs;
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) noexcept {
  ++t_mallocs;
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) noexcept {
  ++t_mallocs;
  return __libc_realloc(p, size);
}
}

#else

namespace sift::tools {
bool MallocCounted() { return false; }
uint64_t ThreadMallocCount() { return 0; }
}  // namespace sift::tools

#endif
