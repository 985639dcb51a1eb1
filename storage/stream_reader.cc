// ChunkReader: the StreamReader over one stream's chunks (see stream_reader.h for the contract).
//
// The reader keeps one RocksDB iterator bounded to the stream's chunk keys. Entering a chunk verifies
// its header and payload checksums, then records are decoded in place from the iterator's value, which
// RocksDB keeps pinned (block cache handle or memtable) until the iterator moves: record views are
// therefore valid until the reader leaves the chunk. Tailing: when the iterator runs out and the
// stream's next offset (read lock-free) is past the reader's position, a fresh iterator is positioned
// at the chunk holding the position. No offset at or past the stream's durable end is delivered.
#include <fmt/format.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <limits>

#include "storage/chunk_compression.h"
#include "storage/chunk_format.h"
#include "storage/key_layout.h"
#include "storage/summary_entry_format.h"
#include "storage/term_index.h"
#include "storage/stream_reader_impl.h"
#include "storage/stream_store_impl.h"

namespace sift::storage {
namespace {

class ChunkReader final : public StreamReader {
 public:
  ChunkReader(StreamStore::Impl* store, std::shared_ptr<StreamState> stream, const ReaderOptions& options)
      : store_(store),
        stream_(std::move(stream)),
        options_(options),
        lower_(keys::StreamBegin(keys::kChunkPrefix, stream_->id)),
        upper_(keys::StreamEnd(keys::kChunkPrefix, stream_->id)),
        lower_slice_(lower_),
        upper_slice_(upper_),
        summary_lower_(keys::StreamBegin(keys::kSummaryPrefix, stream_->id)),
        summary_upper_(keys::StreamEnd(keys::kSummaryPrefix, stream_->id)),
        summary_lower_slice_(summary_lower_),
        summary_upper_slice_(summary_upper_) {
    read_options_.iterate_lower_bound = &lower_slice_;
    read_options_.iterate_upper_bound = &upper_slice_;
    read_options_.readahead_size = options_.readahead_bytes;
    read_options_.fill_cache = options_.fill_cache;
    read_options_.verify_checksums = true;
    summary_options_.iterate_lower_bound = &summary_lower_slice_;
    summary_options_.iterate_upper_bound = &summary_upper_slice_;
    // Every summary entry carries its own CRC32C as well, but RocksDB's block checksum must be checked
    // on every block it parses: on some damaged keys its block parser asserts (the process aborts)
    // rather than fails.
    summary_options_.verify_checksums = true;
    // Summaries are read in key order, chunk after chunk, often many in a row (every chunk a query rules
    // out): read ahead in large steps rather than one block per system call.
    // With a term filter, the chunks whose summaries are read are the few the term index leaves: each is
    // read alone (RocksDB's own read-ahead takes over when they follow one another).
    summary_options_.readahead_size = options_.term_filter ? 0 : size_t{2} << 20;
    summary_options_.fill_cache = options_.fill_cache;
  }

  Status SeekToFirst() override {
    uint64_t first, next;
    store_->StreamBounds(*stream_, &first, &next);
    return Position(first);
  }
  Status Seek(uint64_t offset) override { return Position(offset); }
  Status SeekToTimestamp(int64_t timestamp_ms) override {
    uint64_t first;
    if (!store_->ChunkForTimestamp(*stream_, timestamp_ms, &first)) return SeekToEnd();
    Status s = Position(first);
    min_timestamp_ = timestamp_ms;
    return s;
  }
  Status SeekToLast() override {
    uint64_t first, next;
    store_->StreamBounds(*stream_, &first, &next);
    return Position(next > first ? next - 1 : next);
  }
  Status SeekToEnd() override {
    uint64_t first, next;
    store_->StreamBounds(*stream_, &first, &next);
    return Position(next);
  }

