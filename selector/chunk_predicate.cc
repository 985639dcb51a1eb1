// The chunk predicate (see chunk_predicate.h): abstract evaluation of a Program over chunk facts.
//
// Each instruction yields a set of truth values, a bit each. Every rule below over-approximates: it may
// add a value that no message takes, never leave out one that some message takes, so "TRUE is not in
// the root's set" proves that no message of the chunk matches.
#include "selector/chunk_predicate.h"

#include <cmath>

#include "selector/ast.h"
#include "selector/program.h"

namespace sift::selector {

// The parts of a Program the abstract evaluation reads.
class ChunkPredicateAccess {
 public:
  static const std::vector<Instr>& instrs(const Program& p) { return p.instrs_; }
  static const std::vector<uint32_t>& children(const Program& p) { return p.children_; }
  static const LikeMatcher& like(const Program& p, uint32_t i) { return *p.likes_[i]; }
  static const InSet& set(const Program& p, uint32_t i) { return *p.sets_[i]; }
  static const PropertyMatcher& property(const Program& p, uint32_t i) { return p.properties_[i]; }
  static uint32_t root(const Program& p) { return p.root_; }
};

namespace {

using Access = ChunkPredicateAccess;

using Set = uint8_t;
constexpr Set kT = 1, kF = 2, kU = 4, kAll = kT | kF | kU;

Set SwapTrueFalse(Set s) { return static_cast<Set>((s & kU) | ((s & kT) ? kF : 0) | ((s & kF) ? kT : 0)); }
Set NegateIf(Set s, bool negated) { return negated ? SwapTrueFalse(s) : s; }

const std::vector<FieldRef>& NoFields() {
  static const std::vector<FieldRef> kNone;
  return kNone;
}

// Messages where the field reads as missing or null: every comparison of them is UNKNOWN.
bool MayBeAbsent(const FieldFacts& f) { return f.present < f.messages || f.nulls > 0; }

uint32_t CountOf(const FieldFacts& f, ValueClass c) {
  switch (c) {
    case ValueClass::kText: return f.texts;
    case ValueClass::kNumber: return f.numbers;
    case ValueClass::kBoolean: return f.booleans;
    default: return 0;
  }
}

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// The truth values of `v op c` for v in [lo, hi], given lo's and hi's order against c (-1, 0, 1).
// `single` when every value is known to equal lo == hi (so `=` cannot be FALSE).
Set FromBounds(Op op, int lo_vs_c, int hi_vs_c, bool single) {
  const bool all_equal = single && lo_vs_c == 0 && hi_vs_c == 0;
  const bool some_equal = lo_vs_c <= 0 && hi_vs_c >= 0;
  switch (op) {
    case Op::kEq: return static_cast<Set>((some_equal ? kT : 0) | (all_equal ? 0 : kF));
    case Op::kNe: return static_cast<Set>((all_equal ? 0 : kT) | (some_equal ? kF : 0));
    case Op::kLt: return static_cast<Set>((lo_vs_c < 0 ? kT : 0) | (hi_vs_c >= 0 ? kF : 0));
    case Op::kLe: return static_cast<Set>((lo_vs_c <= 0 ? kT : 0) | (hi_vs_c > 0 ? kF : 0));
    case Op::kGt: return static_cast<Set>((hi_vs_c > 0 ? kT : 0) | (lo_vs_c <= 0 ? kF : 0));
    case Op::kGe: return static_cast<Set>((hi_vs_c >= 0 ? kT : 0) | (lo_vs_c < 0 ? kF : 0));
    default: return kAll;
  }
}

// Order of text bound `bound` against `c`; an unbounded maximum is above everything.
int TextVs(std::string_view bound, std::string_view c) { return Sign(bound.compare(c)); }

// Some text of the field may start with `prefix` (its range meets [prefix, prefix + 0xff...]).
bool TextRangeMayStartWith(const FieldFacts& f, std::string_view prefix) {
  if (f.texts == 0) return false;
  if (prefix.empty()) return true;
  // Upper end: some text >= prefix needs max >= prefix.
  if (!f.text_max_unbounded && f.text_max.compare(prefix) < 0) return false;
  // Lower end: some text starting with prefix needs min < prefix + 0xff..., i.e. min <= prefix or
  // min starts with prefix.
  return f.text_min.compare(prefix) <= 0 || f.text_min.substr(0, prefix.size()) == prefix;
}

bool TextInRange(const FieldFacts& f, std::string_view c) {
  return f.texts > 0 && f.text_min.compare(c) <= 0 && (f.text_max_unbounded || f.text_max.compare(c) >= 0);
}

bool NumberInRange(const FieldFacts& f, const Number& n) {
  if (!f.has_number_range) return false;
  const int lo = CompareNumbers(f.number_min, n);
  const int hi = CompareNumbers(f.number_max, n);
  return lo != 2 && hi != 2 && lo <= 0 && hi >= 0;
}

class Abstract {
 public:
  Abstract(const Program& program, const std::vector<Instr>& instrs, const std::vector<uint32_t>& children,
           const ChunkFacts& facts)
      : program_(program), instrs_(instrs), children_(children), facts_(facts) {}

