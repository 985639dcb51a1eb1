// Bounded big-endian readers for encoded AMQP 1.0 bytes, shaped like LevelDB's util/coding.h.
//
// Each ReadX(p, limit, &out) reads at p, stores the value in *out and returns the first byte after it,
// or returns nullptr (leaving *out untouched) when [p, limit) is too short. They never read at or past
// limit, so every higher-level reader in amqp is built on them. AMQP 1.0 is big-endian
// throughout (core part 1, section 1.2): the loads themselves, and the unchecked loads and stores for
// payloads whose extent is already established, are base/byte_order.h's LoadBE* / StoreBE*.
#ifndef SIFT_ENGINE_AMQP_CODING_H_
#define SIFT_ENGINE_AMQP_CODING_H_

#include <cstddef>
#include <cstdint>

#include "base/byte_order.h"

namespace sift::amqp {

inline size_t BytesLeft(const uint8_t* p, const uint8_t* limit) {
  return p < limit ? static_cast<size_t>(limit - p) : 0;
}

inline const uint8_t* ReadU8(const uint8_t* p, const uint8_t* limit, uint8_t* out) {
  if (BytesLeft(p, limit) < 1) return nullptr;
  *out = p[0];
  return p + 1;
}

inline const uint8_t* ReadU16(const uint8_t* p, const uint8_t* limit, uint16_t* out) {
  if (BytesLeft(p, limit) < 2) return nullptr;
  *out = base::LoadBE16(p);
  return p + 2;
}

inline const uint8_t* ReadU32(const uint8_t* p, const uint8_t* limit, uint32_t* out) {
  if (BytesLeft(p, limit) < 4) return nullptr;
  *out = base::LoadBE32(p);
  return p + 4;
}

inline const uint8_t* ReadU64(const uint8_t* p, const uint8_t* limit, uint64_t* out) {
  if (BytesLeft(p, limit) < 8) return nullptr;
  *out = base::LoadBE64(p);
  return p + 8;
}

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_CODING_H_
