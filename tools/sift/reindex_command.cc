// `sift reindex [--store DIR] --stream NAME`: builds the chunk summaries and term entries a stream lacks
// (chunks written before summaries or before the term index existed), so filtered replays can skip
// those chunks too. Each chunk's are stored on their own, durably: an interrupted run leaves a usable
// store and a second run finishes the work.
// Prints `stream 'NAME': N chunk summaries built, M already present` on stdout.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "sift/stream_engine.h"
#include "tools/sift/command.h"
#include "tools/sift/store_flags.h"

namespace sift::tools {
namespace {

struct ReindexOptions {
  std::string store;
  std::string stream;
};

int RunReindex(const ReindexOptions& options) {
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  SummarizeCounts counts;
  status = engine->SummarizeChunks(options.stream, &counts);
  if (!status.ok()) return ReportError(status);
  std::printf("stream '%s': %llu chunk summaries built, %llu already present", options.stream.c_str(),
              static_cast<unsigned long long>(counts.built), static_cast<unsigned long long>(counts.present));
  if (counts.left_without > 0) {
    std::printf(
        ", %llu chunks left without one (smaller than their summary, or holding what a summary cannot "
        "describe: always read)",
        static_cast<unsigned long long>(counts.left_without));
  }
  std::printf("\n");
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

}  // namespace

Command AddReindexCommand(CLI::App& app) {
  auto options = std::make_shared<ReindexOptions>();
  CLI::App* sub = app.add_subcommand(
      "reindex", "Build the chunk summaries and term entries a stream lacks (chunks written before them)");
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Stream name")->required();
  return {sub, [options] { return RunReindex(*options); }};
}

}  // namespace sift::tools
