// MessageFieldSource's in-place reading of the common encodings (list8 / list32 / list0 and
// map8 / map32 section values, str8 / sym8 keys compared 8 bytes at a time, plain values decoded
// without an EncodedValue) against the general readers: every encoding that takes another route
// (map32 and list32 sections, sym8 / str32 / sym32 / ulong keys, described keys and values,
// truncated or malformed maps and lists, keys near the end of the message, duplicate keys and
// sections, sections out of order) gives the answer MessageView gives, and a mutation sweep over
// Proton-encoded messages checks the source against slow reference reads built on FindSection,
// Cursor, ReadValue and SkipValue (which agree with MessageView's per-field reads wherever those
// look at the same bytes), one field at a time and several keys of one map read together.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <utility>
#include <string>
#include <vector>

#include "amqp/cursor.h"
#include "amqp/field_types.h"
#include "amqp/message_view.h"
#include "engine/message_field_source.h"
#include "tests/amqp/test_messages.h"
#include "tests/engine/field_refs.h"
#include "tools/synthetic/synthetic_orders.h"

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

FieldRef App(std::string name) { return Field(Section::kApplicationProperties, std::move(name)); }

ByteVector Text(std::string_view s) { return testing::Text(s); }

// 4-byte big-endian.
ByteVector U32(uint32_t v) {
  return B({static_cast<int>(v >> 24), static_cast<int>((v >> 16) & 0xff), static_cast<int>((v >> 8) & 0xff),
            static_cast<int>(v & 0xff)});
}

ByteVector Str32(std::string_view s) { return Cat({B({0xb1}), U32(static_cast<uint32_t>(s.size())), Text(s)}); }
ByteVector Sym32(std::string_view s) { return Cat({B({0xb3}), U32(static_cast<uint32_t>(s.size())), Text(s)}); }
ByteVector Map32(uint32_t count, const ByteVector& elements) {
  return Cat({B({0xd1}), U32(static_cast<uint32_t>(elements.size() + 4)), U32(count), elements});
}
ByteVector List32(uint32_t count, const ByteVector& elements) {
  return Cat({B({0xd0}), U32(static_cast<uint32_t>(elements.size() + 4)), U32(count), elements});
}
ByteVector SmallInt(int v) { return B({0x54, v & 0xff}); }

bool SameValue(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  if (a.bytes() != b.bytes()) return false;
  return a.u64 == b.u64;
}

std::string Show(const Value& v) {
  std::string out = std::string(selector::ValueTypeName(v.type));
  out += " u64=" + std::to_string(v.u64) + " bytes=";
  for (char c : v.bytes()) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

// ---- Map sections: encodings that leave the in-place path ----

TEST(MessageFieldSourceReaderFastTest, Map32SectionWithStr8Keys) {
  const ByteVector m =
      testing::Section(0x74, Map32(4, Cat({Str8("region"), Str8("eu-west"), Str8("amount"), SmallInt(7)})));
  const std::vector<FieldRef> fields = {App("amount"), App("region"), App("absent")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).type, ValueType::kInt);
  EXPECT_EQ(source.Get(0).i64, 7);
  EXPECT_EQ(source.Get(1).bytes(), "eu-west");
  EXPECT_FALSE(source.Get(2).present());
}

TEST(MessageFieldSourceReaderFastTest, Sym8Str32AndSym32KeysMatchInApplicationProperties) {
  const ByteVector m =
      testing::Section(0x74, Map8(8, Cat({Sym8("a"), SmallInt(1), Str32("bb"), SmallInt(2), Sym32("long-key-c"),
                                          SmallInt(3), Str8("long-key-d"), SmallInt(4)})));
  const std::vector<FieldRef> fields = {App("a"), App("bb"), App("long-key-c"), App("long-key-d"), App("long-key-e")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 1);
  EXPECT_EQ(source.Get(1).i64, 2);
  EXPECT_EQ(source.Get(2).i64, 3);
  EXPECT_EQ(source.Get(3).i64, 4);
  EXPECT_FALSE(source.Get(4).present());
}

