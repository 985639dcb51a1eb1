// A map-backed selector::FieldSource for tests, and the fully decoded test message it reads.
//
// TestValue is an owned, fully decoded AMQP value (scalars, bytes, lists / arrays / maps, nested to
// any depth). TestMessage maps (section, field name) to a TestValue. MapFieldSource is built for one
// Selector::fields() list and answers Get(slot) by looking the slot's FieldRef up in the current
// message and following its path, so a selector sees the same values it would see through
// engine::MessageFieldSource on the encoded form of that message.
//
// Invariants kept (the FieldSource contract, selector/field_source.h):
// - header fields the message lacks read as their AMQP defaults (core 3.2.1: durable false,
//   priority 4, first-acquirer false, delivery-count 0);
// - a path step by key matches string and symbol map keys with the same text; a decimal text key also
//   matches a ulong key (annotation maps may be keyed by ulong); an index step reads a list / array
//   element; anything else (wrong kind, out of range) reads as kMissing;
// - byte views returned by Get point into the TestMessage, which the caller keeps alive and unchanged
//   while it evaluates; Get does not allocate.
#ifndef SIFT_TESTS_SELECTOR_MAP_FIELD_SOURCE_H_
#define SIFT_TESTS_SELECTOR_MAP_FIELD_SOURCE_H_

#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "selector/field_source.h"
#include "selector/value.h"

namespace sift::selector::testing {

// An owned AMQP value. For scalars `scalar` holds the value (its data/size unused); for the
// byte-carrying types `bytes` holds the bytes; compounds hold `elements` (list, array) or `entries`
// (map).
struct TestValue {
  ValueType type = ValueType::kMissing;
  Value scalar;
  std::string bytes;
  std::vector<TestValue> elements;
  std::vector<std::pair<TestValue, TestValue>> entries;

  static TestValue Of(Value v) {
    TestValue t;
    t.type = v.type;
    if (IsByteType(v.type)) {
      t.bytes.assign(v.data, v.size);
    } else {
      t.scalar = v;
      t.scalar.data = nullptr;
      t.scalar.size = 0;
    }
    return t;
  }
  static TestValue Bytes(ValueType type, std::string b) {
    TestValue t;
    t.type = type;
    t.bytes = std::move(b);
    return t;
  }
  static TestValue Compound(ValueType type) {
    TestValue t;
    t.type = type;
    return t;
  }

  static bool IsByteType(ValueType type) {
    switch (type) {
      case ValueType::kDecimal32:
      case ValueType::kDecimal64:
      case ValueType::kDecimal128:
      case ValueType::kUuid:
      case ValueType::kBinary:
      case ValueType::kString:
      case ValueType::kSymbol: return true;
      default: return false;
    }
  }

  // The selector's view of this value: bytes are views into this object; compounds are opaque.
  Value view() const {
    if (IsByteType(type)) return Value::Bytes(type, bytes);
    if (type == ValueType::kList || type == ValueType::kMap || type == ValueType::kArray ||
        type == ValueType::kDescribed) {
      return Value::Compound(type);
    }
    Value v = scalar;
    v.type = type;
    return v;
  }
};

// A fully decoded message: every field of every section the test sets.
class TestMessage {
 public:
  void Set(Section section, std::string name, TestValue value) {
    fields_[{section, std::move(name)}] = std::move(value);
  }
  void Clear() { fields_.clear(); }

  // nullptr when the message has no such field (no header defaults applied here).
  const TestValue* Find(Section section, std::string_view name) const {
    auto it = fields_.find(std::pair<Section, std::string_view>(section, name));
    return it == fields_.end() ? nullptr : &it->second;
  }

  const auto& fields() const { return fields_; }

 private:
  struct Less {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      if (a.first != b.first) return a.first < b.first;
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };
  std::map<std::pair<Section, std::string>, TestValue, Less> fields_;
};

// The AMQP default of a header field the message lacks (core 3.2.1), or kMissing for fields without
// a default (ttl) and unknown names.
inline Value HeaderDefault(std::string_view name) {
  if (name == "durable") return Value::Boolean(false);
  if (name == "priority") return Value::Unsigned(ValueType::kUByte, 4);
  if (name == "first-acquirer") return Value::Boolean(false);
  if (name == "delivery-count") return Value::Unsigned(ValueType::kUInt, 0);
  return Value::Missing();
}

// Follows `path` from `root`; nullptr when the path leads nowhere.
inline const TestValue* FollowPath(const TestValue* root, const std::vector<PathStep>& path) {
  const TestValue* at = root;
  for (const PathStep& step : path) {
    if (at == nullptr) return nullptr;
    if (step.kind == PathStep::Kind::kIndex) {
      if (at->type != ValueType::kList && at->type != ValueType::kArray) return nullptr;
      if (step.index >= at->elements.size()) return nullptr;
      at = &at->elements[step.index];
    } else {
      if (at->type != ValueType::kMap) return nullptr;
      const TestValue* found = nullptr;
      for (const auto& [key, value] : at->entries) {
        if ((key.type == ValueType::kString || key.type == ValueType::kSymbol) && key.bytes == step.key) {
          found = &value;
          break;
        }
        if (key.type == ValueType::kULong && !step.key.empty()) {
          uint64_t n = 0;
          auto [end, ec] = std::from_chars(step.key.data(), step.key.data() + step.key.size(), n);
          if (ec == std::errc() && end == step.key.data() + step.key.size() && n == key.scalar.u64) {
            found = &value;
            break;
          }
        }
      }
      at = found;
    }
  }
  return at;
}

// The FieldSource over a TestMessage, for one list of fields (normally Selector::fields()).
class MapFieldSource final : public FieldSource {
 public:
  explicit MapFieldSource(std::vector<FieldRef> fields) : fields_(std::move(fields)) {}

  // Makes `message` the current message; it must outlive the evaluations that follow.
  void Reset(const TestMessage* message) { message_ = message; }

  Value Get(uint32_t slot) override {
    if (message_ == nullptr || slot >= fields_.size()) return Value::Missing();
    const FieldRef& ref = fields_[slot];
    const TestValue* field = message_->Find(ref.section, ref.name);
    if (field == nullptr) {
      if (ref.section == Section::kHeader && ref.path.empty()) return HeaderDefault(ref.name);
      return Value::Missing();
    }
    const TestValue* at = FollowPath(field, ref.path);
    return at == nullptr ? Value::Missing() : at->view();
  }

  const std::vector<FieldRef>& fields() const { return fields_; }

 private:
  std::vector<FieldRef> fields_;
  const TestMessage* message_ = nullptr;
};

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_SELECTOR_MAP_FIELD_SOURCE_H_
