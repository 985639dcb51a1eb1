// LIKE compilation and matching (see like.h).
#include "selector/like.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define SIFT_LIKE_AVX2 1
#endif

#include "base/utf8.h"
#include "selector/bytes_equal.h"

namespace sift::selector {

LikeMatcher::~LikeMatcher() = default;

namespace {

// One element of a pattern: a literal character (maybe escaped), '%' or '_'.
struct Piece {
  enum Kind : uint8_t { kLiteral, kAnyRun, kOne } kind;
  std::string_view text;  // kLiteral: the character's bytes
};

std::vector<Piece> Split(std::string_view pattern, std::string_view escape) {
  std::vector<Piece> pieces;
  for (size_t i = 0; i < pattern.size();) {
    size_t len = base::Utf8SequenceLength(pattern, i);
    if (len == 0) len = 1;
    std::string_view c = pattern.substr(i, len);
    i += len;
    if (!escape.empty() && c == escape && i < pattern.size()) {
      size_t n = base::Utf8SequenceLength(pattern, i);
      if (n == 0) n = 1;
      pieces.push_back({Piece::kLiteral, pattern.substr(i, n)});
      i += n;
    } else if (c == "%") {
      pieces.push_back({Piece::kAnyRun, {}});
    } else if (c == "_") {
      pieces.push_back({Piece::kOne, {}});
    } else {
      pieces.push_back({Piece::kLiteral, c});
    }
  }
  return pieces;
}

}  // namespace

namespace {

// A searched segment with a '_' is searched bit-parallel from this many code points on, which costs
// the same per byte of text whatever the text; a lone '_' matches at the first code point.
constexpr size_t kBitParallelFrom = 2;
// The longest segment with a '_' searched bit-parallel (its state sits on the stack): 4,096 code
// points, four times the default pattern limit. A longer one (limits raised by an embedder) is refused.
constexpr size_t kMaxWords = 64;

// The first occurrence of `needle` in text[from...], or npos, in time linear in the text whatever
// the two hold: glibc's memmem (the two-way algorithm where a simpler search could go quadratic),
// where std::string_view::find compares the needle at every position that starts like it.
size_t FindLinear(std::string_view text, std::string_view needle, size_t from) {
  if (from > text.size()) return std::string_view::npos;
  if (needle.empty()) return from;
  const void* hit = memmem(text.data() + from, text.size() - from, needle.data(), needle.size());
  return hit == nullptr ? std::string_view::npos : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
}

// The code point of a literal piece, or a value no well-formed text holds for bytes that are not
// UTF-8 (they never match: a text with a '_' to match must be UTF-8).
uint32_t CodePointOf(std::string_view literal) {
  uint32_t cp = 0;
  return base::DecodeSingleCodePoint(literal, &cp) ? cp : 0xffffffffu;
}

}  // namespace

std::unique_ptr<LikeMatcher> LikeMatcher::Compile(std::string_view pattern, std::string_view escape, Error* error) {
  std::unique_ptr<LikeMatcher> m(new LikeMatcher());
  m->pattern_ = std::string(pattern);
  std::vector<Piece> pieces = Split(pattern, escape);
  // The longest run of literal pieces (one code point each): what every match must contain.
  for (size_t i = 0; i < pieces.size();) {
    size_t j = i;
    std::string run;
    while (j < pieces.size() && pieces[j].kind == Piece::kLiteral) run += pieces[j++].text;
    if (j - i > m->required_code_points_) {
      m->required_code_points_ = j - i;
      m->required_ = std::move(run);
    }
    i = j == i ? i + 1 : j;
  }
  for (const Piece& p : pieces) {
    if (p.kind != Piece::kLiteral) break;
    m->leading_ += p.text;
    ++m->leading_code_points_;
  }
  bool has_one = false;
  size_t runs = 0;
  for (const Piece& p : pieces) {
    has_one = has_one || p.kind == Piece::kOne;
    runs += p.kind == Piece::kAnyRun;
  }
  // Segments (literals and '_'s) separated by '%'s.
  std::vector<Segment> segments(1);
  for (const Piece& p : pieces) {
    Segment& seg = segments.back();
    if (p.kind == Piece::kAnyRun) {
      segments.emplace_back();
    } else if (p.kind == Piece::kOne) {
      seg.text += '_';
      if (!seg.has_one) seg.literal_head = seg.text.size() - 1;
      seg.one_char.push_back(1);
      seg.code_points += 1;
      seg.has_one = true;
    } else {
      seg.text += p.text;
      seg.one_char.insert(seg.one_char.end(), p.text.size(), 0);
      seg.code_points += 1;
    }
  }
  bool starts = !pieces.empty() && pieces.front().kind == Piece::kAnyRun;
  bool ends = !pieces.empty() && pieces.back().kind == Piece::kAnyRun;
  std::vector<Segment> nonempty;
  for (auto& seg : segments) {
    if (!seg.text.empty()) nonempty.push_back(std::move(seg));
  }
  if (!has_one && runs == 0) {
    m->kind_ = Kind::kExact;
    m->literal_ = nonempty.empty() ? std::string() : nonempty[0].text;
  } else if (nonempty.empty()) {
    m->kind_ = runs == 0 ? Kind::kExact : Kind::kAny;  // runs == 0 here means the empty pattern
  } else if (!has_one && nonempty.size() == 1 && !starts && ends && runs == 1) {
    m->kind_ = Kind::kPrefix;
    m->literal_ = nonempty[0].text;
  } else if (!has_one && nonempty.size() == 1 && starts && !ends && runs == 1) {
    m->kind_ = Kind::kSuffix;
    m->literal_ = nonempty[0].text;
  } else if (!has_one && nonempty.size() == 1 && starts && ends) {
    m->kind_ = Kind::kContains;
    m->literal_ = nonempty[0].text;
  } else {
    m->kind_ = Kind::kSegments;
    m->has_one_ = has_one;
    m->segments_ = std::move(nonempty);
    for (const Segment& seg : m->segments_) {
      if (seg.has_one && seg.code_points > kMaxWords * 64) {
        // Beyond what the bit-parallel search holds, a '_' segment would cost text x pattern steps.
        error->code = ErrorCode::kInvalidPattern;
        error->message = "LIKE pattern has a segment of " + std::to_string(seg.code_points) +
                         " characters with '_', more than the " + std::to_string(kMaxWords * 64) +
                         " matched in linear time";
        return nullptr;
      }
    }
    m->anchored_start_ = !starts;
    m->anchored_end_ = !ends;
    // The segments searched for (an anchored one is compared in place, once).
    const size_t first = m->anchored_start_ ? 1 : 0;
    const size_t last = m->segments_.size() - (m->anchored_end_ ? 1 : 0);
    for (size_t i = first; i < last; ++i) {
      PrepareBitParallel(&m->segments_[i]);
      m->bit_parallel_ = m->bit_parallel_ || m->segments_[i].words != 0;
    }
  }
  return m;
}

void LikeMatcher::PrepareBitParallel(Segment* seg) {
  if (!seg->has_one || seg->code_points < kBitParallelFrom) return;
  // One word up to 64 code points; beyond, whole 256-bit vectors for the AVX2 search (the padding
  // words' masks are 0, so their bits stay 0).
  const size_t words = seg->code_points <= 64 ? 1 : ((seg->code_points + 63) / 64 + 3) / 4 * 4;
  seg->words = words;
#ifdef SIFT_LIKE_AVX2
  seg->avx2 = words > 1 && __builtin_cpu_supports("avx2");
#endif
  seg->one_mask.assign(words, 0);
  // The code point at each literal position; every '_' position goes into one_mask.
  std::vector<std::pair<uint32_t, size_t>> literals;
  size_t j = 0;
  for (size_t i = 0; i < seg->text.size(); ++j) {
    if (seg->one_char[i]) {
      seg->one_mask[j / 64] |= uint64_t{1} << (j % 64);
      ++i;
      continue;
    }
    size_t n = base::Utf8SequenceLength(seg->text, i);
    if (n == 0) n = 1;
    literals.emplace_back(CodePointOf(std::string_view(seg->text).substr(i, n)), j);
    i += n;
  }
  seg->ascii_masks.assign(128 * words, 0);
  for (size_t c = 0; c < 128; ++c) {
    for (size_t w = 0; w < words; ++w) seg->ascii_masks[c * words + w] = seg->one_mask[w];
  }
  for (const auto& [cp, pos] : literals) {
    if (cp >= 128 && cp != 0xffffffffu) seg->others.push_back(cp);
  }
  std::sort(seg->others.begin(), seg->others.end());
  seg->others.erase(std::unique(seg->others.begin(), seg->others.end()), seg->others.end());
  seg->other_masks.assign(seg->others.size() * words, 0);
  for (size_t k = 0; k < seg->others.size(); ++k) {
    for (size_t w = 0; w < words; ++w) seg->other_masks[k * words + w] = seg->one_mask[w];
  }
  for (const auto& [cp, pos] : literals) {
    const uint64_t bit = uint64_t{1} << (pos % 64);
    if (cp < 128) {
      seg->ascii_masks[cp * words + pos / 64] |= bit;
    } else if (cp != 0xffffffffu) {
      const auto it = std::lower_bound(seg->others.begin(), seg->others.end(), cp);
      seg->other_masks[static_cast<size_t>(it - seg->others.begin()) * words + pos / 64] |= bit;
    }
  }
  if (seg->avx2) {
    // The AVX2 search keeps word w in lane w / V of vector w % V (V = words / 4): a word's predecessor
    // is then in the same lane of the vector before, and only vector 0 takes its carries across lanes.
    const size_t vectors = words / 4;
    std::vector<uint64_t> row(words);
    auto stride = [&](uint64_t* masks) {
      for (size_t w = 0; w < words; ++w) row[w % vectors * 4 + w / vectors] = masks[w];
      std::copy(row.begin(), row.end(), masks);
    };
    for (size_t c = 0; c < 128; ++c) stride(&seg->ascii_masks[c * words]);
    for (size_t k = 0; k < seg->others.size(); ++k) stride(&seg->other_masks[k * words]);
    stride(seg->one_mask.data());
  }
}

// The end of `seg` matched at text[at...], or npos.
size_t LikeMatcher::MatchSegmentAt(const Segment& seg, std::string_view text, size_t at) {
  if (!seg.has_one) {
    return text.size() - at >= seg.text.size() && BytesEqual(text.data() + at, seg.text.data(), seg.text.size())
               ? at + seg.text.size()
               : std::string_view::npos;
  }
  // The literal bytes before the first '_' in one comparison: most texts fail there.
  const size_t head = seg.literal_head;
  if (text.size() - at < head || !BytesEqual(text.data() + at, seg.text.data(), head)) {
    return std::string_view::npos;
  }
  size_t t = at + head;
  for (size_t i = head; i < seg.text.size(); ++i) {
    if (seg.one_char[i]) {
      // Bytes that are not well-formed UTF-8 never match '_' (they have no code points).
      size_t n = t < text.size() ? base::Utf8SequenceLength(text, t) : 0;
      if (n == 0) return std::string_view::npos;
      t += n;
    } else {
      if (t >= text.size() || text[t] != seg.text[i]) return std::string_view::npos;
      ++t;
    }
  }
  return t;
}

// Where the last `code_points` code points of text[begin, end) start, or npos if there are fewer.
static size_t BackCodePoints(std::string_view text, size_t begin, size_t end, size_t code_points) {
  size_t at = end;
  for (size_t i = 0; i < code_points; ++i) {
    if (at <= begin) return std::string_view::npos;
    --at;
    while (at > begin && base::IsUtf8Continuation(static_cast<uint8_t>(text[at]))) --at;
  }
  return at;
}

// The mask of the code point at text[*at] (well-formed UTF-8: Matches checked the whole text), stepping
// *at past it: bit j is set when pattern position j accepts it.
[[gnu::always_inline]] inline const uint64_t* LikeMatcher::MaskOf(const Segment& seg, const uint8_t* bytes,
                                                                  size_t* at) {
  const uint8_t lead = bytes[*at];
  if (lead < 0x80) {
    ++*at;
    return &seg.ascii_masks[size_t{lead} * seg.words];
  }
  uint32_t cp = 0;
  if (lead < 0xe0) {  // two bytes, the most common after ASCII
    cp = (uint32_t{lead} & 0x1f) << 6 | (uint32_t{bytes[*at + 1]} & 0x3f);
    *at += 2;
  } else {
    *at += base::DecodeValidUtf8(bytes + *at, &cp);
  }
  const auto it = std::lower_bound(seg.others.begin(), seg.others.end(), cp);
  return it != seg.others.end() && *it == cp
             ? &seg.other_masks[static_cast<size_t>(it - seg.others.begin()) * seg.words]
             : seg.one_mask.data();
}

// FindSegment by shift-and over the code points of text: bit j of the state is set when the last
// j + 1 code points match the segment's first j + 1 positions. Every match of a segment spans the
// same number of code points, so the earliest end found is the earliest start. One step is
// state = ((state << 1) | 1) & mask over the segment's words, the shift carrying each word's top bit
// into the next.
size_t LikeMatcher::FindSegmentBitParallel(const Segment& seg, std::string_view text, size_t from, size_t* end) {
#ifdef SIFT_LIKE_AVX2
  if (seg.avx2) return FindSegmentBitParallelAvx2(seg, text, from, end);
#endif
  const size_t last = seg.code_points - 1;
  const uint8_t* const bytes = reinterpret_cast<const uint8_t*>(text.data());
  if (seg.words == 1) {  // the common case: the state in one register
    uint64_t state = 0;
    for (size_t at = from; at < text.size();) {
      state = ((state << 1) | 1) & *MaskOf(seg, bytes, &at);
      if (state >> last & 1) {
        *end = at;
        return BackCodePoints(text, from, at, seg.code_points);
      }
    }
    return std::string_view::npos;
  }
  uint64_t state[kMaxWords] = {};
  for (size_t at = from; at < text.size();) {
    const uint64_t* mask = MaskOf(seg, bytes, &at);
    uint64_t carry = 1;
    for (size_t w = 0; w < seg.words; ++w) {
      const uint64_t out = state[w] >> 63;
      state[w] = ((state[w] << 1) | carry) & mask[w];
      carry = out;
    }
    if (state[last / 64] >> (last % 64) & 1) {
      *end = at;
      return BackCodePoints(text, from, at, seg.code_points);
    }
  }
  return std::string_view::npos;
}

#ifdef SIFT_LIKE_AVX2
// The same, four words per instruction, in the layout PrepareBitParallel gives AVX2 segments: word w
// in lane w / V of vector w % V. Every vector but the first shifts left by one and takes the top bits
// of the vector before it, lane by lane; the first takes the top bits of the last vector, rotated up a
// lane, and 1 in lane 0 (a match may start at every code point). Each new vector depends on the
// state before the step only, so the words are updated independently and the one cross-lane
// shuffle is off the path from one step to the next. With kVectors fixed (segments up to 1,024 code
// points) the state stays in registers; kVectors 0 serves longer segments (only with raised limits).
template <size_t kVectors>
__attribute__((target("avx2"))) size_t LikeMatcher::FindSegmentAvx2(const Segment& seg, std::string_view text,
                                                                    size_t from, size_t* end) {
  const size_t vectors = kVectors != 0 ? kVectors : seg.words / 4;
  const size_t last = seg.code_points - 1;
  const size_t last_vector = last / 64 % vectors;
  alignas(32) uint64_t last_lanes[4] = {};
  last_lanes[last / 64 / vectors] = uint64_t{1} << (last % 64);
  const __m256i last_bit = _mm256_load_si256(reinterpret_cast<const __m256i*>(last_lanes));
  const __m256i start = _mm256_set_epi64x(0, 0, 0, 1);
  __m256i state[kVectors != 0 ? kVectors : kMaxWords / 4];
  for (size_t v = 0; v < vectors; ++v) state[v] = _mm256_setzero_si256();
  const uint8_t* const bytes = reinterpret_cast<const uint8_t*>(text.data());
  for (size_t at = from; at < text.size();) {
    const uint64_t* mask = MaskOf(seg, bytes, &at);
    // [1, top bits of the last vector's lanes 0, 1, 2]: the carries into vector 0.
    const __m256i wrapped =
        _mm256_blend_epi32(_mm256_permute4x64_epi64(_mm256_srli_epi64(state[vectors - 1], 63), 0x93), start, 0x03);
    for (size_t v = vectors - 1; v > 0; --v) {  // downwards: state[v - 1] is still the step's input
      const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask + 4 * v));
      state[v] =
          _mm256_and_si256(_mm256_or_si256(_mm256_slli_epi64(state[v], 1), _mm256_srli_epi64(state[v - 1], 63)), m);
    }
    const __m256i m0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask));
    state[0] = _mm256_and_si256(_mm256_or_si256(_mm256_slli_epi64(state[0], 1), wrapped), m0);
    if (!_mm256_testz_si256(state[last_vector], last_bit)) {
      *end = at;
      return BackCodePoints(text, from, at, seg.code_points);
    }
  }
  return std::string_view::npos;
}

