// Building chunk summaries (see chunk_summary_builder.h; the byte layout is chunk_summary_format.h's).
#include "engine/chunk_summary_builder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "base/byte_order.h"
#include "amqp/field_types.h"
#include "amqp/message_layout.h"
#include "amqp/message_view.h"
#include "amqp/validate.h"
#include "engine/bloom_filter.h"
#include "engine/chunk_summary_format.h"
#include "engine/message_field_source.h"
#include "engine/text_hash.h"
#include "selector/compare.h"

namespace sift::engine {
namespace {

using selector::FieldRef;
using selector::Number;
using selector::Section;
using selector::Value;
using selector::ValueClass;

// Exact value sets hold at most this many texts of at most this many bytes in all; past that, a Bloom
// filter (bloom_filter.h).
constexpr size_t kExactTexts = 16;
constexpr size_t kExactBytes = 512;

// A field remembers up to this many distinct encodings of a chunk's values (see FieldStats::Repeated).
constexpr uint32_t kSeenEncodings = 16;
// The encoding that stands for a header field's default (see AddList): a real one is never empty.
constexpr uint8_t kDefaultEncoding[1] = {0};

// The smallest string greater than every string that starts with `prefix`; false when there is none
// (the prefix is all 0xff bytes).
bool UpperBoundOfPrefix(std::string_view prefix, std::string* out) {
  size_t n = prefix.size();
  while (n > 0 && static_cast<unsigned char>(prefix[n - 1]) == 0xff) --n;
  if (n == 0) return false;
  out->assign(prefix.substr(0, n));
  (*out)[n - 1] = static_cast<char>(static_cast<unsigned char>((*out)[n - 1]) + 1);
  return true;
}

// Equality of n bytes. The builder compares short runs (encodings, keys, texts) many times a message,
// where a call to memcmp costs more than the comparison: up to 32 bytes it compares words inline, from
// both ends (overlapping in the middle).
[[gnu::always_inline]] inline bool SameBytes(const void* a, const void* b, size_t n) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  auto word = [](const char* p, size_t at) { return base::LoadLE64(p + at); };
  if (n <= 16) {
    if (n >= 8) return ((word(x, 0) ^ word(y, 0)) | (word(x, n - 8) ^ word(y, n - 8))) == 0;
    if (n >= 4) {
      return ((base::LoadLE32(x) ^ base::LoadLE32(y)) | (base::LoadLE32(x + n - 4) ^ base::LoadLE32(y + n - 4))) == 0;
    }
    if (n == 0) return true;
    return x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1];  // 1..3 bytes
  }
  if (n > 32) return std::memcmp(x, y, n) == 0;
  return ((word(x, 0) ^ word(y, 0)) | (word(x, 8) ^ word(y, 8)) | (word(x, n - 16) ^ word(y, n - 16)) |
          (word(x, n - 8) ^ word(y, n - 8))) == 0;
}

inline bool SameText(std::string_view a, std::string_view b) {
  return a.size() == b.size() && SameBytes(a.data(), b.data(), a.size());
}

// The first n (< 8) bytes at p as the high bytes of a big-endian word: two such words compare as the
// bytes do.
inline uint64_t HighBytesBE(const char* p, size_t n) {
  if (n >= 4) return (uint64_t{base::LoadBE32(p)} << 32) | (uint64_t{base::LoadBE32(p + n - 4)} << (64 - 8 * n));
  auto byte = [p](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
  if (n == 0) return 0;
  return (byte(0) << 56) | (byte(n / 2) << (56 - 8 * (n / 2))) | (byte(n - 1) << (56 - 8 * (n - 1)));
}

// Bytewise three-way comparison of texts (<0, 0, >0), with big-endian words for the short ones: ids
// and keys share long prefixes, which a first-byte test does not get past without a call.
inline int CompareText(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  if (n > 32) {
    const int c = std::memcmp(a.data(), b.data(), n);
    if (c != 0) return c;
  } else if (n >= 8) {
    for (size_t i = 0;; i += 8) {
      const size_t at = i + 8 < n ? i : n - 8;  // the last word overlaps the one before: equal bytes there
      const uint64_t x = base::LoadBE64(a.data() + at), y = base::LoadBE64(b.data() + at);
      if (x != y) return x < y ? -1 : 1;
      if (at == n - 8) break;
    }
  } else {
    const uint64_t x = HighBytesBE(a.data(), n), y = HighBytesBE(b.data(), n);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

inline bool TextLess(std::string_view a, std::string_view b) { return CompareText(a, b) < 0; }

// CompareNumbers(a, b) < 0, without the call when both are of one kind (NaN never reaches here).
inline bool NumberLess(const Number& a, const Number& b) {
  if (a.kind == b.kind) {
    switch (a.kind) {
      case Number::Kind::kSigned: return a.i < b.i;
      case Number::Kind::kUnsigned: return a.u < b.u;
      case Number::Kind::kDouble: return a.d < b.d;
    }
  }
  return selector::CompareNumbers(a, b) < 0;
}

// The bytes of an encoding of at most 16 bytes as two words (the first bytes and the last ones, which
// overlap when there are fewer than 16): with the size, equal keys are equal bytes.
struct EncodingKey {
  uint64_t w0 = 0, w1 = 0;
  uint32_t size = 0;
};
constexpr uint32_t kMaxKeyedEncoding = 16;

inline EncodingKey KeyOf(const uint8_t* p, uint32_t size) {
  EncodingKey k;
  k.size = size;
  if (size >= 8) {
    k.w0 = base::LoadLE64(p);
    k.w1 = base::LoadLE64(p + size - 8);
  } else if (size >= 4) {
    k.w0 = base::LoadLE32(p) | (uint64_t{base::LoadLE32(p + size - 4)} << 32);
  } else if (size > 0) {
    k.w0 = p[0] | (uint64_t{p[size / 2]} << 8) | (uint64_t{p[size - 1]} << 16);
  }
  return k;
}

// The number a plain fixed-width encoding at p holds, as amqp::internal::PlainValue decodes it and
// selector::ToNumber makes it a number; false for any other encoding.
[[gnu::always_inline]] inline bool PlainNumber(const uint8_t* p, Number* out) {
  const uint8_t* const d = p + 1;
  switch (p[0]) {
    case amqp::code::kUByte:
    case amqp::code::kSmallUInt:
    case amqp::code::kSmallULong: *out = Number::Unsigned(d[0]); return true;
    case amqp::code::kUShort: *out = Number::Unsigned(base::LoadBE16(d)); return true;
    case amqp::code::kUInt0:
    case amqp::code::kULong0: *out = Number::Unsigned(0); return true;
    case amqp::code::kUInt: *out = Number::Unsigned(base::LoadBE32(d)); return true;
    case amqp::code::kULong: *out = Number::Unsigned(base::LoadBE64(d)); return true;
    case amqp::code::kByte:
    case amqp::code::kSmallInt:
    case amqp::code::kSmallLong: *out = Number::Signed(static_cast<int8_t>(d[0])); return true;
    case amqp::code::kShort: *out = Number::Signed(static_cast<int16_t>(base::LoadBE16(d))); return true;
    case amqp::code::kInt: *out = Number::Signed(static_cast<int32_t>(base::LoadBE32(d))); return true;
    case amqp::code::kLong:
    case amqp::code::kTimestamp: *out = Number::Signed(static_cast<int64_t>(base::LoadBE64(d))); return true;
    case amqp::code::kFloat: *out = Number::Double(std::bit_cast<float>(base::LoadBE32(d))); return true;
    case amqp::code::kDouble: *out = Number::Double(std::bit_cast<double>(base::LoadBE64(d))); return true;
    default: return false;
  }
}

// A set of 64-bit text hashes: open addressing, linear probing, 0 marking an empty slot (a hash of 0
// is kept apart). The distinct texts of a field in a chunk, for its Bloom filter.
class HashSet {
 public:
  bool Insert(uint64_t h) {
    if (h == 0) {
      const bool fresh = !has_zero_;
      has_zero_ = true;
      return fresh;
    }
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots_[i] == h) return false;
      if (slots_[i] == 0) {
        slots_[i] = h;
        ++count_;
        return true;
      }
    }
  }
  size_t size() const { return count_ + (has_zero_ ? 1 : 0); }
  // Empty, keeping the table: the next chunk's field likely needs as many slots.
  void Clear() {
    if (count_ > 0) std::fill(slots_.begin(), slots_.end(), 0);
    count_ = 0;
    has_zero_ = false;
  }
  template <typename F>
  void ForEach(F&& f) const {
    if (has_zero_) f(uint64_t{0});
    for (uint64_t h : slots_) {
      if (h != 0) f(h);
    }
  }

 private:
  void Grow() {
    std::vector<uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, 0);
    count_ = 0;
    for (uint64_t h : old) {
      if (h != 0) Insert(h);
    }
  }
  std::vector<uint64_t> slots_;
  size_t count_ = 0;
  bool has_zero_ = false;
};

