// StreamStore: opening and recovery, stream metadata, group-commit appends and retention.
// Formats and the recovery rule are specified in docs/store-format.md; locking in stream_store_impl.h.
#include "storage/stream_store.h"

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/flush_block_policy.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>
#include <thread>
#include <utility>

#include "base/utf8.h"
#include "storage/chunk_compression.h"
#include "storage/chunk_format.h"
#include "storage/index_entry_format.h"
#include "storage/info_log.h"
#include "storage/key_layout.h"
#include "storage/store_record_format.h"
#include "storage/stream_reader_impl.h"
#include "storage/stream_record_format.h"
#include "storage/stream_store_impl.h"
#include "storage/summary_entry_format.h"
#include "storage/term_index.h"

namespace sift::storage {
namespace {

constexpr size_t kMaxGroupBytes = 64u << 20;       // one leader writes at most this much per group
constexpr size_t kKeptGroupBatchBytes = 8u << 20;  // a larger group's write batch is freed after it

// Writes (put) a chunk's term entries.
template <typename Put>
void PutTermEntries(uint32_t id, uint64_t first_offset, const ChunkTermEntries& entries, Put&& put) {
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (entries.partitions() & (uint64_t{1} << p)) put(keys::TermKey(id, p, first_offset), entries.entry(p));
  }
}

// Deletes the term entries of the chunks in [first, end).
void DeleteTermEntries(rocksdb::WriteBatch* batch, uint32_t id, uint64_t first, uint64_t end) {
  for (uint32_t p = 0; p < kTermPartitions; ++p)
    batch->DeleteRange(keys::TermKey(id, p, first), keys::TermKey(id, p, end));
}

// Ends a data block after every entry: each chunk of a bulk-written table file is a block of its own,
// as the size policy makes it with the store's small block size.
class BlockPerEntryPolicy final : public rocksdb::FlushBlockPolicy {
 public:
  bool Update(const rocksdb::Slice&, const rocksdb::Slice&) override { return !std::exchange(first_, false); }

 private:
  bool first_ = true;
};

class BlockPerEntryPolicyFactory final : public rocksdb::FlushBlockPolicyFactory {
 public:
  const char* Name() const override { return "SiftBlockPerEntry"; }
  rocksdb::FlushBlockPolicy* NewFlushBlockPolicy(const rocksdb::BlockBasedTableOptions&,
                                                 const rocksdb::BlockBuilder&) const override {
    return new BlockPerEntryPolicy;
  }
};

// The options of the table file a bulk append writes its chunks into. RocksDB starts each data block's
// buffer at the block size and doubles it as entries are added: with the store's 16 KiB, a 1 MiB chunk
// was copied six times over as its block grew, and once more to append the block's trailer. A block
// size that holds the largest chunk (one chunk per block, by the policy above) leaves one copy. Blocks
// that large also bypass the file writer's buffer (a buffer smaller than the block), which saves
// another copy on the way to the write call.
void ChunkTableOptions(const rocksdb::Options& db_options, const StoreOptions& store, rocksdb::Options* options,
                       rocksdb::EnvOptions* env_options) {
  *options = db_options;
  const auto* table = db_options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  rocksdb::BlockBasedTableOptions t = table != nullptr ? *table : rocksdb::BlockBasedTableOptions();
  // The key and block trailer too; chunks over 64 MiB (--max-chunk-bytes allows 1 GiB) grow their
  // block as before rather than have every block reserve that much.
  t.block_size = std::min<size_t>(store.max_chunk_bytes, 64u << 20) + kChunkHeaderSize + 4096;
  t.flush_block_policy_factory = std::make_shared<BlockPerEntryPolicyFactory>();
  options->table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  *env_options = rocksdb::EnvOptions(*options);
  env_options->writable_file_max_buffer_size = 64u << 10;
}

// The summary entry of a chunk of `count` messages and `bytes` stored bytes, or none (empty) when the
// summarizer gave none or the chunk keeps none (SummaryWorthStoring).
std::string SummaryEntryFor(uint32_t count, uint32_t bytes, std::string_view summary) {
  if (summary.empty() || !SummaryWorthStoring(summary.size(), bytes)) return std::string();
  return EncodeSummaryEntry(count, bytes, summary);
}

// A chunk's terms, when it keeps a summary and its summarizer vouches that they are complete: a chunk
// read anyway (no summary) would only pay for keys no reader consults.
bool ChunkTermsFor(bool has_summary, ChunkSummarizer* summarizer, std::vector<uint64_t>* terms) {
  terms->clear();
  return has_summary && summarizer->FinishTerms(terms);
}

// Cuts one stream's consecutive messages into chunks (at most max_chunk_messages records and
// max_chunk_bytes of payload each) and hands each finished chunk to emit(meta, value, summary entry,
// term entries), the entry empty when the chunk has no summary, the term entries null when its terms
// are not complete (the meta says which partitions they fill). Shared by the group commit (chunks into a
// WriteBatch) and the bulk path (chunks into table files).
class ChunkCutter {
 public:
  // `compression`: how the chunks it cuts store their records.
  ChunkCutter(const StoreOptions& options, ChunkBuilder* builder, ChunkSummarizer* summarizer, uint64_t next_offset,
              int64_t timestamp_ms, const ChunkCompression& compression)
      : options_(options),
        builder_(builder),
        summarizer_(summarizer),
        next_(next_offset),
        timestamp_(timestamp_ms),
        zstd_level_(compression.level),
        compress_(compression.codec == ChunkCompression::Codec::kZstd) {}

  // True when a chunk of `count` records and `payload` bytes must be closed before a message of
  // `size` bytes (every record of one cut shares its timestamp: a delta of 0).
  static bool MustClose(const StoreOptions& options, uint32_t count, size_t payload, size_t size) {
    return count >= options.max_chunk_messages || payload + ChunkBuilder::RecordSize(0, size) > options.max_chunk_bytes;
  }

  // The chunks a cut of `messages` makes, from their sizes alone: [begin, end) message ranges and each
  // chunk's stored bytes, exactly as Add() and Close() will cut them.
  using Range = ChunkRange;
  static std::vector<Range> Ranges(const StoreOptions& options, std::span<const std::string_view> messages) {
    std::vector<Range> ranges;
    size_t payload = 0;
    for (size_t i = 0; i < messages.size(); ++i) {
      if (!ranges.empty() &&
          MustClose(options, static_cast<uint32_t>(i - ranges.back().begin), payload, messages[i].size())) {
        ranges.back().end = i;
        ranges.back().bytes = static_cast<uint32_t>(kChunkHeaderSize + payload);
      }
      if (ranges.empty() || ranges.back().end != 0) {
        ranges.push_back(Range{i, 0, 0});
        payload = 0;
      }
      payload += ChunkBuilder::RecordSize(0, messages[i].size());
    }
    if (!ranges.empty()) {
      ranges.back().end = messages.size();
      ranges.back().bytes = static_cast<uint32_t>(kChunkHeaderSize + payload);
    }
    return ranges;
  }

  template <typename Emit>
  void Add(std::string_view message, Emit&& emit) {
    if (open_ && MustClose(options_, builder_->count(), builder_->payload_bytes(), message.size())) Close(emit);
    if (!open_) {
      builder_->Reset(next_, timestamp_);
      if (summarizer_ != nullptr) summarizer_->Reset();
      open_ = true;
    }
    builder_->Add(timestamp_, message);
    if (summarizer_ != nullptr) summarizer_->Add(message);
    ++next_;
  }

  template <typename Emit>
  void Close(Emit&& emit) {
    if (!open_) return;
    const std::string_view value = builder_->Finish(compress_ ? &zstd_level_ : nullptr);
    ChunkMeta m{
        next_ - builder_->count(), builder_->count(), static_cast<uint32_t>(value.size()), timestamp_, timestamp_,
        builder_->raw_bytes()};
    summary_entry_.clear();
    const ChunkTermEntries* terms = nullptr;
    if (summarizer_ != nullptr) {
      summarizer_->Finish(&summary_);
      summary_entry_ = SummaryEntryFor(m.count, m.raw_bytes, summary_);
      if (ChunkTermsFor(!summary_entry_.empty(), summarizer_, &terms_)) {
        term_entries_.Build(terms_);
        m.term_partitions = term_entries_.partitions();
        m.terms_complete = true;
        terms = &term_entries_;
      }
    }
    emit(m, value, std::string_view(summary_entry_), terms);
    open_ = false;
  }

