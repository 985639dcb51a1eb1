// Typed JSON (docs/typed-json.md) to and from AMQP 1.0 bytes: the mapping of every type, the
// message keys, byte-exact agreement with Proton's pn_message_encode, and every kind of bad input.
#include "amqp/typed_json.h"

#include <proton/codec.h>
#include <proton/message.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace sift::amqp {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Encode(const std::string& json) {
  Bytes out;
  ConversionStatus s = EncodeTypedJson(json, 1, &out);
  EXPECT_TRUE(s.ok()) << s.error() << "\n" << json;
  return out;
}

std::string EncodeError(const std::string& json, uint64_t line = 1) {
  Bytes out;
  ConversionStatus s = EncodeTypedJson(json, line, &out);
  EXPECT_FALSE(s.ok()) << json;
  EXPECT_TRUE(out.empty()) << "output left changed on error";
  return s.error();
}

std::string Decode(const Bytes& bytes) {
  std::string out;
  ConversionStatus s = DecodeToTypedJson(bytes, std::nullopt, &out);
  EXPECT_TRUE(s.ok()) << s.error();
  return out;
}

std::string DecodeError(const Bytes& bytes) {
  std::string out;
  ConversionStatus s = DecodeToTypedJson(bytes, std::nullopt, &out);
  EXPECT_FALSE(s.ok()) << out;
  return s.error();
}

// The JSON a body value comes back as after encoding.
std::string BodyValue(const std::string& value_json) {
  std::string out = Decode(Encode(R"({"body": {"value": )" + value_json + "}}"));
  std::string prefix = R"({"body":{"value":)";
  EXPECT_EQ(out.rfind(prefix, 0), 0u) << out;
  return out.substr(prefix.size(), out.size() - prefix.size() - 2);
}

// The Proton type of the amqp-value body encoded from `value_json`.
pn_type_t BodyType(const std::string& value_json) {
  Bytes bytes = Encode(R"({"body": {"value": )" + value_json + "}}");
  pn_message_t* m = pn_message();
  EXPECT_EQ(pn_message_decode(m, reinterpret_cast<const char*>(bytes.data()), bytes.size()), 0);
  pn_data_t* body = pn_message_body(m);
  pn_data_rewind(body);
  pn_data_next(body);
  pn_type_t type = pn_data_type(body);
  pn_message_free(m);
  return type;
}

Bytes ProtonEncode(pn_message_t* m) {
  Bytes out(1 << 16);
  size_t size = out.size();
  EXPECT_EQ(pn_message_encode(m, reinterpret_cast<char*>(out.data()), &size), 0);
  out.resize(size);
  return out;
}

Bytes Hex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

constexpr char kFormatsExample[] = R"({"offset": 17,
 "header": {"durable": true, "priority": 4, "ttl": 60000, "first_acquirer": false, "delivery_count": 0},
 "delivery_annotations": {},
 "message_annotations": {"x-opt-partition": 3},
 "properties": {"message_id": "order-17", "user_id": {"type": "binary", "value": "YWxpY2U="},
                "to": "orders", "subject": "created", "reply_to": null, "correlation_id": null,
                "content_type": "application/json", "content_encoding": null,
                "absolute_expiry_time": null, "creation_time": {"type": "timestamp", "value": 1764460800000},
                "group_id": null, "group_sequence": null, "reply_to_group_id": null},
 "application_properties": {"region": "eu-west", "amount": 250, "price": 19.99, "vip": true,
                            "tier": {"type": "ubyte", "value": 2}},
 "body": {"data": "eyJpZCI6MTd9"}})";

