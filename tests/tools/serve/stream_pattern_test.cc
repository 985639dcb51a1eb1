// StreamPatternMatches: globs on whole stream names.
#include "tools/serve/stream_pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace sift::tools {
namespace {

TEST(StreamPattern, LiteralMatchesOnlyItself) {
  EXPECT_TRUE(StreamPatternMatches("orders", "orders"));
  EXPECT_FALSE(StreamPatternMatches("orders", "orders2"));
  EXPECT_FALSE(StreamPatternMatches("orders", "order"));
  EXPECT_FALSE(StreamPatternMatches("orders", ""));
}

TEST(StreamPattern, StarMatchesAnyRunAlsoEmpty) {
  EXPECT_TRUE(StreamPatternMatches("*", ""));
  EXPECT_TRUE(StreamPatternMatches("*", "anything at all"));
  EXPECT_TRUE(StreamPatternMatches("orders-*", "orders-"));
  EXPECT_TRUE(StreamPatternMatches("orders-*", "orders-eu-west"));
  EXPECT_FALSE(StreamPatternMatches("orders-*", "big-orders-eu"));  // anchored at the start
  EXPECT_TRUE(StreamPatternMatches("*-audit", "eu-audit"));
  EXPECT_FALSE(StreamPatternMatches("*-audit", "eu-audit-old"));  // and at the end
  EXPECT_TRUE(StreamPatternMatches("a*b*c", "a--b--b--c"));
  EXPECT_FALSE(StreamPatternMatches("a*b*c", "a--b--b--"));
  EXPECT_TRUE(StreamPatternMatches("**", "x"));
}

TEST(StreamPattern, QuestionMarkMatchesExactlyOneByte) {
  EXPECT_TRUE(StreamPatternMatches("s?", "s1"));
  EXPECT_FALSE(StreamPatternMatches("s?", "s"));
  EXPECT_FALSE(StreamPatternMatches("s?", "s12"));
  EXPECT_TRUE(StreamPatternMatches("?*", "x"));
  EXPECT_FALSE(StreamPatternMatches("?*", ""));
}

TEST(StreamPattern, NoOtherMetacharacters) {
  EXPECT_FALSE(StreamPatternMatches("orders.*", "orders-1"));  // '.' is a dot, not any byte
  EXPECT_TRUE(StreamPatternMatches("orders.*", "orders.1"));
  EXPECT_FALSE(StreamPatternMatches("[ab]", "a"));
  EXPECT_TRUE(StreamPatternMatches("[ab]", "[ab]"));
}

TEST(StreamPattern, ManyStarsAgainstALongNameStayCheap) {
  // A backtracking matcher would take exponential time here; this one is quadratic at worst.
  const std::string pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
  const std::string name(4096, 'a');
  EXPECT_FALSE(StreamPatternMatches(pattern, name));
  EXPECT_TRUE(StreamPatternMatches(pattern, name + "b"));
}

}  // namespace
}  // namespace sift::tools
