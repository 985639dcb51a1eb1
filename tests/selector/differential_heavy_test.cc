// Differential test of the selector at scale: 1,000,000 seeded random
// (expression, message) pairs — 40,000 random expressions (texts from a random grammar, so the lexer
// and parser are exercised too) times 25 random messages — evaluated by the compiled Selector
// (through MapFieldSource) and by the reference evaluator: 0 disagreements. Labelled heavy.
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/selector/random_expression.h"

namespace sift::selector::testing {
namespace {

TEST(DifferentialHeavy, MillionPairsAgreeWithReference) {
  constexpr int kExpressions = 40000;
  constexpr int kMessages = 25;
  DifferentialResult r = RunDifferential(0x5EEDC0DE, kExpressions, kMessages, 20);
  std::printf("pairs %llu, disagreements %llu, refused expressions %llu, reference FALSE/TRUE/UNKNOWN %llu/%llu/%llu\n",
              static_cast<unsigned long long>(r.pairs), static_cast<unsigned long long>(r.disagreements),
              static_cast<unsigned long long>(r.compile_errors), static_cast<unsigned long long>(r.outcomes[0]),
              static_cast<unsigned long long>(r.outcomes[1]), static_cast<unsigned long long>(r.outcomes[2]));
  std::string report;
  for (const std::string& d : r.first) report += "\n  " + d;
  EXPECT_EQ(r.pairs, 1000000u);
  EXPECT_EQ(r.disagreements, 0u) << "first disagreements:" << report;
}

// Property filters at scale: 20,000 random filters (both kinds, with &p: / &s: / && modifiers and
// null references) times 10 random messages.
TEST(DifferentialHeavy, PropertyFiltersAgreeWithReference) {
  DifferentialResult r = RunPropertyFilterDifferential(0xF117E5, 20000, 10, 20);
  std::printf("filter pairs %llu, disagreements %llu, reference matches %llu\n",
              static_cast<unsigned long long>(r.pairs), static_cast<unsigned long long>(r.disagreements),
              static_cast<unsigned long long>(r.outcomes[static_cast<int>(Truth::kTrue)]));
  std::string report;
  for (const std::string& d : r.first) report += "\n  " + d;
  EXPECT_EQ(r.pairs, 200000u);
  EXPECT_EQ(r.disagreements, 0u) << "first disagreements:" << report;
}

}  // namespace
}  // namespace sift::selector::testing
