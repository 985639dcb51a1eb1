// REGEXP_LIKE's matcher (see regexp.h).
#include "selector/regexp.h"

#include <re2/re2.h>

#include <cctype>
#include <vector>

#include "base/utf8.h"

namespace sift::selector {
namespace {

// The pattern read as a top-level concatenation of atoms. Only what is certain is kept as a literal:
// an unescaped character that is not a metacharacter, or a backslash before punctuation. Everything
// else (a class, a group, `.`, an escape naming a class, a code or an assertion) is `kOther`, which
// ends a literal run and so can only make the derived facts weaker, never wrong.
struct Atom {
  enum Kind { kLiteral, kOther, kBegin, kEnd } kind = kOther;
  std::string bytes;      // kLiteral: the character's UTF-8
  bool optional = false;  // under `?`, `*`, `{0,...}`: it may be absent
  bool repeated = false;  // under any repetition: what follows it is not next to it
};

// [i] is '['; *end is one past the class's ']'. False for a shape the scan does not follow.
bool SkipClass(std::string_view p, size_t i, size_t* end) {
  size_t j = i + 1;
  if (j < p.size() && p[j] == '^') ++j;
  if (j < p.size() && p[j] == ']') return false;  // a leading ']' as a member
  while (j < p.size()) {
    const char c = p[j];
    if (c == '\\') {
      if (j + 1 < p.size() && p[j + 1] == 'Q') return false;
      j += 2;
    } else if (c == '[' && j + 1 < p.size() && p[j + 1] == ':') {
      const size_t close = p.find(":]", j + 2);
      if (close == std::string_view::npos) return false;
      j = close + 2;
    } else if (c == ']') {
      *end = j + 1;
      return true;
    } else {
      ++j;
    }
  }
  return false;
}

// [i] is '('; *end is one past the matching ')'.
bool SkipGroup(std::string_view p, size_t i, size_t* end) {
  int depth = 0;
  size_t j = i;
  while (j < p.size()) {
    const char c = p[j];
    if (c == '\\') {
      if (j + 1 < p.size() && p[j + 1] == 'Q') return false;
      j += 2;
    } else if (c == '[') {
      if (!SkipClass(p, j, &j)) return false;
    } else {
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) {
        *end = j + 1;
        return true;
      }
      ++j;
    }
  }
  return false;
}

// `{n}`, `{n,}`, `{n,m}` at [i]: true with *min and *end (one past '}').
bool ParseRepeat(std::string_view p, size_t i, size_t* min, size_t* end) {
  size_t j = i + 1;
  size_t n = 0, digits = 0;
  while (j < p.size() && p[j] >= '0' && p[j] <= '9') {
    n = n * 10 + static_cast<size_t>(p[j] - '0');
    if (n > 100000) n = 100000;
    ++j;
    ++digits;
  }
  if (digits == 0 || j >= p.size()) return false;
  if (p[j] == ',') {
    ++j;
    while (j < p.size() && p[j] >= '0' && p[j] <= '9') ++j;
  }
  if (j >= p.size() || p[j] != '}') return false;
  *min = n;
  *end = j + 1;
  return true;
}

// The atoms of a pattern re2 accepted; false when it has a shape whose atoms the scan does not read
// (a top-level alternation, a `(?...)` group, `\Q...\E`).
bool SplitAtoms(std::string_view p, bool multi_line, std::vector<Atom>* atoms) {
  auto quantify = [&](bool may_be_absent) {
    if (atoms->empty()) return false;
    Atom& a = atoms->back();
    if (a.kind == Atom::kBegin || a.kind == Atom::kEnd) a.kind = Atom::kOther;
    a.optional = a.optional || may_be_absent;
    a.repeated = true;
    return true;
  };
  auto other = [&] { atoms->push_back(Atom{}); };
  size_t i = 0;
  while (i < p.size()) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    switch (c) {
      case '|': return false;
      case ')': return false;
      case '(': {
        if (i + 1 < p.size() && p[i + 1] == '?') return false;
        if (!SkipGroup(p, i, &i)) return false;
        other();
        break;
      }
      case '[':
        if (!SkipClass(p, i, &i)) return false;
        other();
        break;
      case '^':
        atoms->push_back(Atom{!multi_line && i == 0 ? Atom::kBegin : Atom::kOther, {}, false, false});
        ++i;
        break;
      case '$':
        atoms->push_back(Atom{!multi_line && i + 1 == p.size() ? Atom::kEnd : Atom::kOther, {}, false, false});
        ++i;
        break;
      case '*':
      case '+':
      case '?':
        if (!quantify(c != '+')) return false;
        ++i;
        if (i < p.size() && p[i] == '?') ++i;  // non-greedy
        break;
      case '{': {
        size_t min = 0, end = 0;
        if (ParseRepeat(p, i, &min, &end)) {
          if (!quantify(min == 0)) return false;
          i = end;
          if (i < p.size() && p[i] == '?') ++i;
        } else {
          other();  // a literal '{' to re2; kept out of literal runs
          ++i;
        }
        break;
      }
      case '\\': {
        if (i + 1 >= p.size()) return false;
        const unsigned char n = static_cast<unsigned char>(p[i + 1]);
        if (n < 0x80 && std::ispunct(n)) {
          atoms->push_back(Atom{Atom::kLiteral, std::string(1, static_cast<char>(n)), false, false});
          i += 2;
        } else if (n == 'Q' || n >= 0x80) {
          return false;
        } else if (n == 'x' || n == 'p' || n == 'P') {
          if (i + 2 < p.size() && p[i + 2] == '{') {
            const size_t close = p.find('}', i + 3);
            if (close == std::string_view::npos) return false;
            i = close + 1;
          } else {
            i += n == 'x' ? 4 : 3;
          }
          other();
        } else if (n >= '0' && n <= '7') {
          i += 2;
          for (int k = 0; k < 2 && i < p.size() && p[i] >= '0' && p[i] <= '7'; ++k) ++i;
          other();
        } else {
          i += 2;  // \d \w \s \b \A \z \n \t \C ...: a class, an assertion or a code
          other();
        }
        break;
      }
      case '.':
      case ']':
      case '}':
        other();
        ++i;
        break;
      default: {
        const size_t len = c < 0x80 ? 1 : base::Utf8SequenceLength(p, i);
        if (len == 0) return false;
        atoms->push_back(Atom{Atom::kLiteral, std::string(p.substr(i, len)), false, false});
        i += len;
        break;
      }
    }
  }
  return true;
}

