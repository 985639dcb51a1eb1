// UTF-8 as RFC 3629 defines it, the only form sift treats as text (AMQP strings, core part 1, section
// 1.6.20; selector text; typed JSON): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
// U+10FFFF. Everything here follows from one rule, ReadUtf8Lead: what a lead byte allows.
//
// The checks are inline because they sit on hot paths (validation of every appended message, the
// lexer, LIKE matching); none allocates.
#ifndef SIFT_BASE_UTF8_H_
#define SIFT_BASE_UTF8_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sift::base {

// What a lead byte of 0x80 or above allows: how many continuation bytes follow it, and the range the
// first of them must lie in (narrowed so that no overlong form, no surrogate and nothing above
// U+10FFFF can be written); the later continuation bytes are 0x80..0xbf.
struct Utf8Lead {
  int continuation = 0;
  uint8_t lo = 0x80;
  uint8_t hi = 0xbf;
};

// False for a byte that cannot start a multi-byte sequence (ASCII, a continuation byte, 0xc0, 0xc1,
// 0xf5..0xff).
constexpr bool ReadUtf8Lead(uint8_t b0, Utf8Lead* out) {
  Utf8Lead lead;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    lead.continuation = 1;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    lead.continuation = 2;
    if (b0 == 0xe0) lead.lo = 0xa0;
    if (b0 == 0xed) lead.hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    lead.continuation = 3;
    if (b0 == 0xf0) lead.lo = 0x90;
    if (b0 == 0xf4) lead.hi = 0x8f;
  } else {
    return false;
  }
  *out = lead;
  return true;
}

// True for 0x80..0xbf, the bytes that only continue a sequence (a column or code point counter skips them).
constexpr bool IsUtf8Continuation(uint8_t b) { return (b & 0xc0) == 0x80; }

// True for a Unicode scalar value: a code point that is not a surrogate.
constexpr bool IsUnicodeScalar(uint32_t cp) { return cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff); }

// The length (1..4) of the well-formed sequence at s[0], reading at most n bytes; 0 when there is
// none. When there is none, *valid_prefix is how many bytes precede the first one that cannot
// continue it: 0 when s[0] cannot start a sequence (or n is 0), n when the bytes end inside it. Those
// bytes are the "maximal subpart" that one U+FFFD replaces in the Unicode substitution practice.
constexpr size_t CheckUtf8Sequence(const uint8_t* s, size_t n, size_t* valid_prefix) {
  if (n == 0) {
    *valid_prefix = 0;
    return 0;
  }
  if (s[0] < 0x80) return 1;
  Utf8Lead lead;
  if (!ReadUtf8Lead(s[0], &lead)) {
    *valid_prefix = 0;
    return 0;
  }
  const size_t len = static_cast<size_t>(lead.continuation) + 1;
  for (size_t k = 1; k < len; ++k) {
    if (k >= n) {
      *valid_prefix = n;
      return 0;
    }
    const bool ok = k == 1 ? (s[1] >= lead.lo && s[1] <= lead.hi) : IsUtf8Continuation(s[k]);
    if (!ok) {
      *valid_prefix = k;
      return 0;
    }
  }
  return len;
}

// The length (1..4) of the well-formed sequence at s[0], reading at most n bytes; 0 when there is none.
// (CheckUtf8Sequence without the explanation: one length test instead of one per byte.)
constexpr size_t Utf8SequenceLength(const uint8_t* s, size_t n) {
  if (n == 0) return 0;
  if (s[0] < 0x80) return 1;
  Utf8Lead lead;
  if (!ReadUtf8Lead(s[0], &lead)) return 0;
  const size_t k = static_cast<size_t>(lead.continuation);
  if (n <= k || s[1] < lead.lo || s[1] > lead.hi) return 0;
  for (size_t i = 2; i <= k; ++i) {
    if (!IsUtf8Continuation(s[i])) return 0;
  }
  return k + 1;
}

// The same at text[pos] (pos <= text.size()).
inline size_t Utf8SequenceLength(std::string_view text, size_t pos) {
  return Utf8SequenceLength(reinterpret_cast<const uint8_t*>(text.data()) + pos, text.size() - pos);
}

// Decodes the well-formed sequence at s[0] (at most n bytes) into *cp; returns its length, or 0 (and
// leaves *cp alone) when there is none.
constexpr size_t DecodeUtf8(const uint8_t* s, size_t n, uint32_t* cp) {
  const size_t len = Utf8SequenceLength(s, n);
  if (len == 0) return 0;
  constexpr uint8_t kLeadBits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  uint32_t v = s[0] & kLeadBits[len];
  for (size_t k = 1; k < len; ++k) v = (v << 6) | (s[k] & 0x3f);
  *cp = v;
  return len;
}

