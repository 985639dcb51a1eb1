// `sift explain FILTER...`: prints the plan of the compiled filter-set on stdout — the fields read,
// the sections touched, the fast path of each comparison / LIKE / IN, the order of conjuncts, and the
// conditions a stored chunk's summary can rule out (selector/chunk_predicate.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "engine/compiled_filter.h"
#include "selector/chunk_predicate.h"
#include "tools/sift/command.h"
#include "tools/sift/filter_flags.h"

namespace sift::tools {

Command AddExplainCommand(CLI::App& app) {
  auto flags = std::make_shared<FilterFlags>();
  CLI::App* sub =
      app.add_subcommand("explain", "Show how filters are evaluated: fields read, sections touched, fast paths");
  AddFilterFlags(sub, flags.get(), /*required=*/true);
  return {sub, [flags] {
            CompiledFilter filter;
            if (!CompileFilterFlags(*flags, &filter)) return kExitUsage;
            const selector::Selector& selector = engine::SelectorOf(filter);
            std::string plan = selector.Explain();
            if (!plan.empty() && plan.back() != '\n') plan += '\n';
            plan +=
                "chunk skipping (sift replay, consumers): " + selector::ChunkPredicate::For(selector).Explain() + "\n";
            std::fwrite(plan.data(), 1, plan.size(), stdout);
            return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
          }};
}

}  // namespace sift::tools
