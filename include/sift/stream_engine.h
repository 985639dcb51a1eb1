// sift/stream_engine.h: what a broker embeds (StreamEngine) — a store of named streams of AMQP 1.0
// messages, appends, and filtered consumers. The embedding API is this folder, include/sift/, and
// nothing else: an embedding program includes these headers and links the library sift_engine.
//
// The engine keeps the bytes in a store on RocksDB (chunks, offsets, durability: docs/store-format.md),
// validates every appended message strictly (a malformed message is refused with the byte and the
// reason, never stored), and filters on the encoded bytes (sift/consumer.h). No header of the API
// includes anything but the C++ standard library and its own folder.
//
// Durability: with StoreOptions::sync (the default) an append returns ok only once its messages are
// fsync'd; "ok" means stored, with these offsets. A batch is stored atomically in consecutive offsets.
// Consumers (and ParallelScan, and StreamInfo::next_offset) never read past a stream's durable end:
// with sync on, messages become visible once their fsync returned; with StoreOptions::deferred_sync,
// once a Flush made them durable; with sync off, once written (not durable: a power loss may take
// them back after a consumer saw them).
//
// Failed writes: when a write or sync fails, the streams it concerned are fenced: nothing past their
// durable end is ever delivered, and appends fail with IOError (transient: retry later) until the
// store recovers, which every append and EnforceRetention call tries (at most every 100 ms): RocksDB
// is resumed and what did not become durable is discarded, so the next append gets the next dense
// offset and no offset a consumer saw is ever given to another message. A full disk recovers this way
// once space returns; an I/O error RocksDB reports as unrecoverable lasts until the store is reopened.
// Health() tells which.
//
// Lifetime: Open hands the engine to the caller (a unique_ptr); destroying it closes the store.
// Consumers must be destroyed before the engine, and no call may be running on it when it is
// destroyed.
//
// Thread safety: every method may be called from any number of threads at once; appends run
// concurrently with consumers (each consumer used by one thread at a time).
#ifndef SIFT_STREAM_ENGINE_H_
#define SIFT_STREAM_ENGINE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/consumer.h"
#include "sift/options.h"
#include "sift/parallel_scan.h"
#include "sift/status.h"

namespace sift {
namespace engine {
struct StreamEngineInternals;
}  // namespace engine

// A snapshot of one stream.
struct StreamInfo {
  std::string name;
  uint64_t first_offset = 0;  // oldest retained message (== next_offset when empty)
  uint64_t next_offset = 0;   // the durable end: one past the last message consumers can read, and
                              // what the next append gets (unless appends wait for a deferred Flush)
  uint64_t message_count = 0;
  uint64_t chunk_count = 0;
  uint64_t bytes = 0;              // stored bytes, chunk headers included (compressed or not)
  uint64_t raw_bytes = 0;          // the same before compression (== bytes when nothing is compressed)
  int64_t first_timestamp_ms = 0;  // append time of the oldest message (0 when empty)
  int64_t last_timestamp_ms = 0;   // append time of the newest message (0 when empty)
  RetentionPolicy retention;       // the stream's retention (all zero: keeps everything)
  ChunkCompression compression;    // how the stream's next chunks store their records
};

// Whether the store takes appends (StreamEngine::Health).
struct StoreHealth {
  bool writable = true;       // false from a failed write or sync until the store recovers
  std::string error;          // the failure (empty when writable)
  uint64_t failures = 0;      // failed states entered since the store was opened
  uint64_t recoveries = 0;    // failed states recovered from since then
  bool needs_reopen = false;  // the store cannot recover in place (RocksDB graded the error fatal)
  uint64_t reopen_bytes = 0;  // with needs_reopen: what reopening the store writes out first
};

// What StreamEngine::AppendEach did with one message of a batch.
struct AppendOutcome {
  // ok: the message is stored at `offset`. Otherwise it is not stored, and this says why: its own
  // refusal (Malformed, naming the byte; InvalidArgument when it is larger than
  // StoreOptions::max_message_bytes), or, for a message that passed its checks, the error of the write
  // that failed (the same Status AppendEach returned).
  Status status;
  uint64_t offset = 0;  // meaningful only when status.ok()
};

// How StreamEngine::AppendBatch writes a batch.
struct AppendOptions {
  // Write the batch's chunks as table files and ingest them, so that their bytes are written once
  // (docs/store-format.md, "Bulk loads"); durable on return even with sync off. The same contract
  // otherwise. Worth it from a few MiB per batch: a record file's load (`sift append`) goes this way.
  bool bulk = false;
};

// What StreamEngine::SummarizeChunks did, chunk by chunk.
struct SummarizeCounts {
  uint64_t built = 0;         // summarized now
  uint64_t present = 0;       // already had a summary and term entries
  uint64_t left_without = 0;  // get none: smaller than a summary, or holding what one cannot describe
};

class StreamEngine {
 public:
  // Opens (or creates, per options) the store in folder `path`. Errors: InvalidArgument (an empty path,
  // an option out of range), NotFound (no store there and !create_if_missing), Busy (another process
  // has the store open for writing), NotSupported (a store format this build does not know), IOError
  // (cannot create or read it), Corruption.
  //
  // On a store opened with StoreOptions::read_only every write below (stream changes, appends, Flush,
  // SummarizeChunks) returns NotSupported.
  static Status Open(const std::string& path, const EngineOptions& options, std::unique_ptr<StreamEngine>* out);

