// A test build of `sift bench` with a planted bug: compiled with SIFT_BENCH_SEEDED_MISMATCH, sift's
// side of the paired measurement loses one match, so the check that sift and the decode-everything
// baseline found the same messages must fail the run (exit 2, both counts on stderr). Only the bench
// command is built in; bench_command_test.py runs it.
#include <CLI/CLI.hpp>

#include "tools/sift/command.h"

int main(int argc, char** argv) {
  CLI::App app{"sift, bench command only, with a planted mismatch (a test build)", "sift"};
  app.require_subcommand(1);
  sift::tools::Command bench = sift::tools::AddBenchCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : sift::tools::kExitUsage;
  }
  return bench.run();
}
