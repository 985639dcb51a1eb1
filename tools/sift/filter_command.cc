// `sift filter [FILTER...] [--format amqp|json] [-f offsets|json|count|amqp] [-c COUNT] [--strict] [--stats] [FILE|-]`:
// offline filtering, no store. Reads a record file (or typed JSON lines), evaluates the filter-set on
// each message in place (engine::MessageFilter: the text prefilter, then each section read at most
// once) and writes the matches; a message's index in the input is its offset.
//
// Validation is lazy, as the reads are: record framing is always checked, and a record is validated
// in full when it is delivered or when the filter read malformed bytes in it (its "no" would rest on
// them); a record the filter rejects on well-formed fields is not read further. --strict validates
// every record before the filter sees it, for a whole-file verdict. Either way a malformed record
// stops the run with exit 2 naming the record and the byte, and no count is printed.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "amqp/record_file.h"
#include "amqp/validate.h"
#include "engine/compiled_filter.h"
#include "engine/message_filter.h"
#include "tools/sift/command.h"
#include "tools/sift/filter_flags.h"
#include "tools/sift/message_input.h"
#include "tools/sift/ordered_batches.h"
#include "tools/sift/output.h"
#include "tools/sift/publish_flags.h"
#include "tools/sift/run_report.h"

namespace sift::tools {
namespace {

struct FilterOptions {
  FilterFlags filters;
  std::string input = "-";
  std::string input_format = "amqp";
  std::string output_format = "offsets";
  uint64_t count = 0;  // 0: no limit
  bool stats = false;
  bool strict = false;
  uint32_t threads = 0;  // 0: chosen (see RunFilter)
  PublishFlags publish;  // --to: the matches go to a broker
};

// The stretch of records timed before choosing to filter the rest in parallel, and the cost per record
// from which that pays: a record the text prefilter rejects is cheaper than this and filters no faster
// on two threads, one that runs several numeric comparisons is dearer and gains. Set between the two
// from `sift filter` timed both ways on the shapes of bench/RESULTS.md ("Filter benchmark, every row"); a machine of
// another speed moves both costs alike.
constexpr uint64_t kProbeRecords = 32768;
constexpr double kParallelNsPerRecord = 400;

// The run's outputs and counts, shared by the sequential and the parallel loop.
struct FilterRun {
  MatchWriter* writer;
  RunReport* report;
  uint64_t limit = 0;  // -c: stop after this many matches (0: no limit)
  uint64_t scanned = 0;
  uint64_t bytes = 0;
  bool limit_reached = false;

