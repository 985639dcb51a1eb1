// The conformance case files of the selector language (tests/selector/cases/*.txt, format in
// tests/selector/cases/README.md): the case model and the parser of the files, shared by the
// conformance runner (over MapFieldSource) and the engine test that runs every case on encoded
// messages (over engine::MessageFieldSource).
//
// Invariant: a malformed line is never skipped; it becomes a Case whose parse_problem says what is
// wrong, at its file and line, so a runner reports it as a failure.
#ifndef SIFT_TESTS_SELECTOR_CASE_FILE_H_
#define SIFT_TESTS_SELECTOR_CASE_FILE_H_

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "selector/selector.h"
#include "tests/selector/map_field_source.h"

namespace sift::selector::testing {

// ---------------------------------------------------------------------------------------------
// Case model

enum class Expect : uint8_t { kTrue, kFalse, kUnknown, kError };

struct FilterEntry {
  char section = 'a';  // 'a' application properties, 'p' properties
  std::string name;
  TestValue value;
};

struct Case {
  std::string file;  // base name
  int line = 0;
  int block = 0;  // line of the first line of the case's block
  Dialect dialect = Dialect::kSql;
  Limits limits;
  bool is_filter = false;  // evaluates the block's property filter instead of an expression
  std::vector<FilterEntry> filter;
  std::string expression;
  TestMessage message;
  Expect expect = Expect::kTrue;
  std::string error_code;           // kError: expected code name ("" = any)
  std::optional<size_t> error_pos;  // kError: expected byte position
  std::string parse_problem;        // non-empty: the case file itself is malformed here
};

// ---------------------------------------------------------------------------------------------
// Parsing of case files

inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

inline void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Reads the typed value syntax of the case files (README.md) from a text cursor.
class ValueReader {
 public:
  explicit ValueReader(std::string_view text) : text_(text) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }

