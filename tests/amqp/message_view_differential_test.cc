// Differential test (docs/architecture.md, invariant 3): for each of the >= 10,000 seeded messages
// of generate_messages.py (python3-qpid-proton's Message, Proton's pn_data_t encoder and a
// hand-written encoder of the wide and compact forms), every field read lazily through MessageView
// equals what Qpid Proton's C decoder (pn_data_t, section by section) decodes from the same bytes:
// header fields (with their defaults), the 13 properties, every application property, every
// delivery and message annotation and footer entry (by symbol and by ulong key, as a
// amqp::Value and as a whole value compared deeply), and the body (kind, section count, each
// section's value, data bytes, body span). Types and values are compared exactly (floating point by
// bits), through one canonical rendering of each side.
#include <proton/codec.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "amqp/cursor.h"
#include "amqp/encoded_value.h"
#include "amqp/message_view.h"
#include "amqp/proton_sections.h"
#include "selector/value.h"
#include "tests/amqp/proton_test_messages.h"

namespace sift::amqp {
namespace {

using amqp::Value;
using amqp::ValueType;

constexpr uint64_t kSeed = 20261130;
constexpr uint64_t kCount = 10000;

std::string Hex(const void* data, size_t size) {
  std::string out;
  char buf[4];
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", p[i]);
    out += buf;
  }
  return out;
}

// One canonical text for a typed value: "<type>:<value>" (floating point as its bits).
std::string Render(const Value& v) {
  std::string name(amqp::ValueTypeName(v.type));
  switch (v.type) {
    case ValueType::kMissing:
    case ValueType::kNull:
    case ValueType::kList:
    case ValueType::kMap:
    case ValueType::kArray:
    case ValueType::kDescribed: return name;
    case ValueType::kBoolean: return name + ":" + (v.boolean ? "true" : "false");
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong: return name + ":" + std::to_string(v.u64);
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong:
    case ValueType::kTimestamp: return name + ":" + std::to_string(v.i64);
    case ValueType::kFloat:
    case ValueType::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.f64, 8);
      return name + ":" + std::to_string(bits);
    }
    case ValueType::kChar: return name + ":" + std::to_string(v.u32);
    default: return name + ":" + Hex(v.data, v.size);
  }
}

ValueType TypeOfCode(uint8_t code) {
  switch (code) {
    case 0x40: return ValueType::kNull;
    case 0x41:
    case 0x42:
    case 0x56: return ValueType::kBoolean;
    case 0x50: return ValueType::kUByte;
    case 0x60: return ValueType::kUShort;
    case 0x43:
    case 0x52:
    case 0x70: return ValueType::kUInt;
    case 0x44:
    case 0x53:
    case 0x80: return ValueType::kULong;
    case 0x51: return ValueType::kByte;
    case 0x61: return ValueType::kShort;
    case 0x54:
    case 0x71: return ValueType::kInt;
    case 0x55:
    case 0x81: return ValueType::kLong;
    case 0x72: return ValueType::kFloat;
    case 0x82: return ValueType::kDouble;
    case 0x74: return ValueType::kDecimal32;
    case 0x84: return ValueType::kDecimal64;
    case 0x94: return ValueType::kDecimal128;
    case 0x73: return ValueType::kChar;
    case 0x83: return ValueType::kTimestamp;
    case 0x98: return ValueType::kUuid;
    case 0xa0:
    case 0xb0: return ValueType::kBinary;
    case 0xa1:
    case 0xb1: return ValueType::kString;
    case 0xa3:
    case 0xb3: return ValueType::kSymbol;
    case 0x45:
    case 0xc0:
    case 0xd0: return ValueType::kList;
    case 0xc1:
    case 0xd1: return ValueType::kMap;
    case 0xe0:
    case 0xf0: return ValueType::kArray;
    default: return ValueType::kMissing;
  }
}

