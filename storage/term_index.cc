#include "storage/term_index.h"

#include <algorithm>
#include <utility>

#include "base/byte_order.h"
#include "storage/crc32c.h"

namespace sift::storage {

void ChunkTermEntries::Build(std::span<const uint64_t> terms) {
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (partitions_ & (uint64_t{1} << p)) entries_[p].clear();
  }
  partitions_ = 0;
  // Each term as partition (high bits) and fingerprint, 22 bits: sorting these sorts every entry's
  // fingerprints. A radix sort of two 11-bit digits: a chunk has thousands of terms, which a comparison
  // sort took as long to order as the summarizer took to read the chunk.
  keys_.resize(terms.size());
  sorted_.resize(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) keys_[i] = (TermPartition(terms[i]) << 16) | TermFingerprint(terms[i]);
  constexpr uint32_t kDigit = 11, kBuckets = 1u << kDigit;
  uint32_t counts[kBuckets];
  for (uint32_t shift = 0; shift < 2 * kDigit; shift += kDigit) {
    std::fill(counts, counts + kBuckets, 0);
    for (const uint32_t k : keys_) ++counts[(k >> shift) & (kBuckets - 1)];
    uint32_t sum = 0;
    for (uint32_t& c : counts) sum += std::exchange(c, sum);
    for (const uint32_t k : keys_) sorted_[counts[(k >> shift) & (kBuckets - 1)]++] = k;
    keys_.swap(sorted_);
  }
  for (size_t i = 0; i < keys_.size(); ++i) {
    const uint32_t key = keys_[i];
    if (i > 0 && key == keys_[i - 1]) continue;
    const uint32_t p = key >> 16;
    partitions_ |= uint64_t{1} << p;
    base::AppendLE16(&entries_[p], static_cast<uint16_t>(key));
  }
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (partitions_ & (uint64_t{1} << p))
      base::AppendLE32(&entries_[p], crc32c::Value(entries_[p].data(), entries_[p].size()));
  }
}

void ChunkTermEntries::AppendTo(std::string* out) const {
  base::AppendLE64(out, partitions_);
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    if (!(partitions_ & (uint64_t{1} << p))) continue;
    base::AppendLE32(out, static_cast<uint32_t>(entries_[p].size()));
    out->append(entries_[p]);
  }
}

bool ChunkTermEntries::Parse(std::string_view bytes, uint64_t* partitions, std::string_view entries[kTermPartitions]) {
  if (bytes.size() < 8) return false;
  *partitions = base::LoadLE64(bytes.data());
  bytes.remove_prefix(8);
  for (uint32_t p = 0; p < kTermPartitions; ++p) {
    entries[p] = std::string_view();
    if (!(*partitions & (uint64_t{1} << p))) continue;
    if (bytes.size() < 4) return false;
    const uint32_t n = base::LoadLE32(bytes.data());
    bytes.remove_prefix(4);
    if (bytes.size() < n) return false;
    entries[p] = bytes.substr(0, n);
    bytes.remove_prefix(n);
  }
  return bytes.empty();
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

std::string EncodePreparedChunk(std::string_view summary_entry, std::string_view term_entries) {
  std::string out;
  out.reserve(4 + summary_entry.size() + term_entries.size());
  base::AppendLE32(&out, static_cast<uint32_t>(summary_entry.size()));
  out.append(summary_entry);
  out.append(term_entries);
  return out;
}

bool DecodePreparedChunk(std::string_view bytes, std::string_view* summary_entry, std::string_view* term_entries) {
  if (bytes.size() < 4) return false;
  const uint32_t n = base::LoadLE32(bytes.data());
  bytes.remove_prefix(4);
  if (bytes.size() < n) return false;
  *summary_entry = bytes.substr(0, n);
  *term_entries = bytes.substr(n);
  return true;
}

}  // namespace sift::storage
