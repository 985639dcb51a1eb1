// Chunk encoding and checking (format in chunk_format.h and docs/store-format.md).
#include "storage/chunk_format.h"

#include <cstring>

#include "storage/crc32c.h"

namespace sift::storage {
namespace {

void PutLE(char* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) {
    p[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
}
uint64_t GetLE(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void AppendVarint(std::string* out, uint64_t v) {
  char buf[10];
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}

}  // namespace

size_t ChunkBuilder::RecordSize(int64_t timestamp_delta, size_t message_size) {
  return VarintLength(static_cast<uint64_t>(timestamp_delta)) + VarintLength(message_size) + message_size;
}

void ChunkBuilder::Reset(uint64_t first_offset, int64_t first_timestamp_ms) {
  buffer_.assign(kChunkHeaderSize, '\0');
  first_offset_ = first_offset;
  first_ts_ = first_timestamp_ms;
  last_ts_ = first_timestamp_ms;
  count_ = 0;
}

void ChunkBuilder::Add(int64_t timestamp_ms, std::string_view message) {
  AppendVarint(&buffer_, static_cast<uint64_t>(timestamp_ms - first_ts_));
  AppendVarint(&buffer_, message.size());
  buffer_.append(message);
  last_ts_ = timestamp_ms;
  ++count_;
}

std::string_view ChunkBuilder::Finish() {
  char* h = buffer_.data();
  const size_t payload = buffer_.size() - kChunkHeaderSize;
  PutLE(h + 0, kChunkMagic, 4);
  PutLE(h + 4, kChunkVersion, 1);
  PutLE(h + 5, 0, 1);
  PutLE(h + 6, kChunkHeaderSize, 2);
  PutLE(h + 8, count_, 4);
  PutLE(h + 12, payload, 4);
  PutLE(h + 16, first_offset_, 8);
  PutLE(h + 24, static_cast<uint64_t>(first_ts_), 8);
  PutLE(h + 32, static_cast<uint64_t>(last_ts_), 8);
  PutLE(h + 40, crc32c::Value(h + kChunkHeaderSize, payload), 4);
  PutLE(h + 44, crc32c::Value(h, 44), 4);
  return buffer_;
}

bool DecodeChunk(std::string_view value, bool verify_payload, ChunkHeader* header, const char** why) {
  if (value.size() < kChunkHeaderSize) {
    *why = "value shorter than a chunk header";
    return false;
  }
  const char* h = value.data();
  if (GetLE(h + 44, 4) != crc32c::Value(h, 44)) {
    *why = "header checksum mismatch";
    return false;
  }
  if (GetLE(h, 4) != kChunkMagic) {
    *why = "bad magic";
    return false;
  }
  if (GetLE(h + 4, 1) != kChunkVersion) {
    *why = "unsupported chunk version";
    return false;
  }
  if (GetLE(h + 6, 2) != kChunkHeaderSize || GetLE(h + 5, 1) != 0) {
    *why = "bad header size or flags";
    return false;
  }
  header->count = static_cast<uint32_t>(GetLE(h + 8, 4));
  header->payload_bytes = static_cast<uint32_t>(GetLE(h + 12, 4));
  header->first_offset = GetLE(h + 16, 8);
  header->first_timestamp_ms = static_cast<int64_t>(GetLE(h + 24, 8));
  header->last_timestamp_ms = static_cast<int64_t>(GetLE(h + 32, 8));
  header->payload_crc = static_cast<uint32_t>(GetLE(h + 40, 4));
  if (header->count == 0) {
    *why = "empty chunk";
    return false;
  }
  if (header->payload_bytes != value.size() - kChunkHeaderSize) {
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
  if (verify_payload && crc32c::Value(h + kChunkHeaderSize, header->payload_bytes) != header->payload_crc) {
    *why = "payload checksum mismatch";
    return false;
  }
  return true;
}

}  // namespace sift::storage

namespace sift::storage {

std::string EncodeSummaryEntry(uint32_t count, uint32_t bytes, std::string_view summary) {
  std::string entry(8 + summary.size() + 4, '\0');
  PutLE(entry.data(), count, 4);
  PutLE(entry.data() + 4, bytes, 4);
  if (!summary.empty()) std::memcpy(entry.data() + 8, summary.data(), summary.size());
  PutLE(entry.data() + 8 + summary.size(), crc32c::Value(entry.data(), 8 + summary.size()), 4);
  return entry;
}

bool DecodeSummaryEntry(std::string_view entry, uint32_t* count, uint32_t* bytes, std::string_view* summary) {
  if (entry.size() < 12) return false;
  const size_t body = entry.size() - 4;
  if (GetLE(entry.data() + body, 4) != crc32c::Value(entry.data(), body)) return false;
  *count = static_cast<uint32_t>(GetLE(entry.data(), 4));
  *bytes = static_cast<uint32_t>(GetLE(entry.data() + 4, 4));
  *summary = entry.substr(8, body - 8);
  return *count > 0;
}

}  // namespace sift::storage
