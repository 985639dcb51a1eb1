// CRC32C implementations, fastest first: carry-less multiplication folding (PCLMULQDQ), the SSE4.2
// crc32 instruction over three interleaved streams (its latency is 3 cycles and its throughput 1, so
// three independent streams keep it busy) combined with a "shift over N zero bytes" table, and
// slicing-by-8 tables built at compile time. All tables are constants or built once and immutable.
#include "storage/crc32c.h"

#include <array>

#include "base/byte_order.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#include <wmmintrin.h>
#endif

namespace sift::storage::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

uint32_t PortableRaw(uint32_t c, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint64_t v = base::LoadLE64(p) ^ c;
    c = kTables[7][v & 0xff] ^ kTables[6][(v >> 8) & 0xff] ^ kTables[5][(v >> 16) & 0xff] ^
        kTables[4][(v >> 24) & 0xff] ^ kTables[3][(v >> 32) & 0xff] ^ kTables[2][(v >> 40) & 0xff] ^
        kTables[1][(v >> 48) & 0xff] ^ kTables[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xff];
  return c;
}

// GF(2) helpers to shift a raw CRC state over `len` zero bytes (zlib's crc32_combine method), used to
// combine the three interleaved hardware streams.
uint32_t Gf2MatrixTimes(const uint32_t* mat, uint32_t vec) {
  uint32_t sum = 0;
  while (vec) {
    if (vec & 1) sum ^= *mat;
    vec >>= 1;
    ++mat;
  }
  return sum;
}

void Gf2MatrixSquare(uint32_t* square, const uint32_t* mat) {
  for (int n = 0; n < 32; ++n) square[n] = Gf2MatrixTimes(mat, mat[n]);
}

// The 32x32 matrix that advances a raw CRC state over `len` zero bytes.
struct ShiftMatrix {
  uint32_t m[32];
};

ShiftMatrix MakeShift(size_t len) {
  uint32_t odd[32], even[32];
  odd[0] = kPoly;  // one zero bit
  uint32_t row = 1;
  for (int n = 1; n < 32; ++n) {
    odd[n] = row;
    row <<= 1;
  }
  Gf2MatrixSquare(even, odd);  // two zero bits
  Gf2MatrixSquare(odd, even);  // four zero bits
  // identity
  ShiftMatrix result;
  for (int n = 0; n < 32; ++n) result.m[n] = 1u << n;
  bool use_even = true;
  while (len != 0) {
    uint32_t* cur = use_even ? even : odd;
    Gf2MatrixSquare(cur, use_even ? odd : even);  // cur = 8 bits, 16, 32 bits...: 1 byte, 2, 4...
    if (len & 1) {
      ShiftMatrix next;
      for (int n = 0; n < 32; ++n) next.m[n] = Gf2MatrixTimes(cur, result.m[n]);
      result = next;
    }
    len >>= 1;
    use_even = !use_even;
  }
  return result;
}

#if defined(__x86_64__)
constexpr size_t kStripe = 4096;  // bytes per interleaved stream in one round

struct ShiftTables {
  // For fast application of the kStripe-byte shift: 4 tables of 256 entries (one per input byte).
  uint32_t t[4][256];
};

ShiftTables MakeShiftTables(size_t len) {
  ShiftMatrix m = MakeShift(len);
  ShiftTables s{};
  for (int b = 0; b < 4; ++b) {
    for (uint32_t v = 0; v < 256; ++v) s.t[b][v] = Gf2MatrixTimes(m.m, v << (8 * b));
  }
  return s;
}

const ShiftTables& Shift1() {
  static const ShiftTables tables = MakeShiftTables(kStripe);  // immutable after first use
  return tables;
}
const ShiftTables& Shift2() {
  static const ShiftTables tables = MakeShiftTables(2 * kStripe);
  return tables;
}

inline uint32_t ApplyShift(const ShiftTables& s, uint32_t c) {
  return s.t[0][c & 0xff] ^ s.t[1][(c >> 8) & 0xff] ^ s.t[2][(c >> 16) & 0xff] ^ s.t[3][c >> 24];
}

