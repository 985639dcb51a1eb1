// Full decode into pn_message_t: every section and field lands where Proton keeps it, the forms
// pn_message_decode mishandles (symbol descriptors, footers, wrong types, repeated sections) are
// decoded or refused with a reason, and a reused message carries nothing over.
#include "amqp/proton_message.h"

#include <proton/codec.h>
#include <proton/message.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace sift::amqp {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Hex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string HexOf(const std::string& text) {
  std::string out;
  char buf[3];
  for (unsigned char c : text) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

// str8 / sym8 encodings of short text.
std::string Str8(const std::string& s) {
  char n[3];
  std::snprintf(n, sizeof n, "%02x", static_cast<unsigned>(s.size()));
  return "a1" + std::string(n) + HexOf(s);
}
std::string Sym8(const std::string& s) {
  char n[3];
  std::snprintf(n, sizeof n, "%02x", static_cast<unsigned>(s.size()));
  return "a3" + std::string(n) + HexOf(s);
}

Bytes ProtonEncode(pn_message_t* m) {
  Bytes out(1 << 16);
  size_t size = out.size();
  EXPECT_EQ(pn_message_encode(m, reinterpret_cast<char*>(out.data()), &size), 0);
  out.resize(size);
  return out;
}

class ProtonMessageTest : public ::testing::Test {
 protected:
  void SetUp() override { msg_ = pn_message(); }
  void TearDown() override { pn_message_free(msg_); }

  std::string Error(const Bytes& bytes) {
    ConversionStatus s = DecodeToProton(bytes, msg_);
    EXPECT_FALSE(s.ok());
    return s.error();
  }

  pn_message_t* msg_ = nullptr;
};

TEST_F(ProtonMessageTest, EveryFieldOfAProtonEncodedMessageComesBack) {
  pn_message_t* src = pn_message();
  pn_message_set_durable(src, true);
  pn_message_set_priority(src, 9);
  pn_message_set_ttl(src, 60000);
  pn_message_set_first_acquirer(src, true);
  pn_message_set_delivery_count(src, 3);
  pn_data_put_ulong(pn_message_id(src), 17);
  pn_message_set_user_id(src, pn_bytes(5, "alice"));
  pn_message_set_address(src, "orders");
  pn_message_set_subject(src, "created");
  pn_message_set_reply_to(src, "replies");
  pn_data_put_string(pn_message_correlation_id(src), pn_bytes(3, "c-1"));
  pn_message_set_content_type(src, "application/json");
  pn_message_set_content_encoding(src, "gzip");
  pn_message_set_expiry_time(src, 1764460900000);
  pn_message_set_creation_time(src, 1764460800000);
  pn_message_set_group_id(src, "g");
  pn_message_set_group_sequence(src, 5);
  pn_message_set_reply_to_group_id(src, "rg");
  pn_data_t* da = pn_message_instructions(src);
  pn_data_put_map(da);
  pn_data_enter(da);
  pn_data_put_symbol(da, pn_bytes(5, "x-opt"));
  pn_data_put_int(da, -1);
  pn_data_exit(da);
  pn_data_t* ma = pn_message_annotations(src);
  pn_data_put_map(ma);
  pn_data_enter(ma);
  pn_data_put_ulong(ma, 42);
  pn_data_put_string(ma, pn_bytes(1, "v"));
  pn_data_exit(ma);
  pn_data_t* ap = pn_message_properties(src);
  pn_data_put_map(ap);
  pn_data_enter(ap);
  pn_data_put_string(ap, pn_bytes(6, "region"));
  pn_data_put_string(ap, pn_bytes(7, "eu-west"));
  pn_data_exit(ap);
  pn_message_set_inferred(src, true);
  pn_data_put_binary(pn_message_body(src), pn_bytes(3, "abc"));
  Bytes bytes = ProtonEncode(src);
  pn_message_free(src);

  ASSERT_TRUE(DecodeToProton(bytes, msg_).ok());
  EXPECT_TRUE(pn_message_is_durable(msg_));
  EXPECT_EQ(pn_message_get_priority(msg_), 9);
  EXPECT_EQ(pn_message_get_ttl(msg_), 60000u);
  EXPECT_TRUE(pn_message_is_first_acquirer(msg_));
  EXPECT_EQ(pn_message_get_delivery_count(msg_), 3u);
  pn_msgid_t id = pn_message_get_id(msg_);
  EXPECT_EQ(id.type, PN_ULONG);
  EXPECT_EQ(id.u.as_ulong, 17u);
  pn_bytes_t user = pn_message_get_user_id(msg_);
  EXPECT_EQ(std::string(user.start, user.size), "alice");
  EXPECT_STREQ(pn_message_get_address(msg_), "orders");
  EXPECT_STREQ(pn_message_get_subject(msg_), "created");
  EXPECT_STREQ(pn_message_get_reply_to(msg_), "replies");
  EXPECT_EQ(pn_message_get_correlation_id(msg_).type, PN_STRING);
  EXPECT_STREQ(pn_message_get_content_type(msg_), "application/json");
  EXPECT_STREQ(pn_message_get_content_encoding(msg_), "gzip");
  EXPECT_EQ(pn_message_get_expiry_time(msg_), 1764460900000);
  EXPECT_EQ(pn_message_get_creation_time(msg_), 1764460800000);
  EXPECT_STREQ(pn_message_get_group_id(msg_), "g");
  EXPECT_EQ(pn_message_get_group_sequence(msg_), 5);
  EXPECT_STREQ(pn_message_get_reply_to_group_id(msg_), "rg");
  EXPECT_TRUE(pn_message_is_inferred(msg_));
  // Everything, the three maps and the body included, encodes back to the same bytes.
  EXPECT_EQ(ProtonEncode(msg_), bytes);
}