  // The slot of instruction i when it reads a field directly (no path reasoning needed here: a field
  // with a path has no facts).
  bool FieldSlot(uint32_t i, uint32_t* slot) const {
    if (instrs_[i].kind != InstrKind::kField) return false;
    *slot = instrs_[i].slot;
    return true;
  }

  Set CompareFacts(Op op, uint32_t slot, const Value& constant, CompareRules rules) const {
    FieldFacts f;
    if (!facts_.Field(slot, &f)) return kAll;
    const ValueClass c = ClassOf(constant.type);
    if (c == ValueClass::kAbsent) return kU;  // a null constant: every comparison is UNKNOWN
    if (c != ValueClass::kText && c != ValueClass::kNumber && c != ValueClass::kBoolean) return kAll;
    Set r = MayBeAbsent(f) ? kU : 0;
    const uint32_t same = CountOf(f, c);
    if (f.present - f.nulls > same) r |= kU | kF;  // unlike classes: UNKNOWN, or FALSE under JMS rules
    if (same == 0) return r;
    switch (c) {
      case ValueClass::kNumber: {
        Number n;
        if (!ToNumber(constant, &n)) return kAll;
        if (n.kind == Number::Kind::kDouble && std::isnan(n.d)) return r | (op == Op::kNe ? kT : kF);
        if (f.has_nan) r |= op == Op::kNe ? kT : kF;
        if (f.has_number_range) {
          const int lo = CompareNumbers(f.number_min, n);
          const int hi = CompareNumbers(f.number_max, n);
          if (lo == 2 || hi == 2) return kAll;
          r |= FromBounds(op, lo, hi, /*single=*/true);
        }
        return r;
      }
      case ValueClass::kText: {
        if (op != Op::kEq && op != Op::kNe && rules == CompareRules::kJms) return r | kF;
        char buffer[4];
        const std::string_view k = TextOf(constant, buffer);
        const int lo = TextVs(f.text_min, k);
        const int hi = f.text_max_unbounded ? 1 : TextVs(f.text_max, k);
        Set s = FromBounds(op, lo, hi, f.text_min_exact && f.text_max_exact);
        const bool may_equal = (s & (op == Op::kEq ? kT : kF)) != 0;
        if ((op == Op::kEq || op == Op::kNe) && may_equal && !facts_.MayHoldText(slot, k)) {
          s = op == Op::kEq ? kF : kT;  // no text of the chunk equals k
        }
        return r | s;
      }
      case ValueClass::kBoolean: {
        if (op != Op::kEq && op != Op::kNe) return r | kU | kF;  // ordering booleans
        const bool b = constant.boolean;
        const bool may_equal = b ? f.seen_true : f.seen_false;
        const bool may_differ = b ? f.seen_false : f.seen_true;
        if (op == Op::kEq) return r | (may_equal ? kT : 0) | (may_differ ? kF : 0);
        return r | (may_differ ? kT : 0) | (may_equal ? kF : 0);
      }
      default: return kAll;
    }
  }

  // Messages whose value is not text (missing, null, other classes) make LIKE UNKNOWN.
  Set Like(uint32_t slot, std::string_view prefix, bool negated) const {
    FieldFacts f;
    if (!facts_.Field(slot, &f)) return kAll;
    Set r = (f.present - f.nulls > f.texts || MayBeAbsent(f)) ? kU : 0;
    if (f.texts > 0) r |= (TextRangeMayStartWith(f, prefix) ? kT : 0) | kF;
    return NegateIf(r, negated);
  }

