// Chunk index entries (format in index_entry_format.h and docs/store-format.md).
#include "storage/index_entry_format.h"

#include "base/byte_order.h"
#include "storage/chunk_format.h"
#include "storage/crc32c.h"

namespace sift::storage {

std::string EncodeIndexEntry(const ChunkMeta& m) {
  std::string v;
  v.reserve(kIndexEntrySize);
  base::AppendLE32(&v, m.count);
  base::AppendLE32(&v, m.bytes);
  base::AppendLE32(&v, m.raw_bytes);
  base::AppendLE64(&v, static_cast<uint64_t>(m.first_timestamp_ms));
  base::AppendLE64(&v, static_cast<uint64_t>(m.last_timestamp_ms));
  base::AppendLE64(&v, m.term_partitions);
  v.push_back(static_cast<char>(m.terms_complete ? kIndexTermsComplete : 0));
  base::AppendLE32(&v, crc32c::Value(v.data(), v.size()));
  return v;
}

bool DecodeIndexEntry(std::string_view v, uint64_t first_offset, ChunkMeta* m) {
  if (v.size() != kIndexEntrySize && v.size() != kIndexEntryV2Size && v.size() != kIndexEntryV1Size) return false;
  const size_t body = v.size() - 4;
  if (base::LoadLE32(v.data() + body) != crc32c::Value(v.data(), body)) return false;
  const bool v1 = v.size() == kIndexEntryV1Size;
  const char* ts = v.data() + (v1 ? 8 : 12);
  m->first_offset = first_offset;
  m->count = base::LoadLE32(v.data());
  m->bytes = base::LoadLE32(v.data() + 4);
  m->raw_bytes = v1 ? m->bytes : base::LoadLE32(v.data() + 8);
  m->first_timestamp_ms = static_cast<int64_t>(base::LoadLE64(ts));
  m->last_timestamp_ms = static_cast<int64_t>(base::LoadLE64(ts + 8));
  if (v.size() == kIndexEntrySize) {
    m->term_partitions = base::LoadLE64(ts + 16);
    m->terms_complete = (static_cast<uint8_t>(ts[24]) & kIndexTermsComplete) != 0;
  }
  return m->count > 0 && m->raw_bytes >= kChunkHeaderSize;
}

}  // namespace sift::storage
