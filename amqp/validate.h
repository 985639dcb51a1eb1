// Strict validation of one encoded AMQP 1.0 message, used before a message is stored.
//
// A message is well formed if and only if (core part 3, section 3.2; core part 1, section 1.6):
// - it is a non-empty sequence of described sections with known descriptors (smallulong, ulong or
//   symbol), and nothing else: no trailing bytes;
// - sections come in spec order (header, delivery-annotations, message-annotations, properties,
//   application-properties, body, footer), each at most once, the body being one or more data, or one
//   or more amqp-sequence, or exactly one amqp-value (a message may have no body);
// - every value parses completely: every format code is valid, every size prefix fits the bytes left,
//   a compound's count fits its size and its elements fill its size exactly, a map has an even count,
//   an array's elements all match its single element constructor, a boolean (0x56) is 0 or 1, a char
//   is a Unicode scalar value, a str8/str32 is valid UTF-8 (checked because the selector compares
//   strings by code point), a sym8/sym32 is 7-bit ASCII; nesting is at most kMaxNestingDepth deep;
// - each section's value has its type: header and properties are lists whose fields have their spec
//   types (or null), delivery/message annotations and footer are maps keyed by symbols or ulongs,
//   application-properties is a map with string keys, data is binary, amqp-sequence is a list.
//   Core part 3, section 3.2.5 restricts application-properties values to simple types; validation
//   deliberately accepts list, map and array values there (each still fully checked), because
//   producers send them, other brokers keep them, and the selector language reads inside them
//   (`a.tags[0]`, docs/selector-language.md "Field references"): refusing them would lose messages
//   users expect.
// The first violation is returned as a DecodeError naming the byte offset and the reason.
#ifndef SIFT_ENGINE_AMQP_VALIDATE_H_
#define SIFT_ENGINE_AMQP_VALIDATE_H_

#include <cstdint>
#include <span>

#include "amqp/limits.h"
#include "amqp/decode_error.h"

namespace sift::amqp {

// ok() when `message` is well formed; else the first violation. Never allocates.
DecodeError Validate(std::span<const uint8_t> message);

// Checks that `bytes` hold exactly one complete, well-formed AMQP value (any type, nested values
// checked as above). For values outside messages (e.g. a filter's described value).
DecodeError ValidateValue(std::span<const uint8_t> bytes);

struct MessageLayout;

// Validate's verdict alone (true: well formed), and where the message's header, properties and
// application-properties values and their elements are (*layout, meaningful only when true), found by
// the same walk that checks them. Never allocates.
bool WellFormedMessage(std::span<const uint8_t> message, MessageLayout* layout);

namespace internal {
// The verdicts of Validate / ValidateValue alone (true: ok), from the single-pass walk they take
// first; the DecodeError of a rejected input comes from a second, explaining walk. Exposed so that
// tests can check that the two walks accept exactly the same inputs.
bool WellFormedMessage(std::span<const uint8_t> message);
bool WellFormedValue(std::span<const uint8_t> bytes);
}  // namespace internal

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_VALIDATE_H_
