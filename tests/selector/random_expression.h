// Seeded random selector expressions and messages, for differential tests against the reference
// evaluator (tests/selector/reference_evaluator.h).
//
// RandomExpressions builds a RefExpr tree from a random grammar over a fixed field list
// (DifferentialFields()) and renders it to selector TEXT, so every pair exercises the lexer and the
// parser as well as evaluation: keywords in random case, fields in all their spellings (`x`, `a.x`,
// `application_properties.x`, `[x]`), both quote styles, minimal or extra parentheses (the renderer
// knows the precedence table of docs/selector-language.md, so a minimally parenthesised text parses
// back to the same tree only if the parser gets precedence and associativity right).
//
// Invariants: everything generated compiles (it never builds what the language rejects for every
// message: arithmetic on a string constant, a non-string LIKE operand constant, a wrong function
// argument constant); the same seed gives the same expressions and messages on every platform
// (std::mt19937_64 with our own range reduction, no <random> distributions).
#ifndef SIFT_TESTS_SELECTOR_RANDOM_EXPRESSION_H_
#define SIFT_TESTS_SELECTOR_RANDOM_EXPRESSION_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "selector/field_source.h"
#include "selector/selector.h"
#include "selector/value.h"
#include "tests/selector/map_field_source.h"
#include "tests/selector/reference_evaluator.h"

namespace sift::selector::testing {

// Indices into DifferentialFields().
enum DiffField : int {
  kFx = 0,    // a.x: a number of a random type (sometimes a string, null or missing)
  kFy,        // a.y: same
  kFz,        // a.z: same
  kFs,        // a.s: a string or symbol (sometimes a number, null or missing)
  kFt,        // a.t: same
  kFb,        // a.b: a boolean (sometimes a number, null or missing)
  kFn,        // a.n: always null
  kFo,        // a.o: a timestamp, char, uuid, binary or decimal64
  kFprio,     // h.priority: ubyte, or absent (reads as the default 4)
  kFsubject,  // p.subject
  kFann,      // m.x-opt-k: a long in a message annotation
  kFlist0,    // a.lst[0]
  kFlist1,    // a.lst[1]
  kFmapk,     // a.mp.k
  kFnone,     // a.none: never present
  kFieldCount,
};

inline const std::vector<FieldRef>& DifferentialFields() {
  static const std::vector<FieldRef> fields = [] {
    auto app = [](const char* n) { return FieldRef{Section::kApplicationProperties, n, {}}; };
    std::vector<FieldRef> f;
    f.push_back(app("x"));
    f.push_back(app("y"));
    f.push_back(app("z"));
    f.push_back(app("s"));
    f.push_back(app("t"));
    f.push_back(app("b"));
    f.push_back(app("n"));
    f.push_back(app("o"));
    f.push_back(FieldRef{Section::kHeader, "priority", {}});
    f.push_back(FieldRef{Section::kProperties, "subject", {}});
    f.push_back(FieldRef{Section::kMessageAnnotations, "x-opt-k", {}});
    PathStep i0;
    i0.kind = PathStep::Kind::kIndex;
    i0.index = 0;
    PathStep i1 = i0;
    i1.index = 1;
    PathStep k;
    k.kind = PathStep::Kind::kKey;
    k.key = "k";
    f.push_back(FieldRef{Section::kApplicationProperties, "lst", {i0}});
    f.push_back(FieldRef{Section::kApplicationProperties, "lst", {i1}});
    f.push_back(FieldRef{Section::kApplicationProperties, "mp", {k}});
    f.push_back(app("none"));
    return f;
  }();
  return fields;
}

class RandomExpressions {
 public:
  explicit RandomExpressions(uint64_t seed) : rng_(seed) {}

  // The dialect the next expressions are generated and rendered for: literal forms differ (`0x0A`
  // is a binary constant in SQL, a hex integer in JMS; `017`, `10L`, `.5`, `1.5f` are JMS only).
  void set_dialect(Dialect dialect) { dialect_ = dialect; }
  Dialect dialect() const { return dialect_; }

  // ---- randomness (portable: our own reduction of mt19937_64 output) ----
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool OneIn(uint64_t n) { return Below(n) == 0; }
  template <typename T, size_t N>
  const T& Pick(const T (&a)[N]) {
    return a[Below(N)];
  }

  // ---- messages ----

