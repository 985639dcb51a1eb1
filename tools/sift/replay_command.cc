// `sift replay [--store DIR] --stream NAME [FILTER...] [-o beginning|end|last|N|-N|s@MS] [--until N|e@MS]
//  [-c COUNT] [--follow] [-f offsets|json|count|amqp] [--on-corruption stop|skip] [--stats]`:
// a filtered read of a stored stream through Consumer. Positions: -o beginning (default) the
// oldest message, end only messages appended from now on, last the newest message, N the offset N,
// -N the last N messages, s@MS the first message appended at or after MS (ms since the epoch).
// --until N stops before offset N, --until e@MS before the first message appended after MS: the
// range is [start, end). Without --follow the replay ends at the end of the stream as it was when it
// started; with --follow it waits for appends (until --until or -c is reached, or it is killed).
// Without --follow the range is scanned on --threads threads (default: every core) through
// StreamEngine::ParallelScan, with the output in offset order all the same. With --follow, each run of
// offsets retention deleted before the replay read them (Consumer::retention_gap) is one line
// on stderr, between the matches before it and those after:
//   sift: replay: stream 'orders': offsets 5..69 were deleted by retention before they were read; resuming at 70
#include <CLI/CLI.hpp>

#include <charconv>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "sift/consumer.h"
#include "sift/stream_engine.h"
#include "tools/sift/command.h"
#include "tools/sift/filter_flags.h"
#include "tools/sift/output.h"
#include "tools/sift/publish_flags.h"
#include "tools/sift/run_report.h"
#include "tools/sift/store_flags.h"

namespace sift::tools {
namespace {

struct ReplayOptions {
  std::string store;
  std::string stream;
  FilterFlags filters;
  std::string offset = "beginning";
  std::string until;
  uint64_t count = 0;
  bool follow = false;
  std::string output_format = "offsets";
  std::string on_corruption = "stop";
  bool stats = false;
  bool no_skip = false;
  uint32_t threads = 0;  // 0: one per core
  PublishFlags publish;  // --to: the matches go to a broker
};

// The replay's output side of a parallel scan: matches to the writer, in order, up to -c.
class ReplaySink : public ScanSink {
 public:
  ReplaySink(MatchWriter* writer, RunReport* report, uint64_t limit, uint64_t first_offset)
      : writer_(writer), report_(report), limit_(limit), first_offset_(first_offset) {}

  bool Deliver(const Delivery& delivery) override {
    status_ = writer_->Add(delivery.offset(), delivery.bytes());
    if (!status_.ok()) return false;
    return limit_ == 0 || writer_->matched() < limit_;
  }
  void Progress(uint64_t scanned, uint64_t total) override {
    // Ranges run side by side, so "where" is how far the scan would be had it run alone.
    report_->Progress(first_offset_ + scanned,
                      total == 0 ? -1 : static_cast<double>(scanned) / static_cast<double>(total), scanned);
  }
  const Status& status() const { return status_; }

