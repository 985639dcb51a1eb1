// Private to engine/: the state behind StreamEngine, shared by stream_engine.cc, bulk_load.cc and consumer.cc;
// FromStorage, which completes a status of the store (a code and a why) with the operation and the
// place (what / where / why of the sift error line); and the error for a stream the store lacks.
#ifndef SIFT_ENGINE_STREAM_ENGINE_IMPL_H_
#define SIFT_ENGINE_STREAM_ENGINE_IMPL_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sift/stream_engine.h"
#include "storage/status.h"
#include "storage/stream_store.h"

struct sift::StreamEngine::Impl {
  EngineOptions options;
  std::unique_ptr<storage::StreamStore> store;
};

namespace sift::engine {

struct StreamEngineInternals {
  // StreamEngine::Open with the storage settings the public options do not carry (only `env` is taken
  // from `storage_extra`: a test's fault-injecting file system).
  static Status Open(const std::string& path, const EngineOptions& options, const storage::StoreOptions& storage_extra,
                     std::unique_ptr<StreamEngine>* out);
  // The state behind an engine, for the engine's own files beyond stream_engine.cc (bulk_load.cc).
  static StreamEngine::Impl& ImplOf(const StreamEngine& engine) { return *engine.impl_; }
};

// EngineOptions::validate: every message of a batch, before anything is stored (Malformed names the
// message of the batch and the byte).
Status ValidateBatch(std::span<const std::string_view> messages);

// The status of an append the store refused, completed with the operation and the stream.
Status AppendStatus(const std::string& path, std::string_view stream, const storage::Status& s);

// `what` names the operation ("cannot append"); `where` the store path, stream or offset. The store's
// status says only why, and its why already says where inside the store (stream, chunk, offsets), so it
// stays the why; the code passes through unchanged.
inline Status FromStorage(const storage::Status& s, std::string_view what, std::string_view where) {
  // A damaged chunk is reported as such whatever the operation was: the why names the chunk.
  if (s.IsCorruption()) return s.Rewrap("corrupt chunk", where);
  if (!s.why().empty()) return s.Rewrap(what, where);
  // An empty why would leave the error line without a reason; these codes say enough to give one.
  if (s.IsNotFound()) return Status::NotFound(what, where, "not found");
  if (s.IsAlreadyExists()) return Status::AlreadyExists(what, where, "already exists");
  if (s.IsBusy()) return Status::Busy(what, where, "the store is in use by another process");
  return s.Rewrap(what, where);
}

// The error of every operation on a stream the store at `store_path` does not have.
inline Status NoSuchStream(std::string_view store_path, std::string_view stream) {
  return Status::NotFound("no such stream", stream,
                          "the store " + std::string(store_path) + " has no stream of that name");
}

}  // namespace sift::engine

#endif  // SIFT_ENGINE_STREAM_ENGINE_IMPL_H_
