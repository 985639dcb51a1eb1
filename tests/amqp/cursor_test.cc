// Every AMQP 1.0 type code through ReadValue / EncodedValue / Cursor (core part 1, section 1.6), with
// encodings from Proton's encoder where it emits them and hand-written bytes where it does not.
#include "amqp/cursor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>

#include "amqp/coding.h"
#include "amqp/encoded_value.h"
#include "amqp/type_codes.h"
#include "tests/amqp/test_messages.h"

namespace sift::amqp {
namespace {

using amqp::Value;
using amqp::ValueType;
using testing::B;
using testing::ByteVector;
using testing::Cat;

// Reads exactly one value from `input`, expecting it to fill it. The bytes are kept alive for the
// whole test program, since the value views them.
EncodedValue ReadOne(const ByteVector& input) {
  static std::deque<ByteVector> kept;
  const ByteVector& bytes = kept.emplace_back(input);
  EncodedValue v;
  DecodeError e;
  const uint8_t* end = ReadValue(bytes.data(), bytes.data(), bytes.data() + bytes.size(), &v, &e);
  EXPECT_NE(end, nullptr) << e.Message();
  EXPECT_EQ(end, bytes.data() + bytes.size());
  return v;
}

Value ToValue(const ByteVector& bytes) { return ReadOne(bytes).ToValue(); }

DecodeError ReadError(const ByteVector& bytes) {
  EncodedValue v;
  DecodeError e;
  const uint8_t* end = ReadValue(bytes.data(), bytes.data(), bytes.data() + bytes.size(), &v, &e);
  EXPECT_EQ(end, nullptr);
  return e;
}

TEST(CodingTest, ReadersStopAtTheLimit) {
  const ByteVector b = B({1, 2, 3, 4, 5, 6, 7, 8});
  uint8_t u8 = 0;
  uint16_t u16 = 0;
  uint32_t u32 = 0;
  uint64_t u64 = 0;
  EXPECT_EQ(ReadU8(b.data(), b.data(), &u8), nullptr);
  EXPECT_EQ(ReadU16(b.data(), b.data() + 1, &u16), nullptr);
  EXPECT_EQ(ReadU32(b.data(), b.data() + 3, &u32), nullptr);
  EXPECT_EQ(ReadU64(b.data(), b.data() + 7, &u64), nullptr);
  EXPECT_EQ(ReadU64(b.data(), b.data() + 8, &u64), b.data() + 8);
  EXPECT_EQ(u64, 0x0102030405060708u);
  EXPECT_EQ(ReadU32(b.data(), b.data() + 8, &u32), b.data() + 4);
  EXPECT_EQ(u32, 0x01020304u);
  EXPECT_EQ(ReadU16(b.data() + 6, b.data() + 8, &u16), b.data() + 8);
  EXPECT_EQ(u16, 0x0708);
}

TEST(TypeCodesTest, NamesAndValidity) {
  EXPECT_EQ(FormatCodeName(0x53), "smallulong");
  EXPECT_EQ(FormatCodeName(0xb1), "str32");
  EXPECT_EQ(FormatCodeName(0x57), "invalid");
  EXPECT_TRUE(IsValidFormatCode(0x43));
  EXPECT_FALSE(IsValidFormatCode(0x00));
  EXPECT_FALSE(IsValidFormatCode(0x57));
  EXPECT_FALSE(IsValidFormatCode(0xff));
  int valid = 0;
  for (int c = 0; c < 256; ++c) valid += IsValidFormatCode(static_cast<uint8_t>(c));
  EXPECT_EQ(valid, 39);  // every primitive encoding of core part 1, section 1.6
}

TEST(TypeCodesTest, SectionDescriptors) {
  SectionKind k;
  ASSERT_TRUE(SectionFromDescriptorCode(0x74, &k));
  EXPECT_EQ(k, SectionKind::kApplicationProperties);
  EXPECT_FALSE(SectionFromDescriptorCode(0x79, &k));
  EXPECT_FALSE(SectionFromDescriptorCode(0x6f, &k));
  ASSERT_TRUE(SectionFromDescriptorSymbol("amqp:amqp-value:*", &k));
  EXPECT_EQ(k, SectionKind::kAmqpValue);
  EXPECT_FALSE(SectionFromDescriptorSymbol("amqp:header:map", &k));
  for (int i = 0; i < kSectionKindCount; ++i) {
    ASSERT_TRUE(SectionFromDescriptorSymbol(SectionSymbol(static_cast<SectionKind>(i)), &k));
    EXPECT_EQ(static_cast<int>(k), i);
  }
}

TEST(CursorTest, Null) {
  EXPECT_EQ(ToValue(B({0x40})).type, ValueType::kNull);
  EXPECT_TRUE(ReadOne(B({0x40})).is_null());
}

TEST(CursorTest, BooleanAllThreeEncodings) {
  EXPECT_TRUE(ToValue(B({0x41})).boolean);
  EXPECT_FALSE(ToValue(B({0x42})).boolean);
  EXPECT_TRUE(ToValue(B({0x56, 0x01})).boolean);
  EXPECT_FALSE(ToValue(B({0x56, 0x00})).boolean);
  bool b = false;
  EXPECT_TRUE(ReadOne(B({0x41})).GetBoolean(&b));
  EXPECT_TRUE(b);
  EXPECT_EQ(ToValue(B({0x56, 0x00})).type, ValueType::kBoolean);
}

TEST(CursorTest, UnsignedIntegersAllEncodings) {
  struct Case {
    ByteVector bytes;
    ValueType type;
    uint64_t value;
  } cases[] = {
      {B({0x50, 0xff}), ValueType::kUByte, 255},
      {B({0x60, 0x12, 0x34}), ValueType::kUShort, 0x1234},
      {B({0x70, 0x80, 0x00, 0x00, 0x01}), ValueType::kUInt, 0x80000001u},
      {B({0x52, 0xfe}), ValueType::kUInt, 254},
      {B({0x43}), ValueType::kUInt, 0},
      {B({0x80, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88}), ValueType::kULong, 0xffeeddccbbaa9988u},
      {B({0x53, 0x07}), ValueType::kULong, 7},
      {B({0x44}), ValueType::kULong, 0},
  };
  for (const auto& c : cases) {
    const Value v = ToValue(c.bytes);
    EXPECT_EQ(v.type, c.type) << FormatCodeName(c.bytes[0]);
    EXPECT_EQ(v.u64, c.value) << FormatCodeName(c.bytes[0]);
    uint64_t u = 1;
    EXPECT_TRUE(ReadOne(c.bytes).GetUnsigned(&u));
    EXPECT_EQ(u, c.value);
    int64_t s = 0;
    EXPECT_FALSE(ReadOne(c.bytes).GetSigned(&s));
  }
}

TEST(CursorTest, SignedIntegersAllEncodings) {
  struct Case {
    ByteVector bytes;
    ValueType type;
    int64_t value;
  } cases[] = {
      {B({0x51, 0x80}), ValueType::kByte, -128},
      {B({0x61, 0xff, 0xfe}), ValueType::kShort, -2},
      {B({0x71, 0xff, 0xff, 0xff, 0xff}), ValueType::kInt, -1},
      {B({0x54, 0xfb}), ValueType::kInt, -5},
      {B({0x81, 0x80, 0, 0, 0, 0, 0, 0, 0}), ValueType::kLong, INT64_MIN},
      {B({0x55, 0x7f}), ValueType::kLong, 127},
  };
  for (const auto& c : cases) {
    const Value v = ToValue(c.bytes);
    EXPECT_EQ(v.type, c.type) << FormatCodeName(c.bytes[0]);
    EXPECT_EQ(v.i64, c.value) << FormatCodeName(c.bytes[0]);
    int64_t s = 0;
    EXPECT_TRUE(ReadOne(c.bytes).GetSigned(&s));
    EXPECT_EQ(s, c.value);
  }
}

TEST(CursorTest, IntegersFromProtonsEncoder) {
  testing::ProtonData d;
  pn_data_put_int(d.get(), -7);        // Proton writes smallint
  pn_data_put_long(d.get(), 1 << 20);  // long
  pn_data_put_uint(d.get(), 0);        // uint0
  pn_data_put_ulong(d.get(), 200);     // smallulong
  pn_data_put_ushort(d.get(), 65535);
  pn_data_put_short(d.get(), -300);
  pn_data_put_byte(d.get(), -1);
  pn_data_put_ubyte(d.get(), 9);
  const ByteVector bytes = d.Encode();
  Cursor c(bytes);
  EncodedValue v;
  const Value expected[] = {Value::Signed(ValueType::kInt, -7),         Value::Signed(ValueType::kLong, 1 << 20),
                            Value::Unsigned(ValueType::kUInt, 0),       Value::Unsigned(ValueType::kULong, 200),
                            Value::Unsigned(ValueType::kUShort, 65535), Value::Signed(ValueType::kShort, -300),
                            Value::Signed(ValueType::kByte, -1),        Value::Unsigned(ValueType::kUByte, 9)};
  for (const Value& e : expected) {
    ASSERT_TRUE(c.Next(&v)) << c.error().Message();
    const Value got = v.ToValue();
    EXPECT_EQ(got.type, e.type);
    EXPECT_EQ(got.u64, e.u64);
  }
  EXPECT_FALSE(c.Next(&v));
  EXPECT_TRUE(c.done());
  EXPECT_TRUE(c.ok());
}

TEST(CursorTest, FloatAndDouble) {
  testing::ProtonData d;
  pn_data_put_float(d.get(), 1.5f);
  pn_data_put_double(d.get(), -2.25e100);
  const ByteVector bytes = d.Encode();
  Cursor c(bytes);
  EncodedValue v;
  ASSERT_TRUE(c.Next(&v));
  EXPECT_EQ(v.format_code(), code::kFloat);
  EXPECT_EQ(v.ToValue().type, ValueType::kFloat);
  EXPECT_EQ(v.ToValue().f64, 1.5);
  ASSERT_TRUE(c.Next(&v));
  double x = 0;
  EXPECT_TRUE(v.GetDouble(&x));
  EXPECT_EQ(x, -2.25e100);
  EXPECT_EQ(v.ToValue().type, ValueType::kDouble);
}

TEST(CursorTest, DecimalsAreRawBytes) {
  const ByteVector d32 = B({0x74, 1, 2, 3, 4});
  const ByteVector d64 = B({0x84, 1, 2, 3, 4, 5, 6, 7, 8});
  ByteVector d128 = B({0x94});
  for (int i = 0; i < 16; ++i) d128.push_back(static_cast<uint8_t>(0xa0 + i));
  Value v = ToValue(d32);
  EXPECT_EQ(v.type, ValueType::kDecimal32);
  EXPECT_EQ(v.bytes(), std::string_view("\x01\x02\x03\x04", 4));
  v = ToValue(d64);
  EXPECT_EQ(v.type, ValueType::kDecimal64);
  EXPECT_EQ(v.size, 8u);
  v = ToValue(d128);
  EXPECT_EQ(v.type, ValueType::kDecimal128);
  EXPECT_EQ(v.size, 16u);
  EXPECT_EQ(static_cast<uint8_t>(v.data[15]), 0xaf);
}

TEST(CursorTest, CharTimestampUuid) {
  testing::ProtonData d;
  pn_data_put_char(d.get(), 0x1f600);
  pn_data_put_timestamp(d.get(), -1764460800000);
  pn_uuid_t u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<char>(i * 11);
  pn_data_put_uuid(d.get(), u);
  const ByteVector bytes = d.Encode();
  Cursor c(bytes);
  EncodedValue v;
  ASSERT_TRUE(c.Next(&v));
  EXPECT_EQ(v.ToValue().type, ValueType::kChar);
  EXPECT_EQ(v.ToValue().u32, 0x1f600u);
  ASSERT_TRUE(c.Next(&v));
  int64_t ts = 0;
  EXPECT_TRUE(v.GetTimestamp(&ts));
  EXPECT_EQ(ts, -1764460800000);
  EXPECT_EQ(v.ToValue().type, ValueType::kTimestamp);
  ASSERT_TRUE(c.Next(&v));
  std::span<const uint8_t> id;
  ASSERT_TRUE(v.GetUuid(&id));
  EXPECT_EQ(std::memcmp(id.data(), u.bytes, 16), 0);
  EXPECT_EQ(v.ToValue().type, ValueType::kUuid);
}

TEST(CursorTest, VariableWidthShortAndLongForms) {
  const std::string big(300, 'x');
  testing::ProtonData d;
  pn_data_put_binary(d.get(), testing::PnBytes("bin"));
  pn_data_put_string(d.get(), testing::PnBytes("héllo"));
  pn_data_put_symbol(d.get(), testing::PnBytes("sym"));
  pn_data_put_binary(d.get(), testing::PnBytes(big));  // vbin32
  pn_data_put_string(d.get(), testing::PnBytes(big));  // str32
  pn_data_put_symbol(d.get(), testing::PnBytes(big));  // sym32
  const ByteVector bytes = d.Encode();
  Cursor c(bytes);
  EncodedValue v;
  const uint8_t codes[] = {0xa0, 0xa1, 0xa3, 0xb0, 0xb1, 0xb3};
  const ValueType types[] = {ValueType::kBinary, ValueType::kString, ValueType::kSymbol,
                             ValueType::kBinary, ValueType::kString, ValueType::kSymbol};
  const std::string_view texts[] = {"bin", "héllo", "sym", big, big, big};
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(c.Next(&v)) << c.error().Message();
    EXPECT_EQ(v.format_code(), codes[i]);
    EXPECT_EQ(v.ToValue().type, types[i]);
    EXPECT_EQ(v.ToValue().bytes(), texts[i]);
    // The view points into the buffer: no copy.
    EXPECT_GE(reinterpret_cast<const uint8_t*>(v.ToValue().data), bytes.data());
    EXPECT_LE(reinterpret_cast<const uint8_t*>(v.ToValue().data) + v.ToValue().size, bytes.data() + bytes.size());
  }
  std::string_view s;
  EXPECT_FALSE(v.GetString(&s));
  EXPECT_TRUE(v.GetSymbol(&s));
}

TEST(CursorTest, ListAllEncodingsAndElements) {
  // list0
  EncodedValue v = ReadOne(B({0x45}));
  EXPECT_TRUE(v.is_list());
  EXPECT_EQ(v.count(), 0u);
  EXPECT_EQ(v.ToValue().type, ValueType::kList);
  Cursor empty = Cursor::Elements(v);
  EncodedValue e;
  EXPECT_FALSE(empty.Next(&e));
  EXPECT_TRUE(empty.done());
  // list8 [1, "a"]
  v = ReadOne(B({0xc0, 0x06, 0x02, 0x52, 0x01, 0xa1, 0x01, 'a'}));
  EXPECT_EQ(v.count(), 2u);
  ASSERT_TRUE(v.ElementAt(1, &e));
  EXPECT_EQ(e.ToValue().bytes(), "a");
  EXPECT_FALSE(v.ElementAt(2, &e));
  // list32 [true]
  v = ReadOne(B({0xd0, 0, 0, 0, 5, 0, 0, 0, 1, 0x41}));
  EXPECT_TRUE(v.is_list());
  ASSERT_TRUE(v.ElementAt(0, &e));
  EXPECT_TRUE(e.ToValue().boolean);
  EXPECT_EQ(v.ToValue().size, 10u);  // a compound's Value spans its raw bytes
}

TEST(CursorTest, MapAllEncodingsAndKeys) {
  // map8 {"k": 1, sym "s": 2, ulong 7: 3}
  const ByteVector m8 =
      Cat({B({0xc1, 0x0f, 0x06}), B({0xa1, 1, 'k', 0x52, 1}), B({0xa3, 1, 's', 0x52, 2}), B({0x53, 7, 0x52, 3})});
  ASSERT_EQ(m8.size(), 0x0fu + 2);
  EncodedValue v = ReadOne(m8);
  EXPECT_TRUE(v.is_map());
  EXPECT_EQ(v.ToValue().type, ValueType::kMap);
  EncodedValue e;
  ASSERT_TRUE(v.FindKey("k", &e));
  EXPECT_EQ(e.ToValue().u64, 1u);
  ASSERT_TRUE(v.FindKey("s", &e));
  EXPECT_EQ(e.ToValue().u64, 2u);
  ASSERT_TRUE(v.FindKey("7", &e));  // decimal text matches a ulong key
  EXPECT_EQ(e.ToValue().u64, 3u);
  ASSERT_TRUE(v.FindULongKey(7, &e));
  EXPECT_EQ(e.ToValue().u64, 3u);
  EXPECT_FALSE(v.FindKey("07", &e));
  EXPECT_FALSE(v.FindKey("x", &e));
  EXPECT_FALSE(v.FindULongKey(8, &e));
  // map32 {"a": null}
  const ByteVector m32 = B({0xd1, 0, 0, 0, 8, 0, 0, 0, 2, 0xa1, 1, 'a', 0x40});
  v = ReadOne(m32);
  ASSERT_TRUE(v.FindKey("a", &e));
  EXPECT_TRUE(e.is_null());
}

TEST(CursorTest, ArrayFixedWidthElementsAreIndexedDirectly) {
  testing::ProtonData d;
  pn_data_put_array(d.get(), false, PN_INT);
  pn_data_enter(d.get());
  for (int i = 0; i < 5; ++i) pn_data_put_int(d.get(), i * 100 - 200);
  pn_data_exit(d.get());
  const ByteVector bytes = d.Encode();
  EncodedValue v = ReadOne(bytes);
  EXPECT_TRUE(v.is_array());
  EXPECT_EQ(v.count(), 5u);
  EXPECT_EQ(v.element_format_code(), code::kInt);
  EXPECT_EQ(v.ToValue().type, ValueType::kArray);
  EncodedValue e;
  ASSERT_TRUE(v.ElementAt(4, &e));
  EXPECT_EQ(e.ToValue().i64, 200);
  ASSERT_TRUE(v.ElementAt(0, &e));
  EXPECT_EQ(e.ToValue().i64, -200);
  EXPECT_FALSE(v.ElementAt(5, &e));
  Cursor c = Cursor::Elements(v);
  int n = 0;
  while (c.Next(&e)) EXPECT_EQ(e.ToValue().i64, n++ * 100 - 200);
  EXPECT_EQ(n, 5);
  EXPECT_TRUE(c.ok());
}

TEST(CursorTest, ArrayOfStringsAndArray32) {
  // array32 of str8 ["ab", "c"]
  const ByteVector a = B({0xf0, 0, 0, 0, 10, 0, 0, 0, 2, 0xa1, 2, 'a', 'b', 1, 'c'});
  EncodedValue v = ReadOne(a);
  EXPECT_EQ(v.element_format_code(), code::kStr8);
  EncodedValue e;
  ASSERT_TRUE(v.ElementAt(1, &e));
  EXPECT_EQ(e.ToValue().bytes(), "c");
  EXPECT_EQ(e.ToValue().type, ValueType::kString);
}

TEST(CursorTest, ArrayWithDescribedElementConstructor) {
  // Hand-written: array8, 2 elements, constructor 0x00 sym8 "d" ubyte; elements 7, 9.
  const ByteVector a = B({0xe0, 0x08, 0x02, 0x00, 0xa3, 0x01, 'd', 0x50, 0x07, 0x09});
  EncodedValue v = ReadOne(a);
  EXPECT_TRUE(v.element_described());
  EXPECT_EQ(v.element_format_code(), code::kUByte);
  EncodedValue e;
  ASSERT_TRUE(v.ElementAt(1, &e));
  EXPECT_TRUE(e.is_described());
  EXPECT_EQ(e.ToValue().type, ValueType::kDescribed);
  EXPECT_EQ(e.WithoutDescriptor().ToValue().u64, 9u);
  EncodedValue desc;
  ASSERT_TRUE(e.Descriptor(&desc));
  EXPECT_EQ(desc.ToValue().bytes(), "d");
  // Proton writes the same shape.
  testing::ProtonData d;
  pn_data_put_array(d.get(), true, PN_UBYTE);
  pn_data_enter(d.get());
  pn_data_put_symbol(d.get(), testing::PnBytes("d"));
  pn_data_put_ubyte(d.get(), 7);
  pn_data_put_ubyte(d.get(), 9);
  pn_data_exit(d.get());
  const ByteVector p = d.Encode();
  v = ReadOne(p);
  ASSERT_TRUE(v.ElementAt(1, &e));
  EXPECT_EQ(e.WithoutDescriptor().ToValue().u64, 9u);
}

TEST(CursorTest, DescribedWithULongAndSymbolDescriptors) {
  // 0x00 smallulong 0x70 list0
  EncodedValue v = ReadOne(B({0x00, 0x53, 0x70, 0x45}));
  EXPECT_TRUE(v.is_described());
  EXPECT_TRUE(v.is_list());  // format_code() is the described value's
  EXPECT_EQ(v.ToValue().type, ValueType::kDescribed);
  EncodedValue d;
  ASSERT_TRUE(v.Descriptor(&d));
  EXPECT_EQ(d.ToValue().u64, 0x70u);
  EXPECT_FALSE(v.WithoutDescriptor().is_described());
  // 0x00 ulong 0x77 str8 "x"
  v = ReadOne(B({0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x77, 0xa1, 1, 'x'}));
  ASSERT_TRUE(v.Descriptor(&d));
  EXPECT_EQ(d.ToValue().u64, 0x77u);
  EXPECT_EQ(v.WithoutDescriptor().ToValue().bytes(), "x");
  // symbol descriptor
  v = ReadOne(Cat({B({0x00}), testing::Sym8("amqp:data:binary"), B({0xa0, 2, 1, 2})}));
  ASSERT_TRUE(v.Descriptor(&d));
  EXPECT_EQ(d.ToValue().bytes(), "amqp:data:binary");
  EXPECT_EQ(v.WithoutDescriptor().ToValue().type, ValueType::kBinary);
  // Two descriptors: dropping one leaves a described value.
  v = ReadOne(B({0x00, 0x53, 0x01, 0x00, 0x53, 0x02, 0x41}));
  const EncodedValue inner = v.WithoutDescriptor();
  EXPECT_TRUE(inner.is_described());
  ASSERT_TRUE(inner.Descriptor(&d));
  EXPECT_EQ(d.ToValue().u64, 2u);
  EXPECT_FALSE(inner.WithoutDescriptor().is_described());
  EXPECT_TRUE(inner.WithoutDescriptor().ToValue().boolean);
}

TEST(CursorTest, CompoundsAreSkippedWithoutReadingTheirElements) {
  // A list8 whose elements are garbage is still skipped cleanly by its size.
  const ByteVector bytes = B({0xc0, 0x03, 0x02, 0xff, 0xff, 0x52, 0x05});
  Cursor c(bytes);
  EncodedValue v;
  ASSERT_TRUE(c.Next(&v));
  EXPECT_TRUE(v.is_list());
  ASSERT_TRUE(c.Next(&v));
  EXPECT_EQ(v.ToValue().u64, 5u);
  EXPECT_TRUE(c.done());
}

TEST(CursorTest, PathSteps) {
  // {"a": [10, {"b": "deep"}]}
  const ByteVector inner_map = testing::Map8(2, Cat({testing::Str8("b"), testing::Str8("deep")}));
  const ByteVector list = testing::List8(2, Cat({B({0x52, 10}), inner_map}));
  const ByteVector outer = testing::Map8(2, Cat({testing::Str8("a"), list}));
  EncodedValue v = ReadOne(outer);
  EncodedValue a, b, c;
  ASSERT_TRUE(v.FindKey("a", &a));
  ASSERT_TRUE(a.ElementAt(1, &b));
  ASSERT_TRUE(b.FindKey("b", &c));
  EXPECT_EQ(c.ToValue().bytes(), "deep");
  EXPECT_FALSE(c.FindKey("b", &a));  // a string has no keys
  EXPECT_FALSE(a.ElementAt(5, &b));
}

TEST(CursorTest, SkipValueAndSkipPlainValue) {
  const ByteVector b = Cat({B({0x80, 0, 0, 0, 0, 0, 0, 0, 1}), testing::Str8("abc"),
                            B({0xd0, 0, 0, 0, 5, 0, 0, 0, 1, 0x41}), B({0x00, 0x53, 0x01, 0x45})});
  const uint8_t* p = b.data();
  const uint8_t* end = b.data() + b.size();
  p = SkipPlainValue(p, end);
  ASSERT_EQ(p, b.data() + 9);
  p = SkipPlainValue(p, end);
  ASSERT_EQ(p, b.data() + 14);
  p = SkipPlainValue(p, end);
  ASSERT_EQ(p, b.data() + 24);
  EXPECT_EQ(SkipPlainValue(p, end), nullptr);  // described: the long way
  DecodeError e;
  EXPECT_EQ(SkipValue(b.data(), p, end, &e), end);
  EXPECT_EQ(SkipPlainValue(b.data(), b.data() + 8), nullptr);  // truncated ulong
  EXPECT_EQ(SkipValue(b.data(), b.data(), b.data() + 8, &e), nullptr);
  EXPECT_EQ(e.Message(), "byte 0: ulong needs 8 bytes, only 7 left");
  const ByteVector bad = B({0x57});
  EXPECT_EQ(SkipValue(bad.data(), bad.data(), bad.data() + 1, &e), nullptr);
  EXPECT_EQ(e.Message(), "byte 0: 0x57 is not an AMQP 1.0 format code");
}

TEST(CursorTest, FindKeyInMapWithoutMaterialisingTheMap) {
  const ByteVector m8 = testing::Map8(4, Cat({testing::Str8("a"), B({0x52, 1}), testing::Sym8("b"), B({0x52, 2})}));
  EncodedValue v;
  DecodeError e;
  ASSERT_TRUE(FindKeyInMap(m8.data(), m8.data(), m8.data() + m8.size(), "b", &v, &e));
  EXPECT_EQ(v.ToValue().u64, 2u);
  EXPECT_FALSE(FindKeyInMap(m8.data(), m8.data(), m8.data() + m8.size(), "c", &v, &e));
  EXPECT_TRUE(e.ok());
  const ByteVector m32 = B({0xd1, 0, 0, 0, 8, 0, 0, 0, 2, 0xa1, 1, 'a', 0x41});
  ASSERT_TRUE(FindKeyInMap(m32.data(), m32.data(), m32.data() + m32.size(), "a", &v, &e));
  EXPECT_TRUE(v.ToValue().boolean);
  // A map8 whose second key is cut short: the lookup that reaches it reports where.
  const ByteVector cut = B({0xc1, 0x07, 0x04, 0xa1, 1, 'a', 0x52, 1, 0xa1});
  EXPECT_FALSE(FindKeyInMap(cut.data(), cut.data(), cut.data() + cut.size(), "z", &v, &e));
  EXPECT_EQ(e.Message(), "byte 8: str8 needs 1 bytes, only 0 left");
  EXPECT_FALSE(FindKeyInMap(m8.data(), m8.data() + 3, m8.data() + m8.size(), "a", &v, &e));
}

// ---- Errors of the value reader ----

TEST(CursorErrorTest, InvalidFormatCode) {
  const DecodeError e = ReadError(B({0x57}));
  EXPECT_EQ(e.code, DecodeErrorCode::kInvalidFormatCode);
  EXPECT_EQ(e.Message(), "byte 0: 0x57 is not an AMQP 1.0 format code");
}

TEST(CursorErrorTest, TruncatedFixedWidth) {
  const DecodeError e = ReadError(B({0x80, 1, 2, 3}));
  EXPECT_EQ(e.code, DecodeErrorCode::kTruncated);
  EXPECT_EQ(e.Message(), "byte 0: ulong needs 8 bytes, only 3 left");
}

TEST(CursorErrorTest, EmptyInputHasNoConstructor) {
  const ByteVector empty = B({0x41});
  EncodedValue v;
  DecodeError e;
  EXPECT_EQ(ReadValue(empty.data(), empty.data(), empty.data(), &v, &e), nullptr);
  EXPECT_EQ(e.Message(), "byte 0: constructor needs 1 bytes, only 0 left");
}

TEST(CursorErrorTest, LengthExceedsBytesLeft) {
  ByteVector b = B({0x40, 0x40, 0xa1, 200});
  b.resize(b.size() + 31, 'x');
  EncodedValue v;
  DecodeError e;
  EXPECT_EQ(ReadValue(b.data(), b.data() + 2, b.data() + b.size(), &v, &e), nullptr);
  EXPECT_EQ(e.Message(), "byte 2: str8 length 200 exceeds the 31 bytes left");
}

TEST(CursorErrorTest, TruncatedSizePrefix) {
  const DecodeError e = ReadError(B({0xb0, 0, 0}));
  EXPECT_EQ(e.code, DecodeErrorCode::kTruncated);
  EXPECT_EQ(e.Message(), "byte 0: vbin32 needs 4 bytes, only 2 left");
}

TEST(CursorErrorTest, CompoundSizeExceeds) {
  const DecodeError e = ReadError(B({0xd0, 0, 0, 1, 0, 0, 0, 0, 1, 0x40}));
  EXPECT_EQ(e.code, DecodeErrorCode::kLengthExceeds);
  EXPECT_EQ(e.Message(), "byte 0: list32 size 256 exceeds the 5 bytes left");
}

TEST(CursorErrorTest, CompoundWithoutRoomForItsCount) {
  const DecodeError e = ReadError(B({0xc0, 0x00}));
  EXPECT_EQ(e.code, DecodeErrorCode::kTruncated);
  EXPECT_EQ(e.Message(), "byte 0: count needs 1 bytes, only 0 left");
}

TEST(CursorErrorTest, CountExceedsSize) {
  const DecodeError e = ReadError(B({0xc0, 0x02, 0x05, 0x40}));
  EXPECT_EQ(e.code, DecodeErrorCode::kCountExceedsSize);
  EXPECT_EQ(e.Message(), "byte 0: list8 count 5 does not fit its size 2");
}

TEST(CursorErrorTest, OddMapCount) {
  const DecodeError e = ReadError(B({0xc1, 0x02, 0x01, 0x40}));
  EXPECT_EQ(e.code, DecodeErrorCode::kOddMapCount);
  EXPECT_EQ(e.Message(), "byte 0: map8 count 1 is odd (a map holds key/value pairs)");
}

TEST(CursorErrorTest, ArrayCountExceedsFixedWidthElements) {
  const DecodeError e = ReadError(B({0xe0, 0x06, 0x02, 0x71, 0, 0, 0, 1}));
  EXPECT_EQ(e.code, DecodeErrorCode::kCountExceedsSize);
  EXPECT_EQ(e.Message(), "byte 0: array8 count 2 does not fit its size 6");
}

TEST(CursorErrorTest, ArrayElementConstructorInvalid) {
  DecodeError e = ReadError(B({0xe0, 0x02, 0x00, 0x99}));
  EXPECT_EQ(e.code, DecodeErrorCode::kInvalidFormatCode);
  EXPECT_EQ(e.Message(), "byte 3: 0x99 is not an AMQP 1.0 format code");
  e = ReadError(B({0xe0, 0x01, 0x00}));
  EXPECT_EQ(e.Message(), "byte 3: array element constructor needs 1 bytes, only 0 left");
  e = ReadError(B({0xe0, 0x07, 0x00, 0x00, 0x53, 0x01, 0x00, 0x53, 0x02}));
  EXPECT_EQ(e.code, DecodeErrorCode::kInvalidArrayElement);
  EXPECT_EQ(e.Message(), "byte 6: array element constructor described (0x00) is not allowed");
}

TEST(CursorErrorTest, DescriptorsNestedTooDeep) {
  ByteVector b;
  for (int i = 0; i < 20; ++i) b.push_back(0x00);
  b.push_back(0x40);
  b.push_back(0x40);
  const DecodeError e = ReadError(b);
  EXPECT_EQ(e.code, DecodeErrorCode::kTooDeep);
  EXPECT_EQ(e.Message(), "byte 8: descriptors nested deeper than 8 levels");
}

TEST(CursorErrorTest, CursorStopsAtTheFirstError) {
  const ByteVector b = B({0x52, 0x01, 0x57, 0x52, 0x02});
  Cursor c(b);
  EncodedValue v;
  ASSERT_TRUE(c.Next(&v));
  EXPECT_FALSE(c.Next(&v));
  EXPECT_FALSE(c.ok());
  EXPECT_FALSE(c.done());
  EXPECT_EQ(c.error().Message(), "byte 2: 0x57 is not an AMQP 1.0 format code");
  EXPECT_FALSE(c.Next(&v));
}

TEST(CursorErrorTest, ElementErrorsReachTheCaller) {
  // A list8 of 2 whose second element is truncated.
  const ByteVector b = B({0xc0, 0x04, 0x02, 0x52, 0x01, 0x80});
  EncodedValue v = ReadOne(b);
  EncodedValue e;
  DecodeError err;
  EXPECT_FALSE(v.ElementAt(1, &e, &err));
  EXPECT_EQ(err.Message(), "byte 5: ulong needs 8 bytes, only 0 left");
}

}  // namespace
}  // namespace sift::amqp
