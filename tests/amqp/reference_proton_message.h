// The full decode into pn_message_t as it was before the direct decoder (section by section through
// ProtonSections, then a node-by-node copy): kept verbatim as the reference the differential test
// compares DecodeToProton with. Header-only, since every test file is its own binary.
#ifndef SIFT_TESTS_ENGINE_AMQP_REFERENCE_PROTON_MESSAGE_H_
#define SIFT_TESTS_ENGINE_AMQP_REFERENCE_PROTON_MESSAGE_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "amqp/json_value.h"
#include "amqp/proton_message.h"
#include "amqp/proton_sections.h"

namespace sift::amqp::reference {

// Copies the value at src's current node (recursively) to dst's current position. pn_data_copy and
// pn_data_appendn copy from the start of src, not from one node, hence this.
inline bool CopyNode(pn_data_t* src, pn_data_t* dst, int depth, std::string* error) {
  if (depth > kMaxJsonDepth) {
    *error = fmt::format("values nested deeper than {} levels", kMaxJsonDepth);
    return false;
  }
  pn_type_t type = pn_data_type(src);
  size_t children = 0;
  switch (type) {
    case PN_NULL: pn_data_put_null(dst); return true;
    case PN_BOOL: pn_data_put_bool(dst, pn_data_get_bool(src)); return true;
    case PN_UBYTE: pn_data_put_ubyte(dst, pn_data_get_ubyte(src)); return true;
    case PN_BYTE: pn_data_put_byte(dst, pn_data_get_byte(src)); return true;
    case PN_USHORT: pn_data_put_ushort(dst, pn_data_get_ushort(src)); return true;
    case PN_SHORT: pn_data_put_short(dst, pn_data_get_short(src)); return true;
    case PN_UINT: pn_data_put_uint(dst, pn_data_get_uint(src)); return true;
    case PN_INT: pn_data_put_int(dst, pn_data_get_int(src)); return true;
    case PN_CHAR: pn_data_put_char(dst, pn_data_get_char(src)); return true;
    case PN_ULONG: pn_data_put_ulong(dst, pn_data_get_ulong(src)); return true;
    case PN_LONG: pn_data_put_long(dst, pn_data_get_long(src)); return true;
    case PN_TIMESTAMP: pn_data_put_timestamp(dst, pn_data_get_timestamp(src)); return true;
    case PN_FLOAT: pn_data_put_float(dst, pn_data_get_float(src)); return true;
    case PN_DOUBLE: pn_data_put_double(dst, pn_data_get_double(src)); return true;
    case PN_DECIMAL32: pn_data_put_decimal32(dst, pn_data_get_decimal32(src)); return true;
    case PN_DECIMAL64: pn_data_put_decimal64(dst, pn_data_get_decimal64(src)); return true;
    case PN_DECIMAL128: pn_data_put_decimal128(dst, pn_data_get_decimal128(src)); return true;
    case PN_UUID: pn_data_put_uuid(dst, pn_data_get_uuid(src)); return true;
    case PN_BINARY: pn_data_put_binary(dst, pn_data_get_binary(src)); return true;
    case PN_STRING: pn_data_put_string(dst, pn_data_get_string(src)); return true;
    case PN_SYMBOL: pn_data_put_symbol(dst, pn_data_get_symbol(src)); return true;
    case PN_LIST:
      children = pn_data_get_list(src);
      pn_data_put_list(dst);
      break;
    case PN_MAP:
      children = pn_data_get_map(src);
      pn_data_put_map(dst);
      break;
    case PN_ARRAY:
      children = pn_data_get_array(src) + (pn_data_is_array_described(src) ? 1 : 0);
      pn_data_put_array(dst, pn_data_is_array_described(src), pn_data_get_array_type(src));
      break;
    case PN_DESCRIBED:
      children = 2;
      pn_data_put_described(dst);
      break;
    default: *error = fmt::format("value of unknown type {}", static_cast<int>(type)); return false;
  }
  pn_data_enter(src);
  pn_data_enter(dst);
  for (size_t i = 0; i < children; ++i) {
    pn_data_next(src);
    if (!CopyNode(src, dst, depth + 1, error)) return false;
  }
  pn_data_exit(src);
  pn_data_exit(dst);
  return true;
}

class SectionDecoder {
 public:
  SectionDecoder(const ProtonSection& section, std::string* error) : section_(section), error_(error) {}

