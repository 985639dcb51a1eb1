// engine::TextPrefilter: the vectorised text search agrees with std::string_view::find at every
// length and alignment, and the section walk looks only where the field lives.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text_prefilter.h"
#include "selector/error.h"
#include "selector/like.h"
#include "selector/required_text.h"

namespace sift::engine {
namespace {

using selector::RequiredText;
using selector::Section;

void CheckFind(TextPrefilter::FindFunction find, const char* name) {
  std::mt19937_64 rng(7);
  // A two-letter alphabet makes partial matches (first and last byte right, middle wrong) common.
  for (size_t n = 0; n <= 140; ++n) {
    for (size_t m = 2; m <= 40; ++m) {
      for (int trial = 0; trial < 6; ++trial) {
        std::string hay(n, 'a'), needle(m, 'a');
        for (char& c : hay) c = "ab"[rng() % 2];
        for (char& c : needle) c = "ab"[rng() % 2];
        if (trial % 2 == 0 && n >= m) hay.replace(rng() % (n - m + 1), m, needle);
        // Exact-size buffers, so a read past the end is a sanitizer error.
        std::vector<uint8_t> h(hay.begin(), hay.end());
        const size_t want = std::string_view(hay).find(needle);
        const uint8_t* got = find(h.data(), h.size(), reinterpret_cast<const uint8_t*>(needle.data()), m);
        const size_t at = got == nullptr ? std::string_view::npos : static_cast<size_t>(got - h.data());
        ASSERT_EQ(at, want) << name << ": haystack '" << hay << "' needle '" << needle << "'";
      }
    }
  }
}

TEST(TextPrefilter, FindAgreesWithStringFind) {
  CheckFind(TextPrefilter::BestFind(), "best");
  CheckFind(TextPrefilter::PortableFind(), "portable");
}

RequiredText Require(Section section, std::vector<std::string> texts, bool exact = false) {
  RequiredText r;
  for (auto& t : texts) r.any_of.push_back({section, t, exact, nullptr});
  return r;
}

// 0x00 0x53 <code> then a map8 / list8 / vbin8 holding `payload` (sizes fit in one byte).
void Section8(std::vector<uint8_t>* out, uint8_t code, uint8_t constructor, std::string_view payload, uint8_t count) {
  out->insert(out->end(), {0x00, 0x53, code, constructor});
  if (constructor == 0xa0) {  // vbin8: size then bytes
    out->push_back(static_cast<uint8_t>(payload.size()));
  } else {  // list8 / map8: size (count byte included), count
    out->push_back(static_cast<uint8_t>(payload.size() + 1));
    out->push_back(count);
  }
  out->insert(out->end(), payload.begin(), payload.end());
}

std::string Str8(std::string_view s) { return std::string{'\xa1', static_cast<char>(s.size())} + std::string(s); }

TEST(TextPrefilter, LooksOnlyInTheFieldsSection) {
  const RequiredText r = Require(Section::kApplicationProperties, {"eu-west"});
  TextPrefilter prefilter(std::span<const RequiredText>(&r, 1));
  ASSERT_FALSE(prefilter.empty());
  std::vector<uint8_t> in_props, in_body, absent;
  Section8(&in_props, 0x74, 0xc1, Str8("region") + Str8("eu-west"), 2);
  Section8(&in_props, 0x75, 0xa0, "body", 0);
  Section8(&in_body, 0x74, 0xc1, Str8("region") + Str8("us-east"), 2);
  Section8(&in_body, 0x75, 0xa0, "eu-west", 0);       // the text, but in the body: not the field
  Section8(&absent, 0x73, 0xc0, Str8("eu-west"), 1);  // in the properties section only
  EXPECT_TRUE(prefilter.MayMatch(in_props));
  EXPECT_FALSE(prefilter.MayMatch(in_body));
  EXPECT_FALSE(prefilter.MayMatch(absent));
  EXPECT_FALSE(prefilter.MayMatch({}));
}

TEST(TextPrefilter, UnusualEncodingsHoldingTheTextPass) {
  const RequiredText r = Require(Section::kApplicationProperties, {"eu-west"});
  TextPrefilter prefilter(std::span<const RequiredText>(&r, 1));
  const std::string entries = Str8("region") + Str8("eu-west");
  auto with = [&](std::vector<uint8_t> head) {
    head.insert(head.end(), entries.begin(), entries.end());
    return head;
  };
  // A section with a ulong (0x80) descriptor: the walk does not follow it, so it does not judge.
  EXPECT_TRUE(prefilter.MayMatch(
      with({0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x74, 0xc1, static_cast<uint8_t>(entries.size() + 1), 0x02})));
  // A size prefix that runs past the end.
  EXPECT_TRUE(prefilter.MayMatch(with({0x00, 0x53, 0x74, 0xc1, 0xf0, 0x02})));
  // Not a section at all.
  EXPECT_TRUE(prefilter.MayMatch(with({})));
  // Without the text anywhere, none of them can be TRUE.
  std::vector<uint8_t> ulong_descriptor = {0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x74, 0xc1, 0x01, 0x00};
  EXPECT_FALSE(prefilter.MayMatch(ulong_descriptor));
  std::vector<uint8_t> fragment = {0x00, 0x53};
  EXPECT_FALSE(prefilter.MayMatch(fragment));
}

TEST(TextPrefilter, EveryRequirementMustHoldAndAnyAlternativeDoes) {
  const RequiredText rs[] = {Require(Section::kApplicationProperties, {"red", "blue"}),
                             Require(Section::kProperties, {"orders.new"})};
  TextPrefilter prefilter(rs);
  std::vector<uint8_t> both, first_only, second_only;
  Section8(&both, 0x73, 0xc0, std::string("\x40\x40\x40", 3) + Str8("orders.new"), 4);
  Section8(&both, 0x74, 0xc1, Str8("color") + Str8("blue"), 2);
  Section8(&first_only, 0x73, 0xc0, std::string("\x40\x40\x40", 3) + Str8("orders.old"), 4);
  Section8(&first_only, 0x74, 0xc1, Str8("color") + Str8("red"), 2);
  Section8(&second_only, 0x73, 0xc0, std::string("\x40\x40\x40", 3) + Str8("orders.new"), 4);
  Section8(&second_only, 0x74, 0xc1, Str8("color") + Str8("green"), 2);
  EXPECT_TRUE(prefilter.MayMatch(both));
  EXPECT_FALSE(prefilter.MayMatch(first_only));
  EXPECT_FALSE(prefilter.MayMatch(second_only));
}

TEST(TextPrefilter, WholeValuesAreFoundWithTheirLengthInEveryTextEncoding) {
  const RequiredText r = Require(Section::kApplicationProperties, {"red"}, true);
  TextPrefilter prefilter(std::span<const RequiredText>(&r, 1));
  auto props = [](const std::string& entries) {
    std::vector<uint8_t> m;
    Section8(&m, 0x74, 0xc1, entries, 2);
    return m;
  };
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("color") + Str8("red"))));
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("color") + std::string("\xa3\x03red", 5))));        // sym8
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("color") + std::string("\xb1\0\0\0\x03red", 8))));  // str32
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("color") + std::string("\xb3\0\0\0\x03red", 8))));  // sym32
  // "red" inside a longer value or a key is not the value "red".
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("ordered_at") + Str8("reddish"))));
  // A whole value of 256 bytes or more is only str32 / sym32: its four-byte length is looked for.
  const std::string big(300, 'z');
  const RequiredText rb = Require(Section::kApplicationProperties, {big}, true);
  TextPrefilter big_prefilter(std::span<const RequiredText>(&rb, 1));
  std::vector<uint8_t> m = {0x00, 0x53, 0x74, 0xd1};
  const std::string entries = Str8("k") + std::string("\xb1\0\0\x01\x2c", 5) + big;
  const uint32_t size = static_cast<uint32_t>(entries.size() + 4);
  for (int shift = 24; shift >= 0; shift -= 8) m.push_back(static_cast<uint8_t>(size >> shift));
  m.insert(m.end(), {0, 0, 0, 2});
  m.insert(m.end(), entries.begin(), entries.end());
  EXPECT_TRUE(big_prefilter.MayMatch(m));
  m[m.size() - big.size() - 2] = 0x02;  // a value of 556 bytes ending the same way: another length
  EXPECT_FALSE(big_prefilter.MayMatch(m));
}