// Scratch space of Finish(), kept from one chunk to the next so that encoding allocates nothing once
// it has met fields of a chunk's sizes.
struct EncodeScratch {
  std::string body;
  std::string bound;
  std::string filter;
  std::vector<std::string_view> texts;
};

struct FieldStats {
  uint64_t chunk = 0;  // the chunk (ChunkSummaryBuilder::State::chunk) these stats are of
  uint8_t section = 0;
  std::string name;
  uint32_t last_message = UINT32_MAX;
  // Messages per value class (a message with the field counts in one): their sum is the messages
  // that have the field.
  uint32_t nulls = 0, texts = 0, numbers = 0, booleans = 0, others = 0;
  bool has_nan = false, has_range = false, seen_true = false, seen_false = false;
  Number min, max;
  std::string_view text_min, text_max;  // see SetBound
  char min_bytes[4], max_bytes[4];
  HashSet hashes;
  std::vector<std::string> exact;
  std::vector<uint64_t> exact_hashes;      // TextHash of each entry of `exact`, once the texts do not only grow
  std::vector<std::string_view> unhashed;  // the texts past the exact list while they only grow
  size_t exact_bytes = 0;
  bool exact_overflow = false;
  bool texts_ascending = true;   // every text so far >= the one before it
  uint8_t number_code = 0;       // the format code of the plain number AddPlain added last (0: none yet)
  const uint8_t* raw = nullptr;  // the encoding of the value added last (nullptr: unknown)
  uint32_t raw_size = 0;
  uint32_t* last_count = nullptr;  // the count that value went to
  // The distinct short encodings this chunk added (see Repeated), each with the count its value went to
  // and, for a text, where the text starts in it (0 for another value): an open-addressing table of
  // kSeenSlots (a slot is empty while its count is nullptr) holding at most kSeenEncodings, so that a
  // lookup probes one or two slots.
  struct SeenEncoding {
    EncodingKey key;
    uint32_t text_at = 0;
    uint32_t* count = nullptr;
  };
  static constexpr uint32_t kSeenSlots = 2 * kSeenEncodings;
  SeenEncoding seen[kSeenSlots];
  uint8_t seen_slots[kSeenEncodings];  // the slots in use, to empty them
  uint32_t seen_count = 0;
  bool seen_off = false;  // more distinct encodings than the table holds: it is not looked at

  static uint32_t SeenSlot(const EncodingKey& k) {
    const uint64_t h = (k.w0 ^ (k.w1 * 0x9e3779b97f4a7c15ull) ^ k.size) * 0xff51afd7ed558ccdull;
    return static_cast<uint32_t>(h >> (64 - std::countr_zero(kSeenSlots)));
  }
  SeenEncoding* FindSeen(const EncodingKey& k) {
    for (uint32_t i = SeenSlot(k);; i = (i + 1) % kSeenSlots) {
      SeenEncoding& e = seen[i];
      if (e.count == nullptr) return nullptr;
      if (e.key.w0 == k.w0 && e.key.w1 == k.w1 && e.key.size == k.size) return &e;
    }
  }

