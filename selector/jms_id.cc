// Ids as the JMS dialect shows them (see jms_id.h), after Qpid JMS's AmqpMessageIdHelper.
#include "selector/jms_id.h"

#include <cstring>

#include "base/hex.h"

namespace sift::selector {
namespace {

constexpr std::string_view kIdPrefix = "ID:";
constexpr std::string_view kNoPrefix = "ID:AMQP_NO_PREFIX:";
constexpr std::string_view kStringPrefix = "ID:AMQP_STRING:";
constexpr std::string_view kULongPrefix = "ID:AMQP_ULONG:";
constexpr std::string_view kUuidPrefix = "ID:AMQP_UUID:";
constexpr std::string_view kBinaryPrefix = "ID:AMQP_BINARY:";
constexpr std::string_view kTypePrefixes[] = {
    "AMQP_NO_PREFIX:", "AMQP_UUID:", "AMQP_ULONG:", "AMQP_BINARY:", "AMQP_STRING:"};

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// A string id that starts like a typed one ("ID:AMQP_ULONG:..."): Qpid JMS marks it as a string.
bool HasTypePrefix(std::string_view s) {
  if (!StartsWith(s, kIdPrefix)) return false;
  for (std::string_view p : kTypePrefixes) {
    if (s.substr(kIdPrefix.size(), p.size()) == p) return true;
  }
  return false;
}

Value Concat(std::string_view a, std::string_view b, EvalContext& context) {
  char* out = context.Allocate(a.size() + b.size());
  std::memcpy(out, a.data(), a.size());
  if (!b.empty()) std::memcpy(out + a.size(), b.data(), b.size());
  return Value::String(std::string_view(out, a.size() + b.size()));
}

// Digits only, without a leading zero (but "0"), within 2^64 - 1: what an unsigned integer shows as.
bool ParseCanonicalDecimal(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20 || (s.size() > 1 && s[0] == '0')) return false;
  uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool IsHexOf(std::string_view s, bool upper) {
  for (const char c : s) {
    const bool digit = c >= '0' && c <= '9';
    const bool letter = upper ? (c >= 'A' && c <= 'F') : (c >= 'a' && c <= 'f');
    if (!digit && !letter) return false;
  }
  return true;
}

// The 8-4-4-4-12 lower-case form of a uuid.
bool IsUuidForm(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !IsHexOf(s.substr(i, 1), /*upper=*/false)) return false;
  }
  return true;
}

}  // namespace

Value RenderJmsId(const Value& v, bool correlation, EvalContext& context) {
  switch (v.type) {
    case ValueType::kMissing:
    case ValueType::kNull: return v;
    case ValueType::kString: {
      std::string_view s = v.bytes();
      if (!StartsWith(s, kIdPrefix)) {
        // A JMSCorrelationID without "ID:" is application-specific text, used as it is.
        if (correlation) return v;
        return Concat(kNoPrefix, s, context);
      }
      if (HasTypePrefix(s)) return Concat(kStringPrefix, s, context);
      return v;
    }
    case ValueType::kULong:
    case ValueType::kUInt:
    case ValueType::kUShort:
    case ValueType::kUByte: {
      char digits[24];
      int n = 0;
      uint64_t x = v.u64;
      do {
        digits[n++] = static_cast<char>('0' + x % 10);
        x /= 10;
      } while (x != 0);
      char buf[24];
      for (int i = 0; i < n; ++i) buf[i] = digits[n - 1 - i];
      return Concat(kULongPrefix, std::string_view(buf, n), context);
    }
    case ValueType::kUuid: {
      if (v.size != 16) return Value::Null();
      char buf[36];
      int p = 0;
      for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) buf[p++] = '-';
        base::EncodeHex(v.data + i, 1, buf + p, base::HexCase::kLower);
        p += 2;
      }
      return Concat(kUuidPrefix, std::string_view(buf, 36), context);
    }
    case ValueType::kBinary: {
      char* out = context.Allocate(kBinaryPrefix.size() + 2 * size_t{v.size});
      std::memcpy(out, kBinaryPrefix.data(), kBinaryPrefix.size());
      base::EncodeHex(v.data, v.size, out + kBinaryPrefix.size(), base::HexCase::kUpper);
      return Value::String(std::string_view(out, kBinaryPrefix.size() + 2 * size_t{v.size}));
    }
    default: return Value::Null();
  }
}

JmsIdSources SourcesOfJmsId(std::string_view shown, bool correlation) {
  JmsIdSources out;
  auto add = [&](std::string_view s) { out.strings[out.string_count++] = s; };
  if (!StartsWith(shown, kIdPrefix)) {
    if (correlation) add(shown);  // a correlation id without "ID:" shows as it is; a message id never does
    return out;
  }
  if (!HasTypePrefix(shown)) {
    add(shown);  // a string starting with "ID:", untyped, shows as it is; nothing else shows so
    return out;
  }
  if (StartsWith(shown, kNoPrefix)) {
    const std::string_view s = shown.substr(kNoPrefix.size());
    if (!correlation && !StartsWith(s, kIdPrefix)) add(s);
  } else if (StartsWith(shown, kStringPrefix)) {
    const std::string_view s = shown.substr(kStringPrefix.size());
    if (HasTypePrefix(s)) add(s);
  } else if (StartsWith(shown, kULongPrefix)) {
    out.has_unsigned = ParseCanonicalDecimal(shown.substr(kULongPrefix.size()), &out.unsigned_value);
  } else if (StartsWith(shown, kUuidPrefix)) {
    out.uuid = IsUuidForm(shown.substr(kUuidPrefix.size()));
  } else if (StartsWith(shown, kBinaryPrefix)) {
    const std::string_view hex = shown.substr(kBinaryPrefix.size());
    out.binary = hex.size() % 2 == 0 && IsHexOf(hex, /*upper=*/true);
  }
  return out;
}

}  // namespace sift::selector
