// Which conjuncts give a selector required texts (selector/required_text.h), and which must not.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "selector/selector.h"

namespace sift::selector {
namespace {

// "section:text|text;section:text" for the selector's requirements, in order.
std::string Describe(const Selector& s) {
  std::string out;
  for (const RequiredText& r : s.required_texts()) {
    if (!out.empty()) out += ";";
    for (size_t k = 0; k < r.any_of.size(); ++k) {
      out += k == 0 ? "" : "|";
      out += r.any_of[k].exact ? "=" : r.any_of[k].pattern ? "^" : "~";
      out += std::string(r.any_of[k].section == Section::kApplicationProperties ? "a"
                         : r.any_of[k].section == Section::kProperties          ? "p"
                                                                                : "o") +
             ":" + r.any_of[k].text;
    }
  }
  return out;
}

std::string Of(const char* expression) {
  Selector s = Selector::Compile(expression);
  EXPECT_TRUE(s.ok()) << expression << ": " << s.error().ToString();
  return Describe(s);
}

TEST(RequiredText, DerivedFromConjunctsThatNeedText) {
  EXPECT_EQ(Of("region = 'eu-west'"), "=a:eu-west");
  EXPECT_EQ(Of("'eu-west' = region"), "=a:eu-west");
  EXPECT_EQ(Of("p.subject = 'orders.new' AND amount > 5"), "=p:orders.new");
  EXPECT_EQ(Of("a = 'xx' AND (b = 'yyy' AND c > 1)"), "=a:yyy;=a:xx");  // longer first
  EXPECT_EQ(Of("color IN ('red', 'blue')"), "=a:red|=a:blue");
  EXPECT_EQ(Of("subject LIKE 'orders.%'"), "~a:orders.");
  EXPECT_EQ(Of("s LIKE '%ab_cde%'"), "~a:cde");
  EXPECT_EQ(Of("s LIKE 'ab!%%' ESCAPE '!'"), "~a:ab%");
  EXPECT_EQ(Of("s LIKE 'abc'"), "=a:abc");  // no wildcard: an equality
  // A pattern that starts with a literal and has more to it: the literal, with the pattern to test.
  EXPECT_EQ(Of("customer LIKE 'cust-_1%7'"), "^a:cust-");
  EXPECT_EQ(Of("s LIKE 'ab%cdef'"), "^a:ab");
  EXPECT_EQ(Of("s LIKE 'a_bcdef'"), "~a:bcdef");  // a one-code-point head: the longest literal
  EXPECT_EQ(Of("s LIKE 'ab!_%x' ESCAPE '!'"), "^a:ab_");
  EXPECT_EQ(Of("a.m.k = 'deep'"), "=a:deep");
  EXPECT_EQ(Of("x = 'é!'"), "=a:é!");
}

TEST(RequiredText, NotDerivedWhereTrueDoesNotNeedTheText) {
  EXPECT_EQ(Of("region <> 'eu-west'"), "");
  EXPECT_EQ(Of("NOT region = 'eu-west'"), "");
  EXPECT_EQ(Of("region = 'eu-west' OR amount > 5"), "");
  EXPECT_EQ(Of("LOWER(region) = 'eu-west'"), "");
  EXPECT_EQ(Of("region + 'x' = 'eu-westx'"), "");
  EXPECT_EQ(Of("region NOT LIKE 'eu%'"), "");
  EXPECT_EQ(Of("region NOT IN ('eu-west')"), "");
  EXPECT_EQ(Of("region IN ('eu-west', 5)"), "");    // a number may match a number
  EXPECT_EQ(Of("region IN ('eu-west', 'x')"), "");  // 'x' may be a char
  EXPECT_EQ(Of("region = 'x'"), "");                // one code point: a char holds it as UTF-32
  EXPECT_EQ(Of("region = 'é'"), "");
  EXPECT_EQ(Of("region LIKE '%a_b%'"), "");  // no run of two literal code points
  EXPECT_EQ(Of("amount > 5"), "");
  EXPECT_EQ(Of("region > 'eu'"), "");
}

TEST(RequiredText, PropertyFiltersAndFilterSets) {
  std::vector<std::pair<std::string, Value>> app = {{"region", Value::String("eu-west")},
                                                    {"kind", Value::String("&p:ord")},
                                                    {"tail", Value::String("&s:ers")},
                                                    {"amp", Value::String("&&x")},  // "&x"
                                                    {"n", Value::Long(5)},
                                                    {"any", Value::Null()}};
  Selector f = Selector::CompileApplicationPropertiesFilter(app);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(Describe(f), "=a:eu-west;~a:ord;~a:ers;=a:&x");
  std::vector<Selector> parts = {f, Selector::Compile("p.subject = 'orders.new'")};
  Selector all = Selector::AllOf(parts);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.required_texts().size(), kMaxRequiredTexts);
  EXPECT_EQ(Describe(all).substr(0, 13), "=p:orders.new");
}

TEST(RequiredText, ExplainListsThem) {
  Selector s = Selector::Compile("region = 'eu-west' AND amount > 5");
  EXPECT_NE(s.Explain().find("'eu-west' (whole value) in application_properties"), std::string::npos) << s.Explain();
  Selector like = Selector::Compile("p.subject LIKE 'orders.%'");
  EXPECT_NE(like.Explain().find("'orders.' (part of a value) in properties"), std::string::npos) << like.Explain();
  Selector anchored = Selector::Compile("customer LIKE 'cust-_1%7'");
  EXPECT_NE(anchored.Explain().find("'cust-' (start of a value that matches 'cust-_1%7') in application_properties"),
            std::string::npos)
      << anchored.Explain();
}

}  // namespace
}  // namespace sift::selector
