// `sift stream SUBCOMMAND [--store DIR] ...`: one stream's settings and life.
//
//   create --stream NAME [--max-bytes SIZE] [--max-age DURATION] [--compression none|zstd|zstd:LEVEL]
//       creates the store (when missing) and the stream with that retention and compression; a stream
//       of that name already there is an input error (exit 2): set-retention changes it
//   info --stream NAME [--json]
//       the `sift stats` line of the stream followed by its retention (stream_info.h); read-only
//   set-retention --stream NAME [--max-bytes SIZE] [--max-age DURATION]
//       replaces the limits given (at least one; 0 removes a limit), keeps the other, applies the
//       result at once (deleting the oldest chunks it rules out) and prints the info line
//   delete --stream NAME
//       deletes the stream and every message of it; prints `stream 'NAME' deleted (N messages)`
//   enforce-retention
//       applies every stream's retention now (age limits on streams nobody appends to)
//
// SIZE and DURATION are read strictly (base/units.h: 64MiB, 10G, 7d, 12h); a bad value is a usage
// error naming the flag (exit 2). The writing subcommands need the store to themselves: beside a
// running `sift serve` or append they fail with the store busy (exit 3).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "sift/stream_engine.h"
#include "tools/sift/command.h"
#include "tools/compression_flag.h"
#include "tools/sift/store_flags.h"
#include "tools/sift/stream_info.h"
#include "tools/unit_flags.h"

namespace sift::tools {
namespace {

struct StreamOptions {
  std::string store;
  std::string stream;
  bool json = false;
  std::optional<engine::ChunkCompression> compression;
  uint64_t max_bytes = 0;
  int64_t max_age_ms = 0;
  // set-retention's two flags (create has its own, only their values are read), to tell given from not.
  CLI::Option* max_bytes_flag = nullptr;
  CLI::Option* max_age_flag = nullptr;
};

int PrintInfo(const engine::StreamEngine& engine, const std::string& stream, bool json) {
  engine::StreamInfo info;
  engine::Status status = engine.GetStreamInfo(stream, &info);
  if (!status.ok()) return ReportError(status);
  std::printf("%s\n", FormatStreamInfo(info, json, /*with_retention=*/true).c_str());
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

int RunCreate(const StreamOptions& options) {
  std::unique_ptr<engine::StreamEngine> engine;
  AppendSettings settings;
  settings.compression = options.compression;
  engine::Status status = OpenStore(options.store, StoreUse::kCreate, &engine, settings);
  if (!status.ok()) return ReportError(status);
  engine::StreamInfo info;
  if (engine->GetStreamInfo(options.stream, &info).ok()) {
    return ReportError(engine::Status::AlreadyExists("cannot create stream", options.stream,
                                                     "it exists (sift stream set-retention changes its retention)"));
  }
  status = engine->CreateStream(options.stream, engine::RetentionPolicy{options.max_bytes, options.max_age_ms});
  if (!status.ok()) return ReportError(status);
  return PrintInfo(*engine, options.stream, options.json);
}

int RunInfo(const StreamOptions& options) {
  std::unique_ptr<engine::StreamEngine> engine;
  engine::Status status = OpenStore(options.store, StoreUse::kRead, &engine);
  if (!status.ok()) return ReportError(status);
  return PrintInfo(*engine, options.stream, options.json);
}

int RunSetRetention(const StreamOptions& options, const std::string& command) {
  if (options.max_bytes_flag->count() == 0 && options.max_age_flag->count() == 0) {
    PrintError("usage", command, "give --max-bytes, --max-age or both (see '" + command + " --help')");
    return kExitUsage;
  }
  std::unique_ptr<engine::StreamEngine> engine;
  engine::Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  engine::StreamInfo info;
  status = engine->GetStreamInfo(options.stream, &info);
  if (!status.ok()) return ReportError(status);
  engine::RetentionPolicy retention = info.retention;
  if (options.max_bytes_flag->count() > 0) retention.max_bytes = options.max_bytes;
  if (options.max_age_flag->count() > 0) retention.max_age_ms = options.max_age_ms;
  status = engine->SetRetention(options.stream, retention);
  if (!status.ok()) return ReportError(status);
  return PrintInfo(*engine, options.stream, options.json);
}

int RunDelete(const StreamOptions& options) {
  std::unique_ptr<engine::StreamEngine> engine;
  engine::Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  engine::StreamInfo info;
  status = engine->GetStreamInfo(options.stream, &info);
  if (!status.ok()) return ReportError(status);
  status = engine->DeleteStream(options.stream);
  if (!status.ok()) return ReportError(status);
  std::printf("stream '%s' deleted (%llu messages)\n", options.stream.c_str(),
              static_cast<unsigned long long>(info.message_count));
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

int RunEnforceRetention(const StreamOptions& options) {
  std::unique_ptr<engine::StreamEngine> engine;
  engine::Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  status = engine->EnforceRetention();
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

void AddRetentionFlags(CLI::App* sub, StreamOptions* options) {
  options->max_bytes_flag =
      AddByteSizeOption(sub, "--max-bytes", &options->max_bytes, 0, std::numeric_limits<uint64_t>::max(),
                        "Keep at most this many stored bytes, e.g. 10G (0: no limit)");
  options->max_age_flag =
      AddDurationOption(sub, "--max-age", &options->max_age_ms, 0, std::numeric_limits<int64_t>::max(),
                        "Delete messages older than this, e.g. 7d or 12h (0: no limit)");
}

}  // namespace

Command AddStreamCommand(CLI::App& app) {
  CLI::App* stream = app.add_subcommand("stream", "One stream: create, info, set-retention, delete, enforce-retention");
  stream->require_subcommand(1);
  auto options = std::make_shared<StreamOptions>();

  CLI::App* create = stream->add_subcommand("create", "Create a stream (and the store) with a retention");
  AddStoreFlag(create, &options->store);
  create->add_option("--stream", options->stream, "Stream name")->required();
  AddRetentionFlags(create, options.get());
  AddCompressionFlag(create, &options->compression, "the stream's appends");
  create->add_flag("--json", options->json, "Print the stream as a JSON object");

  CLI::App* info = stream->add_subcommand("info", "Show a stream: messages, offsets, chunks, bytes, retention");
  AddStoreFlag(info, &options->store);
  info->add_option("--stream", options->stream, "Stream name")->required();
  info->add_flag("--json", options->json, "One JSON object");

  CLI::App* set = stream->add_subcommand(
      "set-retention", "Change a stream's retention (limits not given are kept; 0 removes one) and apply it now");
  AddStoreFlag(set, &options->store);
  set->add_option("--stream", options->stream, "Stream name")->required();
  AddRetentionFlags(set, options.get());
  set->add_flag("--json", options->json, "Print the stream as a JSON object");

  CLI::App* del = stream->add_subcommand("delete", "Delete a stream and all its messages");
  AddStoreFlag(del, &options->store);
  del->add_option("--stream", options->stream, "Stream name")->required();

  CLI::App* enforce = stream->add_subcommand("enforce-retention", "Apply every stream's retention now");
  AddStoreFlag(enforce, &options->store);

  return {stream, [=] {
            if (create->parsed()) return RunCreate(*options);
            if (info->parsed()) return RunInfo(*options);
            if (set->parsed()) return RunSetRetention(*options, "sift stream set-retention");
            if (del->parsed()) return RunDelete(*options);
            return RunEnforceRetention(*options);
          }};
}

}  // namespace sift::tools
