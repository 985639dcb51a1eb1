// TextPrefilter: section location by size prefixes and a vectorised text search (text_prefilter.h).
#include "engine/text_prefilter.h"

#include <cstring>

#include "base/byte_order.h"
#include "amqp/encoded_value.h"
#include "amqp/type_codes.h"
#include "selector/bytes_equal.h"
#include "selector/text_hash.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SIFT_PREFILTER_X86 1
#endif

namespace sift::engine {
namespace {

using amqp::SectionKind;

// Candidates are positions whose first and last bytes match; memcmp confirms the middle.
inline bool MiddleMatches(const uint8_t* at, const uint8_t* needle, size_t m) {
  return m <= 2 || selector::BytesEqual(at + 1, needle + 1, m - 2);
}

const uint8_t* ScalarFind(const uint8_t* h, size_t n, size_t from, const uint8_t* needle, size_t m) {
  if (n < m) return nullptr;
  const uint8_t first = needle[0];
  const uint8_t last = needle[m - 1];
  for (size_t i = from; i + m <= n; ++i) {
    if (h[i] == first && h[i + m - 1] == last && MiddleMatches(h + i, needle, m)) return h + i;
  }
  return nullptr;
}

const uint8_t* PortableFindImpl(const uint8_t* h, size_t n, const uint8_t* needle, size_t m) {
  return ScalarFind(h, n, 0, needle, m);
}

#ifdef SIFT_PREFILTER_X86

// Blocks of 16 (SSE2) or 32 (AVX2) start positions: compare every position's first byte and the
// byte m - 1 further on at once, confirm the survivors. The last block is moved back to end exactly
// at the haystack's end (it may overlap the one before), so no load reads past the haystack.
const uint8_t* Sse2Find(const uint8_t* h, size_t n, const uint8_t* needle, size_t m) {
  if (n < m + 15) return ScalarFind(h, n, 0, needle, m);
  const __m128i first = _mm_set1_epi8(static_cast<char>(needle[0]));
  const __m128i last = _mm_set1_epi8(static_cast<char>(needle[m - 1]));
  const size_t positions = n - m + 1;  // candidate start positions, >= 16
  for (size_t i = 0;; i += 16) {
    if (i + 16 > positions) i = positions - 16;
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i + m - 1));
    uint32_t mask =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
    while (mask != 0) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
      if (MiddleMatches(h + i + bit, needle, m)) return h + i + bit;
      mask &= mask - 1;
    }
    if (i + 16 >= positions) return nullptr;
  }
}

// Candidate start positions i..i+31: bit k set when h[i+k] and h[i+k+m-1] are the needle's first and
// last bytes.
__attribute__((target("avx2"), always_inline)) inline uint32_t Avx2Candidates(const uint8_t* h, size_t i, size_t m,
                                                                              const __m256i& first,
                                                                              const __m256i& last) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i + m - 1));
  return static_cast<uint32_t>(
      _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last))));
}

inline const uint8_t* Confirm(const uint8_t* h, size_t i, uint64_t mask, const uint8_t* needle, size_t m) {
  while (mask != 0) {
    const unsigned bit = static_cast<unsigned>(__builtin_ctzll(mask));
    if (MiddleMatches(h + i + bit, needle, m)) return h + i + bit;
    mask &= mask - 1;
  }
  return nullptr;
}

// Two blocks per step while they fit (one branch per 64 positions), then single blocks.
__attribute__((target("avx2"))) const uint8_t* Avx2Find(const uint8_t* h, size_t n, const uint8_t* needle, size_t m) {
  if (n < m + 31) return Sse2Find(h, n, needle, m);
  const __m256i first = _mm256_set1_epi8(static_cast<char>(needle[0]));
  const __m256i last = _mm256_set1_epi8(static_cast<char>(needle[m - 1]));
  const size_t positions = n - m + 1;  // >= 32
  size_t i = 0;
  for (; i + 64 <= positions; i += 64) {
    const uint64_t mask =
        Avx2Candidates(h, i, m, first, last) | (static_cast<uint64_t>(Avx2Candidates(h, i + 32, m, first, last)) << 32);
    if (mask != 0) {
      if (const uint8_t* found = Confirm(h, i, mask, needle, m)) return found;
    }
  }
  for (; i < positions; i += 32) {
    if (i + 32 > positions) i = positions - 32;  // the last block ends exactly at the haystack's end
    if (const uint8_t* found = Confirm(h, i, Avx2Candidates(h, i, m, first, last), needle, m)) return found;
  }
  return nullptr;
}

#endif  // SIFT_PREFILTER_X86

}  // namespace

TextPrefilter::FindFunction TextPrefilter::PortableFind() { return &PortableFindImpl; }

TextPrefilter::FindFunction TextPrefilter::BestFind() {
#ifdef SIFT_PREFILTER_X86
  return __builtin_cpu_supports("avx2") ? &Avx2Find : &Sse2Find;
#else
  return &PortableFindImpl;
#endif
}

