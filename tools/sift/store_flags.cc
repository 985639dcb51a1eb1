// --store and opening the store (see store_flags.h).
#include "tools/sift/store_flags.h"

#include <CLI/CLI.hpp>

#include <cstdlib>

#include "tools/unit_flags.h"

namespace sift::tools {

void AddStoreFlag(CLI::App* command, std::string* store) {
  command->add_option("--store", *store, "Store folder (default: $SIFT_STORE, else ./sift-data)")->type_name("DIR");
}

std::string StorePath(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("SIFT_STORE");
  if (env != nullptr && *env != '\0') return env;
  return "sift-data";
}

void AddChunkFlags(CLI::App* command, ChunkBounds* bounds) {
  AddByteSizeOption(command, "--max-chunk-bytes", &bounds->max_bytes, 1, 1u << 30,
                    "Close a chunk before its records pass this size, e.g. 256KiB (default 1MiB)");
  command->add_option("--max-chunk-messages", bounds->max_messages, "Messages per chunk at most (default 4096)")
      ->check(CLI::Range(1u, 1u << 20))
      ->type_name("N");
}

Status OpenStore(const std::string& flag, StoreUse use, std::unique_ptr<StreamEngine>* out,
                 const AppendSettings& append) {
  EngineOptions options;
  options.store.create_if_missing = use == StoreUse::kCreate;
  options.store.read_only = use == StoreUse::kRead;
  options.store.sync = append.sync;
  options.store.cache_bulk_writes = append.cache_bulk_writes;
  if (append.compression) options.store.compression = *append.compression;
  options.summarize_chunks = append.summarize;
  if (append.chunks.max_bytes > 0) options.store.max_chunk_bytes = append.chunks.max_bytes;
  if (append.chunks.max_messages > 0) options.store.max_chunk_messages = append.chunks.max_messages;
  options.validate = append.validate;
  return StreamEngine::Open(StorePath(flag), options, out);
}

Status CreateStreamToAppend(StreamEngine& engine, const std::string& stream, const AppendSettings& append) {
  Status status = engine.CreateStream(stream);
  if (status.ok() && append.compression) status = engine.SetCompression(stream, *append.compression);
  return status;
}

}  // namespace sift::tools
