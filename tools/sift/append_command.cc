// `sift append [--store DIR] --stream NAME [--format amqp|json] [--no-sync] [--no-page-cache]
// [--compression CODEC] [--max-chunk-bytes SIZE] [--max-chunk-messages N] [FILE|-]`: stores a record file (or typed
// JSON lines) at the end of a stream, creating the store and the stream when missing, and prints the offset range
// appended
// ("FIRST..LAST") on stdout. The chunk flags bound the chunks this run writes. Every record is
// validated first; a malformed one stops the run (exit 2) naming the record and byte. Messages are
// appended in atomic batches, so an interrupted run leaves a prefix of the input stored, never a torn
// message.
//
// A record file is loaded in large batches through the store's bulk path (AppendOptions::bulk, engine/bulk_load.h:
// chunks written once, as table files, durable whatever --no-sync says); a short tail batch, and
// typed JSON lines (read one at a time, so they may trickle in through a pipe), take the group-commit
// path (AppendBatch), which --no-sync affects. What is written stays in the page cache (the replay
// after an append reads memory) unless --no-page-cache asks for a load larger than memory.
#include <CLI/CLI.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/bulk_load.h"
#include "tools/sift/command.h"
#include "tools/sift/message_input.h"
#include "tools/sift/run_report.h"
#include "tools/compression_flag.h"
#include "tools/sift/store_flags.h"

namespace sift::tools {
namespace {

// Group-commit batches (JSON lines).
constexpr size_t kBatchMessages = 4096;
constexpr size_t kBatchBytes = 4u << 20;
// Bulk batches (record files): each adds two table files to the store, and every table file a store
// holds costs every later opening of the store its opening, so a loaded stream is not cut into
// thousands of them. A batch is read, validated and its chunk summaries built while the one before it
// is stored; 64 MiB (or 256K messages) keeps the two sides in step, where larger batches made loads
// with summaries slower. Nothing is stored until the first batch is checked, so the first is 8 MiB and
// each next one twice the one before up to the full size; and the write of the last batch overlaps no
// check, so a file's last kBulkLastBatchBytes are a batch of their own (halving what was left, down to
// that size, cost a table file ingestion, and its fsyncs, per halving). bench/skip/run times the loads
// these sizes were set by (bench/DECISIONS.md, "Load batch size"). A batch under kBulkMinBytes (a small
// file, the tail of one) is appended the ordinary way.
constexpr size_t kBulkBatchMessages = 1u << 18;
constexpr size_t kBulkBatchBytes = 64u << 20;
constexpr int kBulkFirstBatchShift = 3;
constexpr size_t kBulkMinBytes = 1u << 20;
constexpr size_t kBulkLastBatchBytes = 8u << 20;
// The nice value of the threads that check and summarize the next batch (see StartBatch).
constexpr int kCheckNice = 10;

struct AppendOptions {
  std::string store;
  std::string stream;
  std::string format = "amqp";
  std::string input = "-";
  bool no_sync = false;
  bool no_summary = false;
  bool no_page_cache = false;
  std::optional<ChunkCompression> compression;
  bool stats = false;
  ChunkBounds chunks;
};

// Stores batches at the end of the stream and counts what was stored.
class StreamAppender {
 public:
  StreamAppender(StreamEngine* engine, const std::string& stream, RunReport* report)
      : engine_(engine), stream_(stream), report_(report) {}

  // `progress`: the input's progress once the batch was read (MessageInput::progress()).
  Status Append(std::span<const std::string_view> batch, double progress, bool bulk,
                const engine::IngestPreparation* prepared = nullptr) {
    if (batch.empty()) return Status::OK();
    uint64_t offset = 0;
    Status s = bulk ? engine::IngestBatch(*engine_, stream_, batch, &offset, prepared)
                    : engine_->AppendBatch(stream_, batch, &offset);
    if (!s.ok()) return s;
    if (appended_ == 0) first_ = offset;
    appended_ += batch.size();
    for (const std::string_view m : batch) bytes_ += m.size();
    report_->Progress(first_ + appended_, progress, appended_);
    return Status::OK();
  }

  uint64_t first() const { return first_; }
  uint64_t appended() const { return appended_; }
  uint64_t bytes() const { return bytes_; }  // message bytes stored

 private:
  StreamEngine* engine_;
  const std::string& stream_;
  RunReport* report_;
  uint64_t first_ = 0;
  uint64_t appended_ = 0;
  uint64_t bytes_ = 0;
};

// Records of a file, read for their framing only, with where each lies (for errors).
struct RecordBatch {
  std::vector<std::string_view> messages;
  std::vector<std::pair<uint64_t, uint64_t>> records;  // index and byte position of each
  size_t bytes = 0;
  double progress = 0;                 // the input's, after the batch
  engine::IngestPreparation prepared;  // the bulk path's work done ahead (chunk summaries)