TEST(TypedJson, FormatsExampleEncodesToTheFieldsProtonReads) {
  Bytes bytes = Encode(kFormatsExample);
  pn_message_t* m = pn_message();
  ASSERT_EQ(pn_message_decode(m, reinterpret_cast<const char*>(bytes.data()), bytes.size()), 0);
  EXPECT_TRUE(pn_message_is_durable(m));
  EXPECT_EQ(pn_message_get_priority(m), 4);
  EXPECT_EQ(pn_message_get_ttl(m), 60000u);
  EXPECT_STREQ(pn_message_get_address(m), "orders");
  EXPECT_STREQ(pn_message_get_subject(m), "created");
  EXPECT_STREQ(pn_message_get_content_type(m), "application/json");
  EXPECT_EQ(pn_message_get_creation_time(m), 1764460800000);
  pn_bytes_t user = pn_message_get_user_id(m);
  EXPECT_EQ(std::string(user.start, user.size), "alice");
  pn_msgid_t id = pn_message_get_id(m);
  EXPECT_EQ(id.type, PN_STRING);
  pn_data_t* props = pn_message_properties(m);
  pn_data_rewind(props);
  ASSERT_TRUE(pn_data_next(props));
  ASSERT_EQ(pn_data_type(props), PN_MAP);
  pn_data_enter(props);
  std::vector<pn_type_t> types;
  while (pn_data_next(props)) types.push_back(pn_data_type(props));
  EXPECT_EQ(types, (std::vector<pn_type_t>{PN_STRING, PN_STRING, PN_STRING, PN_LONG, PN_STRING, PN_DOUBLE, PN_STRING,
                                           PN_BOOL, PN_STRING, PN_UBYTE}));
  pn_data_t* body = pn_message_body(m);
  pn_data_rewind(body);
  pn_data_next(body);
  ASSERT_EQ(pn_data_type(body), PN_BINARY);
  EXPECT_EQ(std::string(pn_data_get_binary(body).start, pn_data_get_binary(body).size), "{\"id\":17}");
  pn_message_free(m);
}

TEST(TypedJson, FormatsExampleDecodesWithAbsentFieldsOmitted) {
  std::string out;
  ASSERT_TRUE(DecodeToTypedJson(Encode(kFormatsExample), 17, &out).ok());
  EXPECT_EQ(out, R"({"offset":17,"header":{"durable":true,"priority":4,"ttl":60000,"first_acquirer":false,)"
                 R"("delivery_count":0},"delivery_annotations":{},"message_annotations":{"x-opt-partition":3},)"
                 R"("properties":{"message_id":"order-17","user_id":{"type":"binary","value":"YWxpY2U="},)"
                 R"("to":"orders","subject":"created","content_type":"application/json",)"
                 R"("creation_time":{"type":"timestamp","value":1764460800000}},)"
                 R"("application_properties":{"region":"eu-west","amount":250,"price":19.99,"vip":true,)"
                 R"("tier":{"type":"ubyte","value":2}},"body":{"data":"eyJpZCI6MTd9"}})");
}

TEST(TypedJson, HeaderAndPropertiesAreLaidOutAsPnMessageEncodeDoes) {
  pn_message_t* m = pn_message();
  pn_message_set_durable(m, true);
  pn_message_set_ttl(m, 1000);
  pn_message_set_subject(m, "s");
  pn_message_set_creation_time(m, 5000);
  pn_message_set_group_sequence(m, 7);
  pn_data_put_string(pn_message_body(m), pn_bytes(2, "hi"));
  Bytes expected = ProtonEncode(m);
  pn_message_free(m);
  Bytes bytes = Encode(R"({"header": {"durable": true, "ttl": 1000},
      "properties": {"subject": "s", "creation_time": 5000, "group_sequence": 7},
      "body": {"text": "hi"}})");
  EXPECT_EQ(bytes, expected);
  // And an empty header and properties are list0, as Proton writes them for a bare message.
  m = pn_message();
  expected = ProtonEncode(m);
  pn_message_free(m);
  EXPECT_EQ(Encode(R"({"header": {}, "properties": {}})"), expected);
}