  // Until the exact list overflows it is the set (a text's hash is compared with at most kExactTexts
  // others); from then on the hash set is, seeded with the list's hashes. While the texts only grow
  // (texts_ascending), a text is new exactly when it is above the greatest one, and is not hashed: such
  // texts (ids, time-ordered keys) get no set once the list overflows (see Encode), so their hashes are
  // taken only if the order breaks (Unascend). `stable`: t views the message (valid until Finish()), not
  // a buffer of the caller's.
  [[gnu::noinline]] void AddText(std::string_view t, bool stable) {
    ++*(last_count = &texts);
    if (texts_ascending) {
      if (texts == 1) {
        SetBound(&text_min, min_bytes, t, stable);
        SetBound(&text_max, max_bytes, t, stable);
        AddAscending(t, stable);
        return;
      }
      const int c = CompareText(t, text_max);
      if (c > 0) {
        AddAscending(t, stable);
        SetBound(&text_max, max_bytes, t, stable);
        return;
      }
      if (c == 0) return;  // the greatest text again
      Unascend();
    }
    const uint64_t h = TextHash(t);
    if (!exact_overflow) {
      for (size_t i = 0; i < exact.size(); ++i) {
        if (exact_hashes[i] == h && SameText(exact[i], t)) return;  // seen: the bounds already hold it
      }
      if (exact.size() < kExactTexts && exact_bytes + t.size() <= kExactBytes) {
        exact.emplace_back(t);
        exact_hashes.push_back(h);
        exact_bytes += t.size();
      } else {
        exact_overflow = true;
        for (const uint64_t e : exact_hashes) hashes.Insert(e);
        hashes.Insert(h);
      }
    } else {
      hashes.Insert(h);  // a seen hash may still be another text: the bounds below decide
    }
    if (TextLess(t, text_min)) {
      SetBound(&text_min, min_bytes, t, stable);
    } else if (TextLess(text_max, t)) {
      SetBound(&text_max, max_bytes, t, stable);
    }
  }

  // A text above every text before it (so not one of them), while they only grow.
  void AddAscending(std::string_view t, bool stable) {
    if (!exact_overflow) {
      if (exact.size() < kExactTexts && exact_bytes + t.size() <= kExactBytes) {
        exact.emplace_back(t);
        exact_bytes += t.size();
        return;
      }
      exact_overflow = true;
    }
    if (stable) {
      unhashed.push_back(t);
    } else {
      hashes.Insert(TextHash(t));
    }
  }

  // The texts no longer only grow: from here on they are hashed, and so are the ones before, which
  // are all distinct (the exact list's, and those past it).
  [[gnu::noinline]] void Unascend() {
    texts_ascending = false;
    for (const std::string& e : exact) exact_hashes.push_back(TextHash(e));
    if (exact_overflow) {
      for (const uint64_t e : exact_hashes) hashes.Insert(e);
      for (const std::string_view u : unhashed) hashes.Insert(TextHash(u));
    }
    unhashed.clear();
  }

  // A text bound views the message its text came from (valid until Finish()), or a copy of a char's
  // text (at most 4 bytes) in `bytes`.
  static void SetBound(std::string_view* bound, char* bytes, std::string_view t, bool stable) {
    if (stable) {
      *bound = t;
    } else {
      std::memcpy(bytes, t.data(), t.size());
      *bound = std::string_view(bytes, t.size());
    }
  }

  // A fresh field, keeping the memory the field had in the chunks before.
  void Reset(Section s, std::string_view n) {
    section = static_cast<uint8_t>(s);
    name.assign(n);
    last_message = UINT32_MAX;
    nulls = texts = numbers = booleans = others = 0;
    has_nan = has_range = seen_true = seen_false = false;
    min = max = Number();
    text_min = text_max = std::string_view();
    hashes.Clear();
    exact.clear();
    exact_hashes.clear();
    unhashed.clear();
    exact_bytes = 0;
    exact_overflow = false;
    texts_ascending = true;
    number_code = 0;
    raw = nullptr;
    raw_size = 0;
    last_count = nullptr;
    for (uint32_t i = 0; i < seen_count; ++i) seen[seen_slots[i]].count = nullptr;
    seen_count = 0;
    seen_off = false;
  }

  // Most fields repeat the value of the message before (constants, small enumerations): such a value
  // changes only a count, found by comparing its encoding with the previous one instead of decoding it,
  // hashing it and probing a set. True when `size` bytes at `p` are the encoding of the value added
  // last (an encoding decodes to one value): the caller then Repeat()s it. The previous encoding views
  // its message, which stays valid until Finish() (the ChunkSummarizer contract).
  [[gnu::always_inline]] bool SameEncodingAsLast(const uint8_t* p, size_t size) const {
    return raw != nullptr && size == raw_size && SameBytes(p, raw, size);
  }
  void Repeat(uint32_t message) { Count(message, last_count); }
  // Counts a value this chunk added before, which went to `count` (the bounds, sets and flags hold it).
  void Count(uint32_t message, uint32_t* count) {
    last_message = message;
    ++*count;
  }

  // Counts the value encoded as [p, p + size) when this chunk added that encoding before, and says so
  // (the caller then need not decode it). Besides the last one (a constant), a field remembers the
  // short encodings it met until it has met more than kSeenEncodings: a small enumeration (a region, a
  // status, a priority, a flag) then repeats without being decoded, hashed and looked up in its set,
  // and a field of many values (ids, amounts, times) stops paying for the table.
  [[gnu::always_inline]] bool Repeated(const uint8_t* p, uint32_t size, uint32_t message) {
    if (SameEncodingAsLast(p, size)) {
      Repeat(message);
      return true;
    }
    if (seen_off || size > kMaxKeyedEncoding) return false;
    const SeenEncoding* const e = FindSeen(KeyOf(p, size));
    if (e == nullptr) return false;
    // A text met before is at most the greatest one: below it, the texts no longer only grow.
    if (e->text_at != 0 && texts_ascending &&
        !SameText(std::string_view(reinterpret_cast<const char*>(p) + e->text_at, size - e->text_at), text_max)) {
      Unascend();
    }
    raw = p;
    raw_size = size;
    last_count = e->count;
    Repeat(message);
    return true;
  }
  // Repeated() for a header field's default (AddList), whose encoding is the one empty one.
  bool RepeatedDefault(uint32_t message) {
    if (raw == nullptr || raw_size != 0) {
      const SeenEncoding* const e = FindSeen(EncodingKey());
      if (e == nullptr) return false;
      last_count = e->count;
    }
    raw = kDefaultEncoding;
    raw_size = 0;
    Repeat(message);
    return true;
  }