ValueType TypeOfProton(pn_type_t type) {
  switch (type) {
    case PN_NULL: return ValueType::kNull;
    case PN_BOOL: return ValueType::kBoolean;
    case PN_UBYTE: return ValueType::kUByte;
    case PN_USHORT: return ValueType::kUShort;
    case PN_UINT: return ValueType::kUInt;
    case PN_ULONG: return ValueType::kULong;
    case PN_BYTE: return ValueType::kByte;
    case PN_SHORT: return ValueType::kShort;
    case PN_INT: return ValueType::kInt;
    case PN_LONG: return ValueType::kLong;
    case PN_FLOAT: return ValueType::kFloat;
    case PN_DOUBLE: return ValueType::kDouble;
    case PN_DECIMAL32: return ValueType::kDecimal32;
    case PN_DECIMAL64: return ValueType::kDecimal64;
    case PN_DECIMAL128: return ValueType::kDecimal128;
    case PN_CHAR: return ValueType::kChar;
    case PN_TIMESTAMP: return ValueType::kTimestamp;
    case PN_UUID: return ValueType::kUuid;
    case PN_BINARY: return ValueType::kBinary;
    case PN_STRING: return ValueType::kString;
    case PN_SYMBOL: return ValueType::kSymbol;
    case PN_LIST: return ValueType::kList;
    case PN_MAP: return ValueType::kMap;
    case PN_ARRAY: return ValueType::kArray;
    case PN_DESCRIBED: return ValueType::kDescribed;
    default: return ValueType::kMissing;
  }
}

// --- the reference: Proton's decode ----------------------------------------------------------

// The Value at data's current node (scalars; compounds by type only).
std::string RenderProtonScalar(pn_data_t* d) {
  pn_type_t type = pn_data_type(d);
  ValueType vt = TypeOfProton(type);
  uint8_t buf[16];
  pn_bytes_t b;
  switch (type) {
    case PN_NULL: return Render(Value::Null());
    case PN_BOOL: return Render(Value::Boolean(pn_data_get_bool(d)));
    case PN_UBYTE: return Render(Value::Unsigned(vt, pn_data_get_ubyte(d)));
    case PN_USHORT: return Render(Value::Unsigned(vt, pn_data_get_ushort(d)));
    case PN_UINT: return Render(Value::Unsigned(vt, pn_data_get_uint(d)));
    case PN_ULONG: return Render(Value::Unsigned(vt, pn_data_get_ulong(d)));
    case PN_BYTE: return Render(Value::Signed(vt, pn_data_get_byte(d)));
    case PN_SHORT: return Render(Value::Signed(vt, pn_data_get_short(d)));
    case PN_INT: return Render(Value::Signed(vt, pn_data_get_int(d)));
    case PN_LONG: return Render(Value::Signed(vt, pn_data_get_long(d)));
    case PN_TIMESTAMP: return Render(Value::Timestamp(pn_data_get_timestamp(d)));
    case PN_FLOAT: return Render(Value::Float(pn_data_get_float(d)));
    case PN_DOUBLE: return Render(Value::Double(pn_data_get_double(d)));
    case PN_CHAR: return Render(Value::Char(pn_data_get_char(d)));
    case PN_DECIMAL32: {
      uint32_t x = pn_data_get_decimal32(d);
      for (int i = 0; i < 4; ++i) buf[i] = static_cast<uint8_t>(x >> (24 - 8 * i));
      return Render(Value::Bytes(vt, std::string_view(reinterpret_cast<char*>(buf), 4)));
    }
    case PN_DECIMAL64: {
      uint64_t x = pn_data_get_decimal64(d);
      for (int i = 0; i < 8; ++i) buf[i] = static_cast<uint8_t>(x >> (56 - 8 * i));
      return Render(Value::Bytes(vt, std::string_view(reinterpret_cast<char*>(buf), 8)));
    }
    case PN_DECIMAL128: {
      pn_decimal128_t x = pn_data_get_decimal128(d);
      return Render(Value::Bytes(vt, std::string_view(x.bytes, 16)));
    }
    case PN_UUID: {
      pn_uuid_t x = pn_data_get_uuid(d);
      return Render(Value::Bytes(vt, std::string_view(x.bytes, 16)));
    }
    case PN_BINARY: b = pn_data_get_binary(d); break;
    case PN_STRING: b = pn_data_get_string(d); break;
    case PN_SYMBOL: b = pn_data_get_symbol(d); break;
    default: return Render(Value::Compound(vt));
  }
  return Render(Value::Bytes(vt, std::string_view(b.start, b.size)));
}

