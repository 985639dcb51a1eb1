// amqp::Value: a typed AMQP 1.0 value, as the codec reads it and the selector evaluates it.
//
// Values are small PODs: scalars are held inline, strings / symbols / binaries / uuids / decimals are
// views into bytes owned by someone else (the encoded message, or the evaluation scratch), so making a
// Value never allocates. The type set is AMQP 1.0's (core part 1, section 1.6), because that is what a
// field can hold, but nothing here knows how those types are encoded.
#ifndef SIFT_BASE_AMQP_VALUE_H_
#define SIFT_BASE_AMQP_VALUE_H_

#include <cstdint>
#include <string_view>

namespace sift::amqp {

enum class ValueType : uint8_t {
  kMissing,  // the field is absent from the message (or the path leads nowhere)
  kNull,
  kBoolean,
  kUByte,
  kUShort,
  kUInt,
  kULong,
  kByte,
  kShort,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal32,   // bytes(): the 4 raw big-endian IEEE 754 bytes (BID)
  kDecimal64,   // bytes(): 8 raw bytes
  kDecimal128,  // bytes(): 16 raw bytes
  kChar,        // u32: a UTF-32 code point
  kTimestamp,   // i64: milliseconds since the Unix epoch
  kUuid,        // bytes(): the 16 raw bytes
  kBinary,      // bytes()
  kString,      // bytes(): UTF-8
  kSymbol,      // bytes(): ASCII
  kList,        // a compound: present, but opaque to the selector (reach inside with a field path)
  kMap,
  kArray,
  kDescribed,
};

// The name of a type as the language reference writes it ("ulong", "string", "missing").
std::string_view ValueTypeName(ValueType type);

struct Value {
  ValueType type = ValueType::kMissing;
  union {
    bool boolean;
    int64_t i64;   // byte, short, int, long, timestamp
    uint64_t u64;  // ubyte, ushort, uint, ulong
    double f64;    // float (widened exactly) and double
    uint32_t u32;  // char
  };
  // For the byte-carrying types; how long the view lives is the producer's contract (FieldSource).
  const char* data = nullptr;
  uint32_t size = 0;

  constexpr Value() : i64(0) {}

  std::string_view bytes() const { return {data, size}; }
  bool present() const { return type != ValueType::kMissing; }

  static Value Missing() { return Value(); }
  static Value Null() {
    Value v;
    v.type = ValueType::kNull;
    return v;
  }
  static Value Boolean(bool b) {
    Value v;
    v.type = ValueType::kBoolean;
    v.boolean = b;
    return v;
  }
  static Value Signed(ValueType t, int64_t x) {
    Value v;
    v.type = t;
    v.i64 = x;
    return v;
  }
  static Value Unsigned(ValueType t, uint64_t x) {
    Value v;
    v.type = t;
    v.u64 = x;
    return v;
  }
  static Value Long(int64_t x) { return Signed(ValueType::kLong, x); }
  static Value Float(float x) {
    Value v;
    v.type = ValueType::kFloat;
    v.f64 = x;
    return v;
  }
  static Value Double(double x) {
    Value v;
    v.type = ValueType::kDouble;
    v.f64 = x;
    return v;
  }
  static Value Char(uint32_t cp) {
    Value v;
    v.type = ValueType::kChar;
    v.u32 = cp;
    return v;
  }
  static Value Timestamp(int64_t ms) { return Signed(ValueType::kTimestamp, ms); }
  static Value Bytes(ValueType t, std::string_view b) {
    Value v;
    v.type = t;
    v.data = b.data();
    v.size = static_cast<uint32_t>(b.size());
    return v;
  }
  static Value String(std::string_view s) { return Bytes(ValueType::kString, s); }
  static Value Symbol(std::string_view s) { return Bytes(ValueType::kSymbol, s); }
  static Value Binary(std::string_view b) { return Bytes(ValueType::kBinary, b); }
  static Value Compound(ValueType t) {
    Value v;
    v.type = t;
    return v;
  }
};

}  // namespace sift::amqp

#endif  // SIFT_BASE_AMQP_VALUE_H_
