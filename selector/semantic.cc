// Semantic checks (see semantic.h).
#include "selector/semantic.h"

#include <string>

#include "selector/date_time.h"
#include "selector/like.h"
#include "selector/regexp.h"

namespace sift::selector {
namespace {

StaticType LiteralType(const Value& v) {
  switch (v.type) {
    case ValueType::kBoolean: return StaticType::kBoolean;
    case ValueType::kString:
    case ValueType::kSymbol: return StaticType::kString;
    case ValueType::kBinary: return StaticType::kBinary;
    case ValueType::kTimestamp: return StaticType::kTimestamp;
    case ValueType::kByte:
    case ValueType::kShort:
    case ValueType::kInt:
    case ValueType::kLong:
    case ValueType::kUByte:
    case ValueType::kUShort:
    case ValueType::kUInt:
    case ValueType::kULong:
    case ValueType::kFloat:
    case ValueType::kDouble:
    case ValueType::kDecimal32:
    case ValueType::kDecimal64:
    case ValueType::kDecimal128: return StaticType::kNumeric;
    default: return StaticType::kOther;
  }
}

std::string_view StaticTypeName(StaticType t) {
  switch (t) {
    case StaticType::kAny: return "any";
    case StaticType::kBoolean: return "a boolean";
    case StaticType::kNumeric: return "a number";
    case StaticType::kString: return "a string";
    case StaticType::kTimestamp: return "a timestamp";
    case StaticType::kBinary: return "a binary";
    case StaticType::kNumberOrString: return "a number or a string";
    case StaticType::kOther: return "a value";
  }
  return "?";
}

bool IsIntegerLiteral(const Node& n) {
  return n.kind == NodeKind::kLiteral && (n.value.type == ValueType::kLong || n.value.type == ValueType::kULong);
}

// The byte of the expression that holds byte `offset` of a string literal's value: the token starts
// with its quote, and a doubled quote stands for one.
size_t LiteralByte(std::string_view token, size_t offset) {
  if (token.empty()) return 0;
  const char quote = token[0];
  size_t i = 1;
  for (size_t k = 0; k < offset && i < token.size(); ++k) i += token[i] == quote ? 2 : 1;
  return i < token.size() ? i : token.size() - 1;
}

class Checker {
 public:
  Checker(std::string_view text, const Ast& ast, const Limits& limits, Error* error)
      : text_(text), ast_(ast), limits_(limits), error_(error) {}

  // REGEXP_LIKE(s, pattern [, flags]): a text operand, string literals, a pattern re2 compiles
  // within the memory limit; an error in the pattern or the flags points at its byte.
  bool CheckRegexp(const Node& n) {
    if (!NeedString(n.children[0], "REGEXP_LIKE")) return false;
    for (size_t k = 1; k < n.children.size(); ++k) {
      const Node& arg = ast_.nodes[n.children[k]];
      if (arg.kind != NodeKind::kLiteral || arg.value.type != ValueType::kString) {
        return Fail(n.children[k], ErrorCode::kTypeMismatch,
                    std::string("REGEXP_LIKE needs its ") + (k == 1 ? "pattern" : "flags") + " as a string literal");
      }
    }
    const Node& pattern = ast_.nodes[n.children[1]];
    const Node* flags = n.children.size() > 2 ? &ast_.nodes[n.children[2]] : nullptr;
    Error e;
    bool in_flags = false;
    if (RegexpMatcher::Compile(pattern.value.bytes(), flags ? flags->value.bytes() : std::string_view(),
                               limits_.max_regexp_memory, limits_.max_regexp_program, &e, &in_flags)) {
      return true;
    }
    const Node& at = in_flags ? *flags : pattern;
    Fail(in_flags ? n.children[2] : n.children[1], e.code, std::move(e.message));
    error_->position = at.position + LiteralByte(text_.substr(at.position, at.length), e.position);
    return false;
  }

  bool Fail(uint32_t node, ErrorCode code, std::string message) {
    const Node& n = ast_.nodes[node];
    error_->code = code;
    error_->position = n.position;
    error_->token = std::string(text_.substr(n.position, n.length));
    error_->message = std::move(message);
    return false;
  }