  // Empty for the next batch. The vectors keep their memory: a full batch fills 8 MiB of them, which
  // fresh ones would fault in and regrow every batch, on the thread that reads the framing alone.
  void Clear() {
    messages.clear();
    records.clear();
    bytes = 0;
    progress = 0;
    prepared = engine::IngestPreparation();
  }
};

// Reads records up to the size of bulk batch number `number` (0 for the first).
void ReadBatch(MessageInput* input, RecordBatch* batch, int number) {
  const int shift = std::max(0, kBulkFirstBatchShift - number);
  const size_t max_messages = kBulkBatchMessages >> shift;
  size_t max_bytes = kBulkBatchBytes >> shift;
  if (const std::span<const uint8_t> all = input->record_bytes(); !all.empty()) {
    const size_t left = all.size() - std::min<size_t>(all.size(), input->next_position());
    if (left <= max_bytes && left > 2 * kBulkLastBatchBytes) max_bytes = left - kBulkLastBatchBytes;
  }
  std::span<const uint8_t> message;
  uint64_t index = 0;
  while (batch->messages.size() < max_messages && batch->bytes < max_bytes && input->Next(&message, &index)) {
    batch->messages.emplace_back(reinterpret_cast<const char*>(message.data()), message.size());
    batch->records.emplace_back(index, input->record_position());
    batch->bytes += message.size();
  }
  batch->progress = input->progress();
}

// Validates every record of the batch and does the bulk path's work that needs no store (the chunk
// summaries), so the writing thread only writes: chunk by chunk on every core, each record validated
// by the walk that summarizes it (engine::PrepareIngest), and `check` (the located error)
// run only for a chunk holding a malformed one, or for every chunk when summaries are off.
Status CheckBatch(const StreamEngine& engine, const MessageInput& input, RecordBatch& batch) {
  auto check = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const std::string_view m = batch.messages[i];
      Status s = input.CheckAt(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.data()), m.size()),
                               batch.records[i].first, batch.records[i].second);
      if (!s.ok()) return s;
    }
    return Status::OK();
  };
  if (batch.bytes < kBulkMinBytes) return check(0, batch.messages.size());
  return engine::PrepareIngest(engine, batch.messages, &batch.prepared, check);
}

// Reads batch number `number` (its framing) and checks it (CheckBatch), on a thread of its own (inline
// when no thread can be started), after releasing the record bytes [stored.first, stored.second) of a
// batch stored before (MessageInput::ReleaseRecordBytes: there, not on the writing thread). A batch
// whose framing fails is not checked: the framing error is the run's (input->status()), and nothing of
// that batch is stored.
std::future<Status> StartBatch(const StreamEngine& engine, MessageInput* input, RecordBatch& batch, int number,
                               std::pair<uint64_t, uint64_t> stored = {0, 0}) {
  auto read_and_check = [&engine, input, &batch, number, stored] {
    input->ReleaseRecordBytes(stored.first, stored.second);
    ReadBatch(input, &batch, number);
    Status s = input->status().ok() ? CheckBatch(engine, *input, batch) : Status::OK();
    batch.prepared.Close();  // for a batch that took no PrepareIngest, which the writer may wait to help
    return s;
  };
  try {
    return std::async(std::launch::async, [read_and_check] {
      // The batch is read and checked beside the write of the batch before. When the writer was the
      // critical path, checking and summarizing at full priority took CPU from it on a machine with few
      // cores, which this priority (inherited by the threads the check starts) avoids. Since the writer
      // stopped reading the framing, summaries make the check side the longer one on 2 cores. So the
      // writer, done first, joins the check (IngestPreparation::Help): left alone, the two checking
      // threads could share one core for tens of milliseconds per batch beside the writer's idle one.
      // bench/skip/run times loads with and without summaries (bench/DECISIONS.md, "Checking beside the
      // write: priority and the writer's help"). Best effort: a failure leaves the priority as it was.
      (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kCheckNice);
      return read_and_check();
    });
  } catch (const std::system_error&) {
    std::promise<Status> done;
    done.set_value(read_and_check());
    return done.get_future();
  }
}

