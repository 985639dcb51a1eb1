// Property filters (filter expressions section 4.1) and filter-sets (AllOf).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "selector/selector.h"
#include "tests/selector/simple_source.h"

namespace sift::selector {
namespace {

using testing::SimpleSource;
using Entries = std::vector<std::pair<std::string, Value>>;

Truth RunFilter(const Selector& s, SimpleSource& source) {
  EXPECT_TRUE(s.ok()) << s.error().ToString();
  source.Bind(s.fields());
  EvalContext context;
  return s.Evaluate(source, context);
}

TEST(PropertiesFilterTest, EqualValuesMatch) {
  Selector s = Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("orders")}});
  SimpleSource src;
  src.Set("properties.subject", Value::String("orders"));
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
  src.Set("properties.subject", Value::String("order"));
  EXPECT_EQ(RunFilter(s, src), Truth::kFalse);
  src.Set("properties.subject", Value::Symbol("orders"));
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
  src.Clear();
  EXPECT_EQ(RunFilter(s, src), Truth::kFalse);  // absent: no match, never UNKNOWN
  ASSERT_EQ(s.fields().size(), 1u);
  EXPECT_EQ(s.fields()[0].section, Section::kProperties);
  EXPECT_EQ(s.fields()[0].name, "subject");
}

TEST(PropertiesFilterTest, NullReferenceMatchesAnything) {
  Selector s = Selector::CompilePropertiesFilter(Entries{{"message-id", Value::Null()}});
  SimpleSource src;
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
  src.Set("properties.message-id", Value::Long(5));
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
}

TEST(PropertiesFilterTest, EveryEntryMustMatch) {
  Selector s =
      Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("a")}, {"group-id", Value::String("g")}});
  SimpleSource src;
  src.Set("properties.subject", Value::String("a"));
  EXPECT_EQ(RunFilter(s, src), Truth::kFalse);
  src.Set("properties.group-id", Value::String("g"));
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
}

TEST(PropertiesFilterTest, NumbersOfDifferentTypesMatchWhenEqualAsFloatingPoint) {
  Selector s = Selector::CompilePropertiesFilter(Entries{{"group-sequence", Value::Long(5)}});
  SimpleSource src;
  for (Value v : {Value::Unsigned(ValueType::kUInt, 5), Value::Double(5.0), Value::Float(5.0f),
                  Value::Signed(ValueType::kByte, 5)}) {
    src.Set("properties.group-sequence", v);
    EXPECT_EQ(RunFilter(s, src), Truth::kTrue) << ValueTypeName(v.type);
  }
  src.Set("properties.group-sequence", Value::Double(5.5));
  EXPECT_EQ(RunFilter(s, src), Truth::kFalse);
  src.Set("properties.group-sequence", Value::String("5"));
  EXPECT_EQ(RunFilter(s, src), Truth::kFalse);
}

TEST(PropertiesFilterTest, PrefixSuffixAndLiteralAmpersand) {
  SimpleSource src;
  src.Set("properties.subject", Value::String("orders.eu"));
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&p:orders.")}}), src),
            Truth::kTrue);
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&p:eu")}}), src),
            Truth::kFalse);
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&s:.eu")}}), src),
            Truth::kTrue);
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&s:orders")}}), src),
            Truth::kFalse);
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&p:")}}), src),
            Truth::kTrue);
  src.Set("properties.subject", Value::String("&abc"));
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&&abc")}}), src),
            Truth::kTrue);
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&&ab")}}), src),
            Truth::kFalse);
  src.Set("properties.subject", Value::Long(1));
  EXPECT_EQ(RunFilter(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&p:")}}), src),
            Truth::kFalse);
}

TEST(PropertiesFilterTest, InvalidModifierIsAnError) {
  for (const char* bad : {"&x:abc", "&", "&p", "&P:abc", "&s"}) {
    Selector s =
        Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("ok")}, {"to", Value::String(bad)}});
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidPropertyFilter);
    EXPECT_EQ(s.error().position, 1u);  // the index of the entry
    EXPECT_EQ(s.error().token, "to");
    EXPECT_NE(s.error().message.find(bad), std::string::npos);
    SimpleSource src;
    EvalContext context;
    EXPECT_EQ(s.Evaluate(src, context), Truth::kUnknown);
  }
}

