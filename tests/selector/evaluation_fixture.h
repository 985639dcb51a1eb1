// A GoogleTest fixture that compiles an expression and evaluates it against a SimpleSource, so
// semantics tests read as one line per case: EXPECT_EQ(Eval("a + 1 = 2"), T).
#ifndef SIFT_TESTS_SELECTOR_EVALUATION_FIXTURE_H_
#define SIFT_TESTS_SELECTOR_EVALUATION_FIXTURE_H_

#include <gtest/gtest.h>

#include <string>

#include "selector/selector.h"
#include "tests/selector/simple_source.h"

namespace sift::selector::testing {

inline constexpr Truth T = Truth::kTrue;
inline constexpr Truth F = Truth::kFalse;
inline constexpr Truth U = Truth::kUnknown;

class EvaluationFixture : public ::testing::Test {
 protected:
  // Compiles `text` (a compile error fails the test and reads as UNKNOWN) and evaluates it on the
  // fields set so far.
  Truth Eval(const std::string& text, Dialect dialect = Dialect::kSql) {
    CompileOptions options;
    options.dialect = dialect;
    Selector s = Selector::Compile(text, options);
    EXPECT_TRUE(s.ok()) << text << ": " << s.error().Format(text);
    if (!s.ok()) return U;
    source_.Bind(s.fields());
    return s.Evaluate(source_, context_);
  }
  // Sets an application property.
  void Set(const std::string& name, Value v) { source_.Set("application_properties." + name, v); }
  // Sets a field by its full name ("header.priority").
  void SetField(const std::string& full_name, Value v) { source_.Set(full_name, v); }

  SimpleSource source_;
  EvalContext context_;
};

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_SELECTOR_EVALUATION_FIXTURE_H_
