// Options of the stream store, of each stream, and of readers. Every field has a default and says what
// it means; durability (StoreOptions::sync) comes first because it decides what an acknowledged append
// promises. Options are plain values, copied by the functions that take them.
#ifndef SIFT_STORAGE_OPTIONS_H_
#define SIFT_STORAGE_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "storage/status.h"

namespace sift::storage {

// Returns "now" in milliseconds since the Unix epoch. Tests pass a fake clock.
using Clock = std::function<int64_t()>;

// Checks one message before it is stored; returns ok to accept it, or an error (its message is kept in
// the refusal) to refuse it. Storage itself never looks inside a message; the engine leaves this empty
// and validates before it calls the store, so that an error names the byte. Called from the appending
// thread, without any store lock held, possibly from many threads at once: it must be thread-safe.
using MessageValidator = std::function<Status(std::string_view message)>;

// Builds the summary of one chunk from its messages while the chunk is cut, so that readers can skip
// a chunk without reading it (ReaderOptions::chunk_filter). Storage keeps the summary as opaque bytes
// beside the chunk's index entry and never looks inside; the engine writes and reads it. One object
// serves one appending thread at a time: Reset(), Add() for each message in offset order, Finish().
class ChunkSummarizer {
 public:
  virtual ~ChunkSummarizer() = default;
  // Starts a new chunk.
  virtual void Reset() = 0;
  // The next message of the chunk. Its bytes stay valid until Finish() returns.
  virtual void Add(std::string_view message) = 0;
  // Replaces *summary with the chunk's summary; leaves it empty when the chunk gets none (it is then
  // never skipped).
  virtual void Finish(std::string* summary) = 0;
};
// Makes a summarizer for one append or bulk load; called from the appending thread.
using ChunkSummarizerFactory = std::function<std::unique_ptr<ChunkSummarizer>()>;

// Per-stream retention. Whole chunks are deleted from the oldest end; offsets are never reused.
// Zero means "no limit" for each field.
struct RetentionPolicy {
  // Keep at most this many stored bytes (chunk headers + records) per stream: oldest chunks are deleted
  // while the total exceeds it. The newest chunk is deleted too if it alone exceeds the limit.
  uint64_t max_bytes = 0;
  // Delete chunks whose newest message is older than this many milliseconds.
  int64_t max_age_ms = 0;

  bool operator==(const RetentionPolicy&) const = default;
};

struct StreamOptions {
  RetentionPolicy retention;  // default: keep everything
};

struct StoreOptions {
  // Durability. true (the default, and what the server uses): an append returns only after its chunk
  // is in RocksDB's write-ahead log and the log has been fsync'd, so an acknowledged message survives a
  // process kill and a power loss. false: an append returns once its chunk is written to the log in the
  // OS page cache; it survives a process kill (kill -9) but the last appends may be lost on power loss
  // or kernel crash until Flush() is called.
  bool sync = true;

  // Chunk bounds: a chunk is closed when it holds this many messages...
  uint32_t max_chunk_messages = 4096;
  // ...or when adding the next message would take its records past this many bytes (a single larger
  // message gets a chunk of its own). 1 MiB: within 7% of the fastest warm scan measured (256 KiB, which
  // stays in a core's L2 cache) and the fastest from the page cache (docs/store-format.md), and it keeps
  // one chunk summary (a few KB) under 1% of what it describes...
  uint32_t max_chunk_bytes = 1u << 20;
  // ...or when the oldest waiting append has waited this long. 0 (default): write as soon as the
  // previous write is done; appends that arrive during a write still share the next chunk write and
  // sync (group commit). A positive linger trades append latency for fuller chunks and fewer syncs
  // when many appenders each send single messages. A lone appender of single messages waits the full
  // linger on every append; such producers should use AppendBatch.
  std::chrono::microseconds linger{0};

  // Largest accepted message, in bytes (the record-file default: docs/record-format.md, "Limits").
  uint32_t max_message_bytes = 16u << 20;

  // Optional check of every message before it is stored (see MessageValidator). Default: none.
  MessageValidator validator;

  // Optional summary of every chunk written (see ChunkSummarizer). Default: none.
  ChunkSummarizerFactory chunk_summarizer;

  // Clock for append timestamps (ms since the Unix epoch). Default (empty): the system clock.
  // Timestamps are made non-decreasing per stream: a clock going backwards repeats the last timestamp.
  Clock clock;

  // RocksDB block cache, in bytes. Scans of recent data are served from it without touching files.
  size_t block_cache_bytes = 256u << 20;

  // RocksDB memtable size, in bytes: appended chunks stay in memory until this much is buffered.
  size_t write_buffer_bytes = 64u << 20;

  // Create the store folder (and parents) if it does not exist. Default true.
  bool create_if_missing = true;

  // Open for reading only: nothing is written (no log, no lock, no cleanup), so a process may read a
  // store another process has open for appending, and sees it as it was when opened. Every write
  // (appends, stream changes, summaries, Flush, EnforceRetention) returns NotSupported. The folder
  // must hold a store. Opening this way is also faster: a one-shot read pays for no writes at open
  // and close.
  bool read_only = false;
};

// What a reader does when a chunk fails its checksum or structural checks.
enum class CorruptionPolicy : uint8_t {
  kStop,  // default: Next() returns false and status() is the Corruption error; the reader stays there
  kSkip,  // skip the chunk (its offsets are not delivered), count it, keep the error in last_skipped()
};

struct ReaderOptions {
  // Tailing: when the reader reaches the end of what was stored when it last looked, Next() looks
  // again, so it also sees messages appended after the reader was created. Without tailing the reader
  // sees the stream as it was at its last Seek (a consistent snapshot).
  bool tailing = false;

  CorruptionPolicy on_corruption = CorruptionPolicy::kStop;

  // Read-ahead for iterating chunks that are not in the block cache, in bytes (0: RocksDB's automatic
  // read-ahead; docs/store-format.md explains the default).
  size_t readahead_bytes = 0;

  // Chunk skipping: called with a chunk's summary (ChunkSummarizer) before the reader enters a chunk
  // that has one; false skips the whole chunk without reading its value (its offsets are not
  // delivered, and it is counted in chunks_pruned()). Chunks without a summary, or with a damaged
  // one, are read. Empty (default): every chunk is read. Called on the reader's thread.
  std::function<bool(std::string_view summary)> chunk_filter;

  // The reader delivers no offset at or after this one: Next() returns false there (status ok), and
  // chunk skipping stops there too. Default: no bound.
  uint64_t end_offset = UINT64_MAX;

  // Put the chunks this reader reads into the block cache. false suits one-off full scans of old data
  // (they do not evict the recent chunks other readers use).
  bool fill_cache = true;
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_OPTIONS_H_