  // Adds `v`, whose encoding is [encoding, encoding + encoding_size) when known (for Repeated()).
  // Adding a value again leaves the same stats as counting it again (bounds, sets and flags already hold
  // it), so a value whose encoding differs from the last one is added without comparing the values.
  void Add(const Value& v, uint32_t message, const uint8_t* encoding = nullptr, uint32_t encoding_size = 0) {
    uint32_t text_at = 0;
    bool remember = true;
    switch (selector::ClassOf(v.type)) {
      case ValueClass::kAbsent: AddNull(); break;
      case ValueClass::kText: {
        char buffer[4];
        if (v.type == selector::ValueType::kChar) {
          AddText(selector::TextOf(v, buffer), /*stable=*/false);
        } else {
          AddText(v.bytes(), /*stable=*/true);
        }
        // Remembered (Repeated) only when the text ends its encoding: a string or symbol, not a char,
        // whose text is not its encoding's bytes.
        const uint8_t* const text = reinterpret_cast<const uint8_t*>(v.data);
        if (v.type == selector::ValueType::kChar || encoding == nullptr || text <= encoding ||
            text + v.size != encoding + encoding_size) {
          remember = false;
        } else {
          text_at = static_cast<uint32_t>(text - encoding);
        }
        break;
      }
      case ValueClass::kNumber: {
        Number n;
        if (selector::ToNumber(v, &n)) {
          AddNumber(n);
        } else {
          ++*(last_count = &others);  // an undecodable decimal: compares UNKNOWN, like a value of another class
        }
        break;
      }
      case ValueClass::kBoolean: AddBoolean(v.boolean); break;
      default: ++*(last_count = &others); break;
    }
    Added(message, encoding, encoding_size, text_at, remember);
  }

  // A field's numbers mostly keep one encoding (amounts, times, counters): one with the format code of
  // the plain number added last, of the kind of the bounds, is counted and bounded here, without
  // classifying it, comparing it with the encodings met before, or remembering it (it then is the
  // value added last, a number). False, with nothing added, for any other value.
  [[gnu::always_inline]] bool AddSameCodeNumber(const uint8_t* p, uint32_t size, uint32_t message) {
    Number v;
    if (*p != number_code || !has_range || !PlainNumber(p, &v) || v.kind != min.kind || v.kind != max.kind) {
      return false;
    }
    if (v.kind == Number::Kind::kDouble && std::isnan(v.d)) {
      has_nan = true;
    } else {
      BoundSameKind(v);
    }
    ++*(last_count = &numbers);
    last_message = message;
    raw = p;
    raw_size = size;
    return true;
  }

  // Add() for the plain encoding [p, p + size) (its extent known to be in the message) of a number, a
  // string or symbol, a boolean or null: what producers send, read without a Value in between. False,
  // with nothing added, for any other encoding, which the caller decodes and Add()s.
  [[gnu::always_inline]] bool AddPlain(const uint8_t* p, uint32_t size, uint32_t message) {
    uint32_t text_at = 0;
    switch (p[0]) {
      case amqp::code::kStr8:
      case amqp::code::kSym8: text_at = 2; break;
      case amqp::code::kStr32:
      case amqp::code::kSym32: text_at = 5; break;
      case amqp::code::kNull: AddNull(); break;
      case amqp::code::kTrue: AddBoolean(true); break;
      case amqp::code::kFalse: AddBoolean(false); break;
      case amqp::code::kBoolean: AddBoolean(p[1] != 0); break;
      default: {
        Number number;
        if (!PlainNumber(p, &number)) return false;
        AddNumber(number);
        number_code = p[0];
      }
    }
    if (text_at != 0) AddText(std::string_view(reinterpret_cast<const char*>(p) + text_at, size - text_at), true);
    Added(message, p, size, text_at);
    return true;
  }

  void AddNull() { ++*(last_count = &nulls); }
  void AddBoolean(bool b) {
    ++*(last_count = &booleans);
    (b ? seen_true : seen_false) = true;
  }
  [[gnu::always_inline]] void AddNumber(const Number& n) {
    ++*(last_count = &numbers);
    if (n.kind == Number::Kind::kDouble && std::isnan(n.d)) {
      has_nan = true;
    } else if (!has_range) {
      min = max = n;
      has_range = true;
    } else if (n.kind == min.kind && n.kind == max.kind) {  // a field's numbers are mostly of one kind
      BoundSameKind(n);
    } else {
      Bound(n, NumberLess(n, min), NumberLess(max, n));
    }
  }
  // Bound() for a number (not NaN) of the kind of both bounds, compared without converting.
  [[gnu::always_inline]] void BoundSameKind(const Number& n) {
    switch (n.kind) {
      case Number::Kind::kSigned: Bound(n, n.i < min.i, max.i < n.i); break;
      case Number::Kind::kUnsigned: Bound(n, n.u < min.u, max.u < n.u); break;
      case Number::Kind::kDouble: Bound(n, n.d < min.d, max.d < n.d); break;
    }
  }
  void Bound(const Number& n, bool below, bool above) {
    if (below) {
      min = n;
    } else if (above) {
      max = n;
    }
  }

  // After a value was added to its class: counts it, and keeps its encoding (nullptr: unknown) for
  // Repeated(), with where its text starts in it (0: not a text).
  void Added(uint32_t message, const uint8_t* encoding, uint32_t size, uint32_t text_at, bool remember = true) {
    last_message = message;
    raw = encoding;
    raw_size = size;
    if (!remember || encoding == nullptr || seen_off || size > kMaxKeyedEncoding) return;
    if (seen_count == kSeenEncodings) {
      seen_off = true;
      return;
    }
    // Not in the table (Repeated() looked): its slot is the first empty one from its hash's.
    const EncodingKey k = KeyOf(encoding, size);
    uint32_t i = SeenSlot(k);
    while (seen[i].count != nullptr) i = (i + 1) % kSeenSlots;
    seen[i] = {k, text_at, last_count};
    seen_slots[seen_count++] = static_cast<uint8_t>(i);
  }

  // Appends the term of each distinct text (TextTerm) to *terms.
  void AddTerms(std::vector<uint64_t>* terms) const {
    if (texts == 0) return;
    const uint64_t seed = FieldTermSeed(static_cast<Section>(section), name);
    // Until the exact list overflows it holds every text; past it, the hash set does, but for the texts
    // that only grew, which are the list's and `unhashed` (the set holds those that were not stable).
    if (texts_ascending) {
      for (const std::string& e : exact) terms->push_back(TermOfTextHash(seed, TextHash(e)));
    } else if (!exact_overflow) {  // the list's hashes, taken as its texts came (AddText, Unascend)
      for (const uint64_t h : exact_hashes) terms->push_back(TermOfTextHash(seed, h));
    }
    if (!exact_overflow) return;
    if (texts_ascending) {
      for (const std::string_view u : unhashed) terms->push_back(TermOfTextHash(seed, TextHash(u)));
    }
    hashes.ForEach([&](uint64_t h) { terms->push_back(TermOfTextHash(seed, h)); });
  }

