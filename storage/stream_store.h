// StreamStore: named, append-only streams of opaque messages in one embedded RocksDB database.
//
// Model. A stream is a sequence of messages (byte strings, stored exactly as given; storage knows
// nothing of AMQP). Every message gets a dense, monotonic 64-bit offset within its stream (0, 1, 2, ...;
// never reused, not even after retention deletes old messages or the store is reopened) and an append
// timestamp (ms since the Unix epoch, non-decreasing within a stream). Messages are stored in chunks:
// one RocksDB value holding up to StoreOptions::max_chunk_messages records; docs/store-format.md
// specifies the chunk format, the key layout, recovery and retention.
//
// Appends and durability. Append/AppendBatch return ok only after the message's chunk has been written
// (and, with StoreOptions::sync, fsync'd): "append returned ok" means "offsets assigned and durable".
// Concurrent appenders are grouped: one thread (the leader) writes the chunks of every waiting appender
// in one RocksDB write and one sync, then wakes the others (group commit). A batch is atomic: all of
// its messages are stored in consecutive offsets, or none is. Readers stop at each stream's durable
// end, which moves once a write is durable (with StoreOptions::deferred_sync, at the Flush that syncs
// it; with sync off, on write); a failed write fences the streams it concerned (Health below,
// docs/store-format.md "Failed writes").
//
// Thread safety. One StreamStore is shared by any number of threads: every method may be called
// concurrently, appends run concurrently with readers. A StreamReader is used by one thread at a time.
// Readers must be destroyed before the store.
#ifndef SIFT_STORAGE_STREAM_STORE_H_
#define SIFT_STORAGE_STREAM_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/shared_work.h"
#include "storage/options.h"
#include "storage/status.h"
#include "storage/stream_reader.h"

namespace sift::storage {

// A snapshot of one stream's state.
struct StreamInfo {
  std::string name;
  uint64_t first_offset = 0;   // oldest retained message; == next_offset when the stream is empty
  uint64_t next_offset = 0;    // the durable end (readers stop there); the offset the next append
                               // gets unless appends wait for a deferred Flush
  uint64_t message_count = 0;  // next_offset - first_offset
  uint64_t chunk_count = 0;
  uint64_t bytes = 0;              // stored bytes: chunk headers + records (compressed or not)
  uint64_t raw_bytes = 0;          // the same before compression (== bytes when nothing is compressed)
  int64_t first_timestamp_ms = 0;  // append time of first_offset; 0 when empty
  int64_t last_timestamp_ms = 0;   // append time of next_offset - 1; 0 when empty
  RetentionPolicy retention;
  ChunkCompression compression;  // of the chunks appended from now on
};

// Whether the store takes writes (StreamStore::Health).
struct StoreHealth {
  bool writable = true;       // false after a failed write or sync until the store recovers
  std::string error;          // what failed (empty when writable)
  uint64_t failures = 0;      // failed states entered since open
  uint64_t recoveries = 0;    // failed states left since open
  bool needs_reopen = false;  // the failure is one RocksDB cannot resume from: only a reopen recovers
  uint64_t reopen_bytes = 0;  // with needs_reopen: what a reopen writes out (the write-ahead logs' bytes)
};

// The longest stream name, in bytes.
inline constexpr size_t kMaxStreamNameBytes = 255;

// OK when `name` can name a stream: 1..kMaxStreamNameBytes bytes of UTF-8 without control characters
// (U+0000..U+001F, U+007F..U+009F); else InvalidArgument naming the rule and the byte.
Status ValidateStreamName(std::string_view name);

class StreamStore {
 public:
  // Opens the store in folder `path` (created when missing and options.create_if_missing), recovering
  // every stream and its next offset from what is stored. On success *store owns the open store.
  // Errors: Busy (another process has it open), IOError (cannot create or read the folder, damaged
  // RocksDB files), Corruption (damaged store metadata), NotSupported (newer format version),
  // InvalidArgument (bad options, e.g. a zero chunk bound).
  static Status Open(const std::string& path, const StoreOptions& options, std::unique_ptr<StreamStore>* store);

  // Closes the store: pending appends are finished first. Readers must have been destroyed.
  ~StreamStore();
  StreamStore(const StreamStore&) = delete;
  StreamStore& operator=(const StreamStore&) = delete;

  // Stream names: 1..kMaxStreamNameBytes bytes of UTF-8 without control characters (U+0000..U+001F,
  // U+007F..U+009F).
  // CreateStream: AlreadyExists if the name is taken, InvalidArgument for a bad name.
  Status CreateStream(std::string_view name, const StreamOptions& options = {});
  // Deletes the stream and all its messages. NotFound if there is no such stream. Open readers of the
  // stream see it end. A new stream of the same name starts again at offset 0.
  Status DeleteStream(std::string_view name);
  // The names of all streams, sorted.
  Status ListStreams(std::vector<std::string>* names) const;
  // NotFound if there is no such stream.
  Status GetStreamInfo(std::string_view name, StreamInfo* info) const;
  // Changes the stream's retention (stored durably) and applies it now.
  Status SetRetention(std::string_view name, const RetentionPolicy& retention);
  // Changes how the stream's next chunks store their records (stored durably); chunks already written
  // stay as they are. InvalidArgument for a zstd level out of range.
  Status SetCompression(std::string_view name, const ChunkCompression& compression);

