// `sift gen --count N [--seed S] [--profile NAME] [--start-time MS] [--threads N] [-o FILE]`: a deterministic
// synthetic record file of order messages (tools/synthetic/synthetic_orders.h) for demos, tests and
// benchmarks. The same flags always give the same bytes. Refuses to write binary records to a terminal.
//
// Each message depends on its index alone, so messages are encoded on every core (--threads), in batches
// written in index order (one core's time: bench/DECISIONS.md, "Generating orders on every core").
#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/byte_order.h"
#include "tools/synthetic/synthetic_orders.h"
#include "tools/sift/command.h"
#include "tools/sift/ordered_batches.h"
#include "tools/sift/output.h"

namespace sift::tools {
namespace {

struct GenOptions {
  uint64_t count = 0;
  uint64_t first = 0;
  synthetic::SyntheticOrdersOptions orders;
  std::string output = "-";
  unsigned threads = 0;  // 0: every core
};

// Messages [first, end) as records (docs/record-format.md), or the first error.
struct GenBatch {
  uint64_t first = 0, end = 0;
  std::string records;
  Status status;
};

constexpr uint64_t kBatchMessages = 8192;

void EncodeBatch(synthetic::SyntheticOrders& generator, GenBatch& batch) {
  std::string message;
  for (uint64_t i = batch.first; i < batch.end; ++i) {
    batch.status = generator.Encode(i, &message);
    if (!batch.status.ok()) return;
    char prefix[4];
    base::StoreBE32(prefix, static_cast<uint32_t>(message.size()));
    batch.records.append(prefix, 4);
    batch.records.append(message);
  }
}

int RunGen(const GenOptions& options) {
  std::unique_ptr<synthetic::SyntheticOrders> generator;
  Status status = synthetic::SyntheticOrders::Create(options.orders, &generator);
  if (!status.ok()) return ReportError(status);
  std::unique_ptr<ByteSink> sink;
  status = ByteSink::Open(options.output, &sink);
  if (!status.ok()) return ReportError(status);
  if (sink->is_terminal()) {
    PrintError("usage", "sift gen", "refusing to write binary records to a terminal; redirect stdout or use -o FILE");
    return kExitUsage;
  }
  const uint64_t end = options.first + options.count;
  const unsigned threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  // One generator per worker (a generator is not shared between threads); the command's thread writes.
  std::vector<std::unique_ptr<synthetic::SyntheticOrders>> generators(threads);
  for (auto& g : generators) {
    status = synthetic::SyntheticOrders::Create(options.orders, &g);
    if (!status.ok()) return ReportError(status);
  }
  OrderedBatches<GenBatch> batches;
  const bool parallel =
      threads > 1 && options.count > kBatchMessages &&
      batches.Start(threads, [&](GenBatch& batch, unsigned worker) { EncodeBatch(*generators[worker], batch); });
  auto write = [&](const GenBatch& batch) {
    if (!batch.status.ok()) return false;
    sink->Write(batch.records);
    return true;
  };
  for (uint64_t first = options.first; first < end && status.ok(); first += kBatchMessages) {
    auto batch = std::make_unique<GenBatch>();
    batch->first = first;
    batch->end = std::min(end, first + kBatchMessages);
    if (!parallel) {
      EncodeBatch(*generator, *batch);
      if (!write(*batch)) status = batch->status;
      continue;
    }
    batches.Submit(std::move(batch));
    while (batches.pending() >= batches.max_pending()) {
      const std::unique_ptr<GenBatch> done = batches.Next(/*wait=*/true);
      if (!write(*done)) status = done->status;
    }
  }
  while (parallel) {
    const std::unique_ptr<GenBatch> done = batches.Next(/*wait=*/true);
    if (done == nullptr) break;
    if (status.ok() && !write(*done)) status = done->status;
  }
  if (!status.ok()) return ReportError(status);
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
  sub->add_option("--threads", options->threads, "Threads encoding messages (default: every core)")
      ->check(CLI::Range(1u, 256u));
  return {sub, [options] { return RunGen(*options); }};
}

}  // namespace sift::tools