  // Appends the field's entry (chunk_summary_format.h).
  void Encode(std::string* out, EncodeScratch* scratch) const {
    // Texts longer than kMaxSummaryTextBound are bounded: below by a prefix (which sorts before the
    // text), above by the smallest string above every text with that prefix, when there is one.
    std::string_view lo = text_min, hi = text_max;
    const bool lo_exact = lo.size() <= kMaxSummaryTextBound;
    if (!lo_exact) lo = lo.substr(0, kMaxSummaryTextBound);
    const bool hi_exact = hi.size() <= kMaxSummaryTextBound;
    bool hi_unbounded = false;
    if (!hi_exact) {
      hi_unbounded = !UpperBoundOfPrefix(hi.substr(0, kMaxSummaryTextBound), &scratch->bound);
      hi = scratch->bound;
    }
    const selector::FieldFacts f{.messages = 0,
                                 .present = nulls + texts + numbers + booleans + others,
                                 .nulls = nulls,
                                 .texts = texts,
                                 .numbers = numbers,
                                 .booleans = booleans,
                                 .others = others,
                                 .has_nan = has_nan,
                                 .has_number_range = has_range,
                                 .number_min = min,
                                 .number_max = max,
                                 .text_min = lo,
                                 .text_max = hi,
                                 .text_min_exact = lo_exact,
                                 .text_max_exact = hi_exact,
                                 .text_max_unbounded = hi_unbounded,
                                 .seen_true = seen_true,
                                 .seen_false = seen_false};
    std::string& body = scratch->body;
    body.clear();
    AppendFieldBody(f, &body);
    if (texts > 0) {
      if (texts_ascending && (exact_overflow || (f.text_min_exact && f.text_max_exact))) {
        // Texts that only grew along the chunk (sequential ids, time-ordered keys) grow along the stream
        // too: the bounds already tell this chunk from its neighbours, and a set would only cost bytes
        // that every filtered read of the stream reads. A constant, or the texts of a chunk of one
        // message, are their bounds: a set would repeat them.
        AppendNoTextSet(&body);
      } else if (!exact_overflow) {
        std::vector<std::string_view>& sorted = scratch->texts;
        sorted.assign(exact.begin(), exact.end());
        std::sort(sorted.begin(), sorted.end());
        AppendExactTextSet(sorted, &body);
      } else {
        std::string& filter = scratch->filter;
        filter.assign(BloomFilterBytes(hashes.size()), '\0');
        hashes.ForEach([&](uint64_t h) { BloomFilterAdd(h, kBloomProbes, filter); });
        AppendBloomTextSet(kBloomProbes, filter, &body);
      }
    }
    AppendSummaryField(section, name, body, out);
  }
};

// Which format codes each header and properties field may have (amqp::HeaderFieldCodeOk and
// PropertiesFieldCodeOk, by slot), as bits: a lookup instead of a switch for every field of every message.
struct FixedCodes {
  uint64_t bits[amqp::kHeaderFieldCount + amqp::kPropertiesFieldCount][4] = {};
  constexpr FixedCodes() {
    for (int c = 0; c < 256; ++c) {
      const auto code = static_cast<uint8_t>(c);
      for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
        if (amqp::HeaderFieldCodeOk(i, code)) bits[i][c >> 6] |= uint64_t{1} << (c & 63);
      }
      for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
        if (amqp::PropertiesFieldCodeOk(i, code)) bits[amqp::kHeaderFieldCount + i][c >> 6] |= uint64_t{1} << (c & 63);
      }
    }
  }
  bool Ok(uint32_t slot, uint8_t c) const { return (bits[slot][c >> 6] >> (c & 63)) & 1; }
};
constexpr FixedCodes kFixedCodes;

std::vector<FieldRef> FixedFields() {
  std::vector<FieldRef> refs;
  for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
    refs.push_back(
        FieldRef{Section::kHeader, std::string(amqp::HeaderFieldName(static_cast<amqp::HeaderField>(i))), {}});
  }
  for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
    refs.push_back(FieldRef{
        Section::kProperties, std::string(amqp::PropertiesFieldName(static_cast<amqp::PropertiesField>(i))), {}});
  }
  return refs;
}

}  // namespace

struct ChunkSummaryBuilder::State {
  State()
      : fixed_refs(FixedFields()),
        fixed(fixed_refs),
        fixed_stats(fixed_refs.size(), nullptr),
        fixed_known(fixed_refs.size(), nullptr) {}

  // The stats of a field in this chunk, fresh on its first sight in the chunk; nullptr past the cap (the
  // summary is then incomplete). A field keeps its stats object from one chunk to the next (found by key),
  // so that a chunk of a few messages, which a group commit of single appends makes, does not pay for
  // making them again.
  FieldStats* Stats(Section section, std::string_view name) {
    key.assign(1, static_cast<char>(section));
    key.append(name);
    auto it = by_key.find(key);
    if (it != by_key.end()) return Claim(it->second, section, name);
    FieldStats* const p = Claim(nullptr, section, name);
    if (p != nullptr) by_key.emplace(key, p);
    return p;
  }

  // `known` (nullptr: a new field) as this chunk's stats of the field, unless this chunk has it already.
  FieldStats* Claim(FieldStats* known, Section section, std::string_view name) {
    if (known != nullptr && known->chunk == chunk) return known;
    if (chunk_fields.size() >= kMaxSummaryFields) {
      complete = false;
      return nullptr;
    }
    if (known == nullptr) {
      fields.push_back(std::make_unique<FieldStats>());
      known = fields.back().get();
    }
    known->Reset(section, name);
    known->chunk = chunk;
    chunk_fields.push_back(known);
    return known;
  }

  void Clear() {
    ++chunk;
    chunk_fields.clear();
    header_form_count = header_form_next = 0;
    order.clear();
    std::fill(fixed_stats.begin(), fixed_stats.end(), nullptr);
    if (fields.size() > kKeptFields) {  // a stream of ever new keys: forget them rather than grow
      by_key.clear();
      fields.clear();
      std::fill(fixed_known.begin(), fixed_known.end(), nullptr);
    }
    messages = 0;
    failed = false;
    complete = true;
  }