TEST(TextPrefilter, LongListsOfWholeValuesGoByTheirSharedPrefix) {
  std::vector<std::string> ids;
  for (int i = 0; i < 40; ++i) ids.push_back("id-" + std::to_string(i * 7));
  const RequiredText r = Require(Section::kApplicationProperties, ids, true);
  TextPrefilter prefilter(std::span<const RequiredText>(&r, 1));
  ASSERT_FALSE(prefilter.empty());
  auto props = [](const std::string& entries) {
    std::vector<uint8_t> m;
    Section8(&m, 0x74, 0xc1, entries, 2);
    return m;
  };
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("k") + Str8("id-7"))));
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("k") + Str8("id-273"))));
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("k") + std::string("\xb3\0\0\0\x04id-7", 9))));  // sym32
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("k") + Str8("id-8"))));                         // not a member
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("k") + Str8("id-78"))));  // a member (id-7) as a prefix
  // Bytes cannot tell a key from a value: a key equal to a member passes (the selector decides).
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("id-7") + Str8("x"))));
  // The prefix where the byte before it is not the member's length (inside a longer text).
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("k") + Str8("xid-7"))));
  // In the body only: not the field.
  std::vector<uint8_t> body_only = props(Str8("k") + Str8("v"));
  Section8(&body_only, 0x75, 0xa0, std::string("\x04id-7"), 0);
  EXPECT_FALSE(prefilter.MayMatch(body_only));
  // A long list whose members share no two-byte prefix is not used at all.
  std::vector<std::string> mixed;
  for (int i = 0; i < 20; ++i) mixed.push_back(std::string(1, static_cast<char>('a' + i)) + "x");
  const RequiredText rm = Require(Section::kApplicationProperties, mixed, true);
  EXPECT_TRUE(TextPrefilter(std::span<const RequiredText>(&rm, 1)).empty());
}

