// `sift check FILTER...`: compiles the filters and exits 0 when they are valid; otherwise prints the
// error line with the expression and a caret under the problem, and exits 2. Prints nothing on success.
#include <CLI/CLI.hpp>

#include <memory>

#include "tools/sift/command.h"
#include "tools/sift/filter_flags.h"

namespace sift::tools {

Command AddCheckCommand(CLI::App& app) {
  auto flags = std::make_shared<FilterFlags>();
  CLI::App* sub =
      app.add_subcommand("check", "Check that filters compile (exit 0) or show the error with a caret (exit 2)");
  AddFilterFlags(sub, flags.get(), /*required=*/true);
  return {sub, [flags] {
            CompiledFilter filter;
            return CompileFilterFlags(*flags, &filter) ? kExitMatched : kExitUsage;
          }};
}

}  // namespace sift::tools