  FieldStats* FixedStats(uint32_t slot) {
    FieldStats*& stats = fixed_stats[slot];
    if (stats == nullptr) {
      FieldStats*& known = fixed_known[slot];
      stats = Claim(known, fixed_refs[slot].section, fixed_refs[slot].name);
      if (stats != nullptr) known = stats;
    }
    return stats;
  }

  // Where the values of the header, properties and application-properties sections start (nullptr
  // when absent), as MessageView::SectionValue finds them (the first of each kind), from one walk of the
  // sections while they are encoded as producers write them (0x00 0x53 0x7N and a plain value). False
  // for anything else: the view, which reads any encoding, then finds them (and any error).
  static bool WalkSections(const uint8_t* p, const uint8_t* end, const uint8_t* found[3]) {
    found[0] = found[1] = found[2] = nullptr;
    while (p < end && (found[0] == nullptr || found[1] == nullptr || found[2] == nullptr)) {
      amqp::SectionKind kind;
      const uint8_t* const value = amqp::SmallSectionHeader(p, end, &kind);
      if (value == nullptr) return false;
      p = amqp::SkipPlainValue(value, end);
      if (p == nullptr) return false;
      const int i = kind == amqp::SectionKind::kHeader                  ? 0
                    : kind == amqp::SectionKind::kProperties            ? 1
                    : kind == amqp::SectionKind::kApplicationProperties ? 2
                                                                        : -1;
      if (i >= 0 && found[i] == nullptr) found[i] = value;
    }
    return true;
  }

  // A header field's default (AddList), when it has one.
  void AddDefault(int i, uint32_t n) {
    const Value v = amqp::HeaderFieldDefault(i);
    FieldStats* const stats = v.present() ? FixedStats(static_cast<uint32_t>(i)) : nullptr;
    if (stats == nullptr) return;
    // A field's default is one value: an empty encoding of its own stands for it (a real one is never
    // empty), so that a default repeats like any other value.
    if (!stats->RepeatedDefault(n)) stats->Add(v, n, kDefaultEncoding, 0);
  }

  // The header's (kHeader) or the properties' fields from one walk of the section's list at `at`
  // (nullptr: no such section), when it is a plain list of plain elements (what producers write): each
  // field as MessageFieldSource reads it (null or absent is the header default or nothing, a value of
  // the wrong type is missing). False, with nothing added, for anything else (a described element, a
  // malformed list), which the field source then reads.
  template <bool kHeader>
  bool AddList(const uint8_t* at, uint32_t n) {
    constexpr int kFields = kHeader ? amqp::kHeaderFieldCount : amqp::kPropertiesFieldCount;
    if (at == nullptr) return AddAbsentList<kHeader>(n);
    const std::span<const uint8_t> bytes = view.bytes();
    const uint8_t* p = nullptr;
    const uint8_t* end = nullptr;
    uint32_t count = 0;
    if (!amqp::PlainCompound(at, bytes.data() + bytes.size(), /*map=*/false, &p, &end, &count)) return false;
    const int listed = static_cast<int>(std::min<uint32_t>(count, static_cast<uint32_t>(kFields)));
    const uint8_t* element[kFields + 1];  // where each listed element starts, and the end
    for (int i = 0; i < listed; ++i) {
      element[i] = p;
      p = amqp::SkipPlainValue(p, end);  // nullptr past the end, and for a described element
      if (p == nullptr) return false;
    }
    element[listed] = p;
    AddListElements<kHeader>(at, end, element, listed, n);
    return true;
  }

  // AddList() for a list validation laid out (MessageLayout).
  template <bool kHeader, class Compound>
  bool AddLaidOutList(const Compound& list, uint32_t n) {
    if (list.at == nullptr) return AddAbsentList<kHeader>(n);
    const int listed = static_cast<int>(list.count);
    for (int i = 0; i < listed; ++i) {
      // A described null (validation lets no other described value be a field): the field source reads it.
      if (*list.elements[i] == amqp::code::kDescribed) return false;
    }
    AddListElements<kHeader>(list.at, list.end, list.elements, listed, n);
    return true;
  }

  // An absent list (or an unreadable one, and then the message fails the summary): the header's
  // defaults, and no properties.
  template <bool kHeader>
  bool AddAbsentList(uint32_t n) {
    if (kHeader && !HeaderMet(std::string_view(), n)) {
      for (int i = 0; i < amqp::kHeaderFieldCount; ++i) AddDefault(i, n);
      RememberHeader(std::string_view(), n);
    }
    return true;
  }

  // The fields of the plain list [at, end) whose first `listed` elements (none described) start at
  // element[0..listed), element[listed] being where the last one ends.
  template <bool kHeader>
  void AddListElements(const uint8_t* at, const uint8_t* end, const uint8_t* const* element, int listed, uint32_t n) {
    constexpr int kFields = kHeader ? amqp::kHeaderFieldCount : amqp::kPropertiesFieldCount;
    constexpr uint32_t kFirstSlot = kHeader ? 0 : amqp::kHeaderFieldCount;
    const std::string_view encoding(reinterpret_cast<const char*>(at), static_cast<size_t>(end - at));
    if (kHeader && HeaderMet(encoding, n)) return;
    for (int i = 0; i < listed; ++i) {
      const uint8_t* const e = element[i];
      const uint32_t slot = kFirstSlot + static_cast<uint32_t>(i);
      if (*e == amqp::code::kNull) {  // absent: the header's default, or nothing
        if (kHeader) AddDefault(i, n);
        continue;
      }
      if (!kFixedCodes.Ok(slot, *e)) continue;  // of the wrong type: missing
      FieldStats* const stats = FixedStats(slot);
      if (stats == nullptr) continue;
      const uint32_t size = static_cast<uint32_t>(element[i + 1] - e);
      if (stats->AddSameCodeNumber(e, size, n) || stats->Repeated(e, size, n) || stats->AddPlain(e, size, n)) {
        continue;
      }
      Value v = Value::Missing();
      amqp::ReadSelectorValue(view.bytes().data(), e, end, &v, nullptr);
      if (v.present()) stats->Add(v, n, e, size);
    }
    if (kHeader) {
      for (int i = listed; i < kFields; ++i) AddDefault(i, n);  // unlisted: the defaults
      RememberHeader(encoding, n);
    }
  }

