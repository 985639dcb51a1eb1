// Typed JSON messages (docs/typed-json.md): one JSON object per message, used for input
// (`sift append`), output (`sift replay -f json`) and tests.
//
// JSON to AMQP goes through Qpid Proton's codec (pn_data_t), so values are encoded exactly as Proton
// encodes them; the header and properties lists are laid out the way pn_message_encode lays them out
// (trailing null fields dropped, list0 when empty, list8 when it fits). AMQP to JSON is one pass over
// the encoded bytes with the shared readers (typed_json_writer.cc), no decoded tree in between, giving
// the text Proton's decoding would. Hence, for any message Proton's pn_message_encode produced,
// EncodeTypedJson(DecodeToTypedJson(bytes)) gives back `bytes` exactly.
// For messages from other encoders the round trip keeps every section, field, type and value, but not
// necessarily the width chosen for each encoding (str8 vs str32, ...) nor the descriptor form
// (ulong vs symbol). docs/typed-json.md specifies the format and every choice it makes.
//
// Errors are values (ConversionStatus), never exceptions.
#ifndef SIFT_ENGINE_AMQP_TYPED_JSON_H_
#define SIFT_ENGINE_AMQP_TYPED_JSON_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "amqp/json_text.h"
#include "amqp/proton_message.h"

namespace sift::amqp {

// Encodes one typed JSON message object (`json`: the text of one line, surrounding whitespace allowed)
// into the AMQP 1.0 bytes of the message, appended to *out (left unchanged on error).
//
// Keys: "offset" (ignored: the store assigns offsets; must be a non-negative integer if present),
// "header", "delivery_annotations", "message_annotations", "properties", "application_properties",
// "body", "footer"; a section that is absent or null is not encoded. Errors name the line (when
// `line` > 0, as "line N: ...") and the key path ("properties.ttl", "body.value[2]"): invalid JSON
// (with its byte position), an unknown key, a value of the wrong kind, a number out of range for its
// type, malformed base64/hex/uuid/decimal text, nesting deeper than kMaxJsonDepth levels (limits.h).
ConversionStatus EncodeTypedJson(std::string_view json, uint64_t line, std::vector<uint8_t>* out);

// Decodes the AMQP 1.0 bytes of one message into one line of typed JSON (no trailing newline), which
// replaces *out. When `offset` has a value, the object starts with "offset": <offset>. Sections and
// fields the message lacks are omitted; keys come in the order docs/typed-json.md gives (offset,
// header, delivery_annotations, message_annotations, properties, application_properties, body,
// footer; fields in spec order). Strings that are not
// valid UTF-8 have their bad bytes replaced by U+FFFD (JSON text must be UTF-8).
//
// Errors ("byte N: reason"): malformed bytes, a message structure that breaks core part 3, section 3.2
// (see DecodeToProton), a header or properties list longer than the spec defines, nesting deeper than
// kMaxJsonDepth levels (limits.h).
ConversionStatus DecodeToTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset, std::string* out);
// The same line appended to *out (left as it was on error): for writers that gather many lines.
ConversionStatus AppendTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset, std::string* out);
// The same, written straight into a JsonText (no copy of the line).
ConversionStatus AppendTypedJson(std::span<const uint8_t> bytes, std::optional<uint64_t> offset, JsonText* out);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_TYPED_JSON_H_
