// RegexpMatcher: what it derives from a pattern (the required literal, the prefix after `^`, the one
// text of `^literal$`), which the text prefilter and chunk summaries rely on, and its compile errors
// with their offsets in the pattern or the flags.
#include "selector/regexp.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace sift::selector {
namespace {

struct Derived {
  bool whole;
  std::string whole_literal, leading, required;
};

Derived Derive(const std::string& pattern, const std::string& flags = "") {
  Error error;
  bool in_flags = false;
  std::unique_ptr<RegexpMatcher> m = RegexpMatcher::Compile(pattern, flags, 1 << 20, 1 << 20, &error, &in_flags);
  EXPECT_NE(m, nullptr) << pattern << ": " << error.ToString();
  if (m == nullptr) return {};
  return {m->whole(), std::string(m->whole_literal()), std::string(m->leading_literal()),
          std::string(m->required_literal())};
}

TEST(RegexpMatcher, DerivesWhatEveryMatchHolds) {
  struct Case {
    const char* pattern;
    const char* flags;
    bool whole;
    const char* whole_literal;
    const char* leading;
    const char* required;
  };
  const Case cases[] = {
      {"^cust-256304$", "", true, "cust-256304", "cust-256304", "cust-256304"},
      {"^a\\.b$", "", true, "a.b", "a.b", "a.b"},
      {"^$", "", true, "", "", ""},
      {"^cust-[0-9]1.*7$", "", false, "", "cust-", "cust-"},
      {"order-[0-9]{6}", "", false, "", "", "order-"},
      {"^orders\\.", "", false, "", "orders.", "orders."},
      {"xy[ab]+longest", "", false, "", "", "longest"},
      {"ab+c", "", false, "", "", "ab"},        // b+: at least one b right after a
      {"abc?d", "", false, "", "", "ab"},       // c? may be absent
      {"abc*de", "", false, "", "", "ab"},      // c*: "ab" and "de"; of two as long, the first
      {"^ab{2}c$", "", false, "", "ab", "ab"},  // repeated: not a whole literal
      {"a|bc", "", false, "", "", ""},          // top-level alternation: nothing
      {"(?i)abc", "", false, "", "", ""},       // a flag group: nothing
      {"abc", "i", false, "", "", ""},          // case-insensitive: nothing
      {"^abc$", "m", false, "", "", "abc"},     // multi-line: ^ and $ anchor lines
      {"^abc$", "s", true, "abc", "abc", "abc"},
      {"(ab)cd", "", false, "", "", "cd"},
      {"[(]ab(c)", "", false, "", "", "ab"},
      {"a\\d+bc", "", false, "", "", "bc"},
      {"\\x41bc", "", false, "", "", "bc"},
      {"\\pLxyz", "", false, "", "", "xyz"},
      {"\\p{Greek}xyz", "", false, "", "", "xyz"},
      {"\\QA.B\\E", "", false, "", "", ""},
      {"é日本x", "", false, "", "", "é日本x"},
      {"a{,2}bc", "", false, "", "", ",2"},  // not a repetition in re2 ('{' and '}' kept out of runs)
      {"^*ab", "", false, "", "", "ab"},     // a repeated ^ is no anchor
      {"ab$x", "", false, "", "", "ab"},
  };
  for (const Case& c : cases) {
    const Derived d = Derive(c.pattern, c.flags);
    EXPECT_EQ(d.whole, c.whole) << c.pattern;
    EXPECT_EQ(d.whole_literal, c.whole_literal) << c.pattern;
    EXPECT_EQ(d.leading, c.leading) << c.pattern;
    EXPECT_EQ(d.required, c.required) << c.pattern;
  }
}

TEST(RegexpMatcher, ErrorsSayWhere) {
  struct Case {
    const char* pattern;
    const char* flags;
    ErrorCode code;
    size_t position;
    bool in_flags;
  };
  const Case cases[] = {
      {"a(b", "", ErrorCode::kInvalidRegexp, 1, false},
      {"a(b(c)", "", ErrorCode::kInvalidRegexp, 1, false},
      {"ab)", "", ErrorCode::kInvalidRegexp, 2, false},
      {"x[z-a]", "", ErrorCode::kInvalidRegexp, 2, false},
      {"abc\\", "", ErrorCode::kInvalidRegexp, 3, false},
      {"abc", "iq", ErrorCode::kInvalidRegexp, 1, true},
      {"a{1000}b{1000}", "", ErrorCode::kRegexpTooLarge, 0, false},
  };
  for (const Case& c : cases) {
    Error error;
    bool in_flags = false;
    EXPECT_EQ(RegexpMatcher::Compile(c.pattern, c.flags, 1 << 20, 1024, &error, &in_flags), nullptr) << c.pattern;
    EXPECT_EQ(error.code, c.code) << c.pattern;
    EXPECT_EQ(error.position, c.position) << c.pattern;
    EXPECT_EQ(in_flags, c.in_flags) << c.pattern;
  }
  Error error;
  bool in_flags = false;
  EXPECT_EQ(RegexpMatcher::Compile("x{100}y{100}", "", 2048, 1 << 20, &error, &in_flags), nullptr);
  EXPECT_EQ(error.code, ErrorCode::kRegexpTooLarge);
}

}  // namespace
}  // namespace sift::selector