  bool NeedCondition(uint32_t node, std::string_view where) {
    StaticType t = StaticTypeOf(ast_, node);
    if (t == StaticType::kBoolean || t == StaticType::kAny) return true;
    return Fail(node, ErrorCode::kTypeMismatch,
                std::string(where) + " needs a condition, found " + std::string(StaticTypeName(t)));
  }

  bool NeedNumeric(uint32_t node, std::string_view op) {
    StaticType t = StaticTypeOf(ast_, node);
    if (t == StaticType::kNumeric || t == StaticType::kTimestamp || t == StaticType::kAny ||
        t == StaticType::kNumberOrString) {
      return true;
    }
    std::string message = "operator ";
    message += op;
    message += " needs a number, found ";
    message += StaticTypeName(t);
    return Fail(node, ErrorCode::kTypeMismatch, std::move(message));
  }

  bool NeedString(uint32_t node, std::string_view fn) {
    StaticType t = StaticTypeOf(ast_, node);
    if (t == StaticType::kString || t == StaticType::kAny || t == StaticType::kNumberOrString) return true;
    return Fail(node, ErrorCode::kTypeMismatch,
                std::string(fn) + " needs a string, found " + std::string(StaticTypeName(t)));
  }

  bool NeedInteger(uint32_t node, std::string_view fn) {
    const Node& n = ast_.nodes[node];
    StaticType t = StaticTypeOf(ast_, node);
    bool ok = t == StaticType::kAny || t == StaticType::kNumberOrString ||
              (t == StaticType::kNumeric && (n.kind != NodeKind::kLiteral || IsIntegerLiteral(n)));
    if (ok) return true;
    return Fail(node, ErrorCode::kTypeMismatch,
                std::string(fn) + " needs an integer, found " + std::string(StaticTypeName(t)));
  }

  bool Check(uint32_t index) {
    const Node& n = ast_.nodes[index];
    for (uint32_t c : n.children) {
      if (!Check(c)) return false;
    }
    switch (n.kind) {
      case NodeKind::kLiteral:
      case NodeKind::kField:
      case NodeKind::kExists:
      case NodeKind::kIsNull:
      case NodeKind::kIn:
      case NodeKind::kBetween: return true;
      case NodeKind::kLike: {
        StaticType t = StaticTypeOf(ast_, n.children[0]);
        if (t != StaticType::kString && t != StaticType::kAny && t != StaticType::kNumberOrString) {
          return Fail(n.children[0], ErrorCode::kTypeMismatch,
                      "LIKE needs a string operand, found " + std::string(StaticTypeName(t)));
        }
        // A pattern that cannot be compiled is wrong for every message; finding it here
        // keeps ParseExpression and Compile in agreement.
        const Node& pattern = ast_.nodes[n.children[1]];
        std::string_view escape = n.children.size() > 2 ? ast_.nodes[n.children[2]].value.bytes() : std::string_view();
        Error like_error;
        if (!LikeMatcher::Compile(pattern.value.bytes(), escape, &like_error)) {
          return Fail(n.children[1], like_error.code, like_error.message);
        }
        return true;
      }
      case NodeKind::kUnary:
        if (n.op == Op::kNot) return NeedCondition(n.children[0], "NOT");
        return NeedNumeric(n.children[0], OpName(n.op) == "NEG" ? "-" : "+");
      case NodeKind::kBinary:
        switch (n.op) {
          case Op::kAnd:
          case Op::kOr:
            for (uint32_t c : n.children) {
              if (!NeedCondition(c, OpName(n.op))) return false;
            }
            return true;
          case Op::kEq:
          case Op::kNe:
          case Op::kLt:
          case Op::kLe:
          case Op::kGt:
          case Op::kGe: return true;
          case Op::kAdd: {
            StaticType a = StaticTypeOf(ast_, n.children[0]);
            StaticType b = StaticTypeOf(ast_, n.children[1]);
            for (int i = 0; i < 2; ++i) {
              StaticType t = i == 0 ? a : b;
              if (t == StaticType::kBoolean || t == StaticType::kBinary || t == StaticType::kOther) {
                return Fail(n.children[i], ErrorCode::kTypeMismatch,
                            "'+' needs numbers or strings, found " + std::string(StaticTypeName(t)));
              }
            }
            bool a_num = a == StaticType::kNumeric || a == StaticType::kTimestamp;
            bool b_num = b == StaticType::kNumeric || b == StaticType::kTimestamp;
            if ((a == StaticType::kString && b_num) || (a_num && b == StaticType::kString)) {
              return Fail(index, ErrorCode::kTypeMismatch,
                          "'+' cannot add a number and a string (concatenation needs two strings)");
            }
            return true;
          }
          default: return NeedNumeric(n.children[0], OpName(n.op)) && NeedNumeric(n.children[1], OpName(n.op));
        }
      case NodeKind::kFunction:
        switch (n.function) {
          case Function::kLower:
          case Function::kUpper: return NeedString(n.children[0], FunctionName(n.function));
          case Function::kLeft:
          case Function::kRight:
            return NeedString(n.children[0], FunctionName(n.function)) &&
                   NeedInteger(n.children[1], FunctionName(n.function));
          case Function::kSubstring:
            if (!NeedString(n.children[0], "SUBSTRING") || !NeedInteger(n.children[1], "SUBSTRING")) return false;
            return n.children.size() < 3 || NeedInteger(n.children[2], "SUBSTRING");
          case Function::kDate: {
            if (!NeedString(n.children[0], "DATE")) return false;
            const Node& arg = ast_.nodes[n.children[0]];
            int64_t ms;
            if (arg.kind == NodeKind::kLiteral && !ParseIsoDateTime(arg.value.bytes(), &ms)) {
              return Fail(n.children[0], ErrorCode::kInvalidDate,
                          "DATE needs an ISO 8601 date-time such as '2024-05-01T12:00:00Z', found " +
                              std::string(text_.substr(arg.position, arg.length)));
            }
            return true;
          }
          case Function::kRegexpLike: return CheckRegexp(n);
          default: return true;
        }
    }
    return true;
  }

