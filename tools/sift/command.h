// The pieces every `sift` command shares: command registration, and (error_line.h) the exit codes and
// the house error line.
#ifndef SIFT_TOOLS_SIFT_COMMAND_H_
#define SIFT_TOOLS_SIFT_COMMAND_H_

#include <functional>
#include <string>
#include <string_view>

#include "sift/status.h"
#include "tools/error_line.h"

namespace CLI {
class App;
}

namespace sift::tools {

// A command's body, run after the command line parsed; returns the process exit code.
using CommandRunner = std::function<int()>;

// A registered subcommand and its body.
struct Command {
  CLI::App* app = nullptr;
  CommandRunner run;
};

// Each command adds its subcommand (flags bound to options it owns) and returns it with its runner.
Command AddAppendCommand(CLI::App& app);
Command AddReplayCommand(CLI::App& app);
Command AddFilterCommand(CLI::App& app);
Command AddBenchCommand(CLI::App& app);
Command AddExplainCommand(CLI::App& app);
Command AddCheckCommand(CLI::App& app);
Command AddStatsCommand(CLI::App& app);
Command AddStreamsCommand(CLI::App& app);
Command AddStreamCommand(CLI::App& app);
Command AddGenCommand(CLI::App& app);
Command AddCatCommand(CLI::App& app);
Command AddServeCommand(CLI::App& app);
Command AddReindexCommand(CLI::App& app);
Command AddUsersCommand(CLI::App& app);
Command AddCaptureCommand(CLI::App& app);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_COMMAND_H_
