// MessageFieldSource: slots resolved per section in one pass, header defaults, properties, map
// sections by key (symbol, string and ulong keys), FieldRef paths, malformed sections.
#include "engine/message_field_source.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/amqp/test_messages.h"
#include "tests/engine/field_refs.h"

namespace sift::engine {
namespace {

using selector::FieldRef;
using selector::PathStep;
using selector::Section;
using selector::Value;
using selector::ValueType;
using testing::B;
using testing::ByteVector;
using testing::Cat;
using testing::Field;
using testing::Index;
using testing::Key;
using testing::List8;
using testing::Map8;
using testing::Str8;
using testing::Sym8;

TEST(MessageFieldSourceTest, ReadsEverySectionKind) {
  const std::vector<FieldRef> fields = {
      Field(Section::kHeader, "priority"),
      Field(Section::kHeader, "delivery-count"),
      Field(Section::kProperties, "subject"),
      Field(Section::kProperties, "message-id"),
      Field(Section::kApplicationProperties, "region"),
      Field(Section::kApplicationProperties, "amount"),
      Field(Section::kMessageAnnotations, "x-opt-partition"),
      Field(Section::kMessageAnnotations, "42"),
      Field(Section::kDeliveryAnnotations, "x-opt-trace"),
      Field(Section::kApplicationProperties, "absent"),
  };
  MessageFieldSource source(fields);
  const ByteVector m = testing::RichMessage(7);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).type, ValueType::kUByte);
  EXPECT_EQ(source.Get(0).u64, 7u);
  EXPECT_EQ(source.Get(1).u64, 2u);
  EXPECT_EQ(source.Get(2).bytes(), "created");
  EXPECT_EQ(source.Get(3).u64, 1000007u);
  EXPECT_EQ(source.Get(4).bytes(), "eu-west");
  EXPECT_EQ(source.Get(5).i64, 107);
  EXPECT_EQ(source.Get(6).i64, 7);
  EXPECT_EQ(source.Get(7).bytes(), "by-number");
  EXPECT_EQ(source.Get(8).bytes(), "t-7");
  EXPECT_FALSE(source.Get(9).present());
  EXPECT_FALSE(source.Get(10).present());  // no such slot
  // Asking again gives the same answer.
  EXPECT_EQ(source.Get(4).bytes(), "eu-west");
}

TEST(MessageFieldSourceTest, AgreesWithMessageViewOnEveryHeaderAndPropertiesField) {
  std::vector<FieldRef> fields;
  for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
    fields.push_back(Field(Section::kHeader, std::string(amqp::HeaderFieldName(static_cast<amqp::HeaderField>(i)))));
  }
  for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
    fields.push_back(
        Field(Section::kProperties, std::string(amqp::PropertiesFieldName(static_cast<amqp::PropertiesField>(i)))));
  }
  MessageFieldSource source(fields);
  for (int n = 0; n < 20; ++n) {
    const ByteVector m = testing::RichMessage(n);
    amqp::MessageView view(m);
    source.Reset(view);
    for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
      const Value a = source.Get(static_cast<uint32_t>(i));
      const Value b = view.Header(static_cast<amqp::HeaderField>(i));
      EXPECT_EQ(a.type, b.type) << i;
      EXPECT_EQ(a.u64, b.u64) << i;
    }
    for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
      const Value a = source.Get(static_cast<uint32_t>(amqp::kHeaderFieldCount + i));
      const Value b = view.Property(static_cast<amqp::PropertiesField>(i));
      EXPECT_EQ(a.type, b.type) << i;
      EXPECT_EQ(a.bytes(), b.bytes()) << i;
      EXPECT_EQ(a.u64, b.u64) << i;
    }
  }
}

TEST(MessageFieldSourceTest, HeaderDefaultsApply) {
  const std::vector<FieldRef> fields = {Field(Section::kHeader, "durable"),
                                        Field(Section::kHeader, "priority"),
                                        Field(Section::kHeader, "ttl"),
                                        Field(Section::kHeader, "first-acquirer"),
                                        Field(Section::kHeader, "delivery-count"),
                                        Field(Section::kHeader, "no-such-field")};
  MessageFieldSource source(fields);
  const ByteVector no_header = testing::Section(0x77, B({0x40}));
  const ByteVector short_header = testing::Section(0x70, List8(1, B({0x41})));
  for (const ByteVector* m : {&no_header, &short_header}) {
    source.Reset(*m);
    EXPECT_EQ(source.Get(0).type, ValueType::kBoolean);
    EXPECT_EQ(source.Get(0).boolean, m == &short_header);
    EXPECT_EQ(source.Get(1).type, ValueType::kUByte);
    EXPECT_EQ(source.Get(1).u64, 4u);
    EXPECT_FALSE(source.Get(2).present());
    EXPECT_EQ(source.Get(3).type, ValueType::kBoolean);
    EXPECT_FALSE(source.Get(3).boolean);
    EXPECT_EQ(source.Get(4).type, ValueType::kUInt);
    EXPECT_EQ(source.Get(4).u64, 0u);
    EXPECT_FALSE(source.Get(5).present());
  }
}