// The whole value at data's current node, compounds element by element.
std::string RenderProton(pn_data_t* d) {
  switch (pn_data_type(d)) {
    case PN_DESCRIBED: {
      pn_data_enter(d);
      pn_data_next(d);
      std::string out = "described(" + RenderProton(d) + ";";
      pn_data_next(d);
      out += RenderProton(d) + ")";
      pn_data_exit(d);
      return out;
    }
    case PN_LIST: {
      size_t n = pn_data_get_list(d);
      std::string out = "list[";
      pn_data_enter(d);
      for (size_t i = 0; i < n; ++i) {
        pn_data_next(d);
        out += RenderProton(d) + ",";
      }
      pn_data_exit(d);
      return out + "]";
    }
    case PN_MAP: {
      size_t n = pn_data_get_map(d);
      std::string out = "map{";
      pn_data_enter(d);
      for (size_t i = 0; i < n; ++i) {
        pn_data_next(d);
        out += RenderProton(d) + (i % 2 == 0 ? "=" : ",");
      }
      pn_data_exit(d);
      return out + "}";
    }
    case PN_ARRAY: {
      size_t n = pn_data_get_array(d);
      bool described = pn_data_is_array_described(d);
      std::string out = "array<" + std::string(amqp::ValueTypeName(TypeOfProton(pn_data_get_array_type(d))));
      pn_data_enter(d);
      if (described) {
        pn_data_next(d);
        out += ",descriptor=" + RenderProton(d);
      }
      out += ">[";
      for (size_t i = 0; i < n; ++i) {
        pn_data_next(d);
        out += RenderProton(d) + ",";
      }
      pn_data_exit(d);
      return out + "]";
    }
    default: return RenderProtonScalar(d);
  }
}

// --- the lazy side: MessageView's EncodedValue -------------------------------------------------

std::string RenderView(const EncodedValue& v) {
  if (!v.valid()) return "invalid";
  if (v.is_described()) {
    EncodedValue descriptor;
    DecodeError error;
    if (!v.Descriptor(&descriptor, &error)) return "error:" + error.Message();
    return "described(" + RenderView(descriptor) + ";" + RenderView(v.WithoutDescriptor()) + ")";
  }
  std::string out;
  if (v.is_list() || v.is_map()) {
    out = v.is_list() ? "list[" : "map{";
    Cursor cursor = Cursor::Elements(v);
    EncodedValue e;
    for (size_t i = 0; cursor.Next(&e); ++i) {
      out += RenderView(e) + (v.is_map() && i % 2 == 0 ? "=" : ",");
    }
    if (!cursor.ok()) return "error:" + cursor.error().Message();
    return out + (v.is_list() ? "]" : "}");
  }
  if (v.is_array()) {
    out = "array<" + std::string(amqp::ValueTypeName(TypeOfCode(v.element_format_code())));
    if (v.element_described()) {
      EncodedValue descriptor;
      DecodeError error;
      const uint8_t* limit = v.raw().data() + v.raw().size();
      if (ReadValue(v.raw().data(), v.element_descriptor_data(), limit, &descriptor, &error) == nullptr) {
        return "error:" + error.Message();
      }
      out += ",descriptor=" + RenderView(descriptor);
    }
    out += ">[";
    Cursor cursor = Cursor::Elements(v);
    EncodedValue e;
    while (cursor.Next(&e)) out += RenderView(e.is_described() ? e.WithoutDescriptor() : e) + ",";
    if (!cursor.ok()) return "error:" + cursor.error().Message();
    return out + "]";
  }
  return Render(v.ToValue());
}

