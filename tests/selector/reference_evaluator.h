// A deliberately simple reference evaluator of the selector language, for differential tests.
//
// It walks its own expression tree (RefExpr, built by tests/selector/random_expression.h, which also
// renders it to text for Selector::Compile), over a fully decoded TestMessage, with values held as
// owned, widened C++ values (exact integers as __int128, so no arithmetic here can overflow). It is
// slow and has no fast paths, folding, reordering or short-circuiting: every operator is a direct
// transcription of a rule of the language definition (docs/selector-language.md, filter expressions
// section 6, Jakarta Messaging 3.1 selectors, docs/selector-semantics.md). Each rule cites its
// source.
//
// Invariant: the reference never consults the implementation under test (only the shared value and
// field-reference types), so an agreement between the two means two independent readings agree.
#ifndef SIFT_TESTS_SELECTOR_REFERENCE_EVALUATOR_H_
#define SIFT_TESTS_SELECTOR_REFERENCE_EVALUATOR_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "selector/field_source.h"
#include "selector/selector.h"
#include "selector/value.h"
#include "tests/selector/map_field_source.h"

namespace sift::selector::testing {

// ---------------------------------------------------------------------------------------------
// The expression tree

enum class RefKind : uint8_t {
  kLiteral,  // literal
  kField,    // field (index into the fixed field list of the test)
  kNegate,   // -kids[0]
  kPlus,     // +kids[0]
  kArith,    // kids[0] op kids[1], op one of + - * / %
  kCompare,  // kids[0] op kids[1], op one of = <> < <= > >=
  kAnd,
  kOr,
  kNot,
  kLike,      // kids[0] LIKE pattern [ESCAPE escape]
  kIn,        // kids[0] IN (kids[1..])
  kBetween,   // kids[0] BETWEEN kids[1] AND kids[2]
  kIsNull,    // kids[0] (a field) IS NULL
  kExists,    // EXISTS field
  kFunction,  // function(kids...)
};

struct RefExpr {
  RefKind kind = RefKind::kLiteral;
  std::string op;  // kArith / kCompare: the operator as written ("=", "<>", "+", ...)
  std::vector<RefExpr> kids;
  TestValue literal;        // kLiteral: its value
  std::string text;         // kLiteral: how it is written
  std::string jms_text;     // kLiteral: another way to write it in the JMS dialect only (or empty)
  int field = -1;           // kField / kExists / kIsNull on a field
  std::string pattern;      // kLike (the decoded pattern text)
  bool has_escape = false;  // kLike
  std::string escape;       // kLike: one code point, UTF-8
  bool negated = false;     // kLike, kIn, kBetween, kIsNull
  std::string function;     // kFunction: "UTC", "LOWER", "UPPER", "LEFT", "RIGHT", "SUBSTRING"
};

// ---------------------------------------------------------------------------------------------
// Values

// A widened, owned value, by class (docs/selector-semantics.md "Comparison"): text (string, symbol,
// char as a one-code-point string), exact numbers (every integer type and timestamp), approximate
// numbers (float, double, decimal32/64/128 as their nearest double), boolean, binary, uuid, and
// compounds (opaque).
struct RefValue {
  enum class Kind : uint8_t { kAbsent, kBool, kExact, kApprox, kText, kBinary, kUuid, kCompound };
  Kind kind = Kind::kAbsent;  // kAbsent: missing or null (both make operators UNKNOWN)
  bool integer_type = false;  // kExact from an integer type (not a timestamp): usable as a count
  bool boolean = false;
  __int128 exact = 0;
  double approx = 0;
  std::string bytes;  // kText (UTF-8), kBinary, kUuid
};

// Decodes an IEEE 754-2008 decimal in the BID encoding (what AMQP carries, core part 1 1.6.15-17)
// from its raw big-endian bytes into the nearest double, by printing coefficient and exponent and
// letting strtod round.
inline double DecodeBidDecimal(const std::string& raw) {
  const size_t n = raw.size();  // 4, 8 or 16
  const int exp_bits = n == 4 ? 8 : n == 8 ? 10 : 14;
  const int bias = n == 4 ? 101 : n == 8 ? 398 : 6176;
  unsigned __int128 bits = 0;
  for (unsigned char c : raw) bits = (bits << 8) | c;
  const int total = static_cast<int>(n * 8);
  bool negative = (bits >> (total - 1)) & 1;
  unsigned top5 = static_cast<unsigned>((bits >> (total - 6)) & 0x1F);
  if (top5 == 0x1E) return negative ? -HUGE_VAL : HUGE_VAL;
  if (top5 == 0x1F) return std::nan("");
  int coefficient_bits = total - 1 - exp_bits;  // when the two bits after the sign are not 11
  unsigned __int128 exponent, coefficient;
  if (((bits >> (total - 3)) & 3) == 3) {
    exponent = (bits >> (coefficient_bits - 2)) & ((1u << exp_bits) - 1);
    coefficient = (bits & ((static_cast<unsigned __int128>(1) << (coefficient_bits - 2)) - 1)) |
                  (static_cast<unsigned __int128>(4) << (coefficient_bits - 2));
  } else {
    exponent = (bits >> coefficient_bits) & ((1u << exp_bits) - 1);
    coefficient = bits & ((static_cast<unsigned __int128>(1) << coefficient_bits) - 1);
  }
  unsigned __int128 max = n == 4 ? 9999999 : n == 8 ? 9999999999999999ull : 0;
  if (n == 16) {
    max = 1;
    for (int i = 0; i < 34; ++i) max *= 10;
    max -= 1;
  }
  if (coefficient > max) coefficient = 0;  // non-canonical significands read as zero
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(coefficient % 10)));
    coefficient /= 10;
  } while (coefficient != 0);
  std::string text = (negative ? "-" : "") + digits + "e" + std::to_string(static_cast<int>(exponent) - bias);
  return std::strtod(text.c_str(), nullptr);
}

