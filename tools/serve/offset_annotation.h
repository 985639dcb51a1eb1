// Adds the message annotation `x-stream-offset` (a long, as RabbitMQ streams send it) to the encoded
// bytes of a stored message, so that every delivery tells the consumer its offset; and, on the first
// delivery after offsets that retention deleted before the consumer read them,
// `x-opt-sift-retention-skipped` (a long: how many offsets were passed over since the delivery before).
//
// The bytes are rewritten section by section, never decoded into objects: sections before the
// message annotations are copied, the message-annotations map is re-encoded as a map32 holding the
// original entries (any earlier `x-stream-offset` or `x-opt-sift-retention-skipped` entry dropped, so
// keys stay unique, core part 1, section 1.6.23) plus ours, and the rest is copied. A message without message
// annotations gets the section inserted in spec order (core part 3, section 3.2): after header and delivery
// annotations, before everything else.
#ifndef SIFT_TOOLS_SERVE_OFFSET_ANNOTATION_H_
#define SIFT_TOOLS_SERVE_OFFSET_ANNOTATION_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace sift::tools {

inline constexpr std::string_view kStreamOffsetAnnotation = "x-stream-offset";
inline constexpr std::string_view kRetentionSkippedAnnotation = "x-opt-sift-retention-skipped";

// Writes `message` with the annotations into *out (replaced): the offset, and `retention_skipped` when
// it is not 0. False (and *out unspecified) when the bytes are not a sequence of well-formed sections.
bool AddOffsetAnnotation(std::string_view message, uint64_t offset, std::string* out, uint64_t retention_skipped = 0);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_OFFSET_ANNOTATION_H_
