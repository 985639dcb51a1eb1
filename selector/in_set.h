// The members of an IN list whose members are all constants, indexed for membership tests.
//
// `x IN (m1, ..., mn)` means `x = m1 OR ... OR x = mn` in three-valued logic (filter expressions
// section 6): TRUE when some member equals x; otherwise UNKNOWN when x is missing / null, or some
// member is null (UNKNOWN) or of a class x does not compare with; otherwise FALSE. Under JMS rules a
// member of another class compares FALSE (CompareRules), so only a null member or x makes it UNKNOWN.
// InSet gives exactly that answer in O(1) (text, hashed) or O(log n) (numbers, sorted) without
// allocating.
#ifndef SIFT_SELECTOR_IN_SET_H_
#define SIFT_SELECTOR_IN_SET_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "selector/compare.h"
#include "selector/selector.h"
#include "selector/value.h"

namespace sift::selector {

class InSet {
 public:
  // Copies what it needs of `members` (constants; Null stands for an UNKNOWN member).
  explicit InSet(std::span<const Value> members);

  Truth Contains(const Value& v, CompareRules rules = CompareRules::kFilterExpressions) const;

  size_t size() const { return member_count_; }
  // True when every member is text (string, symbol or char); texts() then lists them, deduplicated.
  bool only_text() const;
  const std::vector<std::string>& texts() const { return texts_; }
  // The text, integer (sorted) and non-NaN double (sorted) members; whether TRUE / FALSE are
  // members; whether some member is binary, uuid or of class other. For reasoning about sets of
  // values (chunk summaries) without a message at hand.
  const std::vector<__int128>& integers() const { return integers_; }
  const std::vector<double>& doubles() const { return doubles_; }
  bool has_true() const { return has_true_; }
  bool has_false() const { return has_false_; }
  bool has_bytes_or_other() const {
    return !binaries_.empty() || !uuids_.empty() || (classes_ & (1u << static_cast<uint32_t>(ValueClass::kOther))) != 0;
  }
  std::string Describe() const;

 private:
  bool ContainsText(std::string_view text) const;
  bool ContainsNumber(const Value& v) const;

  size_t member_count_ = 0;
  uint32_t classes_ = 0;  // bit per ValueClass present among the members
  bool has_unknown_ = false;
  std::vector<std::string> texts_;
  std::vector<uint64_t> text_hashes_;
  std::vector<int32_t> table_;      // open addressing: index into texts_, -1 empty; size a power of two
  std::vector<__int128> integers_;  // sorted
  std::vector<double> doubles_;     // sorted, no NaN
  bool has_true_ = false;
  bool has_false_ = false;
  std::vector<std::string> binaries_;  // binary members
  std::vector<std::string> uuids_;     // uuid members
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_IN_SET_H_
