// The chunk summary entry: the value of a chunk's "M" key (docs/store-format.md, "Key layout"), which
// holds the chunk's summary for a reader to skip it by. Private to storage/, but for
// SummaryWorthStoring, which the engine's reindexing follows too.
//
//   the chunk's count u32, its bytes before compression (header + records) u32, the summary's bytes
//   (opaque to storage), CRC32C of all that u32; every integer little-endian.
#ifndef SIFT_STORAGE_SUMMARY_ENTRY_FORMAT_H_
#define SIFT_STORAGE_SUMMARY_ENTRY_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::storage {

std::string EncodeSummaryEntry(uint32_t count, uint32_t bytes, std::string_view summary);
// False when the entry is too short, its checksum does not match or it counts no message (the summary
// is then ignored). *summary views `entry`.
bool DecodeSummaryEntry(std::string_view entry, uint32_t* count, uint32_t* bytes, std::string_view* summary);

// Whether a chunk of `chunk_bytes` stored bytes keeps a summary of `summary_bytes`: not when the summary
// is the larger, for a reader would then read more to skip the chunk than to read it. Chunks of a
// message or two (a producer that waits for each message to be stored before it sends the next gets a
// chunk per message) would otherwise store their messages' properties again, twice over.
inline bool SummaryWorthStoring(size_t summary_bytes, uint32_t chunk_bytes) { return summary_bytes <= chunk_bytes; }

}  // namespace sift::storage

#endif  // SIFT_STORAGE_SUMMARY_ENTRY_FORMAT_H_
