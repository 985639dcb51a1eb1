// LikeMatcher against a dynamic-programming matcher over code points, on random patterns whose
// segments are long enough to be searched bit-parallel (and short ones beside them), over small
// alphabets of 1-, 2- and 3-byte code points so that partial matches abound.
#include "selector/like.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/split_mix.h"

namespace sift::selector {
namespace {

// Splits well-formed UTF-8 into code points, each kept as its bytes.
std::vector<std::string> CodePoints(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const uint8_t b = static_cast<uint8_t>(s[i]);
    const size_t n = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

// The pattern's elements as numbers: '%', '_', or the code point's number in `points` (which it adds).
constexpr int kAnyRun = -1, kAnyOne = -2;
int Number(const std::string& element, std::vector<std::string>* points) {
  if (element == "%") return kAnyRun;
  if (element == "_") return kAnyOne;
  for (size_t k = 0; k < points->size(); ++k) {
    if ((*points)[k] == element) return static_cast<int>(k);
  }
  points->push_back(element);
  return static_cast<int>(points->size() - 1);
}

// match[i][j]: the first i code points of the text match the first j pattern elements, kept one row i
// at a time. Code points and elements are compared as numbers: the tests below fill some 10^9 cells,
// which string comparisons made take minutes in the sanitizer build.
bool Reference(const std::string& text, const std::vector<std::string>& pattern) {
  std::vector<std::string> points;
  std::vector<int> p;
  for (const std::string& e : pattern) p.push_back(Number(e, &points));
  std::vector<int> t;
  for (const std::string& c : CodePoints(text)) {
    size_t k = 0;
    while (k < points.size() && points[k] != c) ++k;
    t.push_back(k < points.size() ? static_cast<int>(k) : -3);  // -3: in no element of the pattern
  }
  std::vector<char> row(p.size() + 1, 0), next(p.size() + 1, 0);
  row[0] = 1;
  for (size_t j = 1; j <= p.size(); ++j) row[j] = row[j - 1] && p[j - 1] == kAnyRun;
  for (size_t i = 1; i <= t.size(); ++i) {
    next[0] = 0;
    for (size_t j = 1; j <= p.size(); ++j) {
      const int e = p[j - 1];
      next[j] = e == kAnyRun ? (next[j - 1] || row[j]) : (row[j - 1] && (e == kAnyOne || e == t[i - 1]));
    }
    row.swap(next);
  }
  return row[p.size()];
}

TEST(LikeMatcherTest, LongSegmentsAgreeWithTheReference) {
  static const std::vector<std::string> kAlphabet = {"a", "b", "\xc3\xa9", "\xe2\x82\xac"};
  sift::testing::SplitMix rng{20261202};
  size_t bit_parallel = 0, matches = 0;
  for (int round = 0; round < 3000; ++round) {
    const size_t letters = 1 + rng.Below(kAlphabet.size());
    std::vector<std::string> pattern;
    const size_t length = 1 + rng.Below(round % 3 == 0 ? 200 : 60);
    for (size_t k = 0; k < length; ++k) {
      const uint64_t r = rng.Below(100);
      pattern.push_back(r < 5 ? "%" : r < 35 ? "_" : kAlphabet[rng.Below(letters)]);
    }
    std::string pattern_text;
    for (const std::string& p : pattern) pattern_text += p;
    Error error;
    std::unique_ptr<LikeMatcher> m = LikeMatcher::Compile(pattern_text, "", &error);
    ASSERT_NE(m, nullptr) << pattern_text;
    bit_parallel += m->bit_parallel();
    for (int t = 0; t < 20; ++t) {
      std::string text;
      const size_t n = rng.Below(400);
      for (size_t k = 0; k < n; ++k) text += kAlphabet[rng.Below(letters)];
      const bool want = Reference(text, pattern);
      matches += want;
      ASSERT_EQ(m->Matches(text), want) << "pattern '" << pattern_text << "' (" << m->Describe() << ") text '" << text
                                        << "'";
    }
  }
  EXPECT_GT(bit_parallel, 1000u);
  EXPECT_GT(matches, 1000u);
}

// Segments of 65 to 1,600 code points (one to seven 256-bit vectors of state, and beyond the four kept
// in registers): each pattern is cut from a text it must then be found in, some of its code points
// turned into '_', and searched for in that text and in copies with one code point changed.
TEST(LikeMatcherTest, WideSegmentsAgreeWithTheReference) {
  static const std::vector<std::string> kAlphabet = {"a", "b", "\xc3\xa9", "\xe2\x82\xac"};
  sift::testing::SplitMix rng{20261203};
  size_t matches = 0, checks = 0;
  for (int round = 0; round < 60; ++round) {
    const size_t letters = 2 + rng.Below(kAlphabet.size() - 1);
    std::vector<std::string> text;
    const size_t n = 1700 + rng.Below(300);
    for (size_t k = 0; k < n; ++k) text.push_back(kAlphabet[rng.Below(letters)]);
    const size_t length = 65 + rng.Below(1536);
    const size_t at = rng.Below(n - length);
    std::vector<std::string> pattern = {"%"};
    for (size_t k = 0; k < length; ++k) pattern.push_back(rng.Below(4) == 0 ? "_" : text[at + k]);
    pattern.push_back("%");
    std::string pattern_text;
    for (const std::string& p : pattern) pattern_text += p;
    Error error;
    std::unique_ptr<LikeMatcher> m = LikeMatcher::Compile(pattern_text, "", &error);
    ASSERT_NE(m, nullptr);
    ASSERT_TRUE(m->bit_parallel()) << m->Describe();
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<std::string> t = text;
      if (variant > 0) t[at + rng.Below(length)] = kAlphabet[rng.Below(kAlphabet.size())];
      std::string joined;
      for (const std::string& c : t) joined += c;
      const bool want = Reference(joined, pattern);
      matches += want;
      ++checks;
      ASSERT_EQ(m->Matches(joined), want)
          << "round " << round << " variant " << variant << " (" << length << " code points)";
    }
  }
  EXPECT_GT(matches, checks / 3);
  EXPECT_LT(matches, checks);
}

// The shape that takes a backtracking or position-by-position search text length x pattern length
// steps: a 1,004-byte pattern over 64 KiB of the letter it repeats. Correct here; its cost is in
// bench/selector (BM_LikeHostile).
TEST(LikeMatcherTest, HostilePatternIsMatchedExactly) {
  const std::string pattern = "%" + std::string(500, 'a') + "_" + std::string(500, 'a') + "b%";
  Error error;
  std::unique_ptr<LikeMatcher> m = LikeMatcher::Compile(pattern, "", &error);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->bit_parallel()) << m->Describe();
  std::string text(64 * 1024, 'a');
  EXPECT_FALSE(m->Matches(text));
  text[40000] = 'b';
  EXPECT_TRUE(m->Matches(text));
  text[40000] = 'a';
  text[100] = 'b';  // too early for 1,001 characters before it
  EXPECT_FALSE(m->Matches(text));
}

}  // namespace
}  // namespace sift::selector