  Status Deliver(uint64_t index, std::span<const uint8_t> message) {
    Status s = writer->Add(index, std::string_view(reinterpret_cast<const char*>(message.data()), message.size()));
    if (s.ok() && limit != 0 && writer->matched() >= limit) limit_reached = true;
    return s;
  }
};

// One record's fate: validated in full when --strict, when it matched, or when the filter read
// malformed bytes in it; delivered when it matched.
Status Decide(const MessageInput& input, engine::MessageFilter* filter, bool strict, std::span<const uint8_t> message,
              uint64_t index, uint64_t position, bool* matched) {
  *matched = filter->Matches(message);
  if (strict || *matched || filter->read_malformed()) return input.CheckAt(message, index, position);
  return Status::OK();
}

// Filters records until the input ends, `max_records` were read (0: no limit) or the next record starts
// at or past `stop_position`; *more says which.
Status FilterSequentially(MessageInput* input, engine::MessageFilter* filter, bool strict, FilterRun* run,
                          uint64_t max_records = 0, bool* more = nullptr, uint64_t stop_position = UINT64_MAX) {
  std::span<const uint8_t> message;
  uint64_t index = 0;
  uint64_t read = 0;
  uint64_t released = input->next_position();
  if (more != nullptr) *more = false;
  for (;;) {
    if ((max_records != 0 && read == max_records) || input->next_position() >= stop_position) {
      if (more != nullptr) *more = true;  // the caller goes on
      return Status::OK();
    }
    if (!input->Next(&message, &index)) break;
    ++read;
    ++run->scanned;
    run->bytes += message.size();
    bool matched = false;
    Status s = Decide(*input, filter, strict, message, index, input->record_position(), &matched);
    if (s.ok() && matched) s = run->Deliver(index, message);
    if (!s.ok()) return s;
    if (run->limit_reached) return Status::OK();
    if ((run->scanned & 0xffff) == 0) run->report->Progress(index, input->progress(), run->scanned);
    input->ReleasePassed(input->next_position(), &released);
  }
  return input->status();
}

// A record file cut in two: two threads filter with no handover at all, where FilterInParallel's reader
// takes a cache miss on each record's length, far ahead of the filtering (more than a prefilter reject
// costs, tens of nanoseconds). The file is cut at a guessed record boundary near the middle of
// what is left; a second thread filters from there while this one filters up to it. The guess holds
// when this thread's reading lands exactly on the cut: the records from there on are then the ones the
// second thread read, and its matches follow this thread's, their indexes shifted by the records before
// the cut. When the reading passes over the cut (the guess fell inside a record), the second part met a
// malformed record, or the run stops before the cut, the second part's work is dropped and this thread
// reads on: the output and every error are those of a sequential run.
constexpr uint64_t kSplitMinBytes = 4u << 20;
constexpr size_t kSplitSearchBytes = 1u << 20;
constexpr int kSplitChain = 64;  // records in a row that must look right from a guessed boundary

struct SecondPart {
  std::vector<std::pair<uint64_t, std::span<const uint8_t>>> matches;  // index from the cut, bytes
  uint64_t scanned = 0;
  uint64_t bytes = 0;
  bool complete = false;  // read to the end (or to -c matches) with every record well formed
};

// Filters the rest of the input in two parts; *done is false when the rest is still to be read (no
// cut was found, or it did not hold).
Status FilterSplit(MessageInput* input, const selector::Selector& selector, engine::MessageFilter* filter, bool strict,
                   FilterRun* run, bool* done) {
  *done = false;
  const std::span<const uint8_t> all = input->record_bytes();
  const uint64_t from = input->next_position();
  if (all.size() <= from || all.size() - from < kSplitMinBytes) return Status::OK();
  const size_t middle = static_cast<size_t>(from + (all.size() - from) / 2);
  size_t cut = 0;
  if (!amqp::GuessRecordBoundary(all, middle, middle + kSplitSearchBytes, amqp::RecordFileOptions{}, kSplitChain,
                                 &cut)) {
    return Status::OK();
  }
  SecondPart part;
  std::atomic<bool> stop{false};
  engine::MessageFilter second(selector);
  auto filter_second = [&] {
    amqp::RecordFileReader reader;
    reader.OpenBytes(all.subspan(cut), input->name());
    std::span<const uint8_t> message;
    uint64_t released = cut;
    for (uint64_t local = 0; reader.Next(&message); ++local) {
      if ((local & 1023) == 0 && stop.load(std::memory_order_relaxed)) return;
      input->ReleasePassed(cut + reader.position(), &released);
      const bool matched = second.Matches(message);
      if ((strict || matched || second.read_malformed()) && !amqp::Validate(message).ok()) return;
      ++part.scanned;
      part.bytes += message.size();
      if (matched) {
        part.matches.emplace_back(local, message);
        if (run->limit != 0 && part.matches.size() >= run->limit) break;  // more are never written
      }
    }
    part.complete = reader.ok();
  };
  std::thread worker;
  try {
    worker = std::thread(filter_second);
  } catch (const std::system_error&) {
    return Status::OK();  // no thread to be had: read on here
  }
  bool more = false;
  Status status = FilterSequentially(input, filter, strict, run, 0, &more, cut);
  const bool landed = status.ok() && more && !run->limit_reached && input->next_position() == cut;
  if (!landed) stop.store(true, std::memory_order_relaxed);
  worker.join();
  if (!status.ok() || run->limit_reached || !more) {
    *done = true;
    return status;
  }
  if (!landed || !part.complete) return Status::OK();
  // Every record before the cut was read here, so their count is the index of the first record after it.
  const uint64_t base = run->scanned;
  run->scanned += part.scanned;
  run->bytes += part.bytes;
  for (const auto& [local, message] : part.matches) {
    status = run->Deliver(base + local, message);
    if (!status.ok() || run->limit_reached) break;
  }
  *done = true;
  return status;
}

// A stretch of a record file's records, filtered on a worker thread.
struct RecordRange {
  std::vector<std::span<const uint8_t>> messages;
  std::vector<std::pair<uint64_t, uint64_t>> records;  // index and byte position of each
  size_t bytes = 0;
  std::vector<uint32_t> matches;  // positions in the range that matched, in order
  Status status;                  // the first record that failed validation, after the matches before it
};

// A record file held in memory (mapped, or read whole): its records are cut into ranges filtered on
// every core, one MessageFilter per thread, and the ranges' matches delivered in record order.
Status FilterInParallel(MessageInput* input, const selector::Selector& selector, bool strict, unsigned workers,
                        FilterRun* run, bool* started) {
  constexpr size_t kRangeRecords = 16384;
  std::vector<std::unique_ptr<engine::MessageFilter>> filters;
  for (unsigned i = 0; i < workers; ++i) filters.push_back(std::make_unique<engine::MessageFilter>(selector));
  OrderedBatches<RecordRange> ranges;
  *started = ranges.Start(workers, [&](RecordRange& range, unsigned worker) {
    for (uint32_t i = 0; i < range.messages.size(); ++i) {
      bool matched = false;
      range.status = Decide(*input, filters[worker].get(), strict, range.messages[i], range.records[i].first,
                            range.records[i].second, &matched);
      if (!range.status.ok()) return;
      if (matched) range.matches.push_back(i);
    }
  });
  if (!*started) return Status::OK();
  // Delivers a filtered range; false when the run stops there (an error, or -c reached).
  Status status;
  uint64_t released = input->next_position();
  auto deliver = [&](const RecordRange& range) {
    run->scanned += range.messages.size();
    run->bytes += range.bytes;
    for (uint32_t i : range.matches) {
      status = run->Deliver(range.records[i].first, range.messages[i]);
      if (!status.ok() || run->limit_reached) return false;
    }
    if (!range.status.ok()) {
      status = range.status;
      return false;
    }
    run->report->Progress(range.records.back().first, input->progress(), run->scanned);
    input->ReleasePassed(range.records.back().second, &released);
    return true;
  };
  std::span<const uint8_t> message;
  uint64_t index = 0;
  bool more = true;
  while (more) {
    auto range = std::make_unique<RecordRange>();
    while (range->messages.size() < kRangeRecords && (more = input->Next(&message, &index))) {
      range->messages.push_back(message);
      range->records.emplace_back(index, input->record_position());
      range->bytes += message.size();
    }
    if (!range->messages.empty()) ranges.Submit(std::move(range));
    // Deliver what is done; wait when enough is in flight, and for everything at the end.
    for (;;) {
      const bool wait = !more || ranges.pending() >= ranges.max_pending();
      std::unique_ptr<RecordRange> done = ranges.Next(wait);
      if (done == nullptr) break;
      if (!deliver(*done)) return status;
    }
  }
  return input->status();
}

int RunFilter(const FilterOptions& options) {
  CompiledFilter compiled;
  if (!CompileFilterFlags(options.filters, &compiled)) return kExitUsage;
  const selector::Selector& selector = engine::SelectorOf(compiled);
  OutputFormat format;
  ParseOutputFormat(options.output_format, &format);  // checked by the flag's validator
  std::unique_ptr<MessageInput> input;
  // Records are validated by Decide (naming their place in the file), not by the input.
  Status status =
      MessageInput::Open(options.input, options.input_format == "json" ? InputFormat::kJson : InputFormat::kAmqp,
                         /*validate=*/false, &input);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<ByteSink> sink;
  if (int code = OpenStdout(format, "sift filter", &sink); code != 0) return code;

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  // The typed JSON of the matches is written on every core too.
  MatchWriter writer(format, sink.get(), /*validate=*/false, cores, /*stable_views=*/input->views_stable());
  std::unique_ptr<amqp_client::Publisher> publisher;
  if (int code = StartPublishing(options.publish, "sift filter", format, &writer, &publisher); code != 0) return code;
  RunReport report(options.stats);
  FilterRun run{&writer, &report, options.count};
  // Records of a file stay in memory, so ranges of them can be filtered side by side (JSON lines are
  // encoded one at a time). That pays only when a record costs more than reading its framing and
  // handing it over: a first stretch is filtered here and timed, and the rest goes parallel in ranges
  // when it was dear (a selector the text prefilter cannot decide, or --strict) and there are more than
  // two cores, and is cut in two (FilterSplit) otherwise. --threads N fixes the choice: 1 filters here,
  // more filters every range in parallel.
  engine::MessageFilter filter(selector);
  const bool may_parallel = input->views_stable() && options.threads != 1 && (options.threads > 1 || cores > 1);
  bool more = true;
  bool dear = options.threads > 1;
  if (options.threads == 0) {
    const auto start = std::chrono::steady_clock::now();
    status = FilterSequentially(input.get(), &filter, options.strict, &run, may_parallel ? kProbeRecords : 0, &more);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    dear = ns / static_cast<double>(std::max<uint64_t>(1, run.scanned)) >= kParallelNsPerRecord;
  }
  bool parallel = false;
  // Cut in two, the file keeps two cores busy with no handover at all: the choice for cheap records, and
  // for any records when two cores are all there is.
  if (status.ok() && more && !run.limit_reached && may_parallel && options.threads == 0 && (!dear || cores <= 2)) {
    status = FilterSplit(input.get(), selector, &filter, options.strict, &run, &parallel);
  }
  if (status.ok() && more && !run.limit_reached && may_parallel && dear && !parallel) {
    status = FilterInParallel(input.get(), selector, options.strict, options.threads > 1 ? options.threads : cores,
                              &run, &parallel);
  }
  if (status.ok() && more && !run.limit_reached && !parallel) {
    status = FilterSequentially(input.get(), &filter, options.strict, &run);
  }
  Status flushed = writer.Finish(/*complete=*/status.ok());
  report.Finish(run.scanned, writer.matched(), run.bytes, PublishStats(publisher.get()));
  if (!status.ok()) return ReportError(status);
  if (!flushed.ok()) return ReportError(flushed);
  return MatchExitCode(writer.reported());
}

}  // namespace

Command AddFilterCommand(CLI::App& app) {
  auto options = std::make_shared<FilterOptions>();
  CLI::App* sub = app.add_subcommand("filter", "Filter a record file or typed JSON lines offline (no store)");
  AddFilterFlags(sub, &options->filters);
  sub->add_option("--format", options->input_format, "Input format: amqp (record file) or json (typed JSON lines)")
      ->check(CLI::IsMember({"amqp", "json"}))
      ->capture_default_str();
  sub->add_option("-f,--output-format", options->output_format, "Output: offsets, json, count or amqp")
      ->check(CLI::IsMember({"offsets", "json", "count", "amqp"}))
      ->capture_default_str();
  sub->add_option("-c,--count", options->count, "Stop after this many matches (0: no limit)");
  sub->add_flag("--stats", options->stats, "Print a summary line on stderr at the end");
  sub->add_option("--threads", options->threads,
                  "Threads filtering a record file (0: chosen: the file cut in two, or ranges on every core for dear "
                  "records on more than two cores)")
      ->check(CLI::Range(0, 64));
  sub->add_flag("--strict", options->strict,
                "Validate every record in full before filtering (default: the records delivered and those "
                "the filter read malformed bytes in)");
  sub->add_option("input", options->input, "Input file ('-': stdin)")->capture_default_str();
  AddPublishFlags(sub, &options->publish);
  return {sub, [options] { return RunFilter(*options); }};
}

}  // namespace sift::tools