  TestMessage Message() {
    TestMessage m;
    auto set = [&](const char* name, std::optional<TestValue> v) {
      if (v) m.Set(Section::kApplicationProperties, name, std::move(*v));
    };
    set("x", NumberOrOther());
    set("y", NumberOrOther());
    set("z", NumberOrOther());
    set("s", TextOrOther());
    set("t", TextOrOther());
    if (!OneIn(5)) {
      uint64_t r = Below(8);
      set("b", r < 6    ? TestValue::Of(Value::Boolean(r % 2 == 0))
               : r == 6 ? TestValue::Of(Value::Null())
                        : TestValue::Of(Value::Long(1)));
    }
    m.Set(Section::kApplicationProperties, "n", TestValue::Of(Value::Null()));
    if (!OneIn(4)) m.Set(Section::kApplicationProperties, "o", OtherValue());
    if (!OneIn(3)) m.Set(Section::kHeader, "priority", TestValue::Of(Value::Unsigned(ValueType::kUByte, Below(10))));
    if (!OneIn(3)) m.Set(Section::kProperties, "subject", TestValue::Bytes(ValueType::kString, Pick(kStrings)));
    if (!OneIn(3)) m.Set(Section::kMessageAnnotations, "x-opt-k", TestValue::Of(Value::Long(SmallInt())));
    if (!OneIn(4)) {
      TestValue list = TestValue::Compound(ValueType::kList);
      std::optional<TestValue> first = NumberOrOther();
      list.elements.push_back(first ? std::move(*first) : TestValue::Of(Value::Null()));
      if (!OneIn(3)) list.elements.push_back(TestValue::Bytes(ValueType::kString, Pick(kStrings)));
      m.Set(Section::kApplicationProperties, "lst", std::move(list));
    }
    if (!OneIn(4)) {
      TestValue map = TestValue::Compound(ValueType::kMap);
      if (!OneIn(4)) {
        map.entries.emplace_back(
            TestValue::Bytes(OneIn(2) ? ValueType::kString : ValueType::kSymbol, "k"),
            OneIn(2) ? TestValue::Of(Value::Long(SmallInt())) : TestValue::Bytes(ValueType::kString, Pick(kStrings)));
      }
      map.entries.emplace_back(TestValue::Bytes(ValueType::kString, "other"), TestValue::Of(Value::Long(7)));
      m.Set(Section::kApplicationProperties, "mp", std::move(map));
    }
    return m;
  }

  // ---- expressions ----

  // A random predicate of nesting at most `depth`.
  RefExpr Predicate(int depth) {
    uint64_t r = Below(depth <= 0 ? 6 : 16);
    switch (r) {
      case 0:
      case 1:
      case 2: return Comparison(depth);
      case 3: return Like(depth);
      case 4: return IsNull(depth);
      case 5: return OneIn(2) ? In(depth) : Between(depth);
      case 6:
      case 7:
      case 8: return Logical(RefKind::kAnd, depth);
      case 9:
      case 10: return Logical(RefKind::kOr, depth);
      case 11: {
        RefExpr e;
        e.kind = RefKind::kNot;
        e.kids.push_back(Predicate(depth - 1));
        return e;
      }
      case 12: return Exists();
      case 13: {
        // A boolean field or constant as a condition.
        if (OneIn(3)) {
          bool b = OneIn(2);
          return Literal(TestValue::Of(Value::Boolean(b)), b ? Pick({"TRUE", "true"}) : Pick({"FALSE", "False"}));
        }
        return Field(kFb);
      }
      default: return Comparison(depth);
    }
  }

  // Renders `e` as selector text; `minimal` omits parentheses the precedence table makes redundant.
  std::string Render(const RefExpr& e) {
    std::string out;
    RenderInto(e, &out, 0);
    return out;
  }

 private:
  static constexpr const char* kStrings[] = {"",           "a", "ab",   "abc", "A",   "Abc",  "red",  "blue",
                                             "orders.new", "é", "日本", "a%b", "a_b", "it's", "x\"y", "1"};

  int64_t SmallInt() {
    static constexpr int64_t kInts[] = {0, 1, 2, 3, -1, -2, 5, 10, 100, 127, 255, 1000, -128};
    return Pick(kInts);
  }

  std::optional<TestValue> NumberOrOther() {
    uint64_t r = Below(24);
    if (r == 0) return std::nullopt;
    if (r == 1) return TestValue::Of(Value::Null());
    if (r == 2) return TestValue::Bytes(ValueType::kString, Pick(kStrings));
    if (r == 3) return TestValue::Of(Value::Boolean(OneIn(2)));
    if (r == 4 && OneIn(2)) {
      static constexpr double kSpecial[] = {HUGE_VAL, -HUGE_VAL, -0.0, 1e308};
      return OneIn(3) ? TestValue::Of(Value::Double(std::nan(""))) : TestValue::Of(Value::Double(kSpecial[Below(4)]));
    }
    int64_t v = SmallInt();
    if (OneIn(40)) v = OneIn(2) ? INT64_MAX : INT64_MIN;
    // |v| without overflow (|INT64_MIN| = 2^63 fits in uint64).
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    switch (Below(10)) {
      case 0: return TestValue::Of(Value::Signed(ValueType::kByte, static_cast<int8_t>(v)));
      case 1: return TestValue::Of(Value::Signed(ValueType::kShort, static_cast<int16_t>(v)));
      case 2: return TestValue::Of(Value::Signed(ValueType::kInt, static_cast<int32_t>(v)));
      case 3:
      case 4: return TestValue::Of(Value::Long(v));
      case 5: return TestValue::Of(Value::Unsigned(ValueType::kUByte, static_cast<uint8_t>(magnitude)));
      case 6: return TestValue::Of(Value::Unsigned(ValueType::kUInt, static_cast<uint32_t>(magnitude)));
      case 7: return TestValue::Of(Value::Unsigned(ValueType::kULong, OneIn(20) ? UINT64_MAX : magnitude));
      case 8: return TestValue::Of(Value::Float(static_cast<float>(v) + (OneIn(2) ? 0.5f : 0.0f)));
      default: return TestValue::Of(Value::Double(static_cast<double>(v) + (OneIn(2) ? 0.5 : 0.0)));
    }
  }

