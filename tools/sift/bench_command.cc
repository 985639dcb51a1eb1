// `sift bench [FILTER...] [--filters FILE] [--format amqp|json] [--seconds S] [--json] [--plot PNG]
//  [FILE|-] | --store DIR --stream NAME [--cold]`: how much faster sift filters these messages with
// these selectors, on the machine it runs on, than a broker that decodes every message.
//
// The messages are read into memory (a record file is validated in full first: the baseline must be
// able to decode every one), then each filter is measured alone, in rounds, until its share of
// --seconds is spent (at least one round each):
//   - the reject path paired with the baseline (baseline::PairedReject, the measurement of bench/run's
//     reject_paired rows): sift's MessageFilter and pn_message_decode + the same selector on a
//     ProtonFieldSource, block by block in alternating turns, each from a cold cache, on the thread's
//     CPU clock;
//   - the whole pipeline a user times: the filter plus a full decode of each match (DecodeToProton,
//     what a delivery costs), and the filter plus the typed JSON line of each match (`sift filter -f
//     json`), each a pass on the thread's CPU clock;
//   - allocations per rejected message (malloc_count.h), one pass per side.
// The figures are the medians of the rounds. Both sides count their matches and a digest of which
// records matched; when they differ the run stops with exit 2 and both counts: a bug to report.
// From a store the stream is also read through consumers as `sift replay` reads it (sift: a consumer
// with the filter; baseline: a consumer of every message, each decoded and tested), warm, and with
// --cold after dropping the page cache too (root only; otherwise it says so and measures warm only).
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amqp/proton_message.h"
#include "amqp/typed_json.h"
#include "base/bytes.h"
#include "engine/compiled_filter.h"
#include "engine/message_filter.h"
#include "selector/eval_context.h"
#include "sift/consumer.h"
#include "sift/stream_engine.h"
#include "tools/baseline/paired_reject.h"
#include "tools/baseline/proton_field_source.h"
#include "tools/sift/command.h"
#include "tools/sift/filter_flags.h"
#include "tools/sift/malloc_count.h"
#include "tools/sift/message_input.h"
#include "tools/sift/store_flags.h"

namespace sift::tools {
namespace {

using Json = nlohmann::ordered_json;

struct BenchOptions {
  FilterFlags filters;
  std::string filters_file;
  std::string input;
  std::string input_format = "amqp";
  std::string store;
  std::string stream;
  double seconds = 10;
  bool json = false;
  std::string plot;
  bool cold = false;
};

// One filter to measure: its kind, text, and where it came from (a flag, or a line of --filters).
struct BenchFilter {
  FilterKind kind = FilterKind::kSql;
  std::string text;
  std::string origin;  // empty: a flag
  selector::Selector selector;
};

const char* FlagOf(FilterKind kind) {
  switch (kind) {
    case FilterKind::kSql: return "--sql";
    case FilterKind::kJms: return "--jms";
    case FilterKind::kProperties: return "--properties";
    case FilterKind::kApplicationProperties: return "--application-properties";
  }
  return "--sql";
}

// A line of a filters file: `[sql:|jms:|properties:|application-properties:] TEXT`; no prefix is SQL.
BenchFilter ParseFilterLine(std::string_view line) {
  static constexpr std::pair<std::string_view, FilterKind> kPrefixes[] = {
      {"sql:", FilterKind::kSql},
      {"jms:", FilterKind::kJms},
      {"properties:", FilterKind::kProperties},
      {"application-properties:", FilterKind::kApplicationProperties},
  };
  BenchFilter filter;
  for (const auto& [prefix, kind] : kPrefixes) {
    if (line.substr(0, prefix.size()) == prefix) {
      filter.kind = kind;
      line.remove_prefix(prefix.size());
      break;
    }
  }
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  filter.text = std::string(line);
  return filter;
}

// The filters of the flags, then those of --filters FILE, compiled. Prints the error and returns false
// on a bad one (exit 2).
bool CollectFilters(const BenchOptions& options, std::vector<BenchFilter>* out) {
  for (const std::string& t : options.filters.sql) out->push_back({FilterKind::kSql, t, "", {}});
  for (const std::string& t : options.filters.jms) out->push_back({FilterKind::kJms, t, "", {}});
  for (const std::string& t : options.filters.properties) {
    out->push_back({FilterKind::kProperties, t, "", {}});
  }
  for (const std::string& t : options.filters.application_properties) {
    out->push_back({FilterKind::kApplicationProperties, t, "", {}});
  }
  if (!options.filters_file.empty()) {
    std::ifstream in(options.filters_file);
    if (!in) {
      PrintError("cannot read filters", options.filters_file, std::strerror(errno));
      return false;
    }
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      BenchFilter filter = ParseFilterLine(std::string_view(line).substr(first));
      filter.origin = options.filters_file + ":" + std::to_string(number);
      out->push_back(std::move(filter));
    }
  }
  if (out->empty()) {
    PrintError("usage", "sift bench",
               "a filter is required: --sql, --jms, --properties, --application-properties or --filters FILE "
               "(see 'sift bench --help')");
    return false;
  }
  for (BenchFilter& filter : *out) {
    FilterFlags one;
    switch (filter.kind) {
      case FilterKind::kSql: one.sql.push_back(filter.text); break;
      case FilterKind::kJms: one.jms.push_back(filter.text); break;
      case FilterKind::kProperties: one.properties.push_back(filter.text); break;
      case FilterKind::kApplicationProperties: one.application_properties.push_back(filter.text); break;
    }
    CompiledFilter compiled;
    if (!CompileFilterFlags(one, &compiled, filter.origin)) return false;
    filter.selector = engine::SelectorOf(compiled);
  }
  return true;
}

// The messages measured, as one record buffer (docs/record-format.md) in memory.
struct Corpus {
  std::vector<uint8_t> records;
  uint64_t messages = 0;
  uint64_t message_bytes = 0;
  std::string source;  // the file, or store:stream

