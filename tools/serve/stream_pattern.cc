// Glob matching of stream names (see stream_pattern.h).
#include "tools/serve/stream_pattern.h"

namespace sift::tools {

bool StreamPatternMatches(std::string_view pattern, std::string_view name) {
  // The classic greedy match with one backtrack point: on a mismatch, the last `*` takes one more
  // byte. Earlier stars never need to be revisited, which keeps this quadratic at worst.
  size_t p = 0, n = 0;
  size_t star = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || (pattern[p] != '*' && pattern[p] == name[n]))) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_n = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace sift::tools
