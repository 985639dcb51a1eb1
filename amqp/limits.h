// The codec's limits against hostile input, in one place: how deep values may nest for each reader and
// writer, and how many values Proton can hold in one section. A bound a user can meet is named in the
// error that enforces it.
#ifndef SIFT_ENGINE_AMQP_LIMITS_H_
#define SIFT_ENGINE_AMQP_LIMITS_H_

#include <cstdint>

namespace sift::amqp {

// How deep lists / maps / arrays / described values may nest in a message the store accepts (the
// sections themselves are depth 0): the validator's bound (validate.h), which the lazy reader and the
// selector can then rely on.
inline constexpr int kMaxNestingDepth = 100;

// How many descriptors may stand in front of one value (a described value whose value is described
// again, ...), for the readers of encoded_value.h and the validator.
inline constexpr int kMaxDescriptorDepth = 8;

// Deepest nesting of compound values typed JSON accepts in either direction (typed_json.h).
inline constexpr int kMaxJsonDepth = 200;

// The bound of the walks that hand a message to Proton or check that Proton can decode it
// (proton_message.cc, proton_sections.cc, typed_json_writer.cc), in nesting levels as they count
// them. Above kMaxNestingDepth, so that every message the store accepts passes it.
inline constexpr int kMaxProtonWalkDepth = 200;

// Proton keeps a section in one pn_data_t, whose node ids are 16 bits: the typed JSON reader refuses a
// section that fills one, the writer a message whose section would not fit.
inline constexpr uint32_t kMaxSectionNodes = 65535;

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_LIMITS_H_
