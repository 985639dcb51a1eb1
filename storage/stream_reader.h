// StreamReader: forward iteration over one stream's messages, zero-copy.
//
// A reader is positioned with one of the Seek calls and then yields records with Next(). A record's
// `data` is a view into the chunk value pinned by the reader's RocksDB iterator (or, for a compressed
// chunk, into the reader's own buffer of its decompressed records, reused chunk after chunk): it stays valid until
// the reader moves to another chunk (a Next() that returns a record of a different chunk or false, any
// Seek*, SkipChunk()) or is destroyed. Copy the bytes to keep them longer. `Record::chunk_start` marks
// the first record the reader delivers from each chunk, so a consumer can count chunks.
//
// Every chunk's checksums are verified before any of its records is delivered; a damaged chunk is a
// Corruption error naming the stream, the chunk and its offset range. ReaderOptions::on_corruption
// chooses whether the reader stops there or skips the chunk.
//
// Not thread-safe: one thread at a time per reader (use a reader per thread). Readers run
// concurrently with appends; a non-tailing reader sees the stream as of its last Seek.
#ifndef SIFT_STORAGE_STREAM_READER_H_
#define SIFT_STORAGE_STREAM_READER_H_

#include <cstdint>
#include <string_view>

#include "storage/options.h"
#include "storage/status.h"

namespace sift::storage {

struct Record {
  uint64_t offset = 0;
  int64_t timestamp_ms = 0;  // append time, ms since the Unix epoch
  std::string_view data;     // the message bytes; lifetime: see the file comment
  bool chunk_start = false;  // first record delivered from its chunk
};

// A run of offsets [first, end): `end` is the first offset after it.
struct OffsetRange {
  uint64_t first = 0;
  uint64_t end = 0;
};

// The chunk the reader is in (the one holding the last record returned).
struct ChunkInfo {
  uint64_t first_offset = 0;
  uint32_t count = 0;
  int64_t first_timestamp_ms = 0;
  int64_t last_timestamp_ms = 0;
  uint32_t bytes = 0;           // stored size of the chunk (header + records)
  bool terms_complete = false;  // the chunk's term index lists every term (ReaderOptions::term_filter)
};

class StreamReader {
 public:
  virtual ~StreamReader() = default;

  // Positioning. Each returns ok, or NotFound if the stream was deleted. Nothing is read until Next():
  // an error reading the position surfaces there, in status(). A seek past the end leaves the reader at the end: Next()
  // returns false, and a tailing reader then waits for that offset to be appended.
  virtual Status SeekToFirst() = 0;                          // oldest retained message
  virtual Status Seek(uint64_t offset) = 0;                  // first message with offset >= `offset`
  virtual Status SeekToTimestamp(int64_t timestamp_ms) = 0;  // first message with timestamp >= T
  virtual Status SeekToLast() = 0;                           // the newest message (end when empty)
  virtual Status SeekToEnd() = 0;                            // after the newest ("next"): only new appends

  // Fills *record with the message at the reader's position and advances. Returns false when there is
  // no record: status() is then ok at the end of the stream (a tailing reader may be called again
  // later; see StreamStore::WaitForAppend), or the error (Corruption under CorruptionPolicy::kStop,
  // IOError). After a Corruption stop, Next() keeps returning false until a Seek or SkipChunk().
  // Offsets delivered are increasing; they are dense except where retention deleted chunks the reader
  // had not reached yet (counted in gaps()), or where a corrupt chunk was skipped.
  virtual bool Next(Record* record) = 0;

  // Skips the rest of the current chunk (the next Next() starts a new chunk). After Next() stopped at
  // a damaged chunk (status() Corruption, CorruptionPolicy::kStop), skips that chunk instead: the error
  // moves to last_skipped(), status() becomes ok and Next() continues after the damaged offsets. This
  // is how a caller chooses "skip" for one chunk at a time.
  virtual void SkipChunk() = 0;

  virtual const Status& status() const = 0;

  // The chunk of the last record returned (meaningful after Next() returned true).
  virtual const ChunkInfo& current_chunk() const = 0;

  // The offset the next Next() would deliver if it is stored.
  virtual uint64_t position() const = 0;

  // Chunks entered so far (each counted once, whether delivered or skipped as corrupt).
  virtual uint64_t chunks_visited() const = 0;
  // Corrupt chunks skipped under CorruptionPolicy::kSkip, and the error of the last one (ok if none).
  virtual uint64_t chunks_skipped() const = 0;
  virtual const Status& last_skipped() const = 0;
  // Chunks skipped unread because ReaderOptions::chunk_filter ruled them out, and their bytes before
  // compression (their stored bytes when raw).
  virtual uint64_t chunks_pruned() const = 0;
  virtual uint64_t bytes_pruned() const = 0;
  // Bytes of chunk summaries and term entries read to decide which chunks to skip (keys and values).
  virtual uint64_t summary_bytes_read() const = 0;

  // Offsets the reader reached after they were deleted (retention deleted their chunks before it
  // read them, or a Seek named offsets already deleted): it goes on at the first offset still stored.
  // How many runs of them it passed over (runs that touch count once), how many offsets in all
  // (those at or after ReaderOptions::end_offset left out), and the last run (empty before the first).
  // A gap is found as a chunk is entered: the record after one is a chunk_start, or Next() returns
  // false (the first offset still stored is the end of the stream, or not yet durable).
  virtual uint64_t gaps() const = 0;
  virtual uint64_t offsets_deleted() const = 0;
  virtual const OffsetRange& last_gap() const = 0;
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STREAM_READER_H_
