// Fuzz target for the selector language front end and evaluator.
//
// Input: arbitrary bytes taken as a selector expression. Compiled in both dialects; the property and
// ParseExpression entry points must agree with Compile; an accepted selector is explained and evaluated
// against a few synthetic messages (every value class, missing and null), which must never crash, read
// out of bounds or trip a sanitizer. Limits are kept at their defaults so hostile nesting is refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "selector/ast.h"
#include "selector/selector.h"

namespace {

using sift::selector::Value;
using sift::selector::ValueType;

// Answers every slot with a value that depends on the slot and the message number.
class SyntheticSource final : public sift::selector::FieldSource {
 public:
  explicit SyntheticSource(int message) : message_(message) {}
  Value Get(uint32_t slot) override {
    static const char kUuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const char kDecimal64[8] = {0x31, static_cast<char>(0xC0), 0, 0, 0, 0, 0, 0x0F};
    switch ((slot + static_cast<uint32_t>(message_) * 7) % 16) {
      case 0: return Value::Missing();
      case 1: return Value::Null();
      case 2: return Value::Boolean(message_ % 2 == 0);
      case 3: return Value::Long(-9223372036854775807 - 1);
      case 4: return Value::Unsigned(ValueType::kULong, 18446744073709551615ull);
      case 5: return Value::Double(message_ == 1 ? 0.0 / 0.0 : 2.5);
      case 6: return Value::String("h\xc3\xa9llo world");
      case 7: return Value::Symbol("orders.eu");
      case 8: return Value::Binary(std::string_view("\x00\xff", 2));
      case 9: return Value::Bytes(ValueType::kUuid, std::string_view(kUuid, 16));
      case 10: return Value::Bytes(ValueType::kDecimal64, std::string_view(kDecimal64, 8));
      case 11: return Value::Timestamp(1700000000000);
      case 12: return Value::Char(0x1F600);
      case 13: return Value::Compound(ValueType::kMap);
      case 14: return Value::String("");
      default: return Value::Signed(ValueType::kInt, message_);
    }
  }

 private:
  int message_;
};

void Exercise(std::string_view text, sift::selector::Dialect dialect) {
  sift::selector::CompileOptions options;
  options.dialect = dialect;
  sift::selector::Selector s = sift::selector::Selector::Compile(text, options);
  sift::selector::Ast ast;
  sift::selector::Error error;
  bool parsed = sift::selector::ParseExpression(text, options, &ast, &error);
  if (parsed != s.ok()) std::abort();  // the two entry points must agree
  if (!s.ok()) {
    if (s.error().position > text.size()) std::abort();
    (void)s.error().Format(text);
    return;
  }
  (void)ast.ToString();
  (void)s.Explain();
  sift::selector::EvalContext context;
  context.SetNow(1700000000000);
  for (int m = 0; m < 4; ++m) {
    SyntheticSource source(m);
    sift::selector::Truth t = s.Evaluate(source, context);
    if (t != sift::selector::Truth::kTrue && t != sift::selector::Truth::kFalse &&
        t != sift::selector::Truth::kUnknown) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Exercise(text, sift::selector::Dialect::kSql);
  Exercise(text, sift::selector::Dialect::kJms);
  return 0;
}
