// `sift cat [--format amqp|json] [-f json|amqp] [FILE|-]`: converts between the two message file
// formats (docs/record-format.md, docs/typed-json.md) — a record file to typed JSON lines (default,
// with each record's index as "offset"), or typed JSON lines to a record file. Every message is
// validated on the way.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <thread>

#include "tools/sift/command.h"
#include "tools/sift/message_input.h"
#include "tools/sift/output.h"

namespace sift::tools {
namespace {

struct CatOptions {
  std::string input = "-";
  std::string input_format = "amqp";
  std::string output_format = "json";
};

int RunCat(const CatOptions& options) {
  std::unique_ptr<MessageInput> input;
  Status status = MessageInput::Open(
      options.input, options.input_format == "json" ? InputFormat::kJson : InputFormat::kAmqp, true, &input);
  if (!status.ok()) return ReportError(status);
  const OutputFormat format = options.output_format == "amqp" ? OutputFormat::kAmqp : OutputFormat::kJson;
  std::unique_ptr<ByteSink> sink;
  if (int code = OpenStdout(format, "sift cat", &sink); code != 0) return code;
  MatchWriter writer(format, sink.get(), /*validate=*/false, std::thread::hardware_concurrency(),
                     /*stable_views=*/input->views_stable());
  std::span<const uint8_t> message;
  uint64_t index = 0;
  uint64_t released = 0;
  while (input->Next(&message, &index)) {
    status = writer.Add(index, std::string_view(reinterpret_cast<const char*>(message.data()), message.size()));
    if (!status.ok()) break;
    input->ReleasePassed(input->next_position(), &released);
  }
  if (status.ok()) status = input->status();
  Status flushed = writer.Finish();
  if (!status.ok()) return ReportError(status);
  if (!flushed.ok()) return ReportError(flushed);
  return kExitMatched;
}

}  // namespace

Command AddCatCommand(CLI::App& app) {
  auto options = std::make_shared<CatOptions>();
  CLI::App* sub = app.add_subcommand("cat", "Convert a record file to typed JSON lines, or back (-f amqp)");
  sub->add_option("--format", options->input_format, "Input format: amqp (record file) or json (typed JSON lines)")
      ->check(CLI::IsMember({"amqp", "json"}))
      ->capture_default_str();
  sub->add_option("-f,--output-format", options->output_format, "Output: json or amqp")
      ->check(CLI::IsMember({"json", "amqp"}))
      ->capture_default_str();
  sub->add_option("input", options->input, "Input file ('-': stdin)")->capture_default_str();
  return {sub, [options] { return RunCat(*options); }};
}

}  // namespace sift::tools
