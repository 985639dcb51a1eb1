// Test support for the validator's differential tests (validate_differential_test.cc and its heavy
// twin): the seed corpus (Proton-encoded messages, the seeded generator's messages, the fuzz corpora,
// synthetic orders and hand-written edge cases), a deterministic mutator, and the comparison of
// amqp::Validate / ValidateValue with the oracle validator written from the spec
// (oracle_validate.h), every DecodeError field included. Header-only; not a test itself.
#ifndef SIFT_TESTS_ENGINE_AMQP_VALIDATE_DIFFERENTIAL_H_
#define SIFT_TESTS_ENGINE_AMQP_VALIDATE_DIFFERENTIAL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "amqp/encoded_value.h"
#include "amqp/validate.h"
#include "tools/synthetic/synthetic_orders.h"
#include "tests/amqp/proton_test_messages.h"
#include "tests/amqp/oracle_validate.h"
#include "tests/amqp/test_messages.h"
#include "tests/support/split_mix.h"

namespace sift::amqp::testing {

using sift::testing::B;
using sift::testing::ByteVector;
using sift::testing::Cat;
using sift::testing::List8;
using sift::testing::Map8;
using sift::testing::ProtonMessage;
using sift::testing::RichMessage;
using sift::testing::Section;
using sift::testing::Str8;
using sift::testing::Sym8;
using sift::testing::Text;

inline bool SameText(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return std::strcmp(a, b) == 0;
}

// Every field; the static texts by content (the oracle's string literals may live at
// other addresses than the engine's).
inline bool SameError(const DecodeError& x, const DecodeError& y) {
  return x.code == y.code && x.offset == y.offset && x.format_code == y.format_code && x.a == y.a && x.b == y.b &&
         SameText(x.what, y.what) && SameText(x.expected, y.expected);
}

inline std::string Describe(const DecodeError& e) {
  if (e.ok()) return "ok";
  char buf[160];
  std::snprintf(buf, sizeof buf, " [code %d offset %u format 0x%02x a %llu b %llu what %s exp %s]",
                static_cast<int>(e.code), e.offset, e.format_code, static_cast<unsigned long long>(e.a),
                static_cast<unsigned long long>(e.b), e.what ? e.what : "-", e.expected ? e.expected : "-");
  return e.Message() + buf;
}

inline std::string HexOf(const std::vector<uint8_t>& bytes) {
  std::string out;
  char buf[4];
  for (size_t i = 0; i < bytes.size() && i < 4096; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
    out += buf;
  }
  return out;
}

struct DifferentialStats {
  uint64_t inputs = 0;
  uint64_t valid_messages = 0;
  uint64_t valid_values = 0;
  uint64_t mismatches = 0;
  std::vector<std::string> examples;
};

// Validate and ValidateValue against the oracle, and the fast verdicts against the oracle's.
inline void Compare(const std::vector<uint8_t>& bytes, DifferentialStats* stats) {
  const std::span<const uint8_t> span(bytes.data(), bytes.size());
  ++stats->inputs;
  struct Pair {
    const char* what;
    DecodeError got, want;
    bool fast;
  } pairs[] = {
      {"Validate", Validate(span), OracleValidate(span), internal::WellFormedMessage(span)},
      {"ValidateValue", ValidateValue(span), OracleValidateValue(span), internal::WellFormedValue(span)},
  };
  stats->valid_messages += pairs[0].want.ok();
  stats->valid_values += pairs[1].want.ok();
  for (const Pair& p : pairs) {
    if (SameError(p.got, p.want) && p.fast == p.want.ok()) continue;
    ++stats->mismatches;
    if (stats->examples.size() < 10) {
      stats->examples.push_back(std::string(p.what) + ": got " + Describe(p.got) + ", want " + Describe(p.want) +
                                ", fast verdict " + (p.fast ? "ok" : "bad") + "\n  input " + HexOf(bytes));
    }
  }
}

inline void Report(const char* name, const DifferentialStats& stats) {
  std::printf("%s: %llu inputs (%llu valid messages, %llu valid values), %llu mismatches\n", name,
              static_cast<unsigned long long>(stats.inputs), static_cast<unsigned long long>(stats.valid_messages),
              static_cast<unsigned long long>(stats.valid_values), static_cast<unsigned long long>(stats.mismatches));
  for (const std::string& e : stats.examples) std::printf("%s\n", e.c_str());
}

// Values nested `depth` deep: lists in lists around a null.
inline ByteVector NestedLists(int depth) {
  ByteVector v = B({0x40});
  for (int i = 0; i < depth; ++i) {
    ByteVector outer = B({0xd0, 0, 0, 0, 0, 0, 0, 0, 1});
    const uint32_t size = static_cast<uint32_t>(v.size() + 4);
    outer[1] = static_cast<uint8_t>(size >> 24);
    outer[2] = static_cast<uint8_t>(size >> 16);
    outer[3] = static_cast<uint8_t>(size >> 8);
    outer[4] = static_cast<uint8_t>(size);
    outer.insert(outer.end(), v.begin(), v.end());
    v = outer;
  }
  return v;
}

// `n` descriptors chained in front of a null: 0x00 0x53 0x01 0x00 0x53 0x01 ... 0x40.
inline ByteVector DescriptorChain(int n, const ByteVector& value = B({0x40})) {
  ByteVector v;
  for (int i = 0; i < n; ++i) {
    const ByteVector d = B({0x00, 0x53, 0x01});
    v.insert(v.end(), d.begin(), d.end());
  }
  v.insert(v.end(), value.begin(), value.end());
  return v;
}

// A descriptor nested `n` deep inside descriptors: 0x00 (0x00 (... 0x53 0x01 ...) 0x40) 0x40.
inline ByteVector NestedDescriptors(int n) {
  ByteVector d = B({0x53, 0x01});
  for (int i = 0; i < n; ++i) d = Cat({B({0x00}), d, B({0x40})});
  return d;
}

// The hand-written edge cases: limits (nesting, descriptors), arrays of every element shape,
// encodings Proton never writes, and small broken inputs.
inline std::vector<ByteVector> EdgeCases() {
  std::vector<ByteVector> v;
  const ByteVector header = Section(0x70, List8(1, B({0x41})));
  for (int depth : {1, 98, 99, 100, 101}) {
    v.push_back(NestedLists(depth));
    v.push_back(Section(0x77, NestedLists(depth)));
    v.push_back(Cat({header, Section(0x77, NestedLists(depth))}));
  }
  for (int n : {1, 6, 7, 8, 9}) {
    v.push_back(DescriptorChain(n));
    v.push_back(Section(0x77, DescriptorChain(n)));
    v.push_back(NestedDescriptors(n));
    v.push_back(Section(0x77, NestedDescriptors(n)));
    v.push_back(DescriptorChain(n, B({0xe0, 0x05, 0x02, 0x00, 0x53, 0x01, 0x45})));
  }
  // Arrays: booleans, chars, zero-width elements with huge counts, described elements, nested
  // arrays, strings, lists and maps as elements.
  v.push_back(B({0xe0, 0x04, 0x03, 0x56, 0x01, 0x00}));
  v.push_back(B({0xe0, 0x0a, 0x02, 0x73, 0, 0, 0, 'a', 0, 0x10, 0xff, 0xff}));
  v.push_back(B({0xe0, 0x06, 0x01, 0x73, 0, 0, 0xd8, 0x00}));
  v.push_back(B({0xf0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x40}));
  v.push_back(B({0xf0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x45}));
  v.push_back(B({0xe0, 0x02, 0xff, 0x41}));
  v.push_back(B({0xe0, 0x08, 0x02, 0x00, 0xa3, 0x01, 'd', 0x50, 7, 9}));
  v.push_back(B({0xe0, 0x0b, 0x02, 0xe0, 0x03, 0x01, 0x50, 0x07, 0x03, 0x01, 0x50, 0x08, 0x40}));
  v.push_back(B({0xe0, 0x09, 0x02, 0xa1, 0x02, 'h', 'i', 0x02, 0xc3, 0xa9, 0x40}));
  v.push_back(B({0xe0, 0x07, 0x02, 0xa3, 0x01, 'x', 0x01, 0x80}));
  v.push_back(B({0xe0, 0x08, 0x02, 0xc0, 0x01, 0x00, 0x02, 0x01, 0x40}));
  v.push_back(B({0xe0, 0x0a, 0x01, 0xc1, 0x05, 0x02, 0xa3, 0x01, 'k', 0x40, 0x00}));
  v.push_back(B({0xe0, 0x0a, 0x01, 0x00, 0x00, 0x53, 0x01, 0x40, 0x50, 0x01}));
  v.push_back(B({0xe0, 0x06, 0x01, 0x00, 0x53, 0x01, 0x00, 0x41}));
  // Text: every UTF-8 length, the boundaries of overlong forms and surrogates, bad symbols.
  for (const ByteVector& s :
       {B({0xc2, 0x80}), B({0xdf, 0xbf}), B({0xe0, 0xa0, 0x80}), B({0xed, 0x9f, 0xbf}), B({0xef, 0xbf, 0xbf}),
        B({0xf0, 0x90, 0x80, 0x80}), B({0xf4, 0x8f, 0xbf, 0xbf}), B({0xc1, 0xbf}), B({0xe0, 0x9f, 0x80}),
        B({0xed, 0xa0, 0x80}), B({0xf4, 0x90, 0x80, 0x80}), B({0xf5, 0x80, 0x80, 0x80}), B({0xe2, 0x82}), B({0x80}),
        Text("plain ascii text longer than eight bytes"),
        Cat({Text("0123456789abcde"), B({0xc3, 0xa9}), Text("tail")})}) {
    ByteVector str = Cat({B({0xa1, static_cast<int>(s.size())}), s});
    v.push_back(str);
    v.push_back(Section(0x77, str));
    v.push_back(Section(0x74, Map8(2, Cat({Str8("k"), str}))));
    v.push_back(Section(0x74, Map8(2, Cat({str, Str8("v")}))));
    v.push_back(Cat({B({0xb1, 0, 0, 0, static_cast<int>(s.size())}), s}));
    v.push_back(Cat({B({0xa3, static_cast<int>(s.size())}), s}));
    v.push_back(Section(0x77, List8(2, Cat({Sym8("s"), B({0xa3, static_cast<int>(s.size())}), s}))));
  }
  v.push_back(B({0x56, 0x02}));
  v.push_back(B({0x73, 0x00, 0x11, 0x00, 0x00}));
  // Sections: every descriptor form, field types, keys, order and body rules.
  v.push_back(Cat({B({0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x70}), List8(1, B({0x42}))}));
  v.push_back(Cat({B({0x00, 0xa3, 16}), Text("amqp:header:list"), List8(0, B({}))}));
  v.push_back(Cat({B({0x00, 0x44}), List8(0, B({}))}));
  v.push_back(Cat({B({0x00, 0x00, 0x53, 0x70, 0x40}), List8(0, B({}))}));
  v.push_back(Section(0x70, B({0x00, 0x53, 0x01, 0x45})));
  v.push_back(Section(0x77, B({0x00, 0x53, 0x01, 0x45})));
  v.push_back(Section(0x70, List8(6, B({0x42, 0x50, 0x04, 0x43, 0x41, 0x52, 0x01, 0x99}))));
  v.push_back(Section(0x70, List8(1, B({0x00, 0x53, 0x01, 0x41}))));
  v.push_back(Section(0x73, List8(3, Cat({B({0x98}), ByteVector(16, 0), B({0xa0, 0x00}), Str8("to")}))));
  v.push_back(Section(0x72, Map8(4, Cat({Sym8("x-opt"), B({0x41, 0x53, 0x05, 0x40})}))));
  v.push_back(Section(0x72, Map8(2, Cat({Str8("k"), B({0x40})}))));
  v.push_back(Section(0x74, Map8(2, Cat({Sym8("k"), B({0x40})}))));
  v.push_back(Section(0x74, Map8(2, Cat({Str8("k"), List8(1, B({0x40}))}))));
  v.push_back(Cat({Section(0x75, B({0xa0, 0x00})), Section(0x76, List8(0, B({})))}));
  v.push_back(Cat({Section(0x77, B({0x40})), Section(0x77, B({0x40}))}));
  v.push_back(Cat({Section(0x78, Map8(0, B({}))), header}));
  v.push_back(Cat({header, header}));
  v.push_back(Cat({header, B({0x40})}));
  v.push_back(B({}));
  v.push_back(B({0x00}));
  v.push_back(B({0x00, 0x53}));
  return v;
}

// Every input a differential run starts from: hand-written edge cases, Proton-encoded rich
// messages, the seeded generator's messages (every `generated_stride`-th of 10,000), the fuzz seed
// corpora, synthetic orders of every profile, and the bodies of sections as stand-alone values.
inline std::vector<ByteVector> SeedCorpus(size_t generated_stride, std::string* error) {
  std::vector<ByteVector> seeds = EdgeCases();
  for (int n = 0; n < 50; ++n) seeds.push_back(RichMessage(n));
  {
    ProtonMessage empty;
    seeds.push_back(empty.Encode());
  }
  const GeneratedMessages gen = Generate(20261130, 10000);
  if (!gen.error.empty()) {
    *error = gen.error;
    return seeds;
  }
  for (size_t i = 0; i < gen.messages.size(); i += generated_stride) seeds.push_back(gen.messages[i]);
  for (const char* dir : {"validate", "message_view", "message_filter"}) {
    const std::filesystem::path path = std::filesystem::path(SIFT_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / dir;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(path)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string bytes = ReadWholeFile(f.string());
      seeds.emplace_back(bytes.begin(), bytes.end());
    }
  }
  for (const char* profile : {"orders", "wide", "minimal"}) {
    synthetic::SyntheticOrdersOptions options;
    options.profile = profile;
    std::unique_ptr<synthetic::SyntheticOrders> orders;
    if (!synthetic::SyntheticOrders::Create(options, &orders).ok()) {
      *error = std::string("no synthetic profile ") + profile;
      return seeds;
    }
    std::string m;
    for (uint64_t i = 0; i < 50; ++i) {
      if (!orders->Encode(i, &m).ok()) {
        *error = "synthetic encode failed";
        return seeds;
      }
      seeds.emplace_back(m.begin(), m.end());
    }
  }
  // The values of sections (after 0x00 0x53 0xNN): whole values for ValidateValue.
  const size_t n = seeds.size();
  for (size_t i = 0; i < n; ++i) {
    const ByteVector s = seeds[i];
    const uint8_t* p = s.data();
    const uint8_t* const limit = s.data() + s.size();
    while (p != nullptr && limit - p > 3 && p[0] == 0x00 && p[1] == 0x53) {
      const uint8_t* end = SkipValue(s.data(), p, limit, nullptr);
      if (end == nullptr) break;
      seeds.emplace_back(p + 3, end);
      p = end;
    }
  }
  return seeds;
}

using Rng = sift::testing::SplitMix;

// Bytes that mean something to the validator: constructors, limits of UTF-8 and of the rules.
inline constexpr uint8_t kInteresting[] = {0x00, 0x01, 0x02, 0x40, 0x41, 0x44, 0x45, 0x53, 0x56, 0x70,
                                           0x73, 0x77, 0x78, 0x79, 0x80, 0x98, 0xa0, 0xa1, 0xa3, 0xb0,
                                           0xb1, 0xb3, 0xc0, 0xc1, 0xc2, 0xd0, 0xd1, 0xdf, 0xe0, 0xed,
                                           0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x7f, 0xbf, 0x9f, 0x8f};

// Positions that look like size prefixes or counts: after a sized or compound constructor.
inline size_t SomePrefixPosition(const ByteVector& b, Rng* rng) {
  for (int tries = 0; tries < 16; ++tries) {
    const size_t at = rng->Below(b.size());
    const uint8_t c = b[at];
    if (c >= 0xa0 && at + 1 < b.size()) {
      const bool wide = (c & 0x10) != 0;
      const bool compound = c >= 0xc0;
      const size_t prefix = wide ? 4 : 1;
      // The size, or (for compounds) the count after it; a 4-byte prefix by its low byte.
      size_t pos = at + prefix;
      if (compound && rng->Below(2) == 0) pos += prefix;
      if (pos < b.size()) return pos;
    }
  }
  return rng->Below(b.size());
}

// One random edit of `b`; `corpus` supplies splices.
inline void MutateOnce(ByteVector* b, const std::vector<ByteVector>& corpus, Rng* rng) {
  switch (rng->Below(10)) {
    case 0:  // random byte
      if (!b->empty()) (*b)[rng->Below(b->size())] = static_cast<uint8_t>(rng->Next());
      break;
    case 1:  // bit flip
      if (!b->empty()) (*b)[rng->Below(b->size())] ^= static_cast<uint8_t>(1u << rng->Below(8));
      break;
    case 2:  // an interesting byte
      if (!b->empty()) {
        (*b)[rng->Below(b->size())] = kInteresting[rng->Below(sizeof kInteresting)];
      }
      break;
    case 3: {  // insert 1..4 bytes
      const size_t n = 1 + rng->Below(4);
      const size_t at = rng->Below(b->size() + 1);
      for (size_t i = 0; i < n; ++i) {
        const uint8_t byte =
            rng->Below(2) ? kInteresting[rng->Below(sizeof kInteresting)] : static_cast<uint8_t>(rng->Next());
        b->insert(b->begin() + static_cast<std::ptrdiff_t>(at), byte);
      }
      break;
    }
    case 4:  // delete 1..8 bytes
      if (!b->empty()) {
        const size_t at = rng->Below(b->size());
        const size_t n = std::min(b->size() - at, 1 + rng->Below(8));
        b->erase(b->begin() + static_cast<std::ptrdiff_t>(at), b->begin() + static_cast<std::ptrdiff_t>(at + n));
      }
      break;
    case 5:  // truncate
      b->resize(rng->Below(b->size() + 1));
      break;
    case 6:    // a size or count prefix nudged by a little
    case 7: {  // ... or set to something else
      if (b->empty()) break;
      const size_t at = SomePrefixPosition(*b, rng);
      if (rng->Below(3) != 0) {
        static constexpr int kDelta[] = {-2, -1, 1, 2, 3, -3, 4, 8};
        (*b)[at] = static_cast<uint8_t>((*b)[at] + kDelta[rng->Below(8)]);
      } else {
        static constexpr uint8_t kValues[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff};
        (*b)[at] = kValues[rng->Below(sizeof kValues)];
      }
      break;
    }
    case 8: {  // splice: a slice of another input replaces a slice of this one
      const ByteVector& other = corpus[rng->Below(corpus.size())];
      if (other.empty()) break;
      const size_t from = rng->Below(other.size());
      const size_t n = std::min(other.size() - from, 1 + rng->Below(64));
      const size_t at = rng->Below(b->size() + 1);
      const size_t drop = std::min(b->size() - at, rng->Below(64));
      b->erase(b->begin() + static_cast<std::ptrdiff_t>(at), b->begin() + static_cast<std::ptrdiff_t>(at + drop));
      b->insert(b->begin() + static_cast<std::ptrdiff_t>(at), other.begin() + static_cast<std::ptrdiff_t>(from),
                other.begin() + static_cast<std::ptrdiff_t>(from + n));
      break;
    }
    default: {  // duplicate a slice of itself (repeated sections, longer compounds)
      if (b->empty()) break;
      const size_t from = rng->Below(b->size());
      const size_t n = std::min(b->size() - from, 1 + rng->Below(32));
      const ByteVector slice(b->begin() + static_cast<std::ptrdiff_t>(from),
                             b->begin() + static_cast<std::ptrdiff_t>(from + n));
      const size_t at = rng->Below(b->size() + 1);
      b->insert(b->begin() + static_cast<std::ptrdiff_t>(at), slice.begin(), slice.end());
      break;
    }
  }
}

// `count` mutants (1 to 4 edits each of a random seed), each compared; deterministic in `seed`.
inline void RunMutations(const std::vector<ByteVector>& corpus, uint64_t count, uint64_t seed,
                         DifferentialStats* stats) {
  Rng rng(seed);
  ByteVector b;
  for (uint64_t i = 0; i < count; ++i) {
    b = corpus[rng.Below(corpus.size())];
    const size_t edits = 1 + rng.Below(4);
    for (size_t e = 0; e < edits; ++e) MutateOnce(&b, corpus, &rng);
    Compare(b, stats);
  }
}

}  // namespace sift::amqp::testing

#endif  // SIFT_TESTS_ENGINE_AMQP_VALIDATE_DIFFERENTIAL_H_
