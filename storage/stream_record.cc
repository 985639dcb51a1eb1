#include "storage/stream_record.h"

#include "base/byte_order.h"
#include "storage/crc32c.h"

namespace sift::storage {

std::string EncodeStreamRecord(const StreamRecord& record) {
  std::string v;
  v.reserve(kStreamRecordSize);
  v.push_back(static_cast<char>(kStreamRecordVersion));
  base::AppendLE32(&v, record.id);
  base::AppendLE64(&v, record.retention.max_bytes);
  base::AppendLE64(&v, static_cast<uint64_t>(record.retention.max_age_ms));
  base::AppendLE64(&v, record.floor);
  base::AppendLE32(&v, crc32c::Value(v.data(), v.size()));
  return v;
}

bool DecodeStreamRecord(std::string_view value, StreamRecord* record) {
  if (value.size() != kStreamRecordSize || static_cast<uint8_t>(value[0]) != kStreamRecordVersion) return false;
  const char* p = value.data();
  if (base::LoadLE32(p + kStreamRecordSize - 4) != crc32c::Value(p, kStreamRecordSize - 4)) return false;
  record->id = base::LoadLE32(p + 1);
  record->retention.max_bytes = base::LoadLE64(p + 5);
  record->retention.max_age_ms = static_cast<int64_t>(base::LoadLE64(p + 13));
  record->floor = base::LoadLE64(p + 21);
  return true;
}

}  // namespace sift::storage
