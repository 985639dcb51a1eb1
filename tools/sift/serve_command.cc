// `sift serve [--listen HOST:PORT] [--store DIR] ...`: the AMQP 1.0 endpoint (tools/serve/serve.h,
// docs/serve.md) as a command of `sift`; the same flags and exit codes as the sift-serve program.
#include <CLI/CLI.hpp>

#include <memory>

#include "tools/serve/serve.h"
#include "tools/sift/command.h"

namespace sift::tools {

Command AddServeCommand(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* sub = app.add_subcommand("serve", "Serve streams over AMQP 1.0: durable appends, filtered consumers");
  AddServeFlags(sub, options.get());
  return {sub, [options] { return RunServe(*options); }};
}

}  // namespace sift::tools