TEST(PropertiesFilterTest, UnknownPropertiesFieldIsAnError) {
  Selector s = Selector::CompilePropertiesFilter(Entries{{"message_id", Value::String("x")}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidPropertyFilter);
  s = Selector::CompilePropertiesFilter(Entries{{"colour", Value::String("x")}});
  EXPECT_FALSE(s.ok());
}

TEST(PropertiesFilterTest, CompoundReferenceIsAnError) {
  Selector s = Selector::CompileApplicationPropertiesFilter(Entries{{"k", Value::Compound(ValueType::kList)}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidPropertyFilter);
}

TEST(ApplicationPropertiesFilterTest, AnyKeyAndAnyScalarType) {
  Selector s = Selector::CompileApplicationPropertiesFilter(
      Entries{{"region", Value::String("&p:eu-")}, {"vip", Value::Boolean(true)}, {"x-y", Value::Long(3)}});
  SimpleSource src;
  src.Set("application_properties.region", Value::String("eu-west"));
  src.Set("application_properties.vip", Value::Boolean(true));
  src.Set("application_properties.x-y", Value::Double(3.0));
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
  src.Set("application_properties.vip", Value::Boolean(false));
  EXPECT_EQ(RunFilter(s, src), Truth::kFalse);
  ASSERT_EQ(s.fields().size(), 3u);
  EXPECT_EQ(s.fields()[2].name, "x-y");
  EXPECT_EQ(s.fields()[2].section, Section::kApplicationProperties);
}

TEST(ApplicationPropertiesFilterTest, EmptyFilterMatchesEverything) {
  Selector s = Selector::CompileApplicationPropertiesFilter(Entries{});
  SimpleSource src;
  EXPECT_EQ(RunFilter(s, src), Truth::kTrue);
  EXPECT_TRUE(s.fields().empty());
}

TEST(AllOfTest, AndsPartsWithOneMergedFieldList) {
  std::vector<Selector> parts;
  parts.push_back(Selector::Compile("color = 'red' AND p.subject LIKE 'o%'"));
  parts.push_back(Selector::CompilePropertiesFilter(Entries{{"subject", Value::String("&s:.eu")}}));
  parts.push_back(Selector::CompileApplicationPropertiesFilter(Entries{{"color", Value::String("red")}}));
  Selector all = Selector::AllOf(parts);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all.fields().size(), 2u);  // color and subject, once each
  SimpleSource src;
  src.Set("application_properties.color", Value::String("red"));
  src.Set("properties.subject", Value::String("orders.eu"));
  EXPECT_EQ(RunFilter(all, src), Truth::kTrue);
  src.Set("properties.subject", Value::String("orders.us"));
  EXPECT_EQ(RunFilter(all, src), Truth::kFalse);
  src.Set("properties.subject", Value::String("x.eu"));
  EXPECT_EQ(RunFilter(all, src), Truth::kFalse);
}

TEST(AllOfTest, ErrorInAnyPartIsTheResultsError) {
  std::vector<Selector> parts{Selector::Compile("a = 1"), Selector::Compile("a = = 1")};
  Selector all = Selector::AllOf(parts);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.error().code, ErrorCode::kSyntax);
  EXPECT_TRUE(all.fields().empty());
}

TEST(AllOfTest, EmptyFilterSetMatchesEverything) {
  Selector all = Selector::AllOf({});
  ASSERT_TRUE(all.ok());
  SimpleSource src;
  EvalContext context;
  EXPECT_EQ(all.Evaluate(src, context), Truth::kTrue);
  EXPECT_EQ(Selector().Evaluate(src, context), Truth::kTrue);
}

TEST(AllOfTest, UnknownPartMakesTheSetUnknown) {
  std::vector<Selector> parts{Selector::Compile("a = 1"), Selector::Compile("b = 1")};
  Selector all = Selector::AllOf(parts);
  SimpleSource src;
  src.Set("application_properties.a", Value::Long(1));
  EXPECT_EQ(RunFilter(all, src), Truth::kUnknown);
  src.Set("application_properties.b", Value::Long(2));
  EXPECT_EQ(RunFilter(all, src), Truth::kFalse);
}

TEST(AllOfTest, PartsOutliveTheirSelectors) {
  Selector all;
  {
    std::string text = "s = 'a long enough constant to live on the heap' AND s LIKE '%heap'";
    std::vector<Selector> parts{Selector::Compile(text)};
    all = Selector::AllOf(parts);
  }
  SimpleSource src;
  src.Set("application_properties.s", Value::String("a long enough constant to live on the heap"));
  EXPECT_EQ(RunFilter(all, src), Truth::kTrue);
}

}  // namespace
}  // namespace sift::selector