__attribute__((target("sse4.2"))) uint32_t HardwareRaw(uint32_t c, const uint8_t* p, size_t n) {
  if (n >= 3 * kStripe) {
    const ShiftTables& s1 = Shift1();
    const ShiftTables& s2 = Shift2();
    while (n >= 3 * kStripe) {
      uint64_t c0 = c, c1 = 0, c2 = 0;
      const uint8_t* p0 = p;
      const uint8_t* p1 = p + kStripe;
      const uint8_t* p2 = p + 2 * kStripe;
      for (size_t i = 0; i < kStripe; i += 8) {
        c0 = _mm_crc32_u64(c0, base::LoadLE64(p0 + i));
        c1 = _mm_crc32_u64(c1, base::LoadLE64(p1 + i));
        c2 = _mm_crc32_u64(c2, base::LoadLE64(p2 + i));
      }
      // crc(A|B|C) = shift(crcA, |B|+|C|) ^ shift(crcB, |C|) ^ crcC, with raw (unconditioned) states.
      c = ApplyShift(s2, static_cast<uint32_t>(c0)) ^ ApplyShift(s1, static_cast<uint32_t>(c1)) ^
          static_cast<uint32_t>(c2);
      p += 3 * kStripe;
      n -= 3 * kStripe;
    }
  }
  uint64_t c64 = c;
  while (n >= 8) {
    c64 = _mm_crc32_u64(c64, base::LoadLE64(p));
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c64);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

// Carry-less multiplication folding (Intel, "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ", 2009; the structure of Chromium's crc32_simd.c): four 128-bit accumulators advance
// 64 bytes per step, then fold into one, whose 16 bytes the crc32 instruction finishes (so no Barrett
// reduction is needed). Constants for the reflected Castagnoli polynomial, reflect32(x^n mod P) << 1:
// n = 4*128+32, 4*128-32 (fold by 64 bytes) and 128+32, 128-32 (fold by 16 bytes). They were derived
// with the same formula that yields the published CRC-32 constants (0x154442bd4, 0x1c6e41596, ...);
// the tests compare this path with the table implementation on every length class.
constexpr uint64_t kFold64Lo = 0x740eef02, kFold64Hi = 0x9e4addf8;
constexpr uint64_t kFold16Lo = 0xf20c0dfe, kFold16Hi = 0x14cd00bd6;

__attribute__((target("sse4.2,pclmul"))) inline __m128i Fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

__attribute__((target("sse4.2,pclmul"))) uint32_t PclmulRaw(uint32_t c, const uint8_t* p, size_t n) {
  if (n >= 128) {
    auto load = [](const uint8_t* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); };
    __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(c)));
    __m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48);
    p += 64;
    n -= 64;
    const __m128i k64 = _mm_set_epi64x(static_cast<int64_t>(kFold64Hi), static_cast<int64_t>(kFold64Lo));
    while (n >= 64) {
      x1 = Fold(x1, k64, load(p));
      x2 = Fold(x2, k64, load(p + 16));
      x3 = Fold(x3, k64, load(p + 32));
      x4 = Fold(x4, k64, load(p + 48));
      p += 64;
      n -= 64;
    }
    const __m128i k16 = _mm_set_epi64x(static_cast<int64_t>(kFold16Hi), static_cast<int64_t>(kFold16Lo));
    x1 = Fold(x1, k16, x2);
    x1 = Fold(x1, k16, x3);
    x1 = Fold(x1, k16, x4);
    while (n >= 16) {
      x1 = Fold(x1, k16, load(p));
      p += 16;
      n -= 16;
    }
    // x1 followed by the remaining bytes has, from a zero state, the CRC of everything so far.
    uint64_t c64 = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(x1)));
    c64 = _mm_crc32_u64(c64, static_cast<uint64_t>(_mm_extract_epi64(x1, 1)));
    c = static_cast<uint32_t>(c64);
  }
  return HardwareRaw(c, p, n);
}

bool CpuHasPclmul() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx & bit_PCLMUL) != 0;
}

bool CpuHasSse42() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx & bit_SSE4_2) != 0;
}
#endif

using RawFn = uint32_t (*)(uint32_t, const uint8_t*, size_t);

RawFn ChooseRaw() {
#if defined(__x86_64__)
  if (CpuHasSse42() && CpuHasPclmul()) return &PclmulRaw;
  if (CpuHasSse42()) return &HardwareRaw;
#endif
  return &PortableRaw;
}

const RawFn kRaw = ChooseRaw();  // chosen once at startup, never changed

}  // namespace

uint32_t Extend(uint32_t crc, const void* data, size_t n) { return ~kRaw(~crc, static_cast<const uint8_t*>(data), n); }

uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n) {
  return ~PortableRaw(~crc, static_cast<const uint8_t*>(data), n);
}

bool IsHardwareAccelerated() { return kRaw != &PortableRaw; }

}  // namespace sift::storage::crc32c
