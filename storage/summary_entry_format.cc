// Chunk summary entries (format in summary_entry_format.h and docs/store-format.md).
#include "storage/summary_entry_format.h"

#include <cstring>

#include "base/byte_order.h"
#include "storage/crc32c.h"

namespace sift::storage {

std::string EncodeSummaryEntry(uint32_t count, uint32_t bytes, std::string_view summary) {
  std::string entry(8 + summary.size() + 4, '\0');
  base::StoreLE32(entry.data(), count);
  base::StoreLE32(entry.data() + 4, bytes);
  if (!summary.empty()) std::memcpy(entry.data() + 8, summary.data(), summary.size());
  base::StoreLE32(entry.data() + 8 + summary.size(), crc32c::Value(entry.data(), 8 + summary.size()));
  return entry;
}

bool DecodeSummaryEntry(std::string_view entry, uint32_t* count, uint32_t* bytes, std::string_view* summary) {
  if (entry.size() < 12) return false;
  const size_t body = entry.size() - 4;
  if (base::LoadLE32(entry.data() + body) != crc32c::Value(entry.data(), body)) return false;
  *count = base::LoadLE32(entry.data());
  *bytes = base::LoadLE32(entry.data() + 4);
  *summary = entry.substr(8, body - 8);
  return *count > 0;
}

}  // namespace sift::storage