  bool Next(Record* record) override {
    if (epoch_ != stream_->epoch.load() && status_.ok()) {
      // Offsets past the durable end were discarded after a failed write; what this reader holds of
      // them (a chunk, an iterator's view) is not what the stream will hold there.
      (void)Position(position_);
    }
    for (;;) {
      if (!status_.ok()) return false;
      if (in_chunk_) {
        while (remaining_ > 0) {
          int64_t delta;
          std::string_view data;
          const char* const record_start = p_;
          if (!ReadRecord(&p_, limit_, &delta, &data)) {
            ChunkDamaged(chunk_.first_offset, chunk_.first_offset + chunk_.count,
                         fmt::format("malformed record at offset {}", record_offset_));
            break;
          }
          if (delta > chunk_.last_timestamp_ms - chunk_.first_timestamp_ms) {
            ChunkDamaged(chunk_.first_offset, chunk_.first_offset + chunk_.count,
                         fmt::format("record at offset {} has a timestamp after the chunk's last", record_offset_));
            break;
          }
          --remaining_;
          const uint64_t offset = record_offset_++;
          const int64_t ts = chunk_.first_timestamp_ms + delta;
          if (offset < position_ || ts < min_timestamp_) continue;
          if (offset >= options_.end_offset || offset >= stream_->durable_end.load()) {
            ++remaining_;  // not consumed: the bound (or the durable end, for now) stops the reader here
            --record_offset_;
            p_ = record_start;
            return false;
          }
          record->offset = offset;
          record->timestamp_ms = ts;
          record->data = data;
          record->chunk_start = !delivered_in_chunk_;
          delivered_in_chunk_ = true;
          position_ = offset + 1;
          min_timestamp_ = std::numeric_limits<int64_t>::min();
          return true;
        }
        if (!status_.ok()) return false;
        if (!in_chunk_) continue;  // skipped as damaged
        if (p_ != limit_) {
          ChunkDamaged(chunk_.first_offset, chunk_.first_offset + chunk_.count, "bytes after the last record");
          continue;
        }
        // Every record of the chunk is behind the reader (some may have been passed over by a
        // timestamp seek). Stepping to the next chunk reads it, so it waits until the chunk filter
        // has had its say.
        position_ = std::max(position_, chunk_.first_offset + chunk_.count);
        in_chunk_ = false;
        pending_seek_ = PendingSeek::kNextChunk;
      }
      if (!EnterChunk()) return false;
    }
  }

  void SkipChunk() override {
    if (status_.IsCorruption() && damaged_end_ > 0) {
      // The caller chose to skip the damaged chunk the reader stopped at; the iterator is past it.
      ++skipped_;
      last_skipped_ = std::move(status_);
      status_ = Status::OK();
      position_ = std::max(position_, damaged_end_);
      damaged_end_ = 0;
      return;
    }
    if (!in_chunk_) return;
    remaining_ = 0;
    p_ = limit_;
    position_ = std::max(position_, chunk_.first_offset + chunk_.count);
  }

  const Status& status() const override { return status_; }
  const ChunkInfo& current_chunk() const override { return chunk_; }
  uint64_t position() const override { return position_; }
  uint64_t chunks_visited() const override { return visited_; }
  uint64_t chunks_skipped() const override { return skipped_; }
  const Status& last_skipped() const override { return last_skipped_; }
  uint64_t chunks_pruned() const override { return pruned_; }
  uint64_t bytes_pruned() const override { return bytes_pruned_; }
  uint64_t summary_bytes_read() const override { return summary_bytes_read_; }
  uint64_t gaps() const override { return gaps_; }
  uint64_t offsets_deleted() const override { return offsets_deleted_; }
  const OffsetRange& last_gap() const override { return last_gap_; }

 private:
  // Positions a fresh iterator at the chunk holding `offset`, or the first chunk after it.
  Status Position(uint64_t offset) {
    status_ = Status::OK();
    damaged_end_ = 0;
    in_chunk_ = false;
    position_ = offset;
    min_timestamp_ = std::numeric_limits<int64_t>::min();
    if (stream_->deleted.load()) {
      it_.reset();
      return status_ = Status::NotFound(fmt::format("stream '{}' was deleted", stream_->name));
    }
    SeekIterator();
    return status_;  // ok: the seek itself happens when the first chunk is entered
  }

  // Takes a fresh view of the stream. The chunk iterator is positioned only when a chunk is about to be
  // entered: a seek reads the block it lands on, which for a chunk is the whole chunk, and the chunk
  // filter may yet rule it out (a reader positioned again and again, or one whose first chunks are all
  // pruned, would otherwise read chunks it never delivers from).
  void SeekIterator() {
    // The epoch before the iterator: a discard after it is seen by the next Next().
    epoch_ = stream_->epoch.load();
    summary_it_.reset();  // a fresh view: summaries written since are seen too
    terms_.Reset();
    it_.reset(store_->db()->NewIterator(read_options_));
    pending_seek_ = PendingSeek::kChunkHoldingPosition;
    at_stored_end_ = false;
  }