  // The offset the next message would get.
  uint64_t next() const { return next_; }

 private:
  const StoreOptions& options_;
  ChunkBuilder* builder_;
  ChunkSummarizer* summarizer_;
  std::string summary_, summary_entry_;
  std::vector<uint64_t> terms_;
  ChunkTermEntries term_entries_;
  uint64_t next_;
  int64_t timestamp_;
  const int zstd_level_;
  const bool compress_;
  bool open_ = false;
};

std::string EncodeStreamRecordFields(uint32_t id, const RetentionPolicy& retention, uint64_t floor,
                                     const ChunkCompression& compression) {
  return EncodeStreamRecord(StreamRecord{id, retention, floor, compression});
}

Status ValidateOptions(const StoreOptions& o) {
  if (o.max_chunk_messages == 0) return Status::InvalidArgument("options: max_chunk_messages must be > 0");
  if (o.max_chunk_bytes == 0) return Status::InvalidArgument("options: max_chunk_bytes must be > 0");
  if (o.max_message_bytes == 0) return Status::InvalidArgument("options: max_message_bytes must be > 0");
  // A chunk value (header + records) must stay below 4 GiB: its sizes are u32.
  if (uint64_t{o.max_message_bytes} + o.max_chunk_bytes + 64 > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument("options: max_message_bytes + max_chunk_bytes must stay below 4 GiB");
  }
  if (o.linger.count() < 0) return Status::InvalidArgument("options: linger must not be negative");
  if (o.compression.level < kMinZstdLevel || o.compression.level > kMaxZstdLevel) {
    return Status::InvalidArgument(
        fmt::format("options: compression level must be within {}..{}", kMinZstdLevel, kMaxZstdLevel));
  }
  if (o.deferred_sync && o.sync) return Status::InvalidArgument("options: deferred_sync needs sync off");
  if (o.write_buffer_bytes < (1u << 16))
    return Status::InvalidArgument("options: write_buffer_bytes must be >= 64 KiB");
  return Status::OK();
}

}  // namespace