TEST(TypedJson, LongPropertiesListUsesList32) {
  std::string to(300, 'a');
  Bytes bytes = Encode(R"({"properties": {"to": ")" + to + R"("}})");
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes[3], 0xd0);
  EXPECT_EQ(Decode(bytes), R"({"properties":{"to":")" + to + R"("}})");
}

TEST(TypedJson, NaturalJsonMapsToStringLongDoubleBooleanNullMapList) {
  EXPECT_EQ(BodyType(R"("s")"), PN_STRING);
  EXPECT_EQ(BodyType("1"), PN_LONG);
  EXPECT_EQ(BodyType("-1"), PN_LONG);
  EXPECT_EQ(BodyType("1.0"), PN_DOUBLE);
  EXPECT_EQ(BodyType("1e3"), PN_DOUBLE);
  EXPECT_EQ(BodyType("true"), PN_BOOL);
  EXPECT_EQ(Encode(R"({"body": {"value": null}})"), Hex("00537740"));
  EXPECT_EQ(BodyType(R"({"a": 1})"), PN_MAP);
  EXPECT_EQ(BodyType("[1, 2]"), PN_LIST);
  EXPECT_EQ(BodyValue("1.0"), "1.0");
  EXPECT_EQ(BodyValue("-0.0"), "-0.0");
  EXPECT_EQ(BodyValue("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(BodyValue("-9223372036854775808"), "-9223372036854775808");
}

TEST(TypedJson, EveryWrapperTypeRoundTrips) {
  const char* kValues[] = {
      R"({"type":"ubyte","value":255})",
      R"({"type":"ushort","value":65535})",
      R"({"type":"uint","value":4294967295})",
      R"({"type":"ulong","value":18446744073709551615})",
      R"({"type":"byte","value":-128})",
      R"({"type":"short","value":-32768})",
      R"({"type":"int","value":-2147483648})",
      R"({"type":"float","value":1.5})",
      R"({"type":"float","value":0.10000000149011612})",
      R"({"type":"float","value":"NaN"})",
      R"({"type":"float","value":"-Infinity"})",
      R"({"type":"double","value":"Infinity"})",
      R"({"type":"decimal32","value":"2200000a"})",
      R"({"type":"decimal64","value":"31c0000000000001"})",
      R"({"type":"decimal128","value":"30400000000000000000000000000001"})",
      R"({"type":"char","value":"é"})",
      R"({"type":"char","value":"😀"})",
      R"({"type":"timestamp","value":-1})",
      R"({"type":"uuid","value":"00112233-4455-6677-8899-aabbccddeeff"})",
      R"({"type":"symbol","value":"x-opt"})",
      R"({"type":"binary","value":"AAEC/w=="})",
      R"({"type":"binary","value":""})",
      R"({"type":"array","element":"int","value":[{"type":"int","value":1},{"type":"int","value":2}]})",
      R"({"type":"array","element":"string","value":[]})",
      R"({"type":"array","element":"symbol","descriptor":"x:d","value":[{"type":"symbol","value":"a"}]})",
      R"({"type":"array","element":"list","value":[[1],[]]})",
      R"({"type":"map","value":[[1,"a"],[{"type":"symbol","value":"k"},null]]})",
      R"({"type":"described","descriptor":"com.example:t","value":[1,"x"]})",
      R"({"type":"described","descriptor":18446744073709551615,"value":{"a":{"b":[]}}})",
      R"([[[]],{},{"k":[null,true,false]}])",
  };
  for (const char* value : kValues) EXPECT_EQ(BodyValue(value), value);
}

TEST(TypedJson, InputConveniencesAreNormalised) {
  EXPECT_EQ(BodyValue(R"({"type":"binary","value":"0001ff","encoding":"hex"})"), R"({"type":"binary","value":"AAH/"})");
  EXPECT_EQ(BodyValue(R"({"type":"binary","value":"AAH/","encoding":"base64"})"),
            R"({"type":"binary","value":"AAH/"})");
  EXPECT_EQ(BodyValue(R"({"type":"binary","value":"AA"})"), R"({"type":"binary","value":"AA=="})");
  EXPECT_EQ(BodyValue(R"({"type":"uuid","value":"00112233-4455-6677-8899-AABBCCDDEEFF"})"),
            R"({"type":"uuid","value":"00112233-4455-6677-8899-aabbccddeeff"})");
  // Array elements may be written plain: they take the element type.
  EXPECT_EQ(BodyValue(R"({"type":"array","element":"ubyte","value":[1,2]})"),
            R"({"type":"array","element":"ubyte","value":[{"type":"ubyte","value":1},{"type":"ubyte","value":2}]})");
  // Without "element", the first element gives the type.
  EXPECT_EQ(BodyValue(R"({"type":"array","value":["a","b"]})"),
            R"({"type":"array","element":"string","value":["a","b"]})");
  EXPECT_EQ(BodyValue(R"({"type":"long","value":5})"), "5");
  EXPECT_EQ(BodyValue(R"({"type":"double","value":5})"), "5.0");
  EXPECT_EQ(BodyValue(R"({"type":"string","value":"s"})"), R"("s")");
  EXPECT_EQ(Decode(Encode(R"({"body": {"text": "hello"}})")), R"({"body":{"value":"hello"}})");
}

// Binary input follows one base64 rule (docs/typed-json.md, "binary"): either alphabet, padding
// optional, nothing else; output is always padded standard base64.
TEST(TypedJson, BinaryInputFollowsTheOneBase64Rule) {
  EXPECT_EQ(BodyValue(R"({"type":"binary","value":"-_-_"})"), R"({"type":"binary","value":"+/+/"})");
  EXPECT_EQ(BodyValue(R"({"type":"binary","value":"+_8"})"), R"({"type":"binary","value":"+/8="})");
  EXPECT_EQ(Decode(Encode(R"({"body": {"data": "-_8="}})")), R"({"body":{"data":"+/8="}})");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "binary", "value": "AB="}}})"),
            "line 1: body.value: binary value is not valid base64 (bad padding)");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "binary", "value": "AAAAA"}}})"),
            "line 1: body.value: binary value is not valid base64 (truncated final group)");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "binary", "value": "AB=="}}})"),
            "line 1: body.value: binary value is not valid base64 (unused bits of the final group are not zero)");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "binary", "value": "AA AA"}}})"),
            "line 1: body.value: binary value is not valid base64 (character \" \" at 2)");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "binary", "value": "0g", "encoding": "hex"}}})"),
            "line 1: body.value: binary value with \"encoding\": \"hex\" must be pairs of hex digits");
}

