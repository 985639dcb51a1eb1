// The pieces every `sift` command shares: exit codes, the house error line, and command registration.
//
// Exit codes and error lines (README.md, "The `sift` command"): 0 success (for filtering
// commands: at least one match), 1 success with nothing matched, 2 usage or input error, 3 storage
// error; every error is one line on stderr, `sift: <what>: <where>: <why>`. Only data goes to stdout.
#ifndef SIFT_TOOLS_SIFT_COMMAND_H_
#define SIFT_TOOLS_SIFT_COMMAND_H_

#include <functional>
#include <string>
#include <string_view>

#include "sift/status.h"

namespace CLI {
class App;
}

namespace sift::tools {

inline constexpr int kExitMatched = 0;  // success; a filtering command found at least one match
inline constexpr int kExitNoMatch = 1;  // success, nothing matched
inline constexpr int kExitUsage = 2;    // usage or input error: bad flag, bad selector, malformed record
inline constexpr int kExitStorage = 3;  // storage error: cannot open, corrupt chunk

// Prints `sift: <what>: <where>: <why>` (empty parts left out) and a newline on stderr.
void PrintError(std::string_view what, std::string_view where, std::string_view why);

// Prints status as an error line and returns its exit code (2 for input errors, 3 for the others).
int ReportError(const engine::Status& status);

// The exit code of a filtering command that found `matched` messages.
inline int MatchExitCode(uint64_t matched) { return matched > 0 ? kExitMatched : kExitNoMatch; }

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
