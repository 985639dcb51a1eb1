// A compiled LIKE pattern (filter expressions section 6; docs/selector-semantics.md, "LIKE").
//
// '%' matches any run of characters (possibly empty), '_' exactly one character (code point), an
// escaped character itself, anything else itself (case-sensitive, byte-exact on UTF-8). The pattern
// is compiled once into the cheapest matcher that is exact for it:
//   kExact     no wildcard                    value == literal
//   kPrefix    literal%                       value starts with literal
//   kSuffix    %literal                       value ends with literal
//   kContains  %literal%                      value contains literal
//   kAny       only '%'s                      every text matches
//   kSegments  '%'-separated segments of       greedy left-to-right search: each segment at its
//              literals and '_'s               earliest place (exact, because a segment spans a
//                                              fixed number of code points); O(text x segment)
//   kRegex     a '_' pattern longer than       re2 (UTF-8, linear time, memory bounded by max_mem)
//              kMaxSegmentPattern code points
// Substring tests on bytes are exact on code points because UTF-8 is self-synchronising.
// Matching never allocates, except in re2's DFA cache, which is bounded and warms up: that is why
// every pattern of a usual length avoids re2, and the segment search bounds its own cost by the
// pattern length instead.
#ifndef SIFT_SELECTOR_LIKE_H_
#define SIFT_SELECTOR_LIKE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "selector/error.h"

namespace sift::selector {

class LikeMatcher {
 public:
  enum class Kind : uint8_t { kExact, kPrefix, kSuffix, kContains, kAny, kSegments, kRegex };

  // `escape` is empty or one code point (checked by the parser). On failure (re2 refuses the pattern)
  // returns nullptr and fills *error's code and message (the caller sets the position).
  static std::unique_ptr<LikeMatcher> Compile(std::string_view pattern, std::string_view escape, Error* error);
  ~LikeMatcher();

  bool Matches(std::string_view text) const;

  Kind kind() const { return kind_; }
  std::string_view pattern() const { return pattern_; }
  // The longest run of literal characters every matching text contains (escapes resolved; empty
  // when the pattern has no literal), and how many code points it holds. A text that does not
  // contain it does not match.
  std::string_view required_literal() const { return required_; }
  size_t required_code_points() const { return required_code_points_; }
  // The run of literal characters the pattern starts with (empty when it starts with '%' or '_'),
  // and how many code points it holds: every matching text begins with it.
  std::string_view leading_literal() const { return leading_; }
  size_t leading_code_points() const { return leading_code_points_; }
  // "exact", "prefix", "suffix", "contains", "any", "segments", "re2"; and the literal(s) used.
  std::string Describe() const;

 private:
  LikeMatcher() = default;
  struct Regex;

  Kind kind_ = Kind::kExact;
  std::string pattern_;
  std::string literal_;   // kExact / kPrefix / kSuffix / kContains
  std::string required_;  // see required_literal()
  size_t required_code_points_ = 0;
  std::string leading_;  // see leading_literal()
  size_t leading_code_points_ = 0;
  // kSegments: what lies between '%'s. A '_' wildcard is kept as the byte '_' in `text` and marked
  // in `one_char` (an escaped, literal '_' is not marked).
  struct Segment {
    std::string text;
    std::vector<uint8_t> one_char;  // per byte of `text`: 1 when this byte stands for '_'
    size_t literal_head = 0;        // bytes of `text` before its first '_' (compared at once)
    size_t code_points = 0;         // fixed width of the segment, in code points
    bool has_one = false;
  };
  std::vector<Segment> segments_;

  static size_t MatchSegmentAt(const Segment& seg, std::string_view text, size_t at);
  static size_t FindSegment(const Segment& seg, std::string_view text, size_t from, size_t* end);
  bool has_one_ = false;          // kSegments: some segment holds a '_'
  bool anchored_start_ = false;   // kSegments: the pattern does not start with '%'
  bool anchored_end_ = false;     // kSegments: the pattern does not end with '%'
  std::unique_ptr<Regex> regex_;  // kRegex
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_LIKE_H_