  // A producer's headers take few forms (durable or not, a ttl or none, a priority), and a header this
  // chunk met before adds its fields' values again, which only counts them: the header lists met
  // (the last kHeaderForms distinct ones; the empty encoding for an absent header, a list's is never
  // empty), each with the fields it gave a value and the count each value went to. A short encoding
  // (most headers) is compared as its EncodingKey, a few words, not byte by byte.
  static constexpr uint32_t kHeaderForms = 32;
  struct HeaderForm {
    std::string_view encoding;  // views its message, valid until Finish()
    EncodingKey key;            // of a short encoding (kMaxKeyedEncoding bytes at most)
    uint32_t fields = 0;
    FieldStats* stats[amqp::kHeaderFieldCount];
    uint32_t* counts[amqp::kHeaderFieldCount];
  };
  static EncodingKey HeaderKey(std::string_view encoding) {
    return encoding.size() <= kMaxKeyedEncoding
               ? KeyOf(reinterpret_cast<const uint8_t*>(encoding.data()), static_cast<uint32_t>(encoding.size()))
               : EncodingKey{0, 0, static_cast<uint32_t>(encoding.size())};
  }
  bool HeaderMet(std::string_view encoding, uint32_t n) {
    const EncodingKey k = HeaderKey(encoding);
    const bool keyed = encoding.size() <= kMaxKeyedEncoding;
    for (uint32_t f = 0; f < header_form_count; ++f) {
      const HeaderForm& form = header_forms[f];
      if (form.key.w0 != k.w0 || form.key.w1 != k.w1 || form.key.size != k.size) continue;
      if (!keyed && !SameBytes(encoding.data(), form.encoding.data(), encoding.size())) continue;
      for (uint32_t j = 0; j < form.fields; ++j) form.stats[j]->Count(n, form.counts[j]);
      return true;
    }
    return false;
  }
  // After message n's header was added field by field.
  void RememberHeader(std::string_view encoding, uint32_t n) {
    HeaderForm& form = header_forms[header_form_next];
    header_form_next = (header_form_next + 1) % kHeaderForms;
    header_form_count = std::max(header_form_count, header_form_next == 0 ? kHeaderForms : header_form_next);
    form.encoding = encoding;
    form.key = HeaderKey(encoding);
    form.fields = 0;
    for (uint32_t slot = 0; slot < amqp::kHeaderFieldCount; ++slot) {
      FieldStats* const stats = fixed_stats[slot];
      if (stats == nullptr || stats->last_message != n) continue;
      form.stats[form.fields] = stats;
      form.counts[form.fields++] = stats->last_count;
    }
  }

  // The slots of one section through the field source (which reads any encoding).
  void AddListSlow(bool header, uint32_t n) {
    const uint32_t first = header ? 0 : amqp::kHeaderFieldCount;
    const uint32_t last = header ? amqp::kHeaderFieldCount : static_cast<uint32_t>(fixed_refs.size());
    for (uint32_t slot = first; slot < last; ++slot) {
      const Value v = fixed.Get(slot);
      if (!v.present()) continue;
      if (FieldStats* stats = FixedStats(slot); stats != nullptr) stats->Add(v, n);
    }
  }

  // The application properties, whose section's value is at `at` (nullptr: none found).
  void AddApplicationProperties(const uint8_t* at, uint32_t n) {
    const std::span<const uint8_t> bytes = view.bytes();
    const uint8_t* p = nullptr;
    const uint8_t* end = nullptr;
    uint32_t count = 0;
    if (at == nullptr || !amqp::PlainCompound(at, bytes.data() + bytes.size(), /*map=*/true, &p, &end, &count)) {
      // Absent, unreadable, or encoded in another way: the general reader decides.
      amqp::EncodedValue map;
      if (!view.FindSection(amqp::SectionKind::kApplicationProperties, &map)) {
        if (!view.error().ok()) failed = true;
        return;
      }
      if (!amqp::SectionValueTypeOk(amqp::SectionKind::kApplicationProperties, map) || map.is_described() ||
          map.count() % 2 != 0) {
        failed = true;
        return;
      }
      p = map.payload().data();
      end = p + map.payload().size();
      count = map.count();
    }
    AddEntries</*kLaidOut=*/false>(p, end, count / 2, nullptr, n);
  }

  // AddApplicationProperties() for a map validation laid out (MessageLayout).
  void AddLaidOutApplicationProperties(const amqp::LaidOutCompound<2 * amqp::kLaidOutPropertyEntries>& map,
                                       uint32_t n) {
    if (map.at == nullptr) return;
    if (!map.complete) return AddApplicationProperties(map.at, n);  // more entries than were laid out
    AddEntries</*kLaidOut=*/true>(map.elements[0], map.end, map.count / 2, map.elements, n);
  }

  // The `entries` entries of a map from p (keys and values in turn) before end; with kLaidOut,
  // element[i] is where element i starts (element[2 * entries] where the last ends), else they are
  // found by reading them.
  template <bool kLaidOut>
  void AddEntries(const uint8_t* p, const uint8_t* end, uint32_t entries, const uint8_t* const* element, uint32_t n) {
    const uint8_t* const base = view.bytes().data();
    amqp::DecodeError error;
    const KeyEncoding* known = order.data();  // order's, kept in registers (order changes only below)
    size_t known_count = order.size();
    for (uint32_t i = 0; i < entries; ++i) {
      if constexpr (kLaidOut) p = element[2 * i];
      FieldStats* stats;
      if (i < known_count &&
          (kLaidOut ? static_cast<size_t>(element[2 * i + 1] - p) == known[i].size
                    : static_cast<size_t>(end - p) >= known[i].size) &&
          SameBytes(p, known[i].at, known[i].size)) {
        // The same key, encoded the same way, as in the previous message at the same place (the bytes
        // of a whole encoding there are that value): it was found to be a string or symbol then, so
        // it need not be decoded again.
        stats = known[i].stats;
        p += known[i].size;
      } else {
        const uint8_t* const key_at = p;
        Value key;
        p = amqp::ReadSelectorValue(base, p, end, &key, &error);
        // Only plain string and symbol keys are summarized; a message with another key (which a field
        // source might still match) leaves the chunk without a summary rather than with a wrong one.
        if (p == nullptr || (key.type != selector::ValueType::kString && key.type != selector::ValueType::kSymbol)) {
          failed = true;
          return;
        }
        stats = Stats(Section::kApplicationProperties, key.bytes());
        const KeyEncoding k{key_at, static_cast<uint32_t>(p - key_at), stats};
        if (i < order.size()) {
          order[i] = k;
        } else {
          order.push_back(k);
        }
        known = order.data();
        known_count = order.size();
      }
      // A value whose encoding the field met before (Repeated) is not decoded: found the end of, and
      // compared. The same bytes decoded then, so they would now.
      const uint8_t* const value_at = p;
      const uint8_t* const value_end = kLaidOut ? element[2 * i + 2] : amqp::SkipPlainValue(p, end);
      if (value_end != nullptr && stats != nullptr && stats->last_message != n) {
        const uint32_t size = static_cast<uint32_t>(value_end - value_at);
        if (stats->AddSameCodeNumber(value_at, size, n) || stats->Repeated(value_at, size, n) ||
            stats->AddPlain(value_at, size, n)) {
          p = value_end;
          continue;
        }
      }
      // Past the cap, or not the key's first entry (as below): the value's end is laid out, nothing to read.
      if (kLaidOut && (stats == nullptr || stats->last_message == n)) continue;
      Value value;
      p = amqp::ReadSelectorValue(base, p, end, &value, &error);
      if (p == nullptr) {
        failed = true;
        return;
      }
      if (stats == nullptr || stats->last_message == n) continue;  // past the cap, or not the key's first entry
      stats->Add(value, n, value_at, static_cast<uint32_t>(p - value_at));
    }
  }

