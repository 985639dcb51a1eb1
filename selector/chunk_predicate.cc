// The chunk predicate (see chunk_predicate.h): abstract evaluation of a Program over chunk facts.
//
// Each instruction yields a set of truth values, a bit each. Every rule below over-approximates: it may
// add a value that no message takes, never leave out one that some message takes, so "TRUE is not in
// the root's set" proves that no message of the chunk matches.
#include "selector/chunk_predicate.h"

#include <algorithm>
#include <cmath>

#include "selector/ast.h"
#include "selector/jms_id.h"
#include "selector/program.h"

namespace sift::selector {

// The parts of a Program the abstract evaluation reads.
class ChunkPredicateAccess {
 public:
  static const std::vector<Instr>& instrs(const Program& p) { return p.instrs_; }
  static const std::vector<uint32_t>& children(const Program& p) { return p.children_; }
  static const LikeMatcher& like(const Program& p, uint32_t i) { return *p.likes_[i]; }
  static const RegexpMatcher& regexp(const Program& p, uint32_t i) { return *p.regexps_[i]; }
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

// A JMS dialect header name that converts its field (docs/selector-semantics.md, "JMS dialect"), as
// facts over the converted values, derived from the field's: JMSTimestamp and JMSExpiration (a time as a
// long, 0 when absent), JMSRedelivered (delivery-count > 0, FALSE when absent), JMSDeliveryMode
// ('PERSISTENT' when durable, 'NON_PERSISTENT' when not or absent), JMSMessageID and JMSCorrelationID
// (each id as a string, jms_id.h; which strings occur is answered from the field's facts through the
// ids that show as a string). A value of another type converts to null. The dialect applies them to header and
// properties fields only, which the field source (and so the summary) reads in their spec type alone (a timestamp, a
// uint delivery count, a boolean) and otherwise as missing: a number between integer bounds is then an integer. False
// when the facts do not fit that (a number of another kind): nothing is known then.
struct Derived {
  FieldFacts facts;
  // JMSDeliveryMode: which of its two texts occur (the set MayHoldText answers from).
  bool persistent = false, non_persistent = false;
};
constexpr std::string_view kPersistent = "PERSISTENT";
constexpr std::string_view kNonPersistent = "NON_PERSISTENT";

bool IsSigned(const Number& n) { return n.kind == Number::Kind::kSigned; }

// The conversions Derive knows.
bool Derivable(Function fn) {
  switch (fn) {
    case Function::kJmsTime:
    case Function::kJmsRedelivered:
    case Function::kJmsDeliveryMode:
    case Function::kJmsMessageId:
    case Function::kJmsCorrelationId: return true;
    default: return false;
  }
}

bool Derive(Function fn, const FieldFacts& f, Derived* out) {
  FieldFacts& d = out->facts;
  d = FieldFacts();
  d.messages = f.messages;
  d.present = f.messages;  // a converted value is never missing
  const uint32_t absent = (f.messages - f.present) + f.nulls;
  switch (fn) {
    case Function::kJmsTime: {
      if (f.has_nan || (f.numbers > 0 && !f.has_number_range)) return false;
      if (f.has_number_range && (!IsSigned(f.number_min) || !IsSigned(f.number_max))) return false;
      d.nulls = f.texts + f.booleans + f.others;
      d.numbers = f.numbers + absent;
      if (d.numbers == 0) return true;
      d.has_number_range = true;
      const int64_t lo = f.numbers > 0 ? f.number_min.i : 0, hi = f.numbers > 0 ? f.number_max.i : 0;
      d.number_min = Number::Signed(absent > 0 ? std::min<int64_t>(lo, 0) : lo);
      d.number_max = Number::Signed(absent > 0 ? std::max<int64_t>(hi, 0) : hi);
      return true;
    }
    case Function::kJmsRedelivered: {
      if (f.has_nan || (f.numbers > 0 && !f.has_number_range)) return false;
      if (f.has_number_range && (!f.number_min.is_integer() || !f.number_max.is_integer())) return false;
      d.nulls = f.texts + f.booleans + f.others;
      d.booleans = f.numbers + absent;
      const bool max_positive = IsSigned(f.number_max) ? f.number_max.i > 0 : f.number_max.u > 0;
      const bool min_positive = IsSigned(f.number_min) ? f.number_min.i > 0 : f.number_min.u > 0;
      d.seen_true = f.numbers > 0 && max_positive;
      d.seen_false = absent > 0 || (f.numbers > 0 && !min_positive);
      return true;
    }
    case Function::kJmsMessageId:
    case Function::kJmsCorrelationId: {
      // Strings, unsigned integers, uuids and binaries each show as a string; missing and null stay.
      if (f.booleans > 0 || f.has_nan) return false;
      if (f.numbers > 0 && (!f.has_number_range || IsSigned(f.number_min) || IsSigned(f.number_max) ||
                            !f.number_min.is_integer() || !f.number_max.is_integer())) {
        return false;
      }
      d.present = f.present;
      d.nulls = f.nulls;
      d.texts = f.texts + f.numbers + f.others;
      d.text_max_unbounded = true;  // every string is within ["", unbounded)
      return true;
    }
    case Function::kJmsDeliveryMode: {
      d.nulls = f.texts + f.numbers + f.others;
      d.texts = f.booleans + absent;
      out->persistent = f.seen_true;
      out->non_persistent = f.seen_false || absent > 0;
      if (d.texts == 0) return true;
      d.text_min = out->non_persistent ? kNonPersistent : kPersistent;
      d.text_max = out->persistent ? kPersistent : kNonPersistent;
      d.text_min_exact = d.text_max_exact = true;
      return true;
    }
    default: return false;
  }
}

class Abstract {
 public:
  Abstract(const Program& program, const std::vector<Instr>& instrs, const std::vector<uint32_t>& children,
           const ChunkFacts& facts)
      : program_(program), instrs_(instrs), children_(children), facts_(facts) {}

