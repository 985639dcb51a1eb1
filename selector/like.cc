// LIKE compilation and matching (see like.h).
#include "selector/like.h"

#include <re2/re2.h>

#include "selector/lexer.h"

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
    size_t len = Utf8SequenceLength(reinterpret_cast<const unsigned char*>(pattern.data() + i), pattern.size() - i);
    if (len == 0) len = 1;
    std::string_view c = pattern.substr(i, len);
    i += len;
    if (!escape.empty() && c == escape && i < pattern.size()) {
      size_t n = Utf8SequenceLength(reinterpret_cast<const unsigned char*>(pattern.data() + i), pattern.size() - i);
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

std::unique_ptr<LikeMatcher> LikeMatcher::Compile(std::string_view pattern, std::string_view escape, Error* error) {
  std::unique_ptr<LikeMatcher> m(new LikeMatcher());
  m->pattern_ = std::string(pattern);
  std::vector<Piece> pieces = Split(pattern, escape);
  bool has_one = false;
  size_t runs = 0;
  for (const Piece& p : pieces) {
    has_one = has_one || p.kind == Piece::kOne;
    runs += p.kind == Piece::kAnyRun;
  }
  if (!has_one) {
    // Literals separated by '%'s.
    std::vector<std::string> segments(1);
    for (const Piece& p : pieces) {
      if (p.kind == Piece::kAnyRun) {
        segments.emplace_back();
      } else {
        segments.back() += p.text;
      }
    }
    bool starts = !pieces.empty() && pieces.front().kind == Piece::kAnyRun;
    bool ends = !pieces.empty() && pieces.back().kind == Piece::kAnyRun;
    std::vector<std::string> nonempty;
    for (auto& s : segments) {
      if (!s.empty()) nonempty.push_back(std::move(s));
    }
    if (runs == 0) {
      m->kind_ = Kind::kExact;
      m->literal_ = nonempty.empty() ? std::string() : nonempty[0];
    } else if (nonempty.empty()) {
      m->kind_ = Kind::kAny;
    } else if (nonempty.size() == 1 && !starts && ends && runs == 1) {
      m->kind_ = Kind::kPrefix;
      m->literal_ = nonempty[0];
    } else if (nonempty.size() == 1 && starts && !ends && runs == 1) {
      m->kind_ = Kind::kSuffix;
      m->literal_ = nonempty[0];
    } else if (nonempty.size() == 1 && starts && ends) {
      m->kind_ = Kind::kContains;
      m->literal_ = nonempty[0];
    } else {
      m->kind_ = Kind::kSegments;
      m->segments_ = std::move(nonempty);
      m->anchored_start_ = !starts;
      m->anchored_end_ = !ends;
    }
    return m;
  }
  // re2: '%' -> (?s:.*), '_' -> (?s:.) (one code point in UTF-8 mode), literals quoted.
  std::string re;
  re.reserve(pattern.size() * 2);
  for (const Piece& p : pieces) {
    switch (p.kind) {
      case Piece::kAnyRun:
        re += ".*";
        break;
      case Piece::kOne:
        re += '.';
        break;
      case Piece::kLiteral:
        re += RE2::QuoteMeta(p.text);
        break;
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

bool LikeMatcher::Matches(std::string_view text) const {
  switch (kind_) {
    case Kind::kExact: return text == literal_;
    case Kind::kPrefix: return text.size() >= literal_.size() && text.compare(0, literal_.size(), literal_) == 0;
    case Kind::kSuffix:
      return text.size() >= literal_.size() &&
             text.compare(text.size() - literal_.size(), literal_.size(), literal_) == 0;
    case Kind::kContains: return text.find(literal_) != std::string_view::npos;
    case Kind::kAny: return true;
    case Kind::kSegments: {
      // Greedy: each literal at its earliest position after the previous one is optimal when the
      // only wildcard is '%'. The first / last literal are pinned when the pattern is anchored.
      size_t first = 0, last = segments_.size();
      size_t begin = 0, end = text.size();
      if (anchored_start_) {
        const std::string& s = segments_.front();
        if (text.size() < s.size() || text.compare(0, s.size(), s) != 0) return false;
        begin = s.size();
        ++first;
      }
      if (anchored_end_) {
        const std::string& s = segments_.back();
        if (end - begin < s.size() || text.compare(end - s.size(), s.size(), s) != 0) return false;
        end -= s.size();
        --last;
      }
      std::string_view middle = text.substr(begin, end - begin);
      size_t at = 0;
      for (size_t i = first; i < last; ++i) {
        size_t found = middle.find(segments_[i], at);
        if (found == std::string_view::npos) return false;
        at = found + segments_[i].size();
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
      for (const auto& s : segments_) out += " " + quote(s);
      if (anchored_start_) out += " (anchored start)";
      if (anchored_end_) out += " (anchored end)";
      return out;
    }
    case Kind::kRegex: return "re2 /" + regex_->re2.pattern() + "/";
  }
  return "?";
}

}  // namespace sift::selector
