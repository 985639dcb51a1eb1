// sift's reject path against the decode-everything baseline, measured in alternating turns over the
// same records: the measurement behind `sift bench` and the reject_paired rows of bench/run.
//
// The records are cut into blocks of kBlockRecords. Each block is filtered by both sides, one turn
// each: sift (engine::MessageFilter::Matches, the engine's shipped path: text prefilter, then lazy
// reads in place) and the baseline (pn_message_decode into one reused pn_message_t, then the same
// compiled selector on a ProtonFieldSource over it). Which side goes first alternates from block to
// block, so neither always finds the block in cache; each turn starts from a cold cache (a pass over
// a buffer larger than the last-level cache, untimed), as one pass over a large input would; each turn
// is timed on the thread's CPU clock, so a neighbour's load on the machine is not counted. On a
// shared machine whose speed drifts over seconds, two measurements run one after the other meet
// different conditions; turns of a block each meet the same ones.
//
// Each side also counts its matches and a digest of which records matched, so a caller can check
// that both found the same messages. Not thread-safe: one PairedReject per thread.
#ifndef SIFT_TOOLS_BASELINE_PAIRED_REJECT_H_
#define SIFT_TOOLS_BASELINE_PAIRED_REJECT_H_

#include <proton/message.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/message_filter.h"
#include "selector/eval_context.h"
#include "selector/selector.h"
#include "tools/baseline/proton_field_source.h"

namespace sift::baseline {

// The calling thread's CPU time in nanoseconds.
double ThreadCpuNs();

// A digest of one matching record's index; a side's digest is the sum over its matches, so two sides
// that matched the same records have the same digest.
uint64_t MatchDigest(uint64_t index);

// Walks a record buffer whose framing was checked: the message at `p` (a 4-byte big-endian length,
// then the message) and the record after it.
const uint8_t* NextRecord(const uint8_t* p, std::span<const uint8_t>* message);

struct SideFigures {
  double cpu_ns = 0;          // CPU time of this side's turns
  uint64_t matches = 0;       // records the selector was TRUE on
  uint64_t match_digest = 0;  // sum of MatchDigest(index) over them
};

struct PairedFigures {
  SideFigures sift;
  SideFigures baseline;
  uint64_t records = 0;
  bool decode_failed = false;  // pn_message_decode refused a record (then the figures are partial)
  uint64_t failed_record = 0;  // its index
};

class PairedReject {
 public:
  static constexpr size_t kBlockRecords = 50'000;
  // A pass over more than twice the last-level cache evicts it: this is more than twice the benchmark
  // machines' (bench/DECISIONS.md, "The paired reject measurement's cache eviction").
  static constexpr size_t kEvictionBytes = size_t{128} << 20;

  // `selector` must be ok(). `records`: record file bytes (docs/record-format.md) whose framing the
  // caller checked, with at least one record; they must outlive this object.
  PairedReject(const selector::Selector& selector, std::span<const uint8_t> records);
  ~PairedReject();
  PairedReject(const PairedReject&) = delete;
  PairedReject& operator=(const PairedReject&) = delete;

  // One pass over every record, block by block, both sides in turns. Figures of this pass only.
  PairedFigures Pass();

  size_t records() const { return records_; }

 private:
  void EvictCaches();
  void SiftTurn(size_t block, SideFigures* out);
  void BaselineTurn(size_t block, PairedFigures* out);

  std::span<const uint8_t> bytes_;
  std::vector<size_t> block_starts_;  // byte offset of each block's first record, then the end
  size_t records_ = 0;
  engine::MessageFilter filter_;
  selector::Selector selector_;
  pn_message_t* decoded_;
  ProtonFieldSource source_;
  selector::EvalContext context_;
  std::vector<uint64_t> eviction_;
  bool sift_first_ = true;
};

}  // namespace sift::baseline

#endif  // SIFT_TOOLS_BASELINE_PAIRED_REJECT_H_
