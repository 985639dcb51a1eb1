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
//                                              fixed number of code points)
// Substring tests on bytes are exact on code points because UTF-8 is self-synchronising. A segment
// holding a '_' that must be searched for (not pinned to either end of the text) is searched
// bit-parallel (shift-and over code points, one bit per pattern position: one register up to 64 code
// points, four 64-bit words per instruction with AVX2 beyond), so the cost of a match is linear in the
// text, text length x (segment length / 64) word operations at worst, whatever the pattern and the
// text: a hostile pattern of the longest allowed length costs a few nanoseconds per byte of text.
// Literal runs are found with a linear-time substring search (two-way), never by comparing the
// literal at every position. Matching never allocates.
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
  enum class Kind : uint8_t { kExact, kPrefix, kSuffix, kContains, kAny, kSegments };

  // `escape` is empty or one code point (checked by the parser). Fails (nullptr, *error's code and
  // message filled; the caller sets the position) only for a segment with '_' longer than 4,096 code
  // points, which only limits raised beyond the defaults let through.
  static std::unique_ptr<LikeMatcher> Compile(std::string_view pattern, std::string_view escape, Error* error);
  ~LikeMatcher();

  bool Matches(std::string_view text) const;

  Kind kind() const { return kind_; }
  // True when a segment is searched bit-parallel (a searched segment of two or more code points with
  // a '_'): linear in the text, but dearer per character than the other searches.
  bool bit_parallel() const { return bit_parallel_; }
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
  // "exact", "prefix", "suffix", "contains", "any", "segments"; and the literal(s) used.
  std::string Describe() const;

 private:
  LikeMatcher() = default;

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
    // The bit-parallel search of a long segment with a '_' (words == 0: not used). Bit j of a mask
    // (word j / 64) is set when pattern position j accepts the code point: its literal, or '_'.
    size_t words = 0;
    std::vector<uint64_t> ascii_masks;  // 128 x words, by ASCII code point
    std::vector<uint32_t> others;       // the segment's other code points, sorted
    std::vector<uint64_t> other_masks;  // others.size() x words
    std::vector<uint64_t> one_mask;     // words: the '_' positions alone (any other code point)
    bool avx2 = false;                  // searched four words per instruction (words: a multiple of 4)
  };
  std::vector<Segment> segments_;

  static size_t MatchSegmentAt(const Segment& seg, std::string_view text, size_t at);
  static size_t FindSegment(const Segment& seg, std::string_view text, size_t from, size_t* end);
  static size_t FindSegmentBitParallel(const Segment& seg, std::string_view text, size_t from, size_t* end);
  static size_t FindSegmentBitParallelAvx2(const Segment& seg, std::string_view text, size_t from, size_t* end);
  template <size_t kVectors>
  static size_t FindSegmentAvx2(const Segment& seg, std::string_view text, size_t from, size_t* end);
  static const uint64_t* MaskOf(const Segment& seg, const uint8_t* bytes, size_t* at);
  static void PrepareBitParallel(Segment* seg);
  bool has_one_ = false;         // kSegments: some segment holds a '_'
  bool anchored_start_ = false;  // kSegments: the pattern does not start with '%'
  bool anchored_end_ = false;
  bool bit_parallel_ = false;  // kSegments: the pattern does not end with '%'
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_LIKE_H_