 private:
  MatchWriter* writer_;
  RunReport* report_;
  uint64_t limit_;
  uint64_t first_offset_;
  Status status_;
};

bool ParseUnsigned(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool ParseSigned(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool ParseStart(const std::string& text, StartPosition* out) {
  uint64_t n = 0;
  int64_t ms = 0;
  if (text == "beginning" || text == "first") {
    *out = StartPosition::First();
  } else if (text == "end" || text == "next") {
    *out = StartPosition::Next();
  } else if (text == "last") {
    *out = StartPosition::Last();
  } else if (text.rfind("s@", 0) == 0 && ParseSigned(std::string_view(text).substr(2), &ms)) {
    *out = StartPosition::Timestamp(ms);
  } else if (text.size() > 1 && text[0] == '-' && ParseUnsigned(std::string_view(text).substr(1), &n)) {
    *out = StartPosition::FromEnd(n);
  } else if (ParseUnsigned(text, &n)) {
    *out = StartPosition::Offset(n);
  } else {
    return false;
  }
  return true;
}

bool ParseEnd(const std::string& text, EndPosition* out) {
  uint64_t n = 0;
  int64_t ms = 0;
  if (text.empty()) {
    *out = EndPosition::None();
  } else if (text.rfind("e@", 0) == 0 && ParseSigned(std::string_view(text).substr(2), &ms)) {
    *out = EndPosition::Timestamp(ms);
  } else if (ParseUnsigned(text, &n)) {
    *out = EndPosition::Offset(n);
  } else {
    return false;
  }
  return true;
}

// The end of a replay, parallel or not: flush the output, print the stats line, report the error or
// the skipped chunks, and choose the exit code.
int FinishReplay(const std::string& stream, const Status& status, const ConsumerStats& stats,
                 const Status& last_corruption, MatchWriter* writer, RunReport* report,
                 const amqp_client::Publisher* publisher) {
  Status flushed = writer->Finish(/*complete=*/status.ok());
  std::string extra = ", chunks " + std::to_string(stats.chunks);
  if (stats.chunks_pruned > 0) {
    extra += ", chunks skipped by summary " + std::to_string(stats.chunks_pruned) + " (" +
             std::to_string(stats.bytes_pruned) + " bytes not read)";
  }
  if (stats.summary_bytes_read > 0) extra += ", summaries read " + std::to_string(stats.summary_bytes_read) + " bytes";
  if (stats.chunks_corrupt > 0) extra += ", corrupt chunks skipped " + std::to_string(stats.chunks_corrupt);
  if (stats.retention_lost > 0) extra += ", deleted by retention before read " + std::to_string(stats.retention_lost);
  report->Finish(stats.scanned, writer->matched(), stats.bytes, extra + PublishStats(publisher));
  if (!status.ok()) return ReportError(status);
  if (!flushed.ok()) return ReportError(flushed);
  if (stats.chunks_corrupt > 0) {
    PrintError("warning", stream,
               "skipped " + std::to_string(stats.chunks_corrupt) +
                   " corrupt chunk(s); last: " + std::string(last_corruption.why()));
  }
  return MatchExitCode(writer->reported());
}

// The line for offsets [gap.first, gap.end) found deleted; a replay that ends at gap.end resumes nowhere.
void ReportRetentionGap(const std::string& stream, const RetentionGap& gap, bool done) {
  std::string why = "offsets " + std::to_string(gap.first) + ".." + std::to_string(gap.end - 1) +
                    " were deleted by retention before they were read";
  if (!done) why += "; resuming at " + std::to_string(gap.end);
  PrintError("replay", "stream '" + stream + "'", why);
}

int RunReplay(const ReplayOptions& options) {
  ConsumerOptions consumer_options;
  consumer_options.stream = options.stream;
  if (!ParseStart(options.offset, &consumer_options.start)) {
    PrintError("usage", "sift replay: --offset " + options.offset,
               "expected beginning, end, last, N, -N or s@MS (see 'sift replay --help')");
    return kExitUsage;
  }
  if (!ParseEnd(options.until, &consumer_options.end)) {
    PrintError("usage", "sift replay: --until " + options.until, "expected N or e@MS (see 'sift replay --help')");
    return kExitUsage;
  }
  if (!CompileFilterFlags(options.filters, &consumer_options.filter)) return kExitUsage;
  OutputFormat format;
  ParseOutputFormat(options.output_format, &format);
  consumer_options.follow = options.follow;
  consumer_options.skip_chunks = !options.no_skip;
  consumer_options.on_corruption = options.on_corruption == "skip" ? CorruptionPolicy::kSkip : CorruptionPolicy::kStop;
  consumer_options.credit = 1024;
  // One process, one pass: the store's block cache starts empty and is dropped at exit, so filling
  // it would only add copies and evictions; the OS page cache is what keeps a stream warm.
  consumer_options.fill_cache = false;
  if (options.count != 0 && options.count < consumer_options.credit) {
    consumer_options.credit = static_cast<uint32_t>(options.count);
  }

  std::unique_ptr<ByteSink> sink;
  if (int code = OpenStdout(format, "sift replay", &sink); code != 0) return code;
  // A bounded replay reads the store as it is now (read-only: it works beside a process appending to
  // it); --follow waits for appends, which only its own opening of the store would see.
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, options.follow ? StoreUse::kUpdate : StoreUse::kRead, &engine);
  if (!status.ok()) return ReportError(status);
  StreamInfo info;
  status = engine->GetStreamInfo(options.stream, &info);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<Consumer> consumer;
  status = engine->NewConsumer(consumer_options, &consumer);
  if (!status.ok()) return ReportError(status);

  // Stored messages were validated when appended; each delivered one is checked again all the same
  // (the filter reads only what it needs, so nothing else vouches for the bytes sent out).
  MatchWriter writer(format, sink.get(), /*validate=*/true,
                     options.threads != 0 ? options.threads : std::thread::hardware_concurrency());
  std::unique_ptr<amqp_client::Publisher> publisher;
  if (int code = StartPublishing(options.publish, "sift replay", format, &writer, &publisher); code != 0) return code;
  RunReport report(options.stats);
  if (!options.follow) {
    const uint64_t first_offset = consumer->position();
    consumer.reset();  // ParallelScan opens its own consumers
    ParallelScanOptions scan;
    scan.consumer = consumer_options;
    scan.consumer.credit = 4096;
    scan.threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    ReplaySink replay_sink(&writer, &report, options.count, first_offset);
    ParallelScanStats scan_stats;
    status = engine->ParallelScan(scan, &replay_sink, &scan_stats);
    if (status.ok()) status = replay_sink.status();
    return FinishReplay(options.stream, status, scan_stats.consumer, scan_stats.last_corruption, &writer, &report,
                        publisher.get());
  }
  DeliveryBatch batch;
  const uint64_t range_start = consumer->position();
  const uint64_t range_end = consumer_options.end.kind == EndPosition::Kind::kOffset
                                 ? std::min(consumer_options.end.offset, info.next_offset)
                                 : info.next_offset;
  bool limit_reached = false;
  while (!consumer->done() && !limit_reached) {
    status = consumer->Poll(&batch, std::chrono::milliseconds(options.follow ? 200 : 0));
    const RetentionGap gap = consumer->retention_gap();
    bool gap_reported = gap.empty();
    for (const Delivery& delivery : batch) {
      if (!gap_reported && delivery.offset() >= gap.end) {
        // After the matches before the gap (those already written): a terminal shows it where offsets jump.
        (void)sink->Flush();
        ReportRetentionGap(options.stream, gap, /*done=*/false);
        gap_reported = true;
      }
      Status s = writer.Add(delivery.offset(), delivery.bytes());
      if (!s.ok()) {
        status = s;
        break;
      }
      if (options.count != 0 && writer.matched() >= options.count) {
        limit_reached = true;
        break;
      }
    }
    if (!gap_reported && !limit_reached && status.ok()) {
      (void)sink->Flush();
      ReportRetentionGap(options.stream, gap, consumer->done());
    }
    if (!status.ok()) break;
    if (options.follow && !batch.empty()) (void)sink->Flush();  // a tail shows matches as they come
    const uint64_t position = consumer->position();
    const double fraction =
        range_end > range_start && !options.follow
            ? static_cast<double>(position - std::min(position, range_start)) / (range_end - range_start)
            : -1;
    report.Progress(position, fraction, consumer->stats().scanned);
  }
  return FinishReplay(options.stream, status, consumer->stats(), consumer->last_corruption(), &writer, &report,
                      publisher.get());
}

}  // namespace

Command AddReplayCommand(CLI::App& app) {
  auto options = std::make_shared<ReplayOptions>();
  CLI::App* sub = app.add_subcommand("replay", "Replay a stored stream through filters");
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Stream name")->required();
  AddFilterFlags(sub, &options->filters);
  sub->add_option("-o,--offset", options->offset,
                  "Start: beginning, end (new messages only), last, N (offset), -N (last N), s@MS (timestamp)")
      ->capture_default_str()
      ->allow_extra_args(false);
  sub->add_option("--until", options->until, "End (exclusive): N (offset) or e@MS (append timestamp)");
  sub->add_option("-c,--count", options->count, "Stop after this many matches (0: no limit)");
  sub->add_flag("--follow", options->follow, "At the end of the stream, wait for new messages");
  sub->add_option("-f,--output-format", options->output_format, "Output: offsets, json, count or amqp")
      ->check(CLI::IsMember({"offsets", "json", "count", "amqp"}))
      ->capture_default_str();
  sub->add_option("--on-corruption", options->on_corruption, "A corrupt chunk: stop (exit 3) or skip it")
      ->check(CLI::IsMember({"stop", "skip"}))
      ->capture_default_str();
  sub->add_flag("--stats", options->stats, "Print a summary line on stderr at the end");
  sub->add_flag("--no-skip", options->no_skip,
                "Read every chunk, even those whose summary shows no message can match (same result, slower)");
  sub->add_option("--threads", options->threads,
                  "Threads scanning the range (0: one per core; ignored with --follow); output stays in order")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  AddPublishFlags(sub, &options->publish);
  return {sub, [options] { return RunReplay(*options); }};
}

}  // namespace sift::tools