  // Performs the pending seek. Returns false with status_ set if it failed.
  bool SeekIfPending() {
    if (pending_seek_ == PendingSeek::kNone) return true;
    if (position_ >= stream_->durable_end.load()) {
      // Nothing stored (or nothing durable) there yet. A seek past the last chunk would still read it
      // (the index leads a key after the last chunk to the last chunk's block).
      pending_seek_ = PendingSeek::kNone;
      at_stored_end_ = true;
      return true;
    }
    at_stored_end_ = false;
    switch (pending_seek_) {
      case PendingSeek::kChunkHoldingPosition: {
        // A forward seek to the chunk's own key when the index knows it: a backward seek reads the
        // chunk before the one it lands on as well.
        uint64_t first;
        if (store_->ChunkHolding(*stream_, position_, &first)) {
          it_->Seek(keys::ChunkKey(stream_->id, first));
        } else {
          it_->SeekForPrev(keys::ChunkKey(stream_->id, position_));
          if (!it_->Valid() && it_->status().ok()) it_->SeekToFirst();
        }
        break;
      }
      case PendingSeek::kFirstChunkFromPosition: it_->Seek(keys::ChunkKey(stream_->id, position_)); break;
      case PendingSeek::kNextChunk: it_->Next(); break;
      case PendingSeek::kNone: break;
    }
    pending_seek_ = PendingSeek::kNone;
    if (it_->status().ok()) return true;
    status_ = StreamStore::Impl::FromRocks(it_->status(),
                                           fmt::format("stream '{}': seek to offset {}", stream_->name, position_));
    return false;
  }

  // Moves to the next chunk that holds offsets >= position_, verifies it and prepares its records.
  // Returns false at the end (status_ ok) or on error (status_ set).
  bool EnterChunk() {
    bool refreshed = false;
    for (;;) {
      if (position_ >= options_.end_offset) return false;
      if (options_.chunk_filter) {
        PruneChunks();
        if (position_ >= options_.end_offset) return false;
      }
      if (!SeekIfPending()) return false;
      if (at_stored_end_ || !it_->Valid()) {
        if (!at_stored_end_ && !it_->status().ok()) {
          status_ = StreamStore::Impl::FromRocks(
              it_->status(), fmt::format("stream '{}': read at offset {}", stream_->name, position_));
          return false;
        }
        if (!options_.tailing || stream_->deleted.load() || stream_->durable_end.load() <= position_) return false;
        // Retention may have deleted every chunk from the position on: the stream then starts past it,
        // and the reader goes on there (or waits there for it to be appended).
        uint64_t first, next;
        store_->StreamBounds(*stream_, &first, &next);
        if (first > position_) {
          PassDeleted(first);
          SeekIterator();
          continue;
        }
        if (refreshed) return false;
        SeekIterator();
        refreshed = true;
        continue;
      }
      const rocksdb::Slice key = it_->key();
      const rocksdb::Slice value = it_->value();
      uint64_t first = 0;
      if (!keys::ParseOffsetKey(std::string_view(key.data(), key.size()), keys::kChunkPrefix, stream_->id, &first)) {
        status_ = Status::Corruption(fmt::format("stream '{}': malformed chunk key of {} bytes after offset {}",
                                                 stream_->name, key.size(), position_));
        return false;
      }
      // Offsets are dense, pruned and damaged chunks move the position past themselves, and a seek
      // lands on the chunk holding the position: a chunk starting past it means the chunks between
      // were deleted.
      if (first > position_) PassDeleted(first);
      ChunkHeader h;
      const char* why = nullptr;
      ++visited_;
      bool ok = DecodeChunk(std::string_view(value.data(), value.size()), /*verify_payload=*/true, &h, &why);
      if (ok && h.first_offset != first) {
        ok = false;
        why = "header first offset differs from the key";
      }
      if (!ok) {
        // The header cannot be trusted: the offset range is from this key to the next chunk's key.
        it_->Next();
        uint64_t end = stream_->durable_end.load();
        if (it_->Valid()) {
          uint64_t next_first;
          if (keys::ParseOffsetKey(std::string_view(it_->key().data(), it_->key().size()), keys::kChunkPrefix,
                                   stream_->id, &next_first)) {
            end = next_first;
          }
        }
        if (end <= first) end = first + 1;
        if (!ChunkDamaged(first, end, why)) return false;
        continue;
      }
      if (h.first_offset + h.count <= position_) {
        pending_seek_ = PendingSeek::kNextChunk;
        continue;
      }
      std::string_view records(value.data() + kChunkHeaderSize, h.payload_bytes);
      if (h.compressed && !decompressor_.Decompress(std::string_view(value.data() + kChunkHeaderSize, h.stored_bytes),
                                                    h.payload_bytes, &records, &why)) {
        it_->Next();  // past the chunk, as ChunkDamaged expects outside a chunk
        if (!ChunkDamaged(h.first_offset, h.first_offset + h.count, why)) return false;
        continue;
      }
      chunk_.first_offset = h.first_offset;
      chunk_.count = h.count;
      chunk_.first_timestamp_ms = h.first_timestamp_ms;
      chunk_.last_timestamp_ms = h.last_timestamp_ms;
      chunk_.bytes = static_cast<uint32_t>(value.size());
      p_ = records.data();
      limit_ = p_ + records.size();
      remaining_ = h.count;
      record_offset_ = h.first_offset;
      delivered_in_chunk_ = false;
      in_chunk_ = true;
      return true;
    }
  }

