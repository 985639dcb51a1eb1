// Where the header, properties and application-properties of a well-formed message sit, as
// validation met them (WellFormedMessage, validate.h): each section's value and where each of its
// elements starts. A reader of those fields that validates anyway (a bulk load summarizing its
// chunks) then reads them without walking the message a second time.
#ifndef SIFT_ENGINE_AMQP_MESSAGE_LAYOUT_H_
#define SIFT_ENGINE_AMQP_MESSAGE_LAYOUT_H_

#include <cstddef>
#include <cstdint>

#include "amqp/message_view.h"

namespace sift::amqp {

// A section's list or map value: [at, end) is its whole encoding (nullptr: no such section).
// elements[i] is where element i starts for i < count, and elements[count] where element count - 1
// ends, which is `end` when complete. At most kMax elements are laid out; complete is false when the
// value has more.
template <size_t kMaxElements>
struct LaidOutCompound {
  static constexpr uint32_t kMax = static_cast<uint32_t>(kMaxElements);
  const uint8_t* at = nullptr;
  const uint8_t* end = nullptr;
  uint32_t count = 0;
  bool complete = true;
  const uint8_t* elements[kMax + 1];
};

// The application-properties entries laid out: a message with more is laid out up to here.
inline constexpr size_t kLaidOutPropertyEntries = 64;

struct MessageLayout {
  LaidOutCompound<kHeaderFieldCount> header;  // fields past the spec's are not laid out
  LaidOutCompound<kPropertiesFieldCount> properties;
  LaidOutCompound<2 * kLaidOutPropertyEntries> application_properties;  // key, value, key, value, ...
};

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_MESSAGE_LAYOUT_H_