  void Add(std::span<const uint8_t> message) {
    const uint32_t n = static_cast<uint32_t>(message.size());
    const uint8_t prefix[4] = {static_cast<uint8_t>(n >> 24), static_cast<uint8_t>(n >> 16),
                               static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
    records.insert(records.end(), prefix, prefix + 4);
    records.insert(records.end(), message.begin(), message.end());
    ++messages;
    message_bytes += n;
  }
};

// The line on stderr while the run goes on, when stderr is a terminal.
class Progress {
 public:
  Progress() : terminal_(isatty(STDERR_FILENO) == 1) {}
  ~Progress() { Clear(); }
  void Show(const std::string& text) {
    if (!terminal_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr, "\rsift: bench: %s\x1b[K", text.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
  void Clear() {
    if (!drawn_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

int LoadFile(const BenchOptions& options, Corpus* corpus, Progress* progress) {
  std::unique_ptr<MessageInput> input;
  // Validated in full as read: the baseline decodes every message, so every one must be well formed.
  Status status = MessageInput::Open(options.input.empty() ? "-" : options.input,
                                     options.input_format == "json" ? InputFormat::kJson : InputFormat::kAmqp,
                                     /*validate=*/true, &input);
  if (!status.ok()) return ReportError(status);
  corpus->source = input->name();
  std::span<const uint8_t> message;
  uint64_t index = 0;
  while (input->Next(&message, &index)) {
    corpus->Add(message);
    if ((corpus->messages & 0xffff) == 0) {
      progress->Show("reading " + input->name() + ": " + std::to_string(corpus->messages) + " messages");
    }
  }
  if (!input->status().ok()) return ReportError(input->status());
  return 0;
}

int LoadStream(const BenchOptions& options, StreamEngine* engine, Corpus* corpus, Progress* progress) {
  corpus->source = StorePath(options.store) + ": stream '" + options.stream + "'";
  ConsumerOptions consumer_options;
  consumer_options.stream = options.stream;
  consumer_options.credit = 4096;
  std::unique_ptr<Consumer> consumer;
  Status status = engine->NewConsumer(consumer_options, &consumer);
  DeliveryBatch batch;
  while (status.ok() && !consumer->done()) {
    status = consumer->Poll(&batch);
    for (const Delivery& d : batch) corpus->Add(base::AsBytes(d.bytes()));
    progress->Show("reading " + corpus->source + ": " + std::to_string(corpus->messages) + " messages");
  }
  if (!status.ok()) return ReportError(status);
  return 0;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Per-round figures of one filter, in ns per message, and what was found.
struct FilterFigures {
  std::vector<double> sift_ns, baseline_ns, ratio, decode_ns, json_ns;
  uint64_t matches = 0;
  uint64_t baseline_matches = 0;
  uint64_t sift_digest = 0;
  uint64_t baseline_digest = 0;
  std::optional<double> sift_allocs, baseline_allocs;  // per rejected message; unset when not counted
  uint64_t rejected = 0;
  Json store;  // the consumer rows from a store (null otherwise)
};

// One pass of the filter alone plus a full decode (DecodeToProton) or the typed JSON line of each match;
// ns per message on the thread's CPU clock. False with *error on a match that does not convert.
bool PipelinePass(engine::MessageFilter* filter, const Corpus& corpus, bool json, pn_message_t* decoded,
                  std::string* line, double* ns, std::string* error) {
  const uint8_t* p = corpus.records.data();
  const uint8_t* const end = p + corpus.records.size();
  std::span<const uint8_t> m;
  uint64_t index = 0;
  const double t = baseline::ThreadCpuNs();
  for (; p < end; ++index) {
    p = baseline::NextRecord(p, &m);
    if (!filter->Matches(m)) continue;
    amqp::ConversionStatus s = json ? amqp::DecodeToTypedJson(m, index, line) : amqp::DecodeToProton(m, decoded);
    if (!s.ok()) {
      *error = "message " + std::to_string(index) + ": " + s.error();
      return false;
    }
  }
  *ns = (baseline::ThreadCpuNs() - t) / static_cast<double>(corpus.messages);
  return true;
}

// Allocations per rejected message of each side: one pass each, counting the calling thread's
// mallocs around each message the side rejects (after a warm pass, so first-use growth is not counted).
void CountAllocations(const selector::Selector& selector, engine::MessageFilter* filter, const Corpus& corpus,
                      FilterFigures* figures) {
  if (!MallocCounted()) return;
  pn_message_t* decoded = pn_message();
  baseline::ProtonFieldSource source(selector.fields());
  source.Reset(decoded);
  selector::EvalContext context;
  uint64_t sift_allocs = 0, baseline_allocs = 0, sift_rejected = 0, baseline_rejected = 0;
  const uint8_t* const begin = corpus.records.data();
  const uint8_t* const end = begin + corpus.records.size();
  std::span<const uint8_t> m;
  for (const uint8_t* p = begin; p < end;) {
    p = baseline::NextRecord(p, &m);
    const uint64_t before = ThreadMallocCount();
    if (filter->Matches(m)) continue;
    sift_allocs += ThreadMallocCount() - before;
    ++sift_rejected;
  }
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms Proton's buffers
    for (const uint8_t* p = begin; p < end;) {
      p = baseline::NextRecord(p, &m);
      const uint64_t before = ThreadMallocCount();
      if (pn_message_decode(decoded, reinterpret_cast<const char*>(m.data()), m.size()) != 0) continue;
      const bool matched = selector.Evaluate(source, context) == selector::Truth::kTrue;
      if (pass == 0 || matched) continue;
      baseline_allocs += ThreadMallocCount() - before;
      ++baseline_rejected;
    }
  }
  pn_message_free(decoded);
  figures->rejected = sift_rejected;
  if (sift_rejected > 0) figures->sift_allocs = static_cast<double>(sift_allocs) / static_cast<double>(sift_rejected);
  if (baseline_rejected > 0) {
    figures->baseline_allocs = static_cast<double>(baseline_allocs) / static_cast<double>(baseline_rejected);
  }
}

// The stream read through consumers, as `sift replay` reads it: sift's with the filter (summaries may
// skip chunks), the baseline's delivering every message, each decoded and tested. Wall seconds of each.
struct StoreRow {
  double sift_s = 0, baseline_s = 0;
  uint64_t sift_matches = 0, baseline_matches = 0;
};

// Drops the page cache (root only). False when it cannot.
bool DropPageCache() {
  sync();
  std::ofstream drop("/proc/sys/vm/drop_caches");
  if (!drop) return false;
  drop << "1\n";
  drop.flush();
  return static_cast<bool>(drop);
}

// `cold`: before each side, the page cache is dropped and the store opened afresh (no block cache).
Status ReadStore(const BenchOptions& options, const BenchFilter& filter, bool cold,
                 std::unique_ptr<StreamEngine>* engine, StoreRow* row) {
  pn_message_t* decoded = pn_message();
  baseline::ProtonFieldSource source(filter.selector.fields());
  source.Reset(decoded);
  selector::EvalContext context;
  Status status;
  for (int side = 0; side < 2 && status.ok(); ++side) {
    if (cold) {
      engine->reset();
      DropPageCache();
      if (!(status = OpenStore(options.store, StoreUse::kRead, engine)).ok()) break;
    }
    ConsumerOptions consumer_options;
    consumer_options.stream = options.stream;
    consumer_options.credit = 1024;
    if (side == 0) consumer_options.filter = engine::ToCompiledFilter(filter.selector);
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Consumer> consumer;
    status = (*engine)->NewConsumer(consumer_options, &consumer);
    DeliveryBatch batch;
    uint64_t matches = 0;
    while (status.ok() && !consumer->done()) {
      status = consumer->Poll(&batch);
      if (side == 0) {
        matches += batch.size();
        continue;
      }
      for (const Delivery& d : batch) {
        if (pn_message_decode(decoded, d.bytes().data(), d.bytes().size()) != 0) {
          status = Status::Corruption("the baseline cannot decode the message", std::to_string(d.offset()),
                                      pn_error_text(pn_message_error(decoded)));
          break;
        }
        matches += filter.selector.Evaluate(source, context) == selector::Truth::kTrue;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    (side == 0 ? row->sift_s : row->baseline_s) = seconds;
    (side == 0 ? row->sift_matches : row->baseline_matches) = matches;
  }
  pn_message_free(decoded);
  return status;
}

Json StoreJson(const StoreRow& row) {
  return Json{{"sift_s", row.sift_s},
              {"baseline_s", row.baseline_s},
              {"ratio", row.sift_s > 0 ? row.baseline_s / row.sift_s : 0.0},
              {"sift_matches", row.sift_matches},
              {"baseline_matches", row.baseline_matches}};
}

// "12.3M", "850k": a rate for people.
std::string Rate(double per_second) {
  char text[32];
  if (per_second >= 1e6) {
    std::snprintf(text, sizeof text, "%.2fM", per_second / 1e6);
  } else if (per_second >= 1e3) {
    std::snprintf(text, sizeof text, "%.1fk", per_second / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f", per_second);
  }
  return text;
}

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// The per-filter document of --json, also what the table and the plot are made of.
Json FilterJson(const BenchFilter& filter, const FilterFigures& f, uint64_t messages, size_t rounds) {
  const double sift = Median(f.sift_ns), base = Median(f.baseline_ns);
  const double decode = Median(f.decode_ns), json = Median(f.json_ns);
  auto side = [&](double ns, std::optional<double> allocs) {
    Json j{{"ns_per_msg", ns}, {"msgs_per_s", ns > 0 ? 1e9 / ns : 0.0}};
    j["allocs_per_rejected"] = allocs.has_value() ? Json(*allocs) : Json(nullptr);
    return j;
  };
  auto pipeline = [&](double ns) {
    return Json{{"ns_per_msg", ns}, {"msgs_per_s", ns > 0 ? 1e9 / ns : 0.0}, {"ratio", ns > 0 ? base / ns : 0.0}};
  };
  Json j{{"kind", std::string(FilterKindName(filter.kind))},
         {"text", filter.text},
         {"matches", f.matches},
         {"selectivity", messages > 0 ? static_cast<double>(f.matches) / static_cast<double>(messages) : 0.0},
         {"baseline_matches", f.baseline_matches},
         {"same_matches", f.matches == f.baseline_matches && f.sift_digest == f.baseline_digest},
         {"rounds", rounds},
         {"sift", side(sift, f.sift_allocs)},
         {"baseline", side(base, f.baseline_allocs)},
         {"ratio", Median(f.ratio)},
         {"sift_full_decode", pipeline(decode)},
         {"sift_typed_json", pipeline(json)}};
  if (!f.store.is_null()) j["store"] = f.store;
  return j;
}

std::string Table(const Json& doc) {
  std::string out;
  const Json& input = doc["input"];
  out += "sift bench: " + std::to_string(input["messages"].get<uint64_t>()) + " messages (" +
         Format("%.1f", input["bytes"].get<double>() / 1e6) + " MB) from " + input["source"].get<std::string>() +
         "; CPU time per message on one thread, median of each filter's rounds; baseline: pn_message_decode + the "
         "same selector\n";
  int n = 0;
  for (const Json& f : doc["filters"]) {
    ++n;
    out += "\nfilter " + std::to_string(n) + ": --" + f["kind"].get<std::string>() + " " +
           f["text"].get<std::string>() + "\n";
    out += "  matches " + std::to_string(f["matches"].get<uint64_t>()) + " (" +
           Format("%.4g", 100.0 * f["selectivity"].get<double>()) + "%), the same as the baseline's, " +
           std::to_string(f["rounds"].get<uint64_t>()) + " round(s)\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-40s %10s %10s %12s\n", "", "ns/msg", "msgs/s", "vs baseline");
    out += line;
    auto row = [&](const char* name, const Json& r, double ratio) {
      const double ns = r["ns_per_msg"].get<double>();
      std::snprintf(line, sizeof line, "  %-40s %10.1f %10s %11.1fx\n", name, ns, Rate(ns > 0 ? 1e9 / ns : 0).c_str(),
                    ratio);
      out += line;
    };
    row("sift filter (paired)", f["sift"], f["ratio"].get<double>());
    row("baseline: decode everything (paired)", f["baseline"], 1.0);
    row("sift filter + full decode of matches", f["sift_full_decode"], f["sift_full_decode"]["ratio"].get<double>());
    row("sift filter + typed JSON of matches", f["sift_typed_json"], f["sift_typed_json"]["ratio"].get<double>());
    auto allocs = [](const Json& a) {
      return a.is_null() ? std::string("not counted") : Format("%.2f", a.get<double>());
    };
    out += "  allocations per rejected message: sift " + allocs(f["sift"]["allocs_per_rejected"]) + ", baseline " +
           allocs(f["baseline"]["allocs_per_rejected"]) + "\n";
    if (f.contains("store")) {
      const Json& s = f["store"];
      for (const char* state : {"warm", "cold"}) {
        if (!s.contains(state)) continue;
        const Json& r = s[state];
        std::snprintf(line, sizeof line, "  store, %s: sift consumer %.3f s, baseline consumer %.3f s, %.1fx\n", state,
                      r["sift_s"].get<double>(), r["baseline_s"].get<double>(), r["ratio"].get<double>());
        out += line;
      }
      if (s.contains("note")) out += "  store: " + s["note"].get<std::string>() + "\n";
    }
  }
  return out;
}

// The plot script installed beside the binary (tools/sift/bench_plot.py, copied by the build).
std::string PlotScript() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  std::string path(exe, static_cast<size_t>(n));
  path.resize(path.rfind('/') + 1);
  return path + "sift-bench-plot.py";
}

// Renders `doc` as a PNG at `path` with Debian's python3 and matplotlib; the error line otherwise.
int RenderPlot(const std::string& script, const Json& doc, const std::string& path) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    PrintError("cannot render plot", path, std::strerror(errno));
    return kExitUsage;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[0], STDIN_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execl("/usr/bin/python3", "python3", script.c_str(), path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[0]);
  const std::string text = doc.dump();
  bool written = pid > 0;
  for (size_t done = 0; written && done < text.size();) {
    const ssize_t w = write(pipe_fds[1], text.data() + done, text.size() - done);
    if (w <= 0) {
      written = false;
      break;
    }
    done += static_cast<size_t>(w);
  }
  close(pipe_fds[1]);
  int wstatus = 0;
  if (pid > 0) waitpid(pid, &wstatus, 0);
  if (pid < 0 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || !written) {
    const int code = pid > 0 && WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    PrintError("cannot render plot", path,
               code == 127 ? "/usr/bin/python3 is missing (tools/setup-debian installs it with python3-matplotlib)"
                           : "the plot script failed (" + script + ", exit " + std::to_string(code) + ")");
    return kExitUsage;
  }
  return 0;
}

int RunBench(const BenchOptions& options) {
  std::vector<BenchFilter> filters;
  if (!CollectFilters(options, &filters)) return kExitUsage;
  const bool from_store = !options.stream.empty();
  if (from_store && !options.input.empty()) {
    PrintError("usage", "sift bench", "give a FILE or --stream, not both (see 'sift bench --help')");
    return kExitUsage;
  }
  if (!from_store && (!options.store.empty() || options.cold)) {
    PrintError("usage", "sift bench",
               std::string(options.cold ? "--cold" : "--store") + " needs --stream NAME (see 'sift bench --help')");
    return kExitUsage;
  }
  // The plot's destination and renderer are checked before the run, not after minutes of it.
  const std::string script = options.plot.empty() ? "" : PlotScript();
  if (!options.plot.empty()) {
    const int fd = open(options.plot.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      PrintError("cannot write plot", options.plot, std::strerror(errno));
      return kExitUsage;
    }
    close(fd);
    if (access(script.c_str(), R_OK) != 0) {
      PrintError("cannot render plot", options.plot, "the plot script " + script + " is missing");
      return kExitUsage;
    }
  }

  Progress progress;
  Corpus corpus;
  std::unique_ptr<StreamEngine> engine;
  if (from_store) {
    Status status = OpenStore(options.store, StoreUse::kRead, &engine);
    if (!status.ok()) return ReportError(status);
    if (int code = LoadStream(options, engine.get(), &corpus, &progress); code != 0) return code;
  } else if (int code = LoadFile(options, &corpus, &progress); code != 0) {
    return code;
  }
  if (corpus.messages == 0) {
    PrintError("no messages", corpus.source, "there is nothing to measure");
    return kExitUsage;
  }
  std::string cold_note;
  bool cold = false;
  if (from_store) {
    if (!options.cold) {
      cold_note = "warm only (--cold drops the page cache before a cold read too, as root)";
    } else if (geteuid() != 0 || !DropPageCache()) {
      cold_note = "warm only: cannot drop the page cache (not root)";
    } else {
      cold = true;
    }
  }

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Json doc{{"input",
            {{"source", corpus.source},
             {"format", from_store ? "store" : options.input_format},
             {"messages", corpus.messages},
             {"bytes", corpus.message_bytes}}},
           {"seconds", options.seconds},
           {"allocations_counted", MallocCounted()},
           {"filters", Json::array()}};
  pn_message_t* decoded = pn_message();
  std::string line;
  for (size_t i = 0; i < filters.size(); ++i) {
    const BenchFilter& filter = filters[i];
    const std::string label = "filter " + std::to_string(i + 1) + "/" + std::to_string(filters.size());
    const double deadline = options.seconds * static_cast<double>(i + 1) / static_cast<double>(filters.size());
    FilterFigures figures;
    baseline::PairedReject paired(filter.selector, corpus.records);
    engine::MessageFilter filter_alone(filter.selector);
    size_t rounds = 0;
    do {
      progress.Show(label + ", round " + std::to_string(rounds + 1) + ", " + Format("%.1f", elapsed()) + " s of " +
                    Format("%g", options.seconds) + " s");
      baseline::PairedFigures pass = paired.Pass();
#ifdef SIFT_BENCH_SEEDED_MISMATCH
      // A test build's planted bug: sift's side loses a match, which the check below must catch.
      if (pass.sift.matches > 0) --pass.sift.matches;
#endif
      if (pass.decode_failed) {
        progress.Clear();
        PrintError("bad input", corpus.source + ": message " + std::to_string(pass.failed_record),
                   "the baseline (pn_message_decode) cannot decode it");
        pn_message_free(decoded);
        return kExitUsage;
      }
      if (pass.sift.matches != pass.baseline.matches || pass.sift.match_digest != pass.baseline.match_digest) {
        progress.Clear();
        PrintError("sift and the baseline disagree",
                   "filter " + std::to_string(i + 1) + " (" +
                       (filter.origin.empty() ? std::string(FlagOf(filter.kind)) : filter.origin) + " " + filter.text +
                       ")",
                   "sift matched " + std::to_string(pass.sift.matches) + " messages, the baseline " +
                       std::to_string(pass.baseline.matches) +
                       (pass.sift.matches == pass.baseline.matches ? " (not the same ones)" : "") +
                       "; this is a bug, please report it with the input");
        pn_message_free(decoded);
        return kExitUsage;
      }
      const double n = static_cast<double>(corpus.messages);
      figures.sift_ns.push_back(pass.sift.cpu_ns / n);
      figures.baseline_ns.push_back(pass.baseline.cpu_ns / n);
      figures.ratio.push_back(pass.sift.cpu_ns > 0 ? pass.baseline.cpu_ns / pass.sift.cpu_ns : 0);
      figures.matches = pass.sift.matches;
      figures.baseline_matches = pass.baseline.matches;
      figures.sift_digest = pass.sift.match_digest;
      figures.baseline_digest = pass.baseline.match_digest;
      double decode_ns = 0, json_ns = 0;
      std::string error;
      if (!PipelinePass(&filter_alone, corpus, false, decoded, &line, &decode_ns, &error) ||
          !PipelinePass(&filter_alone, corpus, true, decoded, &line, &json_ns, &error)) {
        progress.Clear();
        PrintError("bad input", corpus.source, error);
        pn_message_free(decoded);
        return kExitUsage;
      }
      figures.decode_ns.push_back(decode_ns);
      figures.json_ns.push_back(json_ns);
      if (rounds == 0) CountAllocations(filter.selector, &filter_alone, corpus, &figures);
      ++rounds;
    } while (elapsed() < deadline);
    if (from_store) {
      progress.Show(label + ", reading the store");
      Json store = Json::object();
      StoreRow warm;
      Status status = ReadStore(options, filter, false, &engine, &warm);  // warms the caches
      if (status.ok()) status = ReadStore(options, filter, false, &engine, &warm);
      if (status.ok()) store["warm"] = StoreJson(warm);
      if (status.ok() && cold) {
        StoreRow cold_row;
        status = ReadStore(options, filter, true, &engine, &cold_row);
        if (status.ok()) store["cold"] = StoreJson(cold_row);
      }
      if (!status.ok()) {
        progress.Clear();
        pn_message_free(decoded);
        return ReportError(status);
      }
      if (!cold_note.empty()) store["note"] = cold_note;
      figures.store = store;
    }
    doc["filters"].push_back(FilterJson(filter, figures, corpus.messages, rounds));
  }
  pn_message_free(decoded);
  progress.Clear();
  doc["elapsed_s"] = elapsed();
  const std::string text = options.json ? doc.dump(2) + "\n" : Table(doc);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!options.plot.empty()) return RenderPlot(script, doc, options.plot);
  return 0;
}

}  // namespace

Command AddBenchCommand(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Measure sift against decoding every message (Proton), on your messages and selectors, each filter alone");
  AddFilterFlags(sub, &options->filters);
  sub->get_option_group("FILTER")->description("Filters (each measured alone, not ANDed)");
  sub->add_option("--filters", options->filters_file,
                  "A file of filters, one a line: [sql:|jms:|properties:|application-properties:] TEXT (# comments)")
      ->type_name("FILE");
  sub->add_option("--format", options->input_format, "Input format: amqp (record file) or json (typed JSON lines)")
      ->check(CLI::IsMember({"amqp", "json"}))
      ->capture_default_str();
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Measure a stored stream instead of a file")->type_name("NAME");
  sub->add_flag("--cold", options->cold,
                "With --stream: also read the store cold, after dropping the page cache (root)");
  sub->add_option("--seconds", options->seconds, "Time for the whole run; each filter gets at least one round")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  sub->add_flag("--json", options->json, "Print the figures as JSON instead of a table");
  sub->add_option("--plot", options->plot, "Also draw the figures into this PNG file (python3-matplotlib)")
      ->type_name("PNG");
  sub->add_option("input", options->input, "Input file ('-': stdin)");
  return {sub, [options] { return RunBench(*options); }};
}

}  // namespace sift::tools