  std::optional<TestValue> Read() {
    std::string type = Word();
    if (type.empty()) return Fail("expected a type name");
    if (type == "null") return TestValue::Of(Value::Null());
    if (type == "list" || type == "array") {
      TestValue v = TestValue::Compound(type == "list" ? ValueType::kList : ValueType::kArray);
      if (!Expect('[')) return std::nullopt;
      if (Peek() == ']') {
        ++pos_;
        return v;
      }
      while (true) {
        auto element = Read();
        if (!element) return std::nullopt;
        v.elements.push_back(std::move(*element));
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (!Expect(']')) return std::nullopt;
        return v;
      }
    }
    if (type == "map") {
      TestValue v = TestValue::Compound(ValueType::kMap);
      if (!Expect('{')) return std::nullopt;
      if (Peek() == '}') {
        ++pos_;
        return v;
      }
      while (true) {
        auto key = Read();
        if (!key) return std::nullopt;
        if (!Expect(':')) return std::nullopt;
        auto value = Read();
        if (!value) return std::nullopt;
        v.entries.emplace_back(std::move(*key), std::move(*value));
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (!Expect('}')) return std::nullopt;
        return v;
      }
    }
    if (type == "boolean") {
      std::string w = Word();
      if (w == "true") return TestValue::Of(Value::Boolean(true));
      if (w == "false") return TestValue::Of(Value::Boolean(false));
      return Fail("boolean needs true or false");
    }
    static const std::pair<const char*, ValueType> kUnsigned[] = {{"ubyte", ValueType::kUByte},
                                                                  {"ushort", ValueType::kUShort},
                                                                  {"uint", ValueType::kUInt},
                                                                  {"ulong", ValueType::kULong}};
    static const std::pair<const char*, ValueType> kSigned[] = {{"byte", ValueType::kByte},
                                                                {"short", ValueType::kShort},
                                                                {"int", ValueType::kInt},
                                                                {"long", ValueType::kLong},
                                                                {"timestamp", ValueType::kTimestamp}};
    for (const auto& [name, t] : kUnsigned) {
      if (type == name) {
        std::string w = Word();
        uint64_t x = 0;
        auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), x);
        if (ec != std::errc() || end != w.data() + w.size()) return Fail("bad unsigned integer '" + w + "'");
        uint64_t max = t == ValueType::kUByte    ? 0xFF
                       : t == ValueType::kUShort ? 0xFFFF
                       : t == ValueType::kUInt   ? 0xFFFFFFFFull
                                                 : ~0ull;
        if (x > max) return Fail("'" + w + "' out of range for " + type);
        return TestValue::Of(Value::Unsigned(t, x));
      }
    }
    for (const auto& [name, t] : kSigned) {
      if (type == name) {
        std::string w = Word();
        int64_t x = 0;
        auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), x);
        if (ec != std::errc() || end != w.data() + w.size()) return Fail("bad integer '" + w + "'");
        int64_t lo = t == ValueType::kByte    ? -128
                     : t == ValueType::kShort ? -32768
                     : t == ValueType::kInt   ? INT32_MIN
                                              : INT64_MIN;
        int64_t hi = t == ValueType::kByte    ? 127
                     : t == ValueType::kShort ? 32767
                     : t == ValueType::kInt   ? INT32_MAX
                                              : INT64_MAX;
        if (x < lo || x > hi) return Fail("'" + w + "' out of range for " + type);
        return TestValue::Of(Value::Signed(t, x));
      }
    }
    if (type == "float" || type == "double") {
      std::string w = Word();
      char* end = nullptr;
      double x = std::strtod(w.c_str(), &end);
      if (w.empty() || *end != '\0') return Fail("bad floating point number '" + w + "'");
      return TestValue::Of(type == "float" ? Value::Float(static_cast<float>(x)) : Value::Double(x));
    }
    if (type == "decimal32" || type == "decimal64" || type == "decimal128" || type == "binary") {
      std::string w = Word();
      std::string bytes;
      if (!Hex(w, &bytes)) return Fail("bad hex bytes '" + w + "'");
      ValueType t = type == "decimal32"    ? ValueType::kDecimal32
                    : type == "decimal64"  ? ValueType::kDecimal64
                    : type == "decimal128" ? ValueType::kDecimal128
                                           : ValueType::kBinary;
      size_t want = t == ValueType::kDecimal32 ? 4 : t == ValueType::kDecimal64 ? 8 : 16;
      if (t != ValueType::kBinary && bytes.size() != want)
        return Fail(type + " needs " + std::to_string(want) + " bytes");
      return TestValue::Bytes(t, std::move(bytes));
    }
    if (type == "uuid") {
      std::string w = Word();
      std::string hex;
      for (char c : w) {
        if (c != '-') hex += c;
      }
      std::string bytes;
      if (w.size() != 36 || !Hex("0x" + hex, &bytes) || bytes.size() != 16) return Fail("bad uuid '" + w + "'");
      return TestValue::Bytes(ValueType::kUuid, std::move(bytes));
    }
    if (type == "char") {
      SkipSpace();
      if (text_.substr(pos_, 2) == "U+") {
        pos_ += 2;
        std::string w = Word();
        uint32_t cp = 0;
        auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), cp, 16);
        if (ec != std::errc() || end != w.data() + w.size() || cp > 0x10FFFF) return Fail("bad code point");
        return TestValue::Of(Value::Char(cp));
      }
      auto s = Quoted();
      if (!s) return std::nullopt;
      uint32_t cp = 0;
      if (!SingleCodePoint(*s, &cp)) return Fail("char needs exactly one code point");
      return TestValue::Of(Value::Char(cp));
    }
    if (type == "string" || type == "symbol") {
      auto s = Quoted();
      if (!s) return std::nullopt;
      return TestValue::Bytes(type == "string" ? ValueType::kString : ValueType::kSymbol, std::move(*s));
    }
    return Fail("unknown type '" + type + "'");
  }

 private:
  std::nullopt_t Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message) + " (at column " + std::to_string(pos_ + 1) + ")";
    return std::nullopt;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Expect(char c) {
    if (Peek() != c) {
      Fail(std::string("expected '") + c + "'");
      return false;
    }
    ++pos_;
    return true;
  }
  // A run of characters up to white space or punctuation of the value syntax.
  std::string Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && !std::strchr(" \t,:[]{}\"", text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  static bool Hex(const std::string& w, std::string* out) {
    if (w.size() < 2 || w[0] != '0' || (w[1] != 'x' && w[1] != 'X') || w.size() % 2 != 0) return false;
    for (size_t i = 2; i < w.size(); i += 2) {
      uint8_t b = 0;
      auto [end, ec] = std::from_chars(w.data() + i, w.data() + i + 2, b, 16);
      if (ec != std::errc() || end != w.data() + i + 2) return false;
      *out += static_cast<char>(b);
    }
    return true;
  }
  static bool SingleCodePoint(const std::string& s, uint32_t* cp) {
    if (s.empty()) return false;
    unsigned char c = static_cast<unsigned char>(s[0]);
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (s.size() != n) return false;
    uint32_t x = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t i = 1; i < n; ++i) x = (x << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
    *cp = x;
    return true;
  }

 public:
  // A double-quoted text with the escapes \\ \" \n \t \xHH (one byte) and \u{H...} (UTF-8 of a code
  // point); any other byte stands for itself (so UTF-8 may be written directly).
  std::optional<std::string> Quoted() {
    if (!Expect('"')) return std::nullopt;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      if (e == '\\' || e == '"') {
        out += e;
      } else if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == 'x') {
        uint8_t b = 0;
        if (pos_ + 2 > text_.size()) return Fail("bad \\x escape");
        auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 2, b, 16);
        if (ec != std::errc() || end != text_.data() + pos_ + 2) return Fail("bad \\x escape");
        pos_ += 2;
        out += static_cast<char>(b);
      } else if (e == 'u' && pos_ < text_.size() && text_[pos_] == '{') {
        size_t close = text_.find('}', pos_);
        if (close == std::string_view::npos) return Fail("bad \\u{} escape");
        uint32_t cp = 0;
        auto [end, ec] = std::from_chars(text_.data() + pos_ + 1, text_.data() + close, cp, 16);
        if (ec != std::errc() || end != text_.data() + close || cp > 0x10FFFF) return Fail("bad \\u{} escape");
        AppendUtf8(out, cp);
        pos_ = close + 1;
      } else {
        return Fail(std::string("unknown escape \\") + e);
      }
    }
    if (pos_ >= text_.size()) return Fail("unterminated quoted text");
    ++pos_;
    return out;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

