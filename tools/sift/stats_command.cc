// `sift stats [--store DIR] [--stream NAME] [--json]`: one line per stream on stdout — messages, offset
// range, chunks, stored bytes and the append time range (UTC, ISO 8601), or one JSON object per line.
// Never creates a store: a missing one is exit 3.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sift/stream_engine.h"
#include "tools/sift/command.h"
#include "tools/sift/store_flags.h"
#include "tools/sift/stream_info.h"

namespace sift::tools {
namespace {

struct StatsOptions {
  std::string store;
  std::string stream;
  bool json = false;
};

int RunStats(const StatsOptions& options) {
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kRead, &engine);
  if (!status.ok()) return ReportError(status);
  std::vector<std::string> names;
  if (!options.stream.empty()) {
    names.push_back(options.stream);
  } else {
    status = engine->ListStreams(&names);
    if (!status.ok()) return ReportError(status);
  }
  for (const std::string& name : names) {
    StreamInfo info;
    status = engine->GetStreamInfo(name, &info);
    if (!status.ok()) return ReportError(status);
    const std::string line = FormatStreamInfo(info, options.json, /*with_retention=*/false);
    std::printf("%s\n", line.c_str());
  }
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

}  // namespace

Command AddStatsCommand(CLI::App& app) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* sub = app.add_subcommand("stats", "Show streams: messages, offsets, chunks, bytes, time range");
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Only this stream");
  sub->add_flag("--json", options->json, "One JSON object per stream");
  return {sub, [options] { return RunStats(*options); }};
}

Command AddStreamsCommand(CLI::App& app) {
  auto store = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("streams", "List the streams of a store, one name per line");
  AddStoreFlag(sub, store.get());
  return {sub, [store] {
            std::unique_ptr<StreamEngine> engine;
            Status status = OpenStore(*store, StoreUse::kRead, &engine);
            if (!status.ok()) return ReportError(status);
            std::vector<std::string> names;
            status = engine->ListStreams(&names);
            if (!status.ok()) return ReportError(status);
            for (const std::string& name : names) std::printf("%s\n", name.c_str());
            return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
          }};
}

}  // namespace sift::tools