inline void AppendCodePoint(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

inline RefValue FromTestValue(const TestValue* v) {
  RefValue r;
  if (v == nullptr) return r;
  switch (v->type) {
    case ValueType::kMissing:
    case ValueType::kNull: return r;
    case ValueType::kBoolean:
      r.kind = RefValue::Kind::kBool;
      r.boolean = v->scalar.boolean;
      return r;
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong:
      r.kind = RefValue::Kind::kExact;
      r.integer_type = true;
      r.exact = static_cast<__int128>(v->scalar.u64);
      return r;
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong:
    case ValueType::kTimestamp:
      r.kind = RefValue::Kind::kExact;
      r.integer_type = v->type != ValueType::kTimestamp;
      r.exact = v->scalar.i64;
      return r;
    case ValueType::kFloat:
    case ValueType::kDouble:
      r.kind = RefValue::Kind::kApprox;
      r.approx = v->scalar.f64;
      return r;
    case ValueType::kDecimal32:
    case ValueType::kDecimal64:
    case ValueType::kDecimal128:
      r.kind = RefValue::Kind::kApprox;
      r.approx = DecodeBidDecimal(v->bytes);
      return r;
    case ValueType::kString:
    case ValueType::kSymbol:
      r.kind = RefValue::Kind::kText;
      r.bytes = v->bytes;
      return r;
    case ValueType::kChar:
      r.kind = RefValue::Kind::kText;
      AppendCodePoint(r.bytes, v->scalar.u32);
      return r;
    case ValueType::kBinary:
      r.kind = RefValue::Kind::kBinary;
      r.bytes = v->bytes;
      return r;
    case ValueType::kUuid:
      r.kind = RefValue::Kind::kUuid;
      r.bytes = v->bytes;
      return r;
    default: r.kind = RefValue::Kind::kCompound; return r;
  }
}

// ---------------------------------------------------------------------------------------------
// The evaluator

class ReferenceEvaluator {
 public:
  // `fields` is the fixed list the expressions' kField indices refer to.
  explicit ReferenceEvaluator(const std::vector<FieldRef>* fields) : fields_(fields) {}

  // The instant UTC() stands for, in ms since the epoch (the implementation's EvalContext::SetNow).
  void set_now(int64_t ms) { now_ms_ = ms; }
  // Whether the expressions are JMS selectors, whose comparisons of unlike types (and orderings of
  // text or booleans) are FALSE, not UNKNOWN (Jakarta Messaging 3.1, section 3.8.1.2).
  void set_jms(bool jms) { jms_ = jms; }

  Truth Evaluate(const RefExpr& e, const TestMessage& message) {
    message_ = &message;
    return Predicate(e);
  }

 private:
  static Truth Not(Truth t) {
    return t == Truth::kTrue ? Truth::kFalse : t == Truth::kFalse ? Truth::kTrue : Truth::kUnknown;
  }
  // SQL three-valued AND / OR (filter expressions section 6; JMS 3.1 truth tables).
  static Truth And(Truth a, Truth b) {
    if (a == Truth::kFalse || b == Truth::kFalse) return Truth::kFalse;
    if (a == Truth::kTrue && b == Truth::kTrue) return Truth::kTrue;
    return Truth::kUnknown;
  }
  static Truth Or(Truth a, Truth b) {
    if (a == Truth::kTrue || b == Truth::kTrue) return Truth::kTrue;
    if (a == Truth::kFalse && b == Truth::kFalse) return Truth::kFalse;
    return Truth::kUnknown;
  }
  static Truth Of(bool b) { return b ? Truth::kTrue : Truth::kFalse; }

  const TestValue* FieldValue(int index) const {
    const FieldRef& ref = (*fields_)[index];
    const TestValue* field = message_->Find(ref.section, ref.name);
    if (field == nullptr) return nullptr;
    return FollowPath(field, ref.path);
  }
  RefValue ReadField(int index) const {
    const FieldRef& ref = (*fields_)[index];
    const TestValue* v = FieldValue(index);
    if (v == nullptr && ref.section == Section::kHeader && ref.path.empty()) {
      // Header defaults (docs/selector-language.md, "Field references"; AMQP core 3.2.1).
      TestValue d = TestValue::Of(HeaderDefault(ref.name));
      return FromTestValue(d.type == ValueType::kMissing ? nullptr : &d);
    }
    return FromTestValue(v);
  }

  Truth Predicate(const RefExpr& e) {
    switch (e.kind) {
      case RefKind::kAnd: return And(Predicate(e.kids[0]), Predicate(e.kids[1]));
      case RefKind::kOr: return Or(Predicate(e.kids[0]), Predicate(e.kids[1]));
      case RefKind::kNot: return Not(Predicate(e.kids[0]));
      case RefKind::kCompare: return Compare(Scalar(e.kids[0]), e.op, Scalar(e.kids[1]));
      case RefKind::kLike: {
        Truth t = Like(Scalar(e.kids[0]), e);
        return e.negated ? Not(t) : t;
      }
      case RefKind::kIn: {
        // x IN (a, b, ...) is x = a OR x = b OR ... (JMS 3.1; members of any type,
        // docs/selector-semantics.md "IN").
        RefValue x = Scalar(e.kids[0]);
        Truth t = Truth::kFalse;
        for (size_t i = 1; i < e.kids.size(); ++i) t = Or(t, Compare(x, "=", Scalar(e.kids[i])));
        if (x.kind == RefValue::Kind::kAbsent) t = Truth::kUnknown;
        return e.negated ? Not(t) : t;
      }
      case RefKind::kBetween: {
        // x BETWEEN a AND b is a <= x AND x <= b (JMS 3.1).
        RefValue x = Scalar(e.kids[0]);
        Truth t = And(Compare(Scalar(e.kids[1]), "<=", x), Compare(x, "<=", Scalar(e.kids[2])));
        return e.negated ? Not(t) : t;
      }
      case RefKind::kIsNull: {
        // An absent field and a null value are both NULL (JMS 3.1); never UNKNOWN.
        bool null = Scalar(e.kids[0]).kind == RefValue::Kind::kAbsent;
        return Of(e.negated ? !null : null);
      }
      case RefKind::kExists: {
        // Present in the message (even with a null value); a header field the message lacks reads
        // as its AMQP default, so it is present too (selector/field_source.h).
        if (FieldValue(e.field) != nullptr) return Of(true);
        return Of(ReadField(e.field).kind != RefValue::Kind::kAbsent);
      }
      case RefKind::kField:
      case RefKind::kLiteral: {
        // A boolean-valued operand used as a predicate.
        RefValue v = Scalar(e);
        if (v.kind != RefValue::Kind::kBool) return Truth::kUnknown;
        return Of(v.boolean);
      }
      default: return Truth::kUnknown;
    }
  }

  RefValue Scalar(const RefExpr& e) {
    switch (e.kind) {
      case RefKind::kLiteral: return FromTestValue(&e.literal);
      case RefKind::kField: return ReadField(e.field);
      case RefKind::kPlus: {
        RefValue v = Scalar(e.kids[0]);
        if (!IsNumber(v)) return RefValue();
        return v;
      }
      case RefKind::kNegate: {
        RefValue v = Scalar(e.kids[0]);
        if (v.kind == RefValue::Kind::kExact) return Exact(-v.exact);
        if (v.kind == RefValue::Kind::kApprox) {
          v.approx = -v.approx;
          return v;
        }
        return RefValue();
      }
      case RefKind::kArith: return Arith(Scalar(e.kids[0]), e.op, Scalar(e.kids[1]));
      case RefKind::kFunction: return Call(e);
      default: {
        // A predicate used as a value: TRUE / FALSE, or NULL for UNKNOWN.
        Truth t = Predicate(e);
        RefValue v;
        if (t == Truth::kUnknown) return v;
        v.kind = RefValue::Kind::kBool;
        v.boolean = t == Truth::kTrue;
        return v;
      }
    }
  }

  // An exact result is a long when it fits in int64, a ulong when it fits in uint64, and UNKNOWN
  // otherwise: integer arithmetic never wraps (docs/selector-semantics.md "Arithmetic").
  static RefValue Exact(__int128 x) {
    RefValue v;
    if (x < static_cast<__int128>(std::numeric_limits<int64_t>::min()) ||
        x > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
      return v;
    }
    v.kind = RefValue::Kind::kExact;
    v.integer_type = true;
    v.exact = x;
    return v;
  }
  static RefValue Approx(double x) {
    RefValue v;
    v.kind = RefValue::Kind::kApprox;
    v.approx = x;
    return v;
  }
  static double AsDouble(const RefValue& v) {
    return v.kind == RefValue::Kind::kExact ? static_cast<double>(v.exact) : v.approx;
  }
  static bool IsNumber(const RefValue& v) {
    return v.kind == RefValue::Kind::kExact || v.kind == RefValue::Kind::kApprox;
  }

  // Arithmetic (filter expressions section 6; docs/selector-semantics.md "Arithmetic"): numbers
  // only; exact when both operands are exact (see Exact()), in double otherwise; division and modulo
  // by zero are UNKNOWN; integer division truncates toward zero and % takes the dividend's sign
  // (Java, as JMS selectors); `+` also concatenates two text values.
  static RefValue Arith(const RefValue& a, const std::string& op, const RefValue& b) {
    if (op == "+" && a.kind == RefValue::Kind::kText && b.kind == RefValue::Kind::kText) {
      RefValue v;
      v.kind = RefValue::Kind::kText;
      v.bytes = a.bytes + b.bytes;
      return v;
    }
    if (!IsNumber(a) || !IsNumber(b)) return RefValue();
    if (a.kind == RefValue::Kind::kExact && b.kind == RefValue::Kind::kExact) {
      if (op == "+") return Exact(a.exact + b.exact);
      if (op == "-") return Exact(a.exact - b.exact);
      if (op == "*") {
        __int128 p;
        if (__builtin_mul_overflow(a.exact, b.exact, &p)) return RefValue();
        return Exact(p);
      }
      if (b.exact == 0) return RefValue();
      if (op == "/") return Exact(a.exact / b.exact);
      if (op == "%") return Exact(a.exact % b.exact);
      return RefValue();
    }
    double x = AsDouble(a), y = AsDouble(b);
    if (op == "+") return Approx(x + y);
    if (op == "-") return Approx(x - y);
    if (op == "*") return Approx(x * y);
    if (y == 0) return RefValue();
    if (op == "/") return Approx(x / y);
    if (op == "%") return Approx(std::fmod(x, y));
    return RefValue();
  }

  // -1, 0, 1 for ordered numbers, 2 when a NaN makes them unordered. Numbers compare as the
  // mathematical values they stand for: every exact value here is in [-2^63, 2^64) and every double
  // is exactly representable in x87 long double (64-bit significand), as is every such integer.
  static int CompareNumbers(const RefValue& a, const RefValue& b) {
    if (a.kind == RefValue::Kind::kExact && b.kind == RefValue::Kind::kExact) {
      return a.exact < b.exact ? -1 : a.exact > b.exact ? 1 : 0;
    }
    long double x = a.kind == RefValue::Kind::kExact ? static_cast<long double>(a.exact) : a.approx;
    long double y = b.kind == RefValue::Kind::kExact ? static_cast<long double>(b.exact) : b.approx;
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  // Comparison (filter expressions section 6; docs/selector-semantics.md "Comparison"): a missing or
  // null operand makes it UNKNOWN; values compare within their class only (any other pair is
  // UNKNOWN, FALSE for JMS): numbers by value (NaN: = FALSE, <> TRUE, ordering FALSE), text by code
  // point (= UTF-8 byte order; JMS: = and <> only), binary and uuid by unsigned byte order, booleans by
  // = and <> only.
  Truth Compare(const RefValue& a, const std::string& op, const RefValue& b) const {
    if (a.kind == RefValue::Kind::kAbsent || b.kind == RefValue::Kind::kAbsent) return Truth::kUnknown;
    const Truth refused = jms_ ? Truth::kFalse : Truth::kUnknown;
    const bool equality = op == "=" || op == "<>" || op == "!=";
    int c = 0;
    if (IsNumber(a) && IsNumber(b)) {
      c = CompareNumbers(a, b);
      if (c == 2) return Of(op == "<>" || op == "!=");
    } else if (a.kind != b.kind) {
      return refused;
    } else if (a.kind == RefValue::Kind::kText && jms_ && !equality) {
      return refused;
    } else if (a.kind == RefValue::Kind::kText || a.kind == RefValue::Kind::kBinary ||
               a.kind == RefValue::Kind::kUuid) {
      int r = a.bytes.compare(b.bytes);  // char_traits<char> compares as unsigned char
      c = r < 0 ? -1 : r > 0 ? 1 : 0;
    } else if (a.kind == RefValue::Kind::kBool) {
      if (op == "=") return Of(a.boolean == b.boolean);
      if (op == "<>" || op == "!=") return Of(a.boolean != b.boolean);
      return refused;
    } else {
      return refused;  // compounds
    }
    if (op == "=") return Of(c == 0);
    if (op == "<>" || op == "!=") return Of(c != 0);
    if (op == "<") return Of(c < 0);
    if (op == "<=") return Of(c <= 0);
    if (op == ">") return Of(c > 0);
    if (op == ">=") return Of(c >= 0);
    return Truth::kUnknown;
  }

  static std::vector<uint32_t> CodePoints(std::string_view s) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < s.size();) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      uint32_t x = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
      for (size_t k = 1; k < n && i + k < s.size(); ++k) x = (x << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      out.push_back(x);
      i += n;
    }
    return out;
  }
  static std::string FromCodePoints(const std::vector<uint32_t>& cps, size_t from, size_t to) {
    std::string out;
    for (size_t i = from; i < to && i < cps.size(); ++i) {
      uint32_t cp = cps[i];
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    }
    return out;
  }

  // LIKE by plain backtracking over code points (JMS 3.1: `_` one character, `%` any run, the
  // escape character makes the next character literal).
  static bool LikeMatch(const std::vector<uint32_t>& s, size_t i, const std::vector<uint32_t>& p, size_t j,
                        bool has_escape, uint32_t escape) {
    while (j < p.size()) {
      if (has_escape && p[j] == escape) {
        if (j + 1 >= p.size() || i >= s.size() || s[i] != p[j + 1]) return false;
        ++i;
        j += 2;
      } else if (p[j] == '%') {
        for (size_t k = i; k <= s.size(); ++k) {
          if (LikeMatch(s, k, p, j + 1, has_escape, escape)) return true;
        }
        return false;
      } else if (p[j] == '_') {
        if (i >= s.size()) return false;
        ++i;
        ++j;
      } else {
        if (i >= s.size() || s[i] != p[j]) return false;
        ++i;
        ++j;
      }
    }
    return i == s.size();
  }
  static Truth Like(const RefValue& v, const RefExpr& e) {
    if (v.kind != RefValue::Kind::kText) return Truth::kUnknown;
    std::vector<uint32_t> esc = CodePoints(e.escape);
    return Of(LikeMatch(CodePoints(v.bytes), 0, CodePoints(e.pattern), 0, e.has_escape, esc.empty() ? 0 : esc[0]));
  }

  // Functions (filter expressions section 6): string functions on strings and symbols; positions
  // and lengths count code points; SUBSTRING is 1-based. Anything else is UNKNOWN.
  RefValue Call(const RefExpr& e) {
    if (e.function == "UTC") {
      // The evaluation's clock reading, a timestamp (EvalContext::SetNow fixes it in tests).
      RefValue now;
      now.kind = RefValue::Kind::kExact;
      now.exact = now_ms_;
      return now;
    }
    std::vector<RefValue> args;
    for (const RefExpr& k : e.kids) args.push_back(Scalar(k));
    for (const RefValue& a : args) {
      if (a.kind == RefValue::Kind::kAbsent) return RefValue();
    }
    if (args.empty() || args[0].kind != RefValue::Kind::kText) return RefValue();
    RefValue out;
    out.kind = RefValue::Kind::kText;
    if (e.function == "LOWER" || e.function == "UPPER") {
      // ASCII letters only (docs/selector-semantics.md "Functions").
      out.bytes = args[0].bytes;
      for (char& c : out.bytes) {
        if (e.function == "LOWER" && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (e.function == "UPPER" && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
      return out;
    }
    // Counts and positions must be of an integer type (not float, decimal or timestamp).
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i].kind != RefValue::Kind::kExact || !args[i].integer_type) return RefValue();
    }
    std::vector<uint32_t> cps = CodePoints(args[0].bytes);
    __int128 len = static_cast<__int128>(cps.size());
    if (e.function == "LEFT" || e.function == "RIGHT") {
      __int128 n = args[1].exact;
      if (n < 0) return RefValue();
      if (n > len) n = len;
      size_t count = static_cast<size_t>(n);
      out.bytes =
          e.function == "LEFT" ? FromCodePoints(cps, 0, count) : FromCodePoints(cps, cps.size() - count, cps.size());
      return out;
    }
    if (e.function == "SUBSTRING") {
      __int128 start = args[1].exact;
      // Characters at 1-based positions [start, start + length) that exist (SQL); without a length,
      // every character from start on.
      bool has_length = args.size() > 2;
      __int128 count = has_length ? args[2].exact : 0;
      if (count < 0) return RefValue();
      __int128 from = start < 1 ? 1 : start;
      __int128 to = has_length ? start + count : len + 1;
      if (to > len + 1) to = len + 1;
      if (from >= to) {
        out.bytes.clear();
        return out;
      }
      out.bytes = FromCodePoints(cps, static_cast<size_t>(from - 1), static_cast<size_t>(to - 1));
      return out;
    }
    return RefValue();
  }

  const std::vector<FieldRef>* fields_;
  const TestMessage* message_ = nullptr;
  int64_t now_ms_ = 0;
  bool jms_ = false;
};

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_SELECTOR_REFERENCE_EVALUATOR_H_
