// Byte sizes and durations: what each form reads as, every refusal and its reason, the limits, and
// the formatting read back.
#include "tools/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace sift::tools {
namespace {

uint64_t Size(const std::string& text) {
  uint64_t v = 12345;
  std::string error;
  EXPECT_TRUE(ParseByteSize(text, &v, &error)) << text << ": " << error;
  return v;
}

std::string SizeError(const std::string& text) {
  uint64_t v = 12345;
  std::string error;
  EXPECT_FALSE(ParseByteSize(text, &v, &error)) << text;
  EXPECT_EQ(v, 12345u) << text;  // untouched on failure
  return error;
}

int64_t Duration(const std::string& text) {
  int64_t v = 12345;
  std::string error;
  EXPECT_TRUE(ParseDuration(text, &v, &error)) << text << ": " << error;
  return v;
}

std::string DurationError(const std::string& text) {
  int64_t v = 12345;
  std::string error;
  EXPECT_FALSE(ParseDuration(text, &v, &error)) << text;
  EXPECT_EQ(v, 12345) << text;
  return error;
}

TEST(ByteSize, NumbersAndUnits) {
  EXPECT_EQ(Size("0"), 0u);
  EXPECT_EQ(Size("1000"), 1000u);
  EXPECT_EQ(Size("1000B"), 1000u);
  EXPECT_EQ(Size("512K"), 512u << 10);
  EXPECT_EQ(Size("512kib"), 512u << 10);
  EXPECT_EQ(Size("64M"), 64u << 20);
  EXPECT_EQ(Size("64MiB"), 64u << 20);
  EXPECT_EQ(Size("10G"), 10ull << 30);
  EXPECT_EQ(Size("2TiB"), 2ull << 40);
  EXPECT_EQ(Size("007"), 7u);
  EXPECT_EQ(Size("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(Size("16777215T"), 16777215ull << 40);
}

TEST(ByteSize, RefusalsSayWhy) {
  for (const char* bad : {"", "K", "-1", "+1", " 1", "1 ", "1.5G", "1e6", "12x", "1KiBB", "0x10", "ten"}) {
    EXPECT_NE(SizeError(bad).find("expected a whole number of bytes"), std::string::npos) << bad;
  }
  EXPECT_EQ(SizeError("64MB"), "unit 'MB' is ambiguous: use M or MiB (powers of 1024)");
  EXPECT_EQ(SizeError("1kb"), "unit 'kb' is ambiguous: use K or KiB (powers of 1024)");
  EXPECT_EQ(SizeError("18446744073709551616"), "larger than 2^64 - 1 bytes");
  EXPECT_EQ(SizeError("16777216T"), "larger than 2^64 - 1 bytes");
}

TEST(Duration, NumbersAndUnits) {
  EXPECT_EQ(Duration("0"), 0);
  EXPECT_EQ(Duration("0s"), 0);
  EXPECT_EQ(Duration("250ms"), 250);
  EXPECT_EQ(Duration("30s"), 30'000);
  EXPECT_EQ(Duration("90m"), 5'400'000);
  EXPECT_EQ(Duration("12h"), 43'200'000);
  EXPECT_EQ(Duration("7d"), 604'800'000);
  EXPECT_EQ(Duration("2w"), 1'209'600'000);
  EXPECT_EQ(Duration("9223372036854775807ms"), INT64_MAX);
}

TEST(Duration, RefusalsSayWhy) {
  EXPECT_EQ(DurationError("10"), "a duration needs a unit (ms, s, m, h, d or w), e.g. 30s or 7d");
  for (const char* bad : {"", "s", "-1s", "1.5h", "1h30m", "10M", "10 s", "7D", "3y", "10sec"}) {
    EXPECT_EQ(DurationError(bad), "expected a whole number with a unit ms, s, m, h, d or w") << bad;
  }
  EXPECT_EQ(DurationError("9223372036854775808ms"), "longer than 2^63 - 1 milliseconds");
  EXPECT_EQ(DurationError("99999999999999999999s"), "longer than 2^63 - 1 milliseconds");
  EXPECT_EQ(DurationError("15250284453w"), "longer than 2^63 - 1 milliseconds");
}

TEST(Units, FormattingReadsBack) {
  EXPECT_EQ(FormatByteSize(0), "0");
  EXPECT_EQ(FormatByteSize(1000), "1000");
  EXPECT_EQ(FormatByteSize(1024), "1KiB");
  EXPECT_EQ(FormatByteSize(1536 << 10), "1536KiB");
  EXPECT_EQ(FormatByteSize(64u << 20), "64MiB");
  EXPECT_EQ(FormatByteSize(3ull << 40), "3TiB");
  EXPECT_EQ(FormatDuration(0), "0");
  EXPECT_EQ(FormatDuration(1500), "1500ms");
  EXPECT_EQ(FormatDuration(5'400'000), "90m");
  EXPECT_EQ(FormatDuration(86'400'000), "1d");
  EXPECT_EQ(FormatDuration(1'209'600'000), "2w");
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{4096}, uint64_t{5} << 30, UINT64_MAX}) {
    EXPECT_EQ(Size(FormatByteSize(v)), v);
  }
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{60'000}, int64_t{86'400'001}, INT64_MAX}) {
    EXPECT_EQ(Duration(FormatDuration(v)), v);
  }
}

}  // namespace
}  // namespace sift::tools
