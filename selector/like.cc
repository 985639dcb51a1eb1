// LIKE compilation and matching (see like.h).
#include "selector/like.h"

#include <re2/re2.h>

#include <cstdint>
#include <cstring>

#include "base/utf8.h"
#include "selector/bytes_equal.h"

namespace sift::selector {

struct LikeMatcher::Regex {
  explicit Regex(const std::string& re, const RE2::Options& options) : re2(re, options) {}
  RE2 re2;
};

// Memory re2 may use for one LIKE pattern; patterns are at most Limits::max_like_pattern bytes, so
// this is ample for any legitimate one and bounds a hostile one.
constexpr int64_t kRegexMaxMem = 4 << 20;

LikeMatcher::~LikeMatcher() = default;

namespace {

// One element of a pattern: a literal character (maybe escaped), '%' or '_'.
struct Piece {
  enum Kind : uint8_t { kLiteral, kAnyRun, kOne } kind;
  std::string_view text;  // kLiteral: the character's bytes
};

std::vector<Piece> Split(std::string_view pattern, std::string_view escape) {
  std::vector<Piece> pieces;
  for (size_t i = 0; i < pattern.size();) {
    size_t len = base::Utf8SequenceLength(pattern, i);
    if (len == 0) len = 1;
    std::string_view c = pattern.substr(i, len);
    i += len;
    if (!escape.empty() && c == escape && i < pattern.size()) {
      size_t n = base::Utf8SequenceLength(pattern, i);
      if (n == 0) n = 1;
      pieces.push_back({Piece::kLiteral, pattern.substr(i, n)});
      i += n;
    } else if (c == "%") {
      pieces.push_back({Piece::kAnyRun, {}});
    } else if (c == "_") {
      pieces.push_back({Piece::kOne, {}});
    } else {
      pieces.push_back({Piece::kLiteral, c});
    }
  }
  return pieces;
}

}  // namespace

namespace {

// Patterns up to this many code points are matched by the segment search even when they hold '_':
// its cost per text is at most text length x pattern length, and it never allocates.
constexpr size_t kMaxSegmentPattern = 256;

}  // namespace

std::unique_ptr<LikeMatcher> LikeMatcher::Compile(std::string_view pattern, std::string_view escape, Error* error) {
  std::unique_ptr<LikeMatcher> m(new LikeMatcher());
  m->pattern_ = std::string(pattern);
  std::vector<Piece> pieces = Split(pattern, escape);
  // The longest run of literal pieces (one code point each): what every match must contain.
  for (size_t i = 0; i < pieces.size();) {
    size_t j = i;
    std::string run;
    while (j < pieces.size() && pieces[j].kind == Piece::kLiteral) run += pieces[j++].text;
    if (j - i > m->required_code_points_) {
      m->required_code_points_ = j - i;
      m->required_ = std::move(run);
    }
    i = j == i ? i + 1 : j;
  }
  for (const Piece& p : pieces) {
    if (p.kind != Piece::kLiteral) break;
    m->leading_ += p.text;
    ++m->leading_code_points_;
  }
  bool has_one = false;
  size_t runs = 0;
  for (const Piece& p : pieces) {
    has_one = has_one || p.kind == Piece::kOne;
    runs += p.kind == Piece::kAnyRun;
  }
  if (!has_one || pieces.size() <= kMaxSegmentPattern) {
    // Segments (literals and '_'s) separated by '%'s.
    std::vector<Segment> segments(1);
    for (const Piece& p : pieces) {
      Segment& seg = segments.back();
      if (p.kind == Piece::kAnyRun) {
        segments.emplace_back();
      } else if (p.kind == Piece::kOne) {
        seg.text += '_';
        if (!seg.has_one) seg.literal_head = seg.text.size() - 1;
        seg.one_char.push_back(1);
        seg.code_points += 1;
        seg.has_one = true;
      } else {
        seg.text += p.text;
        seg.one_char.insert(seg.one_char.end(), p.text.size(), 0);
        seg.code_points += 1;
      }
    }
    bool starts = !pieces.empty() && pieces.front().kind == Piece::kAnyRun;
    bool ends = !pieces.empty() && pieces.back().kind == Piece::kAnyRun;
    std::vector<Segment> nonempty;
    for (auto& seg : segments) {
      if (!seg.text.empty()) nonempty.push_back(std::move(seg));
    }
    if (!has_one && runs == 0) {
      m->kind_ = Kind::kExact;
      m->literal_ = nonempty.empty() ? std::string() : nonempty[0].text;
    } else if (nonempty.empty()) {
      m->kind_ = runs == 0 ? Kind::kExact : Kind::kAny;  // runs == 0 here means the empty pattern
    } else if (!has_one && nonempty.size() == 1 && !starts && ends && runs == 1) {
      m->kind_ = Kind::kPrefix;
      m->literal_ = nonempty[0].text;
    } else if (!has_one && nonempty.size() == 1 && starts && !ends && runs == 1) {
      m->kind_ = Kind::kSuffix;
      m->literal_ = nonempty[0].text;
    } else if (!has_one && nonempty.size() == 1 && starts && ends) {
      m->kind_ = Kind::kContains;
      m->literal_ = nonempty[0].text;
    } else {
      m->kind_ = Kind::kSegments;
      m->has_one_ = has_one;
      m->segments_ = std::move(nonempty);
      m->anchored_start_ = !starts;
      m->anchored_end_ = !ends;
    }
    return m;
  }
  // re2 for long patterns with '_': '%' -> .*, '_' -> . (one code point in UTF-8 mode), literals quoted.
  std::string re;
  re.reserve(pattern.size() * 2);
  for (const Piece& p : pieces) {
    switch (p.kind) {
      case Piece::kAnyRun: re += ".*"; break;
      case Piece::kOne: re += '.'; break;
      case Piece::kLiteral: re += RE2::QuoteMeta(p.text); break;
    }
  }
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_dot_nl(true);
  options.set_log_errors(false);
  options.set_max_mem(kRegexMaxMem);
  options.set_case_sensitive(true);
  m->regex_ = std::make_unique<Regex>(re, options);
  if (!m->regex_->re2.ok()) {
    error->code = ErrorCode::kInvalidPattern;
    error->message = "LIKE pattern cannot be compiled: " + m->regex_->re2.error();
    return nullptr;
  }
  m->kind_ = Kind::kRegex;
  return m;
}

// The end of `seg` matched at text[at...], or npos.
size_t LikeMatcher::MatchSegmentAt(const Segment& seg, std::string_view text, size_t at) {
  if (!seg.has_one) {
    return text.size() - at >= seg.text.size() && BytesEqual(text.data() + at, seg.text.data(), seg.text.size())
               ? at + seg.text.size()
               : std::string_view::npos;
  }
  // The literal bytes before the first '_' in one comparison: most texts fail there.
  const size_t head = seg.literal_head;
  if (text.size() - at < head || !BytesEqual(text.data() + at, seg.text.data(), head)) {
    return std::string_view::npos;
  }
  size_t t = at + head;
  for (size_t i = head; i < seg.text.size(); ++i) {
    if (seg.one_char[i]) {
      // Bytes that are not well-formed UTF-8 never match '_' (as with re2 in UTF-8 mode).
      size_t n = t < text.size() ? base::Utf8SequenceLength(text, t) : 0;
      if (n == 0) return std::string_view::npos;
      t += n;
    } else {
      if (t >= text.size() || text[t] != seg.text[i]) return std::string_view::npos;
      ++t;
    }
  }
  return t;
}

// The earliest place at or after `from` where `seg` matches; *end gets where that match ends.
size_t LikeMatcher::FindSegment(const Segment& seg, std::string_view text, size_t from, size_t* end) {
  if (!seg.has_one) {
    size_t found = text.find(seg.text, from);
    if (found != std::string_view::npos) *end = found + seg.text.size();
    return found;
  }
  for (size_t at = from; at < text.size(); ++at) {
    // Only code point boundaries can start a match: skip UTF-8 continuation bytes.
    if (base::IsUtf8Continuation(static_cast<uint8_t>(text[at]))) continue;
    size_t e = MatchSegmentAt(seg, text, at);
    if (e != std::string_view::npos) {
      *end = e;
      return at;
    }
  }
  return std::string_view::npos;
}

// Where the last `code_points` code points of text[begin, end) start, or npos if there are fewer.
static size_t BackCodePoints(std::string_view text, size_t begin, size_t end, size_t code_points) {
  size_t at = end;
  for (size_t i = 0; i < code_points; ++i) {
    if (at <= begin) return std::string_view::npos;
    --at;
    while (at > begin && base::IsUtf8Continuation(static_cast<uint8_t>(text[at]))) --at;
  }
  return at;
}

bool LikeMatcher::Matches(std::string_view text) const {
  switch (kind_) {
    case Kind::kExact: return text == literal_;
    case Kind::kPrefix:
      return text.size() >= literal_.size() && BytesEqual(text.data(), literal_.data(), literal_.size());
    case Kind::kSuffix:
      return text.size() >= literal_.size() &&
             text.compare(text.size() - literal_.size(), literal_.size(), literal_) == 0;
    case Kind::kContains: return text.find(literal_) != std::string_view::npos;
    case Kind::kAny: return true;
    case Kind::kSegments: {
      // '_' stands for one code point, so text that is not UTF-8 has no characters to match it
      // (the same answer re2 gives in UTF-8 mode); '%'-only patterns compare bytes.
      if (has_one_ && !base::IsValidUtf8(text)) return false;
      // Greedy: each segment at its earliest position after the previous one is optimal, because a
      // segment always spans the same number of code points. The first / last segments are pinned
      // when the pattern is anchored.
      size_t first = 0, last = segments_.size();
      size_t begin = 0, end = text.size();
      if (anchored_start_) {
        size_t e = MatchSegmentAt(segments_.front(), text, 0);
        if (e == std::string_view::npos) return false;
        begin = e;
        ++first;
        if (segments_.size() == 1 && anchored_end_) return e == text.size();
      }
      if (anchored_end_) {
        const Segment& seg = segments_.back();
        size_t at = BackCodePoints(text, begin, end, seg.code_points);
        if (at == std::string_view::npos || MatchSegmentAt(seg, text, at) != end) return false;
        end = at;
        --last;
      }
      std::string_view middle = text.substr(0, end);
      size_t at = begin;
      for (size_t i = first; i < last; ++i) {
        size_t seg_end = 0;
        if (FindSegment(segments_[i], middle, at, &seg_end) == std::string_view::npos) return false;
        at = seg_end;
      }
      return true;
    }
    case Kind::kRegex: return RE2::FullMatch(re2::StringPiece(text.data(), text.size()), regex_->re2);
  }
  return false;
}

std::string LikeMatcher::Describe() const {
  auto quote = [](std::string_view s) { return "'" + std::string(s) + "'"; };
  switch (kind_) {
    case Kind::kExact: return "exact " + quote(literal_);
    case Kind::kPrefix: return "prefix " + quote(literal_);
    case Kind::kSuffix: return "suffix " + quote(literal_);
    case Kind::kContains: return "contains " + quote(literal_);
    case Kind::kAny: return "any text";
    case Kind::kSegments: {
      std::string out = "segments";
      for (const auto& seg : segments_) out += " " + quote(seg.text);
      if (anchored_start_) out += " (anchored start)";
      if (anchored_end_) out += " (anchored end)";
      return out;
    }
    case Kind::kRegex: return "re2 /" + regex_->re2.pattern() + "/";
  }
  return "?";
}

}  // namespace sift::selector