  ~StreamEngine();
  StreamEngine(const StreamEngine&) = delete;
  StreamEngine& operator=(const StreamEngine&) = delete;

  // Creates a stream with `retention`; ok if it already exists (idempotent, so producers can call it
  // before appending), and then the existing stream keeps its own retention (SetRetention changes it).
  // InvalidArgument for a bad name (1..255 bytes of UTF-8, no control characters) or a negative max_age;
  // IOError.
  Status CreateStream(std::string_view name, const RetentionPolicy& retention = {});
  // Deletes a stream and its messages. NotFound if there is no such stream; IOError.
  Status DeleteStream(std::string_view name);
  // OK when `name` can name a stream (1..255 bytes of UTF-8, no control characters), else
  // InvalidArgument naming the rule and the byte: for a caller that tells a bad name from a missing
  // stream before it looks one up (lookups of a bad name are NotFound).
  static Status CheckStreamName(std::string_view name);
  // The names of all streams. IOError.
  Status ListStreams(std::vector<std::string>* names) const;
  // NotFound if there is no such stream; IOError.
  Status GetStreamInfo(std::string_view name, StreamInfo* info) const;

  // Replaces the stream's retention (stored durably, kept across reopen) and applies it at once: the
  // chunks it rules out are deleted before it returns. Errors: NotFound, InvalidArgument (negative
  // max_age), NotSupported (store opened read-only), IOError.
  Status SetRetention(std::string_view name, const RetentionPolicy& retention);
  // Changes how the stream's next chunks store their records (stored durably, kept across reopen);
  // chunks already written stay as they are and stay readable. Errors: NotFound, InvalidArgument (a
  // zstd level out of range), NotSupported (store opened read-only), IOError.
  Status SetCompression(std::string_view name, const ChunkCompression& compression);
  // Applies every stream's retention now. Byte limits are also applied after every append, and age
  // limits then too, but a stream nobody appends to ages only through this call (or SetRetention): an
  // embedder with age limits calls it periodically (`sift serve` does, every --retention-interval).
  // Returns the first error of any stream (every stream is still tried): NotSupported (read-only),
  // IOError.
  Status EnforceRetention();

  // Appends one message (validated first, see EngineOptions::validate); *offset gets its offset.
  // Errors: NotFound (no such stream), Malformed (not a well-formed message: where names the byte),
  // InvalidArgument (too large), IOError.
  Status Append(std::string_view stream, std::string_view message, uint64_t* offset = nullptr);

