// Strict validation: valid messages pass, and every class of violation is reported with its offset and
// reason (the exact message is checked, since users see it).
#include "amqp/validate.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/amqp/test_messages.h"

namespace sift::amqp {
namespace {

using testing::B;
using testing::ByteVector;
using testing::Cat;
using testing::List8;
using testing::Map8;
using testing::Section;
using testing::Str8;
using testing::Sym8;

std::string Check(const ByteVector& bytes) {
  const DecodeError e = Validate(bytes);
  return e.ok() ? "ok" : e.Message();
}

const ByteVector kData = Section(0x75, B({0xa0, 0x01, 'x'}));
const ByteVector kHeader = Section(0x70, List8(1, B({0x41})));
const ByteVector kProps = Section(0x73, List8(1, Str8("id")));
const ByteVector kAppProps = Section(0x74, Map8(2, Cat({Str8("k"), B({0x52, 0x01})})));
const ByteVector kFooter = Section(0x78, Map8(2, Cat({Sym8("f"), B({0x41})})));

TEST(ValidateTest, ProtonMessagesAreValid) {
  for (int n = 0; n < 50; ++n) EXPECT_EQ(Check(testing::RichMessage(n)), "ok") << n;
  testing::ProtonMessage m;
  EXPECT_EQ(Check(m.Encode()), "ok");  // Proton writes an empty message as a null amqp-value
}

TEST(ValidateTest, HandWrittenValidMessages) {
  EXPECT_EQ(Check(Cat({kHeader, kProps, kAppProps, kData, kData, kFooter})), "ok");
  EXPECT_EQ(Check(Cat({kHeader, Section(0x76, B({0x45})), Section(0x76, B({0x45}))})), "ok");
  EXPECT_EQ(Check(Section(0x77, B({0x00, 0x53, 0x01, 0xc1, 0x01, 0x00}))), "ok");
  EXPECT_EQ(Check(kHeader), "ok");  // no body at all
  // Every type in one amqp-value list, including compact forms and a described-element array.
  ByteVector all =
      Cat({B({0x40, 0x41, 0x42, 0x56, 0x01, 0x43, 0x44, 0x45, 0x50, 1, 0x51, 2, 0x52,
              3,    0x53, 4,    0x54, 5,    0x55, 6,    0x60, 0,    7, 0x61, 0, 8}),
           B({0x70, 0, 0, 0, 9, 0x71, 0, 0, 0, 10, 0x72, 0x3f, 0x80, 0, 0, 0x73, 0, 0, 0, 'a', 0x74, 1, 2, 3, 4}),
           B({0x80, 0, 0, 0, 0, 0, 0, 0, 1, 0x81, 0, 0, 0, 0, 0, 0, 0, 2}),
           B({0x82, 0, 0, 0, 0, 0, 0, 0, 0, 0x83, 0, 0, 0, 0, 0, 0, 0, 3}), B({0x84, 0, 0, 0, 0, 0, 0, 0, 0}),
           B({0x94, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
           B({0x98, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), B({0xa0, 0, 0xa1, 2, 0xc3, 0xa9, 0xa3, 1, 's'}),
           B({0xb0, 0, 0, 0, 0, 0xb1, 0, 0, 0, 0, 0xb3, 0, 0, 0, 0}),
           B({0xc0, 1, 0, 0xc1, 1, 0, 0xd0, 0, 0, 0, 4, 0, 0, 0, 0}), B({0xd1, 0, 0, 0, 4, 0, 0, 0, 0}),
           B({0xe0, 8, 2, 0x00, 0xa3, 1, 'd', 0x50, 7, 9}), B({0xf0, 0, 0, 0, 7, 0, 0, 0, 2, 0x56, 1, 0}),
           B({0xe0, 2, 5, 0x40})});  // five nulls: zero-width elements
  const int count = 40;              // values in `all`, one per encoding above
  ByteVector list =
      Cat({B({0xd0}), B({0, 0, static_cast<int>((all.size() + 4) >> 8), static_cast<int>((all.size() + 4) & 0xff)}),
           B({0, 0, 0, count}), all});
  EXPECT_EQ(Check(Section(0x77, list)), "ok");
}

// ---- Structure ----

TEST(ValidateTest, EmptyMessage) { EXPECT_EQ(Check({}), "byte 0: empty message (no sections)"); }

TEST(ValidateTest, NotASection) {
  EXPECT_EQ(Check(Str8("hi")), "byte 0: str8 is not a message section");
  EXPECT_EQ(Check(Cat({kHeader, B({0x00, 0x53, 0x79, 0x45})})),
            "byte 7: described value with an unknown descriptor is not a message section");
  EXPECT_EQ(Check(Cat({B({0x00}), Sym8("amqp:header:map"), B({0x45})})),
            "byte 0: described value with an unknown descriptor is not a message section");
}

TEST(ValidateTest, TruncatedSection) {
  ByteVector b = kAppProps;
  b.pop_back();
  EXPECT_EQ(Check(b), "byte 3: map8 size 6 exceeds the 5 bytes left");
}

TEST(ValidateTest, SectionOrder) {
  EXPECT_EQ(Check(Cat({kProps, kHeader})), "byte 10: header section after the properties section");
  EXPECT_EQ(Check(Cat({kData, kAppProps})), "byte 6: application-properties section after the data section");
  EXPECT_EQ(Check(Cat({kFooter, kData})), "byte 10: data section after the footer section");
}

TEST(ValidateTest, DuplicateSection) {
  EXPECT_EQ(Check(Cat({kHeader, kHeader})), "byte 7: second header section");
  EXPECT_EQ(Check(Cat({kFooter, kFooter})), "byte 10: second footer section");
}

TEST(ValidateTest, MixedBody) {
  const ByteVector seq = Section(0x76, B({0x45}));
  const ByteVector value = Section(0x77, B({0x40}));
  const std::string tail = " (the body is one or more data, one or more amqp-sequence, or one amqp-value)";
  EXPECT_EQ(Check(Cat({kData, seq})), "byte 6: amqp-sequence section after a data body section" + tail);
  EXPECT_EQ(Check(Cat({value, value})), "byte 4: amqp-value section after a amqp-value body section" + tail);
  EXPECT_EQ(Check(Cat({seq, kData})), "byte 4: data section after a amqp-sequence body section" + tail);
}

TEST(ValidateTest, TrailingGarbageIsNotASection) {
  EXPECT_EQ(Check(Cat({kHeader, B({0x40})})), "byte 7: null is not a message section");
}

// ---- Values ----

TEST(ValidateTest, CompoundElementsMustFillItsSize) {
  // list8 of size 4 with count 1 whose only element takes 2 bytes: 1 byte left over.
  EXPECT_EQ(Check(Section(0x77, B({0xc0, 0x04, 0x01, 0x52, 0x01, 0x40}))),
            "byte 3: list8 elements end 1 bytes before the end of its size");
  // count 2 but the elements run past the size.
  EXPECT_EQ(Check(Section(0x77, B({0xc0, 0x03, 0x02, 0x52, 0x01}))), "byte 8: constructor needs 1 bytes, only 0 left");
}

TEST(ValidateTest, ListCountExceedsSize) {
  EXPECT_EQ(Check(Section(0x77, B({0xc0, 0x02, 0x09, 0x40}))), "byte 3: list8 count 9 does not fit its size 2");
}

TEST(ValidateTest, OddMapCount) {
  EXPECT_EQ(Check(Section(0x77, B({0xc1, 0x02, 0x01, 0x40}))),
            "byte 3: map8 count 1 is odd (a map holds key/value pairs)");
}

TEST(ValidateTest, ArrayElementsMustMatchTheConstructor) {
  // array8 of 2 ints whose size leaves 2 extra bytes.
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x0c, 0x02, 0x71, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0}))),
            "byte 3: array8 elements end 2 bytes before the end of its size");
  // array8 of 2 str8 whose second length runs out.
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x06, 0x02, 0xa1, 0x01, 'a', 0x05, 'b'}))),
            "byte 9: str8 length 5 exceeds the 1 bytes left");
  // array of nulls must have no element bytes.
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x03, 0x01, 0x40, 0x40}))),
            "byte 3: array8 elements end 1 bytes before the end of its size");
  // invalid element constructor
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x02, 0x00, 0x2a}))), "byte 6: 0x2a is not an AMQP 1.0 format code");
  // boolean elements must be 0 or 1
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x04, 0x02, 0x56, 0x01, 0x07}))),
            "byte 8: boolean byte 0x07 is neither 0x00 nor 0x01");
}

