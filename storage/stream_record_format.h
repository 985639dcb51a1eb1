// The value of a stream's "S" + name key (docs/store-format.md, "Key layout"): what the store keeps
// of a stream besides its chunks. Private to storage/.
//
//   version u8 (= 2), id u32, retention max bytes u64, retention max age ms i64, offset floor u64,
//   compression codec u8, zstd level i8, CRC32C of the preceding 31 bytes u32; every integer
//   little-endian, 35 bytes in all. Version 1 (33 bytes, no compression fields) is read as
//   uncompressed.
#ifndef SIFT_STORAGE_STREAM_RECORD_FORMAT_H_
#define SIFT_STORAGE_STREAM_RECORD_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/options.h"

namespace sift::storage {

inline constexpr uint8_t kStreamRecordVersion = 2;
inline constexpr size_t kStreamRecordSize = 1 + 4 + 8 + 8 + 8 + 1 + 1 + 4;
inline constexpr size_t kStreamRecordV1Size = 1 + 4 + 8 + 8 + 8 + 4;

struct StreamRecord {
  uint32_t id = 0;
  RetentionPolicy retention;
  uint64_t floor = 0;  // the first offset not deleted by retention
  ChunkCompression compression;

  bool operator==(const StreamRecord&) const = default;
};

std::string EncodeStreamRecord(const StreamRecord& record);

// False when `value` is not a stream record of a known version: wrong size, version or checksum, or an
// unknown codec.
bool DecodeStreamRecord(std::string_view value, StreamRecord* record);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STREAM_RECORD_FORMAT_H_
