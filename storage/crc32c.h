// CRC32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78), the checksum of chunk headers and
// payloads (docs/store-format.md). The implementation is chosen once at startup from the CPU's
// features: carry-less multiplication folding (PCLMULQDQ + SSE4.2), three interleaved SSE4.2 crc32
// streams, or a slicing-by-8 table; all give identical results (tests compare them). RocksDB's own
// crc32c is not in its public headers (only a file-checksum factory is), so storage carries its own.
#ifndef SIFT_STORAGE_CRC32C_H_
#define SIFT_STORAGE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace sift::storage::crc32c {

// Extends `crc` (the CRC32C of some preceding bytes; 0 for none) with `n` bytes at `data`.
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// The portable table implementation, exposed so tests can compare it with the hardware one.
uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n);

// True if Extend uses CPU instructions (SSE4.2, and PCLMULQDQ when present) on the CPU it runs on.
bool IsHardwareAccelerated();

}  // namespace sift::storage::crc32c

#endif  // SIFT_STORAGE_CRC32C_H_