// A record file: batches of views into it (no copy), each read and validated in full while the batch
// before it is stored through the bulk path, so the writing thread only writes. A malformed or
// truncated record stops the run; the batches before the one holding it are stored, nothing of that
// one.
Status AppendRecords(const StreamEngine& engine, MessageInput* input, StreamAppender* out) {
  // Two batches that never move: one is read and checked while the other is written.
  RecordBatch batches[2];
  int current = 0;
  int number = 0;
  std::future<Status> ready = StartBatch(engine, input, batches[current], number++);
  for (;;) {
    RecordBatch& now = batches[current];
    Status s = ready.get();  // `now` is read and checked; nothing else uses the input
    if (!s.ok()) return s;
    if (!input->status().ok()) return input->status();
    if (now.messages.empty()) return Status::OK();
    RecordBatch& next = batches[1 - current];
    // The batch before `now`, stored: its bytes end where `now` starts.
    const std::pair<uint64_t, uint64_t> stored =
        next.records.empty() ? std::pair<uint64_t, uint64_t>{0, 0}
                             : std::pair<uint64_t, uint64_t>{next.records.front().second, now.records.front().second};
    next.Clear();
    std::future<Status> next_ready = StartBatch(engine, input, next, number++, stored);
    s = out->Append(now.messages, now.progress, now.bytes >= kBulkMinBytes, &now.prepared);
    if (!s.ok()) {
      next_ready.wait();  // it works on `next` and the input
      return s;
    }
    // Stored first: this thread joins the check of the next batch rather than leave its core idle.
    next.prepared.Help();
    current = 1 - current;
    ready = std::move(next_ready);
  }
}

// Typed JSON lines: read one at a time (they may trickle in through a pipe), each encoded into a
// buffer the next line reuses, so a batch holds copies; appended by group commit.
Status AppendJsonLines(MessageInput* input, StreamAppender* out) {
  std::vector<std::string> copies;
  std::vector<std::string_view> batch;
  size_t used = 0, bytes = 0;
  std::span<const uint8_t> message;
  uint64_t index = 0;
  auto flush = [&] {
    batch.assign(copies.begin(), copies.begin() + static_cast<std::ptrdiff_t>(used));
    used = bytes = 0;
    return out->Append(batch, input->progress(), /*bulk=*/false);
  };
  while (input->Next(&message, &index)) {
    if (used == copies.size()) copies.emplace_back();
    copies[used++].assign(reinterpret_cast<const char*>(message.data()), message.size());
    bytes += message.size();
    if (used >= kBatchMessages || bytes >= kBatchBytes) {
      Status s = flush();
      if (!s.ok()) return s;
    }
  }
  if (!input->status().ok()) return input->status();
  return flush();
}

int RunAppend(const AppendOptions& options) {
  const bool json = options.format == "json";
  std::unique_ptr<MessageInput> input;
  // Records are validated by AppendRecords, batch by batch; JSON lines are encoded well formed.
  Status status = MessageInput::Open(options.input, json ? InputFormat::kJson : InputFormat::kAmqp,
                                     /*validate=*/false, &input);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<StreamEngine> engine;
  AppendSettings settings;
  settings.sync = !options.no_sync;
  settings.summarize = !options.no_summary;
  settings.cache_bulk_writes = !options.no_page_cache;
  settings.chunks = options.chunks;
  settings.compression = options.compression;
  settings.validate = false;  // AppendRecords validates every record, naming the record and byte
  status = OpenStore(options.store, StoreUse::kCreate, &engine, settings);
  if (!status.ok()) return ReportError(status);
  status = CreateStreamToAppend(*engine, options.stream, settings);
  if (!status.ok()) return ReportError(status);

  RunReport report(options.stats);
  StreamAppender out(engine.get(), options.stream, &report);
  status = json ? AppendJsonLines(input.get(), &out) : AppendRecords(*engine, input.get(), &out);
  report.Finish(out.appended(), out.appended(), out.bytes());
  if (out.appended() > 0) {
    std::printf("%llu..%llu\n", static_cast<unsigned long long>(out.first()),
                static_cast<unsigned long long>(out.first() + out.appended() - 1));
    std::fflush(stdout);
  }
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

}  // namespace

Command AddAppendCommand(CLI::App& app) {
  auto options = std::make_shared<AppendOptions>();
  CLI::App* sub =
      app.add_subcommand("append", "Append a record file or typed JSON lines to a stream; prints FIRST..LAST");
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Stream name (created when missing)")->required();
  sub->add_option("--format", options->format, "Input format: amqp (record file) or json (typed JSON lines)")
      ->check(CLI::IsMember({"amqp", "json"}))
      ->capture_default_str();
  sub->add_flag("--no-sync", options->no_sync,
                "Do not fsync each batch (faster; the last batches may be lost on power failure). Record files "
                "are loaded in bulk, durable either way");
  sub->add_flag("--no-summary", options->no_summary,
                "Write no chunk summaries (filtered replays then read every chunk; 'sift reindex' adds them later)");
  sub->add_flag("--no-page-cache", options->no_page_cache,
                "Drop the table files a record file is loaded into from the page cache as they are written (for "
                "loads larger than memory; by default what is appended stays cached for the replays after it)");
  AddChunkFlags(sub, &options->chunks);
  AddCompressionFlag(sub, &options->compression,
                     "this run and the stream's later appends (kept as the stream's setting; default: the stream's)");
  sub->add_flag("--stats", options->stats, "Print a summary line on stderr at the end");
  sub->add_option("input", options->input, "Input file ('-': stdin)")->capture_default_str();
  return {sub, [options] { return RunAppend(*options); }};
}

}  // namespace sift::tools
