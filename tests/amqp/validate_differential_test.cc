// Differential test of strict validation: amqp::Validate and ValidateValue (a single-pass verdict
// walk, then an explaining walk for rejected input) return exactly the DecodeError of the oracle
// written from the spec (oracle_validate.h) — code, offset, format code, numbers and texts — on every
// seed input and on 150,000 deterministic mutants of them; and the verdict walk alone agrees with the
// oracle on every input. validate_differential_heavy_test.cc runs millions more.
#include <gtest/gtest.h>

#include "tests/amqp/validate_differential.h"

namespace sift::amqp {
namespace {

TEST(ValidateDifferential, SeedCorpusMatchesReference) {
  std::string error;
  const std::vector<sift::testing::ByteVector> corpus = testing::SeedCorpus(1, &error);
  ASSERT_EQ(error, "");
  testing::DifferentialStats stats;
  for (const auto& input : corpus) testing::Compare(input, &stats);
  testing::Report("seed corpus", stats);
  EXPECT_EQ(stats.mismatches, 0u);
  EXPECT_GT(stats.inputs, 10000u);
  // Most of the generator's and Proton's messages are valid; the bounds keep the comparison from
  // passing on a corpus of nothing but errors.
  EXPECT_GT(stats.valid_messages, 9500u);
  EXPECT_GT(stats.valid_values, 20000u);
}

TEST(ValidateDifferential, MutantsMatchReference) {
  std::string error;
  const std::vector<sift::testing::ByteVector> corpus = testing::SeedCorpus(10, &error);
  ASSERT_EQ(error, "");
  testing::DifferentialStats stats;
  testing::RunMutations(corpus, 150000, 20261201, &stats);
  testing::Report("mutants", stats);
  EXPECT_EQ(stats.mismatches, 0u);
  EXPECT_EQ(stats.inputs, 150000u);
  // Mutants must exercise both outcomes, or the comparison says little.
  EXPECT_GT(stats.valid_messages + stats.valid_values, 5000u);
}

}  // namespace
}  // namespace sift::amqp