namespace {

// Alternatives searched one by one up to this many; a longer list goes by its shared prefix.
constexpr size_t kSearchedOneByOne = 8;

}  // namespace

TextPrefilter::TextPrefilter(std::span<const selector::RequiredText> required) : find_(BestFind()) {
  for (const selector::RequiredText& r : required) {
    Requirement req;
    bool usable = !r.any_of.empty();
    for (const auto& a : r.any_of) usable = usable && a.text.size() >= 2;  // two code points at least
    if (!usable) continue;
    if (r.any_of.size() > kSearchedOneByOne) {
      bool all_short_whole_values = true;
      for (const auto& a : r.any_of) {
        all_short_whole_values =
            all_short_whole_values && a.exact && a.text.size() < 256 && a.section == r.any_of[0].section;
      }
      if (!all_short_whole_values) continue;
      std::string_view prefix = r.any_of[0].text;
      for (const auto& a : r.any_of) {
        size_t k = 0;
        while (k < prefix.size() && k < a.text.size() && prefix[k] == a.text[k]) ++k;
        prefix = prefix.substr(0, k);
      }
      if (prefix.size() < 2) continue;
      req.by_prefix = true;
      req.section = static_cast<int>(r.any_of[0].section);
      req.prefix = std::string(prefix);
      size_t capacity = 16;
      while (capacity < r.any_of.size() * 2) capacity *= 2;
      req.table.assign(capacity, -1);
      for (const auto& a : r.any_of) {
        const uint64_t h = selector::HashText(a.text);
        size_t slot = h & (capacity - 1);
        while (req.table[slot] >= 0) slot = (slot + 1) & (capacity - 1);
        req.table[slot] = static_cast<int32_t>(req.member_texts.size());
        req.member_texts.push_back(a.text);
        req.member_hashes.push_back(h);
        req.lengths.set(a.text.size());
      }
      sections_wanted_ |= 1u << req.section;
      requirements_.push_back(std::move(req));
      continue;
    }
    for (const auto& a : r.any_of) {
      std::string needle;
      if (a.exact) {
        // The value's encoded length before its bytes: the last (or only) byte of the size prefix of
        // str8 / sym8 / str32 / sym32 when under 256 bytes; the whole str32 / sym32 prefix above.
        const uint64_t n = a.text.size();
        if (n >= 256) {
          for (int shift = 24; shift > 0; shift -= 8) needle.push_back(static_cast<char>((n >> shift) & 0xff));
        }
        needle.push_back(static_cast<char>(n & 0xff));
      }
      needle += a.text;
      req.any_of.push_back({static_cast<int>(a.section), std::move(needle), a.exact ? nullptr : a.pattern});
    }
    for (const Alternative& a : req.any_of) sections_wanted_ |= 1u << a.section;
    requirements_.push_back(std::move(req));
  }
}

const uint8_t* TextPrefilter::Find(const uint8_t* h, size_t n, const uint8_t* needle, size_t m) const {
  // The block search confirms each candidate (first and last bytes agree) by comparing the middle, so
  // a long needle that agrees with the text for most of its length at every position (a hostile LIKE
  // literal over text built for it) would cost text x needle. Long needles go to glibc's memmem
  // instead: the two-way algorithm, linear in the text whatever the two hold.
  if (m > kLongNeedle) return static_cast<const uint8_t*>(memmem(h, n, needle, m));
  return find_(h, n, needle, m);
}

bool TextPrefilter::Requirement::Contains(std::string_view text) const {
  const uint64_t h = selector::HashText(text);
  const size_t mask = table.size() - 1;
  for (size_t slot = h & mask;; slot = (slot + 1) & mask) {
    const int32_t i = table[slot];
    if (i < 0) return false;
    if (member_hashes[i] == h && member_texts[i] == text) return true;
  }
}

bool TextPrefilter::PrefixSetHolds(const Requirement& r, const uint8_t* b, size_t n) const {
  const auto* prefix = reinterpret_cast<const uint8_t*>(r.prefix.data());
  const uint8_t* const end = b + n;
  for (const uint8_t* p = b; p < end;) {
    const uint8_t* hit = Find(p, static_cast<size_t>(end - p), prefix, r.prefix.size());
    if (hit == nullptr) return false;
    if (hit > b) {
      const size_t length = hit[-1];
      if (r.lengths.test(length) && static_cast<size_t>(end - hit) >= length &&
          r.Contains(std::string_view(reinterpret_cast<const char*>(hit), length))) {
        return true;
      }
    }
    p = hit + 1;
  }
  return false;
}

bool TextPrefilter::PatternMatchesAt(const selector::LikeMatcher& pattern, const uint8_t* b, const uint8_t* at,
                                     const uint8_t* end) {
  // The value's size prefix ends just before its bytes: one byte (str8 / sym8) or four big-endian
  // bytes (str32 / sym32). Which it is cannot be told from here (an array element has no
  // constructor of its own), so both readings are tried.
  const size_t left = static_cast<size_t>(end - at);
  const size_t before = static_cast<size_t>(at - b);
  auto matches = [&](size_t length) {
    return length <= left && pattern.Matches(std::string_view(reinterpret_cast<const char*>(at), length));
  };
  if (before >= 1 && matches(at[-1])) return true;
  if (before >= 4) {
    const size_t length = base::LoadBE32(at - 4);
    if (length >= 256 && matches(length)) return true;  // under 256: the same as the one-byte reading
  }
  return false;
}

