// The RocksDB key layout of the stream store (docs/store-format.md, "Key layout"). Private to storage/.
//
//   "G"                              store record: format version, next stream id (store_record_format.h)
//   "S" + name                       stream record: id, retention, offset floor (stream_record_format.h)
//   "C" + id (u32 BE) + first (u64 BE)   chunk value (chunk_format.h)
//   "I" + id (u32 BE) + first (u64 BE)   chunk index entry: count, bytes, first/last timestamp
//                                        (index_entry_format.h)
//   "M" + id (u32 BE) + first (u64 BE)   chunk summary: count, bytes, opaque summary, checksum
//                                        (summary_entry_format.h)
//   "T" + id (u32 BE) + partition (u8) + first (u64 BE)   a chunk's terms of one partition (term_index.h)
//
// Big-endian integers make RocksDB's bytewise order equal numeric order, so a forward iteration over
// "C" + id visits a stream's chunks in offset order. Stream ids are never reused.
#ifndef SIFT_STORAGE_KEY_LAYOUT_H_
#define SIFT_STORAGE_KEY_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/byte_order.h"

namespace sift::storage::keys {

inline constexpr char kStoreKey[] = "G";
inline constexpr char kStreamPrefix = 'S';
inline constexpr char kChunkPrefix = 'C';
inline constexpr char kIndexPrefix = 'I';
inline constexpr char kSummaryPrefix = 'M';
inline constexpr char kTermPrefix = 'T';
inline constexpr size_t kChunkKeySize = 1 + 4 + 8;
inline constexpr size_t kTermKeySize = 1 + 4 + 1 + 8;

inline std::string StreamKey(std::string_view name) {
  std::string k(1, kStreamPrefix);
  k.append(name);
  return k;
}

// A chunk or index key: prefix + id + first offset.
inline std::string OffsetKey(char prefix, uint32_t id, uint64_t first_offset) {
  std::string k(kChunkKeySize, '\0');
  k[0] = prefix;
  base::StoreBE32(&k[1], id);
  base::StoreBE64(&k[5], first_offset);
  return k;
}
inline std::string ChunkKey(uint32_t id, uint64_t first_offset) { return OffsetKey(kChunkPrefix, id, first_offset); }
inline std::string IndexKey(uint32_t id, uint64_t first_offset) { return OffsetKey(kIndexPrefix, id, first_offset); }
inline std::string SummaryKey(uint32_t id, uint64_t first_offset) {
  return OffsetKey(kSummaryPrefix, id, first_offset);
}

// A term entry's key: its partition's entries follow one another in chunk order.
inline std::string TermKey(uint32_t id, uint32_t partition, uint64_t first_offset) {
  std::string k(kTermKeySize, '\0');
  k[0] = kTermPrefix;
  base::StoreBE32(&k[1], id);
  k[5] = static_cast<char>(partition);
  base::StoreBE64(&k[6], first_offset);
  return k;
}
// The first key after every term entry of stream `id` in `partition`, and the first of them.
inline std::string TermPartitionBegin(uint32_t id, uint32_t partition) { return TermKey(id, partition, 0); }
inline std::string TermPartitionEnd(uint32_t id, uint32_t partition) {
  std::string k = TermKey(id, partition, 0);
  k.resize(6);
  k[5] = static_cast<char>(partition + 1);  // partitions stop below 255
  return k;
}
// Parses a term key of stream `id` in `partition`; false if it is not one.
inline bool ParseTermKey(std::string_view key, uint32_t id, uint32_t partition, uint64_t* first_offset) {
  if (key.size() != kTermKeySize || key[0] != kTermPrefix || base::LoadBE32(key.data() + 1) != id ||
      static_cast<uint8_t>(key[5]) != partition)
    return false;
  *first_offset = base::LoadBE64(key.data() + 6);
  return true;
}

// The first key after every key of stream `id` under `prefix` (an exclusive upper bound).
inline std::string StreamEnd(char prefix, uint32_t id) {
  std::string k(5, '\0');
  k[0] = prefix;
  base::StoreBE32(&k[1], id);
  // id + 1 may overflow only for id 0xffffffff, which is never allocated (ids stop below it).
  base::StoreBE32(&k[1], id + 1);
  return k;
}
inline std::string StreamBegin(char prefix, uint32_t id) {
  std::string k(5, '\0');
  k[0] = prefix;
  base::StoreBE32(&k[1], id);
  return k;
}

// Parses a chunk/index key of stream `id`; false if it is not one.
inline bool ParseOffsetKey(std::string_view key, char prefix, uint32_t id, uint64_t* first_offset) {
  if (key.size() != kChunkKeySize || key[0] != prefix || base::LoadBE32(key.data() + 1) != id) return false;
  *first_offset = base::LoadBE64(key.data() + 5);
  return true;
}

}  // namespace sift::storage::keys

#endif  // SIFT_STORAGE_KEY_LAYOUT_H_
