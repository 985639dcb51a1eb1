// The chunk index entry: the value of a chunk's "I" key (docs/store-format.md, "Key layout"), what
// opening a store, seeking and retention read of a chunk instead of the chunk. Private to storage/.
//
//   count u32, stored bytes u32, bytes before compression u32 (header + records), first timestamp
//   i64, last timestamp i64, term partitions u64 (bit p: the chunk has a term entry in partition p),
//   flags u8 (bit 0: the chunk's terms are complete), CRC32C of the preceding 37 bytes u32; every
//   integer little-endian, 41 bytes in all. Store format 2 wrote 32 bytes (no term partitions and
//   flags), format 1 28 (no bytes before compression: they are the stored bytes); both are read.
#ifndef SIFT_STORAGE_INDEX_ENTRY_FORMAT_H_
#define SIFT_STORAGE_INDEX_ENTRY_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/retention.h"

namespace sift::storage {

inline constexpr size_t kIndexEntrySize = 4 + 4 + 4 + 8 + 8 + 8 + 1 + 4;
inline constexpr size_t kIndexEntryV2Size = 4 + 4 + 4 + 8 + 8 + 4;
inline constexpr size_t kIndexEntryV1Size = 4 + 4 + 8 + 8 + 4;
inline constexpr uint8_t kIndexTermsComplete = 1;

// The entry of chunk `meta` (all but its first offset, which is the key's), of the current format.
std::string EncodeIndexEntry(const ChunkMeta& meta);

// Reads an entry of any format into *meta, whose first offset is `first_offset` (the key's). False
// when it is damaged: a size of no format, a checksum mismatch, no messages, or fewer bytes than a
// chunk header.
bool DecodeIndexEntry(std::string_view entry, uint64_t first_offset, ChunkMeta* meta);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_INDEX_ENTRY_FORMAT_H_