  // Appends messages atomically in consecutive offsets starting at *first_offset. One bad message
  // refuses the whole batch (Malformed names its index in the batch and the byte); AppendEach refuses
  // it alone. The errors of Append.
  Status AppendBatch(std::string_view stream, std::span<const std::string_view> messages,
                     uint64_t* first_offset = nullptr, const AppendOptions& options = {});

  // Appends the messages of a batch that pass their checks and refuses the others, each on its own —
  // what a broker needs to settle each message of a batch with its own outcome.
  //
  // Every message is checked first: its size (StoreOptions::max_message_bytes) and, with
  // EngineOptions::validate, strict AMQP validation. The messages that pass are then stored in one
  // atomic write, in their order in the batch, in consecutive offsets (a refused message takes no
  // offset), durable on return as for AppendBatch. *outcomes is resized to messages.size() and
  // (*outcomes)[i] says what became of messages[i] (see AppendOutcome); a refused message never
  // stops the others.
  //
  // The returned Status is the write's own: ok when the stream exists and the messages that passed
  // are stored (also when none did, or the batch is empty: nothing is written then); otherwise nothing
  // of the batch is stored and every message that passed its checks carries this error: NotFound (no
  // such stream), NotSupported (store opened read-only), IOError (the write failed). So
  // outcomes[i].status.ok() is always "messages[i] is stored".
  //
  // The messages' bytes are read only during the call (nothing refers to them afterwards). Thread
  // safety as for every method; `outcomes` belongs to this call until it returns.
  Status AppendEach(std::string_view stream, std::span<const std::string_view> messages,
                    std::vector<AppendOutcome>* outcomes);

  // Makes every acknowledged append durable (fsync), also with sync off; with
  // StoreOptions::deferred_sync, makes the appends written so far visible to consumers. IOError (the
  // streams with appends it did not make durable are then fenced, see "Failed writes" above).
  Status Flush();

  // Whether the store takes appends now (see "Failed writes" above). Cheap; any thread.
  StoreHealth Health() const;

  // Builds the summary and the term entries of every chunk of `stream` that has none (chunks written
  // before summaries or before the term index, or with summarize_chunks off), reading each such chunk
  // once. Each summary is stored durably on its
  // own, so an interrupted run (even kill -9) leaves every chunk readable and skippable or not, and a
  // second run finishes the work. *counts (when given) says what became of each chunk: a chunk smaller
  // than its summary, or one holding what a summary cannot describe (an application property whose key
  // is not a string), gets none and is always read. Errors: NotFound, Corruption (a damaged chunk),
  // IOError.
  Status SummarizeChunks(std::string_view stream, SummarizeCounts* counts = nullptr);

  // Creates a consumer. Errors: InvalidArgument (the filter is not ok, zero credit), NotFound (no such
  // stream), IOError. A consumer reads up to the stream's durable end (see "Durability" above).
  Status NewConsumer(const ConsumerOptions& options, std::unique_ptr<Consumer>* out);

  // Runs a bounded filtered read split over threads and delivers its matches to `sink` in offset
  // order (sift/parallel_scan.h). Returns when the range is done, the sink said stop, or a read
  // failed (the Consumer's errors: Corruption under kStop, NotFound, IOError; InvalidArgument for bad
  // options). *stats, when given, gets the summed statistics.
  Status ParallelScan(const ParallelScanOptions& options, ScanSink* sink, ParallelScanStats* stats = nullptr);

  const std::string& path() const { return path_; }

 private:
  struct Impl;
  friend struct engine::StreamEngineInternals;  // engine/stream_engine_impl.h: storage-only settings (tests)
  StreamEngine(std::string path, std::unique_ptr<Impl> impl);
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sift

#endif  // SIFT_STREAM_ENGINE_H_