TEST(ValidateTest, InvalidBoolean) {
  EXPECT_EQ(Check(Section(0x77, B({0x56, 0x02}))), "byte 4: boolean byte 0x02 is neither 0x00 nor 0x01");
}

TEST(ValidateTest, InvalidChar) {
  EXPECT_EQ(Check(Section(0x77, B({0x73, 0x00, 0x00, 0xd8, 0x00}))),
            "byte 4: char 0xd800 is not a Unicode scalar value");
  EXPECT_EQ(Check(Section(0x77, B({0x73, 0x00, 0x11, 0x00, 0x00}))),
            "byte 4: char 0x110000 is not a Unicode scalar value");
}

TEST(ValidateTest, InvalidUtf8) {
  EXPECT_EQ(Check(Section(0x77, B({0xa1, 0x02, 0xc0, 0x80}))),  // overlong NUL
            "byte 5: str8 is not valid UTF-8 (bad byte 0xc0)");
  EXPECT_EQ(Check(Section(0x77, B({0xa1, 0x03, 0xed, 0xa0, 0x80}))),  // surrogate
            "byte 6: str8 is not valid UTF-8 (bad byte 0xa0)");
  EXPECT_EQ(Check(Section(0x77, B({0xa1, 0x02, 'a', 0xe2}))),  // cut sequence
            "byte 6: str8 is not valid UTF-8 (bad byte 0xe2)");
  EXPECT_EQ(Check(Section(0x77, B({0xb1, 0, 0, 0, 2, 0xe2, 'a'}))), "byte 8: str32 is not valid UTF-8 (bad byte 0xe2)");
  EXPECT_EQ(Check(Section(0x77, B({0xa1, 0x04, 0xf0, 0x9f, 0x98, 0x80}))), "ok");
}

