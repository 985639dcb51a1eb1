// Full decode of one encoded AMQP 1.0 message into a Qpid Proton `pn_message_t`.
//
// This is the slow path of sift: it runs only for messages a selector delivered (the fast path reads
// fields in place through MessageView). It is stricter than Proton's own `pn_message_decode`, which
// silently ignores sections with symbol descriptors, keeps only the last of repeated sections, takes an
// unknown descriptor for a body and drops properties of unexpected types: here every section of core
// part 3, section 3.2 is recognised by its ulong or its symbol descriptor, and anything `pn_message_t`
// cannot hold faithfully is an error, never a silent loss.
//
// Errors are values (ConversionStatus), never exceptions; messages name the byte offset and the reason.
#ifndef SIFT_ENGINE_AMQP_PROTON_MESSAGE_H_
#define SIFT_ENGINE_AMQP_PROTON_MESSAGE_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace sift::amqp {

// The outcome of a full decode or of a typed JSON conversion: ok, or an error message that says where
// ("byte 42", "line 3: properties.ttl") and why.
class [[nodiscard]] ConversionStatus {
 public:
  static ConversionStatus Ok() { return ConversionStatus(); }
  static ConversionStatus Error(std::string message) { return ConversionStatus(std::move(message)); }

  bool ok() const { return !failed_; }
  const std::string& error() const { return error_; }

 private:
  ConversionStatus() = default;
  explicit ConversionStatus(std::string message) : failed_(true), error_(std::move(message)) {}

  bool failed_ = false;
  std::string error_;
};

// Decodes `bytes` (one message: its sections back to back, as in a record of a record file,
// docs/record-format.md) into `*out`.
//
// `out` is owned by the caller; it is cleared first, so a reused message carries nothing over. Proton
// copies every value it keeps, so nothing in `*out` refers to `bytes` after the call. On error `*out`
// is left cleared-or-partly-filled and must not be used.
//
// Mapping (core part 3, section 3.2): header fields into the header setters (an absent field keeps its
// default); delivery-annotations, message-annotations and application-properties maps into
// pn_message_instructions / annotations / properties; the 13 properties fields into their setters
// (message-id and correlation-id keep their AMQP type; to, subject, reply-to, group-id and
// reply-to-group-id accept a string or a symbol); the body into pn_message_body: an amqp-value section
// as its value, one data section as its binary and one amqp-sequence section as its list, both with
// the message marked inferred (Proton's convention). When `footer` is non-null the footer map is
// copied into it (cleared first; left empty when the message has none) since pn_message_t cannot hold
// a footer; when it is null the footer is checked and dropped.
//
// Errors (each names the byte offset of the section and the reason): malformed or truncated bytes,
// a value that is not a described section, an unknown section descriptor, sections out of spec order
// or repeated, a section or field of the wrong type, and what pn_message_t cannot represent: several
// data or amqp-sequence sections, a string field holding a NUL byte, a header or properties list with
// more fields than the spec defines.
ConversionStatus DecodeToProton(std::span<const uint8_t> bytes, pn_message_t* out, pn_data_t* footer = nullptr);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_PROTON_MESSAGE_H_
