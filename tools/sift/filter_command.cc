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

#include <memory>
#include <string>
#include <thread>

#include "engine/message_filter.h"
#include "tools/sift/command.h"
#include "tools/sift/filter_flags.h"
#include "tools/sift/message_input.h"
#include "tools/sift/output.h"
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
};

int RunFilter(const FilterOptions& options) {
  selector::Selector selector;
  if (!CompileFilterFlags(options.filters, &selector)) return kExitUsage;
  OutputFormat format;
  ParseOutputFormat(options.output_format, &format);  // checked by the flag's validator
  std::unique_ptr<MessageInput> input;
  engine::Status status = MessageInput::Open(
      options.input, options.input_format == "json" ? InputFormat::kJson : InputFormat::kAmqp, options.strict,
      &input);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<ByteSink> sink;
  if (int code = OpenStdout(format, "sift filter", &sink); code != 0) return code;

  // Records are validated here (naming their place in the file); the typed JSON is written on every core.
  MatchWriter writer(format, sink.get(), /*validate=*/false, std::thread::hardware_concurrency());
  RunReport report(options.stats);
  engine::MessageFilter filter(selector);
  std::span<const uint8_t> message;
  uint64_t index = 0, scanned = 0, bytes = 0;
  while (input->Next(&message, &index)) {
    ++scanned;
    bytes += message.size();
    const bool matched = filter.Matches(message);
    if (!options.strict && (matched || filter.read_malformed())) {
      status = input->Check(message);
      if (!status.ok()) break;
    }
    if (matched) {
      status = writer.Add(index, std::string_view(reinterpret_cast<const char*>(message.data()), message.size()));
      if (!status.ok()) break;
      if (options.count != 0 && writer.matched() >= options.count) break;
    }
    if ((scanned & 0xffff) == 0) report.Progress(index, input->progress(), scanned);
  }
  if (status.ok()) status = input->status();
  engine::Status flushed = writer.Finish(/*complete=*/status.ok());
  report.Finish(scanned, writer.matched(), bytes);
  if (!status.ok()) return ReportError(status);
  if (!flushed.ok()) return ReportError(flushed);
  return MatchExitCode(writer.matched());
}

}  // namespace

Command AddFilterCommand(CLI::App& app) {
  auto options = std::make_shared<FilterOptions>();
  CLI::App* sub = app.add_subcommand("filter", "Filter a record file or typed JSON lines offline (no store)");
  AddFilterFlags(sub, &options->filters);
  sub->add_option("--format", options->input_format, "Input format: amqp (record file) or json (typed JSON lines)")
      ->check(CLI::IsMember({"amqp", "json"}))->capture_default_str();
  sub->add_option("-f,--output-format", options->output_format, "Output: offsets, json, count or amqp")
      ->check(CLI::IsMember({"offsets", "json", "count", "amqp"}))->capture_default_str();
  sub->add_option("-c,--count", options->count, "Stop after this many matches (0: no limit)");
  sub->add_flag("--stats", options->stats, "Print a summary line on stderr at the end");
  sub->add_flag("--strict", options->strict,
                "Validate every record in full before filtering (default: the records delivered and those "
                "the filter read malformed bytes in)");
  sub->add_option("input", options->input, "Input file ('-': stdin)")->capture_default_str();
  return {sub, [options] { return RunFilter(*options); }};
}

}  // namespace sift::tools
