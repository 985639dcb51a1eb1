// Invariant 1 of docs/architecture.md through the selector's field source: reading the fields a
// selector publishes from 100,000 messages makes no heap allocation after the source is built.
#include <gtest/gtest.h>

#include <vector>

#include "amqp/record_file.h"
#include "engine/message_field_source.h"
#include "tests/amqp/test_messages.h"
#include "tests/support/allocation_counter.h"

namespace sift::engine {
namespace {

TEST(MessageFieldSourceAllocTest, HundredThousandMessagesAllocateNothing) {
  std::vector<testing::ByteVector> distinct;
  for (int i = 0; i < 64; ++i) distinct.push_back(testing::RichMessage(i));
  std::vector<uint8_t> records;
  for (int i = 0; i < 100000; ++i) amqp::AppendRecord(distinct[i % 64], &records);

  std::vector<selector::FieldRef> fields(6);
  fields[0].section = selector::Section::kHeader;
  fields[0].name = "priority";
  fields[1].section = selector::Section::kProperties;
  fields[1].name = "subject";
  fields[2].section = selector::Section::kApplicationProperties;
  fields[2].name = "region";
  fields[3].section = selector::Section::kApplicationProperties;
  fields[3].name = "amount";
  fields[4].section = selector::Section::kMessageAnnotations;
  fields[4].name = "x-opt-partition";
  fields[5].section = selector::Section::kHeader;
  fields[5].name = "durable";
  MessageFieldSource source(fields);
  amqp::RecordFileReader reader;
  reader.OpenBytes(records, "memory");

  sift::testing::AllocationScope scope;
  std::span<const uint8_t> m;
  int matches = 0;
  int messages = 0;
  while (reader.Next(&m)) {
    source.Reset(m);
    const selector::Value region = source.Get(2);
    const selector::Value priority = source.Get(0);
    if (region.bytes() == "eu-west" && priority.u64 > 4 && source.Get(3).i64 > 0 && source.Get(4).present() &&
        source.Get(1).present() && source.Get(5).present()) {
      ++matches;
    }
    ++messages;
  }
  EXPECT_EQ(scope.Allocations(), 0u);
  EXPECT_EQ(messages, 100000);
  EXPECT_GT(matches, 0);
}

}  // namespace
}  // namespace sift::engine
