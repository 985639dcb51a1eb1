// The exit codes and the error line every sift program shares (`sift` and its commands, `sift serve`
// and the standalone sift-serve): 0 success (for filtering commands: at least one match), 1 success
// with nothing matched, 2 usage or input error, 3 storage error; every error is one line on stderr,
// `sift: <what>: <where>: <why>` (README.md, "The `sift` command"). Only data goes to stdout.
#ifndef SIFT_TOOLS_ERROR_LINE_H_
#define SIFT_TOOLS_ERROR_LINE_H_

#include <cstdint>
#include <string_view>

#include "sift/status.h"

namespace sift::tools {

inline constexpr int kExitMatched = 0;  // success; a filtering command found at least one match
inline constexpr int kExitNoMatch = 1;  // success, nothing matched
inline constexpr int kExitUsage = 2;    // usage or input error: bad flag, bad selector, malformed record
inline constexpr int kExitStorage = 3;  // storage error: cannot open, corrupt chunk

// Prints `sift: <what>: <where>: <why>` (empty parts left out) and a newline on stderr.
void PrintError(std::string_view what, std::string_view where, std::string_view why);

// Prints status as an error line and returns its exit code (2 for input errors, 3 for the others).
int ReportError(const Status& status);

// The exit code of a filtering command that found `matched` messages.
inline int MatchExitCode(uint64_t matched) { return matched > 0 ? kExitMatched : kExitNoMatch; }

}  // namespace sift::tools

#endif  // SIFT_TOOLS_ERROR_LINE_H_