size_t LikeMatcher::FindSegmentBitParallelAvx2(const Segment& seg, std::string_view text, size_t from, size_t* end) {
  switch (seg.words / 4) {
    case 1: return FindSegmentAvx2<1>(seg, text, from, end);
    case 2: return FindSegmentAvx2<2>(seg, text, from, end);
    case 3: return FindSegmentAvx2<3>(seg, text, from, end);
    case 4: return FindSegmentAvx2<4>(seg, text, from, end);
    default: return FindSegmentAvx2<0>(seg, text, from, end);
  }
}
#endif

// The earliest place at or after `from` where `seg` matches; *end gets where that match ends.
size_t LikeMatcher::FindSegment(const Segment& seg, std::string_view text, size_t from, size_t* end) {
  if (!seg.has_one) {
    size_t found = FindLinear(text, seg.text, from);
    if (found != std::string_view::npos) *end = found + seg.text.size();
    return found;
  }
  if (seg.words != 0) return FindSegmentBitParallel(seg, text, from, end);
  for (size_t at = from; at < text.size(); ++at) {
    // Only code point boundaries can start a match: skip UTF-8 continuation bytes.
    if (base::IsUtf8Continuation(static_cast<uint8_t>(text[at]))) continue;
    size_t e = MatchSegmentAt(seg, text, at);
    if (e != std::string_view::npos) {
      *end = e;
      return at;
    }
  }
  return std::string_view::npos;
}