// Where re2's error fragment sits in the pattern: the unclosed '(' of a missing ')', else the first
// occurrence of the fragment, else the start.
size_t ErrorOffset(const re2::RE2& re, std::string_view pattern) {
  if (re.error_code() == re2::RE2::ErrorMissingParen) {
    std::vector<size_t> open;
    for (size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '\\') {
        ++i;
      } else if (pattern[i] == '[') {
        size_t end;
        if (!SkipClass(pattern, i, &end)) break;
        i = end - 1;
      } else if (pattern[i] == '(') {
        open.push_back(i);
      } else if (pattern[i] == ')' && !open.empty()) {
        open.pop_back();
      }
    }
    if (!open.empty()) return open.back();
  }
  if (re.error_code() == re2::RE2::ErrorUnexpectedParen) {
    int depth = 0;
    for (size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '\\') {
        ++i;
      } else if (pattern[i] == '[') {
        size_t end;
        if (!SkipClass(pattern, i, &end)) break;
        i = end - 1;
      } else if (pattern[i] == '(') {
        ++depth;
      } else if (pattern[i] == ')' && --depth < 0) {
        return i;
      }
    }
  }
  if (re.error_code() == re2::RE2::ErrorTrailingBackslash) return pattern.empty() ? 0 : pattern.size() - 1;
  const std::string& arg = re.error_arg();
  if (arg.empty()) return 0;
  const size_t at = pattern.find(arg);
  return at == std::string_view::npos ? 0 : at;
}

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

RegexpMatcher::~RegexpMatcher() = default;

