// Encodes a fully decoded test message (tests/selector/map_field_source.h, TestMessage) into AMQP 1.0
// bytes with Proton's C encoder (pn_data_t), so the same message can be read both through
// MapFieldSource and through engine::MessageFieldSource, and the selector's answers compared.
//
// The encoding is built section by section as described lists / maps (AMQP 1.0 core part 3 section
// 3.2: header 0x70, delivery-annotations 0x71, message-annotations 0x72, properties 0x73,
// application-properties 0x74, an amqp-value body 0x77, footer 0x78), in spec order, with only the
// sections the message has fields in. Header and properties fields go to their list positions (a
// hole is an encoded null); application-property keys are strings; annotation and footer keys are
// symbols. Every AMQP type of TestValue is encoded as that type (arrays take their first element's
// type).
//
// This is not an order generator (realistic order messages come from tools/synthetic): it encodes
// arbitrary test messages, every AMQP type in every section, including the edge cases a realistic
// generator never produces (delivery annotations, footers, decimals, uuids, nested lists, maps and
// arrays, holes in the header and properties lists). Header-only; it needs Proton, so only the tests
// under tests/engine include it.
#ifndef SIFT_TESTS_ENGINE_SELECTOR_MESSAGE_VIEW_ENCODER_H_
#define SIFT_TESTS_ENGINE_SELECTOR_MESSAGE_VIEW_ENCODER_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "selector/field_source.h"
#include "selector/value.h"
#include "tests/selector/map_field_source.h"