TEST(TypedJson, MapsThatAnObjectCannotSayUseTheMapForm) {
  // Non-string keys, and string keys whose object would read as a wrapper.
  EXPECT_EQ(BodyValue(R"({"type":"map","value":[[{"type":"int","value":1},2]]})"),
            R"({"type":"map","value":[[{"type":"int","value":1},2]]})");
  EXPECT_EQ(BodyValue(R"({"type":"map","value":[["type","ubyte"],["value",1]]})"),
            R"({"type":"map","value":[["type","ubyte"],["value",1]]})");
  // An object that merely has a "type" key among others is a plain map.
  EXPECT_EQ(BodyValue(R"({"type":"order","id":5})"), R"({"type":"order","id":5})");
  // Duplicate keys cannot be an object.
  EXPECT_EQ(BodyValue(R"({"type":"map","value":[["a",1],["a",2]]})"), R"({"type":"map","value":[["a",1],["a",2]]})");
  // Nor in a map of many keys (found by sorting them), with keys alike in length, head and tail, and
  // in the order they come, whichever two are equal.
  for (const auto& [first, second] : std::vector<std::pair<int, int>>{{0, 39}, {17, 18}, {3, 25}, {-1, -1}}) {
    std::string entries;
    for (int i = 0; i < 40; ++i) {
      const int k = i == second ? first : i;
      entries += fmt::format("{}[\"key-{:02d}-xxxxxxxxxxxxxxxx-{:02d}-end\",{}]", i > 0 ? "," : "", k % 7, k, i);
    }
    const std::string map = R"({"type":"map","value":[)" + entries + "]}";
    const std::string value = BodyValue(map);
    if (first < 0) {
      EXPECT_EQ(value.substr(0, 3), "{\"k") << value;  // an object, keys in their order
      EXPECT_LT(value.find("key-00-xxxxxxxxxxxxxxxx-00-end"), value.find("key-06-xxxxxxxxxxxxxxxx-39-end"));
    } else {
      EXPECT_EQ(value, map) << first << " " << second;
    }
  }
}

