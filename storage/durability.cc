// The failed state of a StreamStore: fencing streams after a failed write or sync, and recovering
// without reopening the store.
//
// RocksDB stops taking writes after a failed write-ahead-log write or sync, or a failed background
// flush or compaction (a full disk), and grades the error. A full disk and an I/O error the file
// system calls retryable are "hard" errors RocksDB can resume from. It would resume from a full disk
// by itself, through its SstFileManager, but only once the free space exceeds what it reserves for
// pending compactions as well (hundreds of MB for a store with a few table files, far more than the
// flush that recovery needs), so the store turns that off and resumes itself: each append, and each
// EnforceRetention() call, tries DB::Resume() (at most every kRecoveryInterval), which writes out the
// memtable and succeeds as soon as there is room for it. A retryable error is retried by RocksDB at
// bgerror_resume_retry_interval; DB::Resume() answers Busy meanwhile and OK once it is done. Any
// other I/O error of the log (a failed fsync) is fatal to RocksDB: Resume() refuses, and the streams
// stay fenced until the store is reopened (StoreHealth::needs_reopen). What a failed
// write left behind is unknown: its log record may be on disk, in the page cache, or nowhere (the
// kernel may drop dirty pages after a failed fsync), and a deferred-sync write is already in the
// memtable. So recovery does not trust it either way: once RocksDB takes writes again, every key of a
// fenced stream from its durable end on is deleted in one synced write. After that the store's true
// end is the durable end, a replay of an old log after a crash is overridden by the later delete, and
// the next append gets the next dense offset. Offsets past the durable end were never delivered
// (readers stop there), so no offset a consumer saw is ever given to another message.
#include <fmt/format.h>
#include <rocksdb/listener.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <filesystem>

#include "storage/key_layout.h"
#include "storage/term_index.h"
#include "storage/stream_store_impl.h"

namespace sift::storage {
namespace {

// A full disk or a failing device gets a recovery attempt at most this often, however many appends
// arrive meanwhile (each attempt may try to write a memtable's worth).
constexpr std::chrono::milliseconds kRecoveryInterval{100};

// Errors RocksDB meets on its own (a flush or compaction on a full disk) stop writes before any append
// fails: the store's state says so at once, and clears when RocksDB resumed by itself and no stream
// waits for a discard. Called on RocksDB's threads without its mutex held.
class BackgroundErrorListener : public rocksdb::EventListener {
 public:
  explicit BackgroundErrorListener(StreamStore::Impl* store) : store_(store) {}
  const char* Name() const override { return "SiftBackgroundErrorListener"; }

  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
    if (error == nullptr || error->ok()) return;
    // A failed log write leaves RocksDB's writer of that log refusing every later call, and a build
    // with assertions (Debian's) aborts on the next one. RocksDB's recovery replaces the log only
    // when it flushes a memtable that holds something: a write that failed into an empty memtable
    // (the first write after a memtable switch) would leave the refusing log in place, and the next
    // write after recovery would abort the process. Such a store is not resumed in place.
    if (reason == rocksdb::BackgroundErrorReason::kWriteCallback && store_->ActiveMemtableEmpty())
      store_->StoppedUntilReopen(*error);
    // A soft error (RocksDB slows down, still takes writes) leaves the store writable.
    if (error->severity() >= rocksdb::Status::Severity::kHardError) store_->BackgroundError(*error);
  }
  // RocksDB's own recovery from a full disk waits for compaction headroom too (see the top of the file).
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status, bool* auto_recovery) override {
    if (auto_recovery != nullptr) *auto_recovery = false;
  }
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    if (info.new_bg_error.ok()) store_->BackgroundRecovered();
  }

 private:
  StreamStore::Impl* const store_;
};

}  // namespace

std::shared_ptr<rocksdb::EventListener> StreamStore::Impl::NewBackgroundErrorListener() {
  return std::make_shared<BackgroundErrorListener>(this);
}

void StreamStore::Impl::BackgroundError(const rocksdb::Status& error) {
  const Status status = FromRocks(error, fmt::format("store '{}'", path_));
  std::lock_guard<std::mutex> lock(mu_);
  EnterFailedState({}, status);
}

bool StreamStore::Impl::ActiveMemtableEmpty() const {
  uint64_t entries = 0;
  // Unknown counts as empty: refusing to resume in place is the safe side.
  return !db_->GetIntProperty(rocksdb::DB::Properties::kNumEntriesActiveMemTable, &entries) || entries == 0;
}

void StreamStore::Impl::StoppedUntilReopen(const rocksdb::Status& error) {
  const Status status = FromRocks(error, fmt::format("store '{}'", path_));
  std::lock_guard<std::mutex> lock(mu_);
  EnterFailedState({}, status);
  needs_reopen_ = true;
}

