#include "storage/term_index.h"

#include <algorithm>

#include "base/byte_order.h"
#include "storage/crc32c.h"

namespace sift::storage {

void ChunkTermEntries::Build(std::vector<uint64_t>* terms) {
  // Each term as partition (high bits) and fingerprint: sorting these sorts every entry's fingerprints.
  for (uint64_t& t : *terms) t = (uint64_t{TermPartition(t)} << 16) | TermFingerprint(t);
  std::sort(terms->begin(), terms->end());
  terms->erase(std::unique(terms->begin(), terms->end()), terms->end());
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (partitions_ & (uint64_t{1} << p)) entries_[p].clear();
  }
  partitions_ = 0;
  for (const uint64_t key : *terms) {
    const auto p = static_cast<uint32_t>(key >> 16);
    partitions_ |= uint64_t{1} << p;
    base::AppendLE16(&entries_[p], static_cast<uint16_t>(key));
  }
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (partitions_ & (uint64_t{1} << p))
      base::AppendLE32(&entries_[p], crc32c::Value(entries_[p].data(), entries_[p].size()));
  }
}

bool TermEntryMayHold(std::string_view value, uint64_t term) {
  if (value.size() < 4 || (value.size() - 4) % 2 != 0) return true;
  const size_t body = value.size() - 4;
  if (base::LoadLE32(value.data() + body) != crc32c::Value(value.data(), body)) return true;
  const uint16_t fingerprint = TermFingerprint(term);
  size_t lo = 0, hi = body / 2;  // fingerprints [lo, hi) may hold it
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const uint16_t f = base::LoadLE16(value.data() + 2 * mid);
    if (f == fingerprint) return true;
    if (f < fingerprint) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

std::string EncodePreparedChunk(const PreparedChunk& chunk) {
  std::string out;
  out.reserve(4 + chunk.summary_entry.size() + 1 + 4 + 8 * chunk.terms.size());
  base::AppendLE32(&out, static_cast<uint32_t>(chunk.summary_entry.size()));
  out.append(chunk.summary_entry);
  out.push_back(chunk.terms_complete ? 1 : 0);
  base::AppendLE32(&out, static_cast<uint32_t>(chunk.terms.size()));
  for (const uint64_t t : chunk.terms) base::AppendLE64(&out, t);
  return out;
}

bool DecodePreparedChunk(std::string_view bytes, PreparedChunk* chunk) {
  if (bytes.size() < 4) return false;
  const uint32_t summary = base::LoadLE32(bytes.data());
  bytes.remove_prefix(4);
  if (bytes.size() < size_t{summary} + 5) return false;
  chunk->summary_entry.assign(bytes.substr(0, summary));
  bytes.remove_prefix(summary);
  chunk->terms_complete = bytes[0] != 0;
  const uint32_t n = base::LoadLE32(bytes.data() + 1);
  bytes.remove_prefix(5);
  if (bytes.size() != size_t{n} * 8) return false;
  chunk->terms.resize(n);
  for (uint32_t i = 0; i < n; ++i) chunk->terms[i] = base::LoadLE64(bytes.data() + 8 * size_t{i});
  return true;
}

}  // namespace sift::storage
