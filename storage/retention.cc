// Retention decisions (see retention.h).
#include "storage/retention.h"

namespace sift::storage {

size_t ChunksToDelete(const std::deque<ChunkMeta>& chunks, uint64_t total_bytes, const RetentionPolicy& policy,
                      int64_t now_ms) {
  size_t n = 0;
  if (policy.max_age.count() > 0) {
    // Timestamps are non-decreasing along the stream, so the expired chunks are a prefix.
    const int64_t cutoff = now_ms - policy.max_age.count();
    while (n < chunks.size() && chunks[n].last_timestamp_ms < cutoff) {
      total_bytes -= chunks[n].bytes;
      ++n;
    }
  }
  if (policy.max_bytes > 0) {
    while (n < chunks.size() && total_bytes > policy.max_bytes) {
      total_bytes -= chunks[n].bytes;
      ++n;
    }
  }
  return n;
}

}  // namespace sift::storage