  std::optional<TestValue> TextOrOther() {
    uint64_t r = Below(12);
    if (r == 0) return std::nullopt;
    if (r == 1) return TestValue::Of(Value::Null());
    if (r == 2) return TestValue::Of(Value::Long(SmallInt()));
    if (r == 3) {
      static constexpr uint32_t kChars[] = {'a', 'A', 0xE9, 0x65E5, '%'};
      return TestValue::Of(Value::Char(kChars[Below(5)]));
    }
    return TestValue::Bytes(OneIn(4) ? ValueType::kSymbol : ValueType::kString, Pick(kStrings));
  }

  TestValue OtherValue() {
    switch (Below(5)) {
      case 0: return TestValue::Of(Value::Timestamp(OneIn(2) ? 1000 : 2000));
      case 1: return TestValue::Of(Value::Char(OneIn(2) ? 'a' : 0xE9));
      case 2: return TestValue::Bytes(ValueType::kUuid, std::string(16, OneIn(2) ? '\x01' : '\x02'));
      case 3: return TestValue::Bytes(ValueType::kBinary, OneIn(2) ? std::string("\x01\x02", 2) : std::string("ab"));
      default:
        // decimal64 1 or 2.5 (BID: coefficient 1 exponent 0, coefficient 25 exponent -1).
        return TestValue::Bytes(ValueType::kDecimal64, OneIn(2) ? std::string("\x31\xC0\0\0\0\0\0\x01", 8)
                                                                : std::string("\x31\xA0\0\0\0\0\0\x19", 8));
    }
  }

  static RefExpr Literal(TestValue v, std::string text) {
    RefExpr e;
    e.kind = RefKind::kLiteral;
    e.literal = std::move(v);
    e.text = std::move(text);
    return e;
  }
  static RefExpr Field(int index) {
    RefExpr e;
    e.kind = RefKind::kField;
    e.field = index;
    return e;
  }

  // A string literal: '...', or in the SQL dialect sometimes "..." (in the JMS dialect "..." is a
  // quoted identifier).
  std::string Quote(const std::string& s) {
    char q = dialect_ == Dialect::kSql && OneIn(4) ? '"' : '\'';
    std::string out(1, q);
    for (char c : s) {
      out += c;
      if (c == q) out += c;
    }
    out += q;
    return out;
  }

