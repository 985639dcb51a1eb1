// The compiler (see compiler.h).
#include "selector/compiler.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "base/amqp_fields.h"
#include "selector/compare.h"

namespace sift::selector {
namespace {

// The source constant folding evaluates against: it has no fields (folding never touches one).
class NoFieldSource final : public FieldSource {
 public:
  Value Get(uint32_t) override { return Value::Missing(); }
};

bool HasBytes(ValueType t) {
  switch (t) {
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

}  // namespace

// Builds a Program. A friend of Program: it fills the private arrays and uses the evaluator to fold.
class ProgramBuilder {
 public:
  ProgramBuilder(Program* program, Error* error) : p_(program), error_(error) {}

  // The comparison rules of the expression's dialect, for every instruction Lower() emits.
  void set_rules(CompareRules rules) { rules_ = rules; }
  // The limits of the expression (REGEXP_LIKE's memory).
  void set_limits(const Limits& limits) { limits_ = limits; }

  // --- Expressions ---

  bool LowerAst(const Ast& ast, std::string_view text) {
    ast_ = &ast;
    text_ = text;
    p_->fields_ = ast.fields;
    uint32_t root;
    if (!Lower(ast.root, &root)) return false;
    p_->root_ = root;
    return true;
  }

  // --- Shared finishing steps ---

  void Finish() {
    ComputeCosts(p_->root_);
    OrderOperands(p_->root_);
    CompactSlots();
    p_->DeriveRequiredTexts();
  }

  Value Keep(const Value& v) {
    if (!HasBytes(v.type) || v.data == nullptr) {
      Value out = v;
      if (!HasBytes(v.type)) {
        out.data = nullptr;
        out.size = 0;
      }
      return out;
    }
    p_->storage_.emplace_back(v.data, v.size);
    Value out = v;
    out.data = p_->storage_.back().data();
    return out;
  }

  uint32_t Emit(Instr in) {
    p_->instrs_.push_back(std::move(in));
    return static_cast<uint32_t>(p_->instrs_.size() - 1);
  }

  uint32_t EmitConst(const Value& v, uint32_t position) {
    Instr in;
    in.kind = InstrKind::kConst;
    in.constant = Keep(v);
    in.position = position;
    return Emit(std::move(in));
  }

  uint32_t AddChildren(const std::vector<uint32_t>& children) {
    uint32_t first = static_cast<uint32_t>(p_->children_.size());
    p_->children_.insert(p_->children_.end(), children.begin(), children.end());
    return first;
  }

 private:
  bool IsConst(uint32_t i) const { return p_->instrs_[i].kind == InstrKind::kConst; }

  // Evaluates instruction i once (its operands are constants) and turns it into a constant.
  void Fold(uint32_t i) {
    NoFieldSource source;
    EvalContext context(0);
    context.BeginEvaluation();
    Program::Frame frame{source, context};
    Value v = p_->EvalValue(i, frame);
    Instr folded;
    folded.kind = InstrKind::kConst;
    folded.position = p_->instrs_[i].position;
    folded.constant = Keep(v);
    p_->instrs_[i] = folded;
    ++folds_;
  }

  bool Fail(const Node& n, ErrorCode code, std::string message) {
    error_->code = code;
    error_->position = n.position;
    error_->token = std::string(text_.substr(n.position, n.length));
    error_->message = std::move(message);
    return false;
  }

  bool LowerAll(const Node& n, size_t from, std::vector<uint32_t>* out) {
    for (size_t k = from; k < n.children.size(); ++k) {
      uint32_t c;
      if (!Lower(n.children[k], &c)) return false;
      out->push_back(c);
    }
    return true;
  }

  bool AllConst(const std::vector<uint32_t>& v) const {
    return std::all_of(v.begin(), v.end(), [&](uint32_t i) { return IsConst(i); });
  }

  bool Lower(uint32_t index, uint32_t* out) {
    const Node& n = ast_->nodes[index];
    Instr in;
    in.position = n.position;
    in.rules = rules_;
    switch (n.kind) {
      case NodeKind::kLiteral: *out = EmitConst(n.value, n.position); return true;
      case NodeKind::kField:
        in.kind = InstrKind::kField;
        in.slot = n.field;
        *out = Emit(in);
        return true;
      case NodeKind::kExists:
        in.kind = InstrKind::kExists;
        in.slot = n.field;
        *out = Emit(in);
        return true;
      case NodeKind::kUnary: {
        uint32_t a;
        if (!Lower(n.children[0], &a)) return false;
        in.kind = n.op == Op::kNot ? InstrKind::kNot : InstrKind::kUnaryArith;
        in.op = n.op;
        in.a = a;
        *out = Emit(in);
        if (IsConst(a)) Fold(*out);
        return true;
      }
      case NodeKind::kBinary:
        if (n.op == Op::kAnd || n.op == Op::kOr) return LowerLogical(n, out);
        {
          uint32_t a, b;
          if (!Lower(n.children[0], &a) || !Lower(n.children[1], &b)) return false;
          in.op = n.op;
          in.a = a;
          in.b = b;
          bool comparison = n.op == Op::kEq || n.op == Op::kNe || n.op == Op::kLt || n.op == Op::kLe ||
                            n.op == Op::kGt || n.op == Op::kGe;
          in.kind = comparison ? InstrKind::kCompare : InstrKind::kArith;
          *out = Emit(in);
          if (IsConst(a) && IsConst(b)) {
            Fold(*out);
          } else if (comparison) {
            SpecializeComparison(*out);
          }
          return true;
        }
      case NodeKind::kLike: {
        uint32_t a;
        if (!Lower(n.children[0], &a)) return false;
        const Node& pattern = ast_->nodes[n.children[1]];
        std::string_view escape = n.children.size() > 2 ? ast_->nodes[n.children[2]].value.bytes() : std::string_view();
        Error like_error;
        std::unique_ptr<LikeMatcher> matcher = LikeMatcher::Compile(pattern.value.bytes(), escape, &like_error);
        if (!matcher) return Fail(pattern, like_error.code, like_error.message);
        in.kind = InstrKind::kLike;
        in.a = a;
        in.negated = n.negated;
        in.aux = static_cast<uint32_t>(p_->likes_.size());
        p_->likes_.push_back(std::move(matcher));
        *out = Emit(in);
        if (IsConst(a)) Fold(*out);
        return true;
      }
      case NodeKind::kIn: {
        uint32_t a;
        if (!Lower(n.children[0], &a)) return false;
        std::vector<uint32_t> members;
        if (!LowerAll(n, 1, &members)) return false;
        in.a = a;
        in.negated = n.negated;
        if (AllConst(members)) {
          std::vector<Value> values;
          for (uint32_t m : members) values.push_back(p_->instrs_[m].constant);
          in.kind = InstrKind::kInSet;
          in.aux = static_cast<uint32_t>(p_->sets_.size());
          p_->sets_.push_back(std::make_shared<InSet>(values));
        } else {
          in.kind = InstrKind::kIn;
          in.first = AddChildren(members);
          in.count = static_cast<uint32_t>(members.size());
        }
        *out = Emit(in);
        if (IsConst(a) && AllConst(members)) Fold(*out);
        return true;
      }
      case NodeKind::kBetween: {
        uint32_t a, b, c;
        if (!Lower(n.children[0], &a) || !Lower(n.children[1], &b) || !Lower(n.children[2], &c)) return false;
        in.kind = InstrKind::kBetween;
        in.a = a;
        in.b = b;
        in.c = c;
        in.negated = n.negated;
        *out = Emit(in);
        if (IsConst(a) && IsConst(b) && IsConst(c)) Fold(*out);
        return true;
      }
      case NodeKind::kIsNull: {
        uint32_t a;
        if (!Lower(n.children[0], &a)) return false;
        in.kind = InstrKind::kIsNull;
        in.a = a;
        in.negated = n.negated;
        *out = Emit(in);
        if (IsConst(a)) Fold(*out);
        return true;
      }
      case NodeKind::kFunction: {
        if (n.function == Function::kRegexpLike) return LowerRegexp(n, out);
        std::vector<uint32_t> args;
        if (!LowerAll(n, 0, &args)) return false;
        in.kind = InstrKind::kFunction;
        in.function = n.function;
        in.first = AddChildren(args);
        in.count = static_cast<uint32_t>(args.size());
        *out = Emit(in);
        // UTC() reads the clock at evaluation time; every other function of constants is constant.
        if (n.function != Function::kUtc && AllConst(args)) Fold(*out);
        return true;
      }
    }
    return Fail(n, ErrorCode::kSyntax, "unsupported construct");
  }

  // REGEXP_LIKE(s, pattern [, flags]): the semantic checks made sure pattern and flags are string
  // literals re2 compiles within the limit.
  bool LowerRegexp(const Node& n, uint32_t* out) {
    uint32_t a;
    if (!Lower(n.children[0], &a)) return false;
    const Node& pattern = ast_->nodes[n.children[1]];
    std::string_view flags = n.children.size() > 2 ? ast_->nodes[n.children[2]].value.bytes() : std::string_view();
    Error regexp_error;
    bool in_flags = false;
    std::unique_ptr<RegexpMatcher> matcher = RegexpMatcher::Compile(
        pattern.value.bytes(), flags, limits_.max_regexp_memory, limits_.max_regexp_program, &regexp_error, &in_flags);
    if (!matcher) return Fail(pattern, regexp_error.code, regexp_error.message);
    Instr in;
    in.position = n.position;
    in.rules = rules_;
    in.kind = InstrKind::kRegexp;
    in.a = a;
    in.aux = static_cast<uint32_t>(p_->regexps_.size());
    p_->regexps_.push_back(std::move(matcher));
    *out = Emit(in);
    if (IsConst(a)) Fold(*out);
    return true;
  }

  bool LowerLogical(const Node& n, uint32_t* out) {
    const bool is_and = n.op == Op::kAnd;
    const InstrKind kind = is_and ? InstrKind::kAnd : InstrKind::kOr;
    const Truth decides = is_and ? Truth::kFalse : Truth::kTrue;
    std::vector<uint32_t> operands;
    bool has_unknown_constant = false;
    bool decided = false;
    std::function<void(uint32_t)> add = [&](uint32_t c) {
      const Instr& ci = p_->instrs_[c];
      if (ci.kind == kind) {  // flatten (a AND b) AND c
        for (uint32_t k = 0; k < ci.count; ++k) add(p_->children_[ci.first + k]);
        return;
      }
      if (ci.kind == InstrKind::kConst) {
        Truth t = ci.constant.type == ValueType::kBoolean ? (ci.constant.boolean ? Truth::kTrue : Truth::kFalse)
                                                          : Truth::kUnknown;
        if (t == decides) decided = true;
        if (t == Truth::kUnknown) has_unknown_constant = true;
        return;  // a constant that does not decide drops out (UNKNOWN is remembered)
      }
      operands.push_back(c);
    };
    for (uint32_t child : n.children) {
      uint32_t c;
      if (!Lower(child, &c)) return false;
      add(c);
    }
    if (decided) {
      *out = EmitConst(Value::Boolean(decides == Truth::kTrue), n.position);
      ++folds_;
      return true;
    }
    if (has_unknown_constant) {
      operands.push_back(EmitConst(Value::Null(), n.position));
    }
    if (operands.empty()) {
      *out = EmitConst(Value::Boolean(is_and), n.position);
      ++folds_;
      return true;
    }
    if (operands.size() == 1) {
      // One operand left: it is the result when it already yields a truth value (a constant UNKNOWN,
      // a comparison, ...); a field or a computed value keeps the AND / OR, which takes its truth.
      const InstrKind k = p_->instrs_[operands[0]].kind;
      if (k != InstrKind::kField && k != InstrKind::kArith && k != InstrKind::kUnaryArith &&
          k != InstrKind::kFunction) {
        *out = operands[0];
        return true;
      }
    }
    Instr in;
    in.kind = kind;
    in.op = n.op;
    in.position = n.position;
    in.first = AddChildren(operands);
    in.count = static_cast<uint32_t>(operands.size());
    *out = Emit(in);
    return true;
  }

  // `field op constant` (either way round): pre-decode the constant for the evaluator's fast path.
  void SpecializeComparison(uint32_t i) {
    Instr& in = p_->instrs_[i];
    const Instr& a = p_->instrs_[in.a];
    const Instr& b = p_->instrs_[in.b];
    uint32_t field_slot;
    Value constant;
    Op op = in.op;
    if (a.kind == InstrKind::kField && b.kind == InstrKind::kConst) {
      field_slot = a.slot;
      constant = b.constant;
    } else if (a.kind == InstrKind::kConst && b.kind == InstrKind::kField) {
      field_slot = b.slot;
      constant = a.constant;
      op = MirroredComparison(op);
    } else {
      return;
    }
    in.kind = InstrKind::kCompareFieldConst;
    in.op = op;
    in.slot = field_slot;
    in.constant = constant;
    in.constant_class = ClassOf(constant.type);
    if (constant.type == ValueType::kChar) {
      // Keep the fast path for text: store the char's UTF-8 encoding as a string constant.
      char buf[4];
      std::string_view t = TextOf(constant, buf);
      in.constant = Keep(Value::String(t));
    }
    if (in.constant_class == ValueClass::kNumber && !ToNumber(in.constant, &in.number)) {
      in.constant_class = ValueClass::kOther;
    }
  }

  // --- Costs and ordering ---

  double ComputeCosts(uint32_t i) {
    Instr& in = p_->instrs_[i];
    auto field_cost = [&](uint32_t slot) { return 1.0 + 0.5 * static_cast<double>(p_->fields_[slot].path.size()); };
    double cost = 0;
    switch (in.kind) {
      case InstrKind::kConst: cost = 0; break;
      case InstrKind::kField: cost = field_cost(in.slot); break;
      case InstrKind::kExists: cost = field_cost(in.slot); break;
      case InstrKind::kPropertyMatch: cost = field_cost(in.slot) + 1; break;
      case InstrKind::kCompareFieldConst: cost = field_cost(in.slot) + 1; break;
      case InstrKind::kCompare: cost = ComputeCosts(in.a) + ComputeCosts(in.b) + 1.5; break;
      case InstrKind::kArith: cost = ComputeCosts(in.a) + ComputeCosts(in.b) + 2; break;
      case InstrKind::kUnaryArith: cost = ComputeCosts(in.a) + 1; break;
      case InstrKind::kNot: cost = ComputeCosts(in.a) + 0.25; break;
      case InstrKind::kIsNull: cost = ComputeCosts(in.a) + 0.5; break;
      case InstrKind::kLike: {
        static constexpr double kLikeCost[] = {1, 1, 1, 3, 0.5, 4};
        const LikeMatcher& like = *p_->likes_[in.aux];
        cost = ComputeCosts(in.a) + (like.bit_parallel() ? 20 : kLikeCost[static_cast<int>(like.kind())]);
        break;
      }
      case InstrKind::kRegexp: cost = ComputeCosts(in.a) + 8; break;
      case InstrKind::kInSet: cost = ComputeCosts(in.a) + 2; break;
      case InstrKind::kIn:
        cost = ComputeCosts(in.a);
        for (uint32_t k = 0; k < in.count; ++k) cost += ComputeCosts(p_->children_[in.first + k]) + 1;
        break;
      case InstrKind::kBetween: cost = ComputeCosts(in.a) + ComputeCosts(in.b) + ComputeCosts(in.c) + 2; break;
      case InstrKind::kFunction: {
        switch (in.function) {
          case Function::kLower:
          case Function::kUpper: cost = 6; break;
          case Function::kDate: cost = 30; break;
          default: cost = 4; break;
        }
        for (uint32_t k = 0; k < in.count; ++k) cost += ComputeCosts(p_->children_[in.first + k]);
        break;
      }
      case InstrKind::kAnd:
      case InstrKind::kOr:
        cost = 0.5;
        for (uint32_t k = 0; k < in.count; ++k) cost += ComputeCosts(p_->children_[in.first + k]);
        break;
    }
    p_->instrs_[i].cost = cost;
    return cost;
  }

  // 0: equality on a field (most selective), 1: set / pattern membership, 2: other comparisons,
  // 3: presence tests and everything else.
  int SelectivityRank(const Instr& in) const {
    switch (in.kind) {
      case InstrKind::kCompareFieldConst:
      case InstrKind::kCompare: return in.op == Op::kEq ? 0 : (in.op == Op::kNe ? 3 : 2);
      case InstrKind::kPropertyMatch: return 0;
      case InstrKind::kInSet: return in.negated ? 3 : 1;
      case InstrKind::kLike: return in.negated ? 3 : 1;
      case InstrKind::kRegexp: return 1;
      case InstrKind::kBetween: return in.negated ? 3 : 2;
      default: return 3;
    }
  }

  // Calls fn(operand) for each operand instruction of `in`: its children, then a, b, c as its kind
  // uses them.
  template <typename Fn>
  void ForEachOperand(const Instr& in, Fn&& fn) const {
    switch (in.kind) {
      case InstrKind::kAnd:
      case InstrKind::kOr:
      case InstrKind::kFunction:
        for (uint32_t k = 0; k < in.count; ++k) fn(p_->children_[in.first + k]);
        break;
      case InstrKind::kIn:
        for (uint32_t k = 0; k < in.count; ++k) fn(p_->children_[in.first + k]);
        fn(in.a);
        break;
      case InstrKind::kNot:
      case InstrKind::kUnaryArith:
      case InstrKind::kIsNull:
      case InstrKind::kLike:
      case InstrKind::kRegexp:
      case InstrKind::kInSet: fn(in.a); break;
      case InstrKind::kCompare:
      case InstrKind::kArith:
        fn(in.a);
        fn(in.b);
        break;
      case InstrKind::kBetween:
        fn(in.a);
        fn(in.b);
        fn(in.c);
        break;
      default: break;
    }
  }

  static bool ReadsSlot(const Instr& in) {
    return in.kind == InstrKind::kField || in.kind == InstrKind::kExists || in.kind == InstrKind::kCompareFieldConst ||
           in.kind == InstrKind::kPropertyMatch;
  }

  // Bit per Section of the fields instruction i reads.
  uint32_t SectionsRead(uint32_t i) const {
    const Instr& in = p_->instrs_[i];
    uint32_t mask = 0;
    if (ReadsSlot(in) && in.slot < p_->fields_.size()) mask |= 1u << static_cast<int>(p_->fields_[in.slot].section);
    ForEachOperand(in, [&](uint32_t c) { mask |= SectionsRead(c); });
    return mask;
  }

  // After the sort by cost: an operand whose fields all lie in sections that the operands before
  // it already read moves up, ahead of operands that would read a new section. A field source reads
  // a section in one pass (all the fields asked of it), so once a section is read its other fields
  // cost a lookup, while the first field of a new section costs that section's walk. Operands keep
  // their sorted order otherwise. Reordering AND / OR operands never changes a result.
  void GroupBySection(std::vector<uint32_t>::iterator begin, std::vector<uint32_t>::iterator end) {
    std::vector<uint32_t> rest(begin, end);
    std::vector<uint32_t> sections(rest.size());
    for (size_t k = 0; k < rest.size(); ++k) sections[k] = SectionsRead(rest[k]);
    std::vector<bool> taken(rest.size(), false);
    uint32_t read = 0;
    for (auto out = begin; out != end; ++out) {
      size_t pick = rest.size();
      for (size_t k = 0; k < rest.size(); ++k) {
        if (taken[k]) continue;
        if (pick == rest.size()) pick = k;  // the first left, if no operand is free
        if ((sections[k] & ~read) == 0) {
          pick = k;
          break;
        }
      }
      taken[pick] = true;
      read |= sections[pick];
      *out = rest[pick];
    }
  }

  void OrderOperands(uint32_t i) {
    const Instr& in = p_->instrs_[i];
    ForEachOperand(in, [&](uint32_t c) { OrderOperands(c); });
    if (in.kind == InstrKind::kAnd || in.kind == InstrKind::kOr) {
      auto begin = p_->children_.begin() + in.first;
      std::stable_sort(begin, begin + in.count, [&](uint32_t x, uint32_t y) {
        const Instr& a = p_->instrs_[x];
        const Instr& b = p_->instrs_[y];
        if (a.cost != b.cost) return a.cost < b.cost;
        return SelectivityRank(a) < SelectivityRank(b);
      });
      GroupBySection(begin, begin + in.count);
    }
  }

  // Renumbers slots so fields() holds exactly the fields reachable instructions read, in their
  // original (first appearance) order.
  void CompactSlots() {
    std::vector<uint32_t> reachable;
    std::vector<bool> seen(p_->instrs_.size(), false);
    std::vector<uint32_t> stack{p_->root_};
    while (!stack.empty()) {
      uint32_t i = stack.back();
      stack.pop_back();
      if (seen[i]) continue;
      seen[i] = true;
      reachable.push_back(i);
      ForEachOperand(p_->instrs_[i], [&](uint32_t c) { stack.push_back(c); });
    }
    std::vector<bool> used(p_->fields_.size(), false);
    for (uint32_t i : reachable) {
      const Instr& in = p_->instrs_[i];
      if (ReadsSlot(in)) used[in.slot] = true;
    }
    std::vector<uint32_t> remap(p_->fields_.size(), 0);
    std::vector<FieldRef> fields;
    for (size_t s = 0; s < p_->fields_.size(); ++s) {
      if (!used[s]) continue;
      remap[s] = static_cast<uint32_t>(fields.size());
      fields.push_back(std::move(p_->fields_[s]));
    }
    p_->fields_ = std::move(fields);
    for (uint32_t i : reachable) {
      Instr& in = p_->instrs_[i];
      if (ReadsSlot(in)) in.slot = remap[in.slot];
    }
    if (folds_ > 0) p_->notes_.push_back(std::to_string(folds_) + " constant sub-expression(s) folded at compile time");
  }

  Program* p_;
  Error* error_;
  const Ast* ast_ = nullptr;
  std::string_view text_;
  int folds_ = 0;
  CompareRules rules_ = CompareRules::kFilterExpressions;
  Limits limits_;

  friend class Compiler;
};

std::shared_ptr<const Program> Compiler::CompileExpression(std::string_view text, const CompileOptions& options,
                                                           Error* error) {
  Ast ast;
  // An empty JMS selector is parsed as TRUE (IsNoJmsSelector); the plan says why.
  const bool no_jms_selector = IsNoJmsSelector(text, options);
  const std::string_view parsed = no_jms_selector ? std::string_view("TRUE") : text;
  if (!ParseExpression(parsed, options, &ast, error)) return nullptr;
  auto program = std::make_shared<Program>();
  program->origin_ = options.dialect == Dialect::kJms ? Program::Origin::kJms : Program::Origin::kSql;
  program->text_ = std::string(text);
  ProgramBuilder builder(program.get(), error);
  builder.set_rules(options.dialect == Dialect::kJms ? CompareRules::kJms : CompareRules::kFilterExpressions);
  builder.set_limits(options.limits);
  if (!builder.LowerAst(ast, parsed)) return nullptr;
  builder.Finish();
  if (no_jms_selector) program->notes_.push_back("empty JMS selector: no selector, every message matches");
  return program;
}

std::shared_ptr<const Program> Compiler::CompilePropertyFilter(std::span<const std::pair<std::string, Value>> fields,
                                                               bool application, Error* error) {
  auto program = std::make_shared<Program>();
  program->origin_ = application ? Program::Origin::kApplicationPropertiesFilter : Program::Origin::kPropertiesFilter;
  ProgramBuilder builder(program.get(), error);
  std::vector<uint32_t> conjuncts;
  size_t offset = 0;  // position of an entry, counted in entries, for the error
  for (const auto& entry : fields) {
    const std::string& name = entry.first;  // not a structured binding: lambdas capture it (C++17 rules)
    const Value& reference = entry.second;
    auto fail = [&](std::string message) {
      error->code = ErrorCode::kInvalidPropertyFilter;
      error->position = offset;
      error->token = name;
      error->message = std::move(message);
      return nullptr;
    };
    FieldRef ref;
    ref.section = application ? Section::kApplicationProperties : Section::kProperties;
    ref.name = name;
    if (!application && amqp::FindField(amqp::Section::kProperties, name) == nullptr) {
      return fail("'" + name +
                  "' is not a properties field (filter expressions 4.1: use the spec's names "
                  "with hyphens, e.g. message-id, subject, creation-time)");
    }
    PropertyMatcher m;
    if (reference.type == ValueType::kNull || reference.type == ValueType::kMissing) {
      m.mode = PropertyMatcher::Mode::kAny;  // 4.1.1: a null reference matches any value
    } else if (reference.type == ValueType::kString && !reference.bytes().empty() && reference.bytes()[0] == '&') {
      std::string_view s = reference.bytes();
      if (s.substr(0, 3) == "&p:") {
        m.mode = PropertyMatcher::Mode::kPrefix;
        program->storage_.emplace_back(s.substr(3));
        m.text = program->storage_.back();
      } else if (s.substr(0, 3) == "&s:") {
        m.mode = PropertyMatcher::Mode::kSuffix;
        program->storage_.emplace_back(s.substr(3));
        m.text = program->storage_.back();
      } else if (s.substr(0, 2) == "&&") {
        m.mode = PropertyMatcher::Mode::kEquals;
        m.reference = builder.Keep(Value::String(s.substr(1)));
      } else {
        return fail("reference value '" + std::string(s) + "' of '" + name +
                    "' starts with '&' but is not &p:, &s: or && (filter expressions 4.1.1)");
      }
    } else if (ClassOf(reference.type) == ValueClass::kOther) {
      return fail("reference value of '" + name + "' is a " + std::string(ValueTypeName(reference.type)) +
                  "; a property filter compares scalar values only");
    } else {
      m.mode = PropertyMatcher::Mode::kEquals;
      m.reference = builder.Keep(reference);
    }
    uint32_t slot = 0;
    auto it = std::find(program->fields_.begin(), program->fields_.end(), ref);
    if (it == program->fields_.end()) {
      program->fields_.push_back(std::move(ref));
      slot = static_cast<uint32_t>(program->fields_.size() - 1);
    } else {
      slot = static_cast<uint32_t>(it - program->fields_.begin());
    }
    Instr in;
    in.kind = InstrKind::kPropertyMatch;
    in.slot = slot;
    in.aux = static_cast<uint32_t>(program->properties_.size());
    program->properties_.push_back(m);
    conjuncts.push_back(builder.Emit(in));
    ++offset;
  }
  Instr root;
  root.kind = InstrKind::kAnd;
  root.op = Op::kAnd;
  root.first = builder.AddChildren(conjuncts);
  root.count = static_cast<uint32_t>(conjuncts.size());
  program->root_ = builder.Emit(root);
  builder.Finish();
  return program;
}

std::shared_ptr<const Program> Compiler::Merge(std::span<const std::shared_ptr<const Program>> parts) {
  auto program = std::make_shared<Program>();
  program->origin_ = Program::Origin::kAllOf;
  Error unused;
  ProgramBuilder builder(program.get(), &unused);
  std::vector<uint32_t> roots;
  for (const auto& part : parts) {
    program->keep_alive_.push_back(part);
    const uint32_t instr_offset = static_cast<uint32_t>(program->instrs_.size());
    const uint32_t child_offset = static_cast<uint32_t>(program->children_.size());
    const uint32_t like_offset = static_cast<uint32_t>(program->likes_.size());
    const uint32_t regexp_offset = static_cast<uint32_t>(program->regexps_.size());
    const uint32_t set_offset = static_cast<uint32_t>(program->sets_.size());
    const uint32_t property_offset = static_cast<uint32_t>(program->properties_.size());
    std::vector<uint32_t> slot_map;
    for (const FieldRef& ref : part->fields_) {
      auto it = std::find(program->fields_.begin(), program->fields_.end(), ref);
      if (it == program->fields_.end()) {
        program->fields_.push_back(ref);
        slot_map.push_back(static_cast<uint32_t>(program->fields_.size() - 1));
      } else {
        slot_map.push_back(static_cast<uint32_t>(it - program->fields_.begin()));
      }
    }
    for (Instr in : part->instrs_) {
      in.a += instr_offset;
      in.b += instr_offset;
      in.c += instr_offset;
      in.first += child_offset;
      switch (in.kind) {
        case InstrKind::kLike: in.aux += like_offset; break;
        case InstrKind::kRegexp: in.aux += regexp_offset; break;
        case InstrKind::kInSet: in.aux += set_offset; break;
        case InstrKind::kPropertyMatch: in.aux += property_offset; break;
        default: break;
      }
      if ((in.kind == InstrKind::kField || in.kind == InstrKind::kExists || in.kind == InstrKind::kCompareFieldConst ||
           in.kind == InstrKind::kPropertyMatch) &&
          in.slot < slot_map.size()) {
        in.slot = slot_map[in.slot];
      }
      program->instrs_.push_back(in);
    }
    for (uint32_t c : part->children_) program->children_.push_back(c + instr_offset);
    program->likes_.insert(program->likes_.end(), part->likes_.begin(), part->likes_.end());
    program->regexps_.insert(program->regexps_.end(), part->regexps_.begin(), part->regexps_.end());
    program->sets_.insert(program->sets_.end(), part->sets_.begin(), part->sets_.end());
    program->properties_.insert(program->properties_.end(), part->properties_.begin(), part->properties_.end());
    roots.push_back(part->root_ + instr_offset);
  }
  Instr root;
  root.kind = InstrKind::kAnd;
  root.op = Op::kAnd;
  root.first = builder.AddChildren(roots);
  root.count = static_cast<uint32_t>(roots.size());
  program->root_ = builder.Emit(root);
  builder.Finish();
  return program;
}

}  // namespace sift::selector
