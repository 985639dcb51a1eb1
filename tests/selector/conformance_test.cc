// The data-driven conformance suite of the selector language: every case of every
// tests/selector/cases/*.txt file (except disputed.txt) is compiled and evaluated over
// MapFieldSource and checked against its expected answer. Each block of a file is one GoogleTest
// test; each case is its own check, and a failure is reported at the case's own file:line.
//
// The case file format is specified in tests/selector/cases/README.md (parser: case_file.h).
// Expected answers come from the language definition (docs/selector-language.md, filter expressions
// sections 4 and 6, Jakarta Messaging 3.1 selectors, docs/selector-semantics.md), never from
// running the implementation. A malformed line is itself a failure, never a silently skipped case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "selector/selector.h"
#include "tests/selector/case_file.h"
#include "tests/selector/map_field_source.h"

namespace sift::selector::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Running a case

const char* TruthName(Truth t) {
  switch (t) {
    case Truth::kTrue: return "TRUE";
    case Truth::kFalse: return "FALSE";
    case Truth::kUnknown: return "UNKNOWN";
  }
  return "?";
}

std::string Describe(const Case& c) {
  std::string s = c.file + ":" + std::to_string(c.line) + ": ";
  s += c.is_filter ? std::string("<property filter>") : "`" + c.expression + "`";
  s += c.dialect == Dialect::kJms ? " (jms)" : "";
  return s;
}

// Runs one case; every failure is reported at the case's own file and line.
void RunCase(const Case& c, const std::string& path) {
  const char* where = path.c_str();
  if (!c.parse_problem.empty()) {
    ADD_FAILURE_AT(where, c.line) << c.file << ":" << c.line << ": malformed case: " << c.parse_problem;
    return;
  }
  Selector selector;
  if (c.is_filter) {
    std::vector<std::pair<std::string, Value>> props, app;
    for (const FilterEntry& e : c.filter) {
      (e.section == 'p' ? props : app).emplace_back(e.name, e.value.view());
    }
    std::vector<Selector> parts;
    if (!props.empty()) parts.push_back(Selector::CompilePropertiesFilter(props));
    if (!app.empty()) parts.push_back(Selector::CompileApplicationPropertiesFilter(app));
    selector = parts.size() == 1 ? parts[0] : Selector::AllOf(parts);
  } else {
    CompileOptions options;
    options.dialect = c.dialect;
    options.limits = c.limits;
    selector = Selector::Compile(c.expression, options);
  }
  if (c.expect == Expect::kError) {
    if (selector.ok()) {
      ADD_FAILURE_AT(where, c.line) << Describe(c) << ": expected a compile error, but it compiled";
      return;
    }
    const Error& error = selector.error();
    if (!c.error_code.empty() && std::string(ErrorCodeName(error.code)) != c.error_code) {
      ADD_FAILURE_AT(where, c.line) << Describe(c) << ": expected error " << c.error_code << ", got "
                                    << error.ToString();
    }
    if (c.error_pos && error.position != *c.error_pos) {
      ADD_FAILURE_AT(where, c.line) << Describe(c) << ": expected the error at byte " << *c.error_pos << ", got "
                                    << error.ToString();
    }
    if (error.message.empty()) ADD_FAILURE_AT(where, c.line) << Describe(c) << ": the error has no message";
    return;
  }
  if (!selector.ok()) {
    ADD_FAILURE_AT(where, c.line) << Describe(c)
                                  << ": unexpected compile error: " << selector.error().Format(c.expression);
    return;
  }
  MapFieldSource source(selector.fields());
  source.Reset(&c.message);
  EvalContext context;
  Truth got = selector.Evaluate(source, context);
  Truth want = c.expect == Expect::kTrue ? Truth::kTrue : c.expect == Expect::kFalse ? Truth::kFalse : Truth::kUnknown;
  if (got != want) {
    ADD_FAILURE_AT(where, c.line) << Describe(c) << ": expected " << TruthName(want) << ", got " << TruthName(got);
  }
  // Evaluating again with the same context must give the same answer (no state leaks between runs).
  Truth again = selector.Evaluate(source, context);
  if (again != got) {
    ADD_FAILURE_AT(where, c.line) << Describe(c) << ": a second evaluation gave " << TruthName(again) << " after "
                                  << TruthName(got);
  }
}

// One GoogleTest test per block of a case file (the cases sharing one message): a test process per
// case would cost more to start than the case costs to run. Each case is still its own check,
// reported at its own file:line.
class ConformanceBlock : public ::testing::Test {
 public:
  ConformanceBlock(std::shared_ptr<const std::vector<Case>> cases, std::string path)
      : cases_(std::move(cases)), path_(std::move(path)) {}

  void TestBody() override {
    for (const Case& c : *cases_) RunCase(c, path_);
  }

 private:
  std::shared_ptr<const std::vector<Case>> cases_;
  std::string path_;  // the case file, for failure locations
};

// "like_txt_line_42": the file and the first line of the block.
std::string TestName(const Case& c) {
  std::string name;
  for (char ch : c.file) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name + "_line_" + std::to_string(c.block);
}

// Registers every block of every case file; returns how many cases there are.
size_t RegisterCases() {
  std::filesystem::path dir = std::filesystem::path(SIFT_SOURCE_DIR) / "tests" / "selector" / "cases";
  size_t count = 0;
  for (const auto& path : CaseFiles(dir)) {
    std::vector<Case> cases = ParseFile(path);
    count += cases.size();
    std::string file = path.string();
    for (size_t i = 0; i < cases.size();) {
      size_t j = i;
      auto block = std::make_shared<std::vector<Case>>();
      while (j < cases.size() && cases[j].block == cases[i].block) block->push_back(std::move(cases[j++]));
      const Case& first = block->front();
      std::string name = TestName(first);
      ::testing::RegisterTest("Conformance", name.c_str(), nullptr, nullptr, file.c_str(), first.block,
                              [block, file]() -> ConformanceBlock* { return new ConformanceBlock(block, file); });
      i = j;
    }
  }
  return count;
}

const size_t kRegistered = RegisterCases();

// The suite must stay at least as large as it was made; a lost file must not go unnoticed.
TEST(ConformanceSuite, HasAtLeast600Cases) { EXPECT_GE(kRegistered, 600u); }

}  // namespace
}  // namespace sift::selector::testing