  RefExpr NumberLiteral() {
    switch (Below(10)) {
      case 0: {
        RefExpr e = Literal(TestValue::Of(Value::Double(2.5)), Pick({"2.5", "2.50", "25E-1", "0.25e1"}));
        e.jms_text = Pick({"2.5f", "2.5F", "2.5d", "25e-1D"});
        return e;
      }
      case 1: {
        RefExpr e = Literal(TestValue::Of(Value::Double(1.0)), Pick({"1.0", "1E0", "10e-1"}));
        e.jms_text = Pick({"1.", "1.f", "1D"});
        return e;
      }
      case 2: {
        RefExpr e = Literal(TestValue::Of(Value::Double(0.5)), Pick({"0.5", "5E-1"}));
        e.jms_text = Pick({".5", ".5f", "5.e-1"});
        return e;
      }
      case 3: return Literal(TestValue::Of(Value::Double(100.0)), Pick({"1E2", "100.0", "1.0E+2"}));
      case 4:
        if (OneIn(3)) return Literal(TestValue::Of(Value::Double(std::nan(""))), Pick({"NAN", "NaN", "nan"}));
        if (OneIn(2)) return Literal(TestValue::Of(Value::Double(HUGE_VAL)), Pick({"INF", "Inf"}));
        return Literal(TestValue::Of(Value::Unsigned(ValueType::kULong, UINT64_MAX)), "18446744073709551615");
      default: {
        int64_t v = SmallInt();
        if (v < 0) v = -v;  // a leading '-' is a unary operator, generated as such
        RefExpr e = Literal(TestValue::Of(Value::Long(v)), std::to_string(v));
        char buf[32];
        switch (Below(3)) {
          case 0: std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v)); break;
          case 1: std::snprintf(buf, sizeof buf, v == 0 ? "0" : "0%llo", static_cast<unsigned long long>(v)); break;
          default: std::snprintf(buf, sizeof buf, "%lld%s", static_cast<long long>(v), OneIn(2) ? "L" : "l"); break;
        }
        e.jms_text = buf;
        return e;
      }
    }
  }
  template <size_t N>
  std::string Pick(const char* const (&a)[N]) {
    return a[Below(N)];
  }
  std::string Pick(std::initializer_list<const char*> a) { return *(a.begin() + Below(a.size())); }

  RefExpr StringLiteral() {
    std::string s = Pick(kStrings);
    return Literal(TestValue::Bytes(ValueType::kString, s), Quote(s));
  }

  static bool IsNumericField(int f) {
    return f == kFx || f == kFy || f == kFz || f == kFprio || f == kFann || f == kFlist0 || f == kFmapk || f == kFnone;
  }
  int AnyField() { return static_cast<int>(Below(kFieldCount)); }
  int NumericField() {
    static constexpr int kNum[] = {kFx, kFy, kFz, kFx, kFy, kFprio, kFann, kFlist0, kFmapk, kFnone, kFs};
    return Pick(kNum);
  }
  int TextField() {
    static constexpr int kText[] = {kFs, kFt, kFs, kFt, kFsubject, kFlist1, kFmapk, kFnone, kFx};
    return Pick(kText);
  }

  // A numeric-valued expression (statically never a string, boolean or binary).
  RefExpr Numeric(int depth) {
    uint64_t r = Below(depth <= 0 ? 3 : 7);
    if (r == 0 && OneIn(12)) {
      RefExpr e;  // UTC(): a timestamp (a number)
      e.kind = RefKind::kFunction;
      e.function = "UTC";
      return e;
    }
    if (r == 0 || r == 1) return Field(NumericField());
    if (r == 2) return NumberLiteral();
    if (r == 3) {
      RefExpr e;
      e.kind = OneIn(5) ? RefKind::kPlus : RefKind::kNegate;
      e.kids.push_back(Numeric(depth - 1));
      return e;
    }
    RefExpr e;
    e.kind = RefKind::kArith;
    static constexpr const char* kOps[] = {"+", "-", "*", "/", "%"};
    e.op = Pick(kOps);
    e.kids.push_back(Numeric(depth - 1));
    e.kids.push_back(Numeric(depth - 1));
    return e;
  }

  // A string-valued expression (statically never a number, boolean or binary).
  RefExpr Text(int depth) {
    uint64_t r = Below(depth <= 0 ? 3 : 6);
    if (r == 0 || r == 1) return Field(TextField());
    if (r == 2) return StringLiteral();
    if (r == 3) {
      RefExpr e;
      e.kind = RefKind::kArith;
      e.op = "+";
      e.kids.push_back(Text(depth - 1));
      e.kids.push_back(Text(depth - 1));
      return e;
    }
    RefExpr e;
    e.kind = RefKind::kFunction;
    static constexpr const char* kFns[] = {"LOWER", "UPPER", "LEFT", "RIGHT", "SUBSTRING", "SUBSTRING"};
    e.function = Pick(kFns);
    e.kids.push_back(Text(depth - 1));
    auto count = [&] {
      if (OneIn(3)) return Field(NumericField());
      int64_t v = static_cast<int64_t>(Below(6));
      return Literal(TestValue::Of(Value::Long(v)), std::to_string(v));
    };
    if (e.function == "LEFT" || e.function == "RIGHT") e.kids.push_back(count());
    if (e.function == "SUBSTRING") {
      e.kids.push_back(count());
      if (OneIn(2)) e.kids.push_back(count());
    }
    return e;
  }

  RefExpr AnyValue(int depth) {
    switch (Below(10)) {
      case 0:
      case 1:
      case 2:
      case 3: return Numeric(depth);
      case 4:
      case 5:
      case 6: return Text(depth);
      case 7: return Field(AnyField());
      case 8: return Literal(TestValue::Of(Value::Boolean(OneIn(2))), "");
      default:
        if (dialect_ == Dialect::kSql && OneIn(3)) {
          // A binary constant (SQL dialect only; in JMS 0x... is a hex integer).
          return OneIn(2) ? Literal(TestValue::Bytes(ValueType::kBinary, std::string("\x01\x02", 2)), "0x0102")
                          : Literal(TestValue::Bytes(ValueType::kBinary, "ab"), Pick({"0x6162", "0X6162"}));
        }
        return Field(kFo);
    }
  }

  RefExpr Comparison(int depth) {
    RefExpr e;
    e.kind = RefKind::kCompare;
    static constexpr const char* kOps[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
    e.op = Pick(kOps);
    uint64_t r = Below(5);
    if (r == 4 && depth > 0) {
      // A condition used as a value, compared with a boolean or another condition.
      e.op = OneIn(2) ? "=" : "<>";
      e.kids.push_back(Predicate(depth - 1));
      if (OneIn(2)) {
        e.kids.push_back(Predicate(depth - 1));
      } else {
        e.kids.push_back(Literal(TestValue::Of(Value::Boolean(OneIn(2))), ""));
      }
    } else if (r == 0) {
      e.kids.push_back(Numeric(depth - 1));
      e.kids.push_back(Numeric(depth - 1));
    } else if (r == 1) {
      e.kids.push_back(Text(depth - 1));
      e.kids.push_back(Text(depth - 1));
    } else {
      e.kids.push_back(AnyValue(depth - 1));
      e.kids.push_back(AnyValue(depth - 1));
    }
    for (RefExpr& k : e.kids) {
      if (k.kind == RefKind::kLiteral && k.text.empty()) k.text = k.literal.scalar.boolean ? "TRUE" : "FALSE";
    }
    return e;
  }

  RefExpr Like(int depth) {
    RefExpr e;
    e.kind = RefKind::kLike;
    e.negated = OneIn(3);
    e.kids.push_back(Text(depth - 1));
    static constexpr const char* kPieces[] = {"a", "b", "c", "%", "_", ".", "é", "日", "'", "*", "A", "%", "_"};
    size_t n = Below(6);
    e.has_escape = OneIn(4);
    e.escape = e.has_escape ? (OneIn(2) ? "!" : "\\") : "";
    for (size_t i = 0; i < n; ++i) {
      if (e.has_escape && OneIn(4)) {
        static constexpr const char* kEscaped[] = {"%", "_", "!"};
        std::string target = Pick(kEscaped);
        if (target == "!") target = e.escape;
        e.pattern += e.escape + target;
      } else {
        e.pattern += Pick(kPieces);
      }
    }
    return e;
  }

  RefExpr IsNull(int depth) {
    RefExpr e;
    e.kind = RefKind::kIsNull;
    e.negated = OneIn(2);
    uint64_t r = Below(6);
    // Mostly fields; also computed values and conditions used as values (NULL for UNKNOWN).
    e.kids.push_back(r == 0 ? Numeric(depth - 1) : r == 1 ? Predicate(depth - 1) : Field(AnyField()));
    return e;
  }

  RefExpr Exists() {
    RefExpr e;
    e.kind = RefKind::kExists;
    e.field = AnyField();
    return e;
  }

  RefExpr In(int depth) {
    RefExpr e;
    e.kind = RefKind::kIn;
    e.negated = OneIn(3);
    bool text = OneIn(2);
    e.kids.push_back(text ? Text(depth - 1) : Numeric(depth - 1));
    size_t n = 1 + Below(4);
    for (size_t i = 0; i < n; ++i) {
      uint64_t r = Below(6);
      if (r == 0) {
        e.kids.push_back(AnyValue(0));
      } else if (text == (r % 2 == 0)) {
        e.kids.push_back(StringLiteral());
      } else {
        e.kids.push_back(NumberLiteral());
      }
      RefExpr& k = e.kids.back();
      if (k.kind == RefKind::kLiteral && k.text.empty()) k.text = k.literal.scalar.boolean ? "TRUE" : "FALSE";
    }
    return e;
  }

  RefExpr Between(int depth) {
    RefExpr e;
    e.kind = RefKind::kBetween;
    e.negated = OneIn(3);
    bool text = OneIn(3);
    for (int i = 0; i < 3; ++i) e.kids.push_back(text ? Text(depth - 1) : Numeric(depth - 1));
    return e;
  }

  RefExpr Logical(RefKind kind, int depth) {
    RefExpr e;
    e.kind = kind;
    e.kids.push_back(Predicate(depth - 1));
    e.kids.push_back(Predicate(depth - 1));
    return e;
  }

  // ---- rendering ----

  std::string Keyword(const char* upper) {
    std::string k = upper;
    uint64_t r = Below(6);
    if (r == 0) {
      for (char& c : k) c = static_cast<char>(c - 'A' + 'a');
    } else if (r == 1) {
      for (size_t i = 1; i < k.size(); ++i) {
        if (k[i] >= 'A' && k[i] <= 'Z') k[i] = static_cast<char>(k[i] - 'A' + 'a');
      }
    }
    return k;
  }

  std::string FieldText(int f) {
    switch (f) {
      case kFprio: return Pick({"h.priority", "header.priority"});
      case kFsubject: return Pick({"p.subject", "properties.subject"});
      case kFann: return Pick({"m.[x-opt-k]", "message_annotations.[x-opt-k]"});
      case kFlist0: return Pick({"a.lst[0]", "application_properties.lst[0]"});
      case kFlist1: return Pick({"a.lst[1]", "a.[lst][1]"});
      case kFmapk: return Pick({"a.mp.k", "a.mp.[k]"});
      default: {
        std::string n = DifferentialFields()[f].name;
        switch (Below(6)) {
          case 0: return "a." + n;
          case 1: return "application_properties." + n;
          case 2: return "[" + n + "]";
          case 3: return "a.[" + n + "]";
          default: return n;
        }
      }
    }
  }

  // Precedence levels (docs/selector-language.md, "Grammar and precedence"):
  // OR 1 < AND 2 < NOT 3 < comparison 4 < + - 5 < * / % 6 < unary 7.
  static int Level(const RefExpr& e) {
    switch (e.kind) {
      case RefKind::kOr: return 1;
      case RefKind::kAnd: return 2;
      case RefKind::kNot: return 3;
      case RefKind::kCompare:
      case RefKind::kLike:
      case RefKind::kIn:
      case RefKind::kBetween:
      case RefKind::kIsNull:
      case RefKind::kExists: return 4;
      case RefKind::kArith: return (e.op == "+" || e.op == "-") ? 5 : 6;
      case RefKind::kNegate:
      case RefKind::kPlus: return 7;
      default: return 8;
    }
  }

  // Writes `e`, parenthesised when its level is below `min_level` (or, sometimes, anyway).
  void RenderInto(const RefExpr& e, std::string* out, int min_level) {
    bool paren = Level(e) < min_level || (Level(e) < 8 && OneIn(12));
    if (paren) *out += OneIn(4) ? "( " : "(";
    auto sp = [&] { *out += OneIn(8) ? "  " : " "; };
    int level = Level(e);
    switch (e.kind) {
      case RefKind::kLiteral:
        *out += dialect_ == Dialect::kJms && !e.jms_text.empty() && OneIn(2) ? e.jms_text : e.text;
        break;
      case RefKind::kField: *out += FieldText(e.field); break;
      case RefKind::kNegate:
      case RefKind::kPlus:
        *out += e.kind == RefKind::kNegate ? "-" : "+";
        // Never "--" or "-+" next to each other: keep unary operands above the unary level.
        RenderInto(e.kids[0], out, 8);
        break;
      case RefKind::kArith:
      case RefKind::kCompare:
        // Left-associative: the left operand may sit at the same level, the right one may not.
        // Comparisons are not associative at all: both operands above the comparison level.
        RenderInto(e.kids[0], out, e.kind == RefKind::kCompare ? level + 1 : level);
        sp();
        *out += e.op;
        sp();
        RenderInto(e.kids[1], out, level + 1);
        break;
      case RefKind::kAnd:
      case RefKind::kOr:
        RenderInto(e.kids[0], out, level);
        sp();
        *out += Keyword(e.kind == RefKind::kAnd ? "AND" : "OR");
        sp();
        RenderInto(e.kids[1], out, level + 1);
        break;
      case RefKind::kNot:
        *out += Keyword("NOT");
        sp();
        RenderInto(e.kids[0], out, level);
        break;
      case RefKind::kLike: {
        RenderInto(e.kids[0], out, 5);
        sp();
        if (e.negated) *out += Keyword("NOT") + " ";
        *out += Keyword("LIKE");
        sp();
        *out += Quote(e.pattern);
        if (e.has_escape) {
          *out += " " + Keyword("ESCAPE") + " ";
          *out += Quote(e.escape);
        }
        break;
      }
      case RefKind::kIn: {
        RenderInto(e.kids[0], out, 5);
        sp();
        if (e.negated) *out += Keyword("NOT") + " ";
        *out += Keyword("IN");
        *out += OneIn(2) ? " (" : "(";
        for (size_t i = 1; i < e.kids.size(); ++i) {
          if (i > 1) *out += OneIn(2) ? ", " : ",";
          RenderInto(e.kids[i], out, 5);
        }
        *out += ")";
        break;
      }
      case RefKind::kBetween:
        RenderInto(e.kids[0], out, 5);
        sp();
        if (e.negated) *out += Keyword("NOT") + " ";
        *out += Keyword("BETWEEN") + " ";
        RenderInto(e.kids[1], out, 5);
        *out += " " + Keyword("AND") + " ";
        RenderInto(e.kids[2], out, 5);
        break;
      case RefKind::kIsNull:
        RenderInto(e.kids[0], out, 5);
        *out += " " + Keyword("IS") + " ";
        if (e.negated) *out += Keyword("NOT") + " ";
        *out += Keyword("NULL");
        break;
      case RefKind::kExists:
        *out += Keyword("EXISTS") + (OneIn(3) ? " (" + FieldText(e.field) + ")" : " " + FieldText(e.field));
        break;
      case RefKind::kFunction:
        *out += Keyword(e.function.c_str());
        *out += "(";
        for (size_t i = 0; i < e.kids.size(); ++i) {
          if (i > 0) *out += ", ";
          RenderInto(e.kids[i], out, 0);
        }
        *out += ")";
        break;
    }
    if (paren) *out += OneIn(4) ? " )" : ")";
  }

  std::mt19937_64 rng_;
  Dialect dialect_ = Dialect::kSql;
};