// Proton's pn_data_t, through which typed JSON is encoded, holds at most 65535 values and quietly
// drops the rest: a section that fills it is refused, never stored short.
TEST(TypedJson, ASectionTooLargeForProtonIsRefusedNotCut) {
  auto properties = [](int n) {
    std::string json = R"({"application_properties":{)";
    for (int i = 0; i < n; ++i) json += fmt::format("{}\"k{}\":{}", i > 0 ? "," : "", i, i);
    return json + "}}";
  };
  EXPECT_EQ(EncodeError(properties(40000)),
            "line 1: application-properties: more values than Proton can hold in one section (65535 or more)");
  EXPECT_EQ(EncodeError(properties(32766)),
            "line 1: application-properties: more values than Proton can hold in one section (65535 or more)");
  EXPECT_EQ(Decode(Encode(properties(32765))), properties(32765));  // every key kept
}

TEST(TypedJson, AnnotationKeysAreSymbolsOrUlongs) {
  Bytes bytes = Encode(R"({"message_annotations": {"x-opt-a": 1, "42": 2}})");
  // The all-digit key is a ulong 42 (smallulong 0x53 0x2a), the other a symbol.
  Bytes expected_keys = Hex("a307782d6f70742d61");
  EXPECT_NE(std::search(bytes.begin(), bytes.end(), expected_keys.begin(), expected_keys.end()), bytes.end());
  Bytes ulong_key = Hex("532a5502");
  EXPECT_NE(std::search(bytes.begin(), bytes.end(), ulong_key.begin(), ulong_key.end()), bytes.end());
  EXPECT_EQ(Decode(bytes), R"({"message_annotations":{"x-opt-a":1,"42":2}})");
  // A symbol key of digits only cannot be an object key: the map form keeps it a symbol.
  std::string digits = R"({"message_annotations":{"type":"map","value":[[{"type":"symbol","value":"7"},1]]}})";
  EXPECT_EQ(Decode(Encode(digits)), digits);
  // In application properties "type" and "value" are just keys.
  EXPECT_EQ(Decode(Encode(R"({"application_properties": {"type": "order", "value": 5}})")),
            R"({"application_properties":{"type":"order","value":5}})");
  EXPECT_EQ(Decode(Encode(R"({"footer": {"x-sig": {"type":"binary","value":"AQ=="}}})")),
            R"({"footer":{"x-sig":{"type":"binary","value":"AQ=="}}})");
}

TEST(TypedJson, FieldsHoldingOtherThanTheirSpecTypeRoundTrip) {
  // Written by other encoders: a long priority, a string content-type, a uint message id.
  std::string json = R"({"header":{"priority":{"type":"long","value":4}},)"
                     R"("properties":{"message_id":{"type":"uint","value":3},)"
                     R"("content_type":{"type":"string","value":"text/plain"},)"
                     R"("creation_time":{"type":"long","value":5}}})";
  EXPECT_EQ(Decode(Encode(json)), json);
  // Plain values take the field's spec type.
  EXPECT_EQ(Decode(Encode(R"({"properties":{"message_id":5,"creation_time":7,"group_sequence":1}})")),
            R"({"properties":{"message_id":5,"creation_time":{"type":"timestamp","value":7},)"
            R"("group_sequence":1}})");
}