// A name is a label in metrics, a log line, an AMQP address and a file of permissions: text that
// every one of them carries unchanged, so UTF-8 without control characters (C0, DEL, C1).
Status ValidateStreamName(std::string_view name) {
  if (name.empty() || name.size() > kMaxStreamNameBytes) {
    return Status::InvalidArgument(
        fmt::format("stream name must be 1..{} bytes, got {} bytes", kMaxStreamNameBytes, name.size()));
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(name.data());
  for (size_t i = 0; i < name.size();) {
    size_t valid_prefix = 0;
    const size_t len = base::CheckUtf8Sequence(bytes + i, name.size() - i, &valid_prefix);
    if (len == 0) {
      const size_t at = i + valid_prefix;
      if (at == name.size()) {
        return Status::InvalidArgument(
            fmt::format("stream name is not UTF-8: it ends inside the sequence at byte {}", i));
      }
      return Status::InvalidArgument(
          fmt::format("stream name is not UTF-8: byte 0x{:02x} at byte {}", static_cast<unsigned>(bytes[at]), at));
    }
    uint32_t cp = 0;
    base::DecodeValidUtf8(bytes + i, &cp);
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
      return Status::InvalidArgument(fmt::format("stream name has a control character (U+{:04X}) at byte {}", cp, i));
    }
    i += len;
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------------
// Opening and recovery

Status StreamStore::Impl::FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  std::string msg = fmt::format("{}: {}", what, s.ToString());
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  if (s.IsNotSupported()) return Status::NotSupported(msg);
  if (s.IsIOError() && msg.find("lock") != std::string::npos) return Status::Busy(msg);
  return Status::IOError(msg);
}

StreamStore::Impl::~Impl() {
  if (db_ != nullptr) {
    rocksdb::Status s = db_->Close();
    (void)s;  // nothing more to do on close failure: the WAL already holds every acknowledged append
  }
}

Status StreamStore::Impl::OpenDb() {
  rocksdb::Options o;
  o.create_if_missing = options_.create_if_missing;
  o.paranoid_checks = true;
  if (options_.env != nullptr) o.env = options_.env.get();
  // RocksDB resumes by itself from retryable I/O errors, retrying at this interval; the store's own
  // recovery (durability.cc) waits for it. The default of 1 s would keep appends refused that long
  // after the device is back.
  o.bgerror_resume_retry_interval = 100'000;  // microseconds
  if (!options_.read_only) o.listeners.push_back(NewBackgroundErrorListener());
  o.write_buffer_size = options_.write_buffer_bytes;
  o.max_background_jobs = 2;
  // Chunks are opaque encoded messages, often already compact; the scan measurements in
  // docs/store-format.md show no compression scanning fastest (no decompression copy per block).
  o.compression = rocksdb::kNoCompression;
  o.keep_log_file_num = 4;
  // Chunks are read in key order, each a block of up to max_chunk_bytes, and a scan reads them one
  // after another: RocksDB's default advice of random access on every table file it opens turns off
  // the kernel's read-ahead, and a cold scan then read its chunks a page or a chunk at a time, far
  // under the disk's sequential rate. With the default advice the kernel reads ahead of the scan
  // (docs/store-format.md, "Reading from disk"; bench/DECISIONS.md, "Cold reads").
  o.advise_random_on_open = false;
  if (!options_.read_only) {
    // RocksDB's own info log aborts the process on the line after a failed write when it is built with
    // assertions (info_log.h). A read-only open writes no log.
    if (options_.create_if_missing) {
      std::error_code ec;
      std::filesystem::create_directories(path_, ec);  // a failure is DB::Open's to report
    }
    o.info_log = NewStoreInfoLog(path_, /*keep_old=*/3, /*max_bytes=*/64ull << 20);
  }
  if (options_.read_only) {
    // A read-only open serves one short command: open table files when a read reaches them rather
    // than all of them up front (a selective replay of a long stream touches few of them). With a
    // bounded table cache RocksDB loads at most 16 at open.
    o.max_open_files = 4096;
    // At open RocksDB loads those on 16 threads of their own and reads the properties of up to 20
    // more for compaction statistics a read-only open never uses. The threads cost more than the
    // loads they share (bench/DECISIONS.md, "Cold reads").
    o.max_file_opening_threads = 1;
    o.skip_stats_update_on_db_open = true;
    // Table files are read with read calls, not through mappings (allow_mmap_reads): a mapped scan
    // spends its time in page faults, and from a cold disk each chunk a selective query reads faulted
    // in a whole read-around window (docs/store-format.md, "Reading from disk"; bench/DECISIONS.md,
    // "Block cache, and table files read rather than mapped").
  }
  rocksdb::BlockBasedTableOptions t;
  // A chunk fills a block of its own (up to max_chunk_bytes). RocksDB's default sharding (up to 64
  // shards) would leave a 256 MiB cache with 4 MiB shards that hold only four 1 MiB chunks each, and
  // an unlucky hash spread evicts chunks long before the cache is full: keep every shard able to hold
  // at least 32 of the largest chunks.
  int shard_bits = 0;
  while (shard_bits < 4 && (options_.block_cache_bytes >> (shard_bits + 1)) >= 32ull * options_.max_chunk_bytes)
    ++shard_bits;
  cache_ = rocksdb::NewLRUCache(options_.block_cache_bytes, shard_bits);
  t.block_cache = cache_;
  // A chunk value (up to max_chunk_bytes) always fills a block of its own; the block size only shapes
  // the blocks of index entries and stream records, which are small and read together.
  t.block_size = 16 * 1024;
  t.cache_index_and_filter_blocks = false;
  t.format_version = 5;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = options_.read_only
                          ? rocksdb::DB::OpenForReadOnly(o, path_, &db, /*error_if_wal_file_exists=*/false)
                          : rocksdb::DB::Open(o, path_, &db);
  if (!s.ok()) return FromRocks(s, fmt::format("open store '{}'", path_));
  db_.reset(db);
  return Status::OK();
}

Status StreamStore::Impl::Recover() {
  const rocksdb::ReadOptions ro;
  std::string value;
  rocksdb::Status s = db_->Get(ro, keys::kStoreKey, &value);
  if (s.IsNotFound() && options_.read_only) {
    // A store that never held a stream (its record is written with the first write): nothing to read.
  } else if (s.IsNotFound()) {
    rocksdb::WriteOptions wo = WriteOpts();
    s = db_->Put(wo, keys::kStoreKey, EncodeStoreRecord(next_stream_id_));
    if (!s.ok()) return FromRocks(s, fmt::format("store '{}': write store record", path_));
  } else if (!s.ok()) {
    return FromRocks(s, fmt::format("store '{}': read store record", path_));
  } else {
    StoreRecord record;
    if (!DecodeStoreRecord(value, &record)) {
      return Status::Corruption(
          fmt::format("store '{}': store record has {} bytes, want {}", path_, value.size(), kStoreRecordSize));
    }
    if (record.version < 1 || record.version > kStoreFormatVersion) {
      return Status::NotSupported(fmt::format("store '{}': format version {} (this build reads 1 to {})", path_,
                                              record.version, kStoreFormatVersion));
    }
    next_stream_id_ = record.next_stream_id;
    if (record.version != kStoreFormatVersion && !options_.read_only) {
      // What this build writes (index entries, stream records) is version 3: say so before writing any.
      s = db_->Put(WriteOpts(), keys::kStoreKey, EncodeStoreRecord(next_stream_id_));
      if (!s.ok()) return FromRocks(s, fmt::format("store '{}': upgrade the store record", path_));
    }
  }

  const std::string stream_begin(1, keys::kStreamPrefix);
  const std::string stream_end(1, keys::kStreamPrefix + 1);
  rocksdb::Slice lower(stream_begin), upper(stream_end);
  rocksdb::ReadOptions sro;
  sro.iterate_lower_bound = &lower;
  sro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(sro));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    auto st = std::make_shared<StreamState>();
    st->name = it->key().ToString().substr(1);
    StreamRecord record;
    if (!DecodeStreamRecord(std::string_view(it->value().data(), it->value().size()), &record)) {
      return Status::Corruption(fmt::format("store '{}': stream '{}': damaged stream record", path_, st->name));
    }
    st->id = record.id;
    st->retention = record.retention;
    st->floor = record.floor;
    st->compression = record.compression;
    streams_.emplace(st->name, st);
    next_stream_id_ = std::max(next_stream_id_, st->id + 1);
  }
  if (!it->status().ok()) return FromRocks(it->status(), fmt::format("store '{}': read stream records", path_));
  it.reset();

  for (auto& [name, st] : streams_) {
    // The chunk index: one small entry per chunk.
    const std::string ib = keys::StreamBegin(keys::kIndexPrefix, st->id);
    const std::string ie = keys::StreamEnd(keys::kIndexPrefix, st->id);
    rocksdb::Slice il(ib), iu(ie);
    rocksdb::ReadOptions iro;
    iro.iterate_lower_bound = &il;
    iro.iterate_upper_bound = &iu;
    std::unique_ptr<rocksdb::Iterator> ii(db_->NewIterator(iro));
    uint64_t index_end = 0;
    for (ii->SeekToFirst(); ii->Valid(); ii->Next()) {
      uint64_t first = 0;
      ChunkMeta m;
      if (!keys::ParseOffsetKey(std::string_view(ii->key().data(), ii->key().size()), keys::kIndexPrefix, st->id,
                                &first) ||
          !DecodeIndexEntry(std::string_view(ii->value().data(), ii->value().size()), first, &m) || first < index_end) {
        return Status::Corruption(
            fmt::format("store '{}': stream '{}': damaged chunk index entry near offset {}", path_, name, index_end));
      }
      st->chunks.push_back(m);
      st->bytes += m.bytes;
      st->raw_bytes += m.raw_bytes;
      index_end = m.first_offset + m.count;
    }
    if (!ii->status().ok())
      return FromRocks(ii->status(), fmt::format("store '{}': stream '{}': read chunk index", path_, name));

    // The recovery rule: next offset = last chunk's first offset + count (never below the floor).
    uint64_t chunk_end = 0;
    const std::string cb = keys::StreamBegin(keys::kChunkPrefix, st->id);
    const std::string ce = keys::StreamEnd(keys::kChunkPrefix, st->id);
    rocksdb::Slice cl(cb), cu(ce);
    rocksdb::ReadOptions cro;
    cro.iterate_lower_bound = &cl;
    cro.iterate_upper_bound = &cu;
    cro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> ci(db_->NewIterator(cro));
    // Only a chunk past the index needs reading (its 1 MiB block): a seek there finds none from the
    // table files' key ranges alone, the common case.
    ci->Seek(keys::ChunkKey(st->id, index_end));
    if (ci->Valid()) ci->SeekToLast();
    if (ci->Valid()) {
      uint64_t first = 0;
      ChunkHeader h;
      const char* why = nullptr;
      if (keys::ParseOffsetKey(std::string_view(ci->key().data(), ci->key().size()), keys::kChunkPrefix, st->id,
                               &first) &&
          DecodeChunk(std::string_view(ci->value().data(), ci->value().size()), /*verify_payload=*/true, &h, &why) &&
          h.first_offset == first) {
        chunk_end = first + h.count;
        if (first >= index_end) {
          // A chunk without index entry (not written by this version): index it from its header.
          const uint32_t raw = static_cast<uint32_t>(kChunkHeaderSize + h.payload_bytes);
          st->chunks.push_back(ChunkMeta{first, h.count, static_cast<uint32_t>(ci->value().size()),
                                         h.first_timestamp_ms, h.last_timestamp_ms, raw});
          st->bytes += ci->value().size();
          st->raw_bytes += raw;
        }
      }
      // A damaged last chunk is reported when read; its index entry still gives the next offset.
    } else if (!ci->status().ok()) {
      return FromRocks(ci->status(), fmt::format("store '{}': stream '{}': read last chunk", path_, name));
    }
    st->next_offset.store(std::max({st->floor, index_end, chunk_end}));
    st->durable_end.store(st->next_offset.load());
    if (!st->chunks.empty()) st->last_timestamp_ms = st->chunks.back().last_timestamp_ms;
  }
  return Status::OK();
}

Status StreamStore::Open(const std::string& path, const StoreOptions& options, std::unique_ptr<StreamStore>* store) {
  if (Status s = ValidateOptions(options); !s.ok()) return s;
  if (path.empty()) return Status::InvalidArgument("store path is empty");
  if (options.create_if_missing && !options.read_only) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return Status::IOError(fmt::format("create store folder '{}': {}", path, ec.message()));
  }
  if (options.read_only) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) {
      return Status::InvalidArgument(fmt::format("open store '{}': the folder holds no store", path));
    }
  }
  auto impl = std::make_unique<Impl>(path, options);
  if (Status s = impl->OpenDb(); !s.ok()) return s;
  if (!options.read_only) {
    // Table files of a bulk append that a crash interrupted before they were ingested: never part of
    // the store (ingestion is atomic), so they go. The store's lock is held from here on.
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(path) / Impl::kIngestDir, ec);
  }
  if (Status s = impl->Recover(); !s.ok()) return s;
  store->reset(new StreamStore(std::move(impl)));
  return Status::OK();
}

StreamStore::StreamStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamStore::~StreamStore() = default;

const std::string& StreamStore::path() const { return impl_->path(); }

// ---------------------------------------------------------------------------------------------------
// Streams

int64_t StreamStore::Impl::Now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

rocksdb::WriteOptions StreamStore::Impl::WriteOpts() const {
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  return wo;
}

std::string StreamStore::Impl::EncodeStreamRecord(const StreamState& stream) const {
  return EncodeStreamRecordFields(stream.id, stream.retention, stream.floor, stream.compression);
}

std::shared_ptr<StreamState> StreamStore::Impl::FindStream(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(name);
  return it == streams_.end() ? nullptr : it->second;
}

Status StreamStore::Impl::Writable() const {
  if (!options_.read_only) return Status::OK();
  return Status::NotSupported(fmt::format("store '{}' is open for reading only", path_));
}

