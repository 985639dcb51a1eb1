// Chunk encoding and checking (format in chunk_format.h and docs/store-format.md).
#include "storage/chunk_format.h"

#include "base/byte_order.h"
#include "base/varint.h"
#include "storage/chunk_compression.h"
#include "storage/crc32c.h"

namespace sift::storage {
namespace {

// Fills in the 48 header bytes at h, for a stored payload of `stored` bytes after it.
void WriteHeader(char* h, uint8_t flags, uint32_t count, size_t records_bytes, uint64_t first_offset, int64_t first_ts,
                 int64_t last_ts, size_t stored) {
  base::StoreLE32(h, kChunkMagic);
  h[4] = static_cast<char>(kChunkVersion);
  h[5] = static_cast<char>(flags);
  base::StoreLE16(h + 6, static_cast<uint16_t>(kChunkHeaderSize));
  base::StoreLE32(h + 8, count);
  base::StoreLE32(h + 12, static_cast<uint32_t>(records_bytes));
  base::StoreLE64(h + 16, first_offset);
  base::StoreLE64(h + 24, static_cast<uint64_t>(first_ts));
  base::StoreLE64(h + 32, static_cast<uint64_t>(last_ts));
  base::StoreLE32(h + 40, crc32c::Value(h + kChunkHeaderSize, stored));
  base::StoreLE32(h + 44, crc32c::Value(h, 44));
}

}  // namespace

void AppendRecordsAtOneTime(std::span<const std::string_view> messages, std::string* out) {
  for (const std::string_view m : messages) {
    base::AppendVarint64(out, 0);
    base::AppendVarint64(out, m.size());
    out->append(m);
  }
}

void EncodeCompressedChunk(uint64_t first_offset, int64_t timestamp_ms, uint32_t count, uint32_t records_bytes,
                           std::string_view zstd_frame, std::string* value) {
  value->assign(kChunkHeaderSize, '\0');
  value->append(zstd_frame);
  WriteHeader(value->data(), kChunkFlagZstd, count, records_bytes, first_offset, timestamp_ms, timestamp_ms,
              zstd_frame.size());
}

size_t ChunkBuilder::RecordSize(int64_t timestamp_delta, size_t message_size) {
  return base::VarintLength(static_cast<uint64_t>(timestamp_delta)) + base::VarintLength(message_size) + message_size;
}

ChunkBuilder::ChunkBuilder() = default;
ChunkBuilder::~ChunkBuilder() = default;

void ChunkBuilder::Reset(uint64_t first_offset, int64_t first_timestamp_ms) {
  buffer_.assign(kChunkHeaderSize, '\0');
  first_offset_ = first_offset;
  first_ts_ = first_timestamp_ms;
  last_ts_ = first_timestamp_ms;
  count_ = 0;
}

void ChunkBuilder::Add(int64_t timestamp_ms, std::string_view message) {
  base::AppendVarint64(&buffer_, static_cast<uint64_t>(timestamp_ms - first_ts_));
  base::AppendVarint64(&buffer_, message.size());
  buffer_.append(message);
  last_ts_ = timestamp_ms;
  ++count_;
}

std::string_view ChunkBuilder::Finish(const int* zstd_level) {
  const size_t payload = buffer_.size() - kChunkHeaderSize;
  std::string* value = &buffer_;
  if (zstd_level != nullptr) {
    if (compressor_ == nullptr) compressor_ = std::make_unique<ChunkCompressor>();
    compressed_.assign(kChunkHeaderSize, '\0');
    const std::string_view records(buffer_.data() + kChunkHeaderSize, payload);
    if (compressor_->Compress(records, *zstd_level, &compressed_)) value = &compressed_;
  }
  WriteHeader(value->data(), value == &compressed_ ? kChunkFlagZstd : 0, count_, payload, first_offset_, first_ts_,
              last_ts_, value->size() - kChunkHeaderSize);
  return *value;
}

bool DecodeChunk(std::string_view value, bool verify_payload, ChunkHeader* header, const char** why) {
  if (value.size() < kChunkHeaderSize) {
    *why = "value shorter than a chunk header";
    return false;
  }
  const char* h = value.data();
  if (base::LoadLE32(h + 44) != crc32c::Value(h, 44)) {
    *why = "header checksum mismatch";
    return false;
  }
  if (base::LoadLE32(h) != kChunkMagic) {
    *why = "bad magic";
    return false;
  }
  if (static_cast<uint8_t>(h[4]) != kChunkVersion) {
    *why = "unsupported chunk version";
    return false;
  }
  const uint8_t flags = static_cast<uint8_t>(h[5]);
  if (base::LoadLE16(h + 6) != kChunkHeaderSize || (flags != 0 && flags != kChunkFlagZstd)) {
    *why = "bad header size or flags";
    return false;
  }
  header->compressed = flags == kChunkFlagZstd;
  header->stored_bytes = static_cast<uint32_t>(value.size() - kChunkHeaderSize);
  header->count = base::LoadLE32(h + 8);
  header->payload_bytes = base::LoadLE32(h + 12);
  header->first_offset = base::LoadLE64(h + 16);
  header->first_timestamp_ms = static_cast<int64_t>(base::LoadLE64(h + 24));
  header->last_timestamp_ms = static_cast<int64_t>(base::LoadLE64(h + 32));
  header->payload_crc = base::LoadLE32(h + 40);
  if (header->count == 0) {
    *why = "empty chunk";
    return false;
  }
  if (header->compressed ? header->stored_bytes == 0 || header->payload_bytes > kMaxChunkRecordsBytes
                         : header->payload_bytes != value.size() - kChunkHeaderSize) {
    *why = "payload size does not match the value size";
    return false;
  }
  if (header->last_timestamp_ms < header->first_timestamp_ms) {
    *why = "last timestamp before first timestamp";
    return false;
  }
  if (header->first_offset + header->count < header->first_offset) {
    *why = "offset range overflows";
    return false;
  }
  if (verify_payload && crc32c::Value(h + kChunkHeaderSize, header->stored_bytes) != header->payload_crc) {
    *why = "payload checksum mismatch";
    return false;
  }
  return true;
}

}  // namespace sift::storage