TEST(MessageFieldSourceReaderFastTest, KeysAlikeInTheirFirstBytesAreToldApart) {
  // Same first 6 key bytes (the in-place head), different tails and lengths; a key that is a
  // prefix of another; keys whose lengths differ by one.
  const ByteVector m = testing::Section(
      0x74,
      Map8(12, Cat({Str8("ordered"), SmallInt(1), Str8("ordered_at"), SmallInt(2), Str8("ordere"), SmallInt(3),
                    Str8("orderedX"), SmallInt(4), Str8("order"), SmallInt(5), Str8("ordered_by"), SmallInt(6)})));
  const std::vector<FieldRef> fields = {App("ordered_by"), App("ordere"),  App("order"),     App("orderedX"),
                                        App("ordered_at"), App("ordered"), App("ordered_a"), App("orderedY")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 6);
  EXPECT_EQ(source.Get(1).i64, 3);
  EXPECT_EQ(source.Get(2).i64, 5);
  EXPECT_EQ(source.Get(3).i64, 4);
  EXPECT_EQ(source.Get(4).i64, 2);
  EXPECT_EQ(source.Get(5).i64, 1);
  EXPECT_FALSE(source.Get(6).present());
  EXPECT_FALSE(source.Get(7).present());
}

TEST(MessageFieldSourceReaderFastTest, KeyLongerThan255BytesMatchesAStr32Key) {
  const std::string long_key(300, 'k');
  const std::string short_prefix(255, 'k');  // a str8 of 255 bytes: the same head, another length
  const ByteVector m =
      testing::Section(0x74, Map32(4, Cat({Str8(short_prefix), SmallInt(1), Str32(long_key), SmallInt(2)})));
  const std::vector<FieldRef> fields = {App(long_key), App(short_prefix)};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 2);
  EXPECT_EQ(source.Get(1).i64, 1);
}

TEST(MessageFieldSourceReaderFastTest, KeysInTheLastBytesOfTheMessageAreFound) {
  // Fewer than 8 bytes from the key to the end of the message: no 8-byte load, the same answer.
  const ByteVector m = testing::Section(0x74, Map8(4, Cat({Str8("region"), Str8("x"), Str8("a"), B({0x41})})));
  for (size_t cut : {size_t{0}, size_t{1}}) {
    ByteVector copy(m.begin(), m.end() - static_cast<std::ptrdiff_t>(cut));
    const std::vector<FieldRef> fields = {App("a"), App("region")};
    MessageFieldSource source(fields);
    source.Reset(copy);
    if (cut == 0) {
      EXPECT_EQ(source.Get(0).type, ValueType::kBoolean);
      EXPECT_TRUE(source.Get(0).boolean);
      EXPECT_EQ(source.Get(1).bytes(), "x");
    } else {  // the map's size now runs past the end: the section is unreadable
      EXPECT_FALSE(source.Get(0).present());
      EXPECT_FALSE(source.Get(1).present());
    }
  }
}

TEST(MessageFieldSourceReaderFastTest, AnnotationULongKeysInEveryEncoding) {
  // ulong 0x80, smallulong 0x53, ulong0 0x44; a str8 key "7" also matches slot "7" as text.
  const ByteVector ma = Map8(8, Cat({B({0x80, 0, 0, 0, 0, 0, 0, 0x01, 0x00}), SmallInt(1), B({0x53, 0x05}), SmallInt(2),
                                     B({0x44}), SmallInt(3), Str8("7"), SmallInt(4)}));
  const ByteVector m = testing::Section(0x72, ma);
  const std::vector<FieldRef> fields = {
      Field(Section::kMessageAnnotations, "256"), Field(Section::kMessageAnnotations, "5"),
      Field(Section::kMessageAnnotations, "0"), Field(Section::kMessageAnnotations, "7"),
      Field(Section::kMessageAnnotations, "05")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 1);
  EXPECT_EQ(source.Get(1).i64, 2);
  EXPECT_EQ(source.Get(2).i64, 3);
  EXPECT_EQ(source.Get(3).i64, 4);
  EXPECT_FALSE(source.Get(4).present());  // not canonical decimal: no ulong key is "05"
}

