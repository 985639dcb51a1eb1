// The byte layout of chunk summaries (chunk_summary_format.h) and their Bloom filters: what is written
// reads back as it was, known bytes stay what docs/store-format.md says, and damaged bytes read as
// nothing known rather than as wrong facts.
#include "engine/chunk_summary_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bloom_filter.h"
#include "engine/text_hash.h"

namespace sift::engine {
namespace {

using selector::FieldFacts;
using selector::Number;

TEST(ChunkSummaryFormatTest, HeaderAndFieldEntriesHaveTheDocumentedBytes) {
  std::string summary;
  AppendSummaryHeader(300, /*complete=*/true, 1, &summary);
  AppendSummaryField(4, "k", "xy", &summary);
  EXPECT_EQ(summary, std::string("\x01\xac\x02\x01\x01\x04\x01k\x02xy", 11));

  SummaryInput in(summary);
  SummaryHeader header;
  ASSERT_TRUE(ReadSummaryHeader(&in, &header));
  EXPECT_EQ(header.messages, 300u);
  EXPECT_TRUE(header.complete);
  EXPECT_EQ(header.fields, 1u);
  SummaryField field;
  ReadSummaryField(&in, &field);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(field.section, 4);
  EXPECT_EQ(field.name, "k");
  EXPECT_EQ(field.body, "xy");
  EXPECT_TRUE(in.Rest().empty());

  std::string other = summary;
  other[0] = static_cast<char>(kSummaryVersion + 1);
  SummaryInput other_in(other);
  EXPECT_FALSE(ReadSummaryHeader(&other_in, &header));
  SummaryInput short_in(std::string_view(summary).substr(0, 2));
  EXPECT_FALSE(ReadSummaryHeader(&short_in, &header));
}

TEST(ChunkSummaryFormatTest, FieldBodiesReadBackAsWritten) {
  FieldFacts f;
  f.present = 6;
  f.nulls = 1;
  f.texts = 2;
  f.numbers = 2;
  f.booleans = 1;
  f.has_nan = true;
  f.has_number_range = true;
  f.number_min = Number::Signed(-5);
  f.number_max = Number::Double(2.5);
  f.text_min = "apple";
  f.text_max = "pear";
  f.text_min_exact = f.text_max_exact = true;
  f.seen_false = true;
  std::string body;
  AppendFieldBody(f, &body);
  const std::vector<std::string_view> texts = {"apple", "pear"};
  AppendExactTextSet(texts, &body);

  FieldFacts back;
  std::string_view set;
  ASSERT_TRUE(ReadFieldBody(body, &back, &set));
  EXPECT_EQ(back.present, 6u);
  EXPECT_EQ(back.nulls, 1u);
  EXPECT_EQ(back.texts, 2u);
  EXPECT_EQ(back.numbers, 2u);
  EXPECT_EQ(back.booleans, 1u);
  EXPECT_EQ(back.others, 0u);
  EXPECT_TRUE(back.has_nan);
  ASSERT_TRUE(back.has_number_range);
  EXPECT_EQ(back.number_min.kind, Number::Kind::kSigned);
  EXPECT_EQ(back.number_min.i, -5);
  EXPECT_EQ(back.number_max.kind, Number::Kind::kDouble);
  EXPECT_EQ(back.number_max.d, 2.5);
  EXPECT_EQ(back.text_min, "apple");
  EXPECT_EQ(back.text_max, "pear");
  EXPECT_TRUE(back.text_min_exact && back.text_max_exact && !back.text_max_unbounded);
  EXPECT_TRUE(back.seen_false && !back.seen_true);
  EXPECT_TRUE(TextSetMayHold(set, "apple"));
  EXPECT_TRUE(TextSetMayHold(set, "pear"));
  EXPECT_FALSE(TextSetMayHold(set, "fig"));

  // Counts that do not add up, and every truncation, are damage.
  std::string bad = body;
  bad[0] = 7;
  EXPECT_FALSE(ReadFieldBody(bad, &back, &set));
  const size_t set_at = body.size() - set.size();
  for (size_t n = 0; n < set_at; ++n) EXPECT_FALSE(ReadFieldBody(body.substr(0, n), &back, &set)) << n;
}

TEST(ChunkSummaryFormatTest, TextSetsRuleOutOnlyWhatTheyLack) {
  std::string none;
  AppendNoTextSet(&none);
  EXPECT_TRUE(TextSetMayHold(none, "anything"));

  std::vector<std::string> texts;
  for (int i = 0; i < 1000; ++i) texts.push_back("cust-" + std::to_string(i));
  std::string filter(BloomFilterBytes(texts.size()), '\0');
  EXPECT_EQ(filter.size(), 1800u);  // 14.4 bits per text
  for (const std::string& t : texts) BloomFilterAdd(TextHash(t), kBloomProbes, filter);
  std::string bloom;
  AppendBloomTextSet(kBloomProbes, filter, &bloom);
  for (const std::string& t : texts) EXPECT_TRUE(TextSetMayHold(bloom, t)) << t;
  int false_positives = 0;
  for (int i = 1000; i < 101000; ++i) false_positives += TextSetMayHold(bloom, "cust-" + std::to_string(i));
  EXPECT_LT(false_positives, 300);  // about 0.1%

  // Damaged or unknown sets rule nothing out.
  EXPECT_TRUE(TextSetMayHold(std::string_view(bloom).substr(0, bloom.size() - 1), "nope"));
  EXPECT_TRUE(TextSetMayHold("\x07", "nope"));
  EXPECT_TRUE(TextSetMayHold("", "nope"));
  EXPECT_EQ(BloomFilterBytes(0), 8u);  // at least 64 bits
  EXPECT_TRUE(BloomFilterMayHold("", kBloomProbes, TextHash("nope")));
}

TEST(ChunkSummaryFormatTest, TextHashAndTermsAreTheStoredOnes) {
  // Stored values: a change here makes every stored Bloom filter and term answer wrongly.
  EXPECT_EQ(TextHash(""), Fmix64(0x243f6a8885a308d3ull));
  EXPECT_EQ(TextTerm(selector::Section::kApplicationProperties, "customer", "cust-1"),
            TermOfTextHash(FieldTermSeed(selector::Section::kApplicationProperties, "customer"), TextHash("cust-1")));
  EXPECT_NE(TextTerm(selector::Section::kApplicationProperties, "customer", "cust-1"),
            TextTerm(selector::Section::kProperties, "customer", "cust-1"));
}

}  // namespace
}  // namespace sift::engine