namespace sift::selector::testing {

inline pn_type_t ProtonTypeOf(ValueType type) {
  switch (type) {
    case ValueType::kNull: return PN_NULL;
    case ValueType::kBoolean: return PN_BOOL;
    case ValueType::kUByte: return PN_UBYTE;
    case ValueType::kUShort: return PN_USHORT;
    case ValueType::kUInt: return PN_UINT;
    case ValueType::kULong: return PN_ULONG;
    case ValueType::kByte: return PN_BYTE;
    case ValueType::kShort: return PN_SHORT;
    case ValueType::kInt: return PN_INT;
    case ValueType::kLong: return PN_LONG;
    case ValueType::kFloat: return PN_FLOAT;
    case ValueType::kDouble: return PN_DOUBLE;
    case ValueType::kDecimal32: return PN_DECIMAL32;
    case ValueType::kDecimal64: return PN_DECIMAL64;
    case ValueType::kDecimal128: return PN_DECIMAL128;
    case ValueType::kChar: return PN_CHAR;
    case ValueType::kTimestamp: return PN_TIMESTAMP;
    case ValueType::kUuid: return PN_UUID;
    case ValueType::kBinary: return PN_BINARY;
    case ValueType::kString: return PN_STRING;
    case ValueType::kSymbol: return PN_SYMBOL;
    case ValueType::kList: return PN_LIST;
    case ValueType::kMap: return PN_MAP;
    case ValueType::kArray: return PN_ARRAY;
    default: return PN_NULL;
  }
}

inline uint64_t BigEndian(const std::string& bytes) {
  uint64_t x = 0;
  for (unsigned char c : bytes) x = (x << 8) | c;
  return x;
}

// Appends `v` at the current position of `data`; false for what cannot be encoded (missing).
inline bool PutTestValue(pn_data_t* data, const TestValue& v) {
  auto bytes = [&] { return pn_bytes(v.bytes.size(), v.bytes.data()); };
  switch (v.type) {
    case ValueType::kNull: pn_data_put_null(data); return true;
    case ValueType::kBoolean: pn_data_put_bool(data, v.scalar.boolean); return true;
    case ValueType::kUByte: pn_data_put_ubyte(data, static_cast<uint8_t>(v.scalar.u64)); return true;
    case ValueType::kUShort: pn_data_put_ushort(data, static_cast<uint16_t>(v.scalar.u64)); return true;
    case ValueType::kUInt: pn_data_put_uint(data, static_cast<uint32_t>(v.scalar.u64)); return true;
    case ValueType::kULong: pn_data_put_ulong(data, v.scalar.u64); return true;
    case ValueType::kByte: pn_data_put_byte(data, static_cast<int8_t>(v.scalar.i64)); return true;
    case ValueType::kShort: pn_data_put_short(data, static_cast<int16_t>(v.scalar.i64)); return true;
    case ValueType::kInt: pn_data_put_int(data, static_cast<int32_t>(v.scalar.i64)); return true;
    case ValueType::kLong: pn_data_put_long(data, v.scalar.i64); return true;
    case ValueType::kFloat: pn_data_put_float(data, static_cast<float>(v.scalar.f64)); return true;
    case ValueType::kDouble: pn_data_put_double(data, v.scalar.f64); return true;
    case ValueType::kDecimal32:
      pn_data_put_decimal32(data, static_cast<pn_decimal32_t>(BigEndian(v.bytes)));
      return true;
    case ValueType::kDecimal64: pn_data_put_decimal64(data, BigEndian(v.bytes)); return true;
    case ValueType::kDecimal128: {
      pn_decimal128_t d;
      std::memcpy(d.bytes, v.bytes.data(), 16);
      pn_data_put_decimal128(data, d);
      return true;
    }
    case ValueType::kChar: pn_data_put_char(data, v.scalar.u32); return true;
    case ValueType::kTimestamp: pn_data_put_timestamp(data, v.scalar.i64); return true;
    case ValueType::kUuid: {
      pn_uuid_t u;
      std::memcpy(u.bytes, v.bytes.data(), 16);
      pn_data_put_uuid(data, u);
      return true;
    }
    case ValueType::kBinary: pn_data_put_binary(data, bytes()); return true;
    case ValueType::kString: pn_data_put_string(data, bytes()); return true;
    case ValueType::kSymbol: pn_data_put_symbol(data, bytes()); return true;
    case ValueType::kList:
    case ValueType::kArray: {
      if (v.type == ValueType::kList) {
        pn_data_put_list(data);
      } else {
        pn_data_put_array(data, false, v.elements.empty() ? PN_LONG : ProtonTypeOf(v.elements[0].type));
      }
      pn_data_enter(data);
      for (const TestValue& e : v.elements) {
        if (!PutTestValue(data, e)) return false;
      }
      pn_data_exit(data);
      return true;
    }
    case ValueType::kMap: {
      pn_data_put_map(data);
      pn_data_enter(data);
      for (const auto& [key, value] : v.entries) {
        if (!PutTestValue(data, key) || !PutTestValue(data, value)) return false;
      }
      pn_data_exit(data);
      return true;
    }
    default: return false;
  }
}

inline int HeaderIndex(const std::string& name) {
  static const char* kNames[] = {"durable", "priority", "ttl", "first-acquirer", "delivery-count"};
  for (int i = 0; i < 5; ++i) {
    if (name == kNames[i]) return i;
  }
  return -1;
}

inline int PropertiesIndex(const std::string& name) {
  static const char* kNames[] = {"message-id",       "user-id",          "to",
                                 "subject",          "reply-to",         "correlation-id",
                                 "content-type",     "content-encoding", "absolute-expiry-time",
                                 "creation-time",    "group-id",         "group-sequence",
                                 "reply-to-group-id"};
  for (int i = 0; i < 13; ++i) {
    if (name == kNames[i]) return i;
  }
  return -1;
}

// Encodes `message`; on failure returns false with *error saying which field could not be encoded.
inline bool EncodeTestMessage(const TestMessage& message, std::vector<uint8_t>* out, std::string* error) {
  const TestValue* header[5] = {};
  const TestValue* properties[13] = {};
  std::vector<std::pair<const std::string*, const TestValue*>> maps[amqp::kSectionCount];
  for (const auto& [key, value] : message.fields()) {
    const auto& [section, name] = key;
    if (section == Section::kHeader) {
      int i = HeaderIndex(name);
      if (i < 0) {
        *error = "no header field '" + name + "'";
        return false;
      }
      header[i] = &value;
    } else if (section == Section::kProperties) {
      int i = PropertiesIndex(name);
      if (i < 0) {
        *error = "no properties field '" + name + "'";
        return false;
      }
      properties[i] = &value;
    } else {
      maps[static_cast<int>(section)].emplace_back(&name, &value);
    }
  }
  pn_data_t* data = pn_data(64);
  bool ok = true;
  auto described = [&](uint64_t code) {
    pn_data_put_described(data);
    pn_data_enter(data);
    pn_data_put_ulong(data, code);
  };
  auto put_list = [&](uint64_t code, const TestValue* const* fields, int count) {
    int last = -1;
    for (int i = 0; i < count; ++i) {
      if (fields[i] != nullptr) last = i;
    }
    if (last < 0) return;
    described(code);
    pn_data_put_list(data);
    pn_data_enter(data);
    for (int i = 0; i <= last; ++i) {
      if (fields[i] == nullptr) {
        pn_data_put_null(data);
      } else if (!PutTestValue(data, *fields[i])) {
        ok = false;
      }
    }
    pn_data_exit(data);
    pn_data_exit(data);
  };
  auto put_map = [&](uint64_t code, Section section, bool symbol_keys) {
    const auto& entries = maps[static_cast<int>(section)];
    if (entries.empty()) return;
    described(code);
    pn_data_put_map(data);
    pn_data_enter(data);
    for (const auto& [name, value] : entries) {
      pn_bytes_t key = pn_bytes(name->size(), name->data());
      if (symbol_keys) {
        pn_data_put_symbol(data, key);
      } else {
        pn_data_put_string(data, key);
      }
      if (!PutTestValue(data, *value)) ok = false;
    }
    pn_data_exit(data);
    pn_data_exit(data);
  };
  put_list(0x70, header, 5);
  put_map(0x71, Section::kDeliveryAnnotations, true);
  put_map(0x72, Section::kMessageAnnotations, true);
  put_list(0x73, properties, 13);
  put_map(0x74, Section::kApplicationProperties, false);
  described(0x77);  // an amqp-value body, so every message has one section at least
  pn_data_put_string(data, pn_bytes(4, "body"));
  pn_data_exit(data);
  put_map(0x78, Section::kFooter, true);
  if (!ok) {
    pn_data_free(data);
    *error = "a value of a type Proton cannot encode";
    return false;
  }
  out->resize(256);
  while (true) {
    ssize_t n = pn_data_encode(data, reinterpret_cast<char*>(out->data()), out->size());
    if (n == PN_OVERFLOW) {
      out->resize(out->size() * 2);
      continue;
    }
    if (n < 0) {
      pn_data_free(data);
      *error = "pn_data_encode failed: " + std::to_string(n);
      return false;
    }
    out->resize(static_cast<size_t>(n));
    break;
  }
  pn_data_free(data);
  return true;
}

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_ENGINE_SELECTOR_MESSAGE_VIEW_ENCODER_H_
