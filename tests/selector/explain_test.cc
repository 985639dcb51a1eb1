// Compiled plans: published fields, Explain() (fields, sections, fast paths, order, cost), constant
// folding and operand ordering.
#include <gtest/gtest.h>

#include <string>

#include "selector/selector.h"

namespace sift::selector {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(FieldsTest, DeduplicatedInOrderOfFirstAppearance) {
  Selector s = Selector::Compile("b = 1 AND a = 2 OR b = 3 AND h.priority > 4 AND m.[x-opt-a] IS NULL");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s.fields().size(), 4u);
  EXPECT_EQ(s.fields()[0], (FieldRef{Section::kApplicationProperties, "b", {}}));
  EXPECT_EQ(s.fields()[1], (FieldRef{Section::kApplicationProperties, "a", {}}));
  EXPECT_EQ(s.fields()[2], (FieldRef{Section::kHeader, "priority", {}}));
  EXPECT_EQ(s.fields()[3], (FieldRef{Section::kMessageAnnotations, "x-opt-a", {}}));
}

TEST(FieldsTest, CompositePaths) {
  Selector s = Selector::Compile("a.tags[0] = 'x' AND m.[x-opt-route].region = 'eu'");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s.fields().size(), 2u);
  FieldRef tags{Section::kApplicationProperties, "tags", {PathStep{PathStep::Kind::kIndex, 0, ""}}};
  FieldRef route{Section::kMessageAnnotations, "x-opt-route", {PathStep{PathStep::Kind::kKey, 0, "region"}}};
  EXPECT_EQ(s.fields()[0], tags);
  EXPECT_EQ(s.fields()[1], route);
}

TEST(FieldsTest, FieldsRemovedByFoldingAreNotRead) {
  Selector s = Selector::Compile("FALSE AND a = 1 OR b = 2");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s.fields().size(), 1u);
  EXPECT_EQ(s.fields()[0].name, "b");
  EXPECT_TRUE(Selector::Compile("1 = 1 OR x = 1").fields().empty());
}

TEST(FieldsTest, ErrorStateHasNoFields) {
  Selector s = Selector::Compile("a = ");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.fields().empty());
}

TEST(ExplainTest, ListsFieldsSectionsFastPathsAndCost) {
  Selector s = Selector::Compile(
      "color = 'red' AND p.subject LIKE 'orders.%' AND h.priority > 4 AND name LIKE 'a_c' AND "
      "region IN ('eu', 'us') AND body LIKE '%x%' AND t LIKE '%.eu'");
  ASSERT_TRUE(s.ok());
  std::string plan = s.Explain();
  EXPECT_TRUE(Contains(plan, "SQL filter expression")) << plan;
  EXPECT_TRUE(Contains(plan, "fields read (7)")) << plan;
  EXPECT_TRUE(Contains(plan, "0: application_properties.color")) << plan;
  EXPECT_TRUE(Contains(plan, "sections touched: application_properties header properties")) << plan;
  EXPECT_TRUE(Contains(plan, "field vs text constant")) << plan;
  EXPECT_TRUE(Contains(plan, "field vs numeric constant")) << plan;
  EXPECT_TRUE(Contains(plan, "LIKE prefix 'orders.'")) << plan;
  EXPECT_TRUE(Contains(plan, "LIKE suffix '.eu'")) << plan;
  EXPECT_TRUE(Contains(plan, "LIKE contains 'x'")) << plan;
  EXPECT_TRUE(Contains(plan, "LIKE segments 'a_c' (anchored start) (anchored end)")) << plan;
  EXPECT_TRUE(Contains(plan, "2 text (hashed)")) << plan;
  EXPECT_TRUE(Contains(plan, "estimated cost:")) << plan;
  EXPECT_TRUE(Contains(plan, "AND of 7, evaluated in this order")) << plan;
}

