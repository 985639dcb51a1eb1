// Reads everything a MessageView offers from one message, touching every byte of every view it
// returns (so AddressSanitizer sees any view that leaves the buffer). Shared by the malformed-input
// tests and the fuzz targets.
#ifndef SIFT_TESTS_ENGINE_AMQP_EXERCISE_VIEW_H_
#define SIFT_TESTS_ENGINE_AMQP_EXERCISE_VIEW_H_

#include <cstdint>
#include <span>

#include "amqp/cursor.h"
#include "amqp/message_view.h"

namespace sift::testing {

inline uint64_t Touch(const amqp::Value& v) {
  uint64_t sum = static_cast<uint64_t>(v.type) + v.u64;
  for (uint32_t i = 0; i < v.size; ++i) sum += static_cast<uint8_t>(v.data[i]);
  return sum;
}

inline uint64_t Touch(std::span<const uint8_t> bytes) {
  uint64_t sum = bytes.size();
  for (uint8_t b : bytes) sum += b;
  return sum;
}

// Walks a value and everything inside it, to a bounded depth.
inline uint64_t Walk(const amqp::EncodedValue& value, int depth) {
  uint64_t sum = Touch(value.ToValue()) + Touch(value.raw()) + Touch(value.payload());
  amqp::EncodedValue d;
  if (value.Descriptor(&d)) sum += Walk(d, depth + 1);
  if (value.is_described()) sum += Walk(value.WithoutDescriptor(), depth + 1);
  if (depth > 16 || !value.is_compound()) return sum;
  amqp::Cursor c = amqp::Cursor::Elements(value);
  amqp::EncodedValue e;
  int n = 0;
  while (n++ < 64 && c.Next(&e)) sum += Walk(e, depth + 1);
  amqp::EncodedValue x;
  sum += value.ElementAt(0, &x) ? Touch(x.raw()) : 0;
  sum += value.ElementAt(value.count() > 0 ? value.count() - 1 : 0, &x) ? Touch(x.raw()) : 0;
  sum += value.FindKey("k", &x) ? Touch(x.raw()) : 0;
  sum += value.FindULongKey(1, &x) ? Touch(x.raw()) : 0;
  return sum;
}

// Every accessor of the view; returns a checksum so nothing is optimised away.
inline uint64_t ExerciseView(const amqp::MessageView& view) {
  uint64_t sum = 0;
  for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
    sum += Touch(view.Header(static_cast<amqp::HeaderField>(i)));
  }
  uint32_t ttl = 0;
  sum += view.durable() + view.priority() + view.ttl(&ttl) + view.first_acquirer() + view.delivery_count();
  for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
    sum += Touch(view.Property(static_cast<amqp::PropertiesField>(i)));
  }
  for (const char* key : {"region", "amount", "k", "x-opt-partition", "42", "", "9"}) {
    sum += Touch(view.ApplicationProperty(key));
    sum += Touch(view.MessageAnnotation(key));
    sum += Touch(view.DeliveryAnnotation(key));
    sum += Touch(view.FooterEntry(key));
  }
  sum += Touch(view.MessageAnnotation(uint64_t{42})) + Touch(view.FooterEntry(uint64_t{9})) +
         Touch(view.DeliveryAnnotation(uint64_t{1}));
  for (int k = 0; k < amqp::kSectionKindCount; ++k) {
    amqp::EncodedValue s;
    if (view.FindSection(static_cast<amqp::SectionKind>(k), &s)) sum += Walk(s, 0);
  }
  sum += static_cast<uint64_t>(view.body_kind());
  const uint32_t bodies = view.body_section_count();
  for (uint32_t i = 0; i < bodies && i < 64; ++i) {
    amqp::EncodedValue b;
    if (view.BodySection(i, &b)) sum += Walk(b, 0);
  }
  sum += Touch(view.data()) + Touch(view.body_bytes());
  return sum;
}

}  // namespace sift::testing

#endif  // SIFT_TESTS_ENGINE_AMQP_EXERCISE_VIEW_H_