TEST_F(ProtonMessageTest, SymbolDescriptorsAreSectionsToo) {
  // header [durable=true], properties [null, null, to="q"], application-properties {"k": 1},
  // amqp-value "x", footer {"f": true} -- every descriptor as its symbol. pn_message_decode ignores
  // all of these but the body.
  Bytes bytes =
      Hex("00" + Sym8("amqp:header:list") + "c0020141" + "00" + Sym8("amqp:properties:list") + "c00603" + "4040" +
          Str8("q") + "00" + Sym8("amqp:application-properties:map") + "c10602" + Str8("k") + "5501" + "00" +
          Sym8("amqp:amqp-value:*") + Str8("x") + "00" + Sym8("amqp:footer:map") + "c10502" + Sym8("f") + "41");
  pn_data_t* footer = pn_data(0);
  ConversionStatus s = DecodeToProton(bytes, msg_, footer);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_TRUE(pn_message_is_durable(msg_));
  EXPECT_STREQ(pn_message_get_address(msg_), "q");
  EXPECT_FALSE(pn_message_is_inferred(msg_));
  pn_data_t* ap = pn_message_properties(msg_);
  pn_data_rewind(ap);
  ASSERT_TRUE(pn_data_next(ap));
  EXPECT_EQ(pn_data_get_map(ap), 2u);
  pn_data_t* body = pn_message_body(msg_);
  pn_data_rewind(body);
  ASSERT_TRUE(pn_data_next(body));
  EXPECT_EQ(std::string(pn_data_get_string(body).start, pn_data_get_string(body).size), "x");
  pn_data_rewind(footer);
  ASSERT_TRUE(pn_data_next(footer));
  ASSERT_EQ(pn_data_type(footer), PN_MAP);
  pn_data_enter(footer);
  ASSERT_TRUE(pn_data_next(footer));
  EXPECT_EQ(std::string(pn_data_get_symbol(footer).start, pn_data_get_symbol(footer).size), "f");
  ASSERT_TRUE(pn_data_next(footer));
  EXPECT_TRUE(pn_data_get_bool(footer));
  pn_data_free(footer);
}