  // What a condition's operand is known to hold over the chunk: a field's facts, or those of a JMS
  // conversion of a field (Derive).
  struct Operand {
    FieldFacts facts;
    uint32_t slot = 0;
    Function conversion = Function::kNone;            // kNone: the field itself
    FieldFacts field;                                 // a conversion's field's own facts
    bool persistent = false, non_persistent = false;  // a converted JMSDeliveryMode's texts
  };

  // The operand of the field in `slot`; false when nothing is known of it (a field with a path has no
  // facts).
  bool OperandOfSlot(uint32_t slot, Operand* o) const {
    o->slot = slot;
    o->conversion = Function::kNone;
    return facts_.Field(slot, &o->facts);
  }

  // The operand instruction i yields when it reads a field, or converts one by a JMS header name.
  bool OperandOf(uint32_t i, Operand* o) const {
    const Instr& in = instrs_[i];
    if (in.kind == InstrKind::kField) return OperandOfSlot(in.slot, o);
    if (in.kind != InstrKind::kFunction || in.count != 1 || !Derivable(in.function)) return false;
    const Instr& arg = instrs_[children_[in.first]];
    FieldFacts f;
    if (arg.kind != InstrKind::kField || !facts_.Field(arg.slot, &f)) return false;
    Derived d;
    if (!Derive(in.function, f, &d)) return false;
    o->facts = d.facts;
    o->field = f;
    o->slot = arg.slot;
    o->conversion = in.function;
    o->persistent = d.persistent;
    o->non_persistent = d.non_persistent;
    return true;
  }

  // False only when no message's value of the operand is the text `text`.
  bool MayHoldText(const Operand& o, std::string_view text) const {
    switch (o.conversion) {
      case Function::kNone: return facts_.MayHoldText(o.slot, text);
      case Function::kJmsDeliveryMode:
        return (o.persistent && text == kPersistent) || (o.non_persistent && text == kNonPersistent);
      case Function::kJmsMessageId:
      case Function::kJmsCorrelationId: {
        const JmsIdSources ids = SourcesOfJmsId(text, o.conversion == Function::kJmsCorrelationId);
        for (int i = 0; i < ids.string_count; ++i) {
          if (TextInRange(o.field, ids.strings[i]) && facts_.MayHoldText(o.slot, ids.strings[i])) return true;
        }
        if (ids.has_unsigned && NumberInRange(o.field, Number::Unsigned(ids.unsigned_value))) return true;
        return (ids.uuid || ids.binary) && o.field.others > 0;
      }
      default: return true;
    }
  }