  bool Fail(std::string_view field, std::string_view why) {
    *error_ = fmt::format("byte {}: {}{}{}: {}", section_.offset, ProtonSectionName(section_.kind),
                          field.empty() ? "" : " ", field, why);
    return false;
  }

  bool WrongType(std::string_view field, pn_data_t* data, std::string_view expected) {
    return Fail(field, fmt::format("has type {}, expected {}", JsonTypeName(pn_data_type(data)), expected));
  }

  // A string or symbol field as a C string (pn_message_t's setters take NUL-terminated text).
  bool Text(std::string_view field, pn_data_t* data, std::string* out) {
    pn_bytes_t b;
    if (pn_data_type(data) == PN_STRING) {
      b = pn_data_get_string(data);
    } else if (pn_data_type(data) == PN_SYMBOL) {
      b = pn_data_get_symbol(data);
    } else {
      return WrongType(field, data, "a string");
    }
    out->assign(b.start, b.size);
    if (out->find('\0') != std::string::npos) {
      return Fail(field, "holds a NUL character, which pn_message_t cannot keep");
    }
    return true;
  }

  bool Copy(pn_data_t* src, pn_data_t* dst) {
    pn_data_clear(dst);
    std::string why;
    if (!CopyNode(src, dst, 0, &why)) return Fail("", why);
    return true;
  }

 private:
  const ProtonSection& section_;
  std::string* error_;
};

// core part 3, section 3.2.1.
inline bool DecodeHeader(const ProtonSection& section, pn_message_t* msg, std::string* error) {
  SectionDecoder d(section, error);
  pn_data_t* data = section.Value();
  size_t count = pn_data_get_list(data);
  if (count > 5) return d.Fail("", fmt::format("list has {} fields, the spec defines 5", count));
  pn_data_enter(data);
  static constexpr std::string_view kNames[] = {"durable", "priority", "ttl", "first-acquirer", "delivery-count"};
  for (size_t i = 0; i < count; ++i) {
    pn_data_next(data);
    pn_type_t type = pn_data_type(data);
    if (type == PN_NULL) continue;
    switch (i) {
      case 0:
      case 3:
        if (type != PN_BOOL) return d.WrongType(kNames[i], data, "a boolean");
        if (i == 0) {
          pn_message_set_durable(msg, pn_data_get_bool(data));
        } else {
          pn_message_set_first_acquirer(msg, pn_data_get_bool(data));
        }
        break;
      case 1:
        if (type != PN_UBYTE) return d.WrongType(kNames[i], data, "a ubyte");
        pn_message_set_priority(msg, pn_data_get_ubyte(data));
        break;
      default:
        if (type != PN_UINT) return d.WrongType(kNames[i], data, "a uint");
        if (i == 2) {
          pn_message_set_ttl(msg, pn_data_get_uint(data));
        } else {
          pn_message_set_delivery_count(msg, pn_data_get_uint(data));
        }
        break;
    }
  }
  return true;
}

// core part 3, section 3.2.4.
inline bool DecodeProperties(const ProtonSection& section, pn_message_t* msg, std::string* error) {
  SectionDecoder d(section, error);
  pn_data_t* data = section.Value();
  size_t count = pn_data_get_list(data);
  if (count > 13) return d.Fail("", fmt::format("list has {} fields, the spec defines 13", count));
  pn_data_enter(data);
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    pn_data_next(data);
    pn_type_t type = pn_data_type(data);
    if (type == PN_NULL) continue;
    switch (i) {
      case 0:  // message-id: any type is kept as it is (core 3.2.11 - 3.2.15 allow four)
        if (!d.Copy(data, pn_message_id(msg))) return false;
        break;
      case 5:  // correlation-id
        if (!d.Copy(data, pn_message_correlation_id(msg))) return false;
        break;
      case 1:
        if (type != PN_BINARY) return d.WrongType("user-id", data, "a binary");
        pn_message_set_user_id(msg, pn_data_get_binary(data));
        break;
      case 2:
        if (!d.Text("to", data, &text)) return false;
        pn_message_set_address(msg, text.c_str());
        break;
      case 3:
        if (!d.Text("subject", data, &text)) return false;
        pn_message_set_subject(msg, text.c_str());
        break;
      case 4:
        if (!d.Text("reply-to", data, &text)) return false;
        pn_message_set_reply_to(msg, text.c_str());
        break;
      case 6:
        if (!d.Text("content-type", data, &text)) return false;
        pn_message_set_content_type(msg, text.c_str());
        break;
      case 7:
        if (!d.Text("content-encoding", data, &text)) return false;
        pn_message_set_content_encoding(msg, text.c_str());
        break;
      case 8:
        if (type != PN_TIMESTAMP) return d.WrongType("absolute-expiry-time", data, "a timestamp");
        pn_message_set_expiry_time(msg, pn_data_get_timestamp(data));
        break;
      case 9:
        if (type != PN_TIMESTAMP) return d.WrongType("creation-time", data, "a timestamp");
        pn_message_set_creation_time(msg, pn_data_get_timestamp(data));
        break;
      case 10:
        if (!d.Text("group-id", data, &text)) return false;
        pn_message_set_group_id(msg, text.c_str());
        break;
      case 11:
        if (type != PN_UINT) return d.WrongType("group-sequence", data, "a uint");
        // pn_sequence_t is signed; Proton writes it back as the same 32 bits of a uint.
        pn_message_set_group_sequence(msg, static_cast<pn_sequence_t>(pn_data_get_uint(data)));
        break;
      case 12:
        if (!d.Text("reply-to-group-id", data, &text)) return false;
        pn_message_set_reply_to_group_id(msg, text.c_str());
        break;
    }
  }
  return true;
}

