// Glob patterns on stream names, for the permissions of the users file (docs/serve.md, "Users and
// permissions"): `*` matches any run of characters (also none), `?` exactly one byte, every other
// byte only itself. A pattern matches the whole name: `orders-*` matches `orders-eu` and `orders-`,
// not `big-orders-eu`. There is no escape: a stream whose name holds `*` or `?` is matched by the
// wildcard like any other.
#ifndef SIFT_TOOLS_SERVE_STREAM_PATTERN_H_
#define SIFT_TOOLS_SERVE_STREAM_PATTERN_H_

#include <string_view>

namespace sift::tools {

// True when `pattern` matches all of `name`. Time O(|pattern| * |name|) at worst, no recursion, no
// allocation.
bool StreamPatternMatches(std::string_view pattern, std::string_view name);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_STREAM_PATTERN_H_
