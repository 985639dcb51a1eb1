// The validator's differential test at scale (label "heavy"): 2,000,000 mutants of the whole seed
// corpus under other seeds than validate_differential_test.cc, each compared field by field with the
// oracle validator (oracle_validate.h).
#include <gtest/gtest.h>

#include "tests/amqp/validate_differential.h"

namespace sift::amqp {
namespace {

TEST(ValidateDifferentialHeavy, MillionsOfMutantsMatchReference) {
  std::string error;
  const std::vector<sift::testing::ByteVector> corpus = testing::SeedCorpus(1, &error);
  ASSERT_EQ(error, "");
  testing::DifferentialStats stats;
  for (uint64_t seed : {1, 2, 3, 4}) testing::RunMutations(corpus, 500000, seed, &stats);
  testing::Report("heavy mutants", stats);
  EXPECT_EQ(stats.mismatches, 0u);
  EXPECT_EQ(stats.inputs, 2000000u);
}

}  // namespace
}  // namespace sift::amqp
