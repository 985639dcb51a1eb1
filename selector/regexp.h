// A compiled regular expression of REGEXP_LIKE (sift's extension of the SQL filter;
// docs/selector-semantics.md, "REGEXP_LIKE").
//
// The pattern is RE2 syntax and is compiled once, at filter compile time, by re2 with a memory limit
// (Limits::max_regexp_memory, RE2's max_mem): re2 matches in time linear in the text, with no
// backtracking, and never uses more memory than that limit, so a pattern from an untrusted client
// costs a bounded amount per byte of text whatever it says. A pattern re2 refuses, or one that needs
// more memory than the limit, is a compile error with its byte offset in the pattern. So is one whose
// program has more instructions than Limits::max_regexp_program: when a text leads re2's DFA to more
// states than its memory holds, re2 simulates the program instead, at a cost per byte that grows
// with the program's size, and this limit is what bounds it.
//
// Matching is re2's PartialMatch with no submatches (TRUE when the pattern matches anywhere in the
// text; `^` and `$` anchor it), on a view of the text's bytes: it allocates nothing once re2's DFA
// cache holds the states the texts lead to.
//
// The matcher also says what every matching text must hold, read from the pattern's top-level
// concatenation (nothing is derived under a top-level `|`, a `(?flags)` group, or a
// case-insensitive match): the longest run of literal characters, the literal run that follows a
// leading `^`, and, for a pattern `^literal$`, the one text that matches. Each is a necessary
// condition of a match, so a caller may reject a text that lacks it without running the regex.
#ifndef SIFT_SELECTOR_REGEXP_H_
#define SIFT_SELECTOR_REGEXP_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "selector/error.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace sift::selector {

class RegexpMatcher {
 public:
  // Compiles `pattern` with `flags` (letters: `i` case-insensitive, `c` case-sensitive (the default),
  // `m` multi-line: `^` and `$` also match at line breaks, `s` or `n`: `.` also matches a line break;
  // a later `i` / `c` overrides an earlier one). Fails (nullptr) with *error's code, message and
  // position filled, the position being a byte offset into `pattern`, or into `flags` when
  // *in_flags is set; the caller maps it into the expression.
  // `max_memory` is re2's max_mem, `max_program` the most instructions its program may have.
  static std::unique_ptr<RegexpMatcher> Compile(std::string_view pattern, std::string_view flags, size_t max_memory,
                                                size_t max_program, Error* error, bool* in_flags);
  ~RegexpMatcher();

  // True when the pattern matches somewhere in `text` (UTF-8; bytes that are not are matched as
  // re2 matches them: they match no `.` and no class, only themselves).
  bool Matches(std::string_view text) const;

  std::string_view pattern() const { return pattern_; }
  std::string_view flags() const { return flags_; }
  bool case_insensitive() const { return case_insensitive_; }
  // The size of re2's compiled program, in instructions (what a match costs per byte, at worst).
  int program_size() const { return program_size_; }

  // True for a pattern `^literal$` (no flag but `s` / `c`): it matches exactly the text
  // whole_literal().
  bool whole() const { return whole_; }
  std::string_view whole_literal() const { return whole_literal_; }
  // The literal run right after a leading `^` (empty when the pattern does not start with `^` and a
  // literal): every matching text starts with it.
  std::string_view leading_literal() const { return leading_; }
  // The longest literal run of the top-level concatenation (empty when none is known): every
  // matching text contains it.
  std::string_view required_literal() const { return required_; }

  // "re2, 12 instructions; required literal 'cust-'", for Explain.
  std::string Describe() const;

 private:
  RegexpMatcher() = default;
  void Analyze(bool multi_line);

  std::unique_ptr<re2::RE2> re_;
  std::string pattern_;
  std::string flags_;
  bool case_insensitive_ = false;
  int program_size_ = 0;
  size_t max_memory_ = 0;
  bool whole_ = false;
  std::string whole_literal_;
  std::string leading_;
  std::string required_;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_REGEXP_H_
