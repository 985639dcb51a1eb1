// Bloom filters of texts (see bloom_filter.h; the stored layout is in docs/store-format.md).
#include "engine/bloom_filter.h"

#include <algorithm>
#include <cmath>

namespace sift::engine {
namespace {

uint64_t BloomBit(uint64_t hash, uint32_t probe, uint64_t bits) { return (hash + probe * ((hash >> 32) | 1)) % bits; }

// Calls f(BloomBit(hash, k, bits)) for k = 0 .. probes - 1, with three divisions instead of one per
// probe (a division costs more than the rest of a probe). hash + k * step is a sum modulo 2^64: once
// it wraps (it can only once, k * step < 2^36), the bit is 2^64 mod bits lower.
template <typename F>
void ForEachBloomBit(uint64_t hash, uint32_t probes, uint64_t bits, F&& f) {
  const uint64_t step = (hash >> 32) | 1;
  const uint64_t step_mod = step % bits;
  const uint64_t wrap_mod = (uint64_t{0} - bits) % bits;  // 2^64 mod bits
  uint64_t bit = hash % bits;
  if (probes == 0) return;
  if (hash <= UINT64_MAX - uint64_t{probes - 1} * step) {  // no sum wraps (nearly every hash)
    for (uint32_t k = 0; k < probes; ++k) {
      f(bit);
      bit += step_mod;
      if (bit >= bits) bit -= bits;
    }
    return;
  }
  uint64_t sum = hash;
  for (uint32_t k = 0; k < probes; ++k) {
    const bool wrapped = sum < hash;
    f(!wrapped ? bit : bit >= wrap_mod ? bit - wrap_mod : bit + bits - wrap_mod);
    sum += step;
    bit += step_mod;
    if (bit >= bits) bit -= bits;
  }
}

}  // namespace

size_t BloomFilterBytes(size_t distinct) {
  const uint64_t bits = std::max<uint64_t>(64, static_cast<uint64_t>(std::ceil(distinct * kBloomBitsPerText)));
  return static_cast<size_t>((bits + 7) / 8);
}

void BloomFilterAdd(uint64_t hash, uint32_t probes, std::span<char> filter) {
  ForEachBloomBit(hash, probes, uint64_t{filter.size()} * 8,
                  [&](uint64_t bit) { filter[bit / 8] = static_cast<char>(filter[bit / 8] | (1u << (bit % 8))); });
}

bool BloomFilterMayHold(std::string_view filter, uint32_t probes, uint64_t hash) {
  if (filter.empty()) return true;
  const uint64_t bits = filter.size() * 8;
  for (uint32_t k = 0; k < probes; ++k) {
    const uint64_t bit = BloomBit(hash, k, bits);
    if (!(static_cast<uint8_t>(filter[bit / 8]) & (1u << (bit % 8)))) return false;
  }
  return true;
}

}  // namespace sift::engine
