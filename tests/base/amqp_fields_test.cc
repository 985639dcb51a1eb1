#include "base/amqp_fields.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string_view>

namespace sift::amqp {
namespace {

TEST(AmqpFieldsTest, Sections) {
  EXPECT_EQ(SectionName(Section::kHeader), "header");
  EXPECT_EQ(SectionName(Section::kApplicationProperties), "application-properties");
  EXPECT_EQ(Info(Section::kDeliveryAnnotations).identifier, "delivery_annotations");
  EXPECT_EQ(SectionSymbol(Section::kAmqpValue), "amqp:amqp-value:*");
  EXPECT_EQ(SectionDescriptor(Section::kHeader), 0x70u);
  EXPECT_EQ(SectionDescriptor(Section::kFooter), 0x78u);
  for (const SectionInfo& s : kSections) {
    Section by_code = Section::kFooter;
    Section by_symbol = Section::kHeader;
    ASSERT_TRUE(SectionFromDescriptorCode(s.descriptor, &by_code)) << s.name;
    ASSERT_TRUE(SectionFromDescriptorSymbol(s.symbol, &by_symbol)) << s.name;
    EXPECT_EQ(by_code, s.section);
    EXPECT_EQ(by_symbol, s.section);
    EXPECT_EQ(std::strlen(s.name.data()), s.name.size());  // NUL-terminated
  }
  Section unchanged = Section::kData;
  EXPECT_FALSE(SectionFromDescriptorCode(0x6f, &unchanged));
  EXPECT_FALSE(SectionFromDescriptorCode(0x79, &unchanged));
  EXPECT_FALSE(SectionFromDescriptorCode(0x0000000100000070, &unchanged));
  EXPECT_FALSE(SectionFromDescriptorSymbol("amqp:header", &unchanged));
  EXPECT_EQ(unchanged, Section::kData);
}

TEST(AmqpFieldsTest, Fields) {
  EXPECT_EQ(HeaderFieldName(HeaderField::kFirstAcquirer), "first-acquirer");
  EXPECT_EQ(PropertiesFieldName(PropertiesField::kAbsoluteExpiryTime), "absolute-expiry-time");
  EXPECT_EQ(Info(PropertiesField::kReplyToGroupId).identifier, "reply_to_group_id");
  EXPECT_EQ(Info(HeaderField::kPriority).type, FieldType::kUByte);
  EXPECT_EQ(Info(PropertiesField::kCorrelationId).type, FieldType::kMessageId);
  EXPECT_EQ(Info(PropertiesField::kGroupSequence).index, 11);

  HeaderField h = HeaderField::kDurable;
  ASSERT_TRUE(HeaderFieldFromName("delivery-count", &h));
  EXPECT_EQ(h, HeaderField::kDeliveryCount);
  EXPECT_FALSE(HeaderFieldFromName("delivery_count", &h));
  EXPECT_FALSE(HeaderFieldFromName("subject", &h));
  PropertiesField p = PropertiesField::kMessageId;
  ASSERT_TRUE(PropertiesFieldFromName("reply-to-group-id", &p));
  EXPECT_EQ(p, PropertiesField::kReplyToGroupId);

  EXPECT_EQ(FieldsOf(Section::kHeader).size(), 5u);
  EXPECT_EQ(FieldsOf(Section::kProperties).size(), 13u);
  EXPECT_TRUE(FieldsOf(Section::kApplicationProperties).empty());
  ASSERT_NE(FindField(Section::kProperties, "to"), nullptr);
  EXPECT_EQ(FindField(Section::kProperties, "to")->section, Section::kProperties);
  EXPECT_EQ(FindField(Section::kHeader, "to"), nullptr);
}

}  // namespace
}  // namespace sift::amqp
