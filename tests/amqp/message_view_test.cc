// MessageView: sections in all descriptor forms, header defaults, the 13 properties, map sections by
// key, body kinds; Proton-encoded messages plus hand-written bytes for what Proton never writes.
#include "amqp/message_view.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "amqp/cursor.h"
#include "tests/amqp/test_messages.h"

namespace sift::amqp {
namespace {

using amqp::Value;
using amqp::ValueType;
using testing::B;
using testing::ByteVector;
using testing::Cat;
using testing::List8;
using testing::Map8;
using testing::Section;
using testing::Str8;
using testing::Sym8;

TEST(MessageViewTest, HeaderFieldsFromProton) {
  testing::ProtonMessage m;
  pn_message_set_durable(m.get(), true);
  pn_message_set_priority(m.get(), 9);
  pn_message_set_ttl(m.get(), 60000);
  pn_message_set_first_acquirer(m.get(), true);
  pn_message_set_delivery_count(m.get(), 3);
  const ByteVector bytes = m.Encode();
  MessageView view(bytes);
  EXPECT_TRUE(view.durable());
  EXPECT_EQ(view.priority(), 9);
  uint32_t ttl = 0;
  EXPECT_TRUE(view.ttl(&ttl));
  EXPECT_EQ(ttl, 60000u);
  EXPECT_TRUE(view.first_acquirer());
  EXPECT_EQ(view.delivery_count(), 3u);
  EXPECT_EQ(view.Header(HeaderField::kPriority).type, ValueType::kUByte);
  EXPECT_EQ(view.Header(HeaderField::kTtl).type, ValueType::kUInt);
  EXPECT_EQ(view.Header(HeaderField::kDeliveryCount).u64, 3u);
  EXPECT_TRUE(view.error().ok());
}

TEST(MessageViewTest, HeaderDefaultsWhenNoHeader) {
  const ByteVector bytes = Section(0x77, B({0x40}));  // just an amqp-value null
  MessageView view(bytes);
  EXPECT_FALSE(view.HasSection(SectionKind::kHeader));
  EXPECT_EQ(view.Header(HeaderField::kDurable).type, ValueType::kBoolean);
  EXPECT_FALSE(view.Header(HeaderField::kDurable).boolean);
  EXPECT_EQ(view.Header(HeaderField::kPriority).type, ValueType::kUByte);
  EXPECT_EQ(view.Header(HeaderField::kPriority).u64, 4u);
  EXPECT_EQ(view.Header(HeaderField::kTtl).type, ValueType::kMissing);
  EXPECT_FALSE(view.Header(HeaderField::kFirstAcquirer).boolean);
  EXPECT_EQ(view.Header(HeaderField::kDeliveryCount).type, ValueType::kUInt);
  EXPECT_EQ(view.Header(HeaderField::kDeliveryCount).u64, 0u);
  uint32_t ttl = 1;
  EXPECT_FALSE(view.ttl(&ttl));
  EXPECT_TRUE(view.error().ok());
}

TEST(MessageViewTest, HeaderDefaultsForShortListAndNulls) {
  // header [true, null] : priority null, the rest beyond the list tail.
  const ByteVector bytes = Section(0x70, List8(2, B({0x41, 0x40})));
  MessageView view(bytes);
  EXPECT_TRUE(view.durable());
  EXPECT_EQ(view.Header(HeaderField::kPriority).u64, 4u);
  EXPECT_EQ(view.Header(HeaderField::kDeliveryCount).u64, 0u);
  EXPECT_FALSE(view.Header(HeaderField::kTtl).present());
  // list0 header: everything defaults.
  const ByteVector empty = Section(0x70, B({0x45}));
  MessageView v2(empty);
  EXPECT_EQ(v2.priority(), 4);
  EXPECT_FALSE(v2.durable());
}

TEST(MessageViewTest, EmptyMessageHasDefaultsAndNothingElse) {
  const ByteVector bytes;
  MessageView view(bytes);
  EXPECT_EQ(view.priority(), 4);
  EXPECT_FALSE(view.Property(PropertiesField::kSubject).present());
  EXPECT_EQ(view.body_kind(), BodyKind::kNone);
  EXPECT_TRUE(view.data().empty());
  EXPECT_TRUE(view.error().ok());
}

TEST(MessageViewTest, HeaderOfWrongTypeReadsMissing) {
  const ByteVector bytes = Section(0x70, List8(2, B({0x41, 0x52, 0x05})));  // priority as uint
  MessageView view(bytes);
  EXPECT_TRUE(view.durable());
  EXPECT_FALSE(view.Header(HeaderField::kPriority).present());
  EXPECT_EQ(view.error().Message(), "byte 7: header field priority is a smalluint, not a ubyte");
  const ByteVector map_header = Section(0x70, Map8(0, {}));
  MessageView v2(map_header);
  EXPECT_FALSE(v2.Header(HeaderField::kDurable).present());
  EXPECT_EQ(v2.error().Message(), "byte 3: header section holds a map8, not a list");
}

TEST(MessageViewTest, AllThirteenPropertiesFromProton) {
  const ByteVector bytes = testing::RichMessage(5);
  MessageView view(bytes);
  EXPECT_EQ(view.Property(PropertiesField::kMessageId).type, ValueType::kULong);
  EXPECT_EQ(view.Property(PropertiesField::kMessageId).u64, 1000005u);
  EXPECT_EQ(view.Property(PropertiesField::kUserId).type, ValueType::kBinary);
  EXPECT_EQ(view.Property(PropertiesField::kUserId).bytes(), "alice");
  EXPECT_EQ(view.Property(PropertiesField::kTo).bytes(), "orders/5");
  EXPECT_EQ(view.Property(PropertiesField::kSubject).bytes(), "created");
  EXPECT_EQ(view.Property(PropertiesField::kReplyTo).bytes(), "replies");
  EXPECT_EQ(view.Property(PropertiesField::kCorrelationId).type, ValueType::kString);
  EXPECT_EQ(view.Property(PropertiesField::kCorrelationId).bytes(), "corr-5");
  EXPECT_EQ(view.Property(PropertiesField::kContentType).type, ValueType::kSymbol);
  EXPECT_EQ(view.Property(PropertiesField::kContentType).bytes(), "application/json");
  EXPECT_EQ(view.Property(PropertiesField::kContentEncoding).bytes(), "utf-8");
  EXPECT_EQ(view.Property(PropertiesField::kAbsoluteExpiryTime).type, ValueType::kTimestamp);
  EXPECT_EQ(view.Property(PropertiesField::kAbsoluteExpiryTime).i64, 1764460800005);
  EXPECT_EQ(view.Property(PropertiesField::kCreationTime).i64, 1764460700005);
  EXPECT_EQ(view.Property(PropertiesField::kGroupId).bytes(), "group-a");
  EXPECT_EQ(view.Property(PropertiesField::kGroupSequence).type, ValueType::kUInt);
  EXPECT_EQ(view.Property(PropertiesField::kGroupSequence).u64, 5u);
  EXPECT_EQ(view.Property(PropertiesField::kReplyToGroupId).bytes(), "group-r");
  EXPECT_TRUE(view.error().ok());
}

TEST(MessageViewTest, PropertiesNullAndMissingTailAreAbsent) {
  // properties [null, null, "to"] : message-id null, subject beyond the tail.
  const ByteVector bytes = Section(0x73, List8(3, Cat({B({0x40, 0x40}), Str8("to")})));
  MessageView view(bytes);
  EXPECT_FALSE(view.Property(PropertiesField::kMessageId).present());
  EXPECT_EQ(view.Property(PropertiesField::kTo).bytes(), "to");
  EXPECT_FALSE(view.Property(PropertiesField::kSubject).present());
  EXPECT_FALSE(view.Property(PropertiesField::kReplyToGroupId).present());
  EXPECT_TRUE(view.error().ok());
}

TEST(MessageViewTest, MessageIdKinds) {
  testing::ProtonMessage m;
  pn_atom_t id;
  id.type = PN_UUID;
  for (int i = 0; i < 16; ++i) id.u.as_uuid.bytes[i] = static_cast<char>(i);
  pn_message_set_id(m.get(), id);
  pn_atom_t corr;
  corr.type = PN_BINARY;
  corr.u.as_bytes = testing::PnBytes("\x01\x02");
  pn_message_set_correlation_id(m.get(), corr);
  const ByteVector bytes = m.Encode();
  MessageView view(bytes);
  EXPECT_EQ(view.Property(PropertiesField::kMessageId).type, ValueType::kUuid);
  EXPECT_EQ(view.Property(PropertiesField::kMessageId).size, 16u);
  EXPECT_EQ(view.Property(PropertiesField::kCorrelationId).type, ValueType::kBinary);
}

TEST(MessageViewTest, ApplicationPropertiesByKey) {
  const ByteVector bytes = testing::RichMessage(4);
  MessageView view(bytes);
  EXPECT_EQ(view.ApplicationProperty("region").bytes(), "us-east");
  EXPECT_EQ(view.ApplicationProperty("amount").type, ValueType::kLong);
  EXPECT_EQ(view.ApplicationProperty("amount").i64, 104);
  EXPECT_EQ(view.ApplicationProperty("price").f64, 23.99);
  EXPECT_TRUE(view.ApplicationProperty("vip").boolean);
  EXPECT_EQ(view.ApplicationProperty("tier").type, ValueType::kUByte);
  EXPECT_EQ(view.ApplicationProperty("nothing").type, ValueType::kNull);
  EXPECT_FALSE(view.ApplicationProperty("absent").present());
  EXPECT_FALSE(view.ApplicationProperty("Region").present());  // keys are case-sensitive
  EncodedValue v;
  ASSERT_TRUE(view.FindApplicationProperty("region", &v));
  EXPECT_EQ(v.format_code(), code::kStr8);
  EXPECT_TRUE(view.error().ok());
}

TEST(MessageViewTest, AnnotationsBySymbolAndULongKeys) {
  const ByteVector bytes = testing::RichMessage(7);
  MessageView view(bytes);
  EXPECT_EQ(view.MessageAnnotation("x-opt-partition").type, ValueType::kInt);
  EXPECT_EQ(view.MessageAnnotation("x-opt-partition").i64, 7);
  EXPECT_EQ(view.MessageAnnotation(uint64_t{42}).bytes(), "by-number");
  EXPECT_EQ(view.MessageAnnotation("42").bytes(), "by-number");
  EXPECT_FALSE(view.MessageAnnotation(uint64_t{43}).present());
  EXPECT_EQ(view.DeliveryAnnotation("x-opt-trace").bytes(), "t-7");
  EXPECT_FALSE(view.DeliveryAnnotation("x-opt-partition").present());
}

TEST(MessageViewTest, FooterEntries) {
  const ByteVector footer = Section(0x78, Map8(4, Cat({Sym8("x-hash"), Str8("abc"), B({0x53, 0x09}), B({0x41})})));
  const ByteVector bytes = Cat({Section(0x75, B({0xa0, 0x01, 'z'})), footer});
  MessageView view(bytes);
  EXPECT_EQ(view.FooterEntry("x-hash").bytes(), "abc");
  EXPECT_TRUE(view.FooterEntry(uint64_t{9}).boolean);
  EXPECT_TRUE(view.FooterEntry("9").boolean);
  EXPECT_FALSE(view.FooterEntry("x-none").present());
  EXPECT_EQ(view.body_kind(), BodyKind::kData);
}

TEST(MessageViewTest, DescriptorsInAllThreeForms) {
  // The same application-properties section with a smallulong, ulong and symbol descriptor.
  const ByteVector map = Map8(2, Cat({Str8("k"), B({0x52, 0x07})}));
  const ByteVector forms[] = {
      Cat({B({0x00, 0x53, 0x74}), map}),
      Cat({B({0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x74}), map}),
      Cat({B({0x00}), Sym8("amqp:application-properties:map"), map}),
  };
  for (const auto& bytes : forms) {
    MessageView view(bytes);
    EXPECT_EQ(view.ApplicationProperty("k").u64, 7u);
    EXPECT_TRUE(view.error().ok()) << view.error().Message();
  }
  // ulong0 is a ulong too, but 0 is no section.
  const ByteVector zero = Cat({B({0x00, 0x44}), map});
  MessageView view(zero);
  EXPECT_FALSE(view.ApplicationProperty("k").present());
  EXPECT_EQ(view.error().Message(), "byte 0: described value with an unknown descriptor is not a message section");
}

TEST(MessageViewTest, SymbolDescriptorsForEverySection) {
  ByteVector bytes;
  const ByteVector values[] = {List8(1, B({0x41})),
                               Map8(2, Cat({Sym8("da"), B({0x41})})),
                               Map8(2, Cat({Sym8("ma"), B({0x41})})),
                               List8(1, Str8("id")),
                               Map8(2, Cat({Str8("ap"), B({0x41})})),
                               B({0xa0, 0x01, 'd'}),
                               {},
                               {},
                               Map8(2, Cat({Sym8("ft"), B({0x41})}))};
  for (int i = 0; i < kSectionKindCount; ++i) {
    if (values[i].empty()) continue;
    bytes = Cat({bytes, B({0x00}), Sym8(SectionSymbol(static_cast<SectionKind>(i))), values[i]});
  }
  MessageView view(bytes);
  EXPECT_TRUE(view.durable());
  EXPECT_TRUE(view.DeliveryAnnotation("da").boolean);
  EXPECT_TRUE(view.MessageAnnotation("ma").boolean);
  EXPECT_EQ(view.Property(PropertiesField::kMessageId).bytes(), "id");
  EXPECT_TRUE(view.ApplicationProperty("ap").boolean);
  EXPECT_EQ(view.body_kind(), BodyKind::kData);
  EXPECT_EQ(std::string(view.data().begin(), view.data().end()), "d");
  EXPECT_TRUE(view.FooterEntry("ft").boolean);
  EXPECT_TRUE(view.error().ok()) << view.error().Message();
}

TEST(MessageViewTest, MultipleDataSections) {
  const ByteVector bytes = Cat({Section(0x75, B({0xa0, 0x02, 'a', 'b'})), Section(0x75, B({0xb0, 0, 0, 0, 1, 'c'})),
                                Section(0x75, B({0xa0, 0x00}))});
  MessageView view(bytes);
  EXPECT_EQ(view.body_kind(), BodyKind::kData);
  EXPECT_EQ(view.body_section_count(), 3u);
  EncodedValue v;
  ASSERT_TRUE(view.BodySection(1, &v));
  EXPECT_EQ(v.ToValue().bytes(), "c");
  ASSERT_TRUE(view.BodySection(2, &v));
  EXPECT_EQ(v.ToValue().size, 0u);
  EXPECT_FALSE(view.BodySection(3, &v));
  EXPECT_EQ(std::string(view.data().begin(), view.data().end()), "ab");
  EXPECT_EQ(view.body_bytes().size(), bytes.size());
}

TEST(MessageViewTest, AmqpSequenceSectionsRepeat) {
  const ByteVector bytes =
      Cat({Section(0x70, B({0x45})), Section(0x76, List8(1, B({0x41}))), Section(0x76, B({0x45}))});
  MessageView view(bytes);
  EXPECT_EQ(view.body_kind(), BodyKind::kAmqpSequence);
  EXPECT_EQ(view.body_section_count(), 2u);
  EncodedValue v;
  ASSERT_TRUE(view.BodySection(0, &v));
  EXPECT_TRUE(v.is_list());
  EXPECT_EQ(v.count(), 1u);
  EXPECT_EQ(view.body_bytes().size(), bytes.size() - 4);
  EXPECT_TRUE(view.data().empty());
}

TEST(MessageViewTest, AmqpValueBodyFromProton) {
  testing::ProtonMessage m;
  pn_data_put_string(pn_message_body(m.get()), testing::PnBytes("hello"));
  const ByteVector bytes = m.Encode();
  MessageView view(bytes);
  EXPECT_EQ(view.body_kind(), BodyKind::kAmqpValue);
  EXPECT_EQ(view.body_section_count(), 1u);
  EncodedValue v;
  ASSERT_TRUE(view.BodySection(0, &v));
  EXPECT_EQ(v.ToValue().bytes(), "hello");
  ASSERT_TRUE(view.FindSection(SectionKind::kAmqpValue, &v));
  EXPECT_EQ(v.ToValue().type, ValueType::kString);
}

TEST(MessageViewTest, DataBodyFromProton) {
  const ByteVector bytes = testing::RichMessage(3);
  MessageView view(bytes);
  EXPECT_EQ(view.body_kind(), BodyKind::kData);
  EXPECT_EQ(std::string(view.data().begin(), view.data().end()), "{\"id\":3}");
}

TEST(MessageViewTest, ResetForgetsThePreviousMessage) {
  const ByteVector a = testing::RichMessage(1);
  const ByteVector b = Section(0x77, B({0x40}));
  MessageView view(a);
  EXPECT_EQ(view.ApplicationProperty("region").bytes(), "eu-west");
  view.Reset(b);
  EXPECT_FALSE(view.ApplicationProperty("region").present());
  EXPECT_EQ(view.priority(), 4);
  EXPECT_EQ(view.body_kind(), BodyKind::kAmqpValue);
  view.Reset(a);
  EXPECT_EQ(view.priority(), 1);
}

TEST(MessageViewTest, TruncatedLaterSectionLeavesEarlierOnesReadable) {
  ByteVector bytes = testing::RichMessage(2);
  bytes.resize(bytes.size() - 3);  // cut into the data body
  MessageView view(bytes);
  EXPECT_EQ(view.priority(), 2);
  EXPECT_EQ(view.ApplicationProperty("region").bytes(), "us-east");
  EXPECT_TRUE(view.error().ok());
  EXPECT_EQ(view.body_kind(), BodyKind::kNone);
  EXPECT_FALSE(view.error().ok());
  EXPECT_EQ(view.error().code, DecodeErrorCode::kLengthExceeds);
}

TEST(MessageViewTest, GarbageFirstSectionMakesHeaderMissing) {
  const ByteVector bytes = B({0x57, 0x00});
  MessageView view(bytes);
  EXPECT_FALSE(view.Header(HeaderField::kPriority).present());
  EXPECT_EQ(view.error().Message(), "byte 0: 0x57 is not an AMQP 1.0 format code");
  const ByteVector plain = B({0xa1, 0x01, 'x'});
  MessageView v2(plain);
  EXPECT_FALSE(v2.ApplicationProperty("x").present());
  EXPECT_EQ(v2.error().Message(), "byte 0: str8 is not a message section");
}

TEST(MessageViewTest, FirstOccurrenceWinsForRepeatedSections) {
  const ByteVector bytes = Cat(
      {Section(0x74, Map8(2, Cat({Str8("k"), B({0x52, 1})}))), Section(0x74, Map8(2, Cat({Str8("k"), B({0x52, 2})})))});
  MessageView view(bytes);
  EXPECT_EQ(view.ApplicationProperty("k").u64, 1u);
}

TEST(MessageViewTest, FieldNames) {
  HeaderField h;
  ASSERT_TRUE(HeaderFieldFromName("delivery-count", &h));
  EXPECT_EQ(h, HeaderField::kDeliveryCount);
  EXPECT_FALSE(HeaderFieldFromName("delivery_count", &h));
  PropertiesField p;
  ASSERT_TRUE(PropertiesFieldFromName("reply-to-group-id", &p));
  EXPECT_EQ(p, PropertiesField::kReplyToGroupId);
  EXPECT_EQ(PropertiesFieldName(PropertiesField::kAbsoluteExpiryTime), "absolute-expiry-time");
  EXPECT_EQ(HeaderFieldName(HeaderField::kFirstAcquirer), "first-acquirer");
}

}  // namespace
}  // namespace sift::amqp
