// The baseline's field source over a Proton-decoded message; see proton_field_source.h.
#include "tools/baseline/proton_field_source.h"

#include <cstring>
#include <string_view>

#include "base/amqp_fields.h"

namespace sift::baseline {
namespace {

using selector::Section;
using selector::Value;
using selector::ValueType;

Value CString(const char* s, ValueType type = ValueType::kString) {
  return s == nullptr ? Value::Missing() : Value::Bytes(type, std::string_view(s));
}

Value Timestamp(pn_timestamp_t t) { return t == 0 ? Value::Missing() : Value::Timestamp(t); }

}  // namespace

ProtonFieldSource::ProtonFieldSource(std::span<const selector::FieldRef> fields) : slots_(fields.size()) {
  for (size_t i = 0; i < fields.size(); ++i) {
    const selector::FieldRef& ref = fields[i];
    Slot& slot = slots_[i];
    if (!ref.path.empty()) continue;  // kUnknown: reads kMissing (see the header)
    switch (ref.section) {
      case Section::kHeader:
      case Section::kProperties:
        if (const amqp::FieldInfo* f = amqp::FindField(ref.section, ref.name)) {
          slot.kind = ref.section == Section::kHeader ? Kind::kHeader : Kind::kProperties;
          slot.index = f->index;
        }
        break;
      case Section::kApplicationProperties: slot.kind = Kind::kApplicationProperty; break;
      case Section::kMessageAnnotations: slot.kind = Kind::kMessageAnnotation; break;
      case Section::kDeliveryAnnotations: slot.kind = Kind::kDeliveryAnnotation; break;
      default: break;  // the footer and the body sections: kUnknown
    }
    slot.key.assign(ref.name.begin(), ref.name.end());
  }
}

Value ProtonFieldSource::Get(uint32_t index) {
  Slot& slot = slots_[index];
  switch (slot.kind) {
    case Kind::kUnknown: return Value::Missing();
    case Kind::kHeader: return Header(static_cast<amqp::HeaderField>(slot.index));
    case Kind::kProperties: return Property(slot, static_cast<amqp::PropertiesField>(slot.index));
    case Kind::kApplicationProperty: return MapEntry(slot, pn_message_properties(message_));
    case Kind::kMessageAnnotation: return MapEntry(slot, pn_message_annotations(message_));
    case Kind::kDeliveryAnnotation: return MapEntry(slot, pn_message_instructions(message_));
  }
  return Value::Missing();
}

Value ProtonFieldSource::Header(amqp::HeaderField field) {
  using amqp::HeaderField;
  pn_message_t* m = message_;
  switch (field) {
    case HeaderField::kDurable: return Value::Boolean(pn_message_is_durable(m));
    case HeaderField::kPriority: return Value::Unsigned(ValueType::kUByte, pn_message_get_priority(m));
    case HeaderField::kTtl: {
      const pn_millis_t ttl = pn_message_get_ttl(m);
      return ttl == 0 ? Value::Missing() : Value::Unsigned(ValueType::kUInt, ttl);
    }
    case HeaderField::kFirstAcquirer: return Value::Boolean(pn_message_is_first_acquirer(m));
    case HeaderField::kDeliveryCount: return Value::Unsigned(ValueType::kUInt, pn_message_get_delivery_count(m));
  }
  return Value::Missing();
}

Value ProtonFieldSource::Property(Slot& slot, amqp::PropertiesField field) {
  using amqp::PropertiesField;
  pn_message_t* m = message_;
  switch (field) {
    case PropertiesField::kMessageId: return Atom(slot, pn_message_get_id(m));
    case PropertiesField::kUserId: {
      const pn_bytes_t b = pn_message_get_user_id(m);
      return b.size == 0 ? Value::Missing() : Value::Binary(std::string_view(b.start, b.size));
    }
    case PropertiesField::kTo: return CString(pn_message_get_address(m));
    case PropertiesField::kSubject: return CString(pn_message_get_subject(m));
    case PropertiesField::kReplyTo: return CString(pn_message_get_reply_to(m));
    case PropertiesField::kCorrelationId: return Atom(slot, pn_message_get_correlation_id(m));
    case PropertiesField::kContentType: return CString(pn_message_get_content_type(m), ValueType::kSymbol);
    case PropertiesField::kContentEncoding: return CString(pn_message_get_content_encoding(m), ValueType::kSymbol);
    case PropertiesField::kAbsoluteExpiryTime: return Timestamp(pn_message_get_expiry_time(m));
    case PropertiesField::kCreationTime: return Timestamp(pn_message_get_creation_time(m));
    case PropertiesField::kGroupId: return CString(pn_message_get_group_id(m));
    case PropertiesField::kGroupSequence:
      return Value::Unsigned(ValueType::kUInt, static_cast<uint32_t>(pn_message_get_group_sequence(m)));
    case PropertiesField::kReplyToGroupId: return CString(pn_message_get_reply_to_group_id(m));
  }
  return Value::Missing();
}

Value ProtonFieldSource::Atom(Slot& slot, const pn_atom_t& atom) {
  slot.atom = atom;
  const pn_atom_t& a = slot.atom;
  switch (a.type) {
    case PN_NULL: return Value::Null();
    case PN_BOOL: return Value::Boolean(a.u.as_bool);
    case PN_UBYTE: return Value::Unsigned(ValueType::kUByte, a.u.as_ubyte);
    case PN_USHORT: return Value::Unsigned(ValueType::kUShort, a.u.as_ushort);
    case PN_UINT: return Value::Unsigned(ValueType::kUInt, a.u.as_uint);
    case PN_ULONG: return Value::Unsigned(ValueType::kULong, a.u.as_ulong);
    case PN_BYTE: return Value::Signed(ValueType::kByte, a.u.as_byte);
    case PN_SHORT: return Value::Signed(ValueType::kShort, a.u.as_short);
    case PN_INT: return Value::Signed(ValueType::kInt, a.u.as_int);
    case PN_LONG: return Value::Long(a.u.as_long);
    case PN_TIMESTAMP: return Value::Timestamp(a.u.as_timestamp);
    case PN_FLOAT: return Value::Float(a.u.as_float);
    case PN_DOUBLE: return Value::Double(a.u.as_double);
    case PN_CHAR: return Value::Char(a.u.as_char);
    case PN_DECIMAL32:
    case PN_DECIMAL64: {
      const bool is32 = a.type == PN_DECIMAL32;
      const uint64_t bits = is32 ? a.u.as_decimal32 : a.u.as_decimal64;
      const int n = is32 ? 4 : 8;
      for (int i = 0; i < n; ++i) slot.decimal[i] = static_cast<uint8_t>(bits >> (8 * (n - 1 - i)));
      return Value::Bytes(is32 ? ValueType::kDecimal32 : ValueType::kDecimal64,
                          std::string_view(reinterpret_cast<const char*>(slot.decimal), n));
    }
    case PN_DECIMAL128: return Value::Bytes(ValueType::kDecimal128, std::string_view(a.u.as_decimal128.bytes, 16));
    case PN_UUID: return Value::Bytes(ValueType::kUuid, std::string_view(a.u.as_uuid.bytes, 16));
    case PN_BINARY: return Value::Binary(std::string_view(a.u.as_bytes.start, a.u.as_bytes.size));
    case PN_STRING: return Value::String(std::string_view(a.u.as_bytes.start, a.u.as_bytes.size));
    case PN_SYMBOL: return Value::Symbol(std::string_view(a.u.as_bytes.start, a.u.as_bytes.size));
    case PN_LIST: return Value::Compound(ValueType::kList);
    case PN_MAP: return Value::Compound(ValueType::kMap);
    case PN_ARRAY: return Value::Compound(ValueType::kArray);
    case PN_DESCRIBED: return Value::Compound(ValueType::kDescribed);
    default: return Value::Missing();
  }
}

// A linear search of the decoded map: what a map lookup on Proton-decoded data costs.
Value ProtonFieldSource::MapEntry(Slot& slot, pn_data_t* data) {
  pn_data_rewind(data);
  if (!pn_data_next(data) || pn_data_type(data) != PN_MAP) return Value::Missing();
  const size_t count = pn_data_get_map(data);
  pn_data_enter(data);
  Value result = Value::Missing();
  for (size_t i = 0; i + 1 < count; i += 2) {
    if (!pn_data_next(data)) break;
    const pn_type_t type = pn_data_type(data);
    bool match = false;
    if (type == PN_STRING || type == PN_SYMBOL) {
      const pn_bytes_t k = type == PN_STRING ? pn_data_get_string(data) : pn_data_get_symbol(data);
      match = k.size == slot.key.size() && std::memcmp(k.start, slot.key.data(), k.size) == 0;
    }
    if (!pn_data_next(data)) break;
    if (match) {
      result = Atom(slot, pn_data_get_atom(data));
      break;
    }
  }
  pn_data_exit(data);
  return result;
}

}  // namespace sift::baseline