// --- comparing one message -----------------------------------------------------------------------

struct Comparison {
  size_t fields = 0;
  size_t mismatches = 0;
  std::vector<std::string> examples;

  void Check(size_t record, const std::string& what, const std::string& lazy, const std::string& proton) {
    ++fields;
    if (lazy == proton) return;
    ++mismatches;
    if (examples.size() < 10) {
      examples.push_back("record " + std::to_string(record) + " " + what + ":\n  MessageView: " + lazy +
                         "\n  Proton:      " + proton);
    }
  }
};

SectionKind ViewKind(ProtonSectionKind kind) { return static_cast<SectionKind>(static_cast<uint8_t>(kind) - 0x70); }

// The reference lookup MessageView documents for a text key: the first entry whose key is a string
// or symbol equal to `key`, or a ulong whose decimal text is `key`.
bool FindByText(pn_data_t* map, std::string_view key) {
  size_t n = pn_data_get_map(map);
  pn_data_enter(map);
  for (size_t i = 0; i < n; i += 2) {
    pn_data_next(map);
    bool match = false;
    if (pn_data_type(map) == PN_STRING || pn_data_type(map) == PN_SYMBOL) {
      pn_bytes_t b = pn_data_type(map) == PN_STRING ? pn_data_get_string(map) : pn_data_get_symbol(map);
      match = std::string_view(b.start, b.size) == key;
    } else if (pn_data_type(map) == PN_ULONG) {
      match = std::to_string(pn_data_get_ulong(map)) == key;
    }
    pn_data_next(map);
    if (match) return true;  // positioned on the value, one level down
  }
  pn_data_exit(map);
  return false;
}

bool FindByULong(pn_data_t* map, uint64_t key) {
  size_t n = pn_data_get_map(map);
  pn_data_enter(map);
  for (size_t i = 0; i < n; i += 2) {
    pn_data_next(map);
    bool match = pn_data_type(map) == PN_ULONG && pn_data_get_ulong(map) == key;
    pn_data_next(map);
    if (match) return true;
  }
  pn_data_exit(map);
  return false;
}

Value ViewMapValue(const MessageView& view, ProtonSectionKind kind, std::string_view key) {
  switch (kind) {
    case ProtonSectionKind::kDeliveryAnnotations: return view.DeliveryAnnotation(key);
    case ProtonSectionKind::kMessageAnnotations: return view.MessageAnnotation(key);
    case ProtonSectionKind::kFooter: return view.FooterEntry(key);
    default: return view.ApplicationProperty(key);
  }
}

Value ViewMapValue(const MessageView& view, ProtonSectionKind kind, uint64_t key) {
  switch (kind) {
    case ProtonSectionKind::kDeliveryAnnotations: return view.DeliveryAnnotation(key);
    case ProtonSectionKind::kMessageAnnotations: return view.MessageAnnotation(key);
    default: return view.FooterEntry(key);
  }
}