Status StreamStore::Impl::CreateStream(std::string_view name, const StreamOptions& options) {
  if (Status s = ValidateStreamName(name); !s.ok()) return s;
  if (options.retention.max_age.count() < 0)
    return Status::InvalidArgument(fmt::format("stream '{}': the maximum age must not be negative", name));
  std::lock_guard<std::mutex> wlock(write_mu_);
  if (!RecoverIfFailed().ok()) return FencedError("");
  uint32_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (streams_.find(name) != streams_.end())
      return Status::AlreadyExists(fmt::format("stream '{}' already exists", name));
    id = next_stream_id_;
  }
  if (id == std::numeric_limits<uint32_t>::max())
    return Status::InvalidArgument("no stream ids left (2^32 - 1 streams created)");
  auto st = std::make_shared<StreamState>();
  st->id = id;
  st->name = std::string(name);
  st->retention = options.retention;
  st->compression = options.compression.value_or(options_.compression);
  rocksdb::WriteBatch batch;
  batch.Put(keys::StreamKey(name), EncodeStreamRecord(*st));
  batch.Put(keys::kStoreKey, EncodeStoreRecord(id + 1));
  rocksdb::Status s = db_->Write(WriteOpts(), &batch);
  if (!s.ok()) return FromRocks(s, fmt::format("create stream '{}'", name));
  std::lock_guard<std::mutex> lock(mu_);
  streams_.emplace(st->name, st);
  next_stream_id_ = id + 1;
  return Status::OK();
}

Status StreamStore::Impl::DeleteStream(std::string_view name) {
  std::lock_guard<std::mutex> wlock(write_mu_);
  if (!RecoverIfFailed().ok()) return FencedError(name);
  std::shared_ptr<StreamState> st = FindStream(name);
  if (st == nullptr) return Status::NotFound(fmt::format("stream '{}' not found", name));
  rocksdb::WriteBatch batch;
  batch.Delete(keys::StreamKey(name));
  batch.DeleteRange(keys::StreamBegin(keys::kChunkPrefix, st->id), keys::StreamEnd(keys::kChunkPrefix, st->id));
  batch.DeleteRange(keys::StreamBegin(keys::kIndexPrefix, st->id), keys::StreamEnd(keys::kIndexPrefix, st->id));
  batch.DeleteRange(keys::StreamBegin(keys::kSummaryPrefix, st->id), keys::StreamEnd(keys::kSummaryPrefix, st->id));
  batch.DeleteRange(keys::StreamBegin(keys::kTermPrefix, st->id), keys::StreamEnd(keys::kTermPrefix, st->id));
  rocksdb::Status s = db_->Write(WriteOpts(), &batch);
  if (!s.ok()) return FromRocks(s, fmt::format("delete stream '{}'", name));
  std::lock_guard<std::mutex> lock(mu_);
  streams_.erase(streams_.find(name));
  st->deleted.store(true);
  appended_cv_.notify_all();
  return Status::OK();
}

Status StreamStore::Impl::ListStreams(std::vector<std::string>* names) const {
  std::lock_guard<std::mutex> lock(mu_);
  names->clear();
  for (const auto& [name, st] : streams_) names->push_back(name);
  return Status::OK();
}

Status StreamStore::Impl::GetStreamInfo(std::string_view name, StreamInfo* info) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(name);
  if (it == streams_.end()) return Status::NotFound(fmt::format("stream '{}' not found", name));
  const StreamState& st = *it->second;
  info->name = st.name;
  info->next_offset = st.durable_end.load();
  info->first_offset = std::min(st.first_offset(), info->next_offset);
  info->message_count = info->next_offset - info->first_offset;
  info->chunk_count = st.chunks.size();
  info->bytes = st.bytes;
  info->raw_bytes = st.raw_bytes;
  info->compression = st.compression;
  info->first_timestamp_ms = st.chunks.empty() ? 0 : st.chunks.front().first_timestamp_ms;
  info->last_timestamp_ms = st.chunks.empty() ? 0 : st.chunks.back().last_timestamp_ms;
  info->retention = st.retention;
  return Status::OK();
}

void StreamStore::Impl::StreamBounds(const StreamState& stream, uint64_t* first, uint64_t* next) const {
  std::lock_guard<std::mutex> lock(mu_);
  *next = stream.durable_end.load();
  *first = std::min(stream.first_offset(), *next);
}

bool StreamStore::Impl::ChunkForTimestamp(const StreamState& stream, int64_t timestamp_ms,
                                          uint64_t* first_offset) const {
  std::lock_guard<std::mutex> lock(mu_);
  // Last timestamps are non-decreasing along the stream: binary search.
  auto it = std::partition_point(stream.chunks.begin(), stream.chunks.end(),
                                 [&](const ChunkMeta& m) { return m.last_timestamp_ms < timestamp_ms; });
  if (it == stream.chunks.end()) return false;
  *first_offset = it->first_offset;
  return true;
}

bool StreamStore::Impl::ChunkFrom(const StreamState& stream, uint64_t offset, ChunkMeta* meta) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::partition_point(stream.chunks.begin(), stream.chunks.end(),
                                 [&](const ChunkMeta& m) { return m.first_offset + m.count <= offset; });
  if (it == stream.chunks.end()) return false;
  *meta = *it;
  return true;
}

bool StreamStore::Impl::ChunkHolding(const StreamState& stream, uint64_t offset, uint64_t* first_offset) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::partition_point(stream.chunks.begin(), stream.chunks.end(),
                                 [&](const ChunkMeta& m) { return m.first_offset + m.count <= offset; });
  if (it == stream.chunks.end() || it->first_offset > offset) return false;
  *first_offset = it->first_offset;
  return true;
}

Status StreamStore::Impl::SetRetention(std::string_view name, const RetentionPolicy& retention) {
  if (retention.max_age.count() < 0)
    return Status::InvalidArgument(fmt::format("stream '{}': the maximum age must not be negative", name));
  std::lock_guard<std::mutex> wlock(write_mu_);
  if (!RecoverIfFailed().ok()) return FencedError(name);
  std::shared_ptr<StreamState> st = FindStream(name);
  if (st == nullptr) return Status::NotFound(fmt::format("stream '{}' not found", name));
  rocksdb::Status s = db_->Put(WriteOpts(), keys::StreamKey(name),
                               EncodeStreamRecordFields(st->id, retention, st->floor, st->compression));
  if (!s.ok()) return FromRocks(s, fmt::format("stream '{}': set retention", name));
  {
    std::lock_guard<std::mutex> lock(mu_);
    st->retention = retention;
  }
  return ApplyRetention(st, Now());
}

Status StreamStore::Impl::SetCompression(std::string_view name, const ChunkCompression& compression) {
  if (compression.level < kMinZstdLevel || compression.level > kMaxZstdLevel) {
    return Status::InvalidArgument(fmt::format("stream '{}': zstd level {} is not within {}..{}", name,
                                               compression.level, kMinZstdLevel, kMaxZstdLevel));
  }
  std::lock_guard<std::mutex> wlock(write_mu_);  // no chunk is being cut meanwhile
  if (!RecoverIfFailed().ok()) return FencedError(name);
  std::shared_ptr<StreamState> st = FindStream(name);
  if (st == nullptr) return Status::NotFound(fmt::format("stream '{}' not found", name));
  if (st->compression == compression) return Status::OK();
  rocksdb::Status s = db_->Put(WriteOpts(), keys::StreamKey(name),
                               EncodeStreamRecordFields(st->id, st->retention, st->floor, compression));
  if (!s.ok()) return FromRocks(s, fmt::format("stream '{}': set compression", name));
  std::lock_guard<std::mutex> lock(mu_);
  st->compression = compression;
  return Status::OK();
}

