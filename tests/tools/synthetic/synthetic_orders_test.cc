// The synthetic order generator (tools/synthetic/synthetic_orders.h): equal options give equal bytes
// in any order of generation, Describe agrees with the encoding, and the bytes of each profile are
// pinned, so a change that would alter the files `sift gen` writes fails here first.
#include "tools/synthetic/synthetic_orders.h"

#include <gtest/gtest.h>
#include <proton/message.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "amqp/record_file.h"

namespace sift::synthetic {
namespace {

TEST(SyntheticOrdersTest, DeterministicAndDescribed) {
  std::unique_ptr<SyntheticOrders> a, b, c;
  SyntheticOrdersOptions options;
  ASSERT_TRUE(SyntheticOrders::Create(options, &a).ok());
  ASSERT_TRUE(SyntheticOrders::Create(options, &b).ok());
  options.seed = 2;
  ASSERT_TRUE(SyntheticOrders::Create(options, &c).ok());
  std::string x, y, z;
  for (uint64_t i : {0ull, 1ull, 999999ull}) {
    ASSERT_TRUE(a->Encode(i, &x).ok());
    ASSERT_TRUE(b->Encode(i, &y).ok());
    ASSERT_TRUE(c->Encode(i, &z).ok());
    EXPECT_EQ(x, y);
    EXPECT_NE(x, z);
  }
  // Order of generation does not matter.
  ASSERT_TRUE(b->Encode(5, &y).ok());
  ASSERT_TRUE(a->Encode(4, &x).ok());
  ASSERT_TRUE(a->Encode(5, &x).ok());
  EXPECT_EQ(x, y);
  pn_message_t* m = pn_message();
  ASSERT_EQ(pn_message_decode(m, x.data(), x.size()), 0);
  SyntheticOrder o = a->Describe(5);
  EXPECT_EQ(pn_message_get_priority(m), o.priority);
  EXPECT_EQ(pn_message_get_creation_time(m), o.creation_time_ms);
  EXPECT_STREQ(pn_message_get_subject(m), std::string(o.subject).c_str());
  pn_message_free(m);
  options.profile = "nope";
  EXPECT_TRUE(SyntheticOrders::Create(options, &c).IsInvalidArgument());
}

// FNV-1a 64 of messages 0..count-1 of `options`, framed as in a record file (what `sift gen` writes).
uint64_t Fingerprint(const SyntheticOrdersOptions& options, uint64_t count) {
  std::unique_ptr<SyntheticOrders> orders;
  EXPECT_TRUE(SyntheticOrders::Create(options, &orders).ok());
  uint64_t hash = 0xcbf29ce484222325ull;
  std::string message;
  std::vector<uint8_t> record;
  for (uint64_t i = 0; i < count; ++i) {
    EXPECT_TRUE(orders->Encode(i, &message).ok());
    record.clear();
    amqp::AppendRecord({reinterpret_cast<const uint8_t*>(message.data()), message.size()}, &record);
    for (uint8_t b : record) hash = (hash ^ b) * 0x100000001b3ull;
  }
  return hash;
}

// The values are those of the first 2,000 records of `sift gen --seed 3 [--profile P]`: the
// generator's output is a file format of sorts (benchmarks and saved demo files depend on it), so it
// changes only on purpose, with these values.
TEST(SyntheticOrdersTest, BytesOfEachProfileArePinned) {
  SyntheticOrdersOptions options;
  options.seed = 3;
  options.profile = "orders";
  EXPECT_EQ(Fingerprint(options, 2000), 0x61150374d0b2c5fdull);
  options.profile = "wide";
  EXPECT_EQ(Fingerprint(options, 2000), 0xa31a0a1f7a692822ull);
  options.profile = "minimal";
  EXPECT_EQ(Fingerprint(options, 2000), 0x50ecb87e15de6dc6ull);
}

TEST(SyntheticOrdersTest, ProfilesAreTheDocumentedOnes) {
  const auto profiles = SyntheticOrders::Profiles();
  ASSERT_EQ(profiles.size(), 3u);
  EXPECT_EQ(profiles[0], "orders");
  EXPECT_EQ(profiles[1], "wide");
  EXPECT_EQ(profiles[2], "minimal");
  SyntheticOrdersOptions options;
  options.customers = 0;
  std::unique_ptr<SyntheticOrders> orders;
  EXPECT_TRUE(SyntheticOrders::Create(options, &orders).IsInvalidArgument());
}

}  // namespace
}  // namespace sift::synthetic
