// Constant IN lists (see in_set.h).
#include "selector/in_set.h"

#include <algorithm>
#include <cmath>

#include "selector/compare.h"
#include "selector/text_hash.h"

namespace sift::selector {
namespace {

uint32_t Bit(ValueClass c) { return 1u << static_cast<uint32_t>(c); }

}  // namespace

InSet::InSet(std::span<const Value> members) : member_count_(members.size()) {
  for (const Value& m : members) {
    ValueClass c = ClassOf(m.type);
    if (c == ValueClass::kAbsent) {
      has_unknown_ = true;
      continue;
    }
    classes_ |= Bit(c);
    switch (c) {
      case ValueClass::kText: {
        char buf[4];
        std::string t(TextOf(m, buf));
        if (std::find(texts_.begin(), texts_.end(), t) == texts_.end()) texts_.push_back(std::move(t));
        break;
      }
      case ValueClass::kNumber: {
        Number n;
        if (!ToNumber(m, &n)) break;
        if (n.kind == Number::Kind::kSigned) {
          integers_.push_back(n.i);
        } else if (n.kind == Number::Kind::kUnsigned) {
          integers_.push_back(static_cast<__int128>(n.u));
        } else if (!std::isnan(n.d)) {
          doubles_.push_back(n.d);
        }
        break;
      }
      case ValueClass::kBoolean: (m.boolean ? has_true_ : has_false_) = true; break;
      case ValueClass::kBinary: binaries_.emplace_back(m.bytes()); break;
      case ValueClass::kUuid: uuids_.emplace_back(m.bytes()); break;
      default: break;
    }
  }
  std::sort(integers_.begin(), integers_.end());
  std::sort(doubles_.begin(), doubles_.end());
  if (!texts_.empty()) {
    size_t capacity = 4;
    while (capacity < texts_.size() * 2) capacity *= 2;
    table_.assign(capacity, -1);
    for (size_t i = 0; i < texts_.size(); ++i) {
      uint64_t h = HashText(texts_[i]);
      text_hashes_.push_back(h);
      size_t slot = h & (capacity - 1);
      while (table_[slot] != -1) slot = (slot + 1) & (capacity - 1);
      table_[slot] = static_cast<int32_t>(i);
    }
  }
}

bool InSet::ContainsText(std::string_view text) const {
  if (table_.empty()) return false;
  uint64_t h = HashText(text);
  size_t mask = table_.size() - 1;
  for (size_t slot = h & mask;; slot = (slot + 1) & mask) {
    int32_t i = table_[slot];
    if (i < 0) return false;
    if (text_hashes_[i] == h && texts_[i] == text) return true;
  }
}

bool InSet::ContainsNumber(const Value& v) const {
  Number n;
  if (!ToNumber(v, &n)) return false;
  if (n.is_integer()) {
    __int128 x = n.kind == Number::Kind::kSigned ? __int128{n.i} : static_cast<__int128>(n.u);
    if (std::binary_search(integers_.begin(), integers_.end(), x)) return true;
    if (doubles_.empty()) return false;
    double d = static_cast<double>(x);
    // Only an exactly representable integer can equal a double member.
    if (std::abs(d) < 1.8e19 && static_cast<__int128>(d) == x) {
      return std::binary_search(doubles_.begin(), doubles_.end(), d);
    }
    return false;
  }
  if (std::isnan(n.d)) return false;
  if (std::binary_search(doubles_.begin(), doubles_.end(), n.d)) return true;
  if (!integers_.empty() && std::trunc(n.d) == n.d && std::abs(n.d) < 1.8e19) {
    return std::binary_search(integers_.begin(), integers_.end(), static_cast<__int128>(n.d));
  }
  return false;
}

bool InSet::only_text() const { return classes_ == Bit(ValueClass::kText); }

Truth InSet::Contains(const Value& v, CompareRules rules) const {
  ValueClass c = ClassOf(v.type);
  if (c == ValueClass::kAbsent) return Truth::kUnknown;
  // A member of another class compares as CompareValues says: UNKNOWN, or FALSE under JMS.
  const Truth unlike = rules == CompareRules::kJms ? Truth::kFalse : Truth::kUnknown;
  if (c == ValueClass::kOther) return has_unknown_ ? Truth::kUnknown : unlike;
  bool found = false;
  if (classes_ & Bit(c)) {
    switch (c) {
      case ValueClass::kText: {
        char buf[4];
        found = ContainsText(TextOf(v, buf));
        break;
      }
      case ValueClass::kNumber: found = ContainsNumber(v); break;
      case ValueClass::kBoolean: found = v.boolean ? has_true_ : has_false_; break;
      case ValueClass::kBinary:
        found = std::find(binaries_.begin(), binaries_.end(), v.bytes()) != binaries_.end();
        break;
      case ValueClass::kUuid: found = std::find(uuids_.begin(), uuids_.end(), v.bytes()) != uuids_.end(); break;
      default: break;
    }
  }
  if (found) return Truth::kTrue;
  if (has_unknown_) return Truth::kUnknown;
  if ((classes_ & ~Bit(c)) != 0) return unlike;
  return Truth::kFalse;
}

std::string InSet::Describe() const {
  std::string out = std::to_string(member_count_) + " constant members:";
  if (!texts_.empty()) out += " " + std::to_string(texts_.size()) + " text (hashed)";
  if (!integers_.empty() || !doubles_.empty()) {
    out += " " + std::to_string(integers_.size() + doubles_.size()) + " numeric (sorted)";
  }
  if (has_true_ || has_false_) out += " boolean";
  if (!binaries_.empty()) out += " " + std::to_string(binaries_.size()) + " binary";
  if (!uuids_.empty()) out += " " + std::to_string(uuids_.size()) + " uuid";
  if (has_unknown_) out += " (an UNKNOWN member)";
  return out;
}

}  // namespace sift::selector