TEST(MessageFieldSourceTest, PathsIntoCompoundValues) {
  // message-annotations {x-list: [1, {"b": "deep"}], x-map: {"k": [7, 8]}}
  const ByteVector inner = Map8(2, Cat({Str8("b"), Str8("deep")}));
  const ByteVector list = List8(2, Cat({B({0x52, 0x01}), inner}));
  const ByteVector arr = B({0xe0, 0x04, 0x02, 0x50, 0x07, 0x08});
  const ByteVector map = Map8(2, Cat({Str8("k"), arr}));
  const ByteVector m = testing::Section(0x72, Map8(4, Cat({Sym8("x-list"), list, Sym8("x-map"), map})));
  const std::vector<FieldRef> fields = {
      Field(Section::kMessageAnnotations, "x-list", {Index(1), Key("b")}),
      Field(Section::kMessageAnnotations, "x-map", {Key("k"), Index(1)}),
      Field(Section::kMessageAnnotations, "x-list", {Index(9)}),
      Field(Section::kMessageAnnotations, "x-list"),
      Field(Section::kMessageAnnotations, "x-map", {Key("k"), Index(0), Index(0)}),
  };
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).bytes(), "deep");
  EXPECT_EQ(source.Get(1).type, ValueType::kUByte);
  EXPECT_EQ(source.Get(1).u64, 8u);
  EXPECT_FALSE(source.Get(2).present());
  EXPECT_EQ(source.Get(3).type, ValueType::kList);
  EXPECT_FALSE(source.Get(4).present());
}

TEST(MessageFieldSourceTest, FooterAndULongKeys) {
  const ByteVector m = Cat({testing::Section(0x75, B({0xa0, 0x00})),
                            testing::Section(0x78, Map8(4, Cat({Sym8("x-sig"), Str8("s"), B({0x53, 0x05, 0x41})})))});
  const std::vector<FieldRef> fields = {Field(Section::kFooter, "x-sig"), Field(Section::kFooter, "5"),
                                        Field(Section::kFooter, "05")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).bytes(), "s");
  EXPECT_TRUE(source.Get(1).boolean);
  EXPECT_FALSE(source.Get(2).present());
}

TEST(MessageFieldSourceTest, ApplicationPropertyKeysMatchStringsOnly) {
  const ByteVector m = testing::Section(0x74, Map8(4, Cat({Str8("a"), B({0x52, 0x01}), Sym8("b"), B({0x52, 0x02})})));
  const std::vector<FieldRef> fields = {Field(Section::kApplicationProperties, "a"),
                                        Field(Section::kApplicationProperties, "b"),
                                        Field(Section::kApplicationProperties, "a")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).u64, 1u);
  EXPECT_EQ(source.Get(1).u64, 2u);  // a symbol key (not allowed by the spec) is still readable
  EXPECT_EQ(source.Get(2).u64, 1u);  // two slots for one key
}

TEST(MessageFieldSourceTest, MalformedSectionReadsMissing) {
  // application-properties map whose second entry is cut short; header of the wrong type.
  ByteVector m = Cat({testing::Section(0x70, Map8(0, {})),
                      testing::Section(0x74, Map8(4, Cat({Str8("a"), B({0x52, 0x01}), Str8("b"), B({0x80, 0x00})})))});
  const std::vector<FieldRef> fields = {Field(Section::kApplicationProperties, "b"),
                                        Field(Section::kHeader, "priority"),
                                        Field(Section::kApplicationProperties, "a")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_FALSE(source.Get(0).present());
  EXPECT_FALSE(source.Get(1).present());
  EXPECT_EQ(source.Get(2).u64, 1u);  // read before the damage
}

TEST(MessageFieldSourceTest, ResetMovesToTheNextMessage) {
  const std::vector<FieldRef> fields = {Field(Section::kApplicationProperties, "region"),
                                        Field(Section::kHeader, "priority")};
  MessageFieldSource source(fields);
  const ByteVector a = testing::RichMessage(1);
  const ByteVector b = testing::RichMessage(2);
  source.Reset(a);
  EXPECT_EQ(source.Get(0).bytes(), "eu-west");
  EXPECT_EQ(source.Get(1).u64, 1u);
  source.Reset(b);
  EXPECT_EQ(source.Get(0).bytes(), "us-east");
  EXPECT_EQ(source.Get(1).u64, 2u);
  amqp::MessageView view(a);
  source.Reset(view);
  EXPECT_EQ(source.Get(0).bytes(), "eu-west");
  EXPECT_EQ(&source.view(), &view);
}

}  // namespace
}  // namespace sift::engine
