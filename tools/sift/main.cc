// The `sift` command: parses the command line with CLI11 and runs one command.
//
// Every CLI11 parse error (unknown flag, missing value, bad number) becomes exit code 2 with the house
// error line, so scripts see one error format whatever went wrong; --help prints to stdout, exit 0.
#include <malloc.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/sift/command.h"

namespace {

// The name of the deepest subcommand that was being parsed ("replay"), or "sift".
std::string CommandPath(CLI::App& app) {
  std::string path = "sift";
  CLI::App* current = &app;
  for (;;) {
    std::vector<CLI::App*> chosen = current->get_subcommands();
    if (chosen.empty()) break;
    current = chosen.front();
    path += " ";
    path += current->get_name();
  }
  return path;
}

std::string Sentence(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '.')) text.pop_back();
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  // A scan reads chunks of up to 1 MiB into fresh buffers, one after another. glibc would serve each
  // from a new mmap (zero-filled pages, a page fault per 4 KiB) and unmap it again; keeping such
  // buffers in the heap lets the next chunk reuse the same warm pages.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  CLI::App app{"sift: filter streams of AMQP 1.0 messages with SQL selectors, on the encoded bytes", "sift"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sift 0.1.0");
  app.footer(
      "Exit codes: 0 matched / ok, 1 nothing matched, 2 usage or input error, 3 storage error.\n"
      "The default store is ./sift-data, or $SIFT_STORE when set.");

  std::vector<sift::tools::Command> commands;
  auto add = [&](sift::tools::Command (*adder)(CLI::App&)) { commands.push_back(adder(app)); };
  add(&sift::tools::AddAppendCommand);
  add(&sift::tools::AddReplayCommand);
  add(&sift::tools::AddFilterCommand);
  add(&sift::tools::AddBenchCommand);
  add(&sift::tools::AddExplainCommand);
  add(&sift::tools::AddCheckCommand);
  add(&sift::tools::AddStatsCommand);
  add(&sift::tools::AddReindexCommand);
  add(&sift::tools::AddStreamsCommand);
  add(&sift::tools::AddStreamCommand);
  add(&sift::tools::AddGenCommand);
  add(&sift::tools::AddCatCommand);
  add(&sift::tools::AddServeCommand);
  add(&sift::tools::AddUsersCommand);
  add(&sift::tools::AddCaptureCommand);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: printed on stdout, exit 0
  } catch (const CLI::ParseError& e) {
    std::string command = CommandPath(app);
    sift::tools::PrintError("usage", command, Sentence(e.what()) + " (see '" + command + " --help')");
    return sift::tools::kExitUsage;
  }
  for (const sift::tools::Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  sift::tools::PrintError("usage", "sift", "a command is required (see 'sift --help')");
  return sift::tools::kExitUsage;
}