Status StreamStore::Impl::ApplyRetention(const std::shared_ptr<StreamState>& st, int64_t now_ms) {
  size_t n;
  uint64_t first, new_floor, freed = 0, freed_raw = 0;
  RetentionPolicy retention;
  ChunkCompression compression;
  bool failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    n = ChunksToDelete(st->chunks, st->bytes, st->retention, now_ms);
    if (n == 0 || st->deleted.load()) return Status::OK();
    failed = failed_;  // a write after a failed one may abort RocksDB (durability.cc): none until recovery
    first = st->chunks.front().first_offset;
    new_floor = n < st->chunks.size() ? st->chunks[n].first_offset : st->next_offset.load();
    for (size_t i = 0; i < n; ++i) {
      freed += st->chunks[i].bytes;
      freed_raw += st->chunks[i].raw_bytes;
    }
    retention = st->retention;
    compression = st->compression;
  }
  if (failed) return FencedError(st->name);
  rocksdb::WriteBatch batch;
  batch.DeleteRange(keys::ChunkKey(st->id, first), keys::ChunkKey(st->id, new_floor));
  batch.DeleteRange(keys::IndexKey(st->id, first), keys::IndexKey(st->id, new_floor));
  batch.DeleteRange(keys::SummaryKey(st->id, first), keys::SummaryKey(st->id, new_floor));
  DeleteTermEntries(&batch, st->id, first, new_floor);
  batch.Put(keys::StreamKey(st->name), EncodeStreamRecordFields(st->id, retention, new_floor, compression));
  rocksdb::Status s = db_->Write(WriteOpts(), &batch);
  if (!s.ok()) {
    return FromRocks(s, fmt::format("stream '{}': retention delete of offsets {}..{}", st->name, first, new_floor - 1));
  }
  std::lock_guard<std::mutex> lock(mu_);
  st->chunks.erase(st->chunks.begin(), st->chunks.begin() + static_cast<std::ptrdiff_t>(n));
  st->bytes -= freed;
  st->raw_bytes -= freed_raw;
  st->floor = new_floor;
  return Status::OK();
}

Status StreamStore::Impl::EnforceRetention() {
  std::lock_guard<std::mutex> wlock(write_mu_);
  // The periodic call is also when a failed store recovers if nobody appends (durability.cc).
  if (!RecoverIfFailed().ok()) return FencedError("");
  std::vector<std::shared_ptr<StreamState>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, st] : streams_) all.push_back(st);
  }
  const int64_t now = Now();
  Status first_error;
  for (const auto& st : all) {
    Status s = ApplyRetention(st, now);
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  return first_error;
}

// ---------------------------------------------------------------------------------------------------
// Chunk summaries

Status StreamStore::Impl::ListChunks(std::string_view name, std::vector<ChunkInfo>* chunks) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(name);
  if (it == streams_.end()) return Status::NotFound(fmt::format("stream '{}' not found", name));
  chunks->clear();
  chunks->reserve(it->second->chunks.size());
  for (const ChunkMeta& m : it->second->chunks) {
    chunks->push_back(
        ChunkInfo{m.first_offset, m.count, m.first_timestamp_ms, m.last_timestamp_ms, m.bytes, m.terms_complete});
  }
  return Status::OK();
}

Status StreamStore::Impl::GetChunkSummary(std::string_view name, uint64_t first_offset, std::string* summary) const {
  std::shared_ptr<StreamState> st = FindStream(name);
  if (st == nullptr) return Status::NotFound(fmt::format("stream '{}' not found", name));
  std::string entry;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), keys::SummaryKey(st->id, first_offset), &entry);
  if (s.IsNotFound()) {
    return Status::NotFound(fmt::format("stream '{}': no summary for a chunk at offset {}", name, first_offset));
  }
  if (!s.ok())
    return FromRocks(s, fmt::format("stream '{}': read the summary of the chunk at offset {}", name, first_offset));
  uint32_t count, bytes;
  std::string_view body;
  if (!DecodeSummaryEntry(entry, &count, &bytes, &body)) {
    return Status::Corruption(
        fmt::format("stream '{}': the summary of the chunk at offset {} is damaged", name, first_offset));
  }
  summary->assign(body);
  return Status::OK();
}

Status StreamStore::Impl::PutChunkSummary(std::string_view name, uint64_t first_offset, std::string_view summary,
                                          const std::vector<uint64_t>* terms) {
  // write_mu_: retention cannot delete the chunk between the check and the write.
  std::lock_guard<std::mutex> wlock(write_mu_);
  if (!RecoverIfFailed().ok()) return FencedError(name);
  std::shared_ptr<StreamState> st = FindStream(name);
  if (st == nullptr) return Status::NotFound(fmt::format("stream '{}' not found", name));
  ChunkMeta meta;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::lower_bound(st->chunks.begin(), st->chunks.end(), first_offset,
                               [](const ChunkMeta& m, uint64_t offset) { return m.first_offset < offset; });
    if (it == st->chunks.end() || it->first_offset != first_offset) {
      return Status::NotFound(fmt::format("stream '{}': no chunk starts at offset {}", name, first_offset));
    }
    meta = *it;
  }
  // The summary, the term entries and the index entry that says which there are, in one atomic write.
  rocksdb::WriteBatch batch;
  batch.Put(keys::SummaryKey(st->id, first_offset), EncodeSummaryEntry(meta.count, meta.raw_bytes, summary));
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (meta.term_partitions & (uint64_t{1} << p)) batch.Delete(keys::TermKey(st->id, p, first_offset));
  }
  meta.term_partitions = 0;
  meta.terms_complete = false;
  if (terms != nullptr) {
    ChunkTermEntries entries;
    entries.Build(*terms);
    PutTermEntries(st->id, first_offset, entries, [&](const std::string& key, std::string_view entry) {
      batch.Put(key, rocksdb::Slice(entry.data(), entry.size()));
    });
    meta.term_partitions = entries.partitions();
    meta.terms_complete = true;
  }
  batch.Put(keys::IndexKey(st->id, first_offset), EncodeIndexEntry(meta));
  rocksdb::WriteOptions w;
  w.sync = true;
  rocksdb::Status s = db_->Write(w, &batch);
  if (!s.ok())
    return FromRocks(s, fmt::format("stream '{}': write the summary of the chunk at offset {}", name, first_offset));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::lower_bound(st->chunks.begin(), st->chunks.end(), first_offset,
                             [](const ChunkMeta& m, uint64_t offset) { return m.first_offset < offset; });
  if (it != st->chunks.end() && it->first_offset == first_offset) {
    it->term_partitions = meta.term_partitions;
    it->terms_complete = meta.terms_complete;
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------------
// Appends (group commit)

Status StreamStore::Impl::CheckBatch(std::string_view stream, std::span<const std::string_view> messages,
                                     size_t* total_bytes) const {
  size_t bytes = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string_view m = messages[i];
    if (m.size() > options_.max_message_bytes) {
      return Status::InvalidArgument(
          fmt::format("stream '{}': message {} of {}: {} bytes exceeds the maximum message size of {} bytes", stream, i,
                      messages.size(), m.size(), options_.max_message_bytes));
    }
    if (options_.validator) {
      Status v = options_.validator(m);
      if (!v.ok()) {
        return Status::InvalidArgument(fmt::format("stream '{}': message {} of {} refused, nothing stored: {}", stream,
                                                   i, messages.size(), v.why()));
      }
    }
    bytes += m.size();
  }
  *total_bytes = bytes;
  return Status::OK();
}

Status StreamStore::Impl::AppendBatch(std::string_view stream, std::span<const std::string_view> messages,
                                      uint64_t* first_offset) {
  size_t bytes = 0;
  if (Status s = CheckBatch(stream, messages, &bytes); !s.ok()) return s;
  Writer w;
  w.messages = messages;
  w.bytes = bytes;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return Status::NotFound(fmt::format("stream '{}' not found", stream));
  w.stream = it->second;
  if (messages.empty()) {
    if (first_offset != nullptr) *first_offset = w.stream->next_offset.load();
    return Status::OK();
  }
  writers_.push_back(&w);
  queued_messages_ += messages.size();
  queued_bytes_ += bytes;
  if (writers_.front() != &w) writers_.front()->cv.notify_one();  // a lingering leader may be full now
  w.cv.wait(lock, [&] { return w.done || writers_.front() == &w; });
  if (!w.done) LeadGroup(&w, lock);
  if (w.status.ok() && first_offset != nullptr) *first_offset = w.first_offset;
  return w.status;
}

