// RecordBuffer: the benchmark's in-memory source of messages, and the corpora built into it.
//
// A RecordBuffer holds records back to back exactly as a record file does (amqp/record_file.h: a 4-byte
// big-endian length, then one encoded AMQP 1.0 message), so the hot loops walk it the way sift walks
// a mapped record file: read a length, view the message, go on. starts() keeps each record's byte
// position only so a run can be split between threads; the loops do not read it.
//
// Corpora are deterministic. The base corpus of a profile is message 0..N-1 of
// synthetic::SyntheticOrders(profile, seed 1): read from a record file written by `sift gen` (bench/run
// does that) or generated in-process when no file is given; both give the same bytes. Every message is
// validated strictly (amqp/validate.h) on load, so a benchmark never runs on bytes sift would
// have refused.
//
// A variant of a base corpus controls the filtered field: the application property "customer" (a
// str8 "cust-NNNNN", NNNNN < 50000 as generated) is moved to the first or the last entry of the
// application-properties map, and in exactly round(N * selectivity) messages, placed by a fixed
// permutation of the indices (not evenly spaced), its value becomes "cust-99999", which the generator
// never produces. `customer = 'cust-99999'` then matches exactly those messages. Both edits keep every
// size and count of the message (a rotation of map entries, a same-length overwrite), so the bytes of
// a variant differ from the base corpus only inside the application-properties map.
#ifndef SIFT_BENCH_FILTER_RECORD_BUFFER_H_
#define SIFT_BENCH_FILTER_RECORD_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_order.h"

namespace sift::bench {

class RecordBuffer {
 public:
  // Appends one record (length prefix + message).
  void Append(std::span<const uint8_t> message);
  void Reserve(size_t bytes, size_t records);

  size_t count() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  // All records, prefixes included.
  std::span<const uint8_t> bytes() const { return {bytes_.data(), bytes_.size()}; }
  // Sum of the message sizes, prefixes excluded.
  uint64_t message_bytes() const { return bytes_.size() - 4 * count(); }
  // Byte position of record i's length prefix; starts(count()) is bytes().size().
  uint64_t start(size_t i) const { return starts_[i]; }
  // Message i (without its prefix).
  std::span<const uint8_t> message(size_t i) const {
    return {bytes_.data() + starts_[i] + 4, static_cast<size_t>(starts_[i + 1] - starts_[i] - 4)};
  }
  std::span<uint8_t> mutable_message(size_t i) {
    return {bytes_.data() + starts_[i] + 4, static_cast<size_t>(starts_[i + 1] - starts_[i] - 4)};
  }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> starts_{0};
};

// Walks records [begin, end) of a buffer's bytes: the length prefix is trusted (the buffer was built
// by RecordBuffer::Append), as a mapped file already checked by its reader would be.
inline const uint8_t* NextMessage(const uint8_t* p, std::span<const uint8_t>* message) {
  const uint32_t n = base::LoadBE32(p);
  *message = {p + 4, n};
  return p + 4 + n;
}

// The base corpus: `count` messages of `profile`, seed 1. `record_file` empty: generate in-process;
// else read that file (it must hold at least `count` records, which must be the generator's messages:
// message 0 is compared with a freshly generated one). False with *error naming the file, the record
// and the reason on any problem.
bool LoadBaseCorpus(std::string_view profile, size_t count, const std::string& record_file, RecordBuffer* out,
                    std::string* error);

enum class Placement : uint8_t { kAsGenerated, kFirst, kLast };
std::string_view PlacementName(Placement placement);

// The customer value planted in the selected messages, and the selector that finds them.
inline constexpr std::string_view kPlantedCustomer = "cust-99999";

// How many of `count` messages a selectivity of `per_million` / 1,000,000 selects (rounded).
size_t PlantedCount(size_t count, uint64_t per_million);

// Copies `base` into *out, moves "customer" per `placement` and plants kPlantedCustomer in exactly
// PlantedCount(base.count(), per_million) messages. False with *error (record index and reason) when
// a message has no application property "customer" of the generated form.
bool BuildVariant(const RecordBuffer& base, Placement placement, uint64_t per_million, RecordBuffer* out,
                  std::string* error);

}  // namespace sift::bench

#endif  // SIFT_BENCH_FILTER_RECORD_BUFFER_H_
