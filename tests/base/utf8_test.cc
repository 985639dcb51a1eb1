#include "base/utf8.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace sift::base {
namespace {

size_t Length(std::string_view s) { return Utf8SequenceLength(s, 0); }

// CheckUtf8Sequence's answer as "len" or "bad:<valid prefix>".
std::string Check(std::string_view s) {
  size_t prefix = 99;
  const size_t len = CheckUtf8Sequence(reinterpret_cast<const uint8_t*>(s.data()), s.size(), &prefix);
  return len > 0 ? std::to_string(len) : "bad:" + std::to_string(prefix);
}

TEST(Utf8Test, SequenceLengths) {
  EXPECT_EQ(Length(""), 0u);
  EXPECT_EQ(Length(std::string_view("\0", 1)), 1u);
  EXPECT_EQ(Length("a"), 1u);
  EXPECT_EQ(Length("\x7f"), 1u);
  EXPECT_EQ(Length("\xc2\x80"), 2u);          // U+0080, the first two-byte form
  EXPECT_EQ(Length("\xdf\xbf"), 2u);          // U+07FF
  EXPECT_EQ(Length("\xe0\xa0\x80"), 3u);      // U+0800
  EXPECT_EQ(Length("\xed\x9f\xbf"), 3u);      // U+D7FF, just below the surrogates
  EXPECT_EQ(Length("\xee\x80\x80"), 3u);      // U+E000, just above them
  EXPECT_EQ(Length("\xef\xbf\xbf"), 3u);      // U+FFFF
  EXPECT_EQ(Length("\xf0\x90\x80\x80"), 4u);  // U+10000
  EXPECT_EQ(Length("\xf4\x8f\xbf\xbf"), 4u);  // U+10FFFF
  EXPECT_EQ(Length("\xc3\xa9xyz"), 2u);       // only the first sequence counts
  EXPECT_EQ(Utf8SequenceLength("a\xc3\xa9", 1), 2u);
}

TEST(Utf8Test, RefusesOverlongForms) {
  EXPECT_EQ(Length("\xc0\x80"), 0u);
  EXPECT_EQ(Length("\xc1\xbf"), 0u);
  EXPECT_EQ(Length("\xe0\x80\x80"), 0u);
  EXPECT_EQ(Length("\xe0\x9f\xbf"), 0u);
  EXPECT_EQ(Length("\xf0\x80\x80\x80"), 0u);
  EXPECT_EQ(Length("\xf0\x8f\xbf\xbf"), 0u);
}

TEST(Utf8Test, RefusesSurrogates) {
  EXPECT_EQ(Length("\xed\xa0\x80"), 0u);                  // U+D800
  EXPECT_EQ(Length("\xed\xbf\xbf"), 0u);                  // U+DFFF
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\xbd\xed\xb8\x80"));  // a CESU-8 pair
}

TEST(Utf8Test, RefusesBeyondU10FFFF) {
  EXPECT_EQ(Length("\xf4\x90\x80\x80"), 0u);  // U+110000
  EXPECT_EQ(Length("\xf5\x80\x80\x80"), 0u);
  EXPECT_EQ(Length("\xf7\xbf\xbf\xbf"), 0u);
  EXPECT_EQ(Length("\xf8\x88\x80\x80\x80"), 0u);
  EXPECT_EQ(Length("\xff"), 0u);
}

TEST(Utf8Test, RefusesTruncatedAndBrokenSequences) {
  EXPECT_EQ(Length("\x80"), 0u);  // a lone continuation byte
  EXPECT_EQ(Length("\xc3"), 0u);
  EXPECT_EQ(Length("\xe2\x82"), 0u);
  EXPECT_EQ(Length("\xf0\x9f\x98"), 0u);
  EXPECT_EQ(Length("\xc3("), 0u);
  EXPECT_EQ(Length("\xe2\x82("), 0u);
  EXPECT_EQ(Length("\xf0\x9f\x98\xc3"), 0u);
}

TEST(Utf8Test, CheckExplainsWhereASequenceBreaks) {
  EXPECT_EQ(Check("\xc3\xa9"), "2");
  EXPECT_EQ(Check(""), "bad:0");
  EXPECT_EQ(Check("\x80"), "bad:0");
  EXPECT_EQ(Check("\xc0\x80"), "bad:0");
  EXPECT_EQ(Check("\xe0\x80\x80"), "bad:1");  // overlong: the second byte is out of range
  EXPECT_EQ(Check("\xed\xa0\x80"), "bad:1");  // surrogate
  EXPECT_EQ(Check("\xe2\x82("), "bad:2");
  EXPECT_EQ(Check("\xe2\x82"), "bad:2");  // ends inside the sequence
  EXPECT_EQ(Check("\xf0\x9f\x98"), "bad:3");
  EXPECT_EQ(Check("\xe2("), "bad:1");  // a bad byte before the end is reported first
}

TEST(Utf8Test, ValidatesWholeText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii, longer than one eight-byte word"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 and more ASCII after it"));
  EXPECT_TRUE(IsValidUtf8(std::string_view("nul\0inside", 10)));
  // A bad byte at every position of long and short text, so both the word loop and the tail see it.
  const std::string good = "0123456789abcdef\xc3\xa9xyz";
  for (size_t i = 0; i <= good.size(); ++i) {
    std::string bad = good;
    bad.insert(i, "\xff");
    EXPECT_FALSE(IsValidUtf8(bad)) << i;
    std::string cut = good.substr(0, 17);  // ends inside "\xc3\xa9"
    EXPECT_FALSE(IsValidUtf8(cut));
  }
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xed\xa0\x80"));
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xf4\x90\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));
}

