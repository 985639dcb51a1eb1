// selector::InSet: text membership at every key length the word-at-a-time hash distinguishes (under 4,
// 4..7, 8..15, 16 and more, with and without a partial last word), and the other classes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "selector/in_set.h"

namespace sift::selector {
namespace {

std::string Key(size_t length, char seed) {
  std::string s(length, 'a');
  for (size_t i = 0; i < length; ++i) s[i] = static_cast<char>('a' + (seed + 7 * i) % 26);
  return s;
}

TEST(InSet, TextMembershipAtEveryLength) {
  std::vector<std::string> keys;
  for (size_t length = 0; length <= 70; ++length) keys.push_back(Key(length, static_cast<char>(length)));
  std::vector<Value> members;
  for (const std::string& k : keys) members.push_back(Value::String(k));
  InSet set(members);
  EXPECT_TRUE(set.only_text());
  for (const std::string& k : keys) {
    // Each key exactly (from a buffer of its own size, so a read past it is a sanitizer error).
    std::vector<char> exact(k.begin(), k.end());
    const Value v = Value::Bytes(ValueType::kSymbol, std::string_view(exact.data(), exact.size()));
    EXPECT_EQ(set.Contains(v), Truth::kTrue) << k.size();
    // The same length with any one byte changed is not a member.
    for (size_t i = 0; i < k.size(); ++i) {
      std::string other = k;
      other[i] = static_cast<char>(other[i] == 'z' ? 'y' : 'z');
      EXPECT_EQ(set.Contains(Value::String(other)), Truth::kFalse) << k.size() << " at " << i;
    }
    EXPECT_EQ(set.Contains(Value::String(k + "!")), Truth::kFalse);
  }
  EXPECT_EQ(set.Contains(Value::Long(1)), Truth::kUnknown);  // no number among the members
}

TEST(InSet, MixedClasses) {
  std::vector<Value> members = {Value::String("ab"), Value::Long(3), Value::Double(2.5), Value::Null()};
  InSet set(members);
  EXPECT_FALSE(set.only_text());
  EXPECT_EQ(set.Contains(Value::String("ab")), Truth::kTrue);
  EXPECT_EQ(set.Contains(Value::Signed(ValueType::kInt, 3)), Truth::kTrue);
  EXPECT_EQ(set.Contains(Value::Float(2.5f)), Truth::kTrue);
  EXPECT_EQ(set.Contains(Value::String("x")), Truth::kUnknown);  // a null member
}

}  // namespace
}  // namespace sift::selector