  Set InSetFacts(uint32_t slot, const InSet& set, bool negated) const {
    FieldFacts f;
    if (!facts_.Field(slot, &f)) return kAll;
    bool may_true = false;
    if (f.texts > 0) {
      for (const std::string& t : set.texts()) {
        if (TextInRange(f, t) && facts_.MayHoldText(slot, t)) {
          may_true = true;
          break;
        }
      }
    }
    if (!may_true && f.numbers > 0) {
      for (__int128 i : set.integers()) {
        const Number n = i < 0 ? Number::Signed(static_cast<int64_t>(i)) : Number::Unsigned(static_cast<uint64_t>(i));
        if (NumberInRange(f, n)) {
          may_true = true;
          break;
        }
      }
      for (double d : set.doubles()) {
        if (may_true) break;
        if (NumberInRange(f, Number::Double(d))) may_true = true;
      }
    }
    if (!may_true && ((set.has_true() && f.seen_true) || (set.has_false() && f.seen_false))) may_true = true;
    if (!may_true && set.has_bytes_or_other() && f.others > 0) may_true = true;
    return NegateIf(static_cast<Set>((may_true ? kT : 0) | kF | kU), negated);
  }

  Set Between(uint32_t slot, const Value& low, const Value& high, bool negated) const {
    FieldFacts f;
    if (!facts_.Field(slot, &f)) return kAll;
    const ValueClass c = ClassOf(low.type);
    if (c != ClassOf(high.type)) return kAll;
    bool may_true;
    if (c == ValueClass::kNumber) {
      Number lo, hi;
      if (!ToNumber(low, &lo) || !ToNumber(high, &hi) || !f.has_number_range) {
        may_true = f.numbers > 0;
      } else {
        const int a = CompareNumbers(f.number_max, lo);
        const int b = CompareNumbers(f.number_min, hi);
        may_true = a == 2 || b == 2 || (a >= 0 && b <= 0);
      }
    } else if (c == ValueClass::kText) {
      char b1[4], b2[4];
      const std::string_view lo = TextOf(low, b1);
      const std::string_view hi = TextOf(high, b2);
      may_true = f.texts > 0 && (f.text_max_unbounded || f.text_max.compare(lo) >= 0) && f.text_min.compare(hi) <= 0;
    } else {
      return kAll;
    }
    return NegateIf(static_cast<Set>((may_true ? kT : 0) | kF | kU), negated);
  }

  Set PropertyMatchFacts(uint32_t slot, const PropertyMatcher& m) const {
    if (m.mode == PropertyMatcher::Mode::kAny) return kT;
    FieldFacts f;
    if (!facts_.Field(slot, &f)) return kT | kF;
    bool may_true = true;
    switch (m.mode) {
      case PropertyMatcher::Mode::kEquals: {
        const Value& ref = m.reference;
        const ValueClass c = ClassOf(ref.type);
        if (ref.type == ValueType::kString || ref.type == ValueType::kSymbol) {
          may_true = TextInRange(f, ref.bytes()) && facts_.MayHoldText(slot, ref.bytes());
        } else if (c == ValueClass::kNumber) {
          // Equal as doubles: widen the range through double, which keeps its order.
          Number n;
          if (ToNumber(ref, &n) && f.has_number_range && !f.has_nan) {
            const double r = n.kind == Number::Kind::kDouble   ? n.d
                             : n.kind == Number::Kind::kSigned ? static_cast<double>(n.i)
                                                               : static_cast<double>(n.u);
            auto as_double = [](const Number& x) {
              return x.kind == Number::Kind::kDouble   ? x.d
                     : x.kind == Number::Kind::kSigned ? static_cast<double>(x.i)
                                                       : static_cast<double>(x.u);
            };
            may_true = f.numbers > 0 && !(r < as_double(f.number_min)) && !(r > as_double(f.number_max));
          } else {
            may_true = f.numbers > 0;
          }
        } else if (c == ValueClass::kBoolean) {
          may_true = ref.boolean ? f.seen_true : f.seen_false;
        }
        break;
      }
      case PropertyMatcher::Mode::kPrefix: may_true = TextRangeMayStartWith(f, m.text); break;
      case PropertyMatcher::Mode::kSuffix: may_true = f.texts > 0; break;
      default: break;
    }
    return static_cast<Set>((may_true ? kT : 0) | kF);
  }