  // Skips, without reading their values, the chunks from the one holding position_ on whose summary
  // the chunk filter rules out, and leaves the chunk iterator to be positioned after them. A chunk
  // without a summary, or with a summary that fails its checksum, stops the skipping: it is read.
  void PruneChunks() {
    if (options_.term_filter) {
      PruneChunksByTerms();
      return;
    }
    if (summary_it_ == nullptr) {
      summary_it_.reset(store_->db()->NewIterator(summary_options_));
      uint64_t first;
      if (store_->ChunkHolding(*stream_, position_, &first)) {
        summary_it_->Seek(keys::SummaryKey(stream_->id, first));
      } else {
        summary_it_->SeekForPrev(keys::SummaryKey(stream_->id, position_));
        if (!summary_it_->Valid()) summary_it_->Seek(keys::SummaryKey(stream_->id, position_));
      }
    }
    bool moved = false;
    while (summary_it_->Valid() && position_ < options_.end_offset) {
      uint64_t first = 0;
      uint32_t count = 0, bytes = 0;
      std::string_view summary;
      const rocksdb::Slice key = summary_it_->key();
      const rocksdb::Slice value = summary_it_->value();
      summary_bytes_read_ += key.size() + value.size();
      if (!keys::ParseOffsetKey(std::string_view(key.data(), key.size()), keys::kSummaryPrefix, stream_->id, &first))
        break;
      if (!DecodeSummaryEntry(std::string_view(value.data(), value.size()), &count, &bytes, &summary)) {
        // Damaged: its chunk is read as if it had no summary; once the reader is past the chunk's
        // start, the entry is passed over so the summaries after it still count.
        if (first >= position_) break;
        summary_it_->Next();
        continue;
      }
      if (first + count <= position_) {
        summary_it_->Next();
        continue;
      }
      // A chunk not wholly durable is read (up to the durable end), never skipped: its offsets past the
      // end may yet be discarded and hold other messages.
      if (first > position_ || first + count > stream_->durable_end.load() || options_.chunk_filter(summary)) break;
      ++pruned_;
      bytes_pruned_ += bytes;
      position_ = first + count;
      moved = true;
      summary_it_->Next();
    }
    // position_ is now the start of the chunk after the last one skipped.
    if (moved) pending_seek_ = PendingSeek::kFirstChunkFromPosition;
  }

  // PruneChunks with a term filter: driven by the in-memory index, chunk after chunk; a chunk whose
  // terms are complete is first put to the term filter, and its summary is read only if that keeps it.
  void PruneChunksByTerms() {
    bool moved = false;
    ChunkMeta m;
    std::string_view summary;
    while (position_ < options_.end_offset && store_->ChunkFrom(*stream_, position_, &m)) {
      // A chunk not wholly durable is read (up to the durable end), never skipped: its offsets past the
      // end may yet be discarded and hold other messages. A chunk past the position: the ones between
      // were deleted, which the chunk iterator notices.
      if (m.first_offset > position_ || m.first_offset + m.count > stream_->durable_end.load()) break;
      bool keep = true;
      if (m.terms_complete) {
        terms_.Position(m, this);
        keep = options_.term_filter(terms_);
      }
      if (keep && (!SummaryAt(m.first_offset, &summary) || options_.chunk_filter(summary))) break;
      ++pruned_;
      bytes_pruned_ += m.raw_bytes;
      position_ = m.first_offset + m.count;
      moved = true;
    }
    if (moved) pending_seek_ = PendingSeek::kFirstChunkFromPosition;
  }

