// The private state of a StreamStore, shared with its readers. Private to storage/.
//
// Locking. `mu_` guards the stream map, every StreamState field and the writer queue. `write_mu_`
// serialises everything that writes to RocksDB (the group-commit leader, stream create/delete,
// retention), so a stream's state changes only while write_mu_ is held: the leader may read stream
// state without mu_ while it holds write_mu_. Order: write_mu_ before mu_. No RocksDB call is made
// with mu_ held, except cheap in-memory ones.
#ifndef SIFT_STORAGE_STREAM_STORE_IMPL_H_
#define SIFT_STORAGE_STREAM_STORE_IMPL_H_

#include <rocksdb/db.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/chunk_format.h"
#include "storage/options.h"
#include "storage/retention.h"
#include "storage/status.h"
#include "storage/stream_store.h"

namespace sift::storage {

// A chunk a bulk load will cut: messages [begin, end) of the batch, `bytes` its header and records
// before compression.
struct ChunkRange {
  size_t begin = 0, end = 0;
  uint32_t bytes = 0;
};

struct StreamState {
  uint32_t id = 0;
  std::string name;
  RetentionPolicy retention;
  uint64_t floor = 0;                    // persisted: no message below this offset is stored any more
  std::deque<ChunkMeta> chunks;          // stored chunks, oldest first
  uint64_t bytes = 0;                    // sum of chunks[i].bytes
  uint64_t raw_bytes = 0;                // sum of chunks[i].raw_bytes
  ChunkCompression compression;          // of the chunks appended from now on; changed under write_mu_
  int64_t last_timestamp_ms = 0;         // last assigned timestamp (kept even when all chunks are deleted)
  std::atomic<uint64_t> next_offset{0};  // written under both locks: what the next append gets
  // The durable-end mark: readers deliver no offset at or past it. It moves once a write is durable
  // (after its fsync, or after the Flush that syncs it with StoreOptions::deferred_sync), or on write
  // with sync off. Written under both locks, read lock-free by readers.
  std::atomic<uint64_t> durable_end{0};
  // Bumped when offsets past durable_end are discarded (recovery after a failed write): a reader
  // holding chunks of an older epoch positions itself again.
  std::atomic<uint64_t> epoch{0};
  // A write of this stream failed: offsets from durable_end on are discarded when the store recovers,
  // and no append is taken until then. Under mu_.
  bool fenced = false;
  std::atomic<bool> deleted{false};

  uint64_t first_offset() const { return chunks.empty() ? next_offset.load() : chunks.front().first_offset; }
};

class StreamStore::Impl {
 public:
  Impl(std::string path, StoreOptions options) : path_(std::move(path)), options_(std::move(options)) {}
  ~Impl();

  Status OpenDb();
  Status Recover();

  Status CreateStream(std::string_view name, const StreamOptions& options);
  Status DeleteStream(std::string_view name);
  Status ListStreams(std::vector<std::string>* names) const;
  Status GetStreamInfo(std::string_view name, StreamInfo* info) const;
  Status SetRetention(std::string_view name, const RetentionPolicy& retention);
  Status SetCompression(std::string_view name, const ChunkCompression& compression);
  Status AppendBatch(std::string_view stream, std::span<const std::string_view> messages, uint64_t* first_offset);
  Status IngestBatch(std::string_view stream, std::span<const std::string_view> messages, uint64_t* first_offset,
                     const std::vector<std::string>* prepared);
  Status PrepareIngest(std::span<const std::string_view> messages, std::vector<std::string>* summaries,
                       const StreamStore::RangeCheck& check, base::SharedWork* share) const;
  Status Flush();
  Status EnforceRetention();
  Status ListChunks(std::string_view stream, std::vector<ChunkInfo>* chunks) const;
  Status GetChunkSummary(std::string_view stream, uint64_t first_offset, std::string* summary) const;
  Status PutChunkSummary(std::string_view stream, uint64_t first_offset, std::string_view summary,
                         const std::vector<uint64_t>* terms);
  Status NewReader(std::string_view stream, const ReaderOptions& options, std::unique_ptr<StreamReader>* reader);
  bool WaitForAppend(std::string_view stream, uint64_t offset, std::chrono::milliseconds timeout) const;
  // OK, or NotSupported when the store was opened read-only (StoreOptions::read_only).
  Status Writable() const;
  StoreHealth Health() const;
  // RocksDB met an error that stops writes, or resumed by itself (its event listener); mu_ not held.
  void BackgroundError(const rocksdb::Status& error);
  void BackgroundRecovered();
  // Whether RocksDB's active memtable holds nothing (see BackgroundErrorListener).
  bool ActiveMemtableEmpty() const;
  // The store takes no write until it is reopened: RocksDB could not be resumed in place safely.
  void StoppedUntilReopen(const rocksdb::Status& error);

