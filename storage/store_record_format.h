// The store record: the value of the "G" key (docs/store-format.md, "Key layout"), what the store
// keeps of itself: the format version of what it holds and the next stream id. Private to storage/.
//
//   format version u32, next stream id u32; little-endian, 8 bytes in all.
#ifndef SIFT_STORAGE_STORE_RECORD_FORMAT_H_
#define SIFT_STORAGE_STORE_RECORD_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::storage {

// Version 2 added compressed chunks: index entries carry the bytes before compression, stream records
// the compression. Version 3 added the term index: index entries carry the chunk's term partitions.
// A store of an older version is read as it is and becomes version 3 when opened for writing (what it
// holds stays as it was written).
inline constexpr uint32_t kStoreFormatVersion = 3;
inline constexpr size_t kStoreRecordSize = 4 + 4;

struct StoreRecord {
  uint32_t version = kStoreFormatVersion;
  uint32_t next_stream_id = 0;
};

// The record of a store of the current format version.
std::string EncodeStoreRecord(uint32_t next_stream_id);

// False when `value` is not kStoreRecordSize bytes; any version is read (the store decides which it
// can open).
bool DecodeStoreRecord(std::string_view value, StoreRecord* record);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STORE_RECORD_FORMAT_H_