  // The summary of the chunk at `first`; false when it has none or it is damaged.
  bool SummaryAt(uint64_t first, std::string_view* summary) {
    const std::string key = keys::SummaryKey(stream_->id, first);
    if (summary_it_ == nullptr) {
      summary_it_.reset(store_->db()->NewIterator(summary_options_));
      summary_it_->Seek(key);
    } else {
      // The next entry is often the one wanted (chunks the term filter keeps in a row).
      if (summary_it_->Valid() && summary_it_->key().compare(key) < 0) summary_it_->Next();
      if (!summary_it_->Valid() || summary_it_->key().compare(key) != 0) summary_it_->Seek(key);
    }
    if (!summary_it_->Valid() || summary_it_->key().compare(key) != 0) return false;
    const rocksdb::Slice value = summary_it_->value();
    summary_bytes_read_ += key.size() + value.size();
    uint32_t count = 0, bytes = 0;
    return DecodeSummaryEntry(std::string_view(value.data(), value.size()), &count, &bytes, summary);
  }

  // The term filter's view of one chunk: one cursor per partition of ReaderOptions::filter_terms, each
  // moving forward over its partition's entries as the reader moves over the chunks.
  class TermCursors final : public ChunkTermLookup {
   public:
    TermCursors(const ReaderOptions& options, uint32_t stream_id) : stream_id_(stream_id) {
      for (const uint64_t t : options.filter_terms) wanted_ |= uint64_t{1} << TermPartition(t);
    }
    void Reset() {
      for (auto& c : cursors_) c.reset();
    }
    // Moves the cursors to chunk `m`'s entries.
    void Position(const ChunkMeta& m, ChunkReader* reader) {
      meta_ = m;
      for (uint32_t p = 0; p < kTermPartitions; ++p) {
        if (!(wanted_ & m.term_partitions & (uint64_t{1} << p))) continue;
        std::unique_ptr<Cursor>& c = cursors_[p];
        if (c == nullptr)
          c = std::make_unique<Cursor>(reader->store_->db(), stream_id_, p, m.first_offset, reader->options_);
        c->MoveTo(m.first_offset, &reader->summary_bytes_read_);
      }
    }
    bool MayHold(uint64_t term) const override {
      const uint32_t p = TermPartition(term);
      if (!(meta_.term_partitions & (uint64_t{1} << p))) return false;  // the chunk has no term there
      const Cursor* c = cursors_[p].get();
      if (c == nullptr || c->at != meta_.first_offset) return true;  // not read (or missing): unknown
      return TermEntryMayHold(c->value, term);
    }

   private:
    struct Cursor {
      Cursor(rocksdb::DB* db, uint32_t id, uint32_t p, uint64_t first, const ReaderOptions& options)
          : partition(p),
            lower(keys::TermPartitionBegin(id, p)),
            upper(keys::TermPartitionEnd(id, p)),
            lower_slice(lower),
            upper_slice(upper),
            stream_id(id) {
        rocksdb::ReadOptions ro;
        ro.iterate_lower_bound = &lower_slice;
        ro.iterate_upper_bound = &upper_slice;
        ro.verify_checksums = true;
        ro.fill_cache = options.fill_cache;
        it.reset(db->NewIterator(ro));
        it->Seek(keys::TermKey(id, p, first));
      }
      // Moves to the entry of the chunk at `first`; `at` is that chunk's offset when it has one.
      void MoveTo(uint64_t first, uint64_t* bytes_read) {
        at = UINT64_MAX;
        uint64_t key_first = 0;
        while (it->Valid()) {
          const rocksdb::Slice key = it->key();
          if (!keys::ParseTermKey(std::string_view(key.data(), key.size()), stream_id, partition, &key_first)) return;
          if (key_first >= first) break;
          it->Next();
        }
        if (!it->Valid() || key_first != first) return;
        const rocksdb::Slice v = it->value();
        *bytes_read += it->key().size() + v.size();
        value = std::string_view(v.data(), v.size());
        at = first;
      }
      const uint32_t partition;
      const std::string lower, upper;
      const rocksdb::Slice lower_slice, upper_slice;
      const uint32_t stream_id;
      std::unique_ptr<rocksdb::Iterator> it;
      uint64_t at = UINT64_MAX;
      std::string_view value;
    };
    const uint32_t stream_id_;
    uint64_t wanted_ = 0;  // partitions of the filter's terms
    ChunkMeta meta_;
    std::unique_ptr<Cursor> cursors_[kTermPartitions];
  };

