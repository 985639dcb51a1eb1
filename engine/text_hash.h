// The hashes chunk summaries store: TextHash, the hash of a text that summaries' Bloom filters probe
// with, and TextTerm, a text's term in the term index (storage/term_index.h), derived from it. Both
// are part of the stored format (docs/store-format.md, "Chunk summaries" and "Term index"): changing
// either makes every stored filter and term answer wrongly.
//
// TextHash is inline: the summary builder hashes texts on every append.
#ifndef SIFT_ENGINE_TEXT_HASH_H_
#define SIFT_ENGINE_TEXT_HASH_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/byte_order.h"
#include "selector/field_source.h"

namespace sift::engine {

// The MurmurHash3 64-bit finalizer.
inline uint64_t Fmix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// 8 bytes at a time, little-endian, then the MurmurHash3 64-bit finalizer.
inline uint64_t TextHash(std::string_view text) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t h = 0x243f6a8885a308d3ull ^ (text.size() * kMul);
  const char* p = text.data();
  size_t n = text.size();
  auto mix = [&](uint64_t word) {
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  };
  while (n >= 8) {
    mix(base::LoadLE64(p));
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    // The last 1..7 bytes as a little-endian word, zero-extended: two loads that may overlap (a byte read
    // twice lands at the same place both times, so OR keeps it once).
    auto byte = [p](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
    uint64_t word;
    if (n >= 4) {
      const uint32_t lo = base::LoadLE32(p);
      const uint32_t hi = base::LoadLE32(p + n - 4);
      word = uint64_t{lo} | (uint64_t{hi} << (8 * (n - 4)));
    } else {
      word = byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
    }
    mix(word);
  }
  return Fmix64(h);
}

// A field's seed, from its section and name: mixed into a text's hash, it makes the text's term in
// that field. A builder listing many texts of one field takes it once.
uint64_t FieldTermSeed(selector::Section section, std::string_view name);
inline uint64_t TermOfTextHash(uint64_t seed, uint64_t text_hash) { return Fmix64(text_hash ^ seed); }

// The term of text `text` in the field `name` of `section`: what the builder lists for each distinct
// text of a summarized field, and what a term filter looks for.
uint64_t TextTerm(selector::Section section, std::string_view name, std::string_view text);

}  // namespace sift::engine

#endif  // SIFT_ENGINE_TEXT_HASH_H_
