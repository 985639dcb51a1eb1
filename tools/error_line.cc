// The house error line (see error_line.h).
#include <cstdio>
#include <string>

#include "tools/error_line.h"

namespace sift::tools {

void PrintError(std::string_view what, std::string_view where, std::string_view why) {
  std::string line = "sift";
  for (std::string_view part : {what, where, why}) {
    if (part.empty()) continue;
    line += ": ";
    // One line, whatever the parts hold.
    for (char c : part) line += (c == '\n' || c == '\r') ? ' ' : c;
  }
  line += '\n';
  std::fflush(stdout);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

int ReportError(const Status& status) {
  PrintError(status.what(), status.where(), status.why());
  return status.IsInputError() ? kExitUsage : kExitStorage;
}

}  // namespace sift::tools
