// The store record (format in store_record_format.h and docs/store-format.md).
#include "storage/store_record_format.h"

#include "base/byte_order.h"

namespace sift::storage {

std::string EncodeStoreRecord(uint32_t next_stream_id) {
  std::string v;
  base::AppendLE32(&v, kStoreFormatVersion);
  base::AppendLE32(&v, next_stream_id);
  return v;
}

bool DecodeStoreRecord(std::string_view value, StoreRecord* record) {
  if (value.size() != kStoreRecordSize) return false;
  record->version = base::LoadLE32(value.data());
  record->next_stream_id = base::LoadLE32(value.data() + 4);
  return true;
}

}  // namespace sift::storage
