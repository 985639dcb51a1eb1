// The --store flag of the store-backed commands and how a command opens the store.
//
// The default store is $SIFT_STORE when set, else ./sift-data. Commands that only read (replay, stats,
// streams) never create a store and open it read-only, so they also work beside a running `sift serve`
// or append (seeing the store as it was when they started). A folder that does not exist is
// "missing", exit code 3, with `sift: cannot open store: DIR: no such directory`. `append` creates the
// store and the stream.
#ifndef SIFT_TOOLS_SIFT_STORE_FLAGS_H_
#define SIFT_TOOLS_SIFT_STORE_FLAGS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sift/status.h"
#include "sift/stream_engine.h"

namespace CLI {
class App;
}

namespace sift::tools {

// Adds --store DIR bound to *store (empty until given).
void AddStoreFlag(CLI::App* command, std::string* store);

// The folder to use: the flag, else $SIFT_STORE, else ./sift-data.
std::string StorePath(const std::string& flag);

// What a command does with the store.
enum class StoreUse {
  kRead,    // reads only: the store must exist; opened read-only (no lock, nothing written)
  kUpdate,  // writes to a store that must exist
  kCreate,  // appends: the store and its folder are created when missing
};

// Chunk bounds of what a writing command appends (storage::StoreOptions max_chunk_bytes and
// max_chunk_messages); 0 keeps the store's default.
struct ChunkBounds {
  uint32_t max_bytes = 0;
  uint32_t max_messages = 0;
};

// Adds --max-chunk-bytes SIZE (1 byte to 1 GiB, tools/unit_flags.h) and --max-chunk-messages N
// (1 to 1048576) bound to *bounds.
void AddChunkFlags(CLI::App* command, ChunkBounds* bounds);

// How a writing command appends (the store's defaults unless a flag says otherwise).
struct AppendSettings {
  bool sync = true;               // StoreOptions::sync
  bool summarize = true;          // EngineOptions::summarize_chunks
  bool cache_bulk_writes = true;  // StoreOptions::cache_bulk_writes
  ChunkBounds chunks;
  // StoreOptions::compression: of the streams the command creates. Unset: the store's default.
  std::optional<ChunkCompression> compression;
  // EngineOptions::validate: off only for a command that validates every message itself before the
  // engine sees it (sift append, which names the record and byte of an error; sift capture, which
  // rejects a malformed message as it arrives).
  bool validate = true;
};

// Opens the store for `use`.
Status OpenStore(const std::string& flag, StoreUse use, std::unique_ptr<StreamEngine>* out,
                 const AppendSettings& append = {});

// Creates `stream` when missing. With append.compression (a --compression flag) that becomes the
// stream's setting, also for a stream that was there, which otherwise keeps its own.
Status CreateStreamToAppend(StreamEngine& engine, const std::string& stream, const AppendSettings& append);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_STORE_FLAGS_H_