TEST(Utf8Test, DecodesAndEncodesCodePoints) {
  const uint32_t samples[] = {0,      0x41,   0x7f,   0x80,   0xe9,    0x7ff,   0x800,   0x20ac,
                              0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x1f600, 0x10ffff};
  for (uint32_t cp : samples) {
    std::string s;
    ASSERT_TRUE(AppendUtf8(cp, &s)) << cp;
    uint32_t back = 0xffffffff;
    EXPECT_EQ(DecodeUtf8(reinterpret_cast<const uint8_t*>(s.data()), s.size(), &back), s.size());
    EXPECT_EQ(back, cp);
    EXPECT_TRUE(DecodeSingleCodePoint(s, &back));
    EXPECT_TRUE(IsValidUtf8(s));
  }
  std::string s;
  EXPECT_EQ(s, "");
  ASSERT_TRUE(AppendUtf8(0x20ac, &s));
  EXPECT_EQ(s, "\xe2\x82\xac");
  EXPECT_FALSE(AppendUtf8(0xd800, &s));
  EXPECT_FALSE(AppendUtf8(0xdfff, &s));
  EXPECT_FALSE(AppendUtf8(0x110000, &s));
  EXPECT_EQ(s, "\xe2\x82\xac");
  char buf[4];
  EXPECT_EQ(EncodeUtf8(0x10ffff, buf), 4u);
  EXPECT_EQ(std::string(buf, 4), "\xf4\x8f\xbf\xbf");
}

TEST(Utf8Test, SingleCodePoint) {
  uint32_t cp = 7;
  EXPECT_TRUE(DecodeSingleCodePoint("\xc3\xa9", &cp));
  EXPECT_EQ(cp, 0xe9u);
  cp = 7;
  EXPECT_FALSE(DecodeSingleCodePoint("", &cp));
  EXPECT_FALSE(DecodeSingleCodePoint("ab", &cp));
  EXPECT_FALSE(DecodeSingleCodePoint("\xc3\xa9x", &cp));
  EXPECT_FALSE(DecodeSingleCodePoint("\xc3", &cp));
  EXPECT_FALSE(DecodeSingleCodePoint("\xc0\x80", &cp));      // overlong NUL
  EXPECT_FALSE(DecodeSingleCodePoint("\xed\xa0\x80", &cp));  // surrogate
  EXPECT_FALSE(DecodeSingleCodePoint("\xf4\x90\x80\x80", &cp));
  EXPECT_EQ(cp, 7u);
}