// Expands the escapes of an `exprx:` line (\\ \n \t \xHH \u{H...}) into the expression bytes.
inline std::optional<std::string> ExpandEscapes(std::string_view text, std::string* error) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') {
      quoted += "\\\"";
    } else {
      quoted += c;
    }
  }
  quoted += '"';
  ValueReader reader(quoted);
  auto out = reader.Quoted();
  if (!out) *error = reader.error();
  return out;
}

inline std::optional<Section> SectionNamed(std::string_view s) {
  if (s == "h" || s == "header") return Section::kHeader;
  if (s == "d" || s == "delivery_annotations") return Section::kDeliveryAnnotations;
  if (s == "m" || s == "message_annotations") return Section::kMessageAnnotations;
  if (s == "p" || s == "properties") return Section::kProperties;
  if (s == "a" || s == "application_properties") return Section::kApplicationProperties;
  if (s == "f" || s == "footer") return Section::kFooter;
  return std::nullopt;
}

struct Block {
  Dialect dialect = Dialect::kSql;
  Limits limits;
  TestMessage message;
  std::vector<FilterEntry> filter;
  bool has_filter = false;
};

// Reads the expectation after "=> ": TRUE, FALSE, UNKNOWN or ERROR [<code>] [@<pos>].
inline bool ParseExpectation(std::string_view text, Case* c) {
  std::istringstream in{std::string(text)};
  std::string word;
  in >> word;
  if (word == "TRUE") {
    c->expect = Expect::kTrue;
  } else if (word == "FALSE") {
    c->expect = Expect::kFalse;
  } else if (word == "UNKNOWN") {
    c->expect = Expect::kUnknown;
  } else if (word == "ERROR") {
    c->expect = Expect::kError;
    std::string part;
    while (in >> part) {
      if (part[0] == '@') {
        size_t pos = 0;
        auto [end, ec] = std::from_chars(part.data() + 1, part.data() + part.size(), pos);
        if (ec != std::errc() || end != part.data() + part.size()) return false;
        c->error_pos = pos;
      } else if (c->error_code.empty()) {
        c->error_code = part;
      } else {
        return false;
      }
    }
    return true;
  } else {
    return false;
  }
  std::string rest;
  return !(in >> rest);
}