void StreamStore::Impl::LeadGroup(Writer* self, std::unique_lock<std::mutex>& lock) {
  if (options_.linger.count() > 0) {
    const auto deadline = std::chrono::steady_clock::now() + options_.linger;
    self->cv.wait_until(lock, deadline, [&] {
      return flush_requested_ || queued_messages_ >= options_.max_chunk_messages ||
             queued_bytes_ >= options_.max_chunk_bytes;
    });
  }
  flush_requested_ = false;
  lock.unlock();
  std::unique_lock<std::mutex> wlock(write_mu_);
  lock.lock();
  std::vector<Writer*> group;
  size_t group_bytes = 0;
  for (Writer* w : writers_) {
    group.push_back(w);
    group_bytes += w->bytes;
    if (group_bytes >= kMaxGroupBytes) break;
  }
  lock.unlock();

  // Build the chunks of every stream in the group. Stream state changes only under write_mu_ (held).
  struct StreamGroup {
    std::shared_ptr<StreamState> stream;
    std::vector<Writer*> writers;
    uint64_t next = 0;
    int64_t timestamp = 0;
    std::vector<ChunkMeta> chunks;
    uint64_t bytes = 0;
    uint64_t raw_bytes = 0;
  };
  std::vector<StreamGroup> streams;
  // After a failed write nothing is appended until the store has recovered (durability.cc).
  const Status recovered = RecoverIfFailed();
  for (Writer* w : group) {
    if (w->stream->deleted.load()) {
      w->status = Status::NotFound(fmt::format("stream '{}' not found (deleted)", w->stream->name));
      continue;
    }
    if (!recovered.ok()) {
      w->status = FencedError(w->stream->name);
      continue;
    }
    auto sg = std::find_if(streams.begin(), streams.end(), [&](const StreamGroup& g) { return g.stream == w->stream; });
    if (sg == streams.end()) {
      streams.push_back(StreamGroup{w->stream, {}, 0, 0, {}, 0, 0});
      sg = streams.end() - 1;
    }
    sg->writers.push_back(w);
  }
  const int64_t now = Now();
  rocksdb::WriteBatch& batch = group_batch_;
  batch.Clear();
  if (options_.chunk_summarizer && group_summarizer_ == nullptr) group_summarizer_ = options_.chunk_summarizer();
  ChunkSummarizer* const summarizer = group_summarizer_.get();
  for (StreamGroup& sg : streams) {
    StreamState& st = *sg.stream;
    sg.timestamp = std::max(now, st.last_timestamp_ms);
    ChunkCutter cutter(options_, &group_builder_, summarizer, st.next_offset.load(), sg.timestamp, st.compression);
    auto emit = [&](const ChunkMeta& m, std::string_view value, std::string_view summary,
                    const ChunkTermEntries* terms) {
      batch.Put(keys::ChunkKey(st.id, m.first_offset), rocksdb::Slice(value.data(), value.size()));
      batch.Put(keys::IndexKey(st.id, m.first_offset), EncodeIndexEntry(m));
      if (!summary.empty())
        batch.Put(keys::SummaryKey(st.id, m.first_offset), rocksdb::Slice(summary.data(), summary.size()));
      if (terms != nullptr) {
        PutTermEntries(st.id, m.first_offset, *terms, [&](const std::string& key, std::string_view entry) {
          batch.Put(key, rocksdb::Slice(entry.data(), entry.size()));
        });
      }
      sg.chunks.push_back(m);
      sg.bytes += m.bytes;
      sg.raw_bytes += m.raw_bytes;
    };
    for (Writer* w : sg.writers) {
      w->first_offset = cutter.next();
      for (const std::string_view m : w->messages) cutter.Add(m, emit);
    }
    cutter.Close(emit);
    sg.next = cutter.next();
  }
  Status status;
  if (batch.Count() > 0) {
    rocksdb::Status s = db_->Write(WriteOpts(), &batch);
    if (!s.ok()) {
      std::string what = "append to";
      for (const StreamGroup& sg : streams)
        what +=
            fmt::format(" stream '{}' (offsets {}..{})", sg.stream->name, sg.stream->next_offset.load(), sg.next - 1);
      status = FromRocks(s, what);
    }
  }
  if (batch.GetDataSize() > kKeptGroupBatchBytes) batch = rocksdb::WriteBatch();

  lock.lock();
  if (status.ok()) {
    for (StreamGroup& sg : streams) {
      StreamState& st = *sg.stream;
      st.chunks.insert(st.chunks.end(), sg.chunks.begin(), sg.chunks.end());
      st.bytes += sg.bytes;
      st.raw_bytes += sg.raw_bytes;
      st.last_timestamp_ms = sg.timestamp;
      st.next_offset.store(sg.next);
      // Durable now (the write was synced), or never to be until a Flush with deferred_sync.
      if (!options_.deferred_sync) st.durable_end.store(sg.next);
    }
  } else {
    std::vector<std::shared_ptr<StreamState>> failed;
    for (StreamGroup& sg : streams) {
      failed.push_back(sg.stream);
      for (Writer* w : sg.writers) w->status = status;
    }
    EnterFailedState(failed, status);
  }
  for (Writer* w : group) {
    writers_.pop_front();
    queued_messages_ -= w->messages.size();
    queued_bytes_ -= w->bytes;
    w->done = true;
    if (w != self) w->cv.notify_one();
  }
  if (!writers_.empty()) writers_.front()->cv.notify_one();
  appended_cv_.notify_all();
  lock.unlock();

  // Byte and age limits, applied while write_mu_ is still held; appenders are already released.
  if (status.ok()) {
    for (StreamGroup& sg : streams) RetainAfterAppend(sg.stream, now);
  }
  wlock.unlock();
  lock.lock();
}

void StreamStore::Impl::RetainAfterAppend(const std::shared_ptr<StreamState>& stream, int64_t now_ms) {
  const RetentionPolicy& r = stream->retention;  // changes only under write_mu_
  if (r.max_bytes > 0 || r.max_age.count() > 0) {
    Status rs = ApplyRetention(stream, now_ms);
    (void)rs;  // a failed retention delete is retried after the next append or EnforceRetention()
  }
}

Status StreamStore::Impl::SummarizeRanges(std::span<const std::string_view> messages,
                                          std::span<const ChunkRange> ranges, std::vector<std::string>* prepared,
                                          const StreamStore::RangeCheck& check, base::SharedWork* share) const {
  prepared->assign(ranges.size(), std::string());
  const bool summarize = static_cast<bool>(options_.chunk_summarizer);
  if ((!summarize && !check) || ranges.empty()) return Status::OK();
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, ranges.size());
  // Each thread takes the next range not yet taken, so that a thread slowed down (by a writer sharing
  // its core) is not left with a fixed share while the others wait. The first range whose check failed,
  // and its status: ranges are taken in order and none below a failed one is given up, so the failure
  // reported is the first in message order.
  std::atomic<size_t> next{0};
  std::atomic<size_t> first_failed{SIZE_MAX};
  std::vector<Status> failures(ranges.size());
  const std::function<void()> work = [&] {
    const std::unique_ptr<ChunkSummarizer> summarizer = summarize ? options_.chunk_summarizer() : nullptr;
    std::string summary, summary_entry, term_entries;
    std::vector<uint64_t> terms;
    ChunkTermEntries entries;
    for (size_t k = next.fetch_add(1); k < ranges.size() && k < first_failed.load(); k = next.fetch_add(1)) {
      // With a check, the summarizer reads each message first and checks it if it can (AddChecked):
      // the caller's check then runs only for a range holding a message it did not vouch for.
      bool vouched = summarizer != nullptr;
      if (summarizer != nullptr) {
        summarizer->Reset();
        if (check) {
          for (size_t i = ranges[k].begin; i < ranges[k].end; ++i) {
            vouched = summarizer->AddChecked(messages[i]) && vouched;
          }
        } else {
          for (size_t i = ranges[k].begin; i < ranges[k].end; ++i) summarizer->Add(messages[i]);
        }
      }
      if (check && !vouched) {
        Status s = check(ranges[k].begin, ranges[k].end);
        if (!s.ok()) {
          failures[k] = std::move(s);
          size_t seen = first_failed.load();
          while (k < seen && !first_failed.compare_exchange_weak(seen, k)) {
          }
          return;
        }
      }
      if (summarizer == nullptr) continue;
      summarizer->Finish(&summary);
      summary_entry = SummaryEntryFor(static_cast<uint32_t>(ranges[k].end - ranges[k].begin), ranges[k].bytes, summary);
      if (summary_entry.empty()) continue;  // no summary: nothing prepared
      term_entries.clear();
      if (ChunkTermsFor(true, summarizer.get(), &terms)) {
        entries.Build(terms);
        entries.AppendTo(&term_entries);
      }
      (*prepared)[k] = EncodePreparedChunk(summary_entry, term_entries);
    }
  };
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      workers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the ones there are take every range
    }
  }
  if (share != nullptr) {
    share->Run(work);
  } else {
    work();
  }
  for (std::thread& t : workers) t.join();
  const size_t failed = first_failed.load();
  return failed == SIZE_MAX ? Status::OK() : failures[failed];
}

