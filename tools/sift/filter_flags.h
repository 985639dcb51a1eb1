// The FILTER flags every filtering command shares: --sql/-e EXPR, --jms EXPR,
// --properties JSON, --application-properties JSON; each may repeat and all are ANDed. Compiling
// prints a bad selector as the house error line, then the expression line and a caret under the
// column (by code points) where the problem starts.
#ifndef SIFT_TOOLS_SIFT_FILTER_FLAGS_H_
#define SIFT_TOOLS_SIFT_FILTER_FLAGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "sift/filter_set.h"
#include "sift/filter_spec.h"

namespace CLI {
class App;
}

namespace sift::tools {

struct FilterFlags {
  std::vector<std::string> sql;
  std::vector<std::string> jms;
  std::vector<std::string> properties;
  std::vector<std::string> application_properties;

  FilterSpec Spec() const;
};

// Adds the FILTER flags to `command`; `required` makes at least one of them mandatory.
void AddFilterFlags(CLI::App* command, FilterFlags* flags, bool required = false);

// Compiles the flags into *out. On failure prints the error (and caret) and returns false; the exit
// code is then kExitUsage. The error names the flag (`--sql #2 column 7`), or `origin` when given (a
// filter read from a file: `filters.txt:3 column 7`).
bool CompileFilterFlags(const FilterFlags& flags, CompiledFilter* out, std::string_view origin = {});

// The caret display: the line of `text` holding byte `position`, then a line with '^' under it,
// each indented by two spaces (columns counted in code points, tabs kept).
std::string CaretLines(std::string_view text, size_t position);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_FILTER_FLAGS_H_