  Set Eval(uint32_t i) const {
    const Instr& in = instrs_[i];
    uint32_t slot = 0;
    switch (in.kind) {
      case InstrKind::kConst: return in.constant.type == ValueType::kBoolean ? (in.constant.boolean ? kT : kF) : kU;
      case InstrKind::kField: {
        FieldFacts f;
        if (!facts_.Field(in.slot, &f)) return kAll;
        return static_cast<Set>((f.seen_true ? kT : 0) | (f.seen_false ? kF : 0) |
                                (MayBeAbsent(f) || f.present - f.nulls > f.booleans ? kU : 0));
      }
      case InstrKind::kAnd:
      case InstrKind::kOr: {
        const bool is_and = in.kind == InstrKind::kAnd;
        // AND: TRUE needs every operand TRUE; FALSE needs one FALSE; UNKNOWN needs one UNKNOWN and
        // no FALSE. OR is the dual.
        const Set decide = is_and ? kF : kT;
        const Set pass = is_and ? kT : kF;
        bool all_pass = true, any_decide = false, any_unknown = false, all_pass_or_unknown = true;
        for (uint32_t k = 0; k < in.count; ++k) {
          const Set s = Eval(children_[in.first + k]);
          all_pass = all_pass && (s & pass);
          any_decide = any_decide || (s & decide);
          any_unknown = any_unknown || (s & kU);
          all_pass_or_unknown = all_pass_or_unknown && (s & (pass | kU));
          if (is_and && !(s & kT) && !(s & kU)) return kF;  // always FALSE: nothing else matters
        }
        return static_cast<Set>((all_pass ? pass : 0) | (any_decide ? decide : 0) |
                                (any_unknown && all_pass_or_unknown ? kU : 0));
      }
      case InstrKind::kNot: return SwapTrueFalse(Eval(in.a));
      case InstrKind::kCompareFieldConst: return CompareFacts(in.op, in.slot, in.constant, in.rules);
      case InstrKind::kCompare: {
        if (FieldSlot(in.a, &slot) && instrs_[in.b].kind == InstrKind::kConst) {
          return CompareFacts(in.op, slot, instrs_[in.b].constant, in.rules);
        }
        if (FieldSlot(in.b, &slot) && instrs_[in.a].kind == InstrKind::kConst) {
          return CompareFacts(MirroredComparison(in.op), slot, instrs_[in.a].constant, in.rules);
        }
        return kAll;
      }
      case InstrKind::kLike:
        if (!FieldSlot(in.a, &slot)) return kAll;
        return Like(slot, Access::like(program_, in.aux).leading_literal(), in.negated);
      case InstrKind::kInSet:
        if (!FieldSlot(in.a, &slot)) return kAll;
        return InSetFacts(slot, Access::set(program_, in.aux), in.negated);
      case InstrKind::kBetween:
        if (!FieldSlot(in.a, &slot) || instrs_[in.b].kind != InstrKind::kConst ||
            instrs_[in.c].kind != InstrKind::kConst) {
          return kAll;
        }
        return Between(slot, instrs_[in.b].constant, instrs_[in.c].constant, in.negated);
      case InstrKind::kIsNull: {
        if (!FieldSlot(in.a, &slot)) return kT | kF;
        FieldFacts f;
        if (!facts_.Field(slot, &f)) return kT | kF;
        const Set s = static_cast<Set>((MayBeAbsent(f) ? kT : 0) | (f.present > f.nulls ? kF : 0));
        return NegateIf(s, in.negated);
      }
      case InstrKind::kExists: {
        FieldFacts f;
        if (!facts_.Field(in.slot, &f)) return kT | kF;
        return static_cast<Set>((f.present > 0 ? kT : 0) | (f.present < f.messages ? kF : 0));
      }
      case InstrKind::kPropertyMatch: return PropertyMatchFacts(in.slot, Access::property(program_, in.aux));
      default: return kAll;
    }
  }

