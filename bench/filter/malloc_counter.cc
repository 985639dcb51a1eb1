// Interposes glibc's malloc, calloc and realloc to count calls; see malloc_counter.h.
#include "bench/filter/malloc_counter.h"

#include <atomic>
#include <cstddef>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
}

namespace {
// Process-wide by nature: it counts a process-wide resource.
std::atomic<uint64_t> g_mallocs{0};
}  // namespace

namespace sift::bench {
uint64_t MallocCount() { return g_mallocs.load(std::memory_order_relaxed); }
}  // namespace sift::bench

extern "C" {
void* malloc(size_t size) noexcept {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) noexcept {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) noexcept {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}
}