void StreamStore::Impl::BackgroundRecovered() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failed_ || needs_reopen_) return;
  for (const auto& [name, st] : streams_) {
    if (st->fenced) return;  // the next append discards what it holds past its durable end first
  }
  failed_ = false;
  failure_ = Status::OK();
  ++recoveries_;
}

void StreamStore::Impl::EnterFailedState(std::span<const std::shared_ptr<StreamState>> streams, const Status& error) {
  for (const std::shared_ptr<StreamState>& st : streams) st->fenced = true;
  if (failed_) return;
  failed_ = true;
  failure_ = error;
  ++failures_;
  last_recovery_attempt_ = std::chrono::steady_clock::now();
}

Status StreamStore::Impl::FencedError(std::string_view stream) const {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string where = stream.empty() ? fmt::format("store '{}'", path_) : fmt::format("stream '{}'", stream);
  return Status::IOError(
      fmt::format("{}: the store takes no writes until it recovers from a failed write (appends may be retried): {}",
                  where, failure_.why()));
}

Status StreamStore::Impl::RecoverIfFailed() {
  std::vector<std::shared_ptr<StreamState>> fenced;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failed_) return Status::OK();
    if (needs_reopen_) return Status::IOError(failure_.why());
    const auto now = std::chrono::steady_clock::now();
    if (now - last_recovery_attempt_ < kRecoveryInterval) return Status::IOError(failure_.why());
    last_recovery_attempt_ = now;
    for (const auto& [name, st] : streams_) {
      if (st->fenced) fenced.push_back(st);
    }
  }
  // Resume() answers OK at once when RocksDB is not stopped (an error it did not grade as stopping).
  rocksdb::Status rs = db_->Resume();
  if (!rs.ok()) {
    // A fatal error (a failed log write or sync that was not a full disk, as RocksDB grades it) is not
    // resumed in place: the store must be reopened, and recovers then from what the files hold.
    if (rs.severity() >= rocksdb::Status::Severity::kFatalError) {
      std::lock_guard<std::mutex> lock(mu_);
      needs_reopen_ = true;
    }
    return FromRocks(rs, fmt::format("store '{}': resume after a failed write", path_));
  }
  rocksdb::WriteBatch batch;
  for (const std::shared_ptr<StreamState>& st : fenced) {
    const uint64_t end = st->durable_end.load();
    for (const char prefix : {keys::kChunkPrefix, keys::kIndexPrefix, keys::kSummaryPrefix}) {
      batch.DeleteRange(keys::OffsetKey(prefix, st->id, end), keys::StreamEnd(prefix, st->id));
    }
    for (uint32_t p = 0; p < kTermPartitions; ++p) {
      batch.DeleteRange(keys::TermKey(st->id, p, end), keys::TermPartitionEnd(st->id, p));
    }
  }
  if (batch.Count() > 0) {
    rocksdb::WriteOptions wo;
    wo.sync = true;  // the discard must be durable before any offset past the durable end is given again
    rocksdb::Status ws = db_->Write(wo, &batch);
    if (!ws.ok()) return FromRocks(ws, fmt::format("store '{}': discard what did not become durable", path_));
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::shared_ptr<StreamState>& st : fenced) {
    const uint64_t end = st->durable_end.load();
    while (!st->chunks.empty() && st->chunks.back().first_offset >= end) {
      st->bytes -= st->chunks.back().bytes;
      st->chunks.pop_back();
    }
    if (st->next_offset.load() != end) {
      st->next_offset.store(end);
      st->epoch.fetch_add(1);
    }
    st->fenced = false;
  }
  if (failed_) {  // RocksDB's recovery event may have cleared it already (no stream was fenced)
    failed_ = false;
    failure_ = Status::OK();
    ++recoveries_;
  }
  return Status::OK();
}

namespace {

// The bytes of the store's write-ahead logs (RocksDB's *.log files), which opening the store replays
// and writes out.
uint64_t WriteAheadLogBytes(const std::string& path) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.path().extension() != ".log") continue;
    std::error_code size_ec;
    const uint64_t size = entry.file_size(size_ec);
    if (!size_ec) bytes += size;
  }
  return bytes;
}

}  // namespace

StoreHealth StreamStore::Impl::Health() const {
  StoreHealth h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    h.writable = !failed_;
    h.error = std::string(failure_.why());
    h.failures = failures_;
    h.recoveries = recoveries_;
    h.needs_reopen = needs_reopen_;
  }
  if (h.needs_reopen) h.reopen_bytes = WriteAheadLogBytes(path_);  // a listing: only when it matters
  return h;
}

StoreHealth StreamStore::Health() const { return impl_->Health(); }

}  // namespace sift::storage
