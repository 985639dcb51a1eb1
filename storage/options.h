// Options of the stream store, of each stream, and of readers. Every field has a default and says what
// it means; the store's settings (durability first, because it decides what an acknowledged append
// promises) are the embedding API's own (sift/options.h). Options are plain values, copied by the
// functions that take them.
#ifndef SIFT_STORAGE_OPTIONS_H_
#define SIFT_STORAGE_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sift/options.h"
#include "storage/status.h"

namespace rocksdb {
class Env;
}

namespace sift::storage {

// Returns "now" in milliseconds since the Unix epoch. Tests pass a fake clock.
using Clock = std::function<int64_t()>;

// Checks one message before it is stored; returns ok to accept it, or an error (its why is kept in the
// refusal) to refuse it. Storage itself never looks inside a message; the engine leaves this empty
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
  // Add() for a message nobody has checked yet: a summarizer that can check messages (for being well
  // formed) checks it while it reads it, sparing the caller a pass of its own, and returns true when it
  // vouches for the message. The default cannot check: it adds the message and vouches for nothing.
  virtual bool AddChecked(std::string_view message) {
    Add(message);
    return false;
  }
  // Replaces *summary with the chunk's summary; leaves it empty when the chunk gets none (it is then
  // never skipped).
  virtual void Finish(std::string* summary) = 0;
  // After Finish(): replaces *terms with the chunk's terms (storage/term_index.h), hashes of the values
  // a reader's term filter may look for, and returns true when they are complete: when no message of
  // the chunk holds a value whose term is not listed. The default lists none and vouches for nothing.
  virtual bool FinishTerms(std::vector<uint64_t>* terms) {
    terms->clear();
    return false;
  }
};
// Makes a summarizer, which one thread at a time uses: a store keeps one for its group commits (their
// leaders take turns under its write lock), and a bulk load makes one per thread.
using ChunkSummarizerFactory = std::function<std::unique_ptr<ChunkSummarizer>()>;

// Per-stream retention: the embedding API's (sift::RetentionPolicy, sift/options.h).
using RetentionPolicy = sift::RetentionPolicy;

using ChunkCompression = sift::ChunkCompression;

struct StreamOptions {
  RetentionPolicy retention;  // default: keep everything
  // How the stream stores its chunks' records. Unset: StoreOptions::compression.
  std::optional<ChunkCompression> compression;
};

// The store's settings are the embedding API's (sift::StoreOptions, sift/options.h): durability,
// chunk bounds, the largest message, the caches, create and read-only, each with its one default
// there, whether the engine opens the store or a tool or test does. What only the engine and the tests
// set is added here.
struct StoreOptions : sift::StoreOptions {
  // Optional check of every message before it is stored (see MessageValidator). Default: none.
  MessageValidator validator;

  // Optional summary of every chunk written (see ChunkSummarizer). Default: none.
  ChunkSummarizerFactory chunk_summarizer;

  // The environment RocksDB reads and writes files through. Default (null): RocksDB's own. Tests
  // pass one over a fault-injecting file system (slow or failing syncs, a full disk).
  std::shared_ptr<rocksdb::Env> env;
};

// What a reader does when a chunk fails its checksum or structural checks.
enum class CorruptionPolicy : uint8_t {
  kStop,  // default: Next() returns false and status() is the Corruption error; the reader stays there
  kSkip,  // skip the chunk (its offsets are not delivered), count it, keep the error in last_skipped()
};

// What a chunk's term index says (ReaderOptions::term_filter): false only when the chunk holds no
// value whose term is `term`.
class ChunkTermLookup {
 public:
  virtual ~ChunkTermLookup() = default;
  virtual bool MayHold(uint64_t term) const = 0;
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

  // The second level of chunk skipping: called before chunk_filter for a chunk whose terms are
  // complete (ChunkSummarizer::FinishTerms); false skips the chunk without reading its summary. The
  // lookup answers from the partitions of `filter_terms`, the terms the filter may ask about (read in
  // key order, chunk after chunk), and says "may hold" for any other. Empty (default): summaries only.
  std::function<bool(const ChunkTermLookup& terms)> term_filter;
  std::vector<uint64_t> filter_terms;

  // The reader delivers no offset at or after this one: Next() returns false there (status ok), and
  // chunk skipping stops there too. Default: no bound.
  uint64_t end_offset = UINT64_MAX;

  // Put the chunks this reader reads into the block cache. false suits one-off full scans of old data
  // (they do not evict the recent chunks other readers use).
  bool fill_cache = true;
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_OPTIONS_H_