TEST(ValidateTest, InvalidSymbol) {
  EXPECT_EQ(Check(Section(0x77, B({0xa3, 0x02, 'a', 0xe9}))), "byte 6: sym8 byte 0xe9 is not 7-bit ASCII");
}

TEST(ValidateTest, InvalidFormatCodeInsideAList) {
  EXPECT_EQ(Check(Section(0x77, B({0xc0, 0x02, 0x01, 0x2f}))), "byte 6: 0x2f is not an AMQP 1.0 format code");
}

TEST(ValidateTest, NestingTooDeep) {
  // 101 nested list8s.
  ByteVector v = B({0x45});
  for (int i = 0; i < kMaxNestingDepth + 1; ++i) {
    ByteVector outer = B({0xd0});
    const uint32_t size = static_cast<uint32_t>(v.size() + 4);
    outer.push_back(static_cast<uint8_t>(size >> 24));
    outer.push_back(static_cast<uint8_t>(size >> 16));
    outer.push_back(static_cast<uint8_t>(size >> 8));
    outer.push_back(static_cast<uint8_t>(size));
    outer.insert(outer.end(), {0, 0, 0, 1});
    v = Cat({outer, v});
  }
  const std::string msg = Check(Section(0x77, v));
  EXPECT_NE(msg.find("values nested deeper than 100 levels"), std::string::npos) << msg;
}

TEST(ValidateTest, DescriptorContentsAreValidatedToo) {
  EXPECT_EQ(Check(Section(0x77, B({0x00, 0xa1, 0x01, 0xff, 0x40}))), "byte 6: str8 is not valid UTF-8 (bad byte 0xff)");
}

// ---- Section types ----

TEST(ValidateTest, SectionValueTypes) {
  EXPECT_EQ(Check(Section(0x70, Map8(0, {}))), "byte 3: header section holds a map8, not a list");
  EXPECT_EQ(Check(Section(0x71, B({0x45}))), "byte 3: delivery-annotations section holds a list0, not a map");
  EXPECT_EQ(Check(Section(0x74, B({0x40}))), "byte 3: application-properties section holds a null, not a map");
  EXPECT_EQ(Check(Section(0x75, Str8("x"))), "byte 3: data section holds a str8, not a binary");
  EXPECT_EQ(Check(Section(0x76, B({0x40}))), "byte 3: amqp-sequence section holds a null, not a list");
  EXPECT_EQ(Check(Section(0x78, B({0x45}))), "byte 3: footer section holds a list0, not a map");
}

