// Differential test of the selector (small, runs under ASan): 40,000 seeded random (expression,
// message) pairs and 20,000 (property filter, message) pairs, each evaluated by the compiled Selector (through
// MapFieldSource) and by the reference evaluator; they must agree on every pair. differential_heavy_test.cc runs
// 1,000,000.
#include <gtest/gtest.h>

#include "tests/selector/random_expression.h"

namespace sift::selector::testing {
namespace {

void ExpectAgreement(uint64_t seed, int expressions, int messages) {
  DifferentialResult r = RunDifferential(seed, expressions, messages);
  std::string report;
  for (const std::string& d : r.first) report += "\n  " + d;
  EXPECT_EQ(r.disagreements, 0u) << r.disagreements << " of " << r.pairs << " pairs disagree (" << r.compile_errors
                                 << " expressions refused); first:" << report;
  EXPECT_EQ(r.pairs, static_cast<uint64_t>(expressions) * messages);
  // The generator must produce all three answers in fair amounts, or the test proves little.
  for (int t = 0; t < 3; ++t) EXPECT_GT(r.outcomes[t], r.pairs / 20) << "outcome " << t << " is rare";
}

TEST(Differential, SqlAndJmsExpressionsAgreeWithReference) { ExpectAgreement(20261130, 1000, 20); }

TEST(Differential, AnotherSeedAgrees) { ExpectAgreement(7, 500, 40); }

// Property filters (filter expressions section 4.1): random filters, random messages.
TEST(Differential, PropertyFiltersAgreeWithReference) {
  DifferentialResult r = RunPropertyFilterDifferential(99, 2000, 10);
  std::string report;
  for (const std::string& d : r.first) report += "\n  " + d;
  EXPECT_EQ(r.disagreements, 0u) << r.disagreements << " of " << r.pairs << " pairs disagree; first:" << report;
  EXPECT_GT(r.outcomes[static_cast<int>(Truth::kTrue)], r.pairs / 20) << "matches are rare";
  EXPECT_GT(r.outcomes[static_cast<int>(Truth::kFalse)], r.pairs / 20) << "non-matches are rare";
}

// The generator is deterministic: the same seed gives the same texts (reproducible failures).
TEST(Differential, GeneratorIsDeterministic) {
  RandomExpressions a(42), b(42);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.Render(a.Predicate(4)), b.Render(b.Predicate(4)));
    EXPECT_EQ(DescribeMessage(a.Message()), DescribeMessage(b.Message()));
  }
}

}  // namespace
}  // namespace sift::selector::testing