TEST(TextPrefilter, AnchoredPatternsAreTestedOnEachCandidateValue) {
  RequiredText r;
  selector::Error error;
  std::shared_ptr<const selector::LikeMatcher> like = selector::LikeMatcher::Compile("cust-_1%7", "", &error);
  ASSERT_TRUE(like);
  r.any_of.push_back({Section::kApplicationProperties, "cust-", false, like});
  TextPrefilter prefilter(std::span<const RequiredText>(&r, 1));
  auto props = [](const std::string& entries, uint8_t count = 2) {
    std::vector<uint8_t> m;
    Section8(&m, 0x74, 0xc1, entries, count);
    return m;
  };
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("customer") + Str8("cust-01007"))));
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("customer") + std::string("\xa3\x0a", 2) + "cust-01007")));  // sym8
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("customer") + std::string("\xb1\0\0\0\x0a", 5) + "cust-01007")));
  // The literal is there, but no value starting with it matches the pattern.
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("customer") + Str8("cust-01008"))));
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("customer") + Str8("cust-02007"))));
  // ... even where the bytes after the value would complete a match (the length ends the value).
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("customer") + Str8("cust-010") + Str8("x7"), 4)));
  // The literal in the middle of a value: the byte before it is no length that makes a match.
  EXPECT_FALSE(prefilter.MayMatch(props(Str8("customer") + Str8("a-cust-01007"))));
  // One of several occurrences matching is enough (here a later one).
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("cust-x") + Str8("cust-01007"))));
  // Array elements carry their length but no constructor of their own: the second one matches.
  // array8: size, count 2, constructor str8, then length + bytes per element.
  const std::string array = std::string("\xe0\x18\x02\xa1", 4) + std::string("\x0a", 1) + "cust-01008" +
                            std::string("\x0a", 1) + "cust-01017";
  EXPECT_TRUE(prefilter.MayMatch(props(Str8("ids") + array)));
  // A value of 256 bytes or more (str32): the four-byte length is read.
  const std::string big = "cust-x1" + std::string(300, 'z') + "7";
  std::vector<uint8_t> m = {0x00, 0x53, 0x74, 0xd1};
  std::string entries = Str8("k") + "\xb1";
  for (int shift = 24; shift >= 0; shift -= 8) entries.push_back(static_cast<char>((big.size() >> shift) & 0xff));
  entries += big;
  const uint32_t size = static_cast<uint32_t>(entries.size() + 4);
  for (int shift = 24; shift >= 0; shift -= 8) m.push_back(static_cast<uint8_t>(size >> shift));
  m.insert(m.end(), {0, 0, 0, 2});
  m.insert(m.end(), entries.begin(), entries.end());
  EXPECT_TRUE(prefilter.MayMatch(m));
  m.back() = '8';  // the same value ending otherwise: no match
  EXPECT_FALSE(prefilter.MayMatch(m));
}

TEST(TextPrefilter, NoRequirementsPassEverything) {
  TextPrefilter prefilter({});
  EXPECT_TRUE(prefilter.empty());
  EXPECT_TRUE(prefilter.MayMatch({}));
}

}  // namespace
}  // namespace sift::engine