 private:
  const Program& program_;
  const std::vector<Instr>& instrs_;
  const std::vector<uint32_t>& children_;
  const ChunkFacts& facts_;
};

}  // namespace

const std::vector<FieldRef>& ChunkPredicate::fields() const { return program_ ? program_->fields() : NoFields(); }

bool ChunkPredicate::MayMatch(const ChunkFacts& facts) const {
  if (!useful_) return true;
  const Program& p = *program_;
  Abstract abstract(p, Access::instrs(p), Access::children(p), facts);
  return (abstract.Eval(Access::root(p)) & kT) != 0;
}

namespace {

// The conditions a summary can rule out (lines), and whether the instruction can rule a chunk out.
// AND rules out when any operand does; OR only when every operand does; NOT when its operand does.
bool Describe(const Program& p, const std::vector<Instr>& instrs, const std::vector<uint32_t>& children,
              const std::vector<FieldRef>& fields, uint32_t i, std::vector<std::string>* lines) {
  const Instr& in = instrs[i];
  auto field_of = [&](uint32_t k, uint32_t* slot) {
    if (instrs[k].kind != InstrKind::kField) return false;
    *slot = instrs[k].slot;
    return fields[*slot].path.empty();
  };
  auto add = [&](uint32_t slot, std::string what) {
    lines->push_back(FieldRefName(fields[slot]) + " " + what);
    return true;
  };
  uint32_t slot = 0;
  switch (in.kind) {
    case InstrKind::kAnd:
    case InstrKind::kOr: {
      bool any = false, all = true;
      for (uint32_t k = 0; k < in.count; ++k) {
        const bool d = Describe(p, instrs, children, fields, children[in.first + k], lines);
        any = any || d;
        all = all && d;
      }
      return in.kind == InstrKind::kAnd ? any : all;
    }
    case InstrKind::kNot: return Describe(p, instrs, children, fields, in.a, lines);
    case InstrKind::kField:
      if (!fields[in.slot].path.empty()) return false;
      return add(in.slot, "is TRUE: which booleans occur");
    case InstrKind::kCompareFieldConst:
    case InstrKind::kCompare: {
      const Value* constant = &in.constant;
      if (in.kind == InstrKind::kCompare) {
        if (field_of(in.a, &slot) && instrs[in.b].kind == InstrKind::kConst) {
          constant = &instrs[in.b].constant;
        } else if (field_of(in.b, &slot) && instrs[in.a].kind == InstrKind::kConst) {
          constant = &instrs[in.a].constant;
        } else {
          return false;
        }
      } else {
        slot = in.slot;
        if (!fields[slot].path.empty()) return false;
      }
      const ValueClass c = ClassOf(constant->type);
      const char* how = c == ValueClass::kText      ? (in.op == Op::kEq ? "text range, value set" : "text range")
                        : c == ValueClass::kNumber  ? "number range"
                        : c == ValueClass::kBoolean ? "which booleans occur"
                                                    : nullptr;
      if (how == nullptr) return false;
      return add(slot, std::string(OpName(in.op)) + " " + LiteralToString(*constant) + ": " + how);
    }
    case InstrKind::kLike:
      if (!field_of(in.a, &slot)) return false;
      return add(slot, std::string(in.negated ? "NOT LIKE" : "LIKE") + " '" +
                           std::string(Access::like(p, in.aux).pattern()) + "': text range of the prefix '" +
                           std::string(Access::like(p, in.aux).leading_literal()) + "'");
    case InstrKind::kInSet:
      if (!field_of(in.a, &slot)) return false;
      return add(slot, std::string(in.negated ? "NOT IN" : "IN") + " (" +
                           std::to_string(Access::set(p, in.aux).size()) + " values): ranges, value set");
    case InstrKind::kBetween:
      if (!field_of(in.a, &slot) || instrs[in.b].kind != InstrKind::kConst || instrs[in.c].kind != InstrKind::kConst) {
        return false;
      }
      return add(slot, std::string(in.negated ? "NOT BETWEEN " : "BETWEEN ") + LiteralToString(instrs[in.b].constant) +
                           " AND " + LiteralToString(instrs[in.c].constant) + ": range");
    case InstrKind::kIsNull:
      if (!field_of(in.a, &slot)) return false;
      return add(slot, std::string(in.negated ? "IS NOT NULL" : "IS NULL") + ": presence counts");
    case InstrKind::kExists:
      if (!fields[in.slot].path.empty()) return false;
      return add(in.slot, "EXISTS: presence counts");
    case InstrKind::kPropertyMatch: {
      const PropertyMatcher& m = Access::property(p, in.aux);
      if (m.mode == PropertyMatcher::Mode::kAny || !fields[in.slot].path.empty()) return false;
      const char* how = m.mode == PropertyMatcher::Mode::kEquals   ? "= reference: range, value set"
                        : m.mode == PropertyMatcher::Mode::kPrefix ? "&p: prefix: text range"
                                                                   : "&s: suffix: texts present";
      return add(in.slot, how);
    }
    default: return false;
  }
}

}  // namespace

ChunkPredicate ChunkPredicate::For(const Selector& selector) {
  ChunkPredicate p;
  if (!selector.ok() || !selector.program_) return p;
  p.program_ = selector.program_;
  std::vector<std::string> lines;
  const Program& program = *p.program_;
  p.useful_ = Describe(program, Access::instrs(program), Access::children(program), program.fields(),
                       Access::root(program), &lines);
  return p;
}

std::string ChunkPredicate::Explain() const {
  std::vector<std::string> lines;
  if (program_) {
    const Program& p = *program_;
    Describe(p, Access::instrs(p), Access::children(p), p.fields(), Access::root(p), &lines);
  }
  if (!useful_ || lines.empty()) return "none: no condition a chunk summary can rule out; every chunk is read";
  std::string out = "a chunk is skipped when its summary shows no message can match:";
  for (const std::string& line : lines) out += "\n  " + line;
  return out;
}

}  // namespace sift::selector