inline bool Decode(std::span<const uint8_t> bytes, pn_message_t* msg, pn_data_t* footer, std::string* error) {
  pn_message_clear(msg);
  if (footer != nullptr) pn_data_clear(footer);
  ProtonSections sections;
  if (!sections.Split(bytes, error)) return false;
  for (const ProtonSection& section : sections.sections()) {
    SectionDecoder d(section, error);
    switch (section.kind) {
      case ProtonSectionKind::kHeader:
        if (!DecodeHeader(section, msg, error)) return false;
        break;
      case ProtonSectionKind::kProperties:
        if (!DecodeProperties(section, msg, error)) return false;
        break;
      case ProtonSectionKind::kDeliveryAnnotations:
        if (!d.Copy(section.Value(), pn_message_instructions(msg))) return false;
        break;
      case ProtonSectionKind::kMessageAnnotations:
        if (!d.Copy(section.Value(), pn_message_annotations(msg))) return false;
        break;
      case ProtonSectionKind::kApplicationProperties:
        if (!d.Copy(section.Value(), pn_message_properties(msg))) return false;
        break;
      case ProtonSectionKind::kData:
      case ProtonSectionKind::kAmqpSequence:
        if (&section != sections.Find(section.kind)) {
          return d.Fail("", "a second body section of this kind, which pn_message_t cannot hold");
        }
        // Proton's convention: a data or amqp-sequence body is "inferred" (core 3.2.6, 3.2.7).
        pn_message_set_inferred(msg, true);
        if (!d.Copy(section.Value(), pn_message_body(msg))) return false;
        break;
      case ProtonSectionKind::kAmqpValue:
        pn_message_set_inferred(msg, false);
        if (!d.Copy(section.Value(), pn_message_body(msg))) return false;
        break;
      case ProtonSectionKind::kFooter:
        if (footer != nullptr && !d.Copy(section.Value(), footer)) return false;
        break;
    }
  }
  return true;
}

inline ConversionStatus ReferenceDecodeToProton(std::span<const uint8_t> bytes, pn_message_t* out,
                                                pn_data_t* footer = nullptr) {
  try {
    std::string error;
    if (!Decode(bytes, out, footer, &error)) return ConversionStatus::Error(error);
    return ConversionStatus::Ok();
  } catch (const std::exception& e) {
    return ConversionStatus::Error(fmt::format("cannot decode the message: {}", e.what()));
  }
}

}  // namespace sift::amqp::reference

#endif  // SIFT_TESTS_ENGINE_AMQP_REFERENCE_PROTON_MESSAGE_H_
