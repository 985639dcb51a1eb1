// `sift stats [--store DIR] [--stream NAME] [--json]`: one line per stream on stdout — messages, offset
// range, chunks, stored bytes and the append time range (UTC, ISO 8601), or one JSON object per line.
// Never creates a store: a missing one is exit 3.
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "sift/stream_engine.h"
#include "tools/sift/command.h"
#include "tools/sift/store_flags.h"

namespace sift::tools {
namespace {

struct StatsOptions {
  std::string store;
  std::string stream;
  bool json = false;
};

std::string IsoTime(int64_t ms) {
  if (ms == 0) return "-";
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm;
  gmtime_r(&seconds, &tm);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

int RunStats(const StatsOptions& options) {
  std::unique_ptr<engine::StreamEngine> engine;
  engine::Status status = OpenStore(options.store, StoreUse::kRead, &engine);
  if (!status.ok()) return ReportError(status);
  std::vector<std::string> names;
  if (!options.stream.empty()) {
    names.push_back(options.stream);
  } else {
    status = engine->ListStreams(&names);
    if (!status.ok()) return ReportError(status);
  }
  for (const std::string& name : names) {
    engine::StreamInfo info;
    status = engine->GetStreamInfo(name, &info);
    if (!status.ok()) return ReportError(status);
    std::string line;
    if (options.json) {
      nlohmann::ordered_json j;
      j["stream"] = info.name;
      j["messages"] = info.message_count;
      j["first_offset"] = info.first_offset;
      j["next_offset"] = info.next_offset;
      j["chunks"] = info.chunk_count;
      j["bytes"] = info.bytes;
      j["first_timestamp"] = info.first_timestamp_ms;
      j["last_timestamp"] = info.last_timestamp_ms;
      line = j.dump();
    } else {
      const std::string range = info.message_count == 0
                                    ? "-"
                                    : std::to_string(info.first_offset) + ".." + std::to_string(info.next_offset - 1);
      line = info.name + " messages=" + std::to_string(info.message_count) + " offsets=" + range +
             " chunks=" + std::to_string(info.chunk_count) + " bytes=" + std::to_string(info.bytes) +
             " first=" + IsoTime(info.first_timestamp_ms) + " last=" + IsoTime(info.last_timestamp_ms);
    }
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
            std::unique_ptr<engine::StreamEngine> engine;
            engine::Status status = OpenStore(*store, StoreUse::kRead, &engine);
            if (!status.ok()) return ReportError(status);
            std::vector<std::string> names;
            status = engine->ListStreams(&names);
            if (!status.ok()) return ReportError(status);
            for (const std::string& name : names) std::printf("%s\n", name.c_str());
            return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
          }};
}

}  // namespace sift::tools
