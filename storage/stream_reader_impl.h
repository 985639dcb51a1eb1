// The StreamReader implementation over a RocksDB iterator of one stream's chunk keys. Private.
#ifndef SIFT_STORAGE_STREAM_READER_IMPL_H_
#define SIFT_STORAGE_STREAM_READER_IMPL_H_

#include <memory>

#include "storage/options.h"
#include "storage/stream_reader.h"
#include "storage/stream_store.h"

namespace sift::storage {

struct StreamState;

std::unique_ptr<StreamReader> NewChunkReader(StreamStore::Impl* store, std::shared_ptr<StreamState> stream,
                                             const ReaderOptions& options);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STREAM_READER_IMPL_H_
