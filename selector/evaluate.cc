// Evaluation of a compiled Program: three-valued logic over a FieldSource (filter expressions
// section 6; docs/selector-semantics.md).
//
// A switch over a flat instruction array; the only heap memory touched is the EvalContext's scratch
// (warm after the first evaluations) and whatever the FieldSource owns. Recursion depth is bounded by
// the program's depth (Limits::max_depth).
#include <cstring>

#include "selector/arithmetic.h"
#include "selector/compare.h"
#include "selector/functions.h"
#include "selector/program.h"

namespace sift::selector {

namespace {

inline Value FromTruth(Truth t) { return t == Truth::kUnknown ? Value::Null() : Value::Boolean(t == Truth::kTrue); }

inline Truth ToTruth(const Value& v) {
  if (v.type != ValueType::kBoolean) return Truth::kUnknown;
  return v.boolean ? Truth::kTrue : Truth::kFalse;
}

inline Truth Negate(Truth t, bool negated) { return negated ? Not(t) : t; }

}  // namespace

// `field op constant`, the most common condition: one Get, then a memcmp or a number comparison.
inline Truth Program::CompareFieldConst(const Instr& in, Frame& frame) {
  const Value v = frame.source.Get(in.slot);
  const ValueType t = v.type;
  if (in.constant_class == ValueClass::kText && (t == ValueType::kString || t == ValueType::kSymbol)) {
    // The common case, `color = 'red'`: a length check and a memcmp.
    const std::string_view k = in.constant.bytes();
    if (in.op == Op::kEq) {
      return v.size == k.size() && (k.empty() || std::memcmp(v.data, k.data(), k.size()) == 0) ? Truth::kTrue
                                                                                               : Truth::kFalse;
    }
    if (in.op == Op::kNe) {
      return v.size == k.size() && (k.empty() || std::memcmp(v.data, k.data(), k.size()) == 0) ? Truth::kFalse
                                                                                               : Truth::kTrue;
    }
    if (in.rules == CompareRules::kJms) return Truth::kFalse;  // JMS orders numbers only
    int c = v.bytes().compare(k);
    return FromOrder(in.op, c < 0 ? -1 : (c > 0 ? 1 : 0));
  }
  if (in.constant_class == ValueClass::kNumber) {
    Number n;
    const ValueClass vc = ClassOf(t);
    if (vc != ValueClass::kNumber) {
      return in.rules == CompareRules::kJms && vc != ValueClass::kAbsent ? Truth::kFalse : Truth::kUnknown;
    }
    if (!ToNumber(v, &n)) return Truth::kUnknown;
    if (n.kind == Number::Kind::kSigned && in.number.kind == Number::Kind::kSigned) {
      return FromOrder(in.op, n.i < in.number.i ? -1 : (n.i > in.number.i ? 1 : 0));
    }
    return FromOrder(in.op, CompareNumbers(n, in.number));
  }
  return CompareValues(in.op, v, in.constant, in.rules);
}

// AND / OR with short-circuit (filter expressions section 6: three-valued logic). Kept apart from
// EvalTruth's big switch so the common root shapes run without its frame.
inline Truth Program::EvalLogical(const Instr& in, Frame& frame) const {
  const Truth decides = in.kind == InstrKind::kAnd ? Truth::kFalse : Truth::kTrue;
  Truth result = in.kind == InstrKind::kAnd ? Truth::kTrue : Truth::kFalse;
  const uint32_t* c = children_.data() + in.first;
  for (uint32_t k = 0; k < in.count; ++k) {
    const Instr& child = instrs_[c[k]];
    Truth t = child.kind == InstrKind::kCompareFieldConst ? CompareFieldConst(child, frame) : EvalTruth(c[k], frame);
    if (t == decides) return t;
    if (t == Truth::kUnknown) result = Truth::kUnknown;
  }
  return result;
}

Truth Program::Evaluate(FieldSource& source, EvalContext& context) const {
  context.BeginEvaluation();
  Frame frame{source, context};
  const Instr& root = instrs_[root_];
  if (root.kind == InstrKind::kCompareFieldConst) return CompareFieldConst(root, frame);
  if (root.kind == InstrKind::kAnd || root.kind == InstrKind::kOr) return EvalLogical(root, frame);
  return EvalTruth(root_, frame);
}

Truth Program::EvalTruth(uint32_t i, Frame& frame) const {
  const Instr& in = instrs_[i];
  switch (in.kind) {
    case InstrKind::kAnd:
    case InstrKind::kOr: return EvalLogical(in, frame);
    case InstrKind::kNot: return Not(EvalTruth(in.a, frame));
    case InstrKind::kCompareFieldConst: return CompareFieldConst(in, frame);
    case InstrKind::kCompare: {
      Value x = Operand(in.a, frame);
      if (!x.present() || x.type == ValueType::kNull) return Truth::kUnknown;
      Value y = Operand(in.b, frame);
      return CompareValues(in.op, x, y, in.rules);
    }
    case InstrKind::kLike: {
      Value v = Operand(in.a, frame);
      if (ClassOf(v.type) != ValueClass::kText) return Truth::kUnknown;
      char buf[4];
      bool match = likes_[in.aux]->Matches(TextOf(v, buf));
      return (match != in.negated) ? Truth::kTrue : Truth::kFalse;
    }
    case InstrKind::kRegexp: {
      Value v = Operand(in.a, frame);
      if (ClassOf(v.type) != ValueClass::kText) return Truth::kUnknown;
      char buf[4];
      return regexps_[in.aux]->Matches(TextOf(v, buf)) ? Truth::kTrue : Truth::kFalse;
    }
    case InstrKind::kInSet: return Negate(sets_[in.aux]->Contains(Operand(in.a, frame), in.rules), in.negated);
    case InstrKind::kIn: {
      Value v = Operand(in.a, frame);
      if (!v.present() || v.type == ValueType::kNull) return Truth::kUnknown;
      Truth result = Truth::kFalse;
      const uint32_t* c = children_.data() + in.first;
      for (uint32_t k = 0; k < in.count; ++k) {
        Truth t = CompareValues(Op::kEq, v, Operand(c[k], frame), in.rules);
        if (t == Truth::kTrue) {
          result = Truth::kTrue;
          break;
        }
        if (t == Truth::kUnknown) result = Truth::kUnknown;
      }
      return Negate(result, in.negated);
    }
    case InstrKind::kBetween: {
      Value v = Operand(in.a, frame);
      if (!v.present() || v.type == ValueType::kNull) return Truth::kUnknown;
      Truth low = CompareValues(Op::kGe, v, EvalValue(in.b, frame), in.rules);
      Truth result;
      if (low == Truth::kFalse) {
        result = Truth::kFalse;
      } else {
        Truth high = CompareValues(Op::kLe, v, EvalValue(in.c, frame), in.rules);
        result = high == Truth::kFalse                                 ? Truth::kFalse
                 : (low == Truth::kUnknown || high == Truth::kUnknown) ? Truth::kUnknown
                                                                       : Truth::kTrue;
      }
      return Negate(result, in.negated);
    }
    case InstrKind::kIsNull: {
      Value v = Operand(in.a, frame);
      bool is_null = v.type == ValueType::kMissing || v.type == ValueType::kNull;
      return (is_null != in.negated) ? Truth::kTrue : Truth::kFalse;
    }
    case InstrKind::kExists: return frame.source.Get(in.slot).present() ? Truth::kTrue : Truth::kFalse;
    case InstrKind::kPropertyMatch: {
      const PropertyMatcher& m = properties_[in.aux];
      if (m.mode == PropertyMatcher::Mode::kAny) return Truth::kTrue;
      Value v = frame.source.Get(in.slot);
      switch (m.mode) {
        case PropertyMatcher::Mode::kEquals: return PropertyEquals(v, m.reference) ? Truth::kTrue : Truth::kFalse;
        case PropertyMatcher::Mode::kPrefix:
        case PropertyMatcher::Mode::kSuffix: {
          if (v.type != ValueType::kString && v.type != ValueType::kSymbol) return Truth::kFalse;
          std::string_view s = v.bytes();
          if (s.size() < m.text.size()) return Truth::kFalse;
          bool match = m.mode == PropertyMatcher::Mode::kPrefix ? s.substr(0, m.text.size()) == m.text
                                                                : s.substr(s.size() - m.text.size()) == m.text;
          return match ? Truth::kTrue : Truth::kFalse;
        }
        default: return Truth::kTrue;
      }
    }
    case InstrKind::kConst:
    case InstrKind::kField:
    case InstrKind::kArith:
    case InstrKind::kUnaryArith:
    case InstrKind::kFunction: return ToTruth(EvalValue(i, frame));
  }
  return Truth::kUnknown;
}

Value Program::EvalValue(uint32_t i, Frame& frame) const {
  const Instr& in = instrs_[i];
  switch (in.kind) {
    case InstrKind::kConst: return in.constant;
    case InstrKind::kField: return frame.source.Get(in.slot);
    case InstrKind::kArith: {
      Value x = Operand(in.a, frame);
      if (!x.present() || x.type == ValueType::kNull) return Value::Null();
      return Arithmetic(in.op, x, Operand(in.b, frame), frame.context);
    }
    case InstrKind::kUnaryArith: return UnaryArithmetic(in.op, Operand(in.a, frame));
    case InstrKind::kFunction: {
      Value args[3];
      const uint32_t n = in.count < 3 ? in.count : 3;
      for (uint32_t k = 0; k < n; ++k) args[k] = Operand(children_[in.first + k], frame);
      return CallFunction(in.function, std::span<const Value>(args, n), frame.context);
    }
    default: return FromTruth(EvalTruth(i, frame));
  }
}

}  // namespace sift::selector