TEST(TypedJson, BodyKinds) {
  EXPECT_EQ(Decode(Encode(R"({"body":{"sequence":[1,"a"]}})")), R"({"body":{"sequence":[1,"a"]}})");
  EXPECT_EQ(Decode(Encode(R"({"body":{"sequences":[[1],[2]]}})")), R"({"body":{"sequences":[[1],[2]]}})");
  EXPECT_EQ(Decode(Encode(R"({"body":{"data":["AQ==","Ag=="]}})")), R"({"body":{"data":["AQ==","Ag=="]}})");
  EXPECT_EQ(Decode(Encode(R"({"body":{"data":""}})")), R"({"body":{"data":""}})");
  EXPECT_EQ(Decode(Encode(R"({"body":{"value":null}})")), R"({"body":{"value":null}})");
  EXPECT_EQ(Decode(Encode("{}")), "{}");
  EXPECT_TRUE(Encode("{}").empty());
  EXPECT_EQ(Decode(Encode(R"({"offset": 3, "header": null})")), "{}");
}

TEST(TypedJson, DecodeWritesOffsetFirst) {
  std::string out;
  ASSERT_TRUE(DecodeToTypedJson(Encode(R"({"body":{"text":"x"}})"), 12345, &out).ok());
  EXPECT_EQ(out, R"({"offset":12345,"body":{"value":"x"}})");
}

TEST(TypedJson, InvalidUtf8IsReplaced) {
  // amqp-value str8 of the bytes 'a' 0xff.
  EXPECT_EQ(Decode(Hex("005377a10261ff")), "{\"body\":{\"value\":\"a\xEF\xBF\xBD\"}}");
}

TEST(TypedJson, NonAsciiSymbolsAreRefusedBothWays) {
  // message-annotations {sym8 "\xc3\xa9": 1}: input refuses such a symbol, so output does too.
  EXPECT_EQ(DecodeError(Hex("005372c10702a302c3a95501")),
            "byte 0: message-annotations: symbol \"é\" is not ASCII (core 1.6.21)");
  EXPECT_EQ(DecodeError(Hex("005373c00b0840404040404040"
                            "a301ff")),
            "byte 0: content_encoding: symbol \"\xEF\xBF\xBD\" is not ASCII (core 1.6.21)");
}

TEST(TypedJson, SymbolSectionDescriptorsAndFooterDecode) {
  // amqp:header:list [true] by symbol, amqp-value "x", footer {"k": 1} by ulong.
  Bytes bytes = Hex(std::string("00a310") + "616d71703a6865616465723a6c697374" + "c0020141" + "005377a10178" +
                    "005378c10602a3016b5501");
  EXPECT_EQ(Decode(bytes), R"({"header":{"durable":true},"body":{"value":"x"},"footer":{"k":1}})");
}