std::unique_ptr<RegexpMatcher> RegexpMatcher::Compile(std::string_view pattern, std::string_view flags,
                                                      size_t max_memory, size_t max_program, Error* error,
                                                      bool* in_flags) {
  *in_flags = false;
  bool case_insensitive = false, multi_line = false, dot_all = false;
  for (size_t k = 0; k < flags.size(); ++k) {
    switch (flags[k]) {
      case 'i': case_insensitive = true; break;
      case 'c': case_insensitive = false; break;
      case 'm': multi_line = true; break;
      case 's':
      case 'n': dot_all = true; break;
      default: {
        const size_t len = static_cast<unsigned char>(flags[k]) < 0x80 ? 1 : base::Utf8SequenceLength(flags, k);
        error->code = ErrorCode::kInvalidRegexp;
        error->message = "unknown REGEXP_LIKE flag '" + std::string(flags.substr(k, len == 0 ? 1 : len)) +
                         "' (flags: i case-insensitive, c case-sensitive, m multi-line, s or n: '.' matches a "
                         "line break)";
        error->position = k;
        *in_flags = true;
        return nullptr;
      }
    }
  }
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_log_errors(false);
  options.set_never_capture(true);
  options.set_case_sensitive(!case_insensitive);
  options.set_dot_nl(dot_all);
  options.set_max_mem(static_cast<int64_t>(max_memory));
  const std::string text = (multi_line ? "(?m)" : "") + std::string(pattern);
  auto re = std::make_unique<re2::RE2>(text, options);
  if (!re->ok()) {
    if (re->error_code() == RE2::ErrorPatternTooLarge) {
      error->code = ErrorCode::kRegexpTooLarge;
      error->message = "the regular expression needs more than the " + std::to_string(max_memory) +
                       " bytes of memory a pattern may use (Limits::max_regexp_memory)";
      error->position = 0;
    } else {
      error->code = ErrorCode::kInvalidRegexp;
      error->message = "invalid regular expression: " + re->error();
      error->position = ErrorOffset(*re, pattern);
    }
    return nullptr;
  }
  if (static_cast<size_t>(re->ProgramSize()) > max_program) {
    error->code = ErrorCode::kRegexpTooLarge;
    error->message = "the regular expression compiles to " + std::to_string(re->ProgramSize()) +
                     " instructions, more than the " + std::to_string(max_program) +
                     " a pattern may have (Limits::max_regexp_program; they bound what a byte of text costs)";
    error->position = 0;
    return nullptr;
  }
  std::unique_ptr<RegexpMatcher> m(new RegexpMatcher());
  m->program_size_ = re->ProgramSize();
  m->re_ = std::move(re);
  m->pattern_ = std::string(pattern);
  m->flags_ = std::string(flags);
  m->case_insensitive_ = case_insensitive;
  m->max_memory_ = max_memory;
  if (!case_insensitive) m->Analyze(multi_line);
  return m;
}

void RegexpMatcher::Analyze(bool multi_line) {
  std::vector<Atom> atoms;
  if (!SplitAtoms(pattern_, multi_line, &atoms)) return;
  const bool begins = !atoms.empty() && atoms.front().kind == Atom::kBegin;
  const bool ends = atoms.size() >= 2 && atoms.back().kind == Atom::kEnd;
  if (begins && ends) {
    bool literal = true;
    std::string whole;
    for (size_t k = 1; k + 1 < atoms.size() && literal; ++k) {
      literal = atoms[k].kind == Atom::kLiteral && !atoms[k].repeated;
      whole += atoms[k].bytes;
    }
    if (literal) {
      whole_ = true;
      whole_literal_ = std::move(whole);
    }
  }
  std::string run;
  size_t run_start = 0;
  auto close = [&] {
    if (begins && run_start == 1 && leading_.empty()) leading_ = run;
    if (run.size() > required_.size()) required_ = run;
    run.clear();
  };
  for (size_t k = 0; k < atoms.size(); ++k) {
    const Atom& a = atoms[k];
    if (a.kind != Atom::kLiteral || a.optional) {
      close();
      continue;
    }
    if (run.empty()) run_start = k;
    run += a.bytes;
    if (a.repeated) close();
  }
  close();
}

bool RegexpMatcher::Matches(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

std::string RegexpMatcher::Describe() const {
  std::string out = "re2, " + std::to_string(program_size_) + " instructions, max_mem " + std::to_string(max_memory_);
  if (!flags_.empty()) out += ", flags " + Quote(flags_);
  if (whole_) return out + "; whole text " + Quote(whole_literal_) + " (an equality)";
  if (!leading_.empty()) out += "; prefix " + Quote(leading_);
  if (!required_.empty() && required_ != leading_) out += "; required literal " + Quote(required_);
  if (leading_.empty() && required_.empty()) out += "; no required literal";
  return out;
}

}  // namespace sift::selector
