// Names and printing of the AST (see ast.h).
#include "selector/ast.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace sift::selector {

Op MirroredComparison(Op op) {
  switch (op) {
    case Op::kLt: return Op::kGt;
    case Op::kLe: return Op::kGe;
    case Op::kGt: return Op::kLt;
    case Op::kGe: return Op::kLe;
    default: return op;
  }
}

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kNone: return "?";
    case Op::kAnd: return "AND";
    case Op::kOr: return "OR";
    case Op::kNot: return "NOT";
    case Op::kEq: return "=";
    case Op::kNe: return "<>";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
    case Op::kNegate: return "NEG";
    case Op::kPlus: return "POS";
  }
  return "?";
}

std::string_view FunctionName(Function fn) {
  switch (fn) {
    case Function::kNone: return "?";
    case Function::kUtc: return "UTC";
    case Function::kLower: return "LOWER";
    case Function::kUpper: return "UPPER";
    case Function::kLeft: return "LEFT";
    case Function::kRight: return "RIGHT";
    case Function::kSubstring: return "SUBSTRING";
    case Function::kDate: return "DATE";
    case Function::kRegexpLike: return "REGEXP_LIKE";
    case Function::kJmsMessageId: return "JMS_MESSAGE_ID";
    case Function::kJmsCorrelationId: return "JMS_CORRELATION_ID";
    case Function::kJmsDeliveryMode: return "JMS_DELIVERY_MODE";
    case Function::kJmsRedelivered: return "JMS_REDELIVERED";
    case Function::kJmsTime: return "JMS_TIME";
    case Function::kJmsUserId: return "JMS_USER_ID";
  }
  return "?";
}

std::string_view SectionIdentifier(Section section) { return amqp::Info(section).identifier; }

std::string FieldRefName(const FieldRef& ref) {
  std::string out(SectionIdentifier(ref.section));
  out += '.';
  out += ref.name;
  for (const PathStep& step : ref.path) {
    if (step.kind == PathStep::Kind::kIndex) {
      out += '[';
      out += std::to_string(step.index);
      out += ']';
    } else {
      out += '.';
      out += step.key;
    }
  }
  return out;
}

std::string_view Ast::Keep(std::string_view bytes) {
  storage_.emplace_back(bytes);
  return storage_.back();
}

namespace {

void AppendQuoted(std::string* out, std::string_view s, char quote) {
  *out += quote;
  for (char c : s) {
    *out += c;
    if (c == quote) *out += c;
  }
  *out += quote;
}

}  // namespace

std::string LiteralToString(const Value& v) {
  char buf[64];
  switch (v.type) {
    case ValueType::kBoolean: return v.boolean ? "TRUE" : "FALSE";
    case ValueType::kLong:
    case ValueType::kInt:
    case ValueType::kShort:
    case ValueType::kByte:
    case ValueType::kTimestamp: return std::to_string(v.i64);
    case ValueType::kULong:
    case ValueType::kUInt:
    case ValueType::kUShort:
    case ValueType::kUByte: return std::to_string(v.u64);
    case ValueType::kFloat:
    case ValueType::kDouble:
      if (std::isnan(v.f64)) return "NAN";
      if (std::isinf(v.f64)) return v.f64 > 0 ? "INF" : "-INF";
      std::snprintf(buf, sizeof buf, "%.17g", v.f64);
      return std::string(buf) + (v.type == ValueType::kFloat ? "f" : "");
    case ValueType::kString:
    case ValueType::kSymbol: {
      std::string out;
      AppendQuoted(&out, v.bytes(), '\'');
      return out;
    }
    case ValueType::kBinary: {
      std::string out = "0x";
      for (unsigned char c : v.bytes()) {
        std::snprintf(buf, sizeof buf, "%02X", c);
        out += buf;
      }
      return out;
    }
    default: return std::string(ValueTypeName(v.type));
  }
}

namespace {

void Print(const Ast& ast, uint32_t index, std::string* out) {
  const Node& n = ast.nodes[index];
  auto children = [&](size_t from) {
    for (size_t i = from; i < n.children.size(); ++i) {
      *out += ' ';
      Print(ast, n.children[i], out);
    }
  };
  switch (n.kind) {
    case NodeKind::kLiteral: *out += LiteralToString(n.value); return;
    case NodeKind::kField: *out += FieldRefName(ast.fields[n.field]); return;
    case NodeKind::kExists:
      *out += "(EXISTS ";
      *out += FieldRefName(ast.fields[n.field]);
      *out += ')';
      return;
    case NodeKind::kUnary:
    case NodeKind::kBinary:
      *out += '(';
      *out += OpName(n.op);
      children(0);
      *out += ')';
      return;
    case NodeKind::kLike:
      *out += n.negated ? "(NOT LIKE " : "(LIKE ";
      Print(ast, n.children[0], out);
      *out += ' ';
      Print(ast, n.children[1], out);
      if (n.children.size() > 2) {
        *out += " ESCAPE ";
        Print(ast, n.children[2], out);
      }
      *out += ')';
      return;
    case NodeKind::kIn:
      *out += n.negated ? "(NOT IN" : "(IN";
      children(0);
      *out += ')';
      return;
    case NodeKind::kBetween:
      *out += n.negated ? "(NOT BETWEEN" : "(BETWEEN";
      children(0);
      *out += ')';
      return;
    case NodeKind::kIsNull:
      *out += n.negated ? "(IS NOT NULL" : "(IS NULL";
      children(0);
      *out += ')';
      return;
    case NodeKind::kFunction:
      *out += '(';
      *out += FunctionName(n.function);
      children(0);
      *out += ')';
      return;
  }
}

}  // namespace

std::string Ast::ToString() const {
  std::string out;
  if (!nodes.empty()) Print(*this, root, &out);
  return out;
}

}  // namespace sift::selector
