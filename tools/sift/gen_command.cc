// `sift gen --count N [--seed S] [--profile NAME] [--start-time MS] [-o FILE]`: a deterministic
// synthetic record file of order messages (tools/synthetic/synthetic_orders.h) for demos, tests and
// benchmarks. The same flags always give the same bytes. Refuses to write binary records to a terminal.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "tools/synthetic/synthetic_orders.h"
#include "tools/sift/command.h"
#include "tools/sift/output.h"

namespace sift::tools {
namespace {

struct GenOptions {
  uint64_t count = 0;
  uint64_t first = 0;
  synthetic::SyntheticOrdersOptions orders;
  std::string output = "-";
};

int RunGen(const GenOptions& options) {
  std::unique_ptr<synthetic::SyntheticOrders> generator;
  engine::Status status = synthetic::SyntheticOrders::Create(options.orders, &generator);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<ByteSink> sink;
  status = ByteSink::Open(options.output, &sink);
  if (!status.ok()) return ReportError(status);
  if (sink->is_terminal()) {
    PrintError("usage", "sift gen", "refusing to write binary records to a terminal; redirect stdout or use -o FILE");
    return kExitUsage;
  }
  std::string message;
  for (uint64_t i = options.first; i < options.first + options.count; ++i) {
    status = generator->Encode(i, &message);
    if (!status.ok()) return ReportError(status);
    sink->WriteRecord(message);
  }
  status = sink->Flush();
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

}  // namespace

Command AddGenCommand(CLI::App& app) {
  auto options = std::make_shared<GenOptions>();
  CLI::App* sub = app.add_subcommand("gen", "Write a deterministic synthetic record file of order messages");
  sub->add_option("-n,--count", options->count, "Number of messages")->required();
  sub->add_option("--seed", options->orders.seed, "Seed: equal seeds give equal bytes")->capture_default_str();
  std::string profiles;
  for (std::string_view p : synthetic::SyntheticOrders::Profiles())
    profiles += (profiles.empty() ? "" : ", ") + std::string(p);
  sub->add_option("--profile", options->orders.profile, "Message shape: " + profiles)->capture_default_str();
  sub->add_option("--customers", options->orders.customers, "Distinct customer values (cust-NNNNN), at least 1")
      ->capture_default_str();
  sub->add_option("--first", options->first, "Index of the first message (generate a later slice)")
      ->capture_default_str();
  sub->add_option("--start-time", options->orders.start_time_ms,
                  "creation-time of message 0, ms since the Unix epoch (message i: + 10 ms * i)")
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output file ('-': stdout)")->capture_default_str();
  return {sub, [options] { return RunGen(*options); }};
}

}  // namespace sift::tools
