// The compiled, immutable form of a selector: a flat array of instructions evaluated by a switch.
//
// Built once by the compiler (compiler.h) from an Ast, or from a property filter, or by merging the
// programs of a filter-set (AllOf). After construction nothing in a Program changes, so one Program
// may be evaluated from many threads, each with its own EvalContext.
//
// Invariants:
// - instructions reference their operands by index (operands may come before or after them); the
//   depth of the instruction graph is bounded by Limits::max_depth, so evaluation recursion is bounded;
// - every constant is pre-decoded (text bytes, numbers) and owned by the Program (or by a Program it
//   keeps alive), so evaluation allocates nothing except scratch in the EvalContext;
// - fields() is deduplicated and every slot in it is read by some instruction;
// - AND / OR operands are ordered cheapest (then most selective) first; in three-valued logic AND and
//   OR are commutative and evaluation has no side effects, so the order never changes a result.
#ifndef SIFT_SELECTOR_PROGRAM_H_
#define SIFT_SELECTOR_PROGRAM_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "selector/ast.h"
#include "selector/compare.h"
#include "selector/eval_context.h"
#include "selector/field_source.h"
#include "selector/in_set.h"
#include "selector/like.h"
#include "selector/regexp.h"
#include "selector/required_text.h"
#include "selector/selector.h"
#include "selector/value.h"

namespace sift::selector {

enum class InstrKind : uint8_t {
  kConst,              // constant
  kField,              // slot
  kAnd,                // children [first, first + count): short-circuits on FALSE
  kOr,                 // children: short-circuits on TRUE
  kNot,                // a
  kCompare,            // op, a, b
  kCompareFieldConst,  // op, slot, constant (+ number when numeric): field op constant
  kArith,              // op, a, b
  kUnaryArith,         // op, a
  kLike,               // a, aux = like matcher, negated
  kRegexp,             // a, aux = regexp matcher (REGEXP_LIKE)
  kInSet,              // a, aux = in set, negated
  kIn,                 // a, children = members (not all constant), negated
  kBetween,            // a, b (low), c (high), negated
  kIsNull,             // a, negated
  kExists,             // slot
  kFunction,           // function, children = arguments
  kPropertyMatch,      // slot, aux = property matcher (filter expressions section 4.1.1)
};

// One entry of a property filter: how a field's value must look.
struct PropertyMatcher {
  enum class Mode : uint8_t { kAny, kEquals, kPrefix, kSuffix };
  Mode mode = Mode::kAny;
  Value reference;        // kEquals (bytes owned by the Program)
  std::string_view text;  // kPrefix / kSuffix (owned by the Program)
};

struct Instr {
  InstrKind kind = InstrKind::kConst;
  Op op = Op::kNone;
  Function function = Function::kNone;
  bool negated = false;
  CompareRules rules = CompareRules::kFilterExpressions;  // comparisons, IN, BETWEEN: the dialect's
  ValueClass constant_class = ValueClass::kAbsent;        // kCompareFieldConst
  uint32_t a = 0, b = 0, c = 0;                           // operand instructions
  uint32_t first = 0, count = 0;                          // range in Program::children_
  uint32_t slot = 0;                                      // field slot
  uint32_t aux = 0;                                       // index into likes_ / regexps_ / sets_ / properties_
  uint32_t position = 0;                                  // byte offset in the expression (for Explain)
  double cost = 0;                                        // estimated cost of evaluating this instruction
  Value constant;                                         // kConst, kCompareFieldConst
  Number number;                                          // kCompareFieldConst with a numeric constant
};

class Program {
 public:
  enum class Origin : uint8_t { kSql, kJms, kPropertiesFilter, kApplicationPropertiesFilter, kAllOf };

  const std::vector<FieldRef>& fields() const { return fields_; }
  const std::vector<RequiredText>& required_texts() const { return required_texts_; }
  double estimated_cost() const { return instrs_.empty() ? 0 : instrs_[root_].cost; }

  Truth Evaluate(FieldSource& source, EvalContext& context) const;

  std::string Explain() const;

 private:
  friend class Compiler;
  friend class ProgramBuilder;
  friend class ChunkPredicateAccess;  // selector/chunk_predicate.cc reads the instructions
  struct Frame {
    FieldSource& source;
    EvalContext& context;
  };

  Truth EvalTruth(uint32_t i, Frame& frame) const;
  Value EvalValue(uint32_t i, Frame& frame) const;
  // An operand's value; a field is read directly, without a recursive call.
  Value Operand(uint32_t i, Frame& frame) const {
    const Instr& in = instrs_[i];
    return in.kind == InstrKind::kField ? frame.source.Get(in.slot) : EvalValue(i, frame);
  }
  static Truth CompareFieldConst(const Instr& in, Frame& frame);
  Truth EvalLogical(const Instr& in, Frame& frame) const;
  void ExplainInstr(uint32_t i, int indent, std::string* out) const;
  std::string InstrSummary(const Instr& in) const;
  // Fills required_texts_ from the finished program (selector/required_text.cc).
  void DeriveRequiredTexts();
  void CollectRequiredTexts(uint32_t i, std::vector<RequiredText>* out) const;

  Origin origin_ = Origin::kSql;
  std::string text_;  // the expression (SQL / JMS), for Explain
  std::vector<FieldRef> fields_;
  std::vector<Instr> instrs_;
  std::vector<uint32_t> children_;
  std::vector<std::shared_ptr<const LikeMatcher>> likes_;
  std::vector<std::shared_ptr<const RegexpMatcher>> regexps_;
  std::vector<std::shared_ptr<const InSet>> sets_;
  std::vector<PropertyMatcher> properties_;
  uint32_t root_ = 0;
  std::deque<std::string> storage_;                         // constant bytes; a deque never moves its elements
  std::vector<std::shared_ptr<const Program>> keep_alive_;  // AllOf: the parts whose bytes we view
  std::vector<std::string> notes_;                          // compile-time facts for Explain (folds, ordering)
  std::vector<RequiredText> required_texts_;                // necessary conditions on raw bytes (required_text.h)
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_PROGRAM_H_