 private:
  std::string_view text_;
  const Ast& ast_;
  const Limits& limits_;
  Error* error_;
};

}  // namespace

StaticType StaticTypeOf(const Ast& ast, uint32_t index) {
  const Node& n = ast.nodes[index];
  switch (n.kind) {
    case NodeKind::kLiteral: return LiteralType(n.value);
    case NodeKind::kField: return StaticType::kAny;
    case NodeKind::kLike:
    case NodeKind::kIn:
    case NodeKind::kBetween:
    case NodeKind::kIsNull:
    case NodeKind::kExists: return StaticType::kBoolean;
    case NodeKind::kUnary: return n.op == Op::kNot ? StaticType::kBoolean : StaticType::kNumeric;
    case NodeKind::kBinary:
      switch (n.op) {
        case Op::kAnd:
        case Op::kOr:
        case Op::kEq:
        case Op::kNe:
        case Op::kLt:
        case Op::kLe:
        case Op::kGt:
        case Op::kGe: return StaticType::kBoolean;
        case Op::kAdd: {
          StaticType a = StaticTypeOf(ast, n.children[0]);
          StaticType b = StaticTypeOf(ast, n.children[1]);
          if (a == StaticType::kString || b == StaticType::kString) return StaticType::kString;
          if (a == StaticType::kNumeric || b == StaticType::kNumeric || a == StaticType::kTimestamp ||
              b == StaticType::kTimestamp) {
            return StaticType::kNumeric;
          }
          return StaticType::kNumberOrString;
        }
        default: {
          return StaticType::kNumeric;
        }
      }
    case NodeKind::kFunction:
      switch (n.function) {
        case Function::kUtc:
        case Function::kDate: return StaticType::kTimestamp;
        case Function::kJmsRedelivered:
        case Function::kRegexpLike: return StaticType::kBoolean;
        case Function::kJmsTime: return StaticType::kNumeric;
        default: return StaticType::kString;
      }
  }
  return StaticType::kAny;
}

bool CheckSemantics(std::string_view text, const Ast& ast, const Limits& limits, Error* error) {
  Checker checker(text, ast, limits, error);
  if (!checker.Check(ast.root)) return false;
  return checker.NeedCondition(ast.root, "a selector");
}

}  // namespace sift::selector