// ---------------------------------------------------------------------------------------------
// The differential run shared by differential_test.cc and differential_heavy_test.cc.

// "a.x = long 5, p.subject = string \"abc\", ..." for failure reports.
inline std::string DescribeValue(const TestValue& v) {
  std::string out(ValueTypeName(v.type));
  switch (v.type) {
    case ValueType::kMissing:
    case ValueType::kNull: break;
    case ValueType::kBoolean: out += v.scalar.boolean ? " true" : " false"; break;
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong: out += " " + std::to_string(v.scalar.u64); break;
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong:
    case ValueType::kTimestamp: out += " " + std::to_string(v.scalar.i64); break;
    case ValueType::kFloat:
    case ValueType::kDouble: out += " " + std::to_string(v.scalar.f64); break;
    case ValueType::kChar: out += " U+" + std::to_string(v.scalar.u32); break;
    case ValueType::kString:
    case ValueType::kSymbol: out += " \"" + v.bytes + "\""; break;
    case ValueType::kList:
    case ValueType::kArray: {
      out += " [";
      for (size_t i = 0; i < v.elements.size(); ++i) out += (i ? ", " : "") + DescribeValue(v.elements[i]);
      out += "]";
      break;
    }
    case ValueType::kMap: {
      out += " {";
      for (size_t i = 0; i < v.entries.size(); ++i) {
        out += (i ? ", " : "") + DescribeValue(v.entries[i].first) + ": " + DescribeValue(v.entries[i].second);
      }
      out += "}";
      break;
    }
    default: {
      static const char* kHex = "0123456789abcdef";
      out += " 0x";
      for (unsigned char c : v.bytes) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    }
  }
  return out;
}