TEST_F(ProtonMessageTest, SequenceBodyIsInferredAndValueBodyIsNot) {
  ASSERT_TRUE(DecodeToProton(Hex("005376c003015501"), msg_).ok());
  EXPECT_TRUE(pn_message_is_inferred(msg_));
  pn_data_t* body = pn_message_body(msg_);
  pn_data_rewind(body);
  ASSERT_TRUE(pn_data_next(body));
  EXPECT_EQ(pn_data_type(body), PN_LIST);
  ASSERT_TRUE(DecodeToProton(Hex("005377c003015501"), msg_).ok());
  EXPECT_FALSE(pn_message_is_inferred(msg_));
}

TEST_F(ProtonMessageTest, AReusedMessageCarriesNothingOver) {
  // delivery-annotations {a: 1}, properties [null, null, null, subject "s"].
  Bytes with_subject = Hex("005371c10602" + Sym8("a") + "5501" + "005373c00704404040" + Str8("s"));
  ConversionStatus s = DecodeToProton(with_subject, msg_);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_STREQ(pn_message_get_subject(msg_), "s");
  ASSERT_TRUE(DecodeToProton(Hex("005377a10178"), msg_).ok());
  EXPECT_EQ(pn_message_get_subject(msg_), nullptr);
  pn_data_t* da = pn_message_instructions(msg_);
  pn_data_rewind(da);
  EXPECT_FALSE(pn_data_next(da));
}

TEST_F(ProtonMessageTest, FieldsOfTheWrongTypeAreRefused) {
  EXPECT_EQ(Error(Hex("005370c00401" + Str8("x"))), "byte 0: header durable: has type string, expected a boolean");
  EXPECT_EQ(Error(Hex("005370c00402405501")), "byte 0: header priority: has type long, expected a ubyte");
  EXPECT_EQ(Error(Hex("005370c00402405201")), "byte 0: header priority: has type uint, expected a ubyte");
  EXPECT_EQ(Error(Hex("005373c0050240" + Str8("u"))), "byte 0: properties user-id: has type string, expected a binary");
  EXPECT_EQ(Error(Hex("005373c00503404053"
                      "07")),
            "byte 0: properties to: has type ulong, expected a string");
  EXPECT_EQ(Error(Hex("005373c00e0c" + std::string(22, '0').replace(0, 22, "4040404040404040404040") + "5401")),
            "byte 0: properties group-sequence: has type int, expected a uint");
  EXPECT_EQ(Error(Hex("005373c00f0e" + std::string("4040404040404040404040404040"))),
            "byte 0: properties: list has 14 fields, the spec defines 13");
}

TEST_F(ProtonMessageTest, WhatPnMessageCannotHoldIsRefused) {
  EXPECT_EQ(Error(Hex("005375a00161005375a00162")),
            "byte 6: data: a second body section of this kind, which pn_message_t cannot hold");
  EXPECT_EQ(Error(Hex("005373c00804404040a1026100")),
            "byte 0: properties subject: holds a NUL character, which pn_message_t cannot keep");
}

TEST_F(ProtonMessageTest, MalformedMessagesAreRefusedWithTheByte) {
  EXPECT_EQ(Error(Hex("005377a10561")), "byte 5: value runs past the end");
  EXPECT_EQ(Error(Hex("00537a45")), "byte 0: unknown section descriptor ulong 0x000000000000007a");
  EXPECT_EQ(Error(Hex("00" + Sym8("amqp:nothing:list") + "45")),
            "byte 0: unknown section descriptor symbol \"amqp:nothing:list\"");
  EXPECT_EQ(Error(Hex("45")), "byte 0: expected a described section, found a list");
  EXPECT_EQ(Error(Hex("005377a10178"
                      "00537045")),
            "byte 6: header section after a later section (core 3.2: sections come in spec order)");
  EXPECT_EQ(Error(Hex("005378c10100"
                      "005378c10100")),
            "byte 6: second footer section");
  EXPECT_EQ(Error(Hex("0053705501")), "byte 0: header section holds a long, expected a list");
}