void CompareMessage(size_t record, std::span<const uint8_t> bytes, Comparison* c) {
  ProtonSections sections;
  std::string error;
  if (!sections.Split(bytes, &error)) {
    c->Check(record, "Proton decode", "", error);
    return;
  }
  MessageView view(bytes);

  for (int k = 0; k <= 8; ++k) {
    auto kind = static_cast<ProtonSectionKind>(0x70 + k);
    c->Check(record, "has " + std::string(ProtonSectionName(kind)), view.HasSection(ViewKind(kind)) ? "yes" : "no",
             sections.Find(kind) != nullptr ? "yes" : "no");
  }

  // Header fields, with their defaults (core 3.2.1).
  const ProtonSection* header = sections.Find(ProtonSectionKind::kHeader);
  static const Value kHeaderDefaults[] = {Value::Boolean(false), Value::Unsigned(ValueType::kUByte, 4),
                                          Value::Missing(), Value::Boolean(false),
                                          Value::Unsigned(ValueType::kUInt, 0)};
  for (int f = 0; f < kHeaderFieldCount; ++f) {
    std::string expected = Render(kHeaderDefaults[f]);
    if (header != nullptr) {
      pn_data_t* d = header->Value();
      size_t n = pn_data_get_list(d);
      pn_data_enter(d);
      for (int i = 0; i <= f && static_cast<size_t>(i) < n; ++i) pn_data_next(d);
      if (static_cast<size_t>(f) < n && pn_data_type(d) != PN_NULL) expected = RenderProtonScalar(d);
    }
    c->Check(record, "header." + std::string(HeaderFieldName(static_cast<HeaderField>(f))),
             Render(view.Header(static_cast<HeaderField>(f))), expected);
  }

  // The 13 properties (core 3.2.4).
  const ProtonSection* properties = sections.Find(ProtonSectionKind::kProperties);
  for (int f = 0; f < kPropertiesFieldCount; ++f) {
    std::string expected = Render(Value::Missing());
    if (properties != nullptr) {
      pn_data_t* d = properties->Value();
      size_t n = pn_data_get_list(d);
      pn_data_enter(d);
      for (int i = 0; i <= f && static_cast<size_t>(i) < n; ++i) pn_data_next(d);
      if (static_cast<size_t>(f) < n && pn_data_type(d) != PN_NULL) expected = RenderProtonScalar(d);
    }
    c->Check(record, "properties." + std::string(PropertiesFieldName(static_cast<PropertiesField>(f))),
             Render(view.Property(static_cast<PropertiesField>(f))), expected);
  }

  // Every entry of every map section, looked up by its key.
  for (ProtonSectionKind kind : {ProtonSectionKind::kDeliveryAnnotations, ProtonSectionKind::kMessageAnnotations,
                                 ProtonSectionKind::kApplicationProperties, ProtonSectionKind::kFooter}) {
    const ProtonSection* section = sections.Find(kind);
    if (section == nullptr) continue;
    std::string name(ProtonSectionName(kind));
    pn_data_t* map = section->Value();
    size_t n = pn_data_get_map(map);
    for (size_t i = 0; i < n; i += 2) {
      map = section->Value();
      pn_data_enter(map);
      for (size_t j = 0; j <= i; ++j) pn_data_next(map);
      pn_type_t key_type = pn_data_type(map);
      std::string text_key;
      uint64_t ulong_key = 0;
      if (key_type == PN_ULONG) {
        ulong_key = pn_data_get_ulong(map);
        text_key = std::to_string(ulong_key);
      } else if (key_type == PN_STRING || key_type == PN_SYMBOL) {
        pn_bytes_t b = key_type == PN_STRING ? pn_data_get_string(map) : pn_data_get_symbol(map);
        text_key.assign(b.start, b.size);
      } else {
        continue;  // not addressable by a selector
      }
      std::string what = name + "[" + text_key + "]";
      // By text key: as a amqp::Value, and deeply through FindMapEntry.
      pn_data_t* ref = section->Value();
      ASSERT_TRUE(FindByText(ref, text_key));
      std::string expected_value = RenderProtonScalar(ref);
      std::string expected_deep = RenderProton(ref);
      c->Check(record, what, Render(ViewMapValue(view, kind, std::string_view(text_key))), expected_value);
      EncodedValue entry;
      c->Check(record, what + " (whole value)",
               view.FindMapEntry(ViewKind(kind), text_key, &entry) ? RenderView(entry) : "absent", expected_deep);
      if (key_type == PN_ULONG && kind != ProtonSectionKind::kApplicationProperties) {
        ref = section->Value();
        ASSERT_TRUE(FindByULong(ref, ulong_key));
        expected_value = RenderProtonScalar(ref);
        expected_deep = RenderProton(ref);
        c->Check(record, what + " (ulong key)", Render(ViewMapValue(view, kind, ulong_key)), expected_value);
        c->Check(record, what + " (ulong key, whole value)",
                 view.FindMapEntry(ViewKind(kind), ulong_key, &entry) ? RenderView(entry) : "absent", expected_deep);
      }
    }
  }

  // The body (core 3.2.6 - 3.2.8).
  std::vector<const ProtonSection*> body;
  for (const ProtonSection& s : sections.sections()) {
    if (s.kind == ProtonSectionKind::kData || s.kind == ProtonSectionKind::kAmqpSequence ||
        s.kind == ProtonSectionKind::kAmqpValue) {
      body.push_back(&s);
    }
  }
  static const char* kBodyKinds[] = {"none", "data", "amqp-sequence", "amqp-value"};
  int expected_kind = body.empty() ? 0 : static_cast<int>(body[0]->kind) - 0x74;
  c->Check(record, "body kind", kBodyKinds[static_cast<int>(view.body_kind())], kBodyKinds[expected_kind]);
  c->Check(record, "body section count", std::to_string(view.body_section_count()), std::to_string(body.size()));
  for (size_t i = 0; i < body.size(); ++i) {
    EncodedValue value;
    c->Check(record, "body section " + std::to_string(i),
             view.BodySection(static_cast<uint32_t>(i), &value) ? RenderView(value) : "absent",
             RenderProton(body[i]->Value()));
  }
  std::string expected_data;
  if (!body.empty() && body[0]->kind == ProtonSectionKind::kData) {
    pn_bytes_t b = pn_data_get_binary(body[0]->Value());
    expected_data = Hex(b.start, b.size);
  }
  c->Check(record, "data", Hex(view.data().data(), view.data().size()), expected_data);
  std::string expected_span = "empty";
  if (!body.empty()) {
    expected_span =
        std::to_string(body.front()->offset) + ".." + std::to_string(body.back()->offset + body.back()->size);
  }
  std::span<const uint8_t> span = view.body_bytes();
  c->Check(record, "body bytes",
           span.empty() ? "empty"
                        : std::to_string(span.data() - bytes.data()) + ".." +
                              std::to_string(span.data() - bytes.data() + span.size()),
           expected_span);
  c->Check(record, "view error", view.error().ok() ? "ok" : view.error().Message(), "ok");
}