inline std::string DescribeMessage(const TestMessage& m) {
  static const char* kSections[] = {"h", "d", "m", "p", "a", "data", "sequence", "value", "f"};
  std::string out;
  for (const auto& [key, value] : m.fields()) {
    if (!out.empty()) out += ", ";
    out += std::string(kSections[static_cast<int>(key.first)]) + "." + key.second + " = " + DescribeValue(value);
  }
  return out.empty() ? "(no fields)" : out;
}

struct DifferentialResult {
  uint64_t pairs = 0;
  uint64_t disagreements = 0;
  uint64_t compile_errors = 0;     // generated expressions the implementation refused (each a disagreement)
  uint64_t outcomes[3] = {};       // reference answers: FALSE, TRUE, UNKNOWN (to show the mix is varied)
  std::vector<std::string> first;  // the first few disagreements, described
};

inline const char* TruthText(Truth t) { return t == Truth::kTrue ? "TRUE" : t == Truth::kFalse ? "FALSE" : "UNKNOWN"; }

// Compiles `expressions` random expressions and evaluates each on `messages` random messages, both
// through Selector::Evaluate (over MapFieldSource) and the reference; counts the disagreements.
// The instant UTC() stands for in differential runs: the timestamps of the generated messages (1000,
// 2000) and small numbers compare with it in both directions once arithmetic is applied.
constexpr int64_t kDifferentialNow = 1500;

