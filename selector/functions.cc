// Function evaluation (see functions.h).
#include "selector/functions.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "base/utf8.h"
#include "selector/compare.h"
#include "selector/date_time.h"
#include "selector/jms_id.h"

namespace sift::selector {

size_t CodePointCount(std::string_view text) {
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = base::Utf8SequenceLength(text, i);
    i += len == 0 ? 1 : len;
  }
  return n;
}

size_t CodePointOffset(std::string_view text, size_t n) {
  size_t i = 0;
  for (size_t k = 0; k < n && i < text.size(); ++k) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = base::Utf8SequenceLength(text, i);
    i += len == 0 ? 1 : len;
  }
  return i;
}

namespace {

// An integer argument (LEFT / RIGHT / SUBSTRING counts): any integer type; a ulong beyond int64 is
// clamped (no string is that long). Floats, decimals and everything else are not counts.
bool ToCount(const Value& v, int64_t* out) {
  switch (v.type) {
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong: *out = v.i64; return true;
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong:
      *out = v.u64 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                                : static_cast<int64_t>(v.u64);
      return true;
    default: return false;
  }
}

bool IsText(const Value& v) { return ClassOf(v.type) == ValueClass::kText; }

// A piece of a text argument: a char argument was encoded into scratch first, so views stay valid.
std::string_view TextArg(const Value& v, EvalContext& context) {
  if (v.type != ValueType::kChar) return v.bytes();
  char buf[4];
  std::string_view t = TextOf(v, buf);
  char* out = context.Allocate(t.size());
  std::memcpy(out, t.data(), t.size());
  return {out, t.size()};
}

// LOWER / UPPER map ASCII letters only (docs/selector-semantics.md); other code points are kept.
Value ChangeCase(const Value& v, bool upper, EvalContext& context) {
  std::string_view s = TextArg(v, context);
  const char from = upper ? 'a' : 'A';
  size_t first = 0;
  while (first < s.size() && !(s[first] >= from && s[first] <= from + 25)) ++first;
  if (first == s.size()) return Value::String(s);  // nothing to change: a view of the argument
  char* out = context.Allocate(s.size());
  std::memcpy(out, s.data(), s.size());
  for (size_t i = first; i < s.size(); ++i) {
    if (out[i] >= from && out[i] <= from + 25) out[i] = static_cast<char>(out[i] ^ 0x20);
  }
  return Value::String(std::string_view(out, s.size()));
}

Value Substring(std::string_view s, int64_t start, bool has_length, int64_t length) {
  // SQL: the characters at 1-based positions [start, start + length) within [1, count].
  if (has_length && length < 0) return Value::Null();
  int64_t first = start < 1 ? 1 : start;
  int64_t end;  // exclusive, 1-based
  if (has_length) {
    if (start > std::numeric_limits<int64_t>::max() - length) {
      end = std::numeric_limits<int64_t>::max();
    } else {
      end = start + length;
    }
  } else {
    end = std::numeric_limits<int64_t>::max();
  }
  if (end <= first) return Value::String(s.substr(0, 0));
  size_t from = CodePointOffset(s, static_cast<size_t>(first - 1));
  size_t to = end == std::numeric_limits<int64_t>::max() ? s.size() : CodePointOffset(s, static_cast<size_t>(end - 1));
  return Value::String(s.substr(from, to - from));
}

}  // namespace

Value CallFunction(Function fn, std::span<const Value> args, EvalContext& context) {
  switch (fn) {
    case Function::kUtc: return Value::Timestamp(context.Now());
    case Function::kLower:
    case Function::kUpper:
      if (!IsText(args[0])) return Value::Null();
      return ChangeCase(args[0], fn == Function::kUpper, context);
    case Function::kLeft:
    case Function::kRight: {
      int64_t n;
      if (!IsText(args[0]) || !ToCount(args[1], &n) || n < 0) return Value::Null();
      std::string_view s = TextArg(args[0], context);
      if (fn == Function::kLeft) return Value::String(s.substr(0, CodePointOffset(s, static_cast<size_t>(n))));
      size_t count = CodePointCount(s);
      size_t skip = static_cast<uint64_t>(n) >= count ? 0 : count - static_cast<size_t>(n);
      return Value::String(s.substr(CodePointOffset(s, skip)));
    }
    case Function::kSubstring: {
      int64_t start, length = 0;
      if (!IsText(args[0]) || !ToCount(args[1], &start)) return Value::Null();
      bool has_length = args.size() > 2;
      if (has_length && !ToCount(args[2], &length)) return Value::Null();
      return Substring(TextArg(args[0], context), start, has_length, length);
    }
    case Function::kDate: {
      int64_t ms;
      if (args[0].type != ValueType::kString && args[0].type != ValueType::kSymbol) return Value::Null();
      if (!ParseIsoDateTime(args[0].bytes(), &ms)) return Value::Null();
      return Value::Timestamp(ms);
    }
    case Function::kJmsMessageId: return RenderJmsId(args[0], false, context);
    case Function::kJmsCorrelationId: return RenderJmsId(args[0], true, context);
    case Function::kJmsDeliveryMode:
      // Header durable; absent or null means the AMQP default, false (core 3.2.1).
      if (args[0].type == ValueType::kMissing || args[0].type == ValueType::kNull) {
        return Value::String("NON_PERSISTENT");
      }
      if (args[0].type != ValueType::kBoolean) return Value::Null();
      return Value::String(args[0].boolean ? "PERSISTENT" : "NON_PERSISTENT");
    case Function::kJmsRedelivered: {
      // Header delivery-count > 0; absent or null means 0.
      if (args[0].type == ValueType::kMissing || args[0].type == ValueType::kNull) return Value::Boolean(false);
      Number n;
      if (!ToNumber(args[0], &n) || !n.is_integer()) return Value::Null();
      return Value::Boolean(n.kind == Number::Kind::kSigned ? n.i > 0 : n.u > 0);
    }
    case Function::kJmsUserId:
      // Qpid JMS reads the binary user-id as UTF-8 text; the bytes are viewed, not copied.
      if (args[0].type == ValueType::kBinary) return Value::String(args[0].bytes());
      if (args[0].type == ValueType::kString || args[0].type == ValueType::kSymbol) return args[0];
      return Value::Null();
    case Function::kJmsTime:
      // Qpid JMS shows an absent creation-time / absolute-expiry-time as 0.
      if (args[0].type == ValueType::kMissing || args[0].type == ValueType::kNull) return Value::Long(0);
      if (args[0].type == ValueType::kTimestamp || args[0].type == ValueType::kLong) return Value::Long(args[0].i64);
      return Value::Null();
    case Function::kNone:
    case Function::kRegexpLike: break;  // compiled to its own instruction (InstrKind::kRegexp)
  }
  return Value::Null();
}

}  // namespace sift::selector