bool LikeMatcher::Matches(std::string_view text) const {
  switch (kind_) {
    case Kind::kExact: return text == literal_;
    case Kind::kPrefix:
      return text.size() >= literal_.size() && BytesEqual(text.data(), literal_.data(), literal_.size());
    case Kind::kSuffix:
      return text.size() >= literal_.size() &&
             text.compare(text.size() - literal_.size(), literal_.size(), literal_) == 0;
    case Kind::kContains: return FindLinear(text, literal_, 0) != std::string_view::npos;
    case Kind::kAny: return true;
    case Kind::kSegments: {
      // '_' stands for one code point, so text that is not UTF-8 has no characters to match it
      // (as a UTF-8 regular expression engine would say); '%'-only patterns compare bytes.
      if (has_one_ && !base::IsValidUtf8(text)) return false;
      // Greedy: each segment at its earliest position after the previous one is optimal, because a
      // segment always spans the same number of code points. The first / last segments are pinned
      // when the pattern is anchored.
      size_t first = 0, last = segments_.size();
      size_t begin = 0, end = text.size();
      if (anchored_start_) {
        size_t e = MatchSegmentAt(segments_.front(), text, 0);
        if (e == std::string_view::npos) return false;
        begin = e;
        ++first;
        if (segments_.size() == 1 && anchored_end_) return e == text.size();
      }
      if (anchored_end_) {
        const Segment& seg = segments_.back();
        size_t at = BackCodePoints(text, begin, end, seg.code_points);
        if (at == std::string_view::npos || MatchSegmentAt(seg, text, at) != end) return false;
        end = at;
        --last;
      }
      std::string_view middle = text.substr(0, end);
      size_t at = begin;
      for (size_t i = first; i < last; ++i) {
        size_t seg_end = 0;
        if (FindSegment(segments_[i], middle, at, &seg_end) == std::string_view::npos) return false;
        at = seg_end;
      }
      return true;
    }
  }
  return false;
}

std::string LikeMatcher::Describe() const {
  auto quote = [](std::string_view s) { return "'" + std::string(s) + "'"; };
  switch (kind_) {
    case Kind::kExact: return "exact " + quote(literal_);
    case Kind::kPrefix: return "prefix " + quote(literal_);
    case Kind::kSuffix: return "suffix " + quote(literal_);
    case Kind::kContains: return "contains " + quote(literal_);
    case Kind::kAny: return "any text";
    case Kind::kSegments: {
      std::string out = "segments";
      for (const auto& seg : segments_) out += " " + quote(seg.text) + (seg.words != 0 ? " (bit-parallel)" : "");
      if (anchored_start_) out += " (anchored start)";
      if (anchored_end_) out += " (anchored end)";
      return out;
    }
  }
  return "?";
}

}  // namespace sift::selector