TEST(ValidateTest, HeaderFieldTypes) {
  EXPECT_EQ(Check(Section(0x70, List8(2, B({0x41, 0x52, 0x04})))),
            "byte 7: header field priority is a smalluint, not a ubyte");
  EXPECT_EQ(Check(Section(0x70, List8(1, B({0x52, 0x01})))),
            "byte 6: header field durable is a smalluint, not a boolean");
  EXPECT_EQ(Check(Section(0x70, List8(3, B({0x40, 0x40, 0x81, 0, 0, 0, 0, 0, 0, 0, 1})))),
            "byte 8: header field ttl is a long, not a uint");
  EXPECT_EQ(Check(Section(0x70, List8(3, B({0x40, 0x50, 0x09, 0x43})))), "ok");
}

TEST(ValidateTest, PropertiesFieldTypes) {
  EXPECT_EQ(Check(Section(0x73, List8(1, Sym8("id")))),
            "byte 6: properties field message-id is a sym8, not a ulong, uuid, binary or string");
  EXPECT_EQ(Check(Section(0x73, List8(7, Cat({B({0x40, 0x40, 0x40, 0x40, 0x40, 0x40}), Str8("text/plain")})))),
            "byte 12: properties field content-type is a str8, not a symbol");
  EXPECT_EQ(Check(Section(0x73, List8(9, Cat({B({0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40}), B({0x55, 0x01})})))),
            "byte 14: properties field absolute-expiry-time is a smalllong, not a timestamp");
}

TEST(ValidateTest, AnnotationKeys) {
  EXPECT_EQ(Check(Section(0x72, Map8(2, Cat({Str8("k"), B({0x41})})))),
            "byte 6: message-annotations key is a str8, not a symbol or ulong");
  EXPECT_EQ(Check(Section(0x71, Map8(2, B({0x52, 0x01, 0x41})))),
            "byte 6: delivery-annotations key is a smalluint, not a symbol or ulong");
  EXPECT_EQ(Check(Section(0x78, Map8(2, B({0x00, 0x53, 0x01, 0x44, 0x41})))),
            "byte 6: footer key is a described, not a symbol or ulong");
  EXPECT_EQ(Check(Section(0x72, Map8(2, B({0x53, 0x01, 0x41})))), "ok");
}

TEST(ValidateTest, EmptyArraysOfEveryElementTypeAreValid) {
  // Count 0: nothing but the element constructor (Proton writes these for an empty symbol array).
  for (uint8_t element : {0xa1, 0xa3, 0xa0, 0xb1, 0xc0, 0xc1, 0xd0, 0xe0, 0x71, 0x56, 0x40}) {
    EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x02, 0x00, element}))), "ok") << int{element};
    EXPECT_EQ(Check(Section(0x77, B({0xf0, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, element}))), "ok")
        << int{element};
  }
  // An element descriptor too.
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x05, 0x00, 0x00, 0x53, 0x01, 0xa3}))), "ok");
  // Bytes left over after no elements are still refused.
  EXPECT_EQ(Check(Section(0x77, B({0xe0, 0x03, 0x00, 0xa3, 0x00}))),
            "byte 3: array8 elements end 1 bytes before the end of its size");
  EXPECT_NE(Check(Section(0x77, B({0xc0, 0x02, 0x00, 0x40}))), "ok");
}

TEST(ValidateTest, ApplicationPropertiesKeysAndValues) {
  EXPECT_EQ(Check(Section(0x74, Map8(2, Cat({Sym8("k"), B({0x41})})))),
            "byte 6: application-properties key is a sym8, not a string");
  // Compound values are accepted (validate.h says why), and are still checked all the way down.
  EXPECT_EQ(Check(Section(0x74, Map8(2, Cat({Str8("k"), B({0x45})})))), "ok");
  EXPECT_EQ(Check(Section(0x74, Map8(2, Cat({Str8("k"), B({0xe0, 0x02, 0x00, 0x40})})))), "ok");
  EXPECT_EQ(Check(Section(0x74, Map8(2, Cat({Str8("tags"), B({0xc0, 0x03, 0x01, 0xa1, 0x00})})))), "ok");
  EXPECT_NE(Check(Section(0x74, Map8(2, Cat({Str8("k"), B({0xc0, 0x01, 0x05})})))), "ok");
}

TEST(ValidateValueTest, OneValueExactly) {
  EXPECT_TRUE(ValidateValue(B({0x52, 0x01})).ok());
  EXPECT_EQ(ValidateValue(B({0x52, 0x01, 0x40})).Message(), "byte 2: 1 trailing bytes after the value");
  EXPECT_EQ(ValidateValue(B({0x52})).Message(), "byte 0: smalluint needs 1 bytes, only 0 left");
}

}  // namespace
}  // namespace sift::amqp
