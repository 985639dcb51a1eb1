// A RocksDB file system that slows or fails writes on command, for the durability tests: a sync of
// the write-ahead log that blocks until released, a sync that fails, and a full disk (every write,
// sync and allocation fails with ENOSPC). Everything else passes through to the default file system.
// RocksDB's info log ("LOG") is never touched: RocksDB ignores its failures anyway.
//
// Plugged into a store through storage::StoreOptions::env (NewEnv()); the controls may be called from
// any thread while the store runs.
#ifndef SIFT_TESTS_SUPPORT_FAULT_FILE_SYSTEM_H_
#define SIFT_TESTS_SUPPORT_FAULT_FILE_SYSTEM_H_

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace sift::testing {

class FaultFileSystem : public rocksdb::FileSystemWrapper {
 public:
  FaultFileSystem() : rocksdb::FileSystemWrapper(rocksdb::FileSystem::Default()) {}

  static std::shared_ptr<FaultFileSystem> Make() { return std::make_shared<FaultFileSystem>(); }
  static std::shared_ptr<rocksdb::Env> NewEnv(const std::shared_ptr<FaultFileSystem>& fs) {
    return std::shared_ptr<rocksdb::Env>(rocksdb::NewCompositeEnv(fs).release());
  }

  const char* Name() const override { return "SiftFaultFileSystem"; }

  // Syncs of the write-ahead log wait while blocked (the sync itself happens after the release).
  void BlockLogSyncs(bool blocked) {
    std::lock_guard<std::mutex> lock(mu_);
    block_log_syncs_ = blocked;
    cv_.notify_all();
  }
  // Waits until a log sync is waiting on the block; false after `timeout`.
  bool WaitForBlockedSync(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return blocked_syncs_ > 0; });
  }
  // Syncs of the write-ahead log fail (an I/O error), without syncing. A retryable error is one the
  // device says may pass (RocksDB resumes from it); another is fatal to RocksDB until reopened.
  void FailLogSyncs(bool fail, bool retryable = false) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_log_syncs_ = fail;
    retryable_ = retryable;
  }
  // The disk is full: appends, syncs and allocations of every file fail with ENOSPC. With
  // `tables_only`, only those of table files (*.sst): the log still takes writes, and a background
  // flush is what fails.
  void SetDiskFull(bool full, bool tables_only = false) {
    std::lock_guard<std::mutex> lock(mu_);
    disk_full_ = full;
    tables_only_ = tables_only;
  }
  int failed_calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failed_calls_;
  }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    rocksdb::IOStatus s = target()->NewWritableFile(name, options, &file, dbg);
    if (!s.ok()) return s;
    result->reset(new File(this, name, std::move(file)));
    return s;
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    rocksdb::IOStatus s = target()->ReopenWritableFile(name, options, &file, dbg);
    if (!s.ok()) return s;
    result->reset(new File(this, name, std::move(file)));
    return s;
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    rocksdb::IOStatus s = target()->ReuseWritableFile(name, old_name, options, &file, dbg);
    if (!s.ok()) return s;
    result->reset(new File(this, name, std::move(file)));
    return s;
  }

 private:
  enum class Op { kWrite, kSync };

  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(FaultFileSystem* fs, const std::string& name, std::unique_ptr<rocksdb::FSWritableFile> file)
        : rocksdb::FSWritableFileOwnerWrapper(std::move(file)),
          fs_(fs),
          log_(name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0),
          table_(name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0),
          info_log_(name.size() >= 4 && name.compare(name.size() - 4, 4, "/LOG") == 0) {}

    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kWrite, log_, table_, info_log_); !s.ok()) return s;
      return target()->Append(data, o, dbg);
    }
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                             const rocksdb::DataVerificationInfo& v, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kWrite, log_, table_, info_log_); !s.ok()) return s;
      return target()->Append(data, o, v, dbg);
    }
    rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kWrite, log_, table_, info_log_); !s.ok()) return s;
      return target()->PositionedAppend(data, offset, o, dbg);
    }
    rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const rocksdb::IOOptions& o,
                                       const rocksdb::DataVerificationInfo& v, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kWrite, log_, table_, info_log_); !s.ok()) return s;
      return target()->PositionedAppend(data, offset, o, v, dbg);
    }
    rocksdb::IOStatus Allocate(uint64_t offset, uint64_t len, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kWrite, log_, table_, info_log_); !s.ok()) return s;
      return target()->Allocate(offset, len, o, dbg);
    }
    rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kSync, log_, table_, info_log_); !s.ok()) return s;
      return target()->Sync(o, dbg);
    }
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kSync, log_, table_, info_log_); !s.ok()) return s;
      return target()->Fsync(o, dbg);
    }
    rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const rocksdb::IOOptions& o,
                                rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus s = fs_->Check(Op::kSync, log_, table_, info_log_); !s.ok()) return s;
      return target()->RangeSync(offset, nbytes, o, dbg);
    }

   private:
    FaultFileSystem* const fs_;
    const bool log_;
    const bool table_;
    const bool info_log_;
  };

  rocksdb::IOStatus Check(Op op, bool log, bool table, bool info_log) {
    if (info_log) return rocksdb::IOStatus::OK();
    std::unique_lock<std::mutex> lock(mu_);
    if (disk_full_ && (table || !tables_only_)) {
      ++failed_calls_;
      return rocksdb::IOStatus::NoSpace("injected: no space left on device");
    }
    if (op == Op::kSync && log) {
      if (block_log_syncs_) {
        ++blocked_syncs_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return !block_log_syncs_; });
        --blocked_syncs_;
      }
      if (fail_log_syncs_) {
        ++failed_calls_;
        rocksdb::IOStatus s = rocksdb::IOStatus::IOError("injected: log sync failed");
        s.SetRetryable(retryable_);
        return s;
      }
    }
    return rocksdb::IOStatus::OK();
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool block_log_syncs_ = false;
  int blocked_syncs_ = 0;
  bool fail_log_syncs_ = false;
  bool retryable_ = false;
  bool disk_full_ = false;
  bool tables_only_ = false;
  int failed_calls_ = 0;
};

}  // namespace sift::testing

#endif  // SIFT_TESTS_SUPPORT_FAULT_FILE_SYSTEM_H_