  // Moves the position from offsets that are no longer stored to `first_stored`, counting them.
  void PassDeleted(uint64_t first_stored) {
    const uint64_t end = std::min(first_stored, options_.end_offset);
    if (end > position_) {
      if (gaps_ == 0 || last_gap_.end != position_) {
        ++gaps_;
        last_gap_.first = position_;
      }
      last_gap_.end = end;
      offsets_deleted_ += end - position_;
    }
    position_ = first_stored;
  }

  // Handles a damaged chunk covering offsets [first, end): under kStop sets status_ and returns false;
  // under kSkip counts it, moves the position past it and returns true. The iterator must already be
  // past the chunk (or the caller leaves the chunk through in_chunk_ = false then Next()).
  bool ChunkDamaged(uint64_t first, uint64_t end, std::string_view why) {
    Status c = Status::Corruption(
        fmt::format("stream '{}': chunk at offset {} (offsets {}..{}): {}", stream_->name, first, first, end - 1, why));
    if (in_chunk_) {
      // Found while decoding records: leave the chunk.
      in_chunk_ = false;
      remaining_ = 0;
      it_->Next();
    }
    if (options_.on_corruption == CorruptionPolicy::kStop) {
      status_ = std::move(c);
      damaged_end_ = end;
      return false;
    }
    ++skipped_;
    last_skipped_ = std::move(c);
    position_ = std::max(position_, end);
    return true;
  }

  StreamStore::Impl* const store_;
  const std::shared_ptr<StreamState> stream_;
  const ReaderOptions options_;
  const std::string lower_, upper_;
  const rocksdb::Slice lower_slice_, upper_slice_;
  rocksdb::ReadOptions read_options_;
  std::unique_ptr<rocksdb::Iterator> it_;
  ChunkDecompressor decompressor_;  // the records of the current chunk when it is compressed
  // How the chunk iterator is to be moved before the next chunk is entered.
  enum class PendingSeek { kNone, kChunkHoldingPosition, kFirstChunkFromPosition, kNextChunk };
  PendingSeek pending_seek_ = PendingSeek::kNone;
  bool at_stored_end_ = false;  // the position is past what was stored: the iterator was not moved
  const std::string summary_lower_, summary_upper_;
  const rocksdb::Slice summary_lower_slice_, summary_upper_slice_;
  rocksdb::ReadOptions summary_options_;
  std::unique_ptr<rocksdb::Iterator> summary_it_;  // chunk summaries; made on first use
  TermCursors terms_{options_, stream_->id};
  uint64_t pruned_ = 0;
  uint64_t bytes_pruned_ = 0;
  uint64_t summary_bytes_read_ = 0;
  uint64_t gaps_ = 0;
  uint64_t offsets_deleted_ = 0;
  OffsetRange last_gap_;

  Status status_;
  Status last_skipped_;
  ChunkInfo chunk_;
  bool in_chunk_ = false;
  bool delivered_in_chunk_ = false;
  const char* p_ = nullptr;
  const char* limit_ = nullptr;
  uint32_t remaining_ = 0;
  uint64_t record_offset_ = 0;  // offset of the record at p_
  uint64_t position_ = 0;       // next offset to deliver
  int64_t min_timestamp_ = std::numeric_limits<int64_t>::min();
  uint64_t visited_ = 0;
  uint64_t skipped_ = 0;
  uint64_t damaged_end_ = 0;  // after a Corruption stop: the end of the damaged chunk's offset range
  uint64_t epoch_ = 0;        // the stream's epoch when the iterator was made (StreamState::epoch)
};

}  // namespace

std::unique_ptr<StreamReader> NewChunkReader(StreamStore::Impl* store, std::shared_ptr<StreamState> stream,
                                             const ReaderOptions& options) {
  return std::make_unique<ChunkReader>(store, std::move(stream), options);
}

}  // namespace sift::storage