inline std::vector<Case> ParseFile(const std::filesystem::path& path) {
  std::vector<Case> cases;
  std::string file = path.filename().string();
  std::ifstream in(path, std::ios::binary);
  Block block;
  bool in_block = false;
  std::string line_text;
  int line = 0;
  int block_line = 0;
  auto problem = [&](const std::string& what) {
    Case c;
    c.file = file;
    c.line = line;
    c.block = block_line;
    c.parse_problem = what;
    cases.push_back(std::move(c));
  };
  while (std::getline(in, line_text)) {
    ++line;
    std::string_view text = Trim(line_text);
    if (text.empty()) {
      block = Block();
      in_block = false;
      continue;
    }
    if (text[0] == '#') continue;
    if (!in_block) block_line = line;
    in_block = true;
    size_t colon = text.find(':');
    if (colon == std::string_view::npos) {
      problem("expected '<key>: ...'");
      continue;
    }
    std::string_view key = Trim(text.substr(0, colon));
    std::string_view rest = Trim(text.substr(colon + 1));
    if (key == "dialect") {
      if (rest == "sql") {
        block.dialect = Dialect::kSql;
      } else if (rest == "jms") {
        block.dialect = Dialect::kJms;
      } else {
        problem("dialect must be sql or jms");
      }
    } else if (key == "limit") {
      std::istringstream ls{std::string(rest)};
      std::string name;
      size_t value = 0;
      if (!(ls >> name >> value)) {
        problem("limit: <length|depth|in|like|regexp|regexp-program> <n>");
      } else if (name == "length") {
        block.limits.max_length = value;
      } else if (name == "depth") {
        block.limits.max_depth = value;
      } else if (name == "in") {
        block.limits.max_in_list = value;
      } else if (name == "like") {
        block.limits.max_like_pattern = value;
      } else if (name == "regexp") {
        block.limits.max_regexp_memory = value;
      } else if (name == "regexp-program") {
        block.limits.max_regexp_program = value;
      } else {
        problem("unknown limit '" + name + "'");
      }
    } else if (key == "field") {
      // field: <section>.<name> <typed value>   (name may be "quoted")
      size_t dot = rest.find('.');
      auto section = dot == std::string_view::npos ? std::nullopt : SectionNamed(rest.substr(0, dot));
      if (!section) {
        problem("field needs <section>.<name>");
        continue;
      }
      std::string_view after = rest.substr(dot + 1);
      std::string name;
      std::string_view value_text;
      if (!after.empty() && after[0] == '"') {
        ValueReader names(after);
        auto quoted = names.Quoted();
        if (!quoted) {
          problem(names.error());
          continue;
        }
        name = *quoted;
        size_t end = after.find('"', 1);
        while (end != std::string_view::npos && after[end - 1] == '\\') end = after.find('"', end + 1);
        value_text = after.substr(end + 1);
      } else {
        size_t space = after.find_first_of(" \t");
        name = std::string(after.substr(0, space));
        value_text = space == std::string_view::npos ? std::string_view() : after.substr(space);
      }
      ValueReader reader(value_text);
      auto value = reader.Read();
      if (!value || !reader.AtEnd()) {
        problem(value ? "trailing text after the value" : reader.error());
        continue;
      }
      block.message.Set(*section, name, std::move(*value));
    } else if (key == "filter") {
      // filter: <a|p> <name> <typed value>
      std::string_view after = rest;
      if (after.size() < 3 || (after[0] != 'a' && after[0] != 'p') || after[1] != ' ') {
        problem("filter: <a|p> <name> <typed value>");
        continue;
      }
      FilterEntry entry;
      entry.section = after[0];
      after = Trim(after.substr(2));
      if (!after.empty() && after[0] == '"') {
        ValueReader names(after);
        auto quoted = names.Quoted();
        if (!quoted) {
          problem(names.error());
          continue;
        }
        entry.name = *quoted;
        after = after.substr(after.find('"', 1) + 1);
      } else {
        size_t space = after.find_first_of(" \t");
        entry.name = std::string(after.substr(0, space));
        after = space == std::string_view::npos ? std::string_view() : after.substr(space);
      }
      ValueReader reader(after);
      auto value = reader.Read();
      if (!value || !reader.AtEnd()) {
        problem(value ? "trailing text after the value" : reader.error());
        continue;
      }
      entry.value = std::move(*value);
      block.filter.push_back(std::move(entry));
      block.has_filter = true;
    } else if (key == "expr" || key == "exprx") {
      // The expectation follows the last "=> " that starts the text or follows a space (so an
      // empty expression can be written "expr: => ...").
      size_t arrow = rest.rfind("=> ");
      while (arrow != std::string_view::npos && arrow != 0 && rest[arrow - 1] != ' ') {
        arrow = arrow == 0 ? std::string_view::npos : rest.rfind("=> ", arrow - 1);
      }
      if (arrow == std::string_view::npos) {
        problem("expected '<expression> => <expectation>'");
        continue;
      }
      Case c;
      c.file = file;
      c.line = line;
      c.block = block_line;
      c.dialect = block.dialect;
      c.limits = block.limits;
      c.message = block.message;
      std::string_view expression = Trim(rest.substr(0, arrow));
      if (block.has_filter && expression == "filter") {
        c.is_filter = true;
        c.filter = block.filter;
      } else if (key == "exprx") {
        std::string error;
        auto expanded = ExpandEscapes(expression, &error);
        if (!expanded) {
          problem(error);
          continue;
        }
        c.expression = *expanded;
      } else {
        c.expression = std::string(expression);
      }
      if (!ParseExpectation(Trim(rest.substr(arrow + 3)), &c)) {
        problem("expectation must be TRUE, FALSE, UNKNOWN or ERROR <code> @<pos>");
        continue;
      }
      cases.push_back(std::move(c));
    } else {
      problem("unknown key '" + std::string(key) + "'");
    }
  }
  return cases;
}

// The case files of the suite, sorted, without disputed.txt (which the suite skips).
inline std::vector<std::filesystem::path> CaseFiles(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".txt" && entry.path().filename() != "disputed.txt") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_SELECTOR_CASE_FILE_H_
