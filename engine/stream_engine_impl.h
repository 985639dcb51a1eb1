// Private to engine/: the state behind StreamEngine, shared by stream_engine.cc and consumer.cc, and
// the mapping of storage::Status onto engine::Status (what / where / why of the sift error line).
#ifndef SIFT_ENGINE_STREAM_ENGINE_IMPL_H_
#define SIFT_ENGINE_STREAM_ENGINE_IMPL_H_

#include <memory>
#include <string>
#include <string_view>

#include "sift/stream_engine.h"
#include "storage/status.h"
#include "storage/stream_store.h"

namespace sift::engine {

struct StreamEngine::Impl {
  EngineOptions options;
  std::unique_ptr<storage::StreamStore> store;
};

struct StreamEngineInternals {
  // StreamEngine::Open with the storage settings the public options do not carry (only `env` is taken
  // from `storage_extra`: a test's fault-injecting file system).
  static Status Open(const std::string& path, const EngineOptions& options, const storage::StoreOptions& storage_extra,
                     std::unique_ptr<StreamEngine>* out);
};

// `what` names the operation ("cannot append"); `where` the store path, stream or offset. The storage
// message already says where inside the store (stream, chunk, offsets), so it becomes the why.
inline Status FromStorage(const storage::Status& s, std::string_view what, std::string_view where) {
  using Code = storage::Status::Code;
  std::string why(s.why());
  switch (s.code()) {
    case Code::kOk: return Status::OK();
    case Code::kNotFound: return Status::NotFound(what, where, why.empty() ? "not found" : why);
    case Code::kCorruption: return Status::Corruption("corrupt chunk", where, why);
    case Code::kInvalidArgument: return Status::InvalidArgument(what, where, why);
    case Code::kMalformed: return Status::Malformed(what, where, why);
    case Code::kAlreadyExists: return Status::AlreadyExists(what, where, why.empty() ? "already exists" : why);
    case Code::kBusy: return Status::Busy(what, where, why.empty() ? "the store is in use by another process" : why);
    case Code::kIOError: return Status::IOError(what, where, why);
    case Code::kNotSupported: return Status::NotSupported(what, where, why);
  }
  return Status::IOError(what, where, why);
}

}  // namespace sift::engine

#endif  // SIFT_ENGINE_STREAM_ENGINE_IMPL_H_
