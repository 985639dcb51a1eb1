// Error reporting: codes, names, ToString and the caret formatter.
#include "selector/error.h"

#include <gtest/gtest.h>

#include <set>

#include "selector/selector.h"

namespace sift::selector {
namespace {

TEST(ErrorTest, FormatPutsCaretUnderThePosition) {
  std::string text = "a = 1 AND p.foo = 2";
  Selector s = Selector::Compile(text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().Format(text),
            "unknown-field error at byte 12: unknown properties field 'foo' (fields: message_id, user_id, to, "
            "subject, reply_to, correlation_id, content_type, content_encoding, absolute_expiry_time, "
            "creation_time, group_id, group_sequence, reply_to_group_id)\n"
            "  a = 1 AND p.foo = 2\n"
            "              ^");
}

TEST(ErrorTest, CaretCountsCodePointsNotBytes) {
  std::string text = "\xc3\xa9t\xc3\xa9 = = 1";  // été = = 1
  Selector s = Selector::Compile(text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().position, 8u);
  std::string formatted = s.error().Format(text);
  EXPECT_EQ(formatted.substr(formatted.rfind('\n') + 1), "        ^");  // 2 + 6 code points
}

TEST(ErrorTest, FormatShowsOnlyTheLineWithThePosition) {
  std::string text = "a = 1\nAND b = = 2\nOR c = 3";
  Selector s = Selector::Compile(text);
  ASSERT_FALSE(s.ok());
  std::string formatted = s.error().Format(text);
  EXPECT_NE(formatted.find("\n  AND b = = 2\n          ^"), std::string::npos) << formatted;
}

TEST(ErrorTest, CaretAtTheEnd) {
  std::string text = "a AND";
  Selector s = Selector::Compile(text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kUnexpectedEnd);
  std::string formatted = s.error().Format(text);
  EXPECT_EQ(formatted.substr(formatted.rfind('\n') + 1), "       ^");
}

TEST(ErrorTest, TabsAreKeptInTheCaretLine) {
  std::string text = "a =\t= 1";
  Selector s = Selector::Compile(text);
  std::string formatted = s.error().Format(text);
  EXPECT_EQ(formatted.substr(formatted.rfind('\n') + 1), "     \t^");
}

TEST(ErrorTest, EveryCodeHasADistinctName) {
  std::set<std::string_view> names;
  for (int c = 0; c <= static_cast<int>(ErrorCode::kInvalidPropertyFilter); ++c) {
    std::string_view name = ErrorCodeName(static_cast<ErrorCode>(c));
    EXPECT_NE(name, "unknown");
    EXPECT_TRUE(names.insert(name).second) << name;
  }
}

TEST(ErrorTest, OkErrorFormatsAsOk) {
  Error e;
  EXPECT_TRUE(e.ok());
  EXPECT_EQ(e.ToString(), "ok");
  EXPECT_TRUE(Selector::Compile("a = 1").error().ok());
}

}  // namespace
}  // namespace sift::selector