TEST(MessageFieldSourceReaderFastTest, ULongKeysDoNotMatchInApplicationProperties) {
  const ByteVector m = testing::Section(0x74, Map8(2, Cat({B({0x53, 0x05}), SmallInt(2)})));
  const std::vector<FieldRef> fields = {App("5")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_FALSE(source.Get(0).present());
}

TEST(MessageFieldSourceReaderFastTest, DescribedKeysDoNotMatchAndDescribedValuesAreSkipped) {
  // {described("a"): 1, "b": described(list), "a": 2, "c": 3}
  const ByteVector described_key = Cat({B({0x00, 0x53, 0x01}), Str8("a")});
  const ByteVector described_value = Cat({B({0x00, 0xa3, 0x01, 'd'}), List8(1, B({0x41}))});
  const ByteVector m = testing::Section(0x74, Map8(8, Cat({described_key, SmallInt(1), Str8("b"), described_value,
                                                           Str8("a"), SmallInt(2), Str8("c"), SmallInt(3)})));
  const std::vector<FieldRef> fields = {App("a"), App("c"), App("b")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 2);
  EXPECT_EQ(source.Get(1).i64, 3);
  EXPECT_EQ(source.Get(2).type, ValueType::kDescribed);
}

TEST(MessageFieldSourceReaderFastTest, UnmatchedDescribedValueBeforeTheWantedKeyIsSkipped) {
  const ByteVector described_value = Cat({B({0x00, 0xa3, 0x01, 'd'}), Str8("zz")});
  const ByteVector m =
      testing::Section(0x74, Map8(4, Cat({Str8("skipme"), described_value, Str8("want"), SmallInt(9)})));
  const std::vector<FieldRef> fields = {App("want")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 9);
}

TEST(MessageFieldSourceReaderFastTest, DuplicateKeysFirstOccurrenceWinsForEverySlot) {
  const ByteVector m = testing::Section(0x74, Map8(6, Cat({Str8("dup"), SmallInt(1), Sym8("dup"), SmallInt(2),
                                                           Str8("x"), List8(2, Cat({SmallInt(5), SmallInt(6)}))})));
  const std::vector<FieldRef> fields = {
      App("dup"), App("x"), App("dup"),
      Field(Section::kApplicationProperties, "x", {PathStep{PathStep::Kind::kIndex, 1, ""}}), App("x")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 1);
  EXPECT_EQ(source.Get(2).i64, 1);
  EXPECT_EQ(source.Get(1).type, ValueType::kList);
  EXPECT_EQ(source.Get(3).i64, 6);
  EXPECT_EQ(source.Get(4).type, ValueType::kList);
}

TEST(MessageFieldSourceReaderFastTest, PathSlotBeforeAPlainSlotOfTheSameKey) {
  const ByteVector m = testing::Section(0x74, Map8(2, Cat({Str8("x"), List8(2, Cat({SmallInt(5), SmallInt(6)}))})));
  const std::vector<FieldRef> fields = {
      Field(Section::kApplicationProperties, "x", {PathStep{PathStep::Kind::kIndex, 0, ""}}), App("x")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(1).type, ValueType::kList);
  EXPECT_EQ(source.Get(0).i64, 5);
}

TEST(MessageFieldSourceReaderFastTest, MalformedMapHeadersReadMissing) {
  const std::vector<FieldRef> fields = {App("a")};
  const std::vector<ByteVector> bad = {
      // map8 with an odd count
      testing::Section(0x74, B({0xc1, 0x04, 0x01, 0xa1, 0x01, 'a'})),
      // map8 whose count cannot fit its size
      testing::Section(0x74, B({0xc1, 0x03, 0x04, 0xa1, 0x01})),
      // map8 of size 0 (no room for the count)
      testing::Section(0x74, B({0xc1, 0x00})),
      // map8 whose size runs past the end
      testing::Section(0x74, B({0xc1, 0x09, 0x02, 0xa1, 0x01, 'a', 0x54, 0x01})),
      // map32 with an odd count
      testing::Section(0x74, Cat({B({0xd1}), U32(8), U32(1), Str8("a"), B({0x40})})),
      // map32 whose count exceeds its size
      testing::Section(0x74, Cat({B({0xd1}), U32(7), U32(9), Str8("a"), SmallInt(1)})),
      // map32 whose size runs past the end
      testing::Section(0x74, Cat({B({0xd1}), U32(90), U32(2), Str8("a"), SmallInt(1)})),
      // map32 cut inside its header
      testing::Section(0x74, B({0xd1, 0x00, 0x00})),
      // a list where the map should be
      testing::Section(0x74, List8(2, Cat({Str8("a"), SmallInt(1)}))),
      // a described map (the section value must be the map itself)
      testing::Section(0x74, Cat({B({0x00, 0x53, 0x01}), Map8(2, Cat({Str8("a"), SmallInt(1)}))})),
  };
  MessageFieldSource source(fields);
  for (size_t i = 0; i < bad.size(); ++i) {
    source.Reset(bad[i]);
    EXPECT_FALSE(source.Get(0).present()) << i;
    amqp::MessageView view(bad[i]);
    EXPECT_FALSE(view.ApplicationProperty("a").present()) << i;
  }
}

TEST(MessageFieldSourceReaderFastTest, TruncatedEntryEndsTheWalkKeepingWhatCameBefore) {
  // Entry 2's value claims 9 bytes inside the map; entry 3 is never reached.
  const ByteVector m = testing::Section(
      0x74, Map8(6, Cat({Str8("a"), SmallInt(1), Str8("b"), B({0xa1, 0x09, 'x'}), Str8("c"), SmallInt(3)})));
  const std::vector<FieldRef> fields = {App("c"), App("b"), App("a")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_FALSE(source.Get(0).present());
  EXPECT_FALSE(source.Get(1).present());
  EXPECT_EQ(source.Get(2).i64, 1);
}

TEST(MessageFieldSourceReaderFastTest, MapCountSmallerThanItsEntriesStopsAtTheCount) {
  // count 2 (one entry) although two entries are encoded: the second is not part of the map.
  const ByteVector m = testing::Section(0x74, Map8(2, Cat({Str8("a"), SmallInt(1), Str8("b"), SmallInt(2)})));
  const std::vector<FieldRef> fields = {App("b"), App("a")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_FALSE(source.Get(0).present());
  EXPECT_EQ(source.Get(1).i64, 1);
}

// ---- Sections out of order, repeated, described by symbol ----

TEST(MessageFieldSourceReaderFastTest, SectionsOutOfOrderAndRepeatedFirstWins) {
  const ByteVector m = Cat({
      testing::Section(0x75, B({0xa0, 0x01, 'x'})),                    // data body first
      testing::Section(0x74, Map8(2, Cat({Str8("k"), SmallInt(1)}))),  // application-properties
      testing::Section(0x73, List8(4, Cat({B({0x40, 0x40, 0x40}), Str8("subj")}))),
      testing::Section(0x74, Map8(2, Cat({Str8("k"), SmallInt(2)}))),       // repeated: ignored
      testing::Section(0x70, List8(2, Cat({B({0x41}), B({0x50, 0x07})}))),  // header last
      testing::Section(0x72, Map8(2, Cat({Sym8("x-m"), SmallInt(3)}))),
  });
  const std::vector<FieldRef> fields = {App("k"),
                                        Field(Section::kProperties, "subject"),
                                        Field(Section::kHeader, "priority"),
                                        Field(Section::kHeader, "durable"),
                                        Field(Section::kMessageAnnotations, "x-m"),
                                        Field(Section::kHeader, "delivery-count")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 1);
  EXPECT_EQ(source.Get(1).bytes(), "subj");
  EXPECT_EQ(source.Get(2).u64, 7u);
  EXPECT_TRUE(source.Get(3).boolean);
  EXPECT_EQ(source.Get(4).i64, 3);
  EXPECT_EQ(source.Get(5).type, ValueType::kUInt);  // default
}

TEST(MessageFieldSourceReaderFastTest, SectionDescribedBySymbolOrULong) {
  const ByteVector sym =
      Cat({B({0x00}), Sym8("amqp:application-properties:map"), Map8(2, Cat({Str8("k"), SmallInt(1)}))});
  const ByteVector ulong =
      Cat({B({0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x73}), List8(4, Cat({B({0x40, 0x40, 0x40}), Str8("s")}))});
  const ByteVector m = Cat({ulong, sym});
  const std::vector<FieldRef> fields = {App("k"), Field(Section::kProperties, "subject")};
  MessageFieldSource source(fields);
  source.Reset(m);
  EXPECT_EQ(source.Get(0).i64, 1);
  EXPECT_EQ(source.Get(1).bytes(), "s");
}

// ---- List sections ----

TEST(MessageFieldSourceReaderFastTest, HeaderAsList0List8AndList32) {
  const std::vector<FieldRef> fields = {Field(Section::kHeader, "priority"), Field(Section::kHeader, "durable"),
                                        Field(Section::kHeader, "ttl")};
  MessageFieldSource source(fields);
  const ByteVector list0 = testing::Section(0x70, B({0x45}));
  source.Reset(list0);
  EXPECT_EQ(source.Get(0).u64, 4u);
  EXPECT_FALSE(source.Get(1).boolean);
  EXPECT_FALSE(source.Get(2).present());
  const ByteVector list32 = testing::Section(0x70, List32(3, Cat({B({0x41}), B({0x50, 0x02}), B({0x52, 0x09})})));
  source.Reset(list32);
  EXPECT_EQ(source.Get(0).u64, 2u);
  EXPECT_TRUE(source.Get(1).boolean);
  EXPECT_EQ(source.Get(2).type, ValueType::kUInt);
  EXPECT_EQ(source.Get(2).u64, 9u);
}

TEST(MessageFieldSourceReaderFastTest, HeaderFieldOfTheWrongTypeIsMissingNotDefaulted) {
  const std::vector<FieldRef> fields = {Field(Section::kHeader, "priority"), Field(Section::kHeader, "durable")};
  MessageFieldSource source(fields);
  // priority as a smalluint (not a ubyte); durable as a described boolean.
  const ByteVector m = testing::Section(0x70, List8(2, Cat({B({0x00, 0x53, 0x01, 0x41}), B({0x52, 0x02})})));
  source.Reset(m);
  EXPECT_FALSE(source.Get(0).present());
  EXPECT_FALSE(source.Get(1).present());
  amqp::MessageView view(m);
  EXPECT_FALSE(view.Header(amqp::HeaderField::kPriority).present());
  EXPECT_FALSE(view.Header(amqp::HeaderField::kDurable).present());
}

TEST(MessageFieldSourceReaderFastTest, NullHeaderFieldTakesItsDefault) {
  const std::vector<FieldRef> fields = {Field(Section::kHeader, "priority")};
  MessageFieldSource source(fields);
  const ByteVector m = testing::Section(0x70, List8(2, B({0x40, 0x40})));
  source.Reset(m);
  EXPECT_EQ(source.Get(0).type, ValueType::kUByte);
  EXPECT_EQ(source.Get(0).u64, 4u);
}

TEST(MessageFieldSourceReaderFastTest, CompoundElementsBeforeTheFieldAreReadNotJustSkipped) {
  const std::vector<FieldRef> fields = {Field(Section::kProperties, "subject")};
  MessageFieldSource source(fields);
  // message-id as a list (wrong type, but readable), then subject.
  const ByteVector ok = testing::Section(0x73, List8(4, Cat({List8(1, B({0x41})), B({0x40, 0x40}), Str8("s")})));
  source.Reset(ok);
  EXPECT_EQ(source.Get(0).bytes(), "s");
  // The same with a list whose count cannot fit its size: the properties are malformed.
  const ByteVector bad = testing::Section(0x73, List8(4, Cat({B({0xc0, 0x01, 0x05}), B({0x40, 0x40}), Str8("s")})));
  source.Reset(bad);
  EXPECT_FALSE(source.Get(0).present());
  amqp::MessageView view(bad);
  EXPECT_FALSE(view.Property(amqp::PropertiesField::kSubject).present());
}

TEST(MessageFieldSourceReaderFastTest, MalformedListHeadersReadMissing) {
  const std::vector<FieldRef> fields = {Field(Section::kProperties, "message-id"), Field(Section::kHeader, "priority")};
  MessageFieldSource source(fields);
  const std::vector<ByteVector> bad = {
      testing::Section(0x73, B({0xc0, 0x02, 0x05, 0x40})),                  // count > size
      testing::Section(0x73, B({0xc0, 0x09, 0x01, 0x40})),                  // size past the end
      testing::Section(0x73, Cat({B({0xd0}), U32(5), U32(9), B({0x40})})),  // list32 count > size
      testing::Section(0x73, B({0xd0, 0x00})),                              // cut list32 header
      testing::Section(0x73, Map8(0, {})),                                  // a map, not a list
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    source.Reset(bad[i]);
    EXPECT_FALSE(source.Get(0).present()) << i;
    // No header: the default, unless the (only) section cannot even be skipped, when a header may
    // be hiding in it and the priority is missing; MessageView decides, the source agrees.
    amqp::MessageView view(bad[i]);
    const Value priority = view.Header(amqp::HeaderField::kPriority);
    EXPECT_TRUE(SameValue(source.Get(1), priority)) << i << " " << Show(source.Get(1));
    EXPECT_EQ(priority.present(), i != 1 && i != 3) << i;
  }
  // A malformed header: its fields are missing, not defaulted.
  const ByteVector bad_header = testing::Section(0x70, B({0xc0, 0x02, 0x05, 0x40}));
  source.Reset(bad_header);
  EXPECT_FALSE(source.Get(1).present());
}

TEST(MessageFieldSourceReaderFastTest, ListShorterThanTheFieldIndexReadsAbsent) {
  const std::vector<FieldRef> fields = {Field(Section::kProperties, "group-id"),
                                        Field(Section::kHeader, "delivery-count")};
  MessageFieldSource source(fields);
  const ByteVector m = Cat({testing::Section(0x70, List8(1, B({0x41}))), testing::Section(0x73, List8(1, Str8("id")))});
  source.Reset(m);
  EXPECT_FALSE(source.Get(0).present());
  EXPECT_EQ(source.Get(1).u64, 0u);
}

// ---- Differential: the field source and MessageView agree on mutated messages ----

struct Reference {
  FieldRef field;
  Value (*read)(const amqp::MessageView&, const FieldRef&);
};

// The slow form of a header / properties field read: the section through FindSection, its
// elements through a Cursor up to the field (any unreadable one on the way makes the field missing,
// even past the list's count of elements, where MessageView::Header()/Property() stop looking),
// the spec type checked; absent or null header fields take their defaults.
Value ReferenceListField(const amqp::MessageView& view, bool header, int index) {
  const amqp::SectionKind kind = header ? amqp::SectionKind::kHeader : amqp::SectionKind::kProperties;
  amqp::EncodedValue list;
  if (!view.FindSection(kind, &list)) {
    return header ? view.Header(static_cast<amqp::HeaderField>(index)) : Value::Missing();
  }
  if (!amqp::SectionValueTypeOk(kind, list)) return Value::Missing();
  amqp::Cursor c = amqp::Cursor::Elements(list);
  amqp::EncodedValue e;
  bool present = true;
  for (int i = 0; i <= index; ++i) {
    if (!c.Next(&e)) {
      if (!c.ok()) return Value::Missing();
      present = false;
      break;
    }
  }
  if (present && !e.is_null()) {
    const bool ok = header ? amqp::HeaderFieldTypeOk(index, e) : amqp::PropertiesFieldTypeOk(index, e);
    return ok ? e.ToValue() : Value::Missing();
  }
  if (!header) return Value::Missing();
  amqp::MessageView none;  // a message without sections: every header field at its default
  return none.Header(static_cast<amqp::HeaderField>(index));
}

// A header (`header`) or properties field by name, through ReferenceListField; where the list holds
// the field, the reference is checked against MessageView's own answer.
Value ReadListField(const amqp::MessageView& v, const FieldRef& f, bool header) {
  int index = -1;
  amqp::HeaderField h = amqp::HeaderField::kDurable;
  amqp::PropertiesField p = amqp::PropertiesField::kMessageId;
  if (header ? amqp::HeaderFieldFromName(f.name, &h) : amqp::PropertiesFieldFromName(f.name, &p)) {
    index = header ? static_cast<int>(h) : static_cast<int>(p);
  }
  if (index < 0) return Value::Missing();
  const Value reference = ReferenceListField(v, header, index);
  amqp::MessageView fresh(v.bytes());
  amqp::EncodedValue list;
  if (fresh.FindSection(header ? amqp::SectionKind::kHeader : amqp::SectionKind::kProperties, &list) &&
      static_cast<uint32_t>(index) < list.count()) {
    EXPECT_TRUE(SameValue(reference, header ? fresh.Header(h) : fresh.Property(p))) << f.name;
  }
  return reference;
}
Value ReadHeader(const amqp::MessageView& v, const FieldRef& f) { return ReadListField(v, f, true); }
Value ReadProperty(const amqp::MessageView& v, const FieldRef& f) { return ReadListField(v, f, false); }
Value ReadApp(const amqp::MessageView& v, const FieldRef& f) { return v.ApplicationProperty(f.name); }
Value ReadMessageAnnotation(const amqp::MessageView& v, const FieldRef& f) { return v.MessageAnnotation(f.name); }
Value ReadDeliveryAnnotation(const amqp::MessageView& v, const FieldRef& f) { return v.DeliveryAnnotation(f.name); }
Value ReadFooter(const amqp::MessageView& v, const FieldRef& f) { return v.FooterEntry(f.name); }

// The slow, obviously correct form of a map section's one pass for several keys: the section
// through FindSection, every key read by ReadValue, a matched value read by ReadValue, an unmatched
// one skipped by SkipValue; the first entry with a key wins; the pass ends at the first unreadable
// key or value (so a wanted key after an unreadable wanted value is missing, although a lookup of
// that key alone, which skips the unreadable value by its size, finds it).
std::vector<Value> ReferencePass(const amqp::MessageView& view, amqp::SectionKind kind,
                                 const std::vector<FieldRef>& keys, bool ulong_keys) {
  std::vector<Value> out(keys.size());
  std::vector<bool> found(keys.size());
  amqp::EncodedValue map;
  if (!view.FindSection(kind, &map) || !amqp::SectionValueTypeOk(kind, map)) return out;
  const uint8_t* base = view.bytes().data();
  const uint8_t* p = map.payload().data();
  const uint8_t* end = p + map.payload().size();
  for (uint32_t n = map.count() / 2; n > 0; --n) {
    amqp::EncodedValue key;
    const uint8_t* key_end = amqp::ReadValue(base, p, end, &key, nullptr);
    if (key_end == nullptr) break;
    std::string_view text;
    uint64_t number = 0;
    const bool is_text = !key.is_described() && (key.GetString(&text) || key.GetSymbol(&text));
    const uint8_t c = key.format_code();
    const bool is_ulong = !key.is_described() && (c == 0x80 || c == 0x53 || c == 0x44) && key.GetUnsigned(&number);
    std::vector<size_t> matched;
    for (size_t i = 0; i < keys.size(); ++i) {
      uint64_t wanted = 0;
      if (found[i]) continue;
      if ((is_text && text == keys[i].name) ||
          (is_ulong && ulong_keys && amqp::ParseDecimalKey(keys[i].name, &wanted) && wanted == number)) {
        matched.push_back(i);
      }
    }
    if (matched.empty()) {
      p = amqp::SkipValue(base, key_end, end, nullptr);
      if (p == nullptr) break;
      continue;
    }
    amqp::EncodedValue value;
    p = amqp::ReadValue(base, key_end, end, &value, nullptr);
    if (p == nullptr) break;
    for (size_t i : matched) {
      found[i] = true;
      out[i] = value.ToValue();
    }
  }
  return out;
}

std::vector<ByteVector> BaseMessages() {
  std::vector<ByteVector> out;
  const ByteVector footer =
      testing::Section(0x78, Map8(4, Cat({Sym8("x-sig"), Str8("s"), B({0x53, 0x05}), B({0x41})})));
  for (int n = 0; n < 6; ++n) {
    out.push_back(testing::RichMessage(n));
    out.push_back(Cat({testing::RichMessage(n + 10), footer}));
  }
  synthetic::SyntheticOrdersOptions options;
  options.seed = 3;
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  if (!synthetic::SyntheticOrders::Create(options, &orders).ok()) return out;
  std::string one;
  for (uint64_t i = 0; i < 6; ++i) {
    if (!orders->Encode(i, &one).ok()) continue;
    out.emplace_back(one.begin(), one.end());
  }
  return out;
}

TEST(MessageFieldSourceReaderFastTest, AgreesWithMessageViewOnMutatedMessages) {
  std::vector<Reference> refs;
  for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
    refs.push_back(
        {Field(Section::kHeader, std::string(amqp::HeaderFieldName(static_cast<amqp::HeaderField>(i)))), ReadHeader});
  }
  for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
    refs.push_back(
        {Field(Section::kProperties, std::string(amqp::PropertiesFieldName(static_cast<amqp::PropertiesField>(i)))),
         ReadProperty});
  }
  for (const char* key :
       {"region", "amount", "price", "vip", "tier", "nothing", "color", "customer", "ordered_at", "absent-key"}) {
    refs.push_back({App(key), ReadApp});
  }
  for (const char* key : {"x-opt-partition", "42", "x-absent"}) {
    refs.push_back({Field(Section::kMessageAnnotations, key), ReadMessageAnnotation});
  }
  refs.push_back({Field(Section::kDeliveryAnnotations, "x-opt-trace"), ReadDeliveryAnnotation});
  for (const char* key : {"x-sig", "5"}) {
    refs.push_back({Field(Section::kFooter, key), ReadFooter});
  }
  // One source per field (a list section walk covers the highest index asked for, so each field
  // alone is what MessageView's per-field read compares with), and one source for all the map
  // fields together (their walks are independent per key).
  std::vector<std::unique_ptr<MessageFieldSource>> single;
  std::vector<FieldRef> map_fields;
  std::vector<size_t> map_refs;
  for (size_t i = 0; i < refs.size(); ++i) {
    single.push_back(std::make_unique<MessageFieldSource>(std::vector<FieldRef>{refs[i].field}));
    const Section s = refs[i].field.section;
    if (s != Section::kHeader && s != Section::kProperties) {
      map_fields.push_back(refs[i].field);
      map_refs.push_back(i);
    }
  }
  MessageFieldSource together(map_fields);

  std::mt19937_64 rng(20261130);
  const std::vector<ByteVector> bases = BaseMessages();
  size_t checked = 0;
  size_t mismatches = 0;
  auto check = [&](const ByteVector& m, const char* what) {
    amqp::MessageView view(m);
    std::vector<Value> expected(refs.size());
    for (size_t i = 0; i < refs.size(); ++i) {
      amqp::MessageView fresh(m);  // a fresh view per field, as a per-field read would use
      expected[i] = refs[i].read(fresh, refs[i].field);
      single[i]->Reset(m);
      const Value got = single[i]->Get(0);
      ++checked;
      if (!SameValue(got, expected[i]) && ++mismatches <= 20) {
        ADD_FAILURE() << what << ": field " << refs[i].field.name << " got " << Show(got) << " expected "
                      << Show(expected[i]);
      }
    }
    together.Reset(view);
    for (const auto& [section, kind] :
         {std::pair{Section::kApplicationProperties, amqp::SectionKind::kApplicationProperties},
          std::pair{Section::kMessageAnnotations, amqp::SectionKind::kMessageAnnotations},
          std::pair{Section::kDeliveryAnnotations, amqp::SectionKind::kDeliveryAnnotations},
          std::pair{Section::kFooter, amqp::SectionKind::kFooter}}) {
      std::vector<FieldRef> keys;
      std::vector<uint32_t> slots;
      for (size_t j = 0; j < map_fields.size(); ++j) {
        if (map_fields[j].section != section) continue;
        keys.push_back(map_fields[j]);
        slots.push_back(static_cast<uint32_t>(j));
      }
      amqp::MessageView fresh(m);
      const std::vector<Value> want = ReferencePass(fresh, kind, keys, section != Section::kApplicationProperties);
      for (size_t k = 0; k < keys.size(); ++k) {
        const Value got = together.Get(slots[k]);
        ++checked;
        if (!SameValue(got, want[k]) && ++mismatches <= 20) {
          ADD_FAILURE() << what << " (together): field " << keys[k].name << " got " << Show(got) << " expected "
                        << Show(want[k]);
        }
      }
    }
  };
  for (const ByteVector& base : bases) {
    check(base, "unmutated");
    for (size_t cut = 0; cut < base.size(); cut += 3) {
      check(ByteVector(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(cut)), "cut");
    }
    for (int round = 0; round < 300; ++round) {
      ByteVector m = base;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        const size_t at = rng() % m.size();
        // Half the time a byte that changes meaning (a constructor, a size), else any byte.
        static constexpr uint8_t kInteresting[] = {0x00, 0x40, 0x45, 0x53, 0x80, 0xa1, 0xa3,
                                                   0xb1, 0xb3, 0xc0, 0xc1, 0xd0, 0xd1, 0xff};
        m[at] = rng() % 2 ? kInteresting[rng() % sizeof kInteresting] : static_cast<uint8_t>(rng());
      }
      check(m, "mutated");
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << checked;
  EXPECT_GT(checked, 100000u);
}

}  // namespace
}  // namespace sift::engine