TEST(ExplainTest, CheapSelectiveConjunctsFirstAndLongUnderscorePatternLast) {
  // A long '_' segment searched for (not pinned to the start) is searched bit-parallel: linear, but
  // the dearest LIKE per character.
  const std::string expression =
      "name LIKE '%" + std::string(300, 'x') + "_%' AND amount > 5000 AND LOWER(x) = 'y' AND region = 'eu-west'";
  Selector s = Selector::Compile(expression);
  ASSERT_TRUE(s.ok());
  std::string full = s.Explain();
  std::string plan = full.substr(full.find("plan:"));
  size_t eq = plan.find("region = 'eu-west'");
  size_t gt = plan.find("amount > 5000");
  size_t lower = plan.find("LOWER(");
  size_t re = plan.find("LIKE '%xxx");
  ASSERT_NE(eq, std::string::npos);
  ASSERT_NE(re, std::string::npos);
  EXPECT_NE(plan.find("(bit-parallel)"), std::string::npos) << plan;
  EXPECT_LT(eq, gt) << plan;  // equal cost: equality is more selective than a range
  EXPECT_LT(gt, lower) << plan;
  EXPECT_LT(lower, re) << plan;
  // Deterministic: the same text gives the same plan.
  EXPECT_EQ(full, Selector::Compile(expression).Explain());
}

TEST(ExplainTest, ConjunctsOfASectionAlreadyReadComeBeforeANewSection) {
  // By cost and selectivity alone the order would be vip, p.to, h.priority, color; but once vip has
  // had application_properties read, color costs a lookup, while p.to reads another section.
  Selector s = Selector::Compile("color <> 'black' AND h.priority > 4 AND vip = FALSE AND p.to = 'orders'");
  ASSERT_TRUE(s.ok());
  std::string full = s.Explain();
  std::string plan = full.substr(full.find("plan:"));
  const size_t vip = plan.find("vip = FALSE");
  const size_t color = plan.find("color <> 'black'");
  const size_t to = plan.find("properties.to = 'orders'");
  const size_t priority = plan.find("header.priority > 4");
  ASSERT_NE(priority, std::string::npos) << plan;
  EXPECT_LT(vip, color) << plan;
  EXPECT_LT(color, to) << plan;
  EXPECT_LT(to, priority) << plan;
  // The same for OR.
  Selector any = Selector::Compile("h.priority > 4 OR a = 1 OR p.subject = 'x' OR b <> 2");
  std::string any_plan = any.Explain();
  EXPECT_LT(any_plan.find("application_properties.a = 1"), any_plan.find("application_properties.b <> 2")) << any_plan;
  EXPECT_LT(any_plan.find("application_properties.b <> 2"), any_plan.find("properties.subject = 'x'")) << any_plan;
}

TEST(ExplainTest, ShortUnderscorePatternUsesTheSegmentSearch) {
  Selector s = Selector::Compile("name LIKE 'a_c%' AND LOWER(x) = 'y'");
  ASSERT_TRUE(s.ok());
  std::string plan = s.Explain();
  EXPECT_NE(plan.find("LIKE segments 'a_c' (anchored start)"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("(bit-parallel)"), std::string::npos) << plan;
}

TEST(ExplainTest, ConstantFoldingIsReported) {
  Selector s = Selector::Compile("a = 1 + 2 AND LOWER('ABC') = b AND TRUE");
  ASSERT_TRUE(s.ok());
  std::string plan = s.Explain();
  EXPECT_TRUE(Contains(plan, "application_properties.a = 3")) << plan;
  EXPECT_TRUE(Contains(plan, "'abc'")) << plan;
  EXPECT_TRUE(Contains(plan, "folded")) << plan;
  EXPECT_TRUE(Contains(Selector::Compile("1 = 1").Explain(), "TRUE"));
  EXPECT_TRUE(Contains(Selector::Compile("1/0 = 1").Explain(), "UNKNOWN"));
}

TEST(ExplainTest, OtherOrigins) {
  using Entries = std::vector<std::pair<std::string, Value>>;
  EXPECT_TRUE(Contains(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&p:x")}}).Explain(),
                       "starts with 'x'"));
  EXPECT_TRUE(Contains(Selector::Compile("JMSPriority > 4", {Dialect::kJms, {}}).Explain(), "JMS selector"));
  EXPECT_TRUE(Contains(Selector().Explain(), "matches every message"));
  EXPECT_TRUE(Contains(Selector::Compile("a =").Explain(), "invalid selector"));
}

}  // namespace
}  // namespace sift::selector
