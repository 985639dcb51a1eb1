// The term index: the second level of chunk skipping (docs/store-format.md, "Term index"). Private to
// storage/.
//
// A summarizer may hand storage, beside a chunk's summary, the chunk's terms: 64-bit hashes, one per
// distinct value of the chunk that a query may look for (the engine hashes a field and one of its
// texts). Storage keeps them split by hash into kTermPartitions partitions, each a key of its own
// ("T" + stream + partition + chunk), so that the terms of one partition over a run of chunks lie side
// by side on disk: a query that looks for one value reads one partition, 1/64 of the index, in key
// order. An entry holds 16-bit fingerprints of its terms, sorted, and a CRC32C: a fingerprint that is
// absent proves the term absent; one that is present may be another term's (about 0.1% for the 70
// terms a partition of a large chunk holds).
//
// Which partitions hold an entry is a bitmap in the chunk's index entry (kept in memory), with a flag
// saying the chunk's terms are complete (the summarizer listed every value a query may look for): only
// then does the absence of a term rule a chunk out.
#ifndef SIFT_STORAGE_TERM_INDEX_H_
#define SIFT_STORAGE_TERM_INDEX_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sift::storage {

inline constexpr uint32_t kTermPartitions = 64;

inline uint32_t TermPartition(uint64_t term) { return static_cast<uint32_t>(term & (kTermPartitions - 1)); }
inline uint16_t TermFingerprint(uint64_t term) { return static_cast<uint16_t>(term >> 48); }

// The term entries of one chunk, built from its terms. Reuse one: Build keeps its buffers.
class ChunkTermEntries {
 public:
  // Sorts and deduplicates `terms` into per-partition entries.
  void Build(std::span<const uint64_t> terms);
  // Partitions with an entry, as bits (bit p: partition p).
  uint64_t partitions() const { return partitions_; }
  // The value of partition p's entry (empty when the bit is clear).
  std::string_view entry(uint32_t p) const { return entries_[p]; }

  // The entries as one string (the partitions, then each entry's length and bytes), to carry them from
  // the thread that built them to the one that writes them; Parse reads it back (views into `bytes`).
  void AppendTo(std::string* out) const;
  static bool Parse(std::string_view bytes, uint64_t* partitions, std::string_view entries[kTermPartitions]);

 private:
  uint64_t partitions_ = 0;
  std::string entries_[kTermPartitions];
  std::vector<uint32_t> keys_, sorted_;  // partition and fingerprint of each term, for the radix sort
};

// Whether the entry `value` (one partition of one chunk) may hold `term`: false only when the entry is
// intact and lacks its fingerprint.
bool TermEntryMayHold(std::string_view value, uint64_t term);

// What the threads that summarize a bulk batch hand the one that writes it (StreamStore::PrepareIngest),
// per chunk: its summary entry ("M" value) and, when its terms are complete, its term entries
// (ChunkTermEntries::AppendTo; empty when they are not).
std::string EncodePreparedChunk(std::string_view summary_entry, std::string_view term_entries);
// False when `bytes` is not what EncodePreparedChunk made. The views point into `bytes`.
bool DecodePreparedChunk(std::string_view bytes, std::string_view* summary_entry, std::string_view* term_entries);

}  // namespace sift::storage

#endif  // SIFT_STORAGE_TERM_INDEX_H_
