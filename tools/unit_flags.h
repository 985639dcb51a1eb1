// Command-line options that take a byte size ("64MiB") or a duration ("7d"), read strictly by
// tools/units.h, for the `sift` commands and `sift serve` alike. A bad value is a CLI11 validation
// error naming the flag, the value and what was expected (`--max-age: bad duration '7': a duration
// needs a unit ...`), which both programs report as a usage error, exit code 2.
#ifndef SIFT_TOOLS_UNIT_FLAGS_H_
#define SIFT_TOOLS_UNIT_FLAGS_H_

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "tools/units.h"

namespace sift::tools {

// `name SIZE` into *bytes, which must end up in [min, max]. Returns the option (count() says whether
// it was given).
template <typename T>
CLI::Option* AddByteSizeOption(CLI::App* app, const std::string& name, T* bytes, uint64_t min, uint64_t max,
                               const std::string& help) {
  CLI::Validator size(
      [min, max](std::string& text) -> std::string {
        uint64_t value = 0;
        std::string error;
        if (!ParseByteSize(text, &value, &error)) return "bad size '" + text + "': " + error;
        if (value < min || value > max) {
          return "bad size '" + text + "': must be from " + FormatByteSize(min) + " to " + FormatByteSize(max);
        }
        text = std::to_string(value);  // what the bound variable reads
        return std::string();
      },
      "", "SIZE");
  return app->add_option(name, *bytes, help)->transform(size)->type_name("SIZE");
}

// `name DURATION` in milliseconds into *ms, which must end up in [min_ms, max_ms].
inline CLI::Option* AddDurationOption(CLI::App* app, const std::string& name, int64_t* ms, int64_t min_ms,
                                      int64_t max_ms, const std::string& help) {
  CLI::Validator duration(
      [min_ms, max_ms](std::string& text) -> std::string {
        int64_t value = 0;
        std::string error;
        if (!ParseDuration(text, &value, &error)) return "bad duration '" + text + "': " + error;
        if (value < min_ms || value > max_ms) {
          return "bad duration '" + text + "': must be from " + FormatDuration(min_ms) + " to " +
                 FormatDuration(max_ms);
        }
        text = std::to_string(value);
        return std::string();
      },
      "", "DURATION");
  return app->add_option(name, *ms, help)->transform(duration)->type_name("DURATION");
}

}  // namespace sift::tools

#endif  // SIFT_TOOLS_UNIT_FLAGS_H_
