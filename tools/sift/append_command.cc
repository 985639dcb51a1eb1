// `sift append [--store DIR] --stream NAME [--format amqp|json] [--no-sync] [FILE|-]`: stores a record
// file (or typed JSON lines) at the end of a stream, creating the store and the stream when missing,
// and prints the offset range appended ("FIRST..LAST") on stdout. Every record is validated first; a
// malformed one stops the run (exit 2) naming the record and byte. Messages are appended in atomic
// batches, so an interrupted run leaves a prefix of the input stored, never a torn message.
//
// A record file is loaded in large batches through the store's bulk path (StreamEngine::IngestBatch:
// chunks written once, as table files, durable whatever --no-sync says); a short tail batch, and
// typed JSON lines (read one at a time, so they may trickle in through a pipe), take the group-commit
// path (AppendBatch), which --no-sync affects.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/sift/command.h"
#include "tools/sift/message_input.h"
#include "tools/sift/run_report.h"
#include "tools/sift/store_flags.h"

namespace sift::tools {
namespace {

// Group-commit batches (JSON lines).
constexpr size_t kBatchMessages = 4096;
constexpr size_t kBatchBytes = 4u << 20;
// Bulk batches (record files): each adds two table files to the store, so they are large; a batch
// under kBulkMinBytes (the tail of a file, a small file) is appended the ordinary way.
constexpr size_t kBulkBatchMessages = 1u << 18;
constexpr size_t kBulkBatchBytes = 64u << 20;
constexpr size_t kBulkMinBytes = 1u << 20;

struct AppendOptions {
  std::string store;
  std::string stream;
  std::string format = "amqp";
  std::string input = "-";
  bool no_sync = false;
  bool stats = false;
};

int RunAppend(const AppendOptions& options) {
  std::unique_ptr<MessageInput> input;
  engine::Status status = MessageInput::Open(
      options.input, options.format == "json" ? InputFormat::kJson : InputFormat::kAmqp, true, &input);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<engine::StreamEngine> engine;
  status = OpenStore(options.store, /*create=*/true, &engine, !options.no_sync);
  if (!status.ok()) return ReportError(status);
  status = engine->CreateStream(options.stream);
  if (!status.ok()) return ReportError(status);

  RunReport report(options.stats);
  // The batch views the input's records where they stay valid (a record file); JSON input reuses its
  // buffer per message, so its messages are copied.
  const bool copy = !input->views_stable();
  const bool bulk = !copy;
  const size_t max_messages = bulk ? kBulkBatchMessages : kBatchMessages;
  const size_t max_bytes = bulk ? kBulkBatchBytes : kBatchBytes;
  std::vector<std::string> copies;
  std::vector<std::string_view> batch;
  batch.reserve(max_messages);
  size_t batch_bytes = 0, used = 0;
  uint64_t appended = 0, first = 0, bytes = 0;
  bool have_first = false;
  auto flush = [&]() -> engine::Status {
    if (used == 0) return engine::Status::OK();
    if (copy) {
      batch.clear();
      for (size_t i = 0; i < used; ++i) batch.emplace_back(copies[i]);
    }
    uint64_t offset = 0;
    engine::Status s = bulk && batch_bytes >= kBulkMinBytes ? engine->IngestBatch(options.stream, batch, &offset)
                                                            : engine->AppendBatch(options.stream, batch, &offset);
    if (!s.ok()) return s;
    if (!have_first) {
      first = offset;
      have_first = true;
    }
    appended += batch.size();
    batch_bytes = 0;
    used = 0;
    batch.clear();
    report.Progress(first + appended, input->progress(), appended);
    return engine::Status::OK();
  };
  std::span<const uint8_t> message;
  uint64_t index = 0;
  while (input->Next(&message, &index)) {
    const std::string_view bytes_view(reinterpret_cast<const char*>(message.data()), message.size());
    if (copy) {
      if (used == copies.size()) copies.emplace_back();
      copies[used].assign(bytes_view);
    } else {
      batch.push_back(bytes_view);
    }
    ++used;
    batch_bytes += message.size();
    bytes += message.size();
    if (used >= max_messages || batch_bytes >= max_bytes) {
      status = flush();
      if (!status.ok()) break;
    }
  }
  if (status.ok()) status = input->status();
  if (status.ok()) status = flush();
  report.Finish(appended, appended, bytes);
  if (appended > 0) {
    std::printf("%llu..%llu\n", static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(first + appended - 1));
    std::fflush(stdout);
  }
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

}  // namespace

Command AddAppendCommand(CLI::App& app) {
  auto options = std::make_shared<AppendOptions>();
  CLI::App* sub = app.add_subcommand("append", "Append a record file or typed JSON lines to a stream; prints FIRST..LAST");
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Stream name (created when missing)")->required();
  sub->add_option("--format", options->format, "Input format: amqp (record file) or json (typed JSON lines)")
      ->check(CLI::IsMember({"amqp", "json"}))->capture_default_str();
  sub->add_flag("--no-sync", options->no_sync,
                "Do not fsync each batch (faster; the last batches may be lost on power failure). Record files "
                "are loaded in bulk, durable either way");
  sub->add_flag("--stats", options->stats, "Print a summary line on stderr at the end");
  sub->add_option("input", options->input, "Input file ('-': stdin)")->capture_default_str();
  return {sub, [options] { return RunAppend(*options); }};
}

}  // namespace sift::tools
