// The --store flag of the store-backed commands and how a command opens the store.
//
// The default store is $SIFT_STORE when set, else ./sift-data. Commands that only read (replay, stats,
// streams) never create a store: a folder that does not exist is "missing", exit code 3, with
// `sift: cannot open store: DIR: no such directory`. `append` creates the store and the stream.
#ifndef SIFT_TOOLS_SIFT_STORE_FLAGS_H_
#define SIFT_TOOLS_SIFT_STORE_FLAGS_H_

#include <memory>
#include <string>

#include "engine/status.h"
#include "engine/stream_engine.h"

namespace CLI {
class App;
}

namespace sift::tools {

// Adds --store DIR bound to *store (empty until given).
void AddStoreFlag(CLI::App* command, std::string* store);

// The folder to use: the flag, else $SIFT_STORE, else ./sift-data.
std::string StorePath(const std::string& flag);

// Opens the store for reading (never creates it) or for appending (creates it when missing).
// `summarize`: appends write chunk summaries (EngineOptions::summarize_chunks).
engine::Status OpenStore(const std::string& flag, bool create, std::unique_ptr<engine::StreamEngine>* out,
                         bool sync = true, bool summarize = true);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_STORE_FLAGS_H_