Status StreamStore::Impl::PrepareIngest(std::span<const std::string_view> messages, std::vector<std::string>* summaries,
                                        const StreamStore::RangeCheck& check, base::SharedWork* share) const {
  const std::vector<ChunkCutter::Range> ranges =
      options_.chunk_summarizer || check ? ChunkCutter::Ranges(options_, messages) : std::vector<ChunkCutter::Range>();
  Status s = SummarizeRanges(messages, ranges, summaries, check, share);
  if (share != nullptr) share->Close();  // when there was nothing to run
  return s;
}

namespace {

// The records of each range compressed at zstd `level`, on every core; an empty frame for a range whose
// records do not shrink (stored raw).
std::vector<std::string> CompressRanges(std::span<const std::string_view> messages, std::span<const ChunkRange> ranges,
                                        int level) {
  std::vector<std::string> frames(ranges.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    ChunkCompressor compressor;
    std::string records;
    for (size_t k = next.fetch_add(1); k < ranges.size(); k = next.fetch_add(1)) {
      records.clear();
      AppendRecordsAtOneTime(messages.subspan(ranges[k].begin, ranges[k].end - ranges[k].begin), &records);
      if (!compressor.Compress(records, level, &frames[k])) frames[k].clear();
    }
  };
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(ranges.size(), 1));
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads: this one does the rest
    }
  }
  work();
  for (std::thread& t : helpers) t.join();
  return frames;
}

}  // namespace

Status StreamStore::Impl::IngestBatch(std::string_view stream, std::span<const std::string_view> messages,
                                      uint64_t* first_offset, const std::vector<std::string>* prepared) {
  size_t bytes = 0;
  if (Status s = CheckBatch(stream, messages, &bytes); !s.ok()) return s;
  std::unique_lock<std::mutex> wlock(write_mu_);  // no other write moves the stream's end meanwhile
  std::shared_ptr<StreamState> st = FindStream(stream);
  if (st == nullptr || st->deleted.load()) return Status::NotFound(fmt::format("stream '{}' not found", stream));
  if (!RecoverIfFailed().ok()) return FencedError(stream);
  const uint64_t first = st->next_offset.load();
  if (first_offset != nullptr) *first_offset = first;
  if (messages.empty()) return Status::OK();
  const int64_t now = Now();
  const int64_t timestamp = std::max(now, st->last_timestamp_ms);

  // Two table files, chunks and index entries, each in key order and past every key the stream has,
  // so RocksDB places them without overlap (no compaction rewrites them) and ingests both atomically.
  const std::string what =
      fmt::format("bulk append to stream '{}' (offsets {}..{})", st->name, first, first + messages.size() - 1);
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(path_) / kIngestDir;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(fmt::format("{}: cannot create {}: {}", what, dir.string(), ec.message()));
  const std::string chunk_file = (dir / fmt::format("{}-{}-chunks.sst", st->id, first)).string();
  const std::string index_file = (dir / fmt::format("{}-{}-index.sst", st->id, first)).string();
  const rocksdb::Options db_options = db_->GetOptions();
  rocksdb::Options chunk_options;
  rocksdb::EnvOptions chunk_env_options;
  ChunkTableOptions(db_options, options_, &chunk_options, &chunk_env_options);
  // RocksDB's table file writer drops what it writes from the page cache unless told otherwise.
  rocksdb::SstFileWriter chunks(chunk_env_options, chunk_options, /*column_family=*/nullptr,
                                /*invalidate_page_cache=*/!options_.cache_bulk_writes);
  rocksdb::SstFileWriter index(rocksdb::EnvOptions(db_options), db_options, /*column_family=*/nullptr,
                               /*invalidate_page_cache=*/!options_.cache_bulk_writes);
  rocksdb::Status s = chunks.Open(chunk_file);
  if (s.ok()) s = index.Open(index_file);
  const bool compress = st->compression.codec == ChunkCompression::Codec::kZstd;
  // Summaries: prepared by the caller (PrepareIngest, while the batch before this one was written),
  // or built now on other threads while this thread builds and writes the chunks.
  const std::vector<ChunkCutter::Range> ranges = options_.chunk_summarizer || compress
                                                     ? ChunkCutter::Ranges(options_, messages)
                                                     : std::vector<ChunkCutter::Range>();
  std::vector<std::string> built;
  const std::vector<std::string>* summary_entries = prepared;
  std::thread summary_thread;
  if (options_.chunk_summarizer && !ranges.empty() && (prepared == nullptr || prepared->size() != ranges.size())) {
    summary_entries = &built;
    try {
      summary_thread = std::thread([&] { (void)SummarizeRanges(messages, ranges, &built); });  // no check: cannot fail
    } catch (const std::system_error&) {
      (void)SummarizeRanges(messages, ranges, &built);  // no thread to be had: build them here first
    }
  }
  // Compressed records: the records of a bulk batch all carry the batch's timestamp, so each chunk's are
  // compressed ahead on every core, and only their headers are made here, in order.
  const std::vector<std::string> frames =
      compress && s.ok() ? CompressRanges(messages, ranges, st->compression.level) : std::vector<std::string>();
  ChunkBuilder builder;
  std::vector<ChunkMeta> metas;
  uint64_t stored = 0, raw = 0;
  // Index entries are written once the summaries are in: they carry the chunks' term partitions.
  auto emit = [&](const ChunkMeta& m, std::string_view value, std::string_view, const ChunkTermEntries*) {
    if (s.ok()) s = chunks.Put(keys::ChunkKey(st->id, m.first_offset), rocksdb::Slice(value.data(), value.size()));
    metas.push_back(m);
    stored += m.bytes;
    raw += m.raw_bytes;
  };
  if (compress) {
    std::string compressed;
    for (size_t k = 0; k < ranges.size() && s.ok(); ++k) {
      const uint64_t chunk_first = first + ranges[k].begin;
      const auto count = static_cast<uint32_t>(ranges[k].end - ranges[k].begin);
      std::string_view value;
      if (!frames[k].empty()) {
        EncodeCompressedChunk(chunk_first, timestamp, count, ranges[k].bytes - static_cast<uint32_t>(kChunkHeaderSize),
                              frames[k], &compressed);
        value = compressed;
      } else {  // records that do not shrink are stored raw
        builder.Reset(chunk_first, timestamp);
        for (size_t i = ranges[k].begin; i < ranges[k].end; ++i) builder.Add(timestamp, messages[i]);
        value = builder.Finish();
      }
      emit(ChunkMeta{chunk_first, count, static_cast<uint32_t>(value.size()), timestamp, timestamp, ranges[k].bytes},
           value, {}, nullptr);
    }
  } else {
    ChunkCutter cutter(options_, &builder, /*summarizer=*/nullptr, first, timestamp, st->compression);
    for (const std::string_view m : messages) {
      cutter.Add(m, emit);
      if (!s.ok()) break;
    }
    cutter.Close(emit);
  }
  if (summary_thread.joinable()) summary_thread.join();
  if (s.ok()) s = chunks.Finish();
  // The index entries ("I" keys), summaries ("M") and term entries ("T", partition by partition)
  // follow one another in key order: one table file.
  // The prepared entries are views into the prepared chunks.
  std::vector<std::string_view> summaries(metas.size());
  std::vector<std::vector<std::pair<size_t, std::string_view>>> term_entries(kTermPartitions);  // (chunk, entry)
  if (s.ok() && ranges.size() == metas.size() && summary_entries != nullptr &&
      summary_entries->size() == metas.size()) {
    std::string_view entries[kTermPartitions];
    for (size_t k = 0; k < metas.size(); ++k) {
      uint32_t count = 0, bytes = 0;
      uint64_t partitions = 0;
      std::string_view summary, terms, body;
      if ((*summary_entries)[k].empty() || !DecodePreparedChunk((*summary_entries)[k], &summary, &terms) ||
          !DecodeSummaryEntry(summary, &count, &bytes, &body) || bytes != metas[k].raw_bytes ||
          count != metas[k].count) {
        continue;  // not the chunk the summary was built for (never expected): it gets none
      }
      summaries[k] = summary;
      if (terms.empty() || !ChunkTermEntries::Parse(terms, &partitions, entries)) continue;
      metas[k].term_partitions = partitions;
      metas[k].terms_complete = true;
      for (uint32_t p = 0; p < kTermPartitions; ++p) {
        if (partitions & (uint64_t{1} << p)) term_entries[p].emplace_back(k, entries[p]);
      }
    }
  }
  for (size_t k = 0; k < metas.size() && s.ok(); ++k) {
    s = index.Put(keys::IndexKey(st->id, metas[k].first_offset), EncodeIndexEntry(metas[k]));
  }
  for (size_t k = 0; k < metas.size() && s.ok(); ++k) {
    if (!summaries[k].empty())
      s = index.Put(keys::SummaryKey(st->id, metas[k].first_offset),
                    rocksdb::Slice(summaries[k].data(), summaries[k].size()));
  }
  for (uint32_t p = 0; p < kTermPartitions && s.ok(); ++p) {
    for (size_t i = 0; i < term_entries[p].size() && s.ok(); ++i) {
      const auto& [k, entry] = term_entries[p][i];
      s = index.Put(keys::TermKey(st->id, p, metas[k].first_offset), rocksdb::Slice(entry.data(), entry.size()));
    }
  }
  if (s.ok()) s = index.Finish();
  const std::vector<std::string> files = {chunk_file, index_file};
  if (s.ok()) {
    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;  // a hard link: the bytes are written once
    s = db_->IngestExternalFile(files, ingest);
  }
  std::filesystem::remove(chunk_file, ec);  // gone after a move; left after a failure
  std::filesystem::remove(index_file, ec);
  if (!s.ok()) return FromRocks(s, what);

  std::unique_lock<std::mutex> lock(mu_);
  st->chunks.insert(st->chunks.end(), metas.begin(), metas.end());
  st->bytes += stored;
  st->raw_bytes += raw;
  st->last_timestamp_ms = timestamp;
  st->next_offset.store(first + messages.size());
  st->durable_end.store(first + messages.size());  // an ingested table file is durable once ingested
  appended_cv_.notify_all();
  lock.unlock();
  RetainAfterAppend(st, now);
  return Status::OK();
}

