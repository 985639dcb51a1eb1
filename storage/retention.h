// Retention: which of a stream's oldest chunks a RetentionPolicy deletes. Private to storage/.
// Only whole chunks are deleted, always from the oldest end, so the retained messages stay one dense
// offset range and offsets are never reused (the stream record keeps the floor, docs/store-format.md).
#ifndef SIFT_STORAGE_RETENTION_H_
#define SIFT_STORAGE_RETENTION_H_

#include <cstddef>
#include <cstdint>
#include <deque>

#include "storage/options.h"

namespace sift::storage {

// What the store remembers of every stored chunk (also stored as the chunk's index entry).
struct ChunkMeta {
  uint64_t first_offset = 0;
  uint32_t count = 0;
  uint32_t bytes = 0;  // stored value size: header + records (compressed or not)
  int64_t first_timestamp_ms = 0;
  int64_t last_timestamp_ms = 0;
  uint32_t raw_bytes = 0;  // header + records before compression (== bytes for a raw chunk)
  // The term index (term_index.h): which partitions hold an entry of the chunk, and whether its terms
  // are complete (only then can the index rule the chunk out).
  uint64_t term_partitions = 0;
  bool terms_complete = false;
};

// The number of oldest chunks to delete from `chunks` (oldest first, `total_bytes` their summed
// bytes) so that: no chunk's newest message is older than now_ms - max_age, and the total is at
// most max_bytes. Zero limits are off.
size_t ChunksToDelete(const std::deque<ChunkMeta>& chunks, uint64_t total_bytes, const RetentionPolicy& policy,
                      int64_t now_ms);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_RETENTION_H_