  Set CompareFacts(Op op, const Operand& o, const Value& constant, CompareRules rules) const {
    const FieldFacts& f = o.facts;
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
        if ((op == Op::kEq || op == Op::kNe) && may_equal && !MayHoldText(o, k)) {
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
  Set Like(const Operand& o, std::string_view prefix, bool negated) const {
    const FieldFacts& f = o.facts;
    Set r = (f.present - f.nulls > f.texts || MayBeAbsent(f)) ? kU : 0;
    if (f.texts > 0) r |= (TextRangeMayStartWith(f, prefix) ? kT : 0) | kF;
    return NegateIf(r, negated);
  }

  // REGEXP_LIKE: TRUE needs text; `^literal$` is an equality, a pattern starting `^literal` a prefix.
  Set Regexp(const Operand& o, const RegexpMatcher& m) const {
    const FieldFacts& f = o.facts;
    Set r = (f.present - f.nulls > f.texts || MayBeAbsent(f)) ? kU : 0;
    if (f.texts > 0) {
      const bool may_true = m.whole() ? TextInRange(f, m.whole_literal()) && MayHoldText(o, m.whole_literal())
                                      : TextRangeMayStartWith(f, m.leading_literal());
      r |= (may_true ? kT : 0) | kF;
    }
    return r;
  }

  Set InSetFacts(const Operand& o, const InSet& set, bool negated) const {
    const FieldFacts& f = o.facts;
    bool may_true = false;
    if (f.texts > 0) {
      for (const std::string& t : set.texts()) {
        if (TextInRange(f, t) && MayHoldText(o, t)) {
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

  Set Between(const Operand& o, const Value& low, const Value& high, bool negated) const {
    const FieldFacts& f = o.facts;
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
    Operand o;
    switch (in.kind) {
      case InstrKind::kConst: return in.constant.type == ValueType::kBoolean ? (in.constant.boolean ? kT : kF) : kU;
      case InstrKind::kField:
      case InstrKind::kFunction: {  // a field, or a conversion of one, as a condition
        if (!OperandOf(i, &o)) return kAll;
        const FieldFacts& f = o.facts;
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
      case InstrKind::kCompareFieldConst:
        if (!OperandOfSlot(in.slot, &o)) return kAll;
        return CompareFacts(in.op, o, in.constant, in.rules);
      case InstrKind::kCompare: {
        if (instrs_[in.b].kind == InstrKind::kConst && OperandOf(in.a, &o)) {
          return CompareFacts(in.op, o, instrs_[in.b].constant, in.rules);
        }
        if (instrs_[in.a].kind == InstrKind::kConst && OperandOf(in.b, &o)) {
          return CompareFacts(MirroredComparison(in.op), o, instrs_[in.a].constant, in.rules);
        }
        return kAll;
      }
      case InstrKind::kLike:
        if (!OperandOf(in.a, &o)) return kAll;
        return Like(o, Access::like(program_, in.aux).leading_literal(), in.negated);
      case InstrKind::kRegexp:
        if (!OperandOf(in.a, &o)) return kAll;
        return Regexp(o, Access::regexp(program_, in.aux));
      case InstrKind::kInSet:
        if (!OperandOf(in.a, &o)) return kAll;
        return InSetFacts(o, Access::set(program_, in.aux), in.negated);
      case InstrKind::kBetween:
        if (instrs_[in.b].kind != InstrKind::kConst || instrs_[in.c].kind != InstrKind::kConst ||
            !OperandOf(in.a, &o)) {
          return kAll;
        }
        return Between(o, instrs_[in.b].constant, instrs_[in.c].constant, in.negated);
      case InstrKind::kIsNull: {
        if (!OperandOf(in.a, &o)) return kT | kF;
        const FieldFacts& f = o.facts;
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
  // Instruction k as an operand the facts describe: a field without a path, or a JMS conversion of one
  // (its name then says so: "JMS_TIME(properties.creation-time)").
  std::string operand;
  auto field_of = [&](uint32_t k, uint32_t* slot) {
    const Instr& op = instrs[k];
    std::string_view conversion;
    if (op.kind == InstrKind::kFunction && op.count == 1 && instrs[children[op.first]].kind == InstrKind::kField) {
      if (!Derivable(op.function)) return false;
      conversion = FunctionName(op.function);
      *slot = instrs[children[op.first]].slot;
    } else if (op.kind == InstrKind::kField) {
      *slot = op.slot;
    } else {
      return false;
    }
    if (!fields[*slot].path.empty()) return false;
    operand = conversion.empty() ? FieldRefName(fields[*slot])
                                 : std::string(conversion) + "(" + FieldRefName(fields[*slot]) + ")";
    return true;
  };
  auto add = [&](std::string what) {
    lines->push_back(operand + " " + what);
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
    case InstrKind::kFunction:
      if (!field_of(i, &slot)) return false;
      return add("is TRUE: which booleans occur");
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
        operand = FieldRefName(fields[slot]);
      }
      const ValueClass c = ClassOf(constant->type);
      const char* how = c == ValueClass::kText      ? (in.op == Op::kEq ? "text range, value set" : "text range")
                        : c == ValueClass::kNumber  ? "number range"
                        : c == ValueClass::kBoolean ? "which booleans occur"
                                                    : nullptr;
      if (how == nullptr) return false;
      return add(std::string(OpName(in.op)) + " " + LiteralToString(*constant) + ": " + how);
    }
    case InstrKind::kLike:
      if (!field_of(in.a, &slot)) return false;
      return add(std::string(in.negated ? "NOT LIKE" : "LIKE") + " '" + std::string(Access::like(p, in.aux).pattern()) +
                 "': text range of the prefix '" + std::string(Access::like(p, in.aux).leading_literal()) + "'");
    case InstrKind::kRegexp: {
      if (!field_of(in.a, &slot)) return false;
      const RegexpMatcher& m = Access::regexp(p, in.aux);
      const std::string what = "REGEXP_LIKE " + LiteralToString(Value::String(m.pattern())) + ": ";
      if (m.whole()) return add(what + "= " + LiteralToString(Value::String(m.whole_literal())) + ": range, value set");
      if (!m.leading_literal().empty()) {
        return add(what + "text range of the prefix " + LiteralToString(Value::String(m.leading_literal())));
      }
      return add(what + "holds text");
    }
    case InstrKind::kInSet:
      if (!field_of(in.a, &slot)) return false;
      return add(std::string(in.negated ? "NOT IN" : "IN") + " (" + std::to_string(Access::set(p, in.aux).size()) +
                 " values): ranges, value set");
    case InstrKind::kBetween:
      if (!field_of(in.a, &slot) || instrs[in.b].kind != InstrKind::kConst || instrs[in.c].kind != InstrKind::kConst) {
        return false;
      }
      return add(std::string(in.negated ? "NOT BETWEEN " : "BETWEEN ") + LiteralToString(instrs[in.b].constant) +
                 " AND " + LiteralToString(instrs[in.c].constant) + ": range");
    case InstrKind::kIsNull:
      if (!field_of(in.a, &slot)) return false;
      return add(std::string(in.negated ? "IS NOT NULL" : "IS NULL") + ": presence counts");
    case InstrKind::kExists:
      if (!fields[in.slot].path.empty()) return false;
      operand = FieldRefName(fields[in.slot]);
      return add("EXISTS: presence counts");
    case InstrKind::kPropertyMatch: {
      const PropertyMatcher& m = Access::property(p, in.aux);
      if (m.mode == PropertyMatcher::Mode::kAny || !fields[in.slot].path.empty()) return false;
      operand = FieldRefName(fields[in.slot]);
      const char* how = m.mode == PropertyMatcher::Mode::kEquals   ? "= reference: range, value set"
                        : m.mode == PropertyMatcher::Mode::kPrefix ? "&p: prefix: text range"
                                                                   : "&s: suffix: texts present";
      return add(how);
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
