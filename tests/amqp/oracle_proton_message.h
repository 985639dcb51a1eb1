// Test oracle for amqp::DecodeToProton: a message decoded into pn_message_t by Qpid Proton's own
// decoder, section by section (oracle_sections.h), each piece of the message handed to Proton as its
// encoded bytes (pn_data_decode straight into the message's data objects), and the header and
// properties fields set through pn_message_t's setters from their spec types (core part 3, sections
// 3.2.1 and 3.2.4). It shares no code with amqp/, so a bug there shows up as a difference.
//
// What pn_message_t cannot hold is refused, as docs/typed-json.md ("Full decode into Proton") says:
// more fields than the spec defines, a field of the wrong type, text with a NUL (the setters take C
// strings), and a second data or amqp-sequence section. Footers go to an optional pn_data_t.
#ifndef SIFT_TESTS_AMQP_ORACLE_PROTON_MESSAGE_H_
#define SIFT_TESTS_AMQP_ORACLE_PROTON_MESSAGE_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tests/amqp/oracle_sections.h"

namespace sift::testing::oracle {

namespace proton_message_detail {

// Replaces `into`'s content by the one value encoded in `piece`, and leaves `into` on that value
// (after a described value inside a described value Proton's decoder would leave it a level deeper).
inline bool DecodePiece(std::span<const uint8_t> bytes, const Piece& piece, pn_data_t* into) {
  pn_data_clear(into);
  const ssize_t n = pn_data_decode(into, reinterpret_cast<const char*>(bytes.data() + piece.offset), piece.size);
  pn_data_rewind(into);
  pn_data_next(into);
  return n == static_cast<ssize_t>(piece.size);
}

inline bool TextOf(pn_data_t* d, std::string* out) {
  pn_bytes_t b;
  if (pn_data_type(d) == PN_STRING) {
    b = pn_data_get_string(d);
  } else if (pn_data_type(d) == PN_SYMBOL) {
    b = pn_data_get_symbol(d);
  } else {
    return false;
  }
  out->assign(b.start, b.size);
  return true;
}

// Core part 3, section 3.2.1: durable, priority, ttl, first-acquirer, delivery-count.
inline Verdict Header(const SectionPiece& s, pn_message_t* msg) {
  pn_data_t* d = s.Value();
  const size_t fields = pn_data_get_list(d);
  if (fields > 5) return Verdict::Bad("header with more than 5 fields");
  pn_data_enter(d);
  for (size_t i = 0; i < fields; ++i) {
    pn_data_next(d);
    const pn_type_t t = pn_data_type(d);
    if (t == PN_NULL) continue;
    const pn_type_t want = (i == 0 || i == 3) ? PN_BOOL : i == 1 ? PN_UBYTE : PN_UINT;
    if (t != want) return Verdict::Bad("header field " + std::to_string(i) + " of the wrong type");
    if (i == 0) pn_message_set_durable(msg, pn_data_get_bool(d));
    if (i == 1) pn_message_set_priority(msg, pn_data_get_ubyte(d));
    if (i == 2) pn_message_set_ttl(msg, pn_data_get_uint(d));
    if (i == 3) pn_message_set_first_acquirer(msg, pn_data_get_bool(d));
    if (i == 4) pn_message_set_delivery_count(msg, pn_data_get_uint(d));
  }
  return Verdict::Ok();
}

// Core part 3, section 3.2.4: message-id, user-id, to, subject, reply-to, correlation-id,
// content-type, content-encoding, absolute-expiry-time, creation-time, group-id, group-sequence,
// reply-to-group-id.
inline Verdict Properties(std::span<const uint8_t> bytes, const SectionPiece& s, pn_message_t* msg) {
  pn_data_t* d = s.Value();
  const size_t fields = pn_data_get_list(d);
  if (fields > 13) return Verdict::Bad("properties with more than 13 fields");
  if (fields != s.items.size()) return Verdict::Bad("properties list out of step with its bytes");
  pn_data_enter(d);
  std::string text;
  for (size_t i = 0; i < fields; ++i) {
    pn_data_next(d);
    const pn_type_t t = pn_data_type(d);
    if (t == PN_NULL) continue;
    const std::string field = "properties field " + std::to_string(i);
    switch (i) {
      case 0:
      case 5:  // an id of any type is kept as encoded (core 3.2.11 to 3.2.15 allow four)
        if (!DecodePiece(bytes, s.items[i], i == 0 ? pn_message_id(msg) : pn_message_correlation_id(msg))) {
          return Verdict::Bad(field + ": Proton cannot decode it");
        }
        break;
      case 1:
        if (t != PN_BINARY) return Verdict::Bad(field + " is not binary");
        pn_message_set_user_id(msg, pn_data_get_binary(d));
        break;
      case 8:
      case 9:
        if (t != PN_TIMESTAMP) return Verdict::Bad(field + " is not a timestamp");
        (i == 8 ? pn_message_set_expiry_time : pn_message_set_creation_time)(msg, pn_data_get_timestamp(d));
        break;
      case 11:
        if (t != PN_UINT) return Verdict::Bad(field + " is not a uint");
        pn_message_set_group_sequence(msg, static_cast<pn_sequence_t>(pn_data_get_uint(d)));
        break;
      default: {
        if (!TextOf(d, &text)) return Verdict::Bad(field + " is not text");
        if (text.find('\0') != std::string::npos) return Verdict::Bad(field + " holds a NUL");
        int (*set)(pn_message_t*, const char*) = i == 2    ? pn_message_set_address
                                                 : i == 3  ? pn_message_set_subject
                                                 : i == 4  ? pn_message_set_reply_to
                                                 : i == 6  ? pn_message_set_content_type
                                                 : i == 7  ? pn_message_set_content_encoding
                                                 : i == 10 ? pn_message_set_group_id
                                                           : pn_message_set_reply_to_group_id;
        set(msg, text.c_str());
        break;
      }
    }
  }
  return Verdict::Ok();
}

}  // namespace proton_message_detail

// Decodes `bytes` into `msg` (cleared first) and the footer, when one is given, into `footer`.
inline Verdict OracleDecodeToProton(std::span<const uint8_t> bytes, pn_message_t* msg, pn_data_t* footer = nullptr) {
  namespace d = proton_message_detail;
  pn_message_clear(msg);
  if (footer != nullptr) pn_data_clear(footer);
  std::vector<SectionPiece> sections;
  Verdict v = CutSections(bytes, &sections);
  if (!v.ok()) return v;
  bool body_seen = false;
  for (const SectionPiece& s : sections) {
    pn_data_t* into = nullptr;
    switch (s.kind) {
      case kHeader: v = d::Header(s, msg); break;
      case kProperties: v = d::Properties(bytes, s, msg); break;
      case kDeliveryAnnotations: into = pn_message_instructions(msg); break;
      case kMessageAnnotations: into = pn_message_annotations(msg); break;
      case kApplicationProperties: into = pn_message_properties(msg); break;
      case kData:
      case kAmqpSequence:
      case kAmqpValue:
        if (body_seen) return Verdict::Bad("a second body section, which pn_message_t cannot hold");
        body_seen = true;
        // Proton's convention: a data or amqp-sequence body is "inferred".
        pn_message_set_inferred(msg, s.kind != kAmqpValue);
        into = pn_message_body(msg);
        break;
      case kFooter: into = footer; break;
    }
    if (!v.ok()) return v;
    if (into != nullptr && !d::DecodePiece(bytes, s.value, into)) {
      return Verdict::Bad(std::string(kKindInfo[s.kind].name) + ": Proton cannot decode the value");
    }
  }
  return Verdict::Ok();
}

}  // namespace sift::testing::oracle

#endif  // SIFT_TESTS_AMQP_ORACLE_PROTON_MESSAGE_H_