  // An application property's key as the previous message encoded it (its bytes stay valid until
  // Finish()), and the key's stats.
  struct KeyEncoding {
    const uint8_t* at;
    uint32_t size;
    FieldStats* stats;
  };

  std::vector<FieldRef> fixed_refs;
  MessageFieldSource fixed;
  std::vector<FieldStats*> fixed_stats;  // this chunk's stats of each header and properties field (nullptr: none yet)
  std::vector<FieldStats*> fixed_known;  // the stats each had in an earlier chunk, for Claim()
  HeaderForm header_forms[kHeaderForms];
  uint32_t header_form_count = 0, header_form_next = 0;
  amqp::MessageView view;
  amqp::MessageLayout layout;  // AddChecked's message
  // Every field met (up to kKeptFields), by key (section byte and name) for application properties, and
  // the ones this chunk has, in the order it met them.
  static constexpr size_t kKeptFields = 4 * kMaxSummaryFields;
  std::vector<std::unique_ptr<FieldStats>> fields;
  std::unordered_map<std::string, FieldStats*> by_key;
  std::string key;  // Stats()'s lookup key
  uint64_t chunk = 1;
  std::vector<FieldStats*> chunk_fields;
  std::vector<const FieldStats*> sorted;  // Finish()'s
  EncodeScratch scratch;
  std::vector<KeyEncoding> order;  // the previous message's keys, in order
  uint32_t messages = 0;
  bool failed = false;
  bool complete = true;
  std::vector<uint64_t> terms;  // the last Finish()'s, for FinishTerms()
  bool terms_complete = false;
};

ChunkSummaryBuilder::ChunkSummaryBuilder() : state_(std::make_unique<State>()) {}
ChunkSummaryBuilder::~ChunkSummaryBuilder() = default;

void ChunkSummaryBuilder::Reset() { state_->Clear(); }

void ChunkSummaryBuilder::Add(std::string_view message) {
  State& s = *state_;
  const uint32_t n = s.messages++;
  if (s.failed) return;
  const auto* const bytes = reinterpret_cast<const uint8_t*>(message.data());
  s.view.Reset(std::span<const uint8_t>(bytes, message.size()));
  s.fixed.Reset(s.view);
  const uint8_t* sections[3];
  const bool walked = State::WalkSections(bytes, bytes + message.size(), sections);
  using amqp::SectionKind;
  if (!s.AddList<true>(walked ? sections[0] : s.view.SectionValue(SectionKind::kHeader), n)) s.AddListSlow(true, n);
  if (!s.AddList<false>(walked ? sections[1] : s.view.SectionValue(SectionKind::kProperties), n)) {
    s.AddListSlow(false, n);
  }
  if (s.fixed.read_malformed()) s.failed = true;
  s.AddApplicationProperties(walked ? sections[2] : s.view.SectionValue(SectionKind::kApplicationProperties), n);
}

bool ChunkSummaryBuilder::AddChecked(std::string_view message) {
  State& s = *state_;
  const auto* const bytes = reinterpret_cast<const uint8_t*>(message.data());
  if (!amqp::WellFormedMessage(std::span<const uint8_t>(bytes, message.size()), &s.layout)) {
    ++s.messages;
    s.failed = true;  // the load stops at this message (its caller's check says why)
    return false;
  }
  const uint32_t n = s.messages++;
  if (s.failed) return true;
  s.view.Reset(std::span<const uint8_t>(bytes, message.size()));
  s.fixed.Reset(s.view);
  if (!s.AddLaidOutList<true>(s.layout.header, n)) s.AddListSlow(true, n);
  if (!s.AddLaidOutList<false>(s.layout.properties, n)) s.AddListSlow(false, n);
  if (s.fixed.read_malformed()) s.failed = true;
  s.AddLaidOutApplicationProperties(s.layout.application_properties, n);
  return true;
}

void ChunkSummaryBuilder::Finish(std::string* summary) {
  State& s = *state_;
  summary->clear();
  s.terms.clear();
  s.terms_complete = false;
  if (s.failed || s.messages == 0) return;
  // The terms now: the texts past the exact lists view the messages, valid until Finish() returns.
  if (s.complete) {
    for (const FieldStats* f : s.chunk_fields) f->AddTerms(&s.terms);
    s.terms_complete = true;
  }
  std::vector<const FieldStats*>& sorted = s.sorted;
  sorted.assign(s.chunk_fields.begin(), s.chunk_fields.end());
  std::sort(sorted.begin(), sorted.end(), [](const FieldStats* a, const FieldStats* b) {
    return a->section != b->section ? a->section < b->section : a->name < b->name;
  });
  AppendSummaryHeader(s.messages, s.complete, sorted.size(), summary);
  for (const FieldStats* f : sorted) f->Encode(summary, &s.scratch);
}

bool ChunkSummaryBuilder::FinishTerms(std::vector<uint64_t>* terms) {
  State& s = *state_;
  terms->swap(s.terms);
  s.terms.clear();
  return std::exchange(s.terms_complete, false);
}

storage::ChunkSummarizerFactory ChunkSummaryBuilder::Factory() {
  return [] { return std::make_unique<ChunkSummaryBuilder>(); };
}

}  // namespace sift::engine
