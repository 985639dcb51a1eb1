// Stream records (format in stream_record_format.h and docs/store-format.md).
#include "storage/stream_record_format.h"

#include "base/byte_order.h"
#include "storage/crc32c.h"

namespace sift::storage {

std::string EncodeStreamRecord(const StreamRecord& record) {
  std::string v;
  v.reserve(kStreamRecordSize);
  v.push_back(static_cast<char>(kStreamRecordVersion));
  base::AppendLE32(&v, record.id);
  base::AppendLE64(&v, record.retention.max_bytes);
  base::AppendLE64(&v, static_cast<uint64_t>(record.retention.max_age.count()));
  base::AppendLE64(&v, record.floor);
  v.push_back(static_cast<char>(record.compression.codec));
  v.push_back(static_cast<char>(static_cast<int8_t>(record.compression.level)));
  base::AppendLE32(&v, crc32c::Value(v.data(), v.size()));
  return v;
}

bool DecodeStreamRecord(std::string_view value, StreamRecord* record) {
  if (value.empty()) return false;
  const uint8_t version = static_cast<uint8_t>(value[0]);
  const size_t size = version == 1 ? kStreamRecordV1Size : kStreamRecordSize;
  if ((version != 1 && version != kStreamRecordVersion) || value.size() != size) return false;
  const char* p = value.data();
  if (base::LoadLE32(p + size - 4) != crc32c::Value(p, size - 4)) return false;
  record->id = base::LoadLE32(p + 1);
  record->retention.max_bytes = base::LoadLE64(p + 5);
  record->retention.max_age = std::chrono::milliseconds(static_cast<int64_t>(base::LoadLE64(p + 13)));
  record->floor = base::LoadLE64(p + 21);
  record->compression = ChunkCompression();
  if (version == 1) return true;
  const uint8_t codec = static_cast<uint8_t>(p[29]);
  const int level = static_cast<int8_t>(p[30]);
  if (codec > static_cast<uint8_t>(ChunkCompression::Codec::kZstd) || level < kMinZstdLevel || level > kMaxZstdLevel)
    return false;
  record->compression.codec = static_cast<ChunkCompression::Codec>(codec);
  record->compression.level = level;
  return true;
}

}  // namespace sift::storage