TEST(TypedJson, EncodeErrorsNameTheLineAndTheKeyPath) {
  EXPECT_EQ(EncodeError(R"({"bogus": 1})", 7), "line 7: unknown key \"bogus\" in the message");
  EXPECT_EQ(EncodeError(R"({"bogus": 1})", 0), "unknown key \"bogus\" in the message");
  EXPECT_EQ(EncodeError(R"({"header": {"prio": 1}})"), "line 1: header: unknown key \"prio\"");
  EXPECT_EQ(EncodeError(R"({"header": {"priority": 256}})"),
            "line 1: header.priority: 256 is out of range for ubyte (0..255)");
  EXPECT_EQ(EncodeError(R"({"header": {"ttl": -1}})"),
            "line 1: header.ttl: -1 is out of range for uint (0..4294967295)");
  EXPECT_EQ(EncodeError(R"({"header": []})"), "line 1: header: expected an object, found array");
  EXPECT_EQ(EncodeError(R"({"properties": {"user_id": {"type": "binary", "value": "%%"}}})"),
            "line 1: properties.user_id: binary value is not valid base64 (character \"%\" at 0)");
  EXPECT_EQ(EncodeError(R"({"properties": {"message_id": {"type": "uuid", "value": "x"}}})"),
            "line 1: properties.message_id: uuid value must be 8-4-4-4-12 hex digits, found \"x\"");
  EXPECT_EQ(EncodeError(R"({"application_properties": {"a": {"type": "char", "value": "ab"}}})"),
            "line 1: application_properties[\"a\"]: char value must be a one-character string, found \"ab\"");
  EXPECT_EQ(EncodeError(R"({"body": {"value": [1, {"type": "uint8", "value": 1}]}})"),
            "line 1: body.value[1]: unknown type \"uint8\" in a typed value");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "ubyte", "value": 1, "encoding": "hex"}}})"),
            "line 1: body.value: unknown key \"encoding\" in a ubyte wrapper");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "decimal32", "value": "00"}}})"),
            "line 1: body.value: decimal32 value must be 8 hex digits (the raw IEEE 754 encoding, "
            "big-endian), found \"00\"");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "float", "value": 1e300}}})"),
            "line 1: body.value: 1e+300 is out of range for float");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "symbol", "value": "é"}}})"),
            "line 1: body.value: symbol \"é\" is not ASCII (core 1.6.21)");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "array", "value": []}}})"),
            "line 1: body.value: an empty array needs \"element\" (its element type)");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "array", "element": "int", "value": [1, "a"]}}})"),
            "line 1: body.value[1]: array element is a string, but the array holds int elements");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "described", "value": 1}}})"),
            "line 1: body.value: described value needs a \"descriptor\"");
  EXPECT_EQ(EncodeError(R"({"body": {"value": {"type": "map", "value": [[1]]}}})"),
            "line 1: body.value[0]: map entry must be a [key, value] pair");
  EXPECT_EQ(EncodeError(R"({"body": {"value": 18446744073709551615}})"),
            "line 1: body.value: 18446744073709551615 is out of range for long "
            "(-9223372036854775808..9223372036854775807)");
  EXPECT_EQ(EncodeError(R"({"body": {"text": "a", "data": ""}})"),
            "line 1: body: expected exactly one of \"data\", \"value\", \"sequence\", \"sequences\", "
            "\"text\"");
  EXPECT_EQ(EncodeError(R"({"body": {"txt": "a"}})"),
            "line 1: body: unknown key \"txt\" (expected \"data\", \"value\", \"sequence\", "
            "\"sequences\" or \"text\")");
  EXPECT_EQ(EncodeError(R"({"body": {"data": 5}})"), "line 1: body.data: data must be base64 text, found number");
  EXPECT_EQ(EncodeError(R"({"body": {"text": 5}})"), "line 1: body.text: text must be a string, found number");
  EXPECT_EQ(EncodeError(R"({"message_annotations": {"99999999999999999999": 1}})"),
            "line 1: message_annotations[\"99999999999999999999\"]: an all-digit annotation key is a "
            "ulong, and this one is out of range");
  EXPECT_EQ(EncodeError(R"({"message_annotations": {"é": 1}})"),
            "line 1: message_annotations[\"é\"]: annotation key is a symbol, which must be ASCII (core "
            "1.6.21)");
  EXPECT_EQ(EncodeError(R"({"offset": -1})"), "line 1: offset: must be a non-negative integer");
  EXPECT_EQ(EncodeError(R"({"application_properties": {"a": 1, "b": {"a": 1}, "a": 2}})"),
            "line 1: key \"a\" appears twice in one JSON object");
  EXPECT_EQ(EncodeError("[1]"), "line 1: a message must be a JSON object, found array");
}

TEST(TypedJson, EncodeRejectsInvalidAndTooDeepJson) {
  std::string error = EncodeError(R"({"body": )", 4);
  EXPECT_EQ(error.rfind("line 4: invalid JSON at byte 10: ", 0), 0u) << error;
  std::string deep = R"({"body": {"value": )" + std::string(300, '[') + std::string(300, ']') + "}}";
  EXPECT_EQ(EncodeError(deep), "line 1: JSON nested deeper than 200 levels");
}