// Proton's decoder refuses a described value whose descriptor is a compound (other than the empty
// list0) or itself described; pn_message_t cannot be given such a value faithfully, so it is refused
// wherever Proton would decode it (a map or body section, message-id, correlation-id), with the byte.
TEST_F(ProtonMessageTest, DescriptorsProtonCannotHoldAreRefused) {
  // amqp-value: 0x00 (list8 [] as descriptor) true
  EXPECT_EQ(Error(Hex("00537700c0010041")),
            "byte 0: section 0: the descriptor at byte 4 is a list, which Proton's decoder refuses");
  // application-properties {"k": 0x00 (map8 {}) 1}, after a header
  EXPECT_EQ(Error(Hex("005370c0020141"
                      "005374c10a02" +
                      Str8("k") + "00c101005201")),
            "byte 7: section 1: the descriptor at byte 17 is a map, which Proton's decoder refuses");
  // message-id 0x00 (0x00 0x53 0x01 0x41) 0x41: a described descriptor
  EXPECT_EQ(Error(Hex("005373c00701000053014141")),
            "byte 0: properties: cannot decode the field at byte 6: the descriptor at byte 7 is a described, "
            "which Proton's decoder refuses");
  // An array whose element constructor is described by a list.
  EXPECT_EQ(Error(Hex("005377e0060100c0010041")),
            "byte 0: section 0: the descriptor at byte 7 is a list, which Proton's decoder refuses");
  // list0 and every scalar are descriptors Proton takes.
  ASSERT_TRUE(DecodeToProton(Hex("005377004541"), msg_).ok());
  pn_data_t* body = pn_message_body(msg_);
  pn_data_rewind(body);
  ASSERT_TRUE(pn_data_next(body));
  EXPECT_EQ(pn_data_type(body), PN_DESCRIBED);
  // Where nothing is handed to Proton (a header field), the field's type is what is refused.
  EXPECT_EQ(Error(Hex("005370c0060100c0010041")), "byte 0: header durable: has type described, expected a boolean");
}

// Elements of zero width (null, true, false, uint0, ulong0, list0) take no bytes: each is still a node.
TEST_F(ProtonMessageTest, ArraysOfZeroWidthElementsKeepEveryElement) {
  for (const char* code : {"40", "41", "42", "43", "44", "45"}) {
    SCOPED_TRACE(code);
    const ConversionStatus s = DecodeToProton(Hex(std::string("005377e00202") + code), msg_);
    ASSERT_TRUE(s.ok()) << s.error();
    pn_data_t* body = pn_message_body(msg_);
    pn_data_rewind(body);
    ASSERT_TRUE(pn_data_next(body));
    ASSERT_EQ(pn_data_type(body), PN_ARRAY);
    EXPECT_EQ(pn_data_get_array(body), 2u);
    pn_data_enter(body);
    size_t nodes = 0;
    while (pn_data_next(body)) ++nodes;
    EXPECT_EQ(nodes, 2u);
  }
}

TEST_F(ProtonMessageTest, EveryTruncationIsRefusedOrDecodesTheSectionsBeforeIt) {
  Bytes bytes =
      Hex("005370c0020141"
          "005373c00603"
          "4040" +
          Str8("q") + "005377" + Str8("hello"));
  size_t ok = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    Bytes prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    ConversionStatus s = DecodeToProton(prefix, msg_);
    if (s.ok()) {
      ++ok;
    } else {
      EXPECT_EQ(s.error().rfind("byte ", 0), 0u) << s.error();
    }
  }
  EXPECT_EQ(ok, 3u);  // cut at 0, after the header, after the properties
}

}  // namespace
}  // namespace sift::amqp