TEST(MessageViewDifferential, EveryFieldEqualsProtonsDecode) {
  const testing::GeneratedMessages gen = testing::Generate(kSeed, kCount);
  ASSERT_EQ(gen.error, "");
  ASSERT_GE(gen.messages.size(), 10000u);
  Comparison c;
  for (size_t i = 0; i < gen.messages.size(); ++i) CompareMessage(i, gen.messages[i], &c);
  std::printf("MessageView vs Proton: %zu messages, %zu field comparisons, %zu mismatches\n", gen.messages.size(),
              c.fields, c.mismatches);
  for (const std::string& e : c.examples) std::printf("%s\n", e.c_str());
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_GT(c.fields, 30u * gen.messages.size());
}

// Marks the type of the value at d's current node and of everything inside it.
void MarkTypes(pn_data_t* d, bool* seen) {
  pn_type_t t = pn_data_type(d);
  seen[static_cast<int>(TypeOfProton(t))] = true;
  size_t children = 0;
  if (t == PN_LIST) children = pn_data_get_list(d);
  if (t == PN_MAP) children = pn_data_get_map(d);
  if (t == PN_ARRAY) children = pn_data_get_array(d) + (pn_data_is_array_described(d) ? 1 : 0);
  if (t == PN_DESCRIBED) children = 2;
  if (children == 0) return;
  pn_data_enter(d);
  for (size_t i = 0; i < children; ++i) {
    pn_data_next(d);
    MarkTypes(d, seen);
  }
  pn_data_exit(d);
}

