// Invariant 1 of docs/architecture.md: reading fields of 100,000 messages through MessageView makes
// no heap allocation (counted by the replaced global operator new).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "amqp/message_view.h"
#include "amqp/record_file.h"
#include "tests/amqp/test_messages.h"
#include "tests/support/allocation_counter.h"

namespace sift::amqp {
namespace {

constexpr int kMessages = 100000;

// 100,000 messages in one buffer, as a record file holds them (64 distinct Proton encodings).
std::vector<uint8_t> RecordBuffer() {
  std::vector<testing::ByteVector> distinct;
  for (int i = 0; i < 64; ++i) distinct.push_back(testing::RichMessage(i));
  std::vector<uint8_t> out;
  for (int i = 0; i < kMessages; ++i) AppendRecord(distinct[i % 64], &out);
  return out;
}

TEST(MessageViewAllocTest, ReadingFieldsOfHundredThousandMessagesAllocatesNothing) {
  const std::vector<uint8_t> records = RecordBuffer();
  RecordFileReader reader;
  reader.OpenBytes(records, "memory");
  MessageView view;
  uint64_t checksum = 0;
  int messages = 0;
  int eu = 0;
  sift::testing::AllocationScope scope;
  std::span<const uint8_t> m;
  while (reader.Next(&m)) {
    view.Reset(m);
    checksum += view.priority() + view.durable() + view.delivery_count();
    uint32_t ttl = 0;
    checksum += view.ttl(&ttl) ? ttl : 0;
    checksum += view.Property(PropertiesField::kMessageId).u64;
    checksum += view.Property(PropertiesField::kSubject).size;
    checksum += view.Property(PropertiesField::kCreationTime).u64;
    eu += view.ApplicationProperty("region").bytes() == "eu-west";
    checksum += static_cast<uint64_t>(view.ApplicationProperty("amount").i64);
    checksum += view.ApplicationProperty("vip").boolean;
    checksum += static_cast<uint64_t>(view.MessageAnnotation("x-opt-partition").i64);
    checksum += view.MessageAnnotation(uint64_t{42}).size;
    checksum += view.DeliveryAnnotation("x-opt-trace").size;
    checksum += view.data().size() + view.body_section_count();
    ++messages;
  }
  const uint64_t allocations = scope.Allocations();
  EXPECT_EQ(allocations, 0u);
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(messages, kMessages);
  EXPECT_EQ(eu, kMessages / 2);  // odd n are eu-west; 64 divides evenly into halves per block
  EXPECT_NE(checksum, 0u);
}

TEST(MessageViewAllocTest, ErrorsOnMalformedMessagesAllocateNothing) {
  testing::ByteVector m = testing::RichMessage(1);
  m.resize(m.size() / 2);
  MessageView view;
  sift::testing::AllocationScope scope;
  int missing = 0;
  for (int i = 0; i < 10000; ++i) {
    view.Reset(m);
    missing += !view.ApplicationProperty("region").present();
    missing += !view.FooterEntry("x").present();
  }
  EXPECT_EQ(scope.Allocations(), 0u);
  EXPECT_EQ(missing, 20000);
  EXPECT_FALSE(view.error().ok());
}

}  // namespace
}  // namespace sift::amqp
