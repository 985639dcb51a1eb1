// The value of a stream's "S" + name key (docs/store-format.md, "Key layout"): what the store keeps
// of a stream besides its chunks. Private to storage/.
//
//   version u8 (= 1), id u32, retention max bytes u64, retention max age ms i64, offset floor u64,
//   CRC32C of the preceding 29 bytes u32; every integer little-endian, 33 bytes in all.
#ifndef SIFT_STORAGE_STREAM_RECORD_H_
#define SIFT_STORAGE_STREAM_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/options.h"

namespace sift::storage {

inline constexpr uint8_t kStreamRecordVersion = 1;
inline constexpr size_t kStreamRecordSize = 1 + 4 + 8 + 8 + 8 + 4;

struct StreamRecord {
  uint32_t id = 0;
  RetentionPolicy retention;
  uint64_t floor = 0;  // the first offset not deleted by retention

  bool operator==(const StreamRecord&) const = default;
};

std::string EncodeStreamRecord(const StreamRecord& record);

// False when `value` is not a stream record of this version: wrong size, version or checksum.
bool DecodeStreamRecord(std::string_view value, StreamRecord* record);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STREAM_RECORD_H_