// The generator's coverage is what makes the comparison above meaningful: every AMQP type appears
// as a value in every section that may hold it, and every encoding form appears somewhere.
TEST(MessageViewDifferential, GeneratedMessagesCoverEveryTypeInEverySection) {
  const testing::GeneratedMessages gen = testing::Generate(kSeed, kCount);
  ASSERT_EQ(gen.error, "");
  // [section][value type] seen as an entry value (maps), field (lists) or nested inside one.
  bool seen[9][32] = {};
  bool codes[256] = {};
  for (const auto& bytes : gen.messages) {
    ProtonSections sections;
    std::string error;
    ASSERT_TRUE(sections.Split(bytes, &error)) << error;
    for (const ProtonSection& s : sections.sections()) {
      MarkTypes(s.Value(), seen[static_cast<int>(s.kind) - 0x70]);
    }
    Cursor cursor(bytes);
    EncodedValue v;
    std::vector<EncodedValue> stack;
    while (cursor.Next(&v)) stack.push_back(v);
    while (!stack.empty()) {
      EncodedValue e = stack.back();
      stack.pop_back();
      codes[e.format_code()] = true;
      if (e.is_described()) {
        EncodedValue descriptor;
        if (e.Descriptor(&descriptor)) stack.push_back(descriptor);
        stack.push_back(e.WithoutDescriptor());
        continue;
      }
      if (e.is_array()) codes[e.element_format_code()] = true;
      if (e.is_compound()) {
        Cursor elements = Cursor::Elements(e);
        EncodedValue x;
        while (elements.Next(&x)) stack.push_back(x);
      }
    }
  }
  const ValueType kAll[] = {
      ValueType::kNull,   ValueType::kBoolean,   ValueType::kUByte,     ValueType::kUShort,    ValueType::kUInt,
      ValueType::kULong,  ValueType::kByte,      ValueType::kShort,     ValueType::kInt,       ValueType::kLong,
      ValueType::kFloat,  ValueType::kDouble,    ValueType::kDecimal32, ValueType::kDecimal64, ValueType::kDecimal128,
      ValueType::kChar,   ValueType::kTimestamp, ValueType::kUuid,      ValueType::kBinary,    ValueType::kString,
      ValueType::kSymbol, ValueType::kList,      ValueType::kMap,       ValueType::kArray,     ValueType::kDescribed};
  for (ProtonSectionKind kind : {ProtonSectionKind::kDeliveryAnnotations, ProtonSectionKind::kMessageAnnotations,
                                 ProtonSectionKind::kApplicationProperties, ProtonSectionKind::kAmqpSequence,
                                 ProtonSectionKind::kAmqpValue, ProtonSectionKind::kFooter}) {
    for (ValueType t : kAll) {
      bool compound =
          t == ValueType::kList || t == ValueType::kMap || t == ValueType::kArray || t == ValueType::kDescribed;
      if (kind == ProtonSectionKind::kApplicationProperties && compound && t != ValueType::kMap) {
        continue;  // core 3.2.5: simple values only (the section itself is the one map)
      }
      EXPECT_TRUE(seen[static_cast<int>(kind) - 0x70][static_cast<int>(t)])
          << ProtonSectionName(kind) << " never holds a " << amqp::ValueTypeName(t);
    }
  }
  for (int code : {0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56,
                   0x60, 0x61, 0x70, 0x71, 0x72, 0x73, 0x74, 0x80, 0x81, 0x82, 0x83, 0x84, 0x94,
                   0x98, 0xa0, 0xa1, 0xa3, 0xb0, 0xb1, 0xb3, 0xc0, 0xc1, 0xd0, 0xd1, 0xe0, 0xf0}) {
    EXPECT_TRUE(codes[code]) << "format code 0x" << std::hex << code << " never generated";
  }
}

}  // namespace
}  // namespace sift::amqp