// Decodes the sequence at s[0] of text already known to be well-formed (IsValidUtf8) into *cp and
// returns its length: the length comes from the lead byte alone, nothing is checked again.
constexpr size_t DecodeValidUtf8(const uint8_t* s, uint32_t* cp) {
  const uint8_t b0 = s[0];
  const size_t len = b0 < 0x80 ? 1 : b0 < 0xe0 ? 2 : b0 < 0xf0 ? 3 : 4;
  constexpr uint8_t kLeadBits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  uint32_t v = b0 & kLeadBits[len];
  for (size_t k = 1; k < len; ++k) v = (v << 6) | (s[k] & 0x3f);
  *cp = v;
  return len;
}

// True when `text` is exactly one code point (of any length 1..4), stored in *cp.
inline bool DecodeSingleCodePoint(std::string_view text, uint32_t* cp) {
  uint32_t v = 0;
  const size_t len = DecodeUtf8(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &v);
  if (len == 0 || len != text.size()) return false;
  *cp = v;
  return true;
}

// Writes the UTF-8 of scalar value `cp` to out[0..3]; returns its length, or 0 when `cp` is a
// surrogate or above U+10FFFF (nothing written).
constexpr size_t EncodeUtf8(uint32_t cp, char* out) {
  if (!IsUnicodeScalar(cp)) return 0;
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xc0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xe0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out[2] = static_cast<char>(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = static_cast<char>(0xf0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
  out[3] = static_cast<char>(0x80 | (cp & 0x3f));
  return 4;
}

// Appends the UTF-8 of scalar value `cp`; false (nothing appended) for a surrogate or above U+10FFFF.
inline bool AppendUtf8(uint32_t cp, std::string* out) {
  char buf[4];
  const size_t len = EncodeUtf8(cp, buf);
  out->append(buf, len);
  return len > 0;
}

// True when the n bytes at p are well-formed UTF-8 throughout. ASCII is skipped a word at a time
// (the common case: most text in messages is ASCII), runs of two-byte sequences four at a time, and
// anything else one sequence at a time.
inline bool IsValidUtf8(const uint8_t* p, size_t n) {
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  const uint8_t* const end = p + n;
  while (p < end) {
    const size_t left = static_cast<size_t>(end - p);
    if (left >= 8) {
      uint64_t word;
      std::memcpy(&word, p, sizeof word);
      const uint64_t high = word & kHighBits;
      if (high == 0) {
        p += 8;
        continue;
      }
      if constexpr (std::endian::native == std::endian::little) {
        p += std::countr_zero(high) >> 3;  // the first byte with its high bit set
      }
    } else {
      uint8_t tail = 0;
      for (size_t i = 0; i < left; ++i) tail |= p[i];
      if (tail < 0x80) return true;
    }
    if (*p < 0x80) {
      ++p;
      continue;
    }
    // Runs of two-byte sequences (Latin with accents, Greek, Cyrillic, Hebrew, Arabic), four per word:
    // in each 16-bit lane a lead 110xxxxx that is not C0 or C1 (overlong), then a continuation 10xxxxxx.
    while (std::endian::native == std::endian::little && static_cast<size_t>(end - p) >= 8) {
      uint64_t word;
      std::memcpy(&word, p, sizeof word);
      constexpr uint64_t kPairShape = 0xc0e0c0e0c0e0c0e0ull, kPairs = 0x80c080c080c080c0ull;
      constexpr uint64_t kLeadLow = 0x001e001e001e001eull;  // zero only in C0 and C1 among leads
      constexpr uint64_t kLaneCarry = 0x0100010001000100ull;
      if ((word & kPairShape) != kPairs || (((word & kLeadLow) + 0x00ff00ff00ff00ffull) & kLaneCarry) != kLaneCarry) {
        break;
      }
      p += 8;
    }
    if (p >= end) break;
    if (*p < 0x80) continue;
    const size_t len = Utf8SequenceLength(p, static_cast<size_t>(end - p));
    if (len == 0) return false;
    p += len;
  }
  return true;
}

inline bool IsValidUtf8(std::string_view text) {
  return IsValidUtf8(reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace sift::base

#endif  // SIFT_BASE_UTF8_H_