  // For readers: the stream's state by name (null if none), and the first offset of the first chunk
  // whose last timestamp is >= T (nullopt-like: returns false when there is none).
  std::shared_ptr<StreamState> FindStream(std::string_view name) const;
  bool ChunkForTimestamp(const StreamState& stream, int64_t timestamp_ms, uint64_t* first_offset) const;
  // The first offset of the stored chunk holding `offset`; false if no chunk in the index holds it.
  bool ChunkHolding(const StreamState& stream, uint64_t offset, uint64_t* first_offset) const;
  // The stored chunk holding `offset`, or the first one after it; false if there is none.
  bool ChunkFrom(const StreamState& stream, uint64_t offset, ChunkMeta* meta) const;
  void StreamBounds(const StreamState& stream, uint64_t* first, uint64_t* next) const;

  // Table files of a bulk append are written in this folder of the store before they are ingested;
  // whatever a crash left there is removed when the store opens.
  static constexpr const char* kIngestDir = "ingest";

  rocksdb::DB* db() const { return db_.get(); }
  const std::string& path() const { return path_; }
  const StoreOptions& options() const { return options_; }

  // Converts a RocksDB status, prefixing `what` ("open store '/x'").
  static Status FromRocks(const rocksdb::Status& s, std::string_view what);

 private:
  struct Writer {
    std::shared_ptr<StreamState> stream;
    std::span<const std::string_view> messages;
    size_t bytes = 0;
    Status status;
    uint64_t first_offset = 0;
    bool done = false;
    std::condition_variable cv;
  };

  int64_t Now() const;
  // The prepared chunks (term_index.h's PreparedChunk, encoded) of `ranges` of `messages` (empty
  // strings where a chunk gets no summary), built on
  // one thread per core (and the threads `share` lets join), each range after `check` passed it when
  // there is a check (PrepareIngest).
  Status SummarizeRanges(std::span<const std::string_view> messages, std::span<const ChunkRange> ranges,
                         std::vector<std::string>* prepared, const StreamStore::RangeCheck& check = {},
                         base::SharedWork* share = nullptr) const;
  // Every message's size and the validator, before anything is written; *total_bytes their sum.
  Status CheckBatch(std::string_view stream, std::span<const std::string_view> messages, size_t* total_bytes) const;
  // The stream's retention after an append; write_mu_ held, mu_ not held.
  void RetainAfterAppend(const std::shared_ptr<StreamState>& stream, int64_t now_ms);
  void LeadGroup(Writer* self, std::unique_lock<std::mutex>& lock);
  // Deletes the chunks retention says must go; write_mu_ held, mu_ not held.
  Status ApplyRetention(const std::shared_ptr<StreamState>& stream, int64_t now_ms);
  std::string EncodeStreamRecord(const StreamState& stream) const;
  rocksdb::WriteOptions WriteOpts() const;
  // Fences `streams` after a failed write or sync (`error`); mu_ held. See durability.cc.
  void EnterFailedState(std::span<const std::shared_ptr<StreamState>> streams, const Status& error);
  // Recovers from a failed state, at most every kRecoveryInterval: resumes RocksDB and discards what
  // fenced streams hold past their durable end. OK when the store takes writes; otherwise the error
  // appends are refused with. write_mu_ held, mu_ not held.
  Status RecoverIfFailed();
  // The error an append to `stream` (a store-wide write when empty) gets while the store has not
  // recovered.
  Status FencedError(std::string_view stream) const;
  // Listens to RocksDB's own errors and recoveries (durability.cc).
  std::shared_ptr<rocksdb::EventListener> NewBackgroundErrorListener();

  const std::string path_;
  const StoreOptions options_;
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Cache> cache_;

  std::mutex write_mu_;
  // The group commits' summarizer (under write_mu_), kept from one group to the next: making one (its
  // tables) costs as much as summarizing a group of messages, and a server whose producers send one
  // message at a time commits groups of a few (bench/DECISIONS.md, "What summaries cost a load").
  std::unique_ptr<ChunkSummarizer> group_summarizer_;
  ChunkBuilder group_builder_;  // the group commit leader's (under write_mu_): keeps its buffers and zstd context
  // The group commit leader's write batch (under write_mu_), cleared and refilled: a fresh one per group
  // grew by doubling into freshly mapped memory every time, paying the copies and page faults again.
  // One that grew past kKeptGroupBatchBytes is not kept.
  rocksdb::WriteBatch group_batch_;
  mutable std::mutex mu_;
  mutable std::condition_variable appended_cv_;  // notified after every commit and stream deletion
  std::map<std::string, std::shared_ptr<StreamState>, std::less<>> streams_;
  uint32_t next_stream_id_ = 1;
  std::deque<Writer*> writers_;
  size_t queued_messages_ = 0;
  size_t queued_bytes_ = 0;
  bool flush_requested_ = false;

  // Failed state (durability.cc), under mu_: the first error of the current failure, the failures and
  // recoveries so far, and when recovery was last tried.
  bool failed_ = false;
  Status failure_;
  uint64_t failures_ = 0;
  uint64_t recoveries_ = 0;
  bool needs_reopen_ = false;  // RocksDB refused to resume: only reopening the store recovers
  std::chrono::steady_clock::time_point last_recovery_attempt_{};
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STREAM_STORE_IMPL_H_
