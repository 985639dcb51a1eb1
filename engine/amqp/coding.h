// Bounded big-endian readers for encoded AMQP 1.0 bytes, shaped like LevelDB's util/coding.h.
//
// Each ReadX(p, limit, &out) reads at p, stores the value in *out and returns the first byte after it,
// or returns nullptr (leaving *out untouched) when [p, limit) is too short. They never read at or past
// limit, so every higher-level reader in engine/amqp is built on them. AMQP 1.0 is big-endian
// throughout (core part 1, section 1.2).
#ifndef SIFT_ENGINE_AMQP_CODING_H_
#define SIFT_ENGINE_AMQP_CODING_H_

#include <cstddef>
#include <cstdint>

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
  *out = static_cast<uint16_t>((p[0] << 8) | p[1]);
  return p + 2;
}

inline const uint8_t* ReadU32(const uint8_t* p, const uint8_t* limit, uint32_t* out) {
  if (BytesLeft(p, limit) < 4) return nullptr;
  *out = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
  return p + 4;
}

inline const uint8_t* ReadU64(const uint8_t* p, const uint8_t* limit, uint64_t* out) {
  if (BytesLeft(p, limit) < 8) return nullptr;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  *out = v;
  return p + 8;
}

// Unchecked loads, for payloads whose extent a checked read has already established.
inline uint16_t LoadU16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t LoadU32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}
inline uint64_t LoadU64(const uint8_t* p) { return (uint64_t{LoadU32(p)} << 32) | LoadU32(p + 4); }

// Big-endian writers for encoders (record files, tests); `out` must have room.
inline uint8_t* StoreU32(uint8_t* out, uint32_t v) {
  out[0] = static_cast<uint8_t>(v >> 24);
  out[1] = static_cast<uint8_t>(v >> 16);
  out[2] = static_cast<uint8_t>(v >> 8);
  out[3] = static_cast<uint8_t>(v);
  return out + 4;
}

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_CODING_H_