inline DifferentialResult RunDifferential(uint64_t seed, int expressions, int messages, size_t keep = 10) {
  DifferentialResult result;
  RandomExpressions gen(seed);
  ReferenceEvaluator reference(&DifferentialFields());
  reference.set_now(kDifferentialNow);
  EvalContext context;
  context.SetNow(kDifferentialNow);
  auto note = [&](std::string what) {
    if (result.first.size() < keep) result.first.push_back(std::move(what));
  };
  for (int i = 0; i < expressions; ++i) {
    CompileOptions options;
    options.dialect = gen.OneIn(5) ? Dialect::kJms : Dialect::kSql;
    gen.set_dialect(options.dialect);
    reference.set_jms(options.dialect == Dialect::kJms);
    RefExpr e = gen.Predicate(1 + static_cast<int>(gen.Below(5)));
    std::string text = gen.Render(e);
    Selector selector = Selector::Compile(text, options);
    if (!selector.ok()) {
      ++result.compile_errors;
      result.disagreements += messages;
      result.pairs += messages;
      note("`" + text + "`: refused: " + selector.error().ToString());
      continue;
    }
    MapFieldSource source(selector.fields());
    for (int j = 0; j < messages; ++j) {
      TestMessage message = gen.Message();
      source.Reset(&message);
      Truth want = reference.Evaluate(e, message);
      Truth got = selector.Evaluate(source, context);
      ++result.pairs;
      ++result.outcomes[static_cast<int>(want)];
      if (got != want) {
        ++result.disagreements;
        note("`" + text + "`" + (options.dialect == Dialect::kJms ? " (jms)" : "") + " on {" +
             DescribeMessage(message) + "}: selector " + TruthText(got) + ", reference " + TruthText(want));
      }
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Property filters (filter expressions section 4.1), against their own reference reading.

// Whether `value` matches the reference `ref` of a property filter (4.1.1;
// docs/selector-semantics.md "Property filters"): a null reference matches anything; otherwise an
// absent or null value does not match; a string reference starting with &p: / &s: matches text
// (string or symbol) by prefix / suffix, && stands for a literal &; numbers match when equal (two
// integers exactly, otherwise as doubles); text by bytes; other values within their class by value.
inline bool ReferencePropertyMatch(const TestValue* value, const TestValue& ref) {
  if (ref.type == ValueType::kNull) return true;
  if (value == nullptr || value->type == ValueType::kNull) return false;
  if (ref.type == ValueType::kString && !ref.bytes.empty() && ref.bytes[0] == '&') {
    const std::string& r = ref.bytes;
    bool text = value->type == ValueType::kString || value->type == ValueType::kSymbol;
    if (r.compare(0, 3, "&p:") == 0) {
      std::string lit = r.substr(3);
      return text && value->bytes.compare(0, lit.size(), lit) == 0 && value->bytes.size() >= lit.size();
    }
    if (r.compare(0, 3, "&s:") == 0) {
      std::string lit = r.substr(3);
      return text && value->bytes.size() >= lit.size() &&
             value->bytes.compare(value->bytes.size() - lit.size(), lit.size(), lit) == 0;
    }
    if (r.compare(0, 2, "&&") != 0) return false;  // compiles to an error instead
    RefValue text_value = FromTestValue(value);    // "&&abc" stands for the text "&abc"
    return text_value.kind == RefValue::Kind::kText && text_value.bytes == r.substr(1);
  }
  RefValue a = FromTestValue(value), b = FromTestValue(&ref);
  bool a_num = a.kind == RefValue::Kind::kExact || a.kind == RefValue::Kind::kApprox;
  bool b_num = b.kind == RefValue::Kind::kExact || b.kind == RefValue::Kind::kApprox;
  if (a_num && b_num) {
    if (a.kind == RefValue::Kind::kExact && b.kind == RefValue::Kind::kExact) return a.exact == b.exact;
    double x = a.kind == RefValue::Kind::kExact ? static_cast<double>(a.exact) : a.approx;
    double y = b.kind == RefValue::Kind::kExact ? static_cast<double>(b.exact) : b.approx;
    return x == y;
  }
  if (a.kind != b.kind) return false;
  if (a.kind == RefValue::Kind::kBool) return a.boolean == b.boolean;
  if (a.kind == RefValue::Kind::kText || a.kind == RefValue::Kind::kBinary || a.kind == RefValue::Kind::kUuid) {
    return a.bytes == b.bytes;
  }
  return false;
}

// Random application-properties and properties filters over the differential message fields,
// compiled with Selector::Compile*Filter (and AllOf when both kinds are present), evaluated on random
// messages and compared with ReferencePropertyMatch. Counts as RunDifferential does.
inline DifferentialResult RunPropertyFilterDifferential(uint64_t seed, int filters, int messages, size_t keep = 10) {
  DifferentialResult result;
  RandomExpressions gen(seed);
  EvalContext context;
  static constexpr const char* kAppNames[] = {"x", "y", "s", "t", "b", "n", "o", "none"};
  static constexpr const char* kPrefixes[] = {"&p:", "&s:", "&&", ""};
  for (int i = 0; i < filters; ++i) {
    // Reference values: drawn from the same distributions as message values, so they often match.
    TestMessage donor = gen.Message();
    std::vector<std::pair<std::string, TestValue>> app, props;
    size_t n = 1 + gen.Below(3);
    for (size_t k = 0; k < n; ++k) {
      std::string name = kAppNames[gen.Below(8)];
      const TestValue* v = donor.Find(Section::kApplicationProperties, name);
      TestValue ref = v != nullptr ? *v : TestValue::Of(Value::Null());
      if (ref.type == ValueType::kString && gen.OneIn(2)) {
        std::string prefix = kPrefixes[gen.Below(4)];
        size_t cut = ref.bytes.empty() ? 0 : gen.Below(ref.bytes.size() + 1);
        // A prefix or suffix of the donor text (whole code points: cut only at ASCII boundaries).
        while (cut > 0 && cut < ref.bytes.size() && (static_cast<unsigned char>(ref.bytes[cut]) & 0xC0) == 0x80) --cut;
        std::string part = prefix == "&s:" ? ref.bytes.substr(cut) : ref.bytes.substr(0, cut);
        ref.bytes = prefix + part;
      } else if (ref.type == ValueType::kString && !ref.bytes.empty() && ref.bytes[0] == '&') {
        ref.bytes = "&" + ref.bytes;  // keep it a plain text reference
      }
      if (ref.type == ValueType::kList || ref.type == ValueType::kMap) ref = TestValue::Of(Value::Null());
      app.emplace_back(name, std::move(ref));
    }
    if (gen.OneIn(3)) {
      const TestValue* v = donor.Find(Section::kProperties, "subject");
      TestValue ref = v != nullptr ? *v : TestValue::Of(Value::Null());
      if (ref.type == ValueType::kString && !ref.bytes.empty() && ref.bytes[0] == '&') ref.bytes = "&" + ref.bytes;
      props.emplace_back("subject", std::move(ref));
    }
    std::vector<std::pair<std::string, Value>> app_views, prop_views;
    for (const auto& [name, ref] : app) app_views.emplace_back(name, ref.view());
    for (const auto& [name, ref] : props) prop_views.emplace_back(name, ref.view());
    std::vector<Selector> parts;
    parts.push_back(Selector::CompileApplicationPropertiesFilter(app_views));
    if (!props.empty()) parts.push_back(Selector::CompilePropertiesFilter(prop_views));
    Selector selector = parts.size() == 1 ? parts[0] : Selector::AllOf(parts);
    std::string text;
    for (const auto& [name, ref] : app) text += (text.empty() ? "a." : ", a.") + name + " ~ " + DescribeValue(ref);
    for (const auto& [name, ref] : props) text += ", p." + name + " ~ " + DescribeValue(ref);
    if (!selector.ok()) {
      ++result.compile_errors;
      result.disagreements += messages;
      result.pairs += messages;
      if (result.first.size() < keep) result.first.push_back("{" + text + "}: refused: " + selector.error().ToString());
      continue;
    }
    MapFieldSource source(selector.fields());
    for (int j = 0; j < messages; ++j) {
      TestMessage message = gen.Message();
      bool want = true;
      for (const auto& [name, ref] : app)
        want = want && ReferencePropertyMatch(message.Find(Section::kApplicationProperties, name), ref);
      for (const auto& [name, ref] : props)
        want = want && ReferencePropertyMatch(message.Find(Section::kProperties, name), ref);
      source.Reset(&message);
      Truth got = selector.Evaluate(source, context);
      Truth expected = want ? Truth::kTrue : Truth::kFalse;
      ++result.pairs;
      ++result.outcomes[static_cast<int>(expected)];
      if (got != expected) {
        ++result.disagreements;
        if (result.first.size() < keep) {
          result.first.push_back("filter {" + text + "} on {" + DescribeMessage(message) + "}: selector " +
                                 TruthText(got) + ", reference " + TruthText(expected));
        }
      }
    }
  }
  return result;
}

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_SELECTOR_RANDOM_EXPRESSION_H_