Status StreamStore::Impl::Flush() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!writers_.empty()) {
      flush_requested_ = true;
      writers_.front()->cv.notify_one();
    }
  }
  // What is written now becomes durable with this sync; with deferred_sync it becomes visible then.
  // write_mu_: no write is half done while the written ends are taken.
  struct Written {
    std::shared_ptr<StreamState> stream;
    uint64_t end, epoch;  // a recovery meanwhile (another epoch) discarded these writes
  };
  std::vector<Written> written;
  {
    std::lock_guard<std::mutex> wlock(write_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, st] : streams_) {
      if (st->next_offset.load() > st->durable_end.load())
        written.push_back(Written{st, st->next_offset.load(), st->epoch.load()});
    }
  }
  {
    // After a failed write RocksDB's log may refuse every call, and a sync of it would abort a build
    // with assertions: what was written since is discarded by recovery, never synced (durability.cc).
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_) {
      std::vector<std::shared_ptr<StreamState>> fenced;
      for (const Written& w : written) fenced.push_back(w.stream);
      EnterFailedState(fenced, failure_);
      return Status::IOError(
          fmt::format("store '{}': flush: the store takes no writes until it recovers from a failed write: {}", path_,
                      failure_.why()));
    }
  }
  rocksdb::Status s = db_->FlushWAL(/*sync=*/true);
  const Status status = FromRocks(s, fmt::format("store '{}': flush", path_));
  std::lock_guard<std::mutex> lock(mu_);
  if (!status.ok()) {
    std::vector<std::shared_ptr<StreamState>> fenced;
    for (const Written& w : written) fenced.push_back(w.stream);
    EnterFailedState(fenced, status);
    return status;
  }
  for (const Written& w : written) {
    // A fenced stream's writes are discarded by recovery, never published.
    StreamState& st = *w.stream;
    if (!st.fenced && st.epoch.load() == w.epoch && st.durable_end.load() < w.end) st.durable_end.store(w.end);
  }
  if (!written.empty()) appended_cv_.notify_all();
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------------
// Readers

Status StreamStore::Impl::NewReader(std::string_view stream, const ReaderOptions& options,
                                    std::unique_ptr<StreamReader>* reader) {
  std::shared_ptr<StreamState> st = FindStream(stream);
  if (st == nullptr) return Status::NotFound(fmt::format("stream '{}' not found", stream));
  auto r = NewChunkReader(this, std::move(st), options);
  if (Status s = r->SeekToFirst(); !s.ok()) return s;
  *reader = std::move(r);
  return Status::OK();
}

bool StreamStore::Impl::WaitForAppend(std::string_view stream, uint64_t offset,
                                      std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return false;
  std::shared_ptr<StreamState> st = it->second;
  appended_cv_.wait_for(lock, timeout, [&] { return st->deleted.load() || st->durable_end.load() > offset; });
  return !st->deleted.load() && st->durable_end.load() > offset;
}

// ---------------------------------------------------------------------------------------------------
// The public face

Status StreamStore::CreateStream(std::string_view name, const StreamOptions& options) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->CreateStream(name, options);
}
Status StreamStore::DeleteStream(std::string_view name) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->DeleteStream(name);
}
Status StreamStore::ListStreams(std::vector<std::string>* names) const { return impl_->ListStreams(names); }
Status StreamStore::GetStreamInfo(std::string_view name, StreamInfo* info) const {
  return impl_->GetStreamInfo(name, info);
}
Status StreamStore::SetRetention(std::string_view name, const RetentionPolicy& retention) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->SetRetention(name, retention);
}
Status StreamStore::SetCompression(std::string_view name, const ChunkCompression& compression) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->SetCompression(name, compression);
}
Status StreamStore::Append(std::string_view stream, std::string_view message, uint64_t* offset) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->AppendBatch(stream, std::span<const std::string_view>(&message, 1), offset);
}
Status StreamStore::AppendBatch(std::string_view stream, std::span<const std::string_view> messages,
                                uint64_t* first_offset) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->AppendBatch(stream, messages, first_offset);
}
Status StreamStore::IngestBatch(std::string_view stream, std::span<const std::string_view> messages,
                                uint64_t* first_offset, const std::vector<std::string>* prepared) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->IngestBatch(stream, messages, first_offset, prepared);
}
Status StreamStore::PrepareIngest(std::span<const std::string_view> messages, std::vector<std::string>* prepared,
                                  const RangeCheck& check, base::SharedWork* share) const {
  return impl_->PrepareIngest(messages, prepared, check, share);
}
Status StreamStore::Flush() {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->Flush();
}
Status StreamStore::EnforceRetention() {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->EnforceRetention();
}
Status StreamStore::ListChunks(std::string_view stream, std::vector<ChunkInfo>* chunks) const {
  return impl_->ListChunks(stream, chunks);
}
Status StreamStore::GetChunkSummary(std::string_view stream, uint64_t first_offset, std::string* summary) const {
  return impl_->GetChunkSummary(stream, first_offset, summary);
}
Status StreamStore::PutChunkSummary(std::string_view stream, uint64_t first_offset, std::string_view summary,
                                    const std::vector<uint64_t>* terms) {
  if (Status s = impl_->Writable(); !s.ok()) return s;
  return impl_->PutChunkSummary(stream, first_offset, summary, terms);
}
Status StreamStore::NewReader(std::string_view stream, const ReaderOptions& options,
                              std::unique_ptr<StreamReader>* reader) {
  return impl_->NewReader(stream, options, reader);
}
bool StreamStore::WaitForAppend(std::string_view stream, uint64_t offset, std::chrono::milliseconds timeout) const {
  return impl_->WaitForAppend(stream, offset, timeout);
}

}  // namespace sift::storage
