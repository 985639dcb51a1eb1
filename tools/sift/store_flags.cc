// --store and opening the store (see store_flags.h).
#include "tools/sift/store_flags.h"

#include <CLI/CLI.hpp>

#include <cstdlib>

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

engine::Status OpenStore(const std::string& flag, StoreUse use, std::unique_ptr<engine::StreamEngine>* out, bool sync,
                         bool summarize) {
  engine::EngineOptions options;
  options.store.create_if_missing = use == StoreUse::kCreate;
  options.store.read_only = use == StoreUse::kRead;
  options.store.sync = sync;
  options.summarize_chunks = summarize;
  // The CLI validates every record as it reads it (naming the record and byte), before the engine.
  options.validate = false;
  return engine::StreamEngine::Open(StorePath(flag), options, out);
}

}  // namespace sift::tools
