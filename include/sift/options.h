// sift/options.h: how a StreamEngine opens its store (EngineOptions, given to StreamEngine::Open), and
// the store's own settings (StoreOptions).
//
// Every field has one default, written here and nowhere else: the store takes these settings as they
// are, whether the engine opens it or a tool does. Options are plain values, copied by Open; nothing
// here holds a resource or a callback. Durability (StoreOptions::sync) comes first because it decides
// what an acknowledged append promises.
#ifndef SIFT_OPTIONS_H_
#define SIFT_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace sift {

// How much of a stream is kept. Whole chunks are deleted from the oldest end; offsets are never
// reused. Zero means "no limit" for each field.
struct RetentionPolicy {
  // Keep at most this many stored bytes (chunk headers + records) per stream: oldest chunks are deleted
  // while the total exceeds it. The newest chunk is deleted too if it alone exceeds the limit.
  uint64_t max_bytes = 0;
  // Delete chunks whose newest message is older than this.
  std::chrono::milliseconds max_age{0};

  bool operator==(const RetentionPolicy&) const = default;
};

// How a stream stores its chunks' records (docs/store-format.md, "Compressed chunks"). Chunk
// summaries are never compressed, so skipping a chunk decompresses nothing; a chunk whose records do
// not shrink is stored raw. Each chunk says how it is stored, so a stream's setting can change at any
// time: it applies to the chunks written after.
struct ChunkCompression {
  enum class Codec : uint8_t {
    kNone = 0,  // records stored as appended
    kZstd = 1,  // one zstd frame per chunk
  };
  Codec codec = Codec::kNone;
  // zstd's level, -7 to 19. Higher levels store less and compress and decompress more slowly;
  // negative levels are faster and larger. The default, -2: scans of compressed history are bound by
  // decompression, which it speeds up the most for what it adds to the store (docs/store-format.md,
  // "Compressed chunks"; the figures in bench/DECISIONS.md, "Compression codec and level").
  int level = -2;

  bool operator==(const ChunkCompression&) const = default;
};

inline constexpr int kMinZstdLevel = -7;
inline constexpr int kMaxZstdLevel = 19;

struct StoreOptions {
  // Durability. true (the default, and what the server uses): an append returns only after its chunk
  // is in RocksDB's write-ahead log and the log has been fsync'd, so an acknowledged message survives a
  // process kill and a power loss. false: an append returns once its chunk is written to the log in the
  // OS page cache; it survives a process kill (kill -9) but the last appends may be lost on power loss
  // or kernel crash until Flush() is called.
  bool sync = true;
  //
  // Consumers never read past a stream's durable end: with sync on, an append's messages become
  // visible once their fsync returned; with sync off, once written (they may still be lost on power
  // loss, and a consumer may have seen them).

  // Group commit by the caller (sync must be off): an append returns once written, and its messages
  // become visible to consumers only when a later Flush() has made them durable; a caller acknowledges
  // appends after that Flush. A failed Flush fences the streams it concerned: what it did not make
  // durable is never delivered and is discarded when the store recovers (StreamEngine::Health).
  bool deferred_sync = false;

  // Chunk bounds: a chunk is closed when it holds this many messages...
  uint32_t max_chunk_messages = 4096;
  // ...or when adding the next message would take its records past this many bytes (a single larger
  // message gets a chunk of its own). 1 MiB (docs/store-format.md, "RocksDB tuning"; storage_bench's
  // figures in bench/DECISIONS.md, "Chunk size"): close to the fastest warm scan, the fastest from the
  // page cache, and a chunk summary small against what it describes...
  uint32_t max_chunk_bytes = 1u << 20;
  // ...or when the oldest waiting append has waited this long. 0 (default): write as soon as the
  // previous write is done; appends that arrive during a write still share the next chunk write and
  // sync (group commit). A positive linger trades append latency for fuller chunks and fewer syncs
  // when many appenders each send single messages. A lone appender of single messages waits the full
  // linger on every append; such producers should use AppendBatch.
  std::chrono::microseconds linger{0};

  // Largest accepted message, in bytes (the record-file default: docs/record-format.md, "Limits").
  uint32_t max_message_bytes = 16u << 20;

  // RocksDB block cache, in bytes. Scans of recent data are served from it without touching files.
  size_t block_cache_bytes = 256u << 20;

  // RocksDB memtable size, in bytes: appended chunks stay in memory until this much is buffered.
  size_t write_buffer_bytes = 64u << 20;

  // Bulk appends (AppendBatch's table files) leave what they write in the page cache, as every other
  // write does: the replay a user runs after an append then reads memory, not the disk. false drops the
  // written pages as they are written, for bulk loads larger than memory that should not evict what
  // readers are using.
  bool cache_bulk_writes = true;

  // The compression of the streams created through this store (CreateStream); a stream keeps its own
  // setting from then on (StreamEngine::SetCompression changes it). Default: none.
  ChunkCompression compression;

  // Clock for append timestamps and retention ages, in milliseconds since the Unix epoch; called from
  // appending threads and from EnforceRetention. Default (empty): the system clock. Timestamps are made
  // non-decreasing per stream: a clock going backwards repeats the last timestamp.
  std::function<int64_t()> clock;

  // Create the store folder (and parents) if it does not exist. When false, opening a folder that does
  // not exist or holds no store is NotFound.
  bool create_if_missing = true;

  // Open for reading only: nothing is written (no log, no lock, no cleanup), so a process may read a
  // store another process has open for appending, and sees it as it was when opened. Every write
  // (appends, stream changes, summaries, retention, Flush) returns NotSupported. The folder must hold
  // a store. Opening this way is also faster: a one-shot read pays for no writes at open and close.
  bool read_only = false;
};

struct EngineOptions {
  // The store's settings (above).
  StoreOptions store;
  // Validate every appended message strictly (AMQP 1.0 message format: sections, their order and
  // every encoded value) and refuse a malformed one with Malformed, naming the byte and the reason.
  bool validate = true;
  // Write a summary of every new chunk's header, properties and application-properties values, so
  // that filtered reads skip chunks no message of which can match (ConsumerOptions::skip_chunks).
  bool summarize_chunks = true;
};

}  // namespace sift

#endif  // SIFT_OPTIONS_H_
