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
// OrderMessages builds realistic ~400-byte "order" messages with Proton's pn_message_t encoder, for
// the allocation test and the selector benchmark: message `index` of a seed is a pure function of
// both (SplitMix64), identical on every machine. Header-only; it needs Proton, so only the tests
// under tests/engine and bench/selector include it.
#ifndef SIFT_TESTS_ENGINE_SELECTOR_MESSAGE_VIEW_ENCODER_H_
#define SIFT_TESTS_ENGINE_SELECTOR_MESSAGE_VIEW_ENCODER_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
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
    case ValueType::kDecimal32: pn_data_put_decimal32(data, static_cast<pn_decimal32_t>(BigEndian(v.bytes))); return true;
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
  static const char* kNames[] = {"message-id", "user-id", "to", "subject", "reply-to", "correlation-id",
                                 "content-type", "content-encoding", "absolute-expiry-time",
                                 "creation-time", "group-id", "group-sequence", "reply-to-group-id"};
  for (int i = 0; i < 13; ++i) {
    if (name == kNames[i]) return i;
  }
  return -1;
}

// Encodes `message`; on failure returns false with *error saying which field could not be encoded.
inline bool EncodeTestMessage(const TestMessage& message, std::vector<uint8_t>* out, std::string* error) {
  const TestValue* header[5] = {};
  const TestValue* properties[13] = {};
  std::vector<std::pair<const std::string*, const TestValue*>> maps[6];
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


// Deterministic order messages (~400 bytes, encoded by pn_message_encode): header (durable, priority,
// ttl on "created"), message annotation x-opt-partition (int), properties (message-id
// "order-NNNNNNNN", to "orders", subject, content-type, creation-time), 8 application properties —
// region (string, skewed), color (string, 8 uniform), amount (long 1..1000), price (double),
// customer (string "cust-NNNNN"), vip (boolean, ~5%), tier (ubyte 0..3), ordered_at (timestamp) —
// and a ~200-byte JSON data body.
class OrderMessages {
 public:
  explicit OrderMessages(uint64_t seed) : seed_(seed), message_(pn_message()) {}
  ~OrderMessages() { pn_message_free(message_); }
  OrderMessages(const OrderMessages&) = delete;
  OrderMessages& operator=(const OrderMessages&) = delete;

  // Replaces *out with the encoded message number `index`; false if Proton fails to encode.
  bool Encode(uint64_t index, std::string* out) {
    static constexpr const char* kRegions[] = {"eu-west", "us-east", "eu-central", "us-west",
                                               "ap-south", "ap-northeast", "sa-east", "af-south"};
    static constexpr int kRegionWeights[] = {25, 25, 15, 12, 10, 8, 4, 1};
    static constexpr const char* kColors[] = {"red", "green", "blue", "yellow", "black", "white", "purple", "orange"};
    static constexpr const char* kSubjects[] = {"created", "paid", "shipped", "delivered", "cancelled", "refunded"};
    static constexpr int kSubjectWeights[] = {40, 25, 20, 10, 4, 1};
    uint64_t state = seed_ * 0x9E3779B97F4A7C15ull + index;
    auto next = [&state] {
      uint64_t z = (state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
    };
    auto below = [&](uint64_t n) { return next() % n; };
    auto weighted = [&](const int* weights, int count) {
      int r = static_cast<int>(below(100));
      for (int i = 0; i < count; ++i) {
        if (r < weights[i]) return i;
        r -= weights[i];
      }
      return count - 1;
    };
    const char* region = kRegions[weighted(kRegionWeights, 8)];
    const char* color = kColors[below(8)];
    const char* subject = kSubjects[weighted(kSubjectWeights, 6)];
    const int64_t amount = 1 + static_cast<int64_t>(below(1000));
    const double price = 0.5 + static_cast<double>(below(99950)) / 100.0;
    const unsigned customer = static_cast<unsigned>(below(50000));
    const bool vip = below(100) < 5;
    const uint8_t tier = static_cast<uint8_t>(below(4));
    const uint64_t p = below(100);
    const uint8_t priority = p < 70 ? 4 : p < 80 ? 9 : static_cast<uint8_t>(p % 10);
    const int64_t created = 1764460800000 + static_cast<int64_t>(index) * 10 + static_cast<int64_t>(below(10));
    const int64_t ordered_at = created - static_cast<int64_t>(below(3600000));

    pn_message_t* m = message_;
    pn_message_clear(m);
    pn_message_set_durable(m, vip || below(100) < 90);
    pn_message_set_priority(m, priority);
    if (std::strcmp(subject, "created") == 0) pn_message_set_ttl(m, 60000);
    pn_data_t* ma = pn_message_annotations(m);
    pn_data_put_map(ma);
    pn_data_enter(ma);
    pn_data_put_symbol(ma, pn_bytes(15, "x-opt-partition"));
    pn_data_put_int(ma, static_cast<int32_t>(below(8)));
    pn_data_exit(ma);
    char text[64];
    int n = std::snprintf(text, sizeof text, "order-%08" PRIu64, index);
    pn_msgid_t id;
    id.type = PN_STRING;
    id.u.as_bytes = pn_bytes(static_cast<size_t>(n), text);
    pn_message_set_id(m, id);
    pn_message_set_address(m, "orders");
    pn_message_set_subject(m, subject);
    pn_message_set_content_type(m, "application/json");
    pn_message_set_creation_time(m, created);
    pn_data_t* ap = pn_message_properties(m);
    pn_data_put_map(ap);
    pn_data_enter(ap);
    auto key = [&](const char* k) { pn_data_put_string(ap, pn_bytes(std::strlen(k), k)); };
    auto str = [&](const char* v) { pn_data_put_string(ap, pn_bytes(std::strlen(v), v)); };
    key("region");
    str(region);
    key("color");
    str(color);
    key("amount");
    pn_data_put_long(ap, amount);
    key("price");
    pn_data_put_double(ap, price);
    key("customer");
    std::snprintf(text, sizeof text, "cust-%05u", customer);
    str(text);
    key("vip");
    pn_data_put_bool(ap, vip);
    key("tier");
    pn_data_put_ubyte(ap, tier);
    key("ordered_at");
    pn_data_put_timestamp(ap, ordered_at);
    pn_data_exit(ap);
    char body[256];
    int body_size = std::snprintf(body, sizeof body,
                                  "{\"id\":%" PRIu64 ",\"customer\":\"cust-%05u\",\"region\":\"%s\",\"items\":"
                                  "[{\"sku\":\"SKU-%04u\",\"qty\":%u}],\"amount\":%" PRId64 ",\"price\":%.2f,"
                                  "\"note\":\"deterministic synthetic order for selector tests and benchmarks\"}",
                                  index, customer, region, static_cast<unsigned>(below(10000)),
                                  1 + static_cast<unsigned>(below(5)), amount, price);
    pn_data_t* b = pn_message_body(m);
    pn_data_put_binary(b, pn_bytes(static_cast<size_t>(body_size), body));
    pn_message_set_inferred(m, true);  // a binary body with inferred set is a data section
    out->resize(1024);
    size_t size = out->size();
    if (pn_message_encode(m, out->data(), &size) != 0) return false;
    out->resize(size);
    return true;
  }

 private:
  uint64_t seed_;
  pn_message_t* message_;
};

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_ENGINE_SELECTOR_MESSAGE_VIEW_ENCODER_H_
