// The Bloom filters of chunk summaries: a field's set of texts once it has too many for an exact list
// (docs/store-format.md, "Chunk summaries", set kind 2). A filter is a run of bytes, bit b being bit
// b % 8 of byte b / 8; probe k of a text whose TextHash is h sets bit (h + k * ((h >> 32) | 1)) mod
// the filter's bits, in 64-bit arithmetic. That rule is stored, so it is part of the format.
#ifndef SIFT_ENGINE_BLOOM_FILTER_H_
#define SIFT_ENGINE_BLOOM_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sift::engine {

// kBloomBitsPerText bits per distinct text and kBloomProbes probes: about 0.1% false positives, so that
// a selective query reads few chunks that do not hold its values, for 1.8 bytes per distinct text.
inline constexpr double kBloomBitsPerText = 14.4;
inline constexpr uint8_t kBloomProbes = 10;

// The bytes of a filter of `distinct` texts (at least 64 bits).
size_t BloomFilterBytes(size_t distinct);

// Sets the bits of the `probes` probes of `hash` in `filter` (not empty).
void BloomFilterAdd(uint64_t hash, uint32_t probes, std::span<char> filter);

// False only when `filter` rules out every text whose hash is `hash` (never for one added: no false
// negatives). An empty filter rules nothing out.
bool BloomFilterMayHold(std::string_view filter, uint32_t probes, uint64_t hash);

}  // namespace sift::engine

#endif  // SIFT_ENGINE_BLOOM_FILTER_H_
