// MessageView: lazy section location and typed field access (message_view.h).
//
// The scan over top-level sections is incremental: a request for section K reads section headers
// (constructor, descriptor, size prefix) only until K is found, skipping each section body in O(1).
// What it has located is cached in sections_ (where each section's value starts), so each section
// header is read at most once per message; a section's value is parsed when a field of it is read.
// Field reads then walk only the located section.
#include "amqp/message_view.h"

#include "amqp/coding.h"
#include "amqp/cursor.h"
#include "amqp/field_types.h"

namespace sift::amqp {
namespace {

bool IsBody(SectionKind k) {
  return k == SectionKind::kData || k == SectionKind::kAmqpSequence || k == SectionKind::kAmqpValue;
}

}  // namespace

// Which section a described top-level value is, from its descriptor (smallulong, ulong or symbol).
bool SectionOfDescriptor(const EncodedValue& value, SectionKind* kind) {
  if (!value.is_described()) return false;
  const auto raw = value.raw();
  // Fast path for the encoding every client uses: 0x00 0x53 0x7N.
  if (SmallSectionHeader(raw.data(), raw.data() + raw.size(), kind) != nullptr) return true;
  EncodedValue d;
  if (!value.Descriptor(&d)) return false;
  uint64_t u = 0;
  std::string_view s;
  if (d.GetUnsigned(&u) && (d.format_code() == code::kULong || d.format_code() == code::kULong0)) {
    return SectionFromDescriptorCode(u, kind);
  }
  if (d.GetSymbol(&s)) return SectionFromDescriptorSymbol(s, kind);
  return false;
}

void MessageView::Reset(std::span<const uint8_t> message) {
  // Per message: only what the scan reads before writing. sections_ and the body fields are
  // guarded by located_ / body_count_; error_ is cleared only when something set it.
  begin_ = message.data();
  end_ = message.data() + message.size();
  located_ = 0;
  scan_ = begin_;
  scan_done_ = false;
  scan_failed_ = false;
  sections_seen_ = 0;
  body_count_ = 0;
  if (failed_) {
    error_ = DecodeError();
    failed_ = false;
  }
}

void MessageView::Fail(const DecodeError& error) const {
  if (!failed_ && !error.ok()) {
    error_ = error;
    failed_ = true;
  }
}

void MessageView::Note(SectionKind kind, const uint8_t* value, const uint8_t* next) const {
  if (IsBody(kind)) {
    if (body_count_ == 0) {
      body_kind_ = kind;
      body_count_ = 1;
      body_begin_ = scan_;
      body_end_ = next;
    } else if (kind == body_kind_ && body_end_ == scan_ && kind != SectionKind::kAmqpValue) {
      ++body_count_;
      body_end_ = next;
    }
  }
  if (!Located(kind)) {
    sections_[static_cast<int>(kind)] = value;
    located_ |= 1u << static_cast<int>(kind);
  }
  scan_ = next;
  ++sections_seen_;
}

bool MessageView::ScanOne() const {
  if (scan_done_) return false;
  const uint8_t* s = scan_;
  // The encoding every client uses (0x00 0x53 0x7N) with a plain value: skip it by its size.
  if (s != nullptr && BytesLeft(s, end_) >= 4 && s[0] == code::kDescribed && s[1] == code::kSmallULong) {
    SectionKind kind = SectionKind::kHeader;
    if (SectionFromDescriptorCode(s[2], &kind)) {
      const uint8_t* next = SkipPlainValue(s + 3, end_);
      if (next != nullptr) {
        Note(kind, s + 3, next);
        return true;
      }
    }
  }
  return ScanOneSlow();
}

bool MessageView::ScanOneSlow() const {
  if (scan_ == nullptr || scan_ >= end_) {
    scan_done_ = true;
    return false;
  }
  EncodedValue v;
  DecodeError e;
  SectionKind kind = SectionKind::kHeader;
  const uint8_t* next = nullptr;
  const uint8_t* value = nullptr;
  if (BytesLeft(scan_, end_) >= 4 && scan_[0] == code::kDescribed && scan_[1] == code::kSmallULong &&
      SectionFromDescriptorCode(scan_[2], &kind)) {
    // 0x00 0x53 0x7N with a described, malformed or truncated value: SkipValue says which.
    value = scan_ + 3;
    next = SkipValue(begin_, value, end_, &e);
    if (next == nullptr) {
      Fail(e);
      scan_done_ = true;
      scan_failed_ = true;
      return false;
    }
  } else {
    next = ReadValue(begin_, scan_, end_, &v, &e);
    if (next == nullptr || !SectionOfDescriptor(v, &kind)) {
      if (next != nullptr) {
        e = DecodeError::Make(
            DecodeErrorCode::kNotASection, v.offset(), v.format_code(), 0, 0,
            v.is_described() ? "described value with an unknown descriptor" : FormatCodeName(v.format_code()).data());
      }
      Fail(e);
      scan_done_ = true;
      scan_failed_ = true;
      return false;
    }
    value = v.WithoutDescriptor().raw().data();
  }
  Note(kind, value, next);
  return true;
}

bool MessageView::Locate(SectionKind kind) const {
  // ScanOne() until `kind` is located, with the scan state in registers for the common sections:
  // 0x00 0x53 0x7N, not a body section (body bookkeeping is Note()'s), and a plain value whose
  // constructor and size prefix say where it ends (as SkipPlainValue, checked against end_).
  // Anything else is left to ScanOne().
  constexpr uint32_t kNotBody = 0x11f;  // header .. application-properties, footer
  const uint32_t want = 1u << static_cast<int>(kind);
  while ((located_ & want) == 0) {
    if (scan_done_) return false;
    const uint8_t* s = scan_;
    uint32_t located = located_;
    uint32_t seen = sections_seen_;
    if (s != nullptr) {
      const uint8_t* const end = end_;
      for (;;) {
        SectionKind kind = SectionKind::kHeader;
        const uint8_t* value = SmallSectionHeader(s, end, &kind);
        if (value == nullptr) break;
        const uint32_t k = static_cast<uint32_t>(kind);
        if (((kNotBody >> k) & 1u) == 0) break;
        const uint8_t* next = SkipPlainValue(value, end);
        if (next == nullptr) break;
        const uint32_t bit = 1u << k;
        if ((located & bit) == 0) {
          sections_[k] = value;
          located |= bit;
        }
        ++seen;
        s = next;
        if ((located & want) != 0) break;
      }
    }
    scan_ = s;
    located_ = located;
    sections_seen_ = seen;
    if ((located & want) != 0) return true;
    if (!ScanOne()) return false;
  }
  return true;
}

bool MessageView::FindSection(SectionKind kind, EncodedValue* value) const {
  if (!Locate(kind)) return false;
  DecodeError e;
  if (ReadValue(begin_, sections_[static_cast<int>(kind)], end_, value, &e) == nullptr) {
    Fail(e);
    return false;
  }
  return true;
}

bool MessageView::HasSection(SectionKind kind) const { return Locate(kind); }

bool MessageView::TypedSection(SectionKind kind, EncodedValue* value) const {
  EncodedValue v;
  if (!FindSection(kind, &v)) return false;
  if (!SectionValueTypeOk(kind, v)) {
    Fail(DecodeError::Make(DecodeErrorCode::kSectionType, v.offset(), v.format_code(), static_cast<uint64_t>(kind), 0,
                           SectionLabel(kind), SectionValueExpected(kind)));
    return false;
  }
  *value = v;
  return true;
}

amqp::Value MessageView::Header(HeaderField field) const {
  const int index = static_cast<int>(field);
  EncodedValue header;
  EncodedValue v;
  if (!TypedSection(SectionKind::kHeader, &header)) {
    // Absent header: every field has its default. A header of the wrong type, or a message whose
    // first section cannot be read (so a header may be hiding there): nothing can be trusted.
    if (Located(SectionKind::kHeader) || (scan_failed_ && sections_seen_ == 0)) {
      return amqp::Value::Missing();
    }
  } else {
    DecodeError e;
    if (!header.ElementAt(static_cast<uint64_t>(index), &v, &e)) {
      if (!e.ok()) {
        Fail(e);
        return amqp::Value::Missing();
      }
    } else if (!v.is_null()) {
      if (!HeaderFieldTypeOk(index, v)) {
        Fail(DecodeError::Make(DecodeErrorCode::kFieldType, v.offset(), v.format_code(), 0, 0, HeaderFieldLabel(index),
                               HeaderFieldExpected(index)));
        return amqp::Value::Missing();
      }
      return v.ToValue();
    }
  }
  return HeaderFieldDefault(static_cast<int>(field));
}

bool MessageView::durable() const {
  const amqp::Value v = Header(HeaderField::kDurable);
  return v.type == amqp::ValueType::kBoolean && v.boolean;
}
uint8_t MessageView::priority() const {
  const amqp::Value v = Header(HeaderField::kPriority);
  return v.type == amqp::ValueType::kUByte ? static_cast<uint8_t>(v.u64) : 4;
}
bool MessageView::ttl(uint32_t* milliseconds) const {
  const amqp::Value v = Header(HeaderField::kTtl);
  if (v.type != amqp::ValueType::kUInt) return false;
  *milliseconds = static_cast<uint32_t>(v.u64);
  return true;
}
bool MessageView::first_acquirer() const {
  const amqp::Value v = Header(HeaderField::kFirstAcquirer);
  return v.type == amqp::ValueType::kBoolean && v.boolean;
}
uint32_t MessageView::delivery_count() const {
  const amqp::Value v = Header(HeaderField::kDeliveryCount);
  return v.type == amqp::ValueType::kUInt ? static_cast<uint32_t>(v.u64) : 0;
}

amqp::Value MessageView::Property(PropertiesField field) const {
  const int index = static_cast<int>(field);
  EncodedValue properties;
  EncodedValue v;
  if (!TypedSection(SectionKind::kProperties, &properties)) return amqp::Value::Missing();
  DecodeError e;
  if (!properties.ElementAt(static_cast<uint64_t>(index), &v, &e)) {
    if (!e.ok()) Fail(e);
    return amqp::Value::Missing();
  }
  if (v.is_null()) return amqp::Value::Missing();
  if (!PropertiesFieldTypeOk(index, v)) {
    Fail(DecodeError::Make(DecodeErrorCode::kFieldType, v.offset(), v.format_code(), 0, 0, PropertiesFieldLabel(index),
                           PropertiesFieldExpected(index)));
    return amqp::Value::Missing();
  }
  return v.ToValue();
}

bool MessageView::FindMapEntry(SectionKind map_section, std::string_view key, EncodedValue* value) const {
  if (!Locate(map_section)) return false;
  const uint8_t* at = sections_[static_cast<int>(map_section)];
  if (*at == code::kMap8 || *at == code::kMap32) {  // the section has its type: look in place
    DecodeError e;
    if (FindKeyInMap(begin_, at, end_, key, value, &e)) return true;
    if (!e.ok()) Fail(e);
    return false;
  }
  EncodedValue map;
  if (!TypedSection(map_section, &map) || !map.is_map()) return false;
  DecodeError e;
  if (map.FindKey(key, value, &e)) return true;
  if (!e.ok()) Fail(e);
  return false;
}

bool MessageView::FindMapEntry(SectionKind map_section, uint64_t key, EncodedValue* value) const {
  EncodedValue map;
  if (!TypedSection(map_section, &map) || !map.is_map()) return false;
  DecodeError e;
  if (map.FindULongKey(key, value, &e)) return true;
  if (!e.ok()) Fail(e);
  return false;
}

amqp::Value MessageView::MapValue(SectionKind kind, std::string_view key) const {
  EncodedValue v;
  return FindMapEntry(kind, key, &v) ? v.ToValue() : amqp::Value::Missing();
}

amqp::Value MessageView::MapValue(SectionKind kind, uint64_t key) const {
  EncodedValue v;
  return FindMapEntry(kind, key, &v) ? v.ToValue() : amqp::Value::Missing();
}

amqp::Value MessageView::ApplicationProperty(std::string_view key) const {
  return MapValue(SectionKind::kApplicationProperties, key);
}
bool MessageView::FindApplicationProperty(std::string_view key, EncodedValue* value) const {
  return FindMapEntry(SectionKind::kApplicationProperties, key, value);
}
amqp::Value MessageView::MessageAnnotation(std::string_view key) const {
  return MapValue(SectionKind::kMessageAnnotations, key);
}
amqp::Value MessageView::DeliveryAnnotation(std::string_view key) const {
  return MapValue(SectionKind::kDeliveryAnnotations, key);
}
amqp::Value MessageView::FooterEntry(std::string_view key) const { return MapValue(SectionKind::kFooter, key); }
amqp::Value MessageView::MessageAnnotation(uint64_t key) const {
  return MapValue(SectionKind::kMessageAnnotations, key);
}
amqp::Value MessageView::DeliveryAnnotation(uint64_t key) const {
  return MapValue(SectionKind::kDeliveryAnnotations, key);
}
amqp::Value MessageView::FooterEntry(uint64_t key) const { return MapValue(SectionKind::kFooter, key); }

BodyKind MessageView::body_kind() const {
  while (body_count_ == 0 && ScanOne()) {
  }
  if (body_count_ == 0) return BodyKind::kNone;
  switch (body_kind_) {
    case SectionKind::kData: return BodyKind::kData;
    case SectionKind::kAmqpSequence: return BodyKind::kAmqpSequence;
    default: return BodyKind::kAmqpValue;
  }
}

uint32_t MessageView::body_section_count() const {
  while (ScanOne()) {
  }
  return body_count_;
}

bool MessageView::BodySection(uint32_t index, EncodedValue* value) const {
  if (index >= body_section_count()) return false;
  Cursor c(begin_, body_begin_, body_end_);
  EncodedValue v;
  for (uint32_t i = 0; i <= index; ++i) {
    if (!c.Next(&v)) return false;  // cannot happen: these sections were read before
  }
  *value = v.WithoutDescriptor();
  return true;
}

std::span<const uint8_t> MessageView::data() const {
  EncodedValue v;
  if (body_kind() != BodyKind::kData || !TypedSection(SectionKind::kData, &v)) return {};
  return v.payload();
}

std::span<const uint8_t> MessageView::body_bytes() const {
  if (body_kind() == BodyKind::kNone) return {};
  body_section_count();
  return {body_begin_, static_cast<size_t>(body_end_ - body_begin_)};
}

}  // namespace sift::amqp