  // Appends one message; on success *offset (if not null) is its offset. Blocks until the message is
  // durable (see the file comment). Errors: NotFound (no such stream), InvalidArgument (message larger
  // than max_message_bytes, or refused by the validator: the why names the reason), IOError.
  Status Append(std::string_view stream, std::string_view message, uint64_t* offset = nullptr);

  // Appends messages atomically in consecutive offsets; on success *first_offset (if not null) is the
  // offset of messages[0]. Every message is checked (size, validator) before anything is stored: if
  // one is refused, the whole batch is refused, nothing is stored, and the why of the InvalidArgument
  // names the index of the refused message in the batch ("message 3 of 10: ..."). An empty batch is ok
  // and stores nothing (*first_offset is then the stream's next offset).
  Status AppendBatch(std::string_view stream, std::span<const std::string_view> messages,
                     uint64_t* first_offset = nullptr);

  // The bulk path for large batches (a file being loaded): the same contract as AppendBatch (atomic,
  // consecutive offsets, every message checked first, durable on return whatever StoreOptions::sync
  // says), but the chunks are written as table files and ingested into RocksDB, so their bytes are
  // written once, not to the write-ahead log, the memtable and a flushed table in turn. Worth it from
  // a few MiB per batch: each call adds two table files to the store. Waits for appends in progress.
  //
  // Chunk summaries (StoreOptions::chunk_summarizer) are built while the chunks are written, or taken
  // from `prepared`, what PrepareIngest gave for the same messages (a loader prepares the next batch
  // while this one is written); prepared summaries that do not fit the chunks are ignored.
  Status IngestBatch(std::string_view stream, std::span<const std::string_view> messages,
                     uint64_t* first_offset = nullptr, const std::vector<std::string>* prepared = nullptr);
  // The work IngestBatch can be spared for `messages`: their chunks' summaries, on one thread per core.
  // Thread-safe; touches no stream.
  //
  // `check`, when given, is called for each chunk's messages [begin, end) that the summarizer did not
  // vouch for (ChunkSummarizer::AddChecked: a summarizer that checks messages as it reads them spares
  // the caller a pass of its own; without a summarizer, every chunk's), on the same threads. A check
  // that fails stops the work: the result is its status, for the first failing range in message order
  // (every range before it was checked or vouched for), and *prepared is not usable.
  //
  // `share`, when given, lets threads waiting for this call join its work (base::SharedWork::Help) while
  // it runs; it is over once this returns.
  using RangeCheck = std::function<Status(size_t begin, size_t end)>;
  Status PrepareIngest(std::span<const std::string_view> messages, std::vector<std::string>* prepared,
                       const RangeCheck& check = {}, base::SharedWork* share = nullptr) const;

  // Chunk summaries (StoreOptions::chunk_summarizer). ListChunks: the stream's stored chunks, oldest
  // first, from the in-memory index (no chunk is read). GetChunkSummary: the summary of the chunk that
  // starts at `first_offset`; NotFound when the chunk has none (written before summaries, or without a
  // summarizer) or there is no such chunk, Corruption when the stored summary is damaged.
  // PutChunkSummary: stores (or replaces) the summary of an existing chunk and its term entries
  // (`terms`: the chunk's complete terms, ChunkSummarizer::FinishTerms; null when they are not), durably,
  // for summaries built after the fact; NotFound when there is no chunk starting at `first_offset`. One
  // atomic write, so a crash leaves every chunk with its old summary and terms or its new ones.
  Status ListChunks(std::string_view stream, std::vector<ChunkInfo>* chunks) const;
  Status GetChunkSummary(std::string_view stream, uint64_t first_offset, std::string* summary) const;
  Status PutChunkSummary(std::string_view stream, uint64_t first_offset, std::string_view summary,
                         const std::vector<uint64_t>* terms = nullptr);

  // Ends the linger of appends waiting now (they are written at once) and makes every acknowledged
  // append durable on disk (fsyncs the write-ahead log), also when StoreOptions::sync is off.
  Status Flush();

  // Applies every stream's retention with the current clock (age limits need a periodic call; byte
  // limits are also applied after every append).
  Status EnforceRetention();

  // Creates a reader of `stream`, positioned at the stream's first retained message. NotFound if there
  // is no such stream. The reader must be destroyed before the store.
  Status NewReader(std::string_view stream, const ReaderOptions& options, std::unique_ptr<StreamReader>* reader);

  // Waits until `stream` has a message at offset >= `offset` (next_offset > offset), the stream is
  // deleted, or `timeout` passes. Returns true if such a message exists. For tailing consumers.
  bool WaitForAppend(std::string_view stream, uint64_t offset, std::chrono::milliseconds timeout) const;

  // Whether appends are taken now. After a failed write or sync the streams it concerned are fenced:
  // readers see nothing past their durable end, appends fail with IOError, and each append and
  // EnforceRetention (at most every 100 ms) tries to recover: RocksDB is resumed (DB::Resume) and what the fenced
  // streams hold past their durable end is deleted, so the next append gets the next dense offset. RocksDB resumes from
  // a full disk and from retryable errors; other I/O errors of the log are fatal to it (needs_reopen): the streams stay
  // fenced until the store is reopened.
  StoreHealth Health() const;

  const std::string& path() const;

  class Impl;  // storage/stream_store_impl.h

 private:
  explicit StreamStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STREAM_STORE_H_
