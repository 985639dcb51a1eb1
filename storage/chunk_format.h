// The chunk format: how a run of consecutive messages of one stream is laid out in one RocksDB value
// (docs/store-format.md, "Chunk format"). Private to storage/.
//
//   header (48 bytes, little-endian):
//     0  magic u32 = 0x43544653 ("SFTC")     4  version u8 = 1      5  flags u8 (0, or 1: zstd)
//     6  header size u16 = 48                8  count u32 (>= 1)   12  records bytes u32
//    16  first offset u64                   24  first timestamp i64 (ms since the Unix epoch)
//    32  last timestamp i64                 40  CRC32C of the stored payload
//    44  CRC32C of header bytes 0..43
//   records: `count` records, each varint64 (timestamp - first timestamp), varint32 length, bytes.
//   stored payload: the records as they are (flags 0), or one zstd frame of them (flags 1).
//
// Invariants checked by DecodeChunk (header, checksums) and by the reader while it decodes records
// with ReadRecord: the payload is exactly `count` well-formed records, every record's timestamp lies
// between the header's first and last timestamps. A value that fails any check is Corruption, never
// a crash or an out-of-range read.
#ifndef SIFT_STORAGE_CHUNK_FORMAT_H_
#define SIFT_STORAGE_CHUNK_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/varint.h"

namespace sift::storage {

inline constexpr uint32_t kChunkMagic = 0x43544653u;
inline constexpr uint8_t kChunkVersion = 1;
inline constexpr size_t kChunkHeaderSize = 48;
inline constexpr uint8_t kChunkFlagZstd = 1;
// The records of one chunk at most, compressed or not: what a header may claim before the reader
// allocates room for them.
inline constexpr uint32_t kMaxChunkRecordsBytes = 1u << 31;

class ChunkCompressor;

struct ChunkHeader {
  uint32_t count = 0;
  uint32_t payload_bytes = 0;  // of the records, uncompressed
  uint32_t stored_bytes = 0;   // of the payload as stored (== payload_bytes unless compressed)
  bool compressed = false;     // the stored payload is a zstd frame of the records
  uint64_t first_offset = 0;
  int64_t first_timestamp_ms = 0;
  int64_t last_timestamp_ms = 0;
  uint32_t payload_crc = 0;
};

// Builds one chunk value. Reuse one builder: Reset keeps its buffers (and its compression context).
class ChunkBuilder {
 public:
  ChunkBuilder();
  ~ChunkBuilder();
  ChunkBuilder(const ChunkBuilder&) = delete;
  ChunkBuilder& operator=(const ChunkBuilder&) = delete;

  void Reset(uint64_t first_offset, int64_t first_timestamp_ms);
  // Appends one record; `timestamp_ms` must be >= the previous one and >= the first timestamp.
  void Add(int64_t timestamp_ms, std::string_view message);
  uint32_t count() const { return count_; }
  size_t payload_bytes() const { return buffer_.size() - kChunkHeaderSize; }
  // Fills in the header and returns the finished value (valid until the next Reset). With a
  // `zstd_level`, the records are stored as a zstd frame at that level when that makes them smaller.
  std::string_view Finish(const int* zstd_level = nullptr);
  // Header and records, uncompressed: what the last Finish stored before compression.
  uint32_t raw_bytes() const { return static_cast<uint32_t>(buffer_.size()); }

  // The bytes one more record of `message_size` bytes would add to the payload.
  static size_t RecordSize(int64_t timestamp_delta, size_t message_size);

 private:
  std::string buffer_;
  std::string compressed_;  // header + zstd frame, when compressing
  std::unique_ptr<ChunkCompressor> compressor_;
  uint64_t first_offset_ = 0;
  int64_t first_ts_ = 0;
  int64_t last_ts_ = 0;
  uint32_t count_ = 0;
};

// The records of messages that share one timestamp (the first: every delta 0), appended to *out: the
// records of a bulk batch, which do not depend on the offset or the time their chunk gets, so they can
// be compressed ahead on other threads.
void AppendRecordsAtOneTime(std::span<const std::string_view> messages, std::string* out);

// The value of a chunk of `count` records, all at `timestamp_ms`, from `first_offset`, whose
// `records_bytes` of records are stored as `zstd_frame` (one zstd frame of them).
void EncodeCompressedChunk(uint64_t first_offset, int64_t timestamp_ms, uint32_t count, uint32_t records_bytes,
                           std::string_view zstd_frame, std::string* value);

// Checks the header (magic, version, size, flags, header CRC) and, if verify_payload, the stored
// payload's CRC. A compressed chunk's records are the reader's to decompress (ChunkDecompressor).
// On failure returns false and sets *why to a short reason ("bad magic", "payload checksum mismatch").
bool DecodeChunk(std::string_view value, bool verify_payload, ChunkHeader* header, const char** why);

// Reads one record at *p (within [*p, limit)); advances *p. Returns false on a malformed record.
// Inline: it runs once per message of every scan.
inline bool ReadRecord(const char** p, const char* limit, int64_t* timestamp_delta, std::string_view* data) {
  uint64_t delta, length;
  const char* q = base::DecodeVarint64(*p, limit, &delta);
  if (q == nullptr || delta > static_cast<uint64_t>(INT64_MAX)) return false;
  q = base::DecodeVarint64(q, limit, &length);
  if (q == nullptr || length > static_cast<uint64_t>(limit - q)) return false;
  *timestamp_delta = static_cast<int64_t>(delta);
  *data = std::string_view(q, length);
  *p = q + length;
  return true;
}

}  // namespace sift::storage

#endif  // SIFT_STORAGE_CHUNK_FORMAT_H_
