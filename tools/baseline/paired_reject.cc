// The paired reject-path measurement; see paired_reject.h.
#include "tools/baseline/paired_reject.h"

#include <time.h>

#include <algorithm>

#include "base/byte_order.h"

namespace sift::baseline {

double ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

uint64_t MatchDigest(uint64_t index) {
  // splitmix64's finalizer: neighbouring indexes get unrelated digests.
  uint64_t z = index + 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

const uint8_t* NextRecord(const uint8_t* p, std::span<const uint8_t>* message) {
  const uint32_t n = base::LoadBE32(p);
  *message = {p + 4, n};
  return p + 4 + n;
}

PairedReject::PairedReject(const selector::Selector& selector, std::span<const uint8_t> records)
    : bytes_(records),
      filter_(selector, {.prefilter = true}),
      selector_(selector),
      decoded_(pn_message()),
      source_(selector.fields()),
      eviction_(kEvictionBytes / 8, 1) {
  source_.Reset(decoded_);
  std::span<const uint8_t> message;
  const uint8_t* const begin = bytes_.data();
  const uint8_t* const end = begin + bytes_.size();
  for (const uint8_t* p = begin; p < end; ++records_) {
    if (records_ % kBlockRecords == 0) block_starts_.push_back(static_cast<size_t>(p - begin));
    p = NextRecord(p, &message);
    // Warm-up: the filter's scratch and caches reach their working size before anything is timed.
    if (records_ < 1000) filter_.Matches(message);
  }
  block_starts_.push_back(bytes_.size());
}

PairedReject::~PairedReject() { pn_message_free(decoded_); }

void PairedReject::EvictCaches() {
  uint64_t sum = 0;
  for (uint64_t w : eviction_) sum += w;
  // Keeps the loop: the sum is stored where the compiler must assume it is read.
  asm volatile("" : : "r"(sum) : "memory");
}

void PairedReject::SiftTurn(size_t block, SideFigures* out) {
  EvictCaches();
  const uint8_t* p = bytes_.data() + block_starts_[block];
  const uint8_t* const end = bytes_.data() + block_starts_[block + 1];
  uint64_t index = block * kBlockRecords;
  uint64_t matches = 0, digest = 0;
  std::span<const uint8_t> m;
  const double t = ThreadCpuNs();
  for (; p < end; ++index) {
    p = NextRecord(p, &m);
    if (filter_.Matches(m)) {
      ++matches;
      digest += MatchDigest(index);
    }
  }
  out->cpu_ns += ThreadCpuNs() - t;
  out->matches += matches;
  out->match_digest += digest;
}

void PairedReject::BaselineTurn(size_t block, PairedFigures* out) {
  EvictCaches();
  const uint8_t* p = bytes_.data() + block_starts_[block];
  const uint8_t* const end = bytes_.data() + block_starts_[block + 1];
  uint64_t index = block * kBlockRecords;
  uint64_t matches = 0, digest = 0;
  std::span<const uint8_t> m;
  const double t = ThreadCpuNs();
  for (; p < end; ++index) {
    p = NextRecord(p, &m);
    if (pn_message_decode(decoded_, reinterpret_cast<const char*>(m.data()), m.size()) != 0) {
      if (!out->decode_failed) out->failed_record = index;
      out->decode_failed = true;
      break;
    }
    if (selector_.Evaluate(source_, context_) == selector::Truth::kTrue) {
      ++matches;
      digest += MatchDigest(index);
    }
  }
  out->baseline.cpu_ns += ThreadCpuNs() - t;
  out->baseline.matches += matches;
  out->baseline.match_digest += digest;
}

PairedFigures PairedReject::Pass() {
  PairedFigures figures;
  figures.records = records_;
  for (size_t block = 0; block + 1 < block_starts_.size() && !figures.decode_failed; ++block) {
    if (sift_first_) {
      SiftTurn(block, &figures.sift);
      BaselineTurn(block, &figures);
    } else {
      BaselineTurn(block, &figures);
      SiftTurn(block, &figures.sift);
    }
    sift_first_ = !sift_first_;
  }
  return figures;
}

}  // namespace sift::baseline