TEST(TypedJson, DecodeErrorsNameTheByte) {
  EXPECT_EQ(DecodeError(Hex("005377a105616263")), "byte 5: value runs past the end");
  EXPECT_EQ(DecodeError(Hex("005377")), "byte 3: value runs past the end");
  EXPECT_EQ(DecodeError(Hex("a10161")), "byte 0: expected a described section, found a string");
  EXPECT_EQ(DecodeError(Hex("005379a10161")), "byte 0: unknown section descriptor ulong 0x0000000000000079");
  EXPECT_EQ(DecodeError(Hex("0053734500537045")),
            "byte 4: header section after a later section (core 3.2: sections come in spec order)");
  EXPECT_EQ(DecodeError(Hex("0053704500537045")), "byte 4: second header section");
  EXPECT_EQ(DecodeError(Hex("005377a1017800537545")).rfind("byte 6: data section holds a list, expected a binary", 0),
            0u);
  EXPECT_EQ(DecodeError(Hex("005377a10178005375a000")).rfind("byte 6: data section after amqp-value section", 0), 0u);
  EXPECT_EQ(DecodeError(Hex("005370c00706414141414141")), "byte 0: header list has 6 fields, the spec defines 5");
  // A described value inside a described value, followed by more: Proton would misplace the 7.
  EXPECT_EQ(DecodeError(Hex("005377c00a02005301004455055507")),
            "byte 9: a described value inside a described value, followed by more values: Proton 0.37 "
            "decodes this wrongly, so it cannot be fully decoded");
  // ... but as the last thing in a section it is decoded.
  EXPECT_EQ(
      Decode(Hex("00537700530100445505")),
      R"({"body":{"value":{"type":"described","descriptor":1,"value":{"type":"described","descriptor":0,"value":5}}}})");
}

TEST(TypedJson, CountsBeyondTheSizeAreRefused) {
  // An array32 claiming 4294967295 null elements in 5 bytes: refused before Proton makes a node for each.
  EXPECT_EQ(DecodeError(Hex("005377f000000005ffffffff40")), "byte 3: compound count 4294967295 exceeds its size 5");
}

TEST(TypedJson, DeepNestingIsAnErrorNotACrash) {
  // 100,000 nested list8s (each claiming the rest of the bytes) inside one amqp-value.
  Bytes bytes = Hex("005377");
  const size_t depth = 100000;
  for (size_t i = 0; i < depth; ++i) {
    bytes.push_back(0xd0);
    uint32_t size = static_cast<uint32_t>((depth - i - 1) * 9 + 4);
    for (int s = 24; s >= 0; s -= 8) bytes.push_back(static_cast<uint8_t>(size >> s));
    for (int s = 24; s >= 0; s -= 8) bytes.push_back(static_cast<uint8_t>((i + 1 < depth ? 1 : 0) >> s));
  }
  std::string error = DecodeError(bytes);
  EXPECT_NE(error.find("nested deeper than 200 levels"), std::string::npos) << error;
}

TEST(TypedJson, EveryTruncationOfAValidMessageIsAnErrorOrAShorterMessage) {
  Bytes bytes = Encode(kFormatsExample);
  std::vector<size_t> boundaries;
  for (size_t n = 0; n < bytes.size(); ++n) {
    Bytes prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    std::string out;
    ConversionStatus s = DecodeToTypedJson(prefix, std::nullopt, &out);
    if (s.ok())
      boundaries.push_back(n);
    else
      EXPECT_EQ(s.error().rfind("byte ", 0), 0u) << s.error();
  }
  // Only cuts between sections decode: at 0 and after each of the six sections but the last.
  EXPECT_EQ(boundaries.size(), 6u);
}

}  // namespace
}  // namespace sift::amqp
