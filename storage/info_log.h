// RocksDB's diagnostic log ("info log") for a store opened for writing, written so that a full disk
// costs log lines and nothing else.
//
// RocksDB's own info log writes through a WritableFileWriter, which refuses every call after a failed
// write; a build with assertions on (Debian's) aborts the process on the next line instead. On a full
// disk that is the first thing to fail, before any append, so the store gets a log of its own: lines
// go to <dir>/LOG with one write(2) each, a line that cannot be written is dropped (and counted in the
// next line that can), and nothing here ever reports an error to RocksDB.
#ifndef SIFT_STORAGE_INFO_LOG_H_
#define SIFT_STORAGE_INFO_LOG_H_

#include <rocksdb/env.h>

#include <memory>
#include <string>

namespace sift::storage {

// The info log of the store in `dir`. Its LOG file is opened on the first line (RocksDB logs before it
// creates a new store's folder); a LOG left by an earlier open becomes LOG.old.<microseconds>, and
// only the newest `keep_old` of those are kept. A LOG that grows past `max_bytes` is rotated alike.
std::shared_ptr<rocksdb::Logger> NewStoreInfoLog(const std::string& dir, size_t keep_old, uint64_t max_bytes);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_INFO_LOG_H_
