// REGEXP_LIKE against an independent matcher: Python's `re` (tests/selector/regexp_reference.py) on
// 20,000 random patterns and texts of syntax both engines read the same way, flags included. Every
// answer must agree; and on every text the pattern matches, what the compiler derived from the pattern
// must hold (exactness of the text prefilter and of chunk skipping): the text contains each required
// text (equals an exact one), and the chunk predicate of a chunk holding only that text may match.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "selector/chunk_predicate.h"
#include "selector/selector.h"
#include "tests/selector/simple_source.h"

namespace sift::selector {
namespace {

std::string FromHex(const std::string& hex) {
  if (hex == "-") return "";
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// The SQL string literal of `s`: quotes doubled.
std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// A chunk of one message whose field (slot 0) holds `text`.
class OneTextChunk final : public ChunkFacts {
 public:
  explicit OneTextChunk(std::string text) : text_(std::move(text)) {}
  bool Field(uint32_t, FieldFacts* f) const override {
    *f = FieldFacts{};
    f->messages = f->present = f->texts = 1;
    f->text_min = f->text_max = text_;
    f->text_min_exact = f->text_max_exact = true;
    return true;
  }
  bool MayHoldText(uint32_t, std::string_view t) const override { return t == text_; }

 private:
  std::string text_;
};

TEST(RegexpDifferential, AgreesWithPythonRe) {
  const std::filesystem::path dir = std::filesystem::path(SIFT_BINARY_DIR) / "tests" / "generated";
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / "regexp_reference.txt";
  std::ostringstream command_text;
  command_text << SIFT_PYTHON << ' ' << SIFT_SOURCE_DIR
               << "/tests/selector/regexp_reference.py --count 20000 --seed 7 --out " << path.string();
  const std::string command = command_text.str();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path);
  std::string line;
  size_t cases = 0, matches = 0, with_requirement = 0, chunk_checks = 0, failures = 0;
  std::string last_pattern;
  CompileOptions options;  // nested counted repetitions may take more than the default's instructions
  options.limits.max_regexp_program = 1 << 20;
  options.limits.max_regexp_memory = 64 << 20;
  Selector selector;
  ChunkPredicate chunk;
  EvalContext context;
  testing::SimpleSource source;
  while (std::getline(in, line) && failures < 20) {
    std::istringstream fields(line);
    std::string pattern_hex, flags, text_hex;
    int expected = -1;
    ASSERT_TRUE(static_cast<bool>(fields >> pattern_hex >> flags >> text_hex >> expected)) << line;
    const std::string pattern = FromHex(pattern_hex);
    const std::string text = FromHex(text_hex);
    if (flags == "-") flags.clear();
    const std::string expression =
        "REGEXP_LIKE(s, " + Quoted(pattern) + (flags.empty() ? "" : ", " + Quoted(flags)) + ")";
    if (expression != last_pattern) {
      selector = Selector::Compile(expression, options);
      ASSERT_TRUE(selector.ok()) << expression << ": " << selector.error().ToString();
      chunk = ChunkPredicate::For(selector);
      last_pattern = expression;
    }
    source.Clear();
    source.Set("application_properties.s", Value::String(text));
    source.Bind(selector.fields());
    const Truth got = selector.Evaluate(source, context);
    ++cases;
    if ((got == Truth::kTrue) != (expected == 1) || got == Truth::kUnknown) {
      ++failures;
      ADD_FAILURE() << expression << " on '" << text << "': re2 says " << static_cast<int>(got) << ", Python's re says "
                    << expected;
      continue;
    }
    if (got != Truth::kTrue) continue;
    ++matches;
    for (const RequiredText& r : selector.required_texts()) {
      ++with_requirement;
      bool held = false;
      for (const RequiredText::Alternative& a : r.any_of) {
        held = held || (a.exact ? text == a.text : text.find(a.text) != std::string::npos);
      }
      if (!held) {
        ++failures;
        ADD_FAILURE() << expression << " matches '" << text << "' but the text lacks a required text ("
                      << r.any_of[0].text << ")";
      }
    }
    if (chunk.useful()) {
      ++chunk_checks;
      if (!chunk.MayMatch(OneTextChunk(text))) {
        ++failures;
        ADD_FAILURE() << expression << " matches '" << text << "' but the chunk predicate rules its chunk out";
      }
    }
  }
  std::printf("%zu cases, %zu matches, %zu required texts and %zu chunk predicates checked on a match\n", cases,
              matches, with_requirement, chunk_checks);
  EXPECT_EQ(cases, 20000u);
  // The comparison means something only if both answers occur often, and the derivations are tested.
  EXPECT_GT(matches, 3000u);
  EXPECT_GT(cases - matches, 3000u);
  EXPECT_GT(with_requirement, 200u);
  EXPECT_GT(chunk_checks, 500u);
}

}  // namespace
}  // namespace sift::selector
