// LEB128 varints: an unsigned integer in groups of 7 bits, least significant first, the high bit of
// each byte set while more follow (1 to 10 bytes for 64 bits). The chunk records' timestamps and
// lengths and the chunk summaries' counts and sizes are stored so (docs/store-format.md); both read
// and write them here, so the two cannot come to disagree.
//
// Decoding is bounded (the LevelDB GetVarint64 shape): it reads no byte at or past `limit` and
// reports a truncated input (the bytes end while the high bit asks for more) or an overlong one (more
// than 10 bytes, or a tenth byte whose bits do not fit in 64) by returning nullptr, never a wrong
// value. An encoding padded with zero groups (0x80 0x00 for 0) is read as its value: stored bytes
// written before this decoder were read so. Everything is inline: decoding runs twice per message of
// every scan.
#ifndef SIFT_BASE_VARINT_H_
#define SIFT_BASE_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace sift::base {

inline constexpr size_t kMaxVarint64Bytes = 10;

// The number of bytes AppendVarint64 appends for v.
constexpr size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Appends v to *out in one append: a summary of a small chunk is mostly varints, and a push_back per
// byte cost more than the rest of its encoding.
inline void AppendVarint64(std::string* out, uint64_t v) {
  char bytes[kMaxVarint64Bytes];
  size_t n = 0;
  // 64 bits leave at most 9 bytes with the high bit set; the bound says so to the compiler too, which
  // otherwise warns of an overrun it cannot rule out.
  for (; v >= 0x80 && n < kMaxVarint64Bytes - 1; ++n) {
    bytes[n] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  bytes[n++] = static_cast<char>(v);
  out->append(bytes, n);
}

// Reads a varint from [p, limit) into *out; returns where it ends, or nullptr (and *out untouched)
// when the input is truncated or overlong.
inline const char* DecodeVarint64(const char* p, const char* limit, uint64_t* out) {
  if (p < limit && static_cast<uint8_t>(*p) < 0x80) {  // the common one-byte case
    *out = static_cast<uint8_t>(*p);
    return p + 1;
  }
  uint64_t result = 0;
  for (uint32_t shift = 0; shift <= 63 && p < limit; shift += 7) {
    const uint64_t byte = static_cast<uint8_t>(*p++);
    if (shift == 63 && byte > 1) return nullptr;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *out = result;
      return p;
    }
  }
  return nullptr;
}

}  // namespace sift::base

#endif  // SIFT_BASE_VARINT_H_