TEST(Utf8Test, ScalarValuesAndContinuationBytes) {
  EXPECT_TRUE(IsUnicodeScalar(0));
  EXPECT_TRUE(IsUnicodeScalar(0x10ffff));
  EXPECT_FALSE(IsUnicodeScalar(0xd800));
  EXPECT_FALSE(IsUnicodeScalar(0x110000));
  EXPECT_TRUE(IsUtf8Continuation(0x80));
  EXPECT_TRUE(IsUtf8Continuation(0xbf));
  EXPECT_FALSE(IsUtf8Continuation(0x7f));
  EXPECT_FALSE(IsUtf8Continuation(0xc0));
}

// Every two-byte and three-byte string is judged the same as decoding and re-encoding it.
TEST(Utf8Test, AgreesWithEncodingOnEveryShortSequence) {
  for (uint32_t a = 0x80; a < 0x100; ++a) {
    for (uint32_t b = 0; b < 0x100; ++b) {
      for (uint32_t c : {0x80u, 0xbfu, 0x41u}) {
        const std::string s = {static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)};
        uint32_t cp = 0;
        const size_t len = DecodeUtf8(reinterpret_cast<const uint8_t*>(s.data()), s.size(), &cp);
        if (len == 0) continue;
        char buf[4];
        ASSERT_EQ(EncodeUtf8(cp, buf), len);
        ASSERT_EQ(std::string(buf, len), s.substr(0, len));
      }
    }
  }
}

// IsValidUtf8 reads runs of two-byte sequences a word at a time; sequence by sequence is the reference.
bool ValidOneSequenceAtATime(std::string_view s) {
  for (size_t at = 0; at < s.size();) {
    const size_t len = Utf8SequenceLength(s, at);
    if (len == 0) return false;
    at += len;
  }
  return true;
}

TEST(Utf8Test, TwoByteRunsAgreeWithOneSequenceAtATime) {
  // Pieces that make runs of two-byte sequences and break them: good sequences of every length,
  // overlong leads (C0, C1), lone continuations, leads followed by ASCII, and cut sequences.
  const std::vector<std::string> pieces = {"a",
                                           "\xc3\xa9",
                                           "\xc2\x80",
                                           "\xdf\xbf",
                                           "\xd0\x96",
                                           "\xe2\x82\xac",
                                           "\xf0\x9f\x98\x80",
                                           "\xc0\xaf",
                                           "\xc1\xbf",
                                           "\x80",
                                           "\xbf",
                                           "\xc3",
                                           "\xc3\x41",
                                           "\xe2\x82",
                                           "\xc3\xc3",
                                           "\xed\xa0\x80",
                                           "\xf4\x90\x80\x80",
                                           "\xff",
                                           "\xc3\xa9\xc3\xa9"};
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 200000; ++round) {
    std::string text;
    const size_t n = 1 + rng() % 24;
    for (size_t i = 0; i < n; ++i) {
      // Mostly good two-byte sequences, so that most texts hold word-long runs.
      const size_t k = rng() % 3 == 0 ? rng() % pieces.size() : 1 + rng() % 4;
      text += pieces[k];
    }
    ASSERT_EQ(IsValidUtf8(text), ValidOneSequenceAtATime(text)) << ::testing::PrintToString(text);
  }
  // A break at every place in a long run of two-byte sequences.
  std::string run;
  for (int i = 0; i < 20; ++i) run += "\xc3\xa9";
  EXPECT_TRUE(IsValidUtf8(run));
  for (size_t i = 0; i < run.size(); ++i) {
    for (const char* bad : {"\xc0\xaf", "\xc1\xbf", "\x80", "\xc3", "A"}) {
      std::string text = run;
      text.insert(i, bad);
      EXPECT_EQ(IsValidUtf8(text), ValidOneSequenceAtATime(text)) << i << " " << bad;
    }
    std::string lead_then_ascii = run;
    lead_then_ascii[i] = 'A';
    EXPECT_EQ(IsValidUtf8(lead_then_ascii), ValidOneSequenceAtATime(lead_then_ascii)) << i;
  }
}

}  // namespace
}  // namespace sift::base