bool TextPrefilter::Occurs(const Alternative& a, const uint8_t* b, size_t n, bool test_pattern) const {
  const auto* text = reinterpret_cast<const uint8_t*>(a.text.data());
  if (!a.pattern || !test_pattern) return Find(b, n, text, a.text.size()) != nullptr;
  const uint8_t* const end = b + n;
  for (const uint8_t* p = b; p < end;) {
    const uint8_t* hit = Find(p, static_cast<size_t>(end - p), text, a.text.size());
    if (hit == nullptr) return false;
    if (PatternMatchesAt(*a.pattern, b, hit, end)) return true;
    p = hit + 1;
  }
  return false;
}

bool TextPrefilter::HoldsAnywhere(const Requirement& r, std::span<const uint8_t> message) const {
  if (r.by_prefix) return PrefixSetHolds(r, message.data(), message.size());
  for (const Alternative& a : r.any_of) {
    if (Occurs(a, message.data(), message.size(), /*test_pattern=*/false)) return true;
  }
  return false;
}

bool TextPrefilter::FindSections(std::span<const uint8_t> message, SectionRanges* s) const {
  // The first occurrence of each wanted section (the one MessageView reads), by walking the
  // top-level sections in their common encoding: 0x00 0x53 <descriptor code> then the value.
  s->found = 0;
  const uint8_t* p = message.data();
  const uint8_t* const limit = p + message.size();
  while (p < limit && (s->found & sections_wanted_) != sections_wanted_) {
    SectionKind kind;
    const uint8_t* value = amqp::SmallSectionHeader(p, limit, &kind);
    // An encoding this walk does not follow: let the evaluation decide.
    if (value == nullptr) return false;
    const uint8_t* next = amqp::SkipPlainValue(value, limit);
    if (next == nullptr) return false;
    const uint32_t bit = 1u << static_cast<int>(kind);
    if ((s->found & bit) == 0) {
      s->found |= bit;
      s->begin[static_cast<int>(kind)] = value;
      s->end[static_cast<int>(kind)] = next;
    }
    p = next;
  }
  return true;
}

bool TextPrefilter::HoldsInSections(const Requirement& r, const SectionRanges& s) const {
  // An absent section holds no text.
  if (r.by_prefix) {
    return (s.found & (1u << r.section)) != 0 &&
           PrefixSetHolds(r, s.begin[r.section], static_cast<size_t>(s.end[r.section] - s.begin[r.section]));
  }
  for (const Alternative& a : r.any_of) {
    if ((s.found & (1u << a.section)) == 0) continue;
    const uint8_t* b = s.begin[a.section];
    if (Occurs(a, b, static_cast<size_t>(s.end[a.section] - b), /*test_pattern=*/true)) return true;
  }
  return false;
}

TextPrefilter::Verdict TextPrefilter::Check(std::span<const uint8_t> message, const Steps& steps) const {
  if (requirements_.empty()) return Verdict::kMayMatch;
  const size_t count = steps.order.empty() ? requirements_.size() : steps.order.size();
  auto requirement = [&](size_t k) -> const Requirement& {
    return requirements_[steps.order.empty() ? k : steps.order[k]];
  };
  // First a flat search of the whole message: a requirement none of whose texts occurs anywhere
  // rejects at once. This is the common reject path, and it has no dependent loads (the section
  // walk below reads each size prefix to find the next section).
  if (steps.flat) {
    for (size_t k = 0; k < count; ++k) {
      if (!HoldsAnywhere(requirement(k), message)) return Verdict::kNotInMessage;
    }
  }
  if (!steps.sections) return Verdict::kMayMatch;
  SectionRanges s;
  if (!FindSections(message, &s)) return Verdict::kMayMatch;
  for (size_t k = 0; k < count; ++k) {
    if (!HoldsInSections(requirement(k), s)) return Verdict::kNotInSection;
  }
  return Verdict::kMayMatch;
}

void TextPrefilter::Measure(std::span<const uint8_t> message, uint32_t* not_in_message,
                            uint32_t* not_in_section) const {
  *not_in_message = 0;
  *not_in_section = 0;
  SectionRanges s;
  const bool walked = FindSections(message, &s);
  for (size_t i = 0; i < requirements_.size(); ++i) {
    const Requirement& r = requirements_[i];
    if (!HoldsAnywhere(r, message)) {
      *not_in_message |= 1u << i;
      *not_in_section |= 1u << i;
    } else if (walked && !HoldsInSections(r, s)) {
      *not_in_section |= 1u << i;
    }
  }
}

}  // namespace sift::engine
