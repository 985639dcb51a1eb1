// The recursive-descent parser: text -> Ast, with the depth limit (see ast.h). What names refer to is
// parser_names.cc's to say, what literal tokens are worth parser_literals.cc's.
//
// Grammar (precedence low to high, filter expressions section 6 / docs/selector-language.md):
//   or        := and { OR and }                    (flattened into one n-ary node)
//   and       := not { AND not }                   (flattened into one n-ary node)
//   not       := NOT not | EXISTS field | EXISTS '(' field ')' | predicate
//   predicate := additive [ cmp additive | [NOT] LIKE string [ESCAPE string]
//                          | [NOT] IN '(' additive {',' additive} ')'
//                          | [NOT] BETWEEN additive AND additive | IS [NOT] NULL ]
//   additive  := multiplicative { (+|-) multiplicative }
//   multiplicative := unary { (*|/|%) unary }
//   unary     := (+|-) unary | primary
//   primary   := literal | '(' or ')' | function '(' [or {',' or}] ')' | field
//   field     := [section '.'] name { '.' key | '[' index ']' }
//
// Invariants: recursion depth never exceeds Limits::max_depth (capped at kMaxSupportedDepth) and
// every node's height is at most the same bound, so later recursive passes are safe too; an error
// stops parsing at once.
#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

#include "base/amqp_fields.h"
#include "base/utf8.h"
#include "selector/ast.h"
#include "selector/lexer.h"
#include "selector/parser_literals.h"
#include "selector/parser_names.h"
#include "selector/semantic.h"

namespace sift::selector {

namespace {

class Parser {
 public:
  Parser(std::string_view text, const CompileOptions& options, Ast* ast, Error* error)
      : text_(text),
        options_(options),
        max_depth_(std::min(options.limits.max_depth, kMaxSupportedDepth)),
        lexer_(text, options.dialect),
        ast_(ast),
        error_(error) {}

  bool Parse() {
    if (text_.size() > options_.limits.max_length) {
      return Fail(ErrorCode::kTooLong, static_cast<uint32_t>(options_.limits.max_length), 0,
                  "expression is " + std::to_string(text_.size()) + " bytes long; the limit is " +
                      std::to_string(options_.limits.max_length));
    }
    if (text_.size() > std::numeric_limits<uint32_t>::max() / 2) {
      return Fail(ErrorCode::kTooLong, 0, 0, "expression too long");
    }
    if (!lexer_.Next(&cur_, error_) || !lexer_.Next(&next_, error_)) return false;
    if (cur_.kind == TokenKind::kEnd) {
      return Fail(ErrorCode::kUnexpectedEnd, 0, 0, "the expression is empty");
    }
    uint32_t root;
    if (!ParseOr(&root)) return false;
    if (cur_.kind != TokenKind::kEnd) {
      if (cur_.kind == TokenKind::kRightParen) return FailAtToken(ErrorCode::kSyntax, "unbalanced ')'");
      return FailAtToken(ErrorCode::kSyntax, "expected AND, OR or the end of the expression, found " + Describe(cur_));
    }
    ast_->root = root;
    return CheckSemantics(text_, *ast_, options_.limits, error_);
  }

 private:
  // --- Tokens ---

  bool Advance() {
    cur_ = next_;
    if (next_.kind == TokenKind::kEnd) return true;
    return lexer_.Next(&next_, error_);
  }

  std::string Describe(const Token& t) const {
    if (t.kind == TokenKind::kEnd) return "the end of the expression";
    if (t.kind == TokenKind::kString) return std::string(t.text(text_));  // already quoted
    return "'" + std::string(t.text(text_)) + "'";
  }

  bool Fail(ErrorCode code, uint32_t position, uint32_t length, std::string message) {
    error_->code = code;
    error_->position = position;
    error_->token = std::string(text_.substr(std::min<size_t>(position, text_.size()), length));
    error_->message = std::move(message);
    return false;
  }

  bool FailAtToken(ErrorCode code, std::string message) {
    if (cur_.kind == TokenKind::kEnd && code == ErrorCode::kSyntax) code = ErrorCode::kUnexpectedEnd;
    return Fail(code, cur_.position, cur_.length, std::move(message));
  }

  bool Expect(TokenKind kind, const char* what) {
    if (cur_.kind != kind) {
      return FailAtToken(ErrorCode::kSyntax, std::string("expected ") + what + ", found " + Describe(cur_));
    }
    return Advance();
  }

  // --- Nodes ---

  struct DepthGuard {
    explicit DepthGuard(size_t* depth) : depth_(depth) { ++*depth_; }
    ~DepthGuard() { --*depth_; }
    size_t* depth_;
  };

  bool EnterLevel() {
    if (depth_ > max_depth_) {
      return FailAtToken(ErrorCode::kTooDeep,
                         "expression nested deeper than " + std::to_string(max_depth_) + " levels");
    }
    return true;
  }

  bool AddNode(Node node, const Token& at, uint32_t* out) {
    node.position = at.position;
    node.length = at.length;
    uint32_t height = 1;
    for (uint32_t c : node.children) height = std::max(height, heights_[c] + 1);
    if (height > max_depth_) {
      return Fail(ErrorCode::kTooDeep, at.position, at.length,
                  "expression nested deeper than " + std::to_string(max_depth_) + " levels");
    }
    *out = static_cast<uint32_t>(ast_->nodes.size());
    ast_->nodes.push_back(std::move(node));
    heights_.push_back(height);
    return true;
  }

  bool AddLiteral(Value v, const Token& at, uint32_t* out) {
    Node n;
    n.kind = NodeKind::kLiteral;
    n.value = v;
    return AddNode(std::move(n), at, out);
  }

  uint32_t InternField(FieldRef ref) {
    for (size_t i = 0; i < ast_->fields.size(); ++i) {
      if (ast_->fields[i] == ref) return static_cast<uint32_t>(i);
    }
    ast_->fields.push_back(std::move(ref));
    return static_cast<uint32_t>(ast_->fields.size() - 1);
  }

  bool AddField(FieldRef ref, const Token& at, uint32_t* out) {
    Node n;
    n.kind = NodeKind::kField;
    n.field = InternField(std::move(ref));
    return AddNode(std::move(n), at, out);
  }

  // --- Grammar ---

  bool ParseOr(uint32_t* out) {
    DepthGuard guard(&depth_);
    if (!EnterLevel()) return false;
    return ParseChain(TokenKind::kOr, Op::kOr, out);
  }

  bool ParseChain(TokenKind token, Op op, uint32_t* out) {
    uint32_t first;
    if (op == Op::kOr ? !ParseChain(TokenKind::kAnd, Op::kAnd, &first) : !ParseNot(&first)) return false;
    if (cur_.kind != token) {
      *out = first;
      return true;
    }
    Node n;
    n.kind = NodeKind::kBinary;
    n.op = op;
    n.children.push_back(first);
    Token at = cur_;
    while (cur_.kind == token) {
      if (!Advance()) return false;
      uint32_t next;
      if (op == Op::kOr ? !ParseChain(TokenKind::kAnd, Op::kAnd, &next) : !ParseNot(&next)) return false;
      n.children.push_back(next);
    }
    return AddNode(std::move(n), at, out);
  }

  bool ParseNot(uint32_t* out) {
    if (cur_.kind == TokenKind::kNot) {
      DepthGuard guard(&depth_);
      if (!EnterLevel()) return false;
      Token at = cur_;
      if (!Advance()) return false;
      uint32_t operand;
      if (!ParseNot(&operand)) return false;
      Node n;
      n.kind = NodeKind::kUnary;
      n.op = Op::kNot;
      n.children.push_back(operand);
      return AddNode(std::move(n), at, out);
    }
    if (cur_.kind == TokenKind::kExists) return ParseExists(out);
    return ParsePredicate(out);
  }

  bool ParseExists(uint32_t* out) {
    Token at = cur_;
    if (!Advance()) return false;
    bool paren = cur_.kind == TokenKind::kLeftParen;
    if (paren && !Advance()) return false;
    Token operand_token = cur_;
    uint32_t operand;
    {
      DepthGuard guard(&depth_);
      if (!EnterLevel()) return false;
      if (!ParseUnary(&operand)) return false;
    }
    if (ast_->nodes[operand].kind != NodeKind::kField) {
      return Fail(ErrorCode::kNotAField, operand_token.position, operand_token.length,
                  "EXISTS needs a field reference, found " + Describe(operand_token));
    }
    if (paren && !Expect(TokenKind::kRightParen, "')' after the EXISTS operand")) return false;
    Node n;
    n.kind = NodeKind::kExists;
    n.field = ast_->nodes[operand].field;
    // The field node stays in the array (unreferenced) so node indices remain stable.
    return AddNode(std::move(n), at, out);
  }

  static bool ComparisonOp(TokenKind kind, Op* op) {
    switch (kind) {
      case TokenKind::kEq: *op = Op::kEq; return true;
      case TokenKind::kNe: *op = Op::kNe; return true;
      case TokenKind::kLt: *op = Op::kLt; return true;
      case TokenKind::kLe: *op = Op::kLe; return true;
      case TokenKind::kGt: *op = Op::kGt; return true;
      case TokenKind::kGe: *op = Op::kGe; return true;
      default: return false;
    }
  }

  bool ParsePredicate(uint32_t* out) {
    uint32_t left;
    if (!ParseAdditive(&left)) return false;
    Op op;
    if (ComparisonOp(cur_.kind, &op)) {
      Token at = cur_;
      if (!Advance()) return false;
      uint32_t right;
      if (!ParseAdditive(&right)) return false;
      Node n;
      n.kind = NodeKind::kBinary;
      n.op = op;
      n.children = {left, right};
      if (!AddNode(std::move(n), at, out)) return false;
      if (ComparisonOp(cur_.kind, &op)) {
        return FailAtToken(ErrorCode::kSyntax, "comparisons do not chain; use AND (found " + Describe(cur_) + ")");
      }
      return true;
    }
    bool negated = false;
    Token at = cur_;
    if (cur_.kind == TokenKind::kNot) {
      if (next_.kind != TokenKind::kLike && next_.kind != TokenKind::kIn && next_.kind != TokenKind::kBetween) {
        return FailAtToken(ErrorCode::kSyntax, "expected LIKE, IN or BETWEEN after NOT here");
      }
      negated = true;
      if (!Advance()) return false;
    }
    switch (cur_.kind) {
      case TokenKind::kLike: return ParseLike(left, negated, at, out);
      case TokenKind::kIn: return ParseIn(left, negated, at, out);
      case TokenKind::kBetween: return ParseBetween(left, negated, at, out);
      case TokenKind::kIs: {
        if (!Advance()) return false;
        Node n;
        n.kind = NodeKind::kIsNull;
        if (cur_.kind == TokenKind::kNot) {
          n.negated = true;
          if (!Advance()) return false;
        }
        if (!Expect(TokenKind::kNull, n.negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS")) return false;
        n.children.push_back(left);
        return AddNode(std::move(n), at, out);
      }
      default: *out = left; return true;
    }
  }

  bool ParseLike(uint32_t operand, bool negated, const Token& at, uint32_t* out) {
    if (!Advance()) return false;
    Node n;
    n.kind = NodeKind::kLike;
    n.negated = negated;
    n.children.push_back(operand);
    if (cur_.kind != TokenKind::kString) {
      if (cur_.kind == TokenKind::kEnd) return FailAtToken(ErrorCode::kUnexpectedEnd, "expected a LIKE pattern");
      return FailAtToken(ErrorCode::kTypeMismatch, "a LIKE pattern must be a string literal, found " + Describe(cur_));
    }
    Token pattern_token = cur_;
    uint32_t pattern;
    if (!ParsePrimary(&pattern)) return false;
    if (ast_->nodes[pattern].value.size > options_.limits.max_like_pattern) {
      return Fail(ErrorCode::kLikePatternTooLong, pattern_token.position, pattern_token.length,
                  "LIKE pattern is " + std::to_string(ast_->nodes[pattern].value.size) + " bytes long; the limit is " +
                      std::to_string(options_.limits.max_like_pattern));
    }
    n.children.push_back(pattern);
    uint32_t escape_cp = 0;
    bool has_escape = false;
    if (cur_.kind == TokenKind::kEscape) {
      if (!Advance()) return false;
      if (cur_.kind != TokenKind::kString) {
        if (cur_.kind == TokenKind::kEnd) return FailAtToken(ErrorCode::kUnexpectedEnd, "expected an ESCAPE character");
        return FailAtToken(ErrorCode::kInvalidEscape,
                           "ESCAPE must be a one-character string literal, found " + Describe(cur_));
      }
      Token escape_token = cur_;
      uint32_t escape;
      if (!ParsePrimary(&escape)) return false;
      std::string_view e = ast_->nodes[escape].value.bytes();
      size_t n1 = e.empty() ? 0 : base::Utf8SequenceLength(e, 0);
      if (e.empty() || n1 != e.size()) {
        return Fail(ErrorCode::kInvalidEscape, escape_token.position, escape_token.length,
                    "ESCAPE must be exactly one character, found " + Describe(escape_token));
      }
      has_escape = true;
      escape_cp = static_cast<unsigned char>(e[0]);
      n.children.push_back(escape);
      // The escape character must escape something: a pattern may not end with it.
      std::string_view p = ast_->nodes[pattern].value.bytes();
      for (size_t i = 0; i < p.size();) {
        size_t len = base::Utf8SequenceLength(p, i);
        if (len == 0) len = 1;
        if (p.substr(i, len) == e) {
          if (i + len >= p.size()) {
            return Fail(ErrorCode::kInvalidEscape, pattern_token.position, pattern_token.length,
                        "LIKE pattern ends with its escape character " + Describe(escape_token));
          }
          size_t next = base::Utf8SequenceLength(p, i + len);
          i += len + (next == 0 ? 1 : next);
        } else {
          i += len;
        }
      }
    }
    (void)escape_cp;
    (void)has_escape;
    return AddNode(std::move(n), at, out);
  }

  bool ParseIn(uint32_t operand, bool negated, const Token& at, uint32_t* out) {
    if (!Advance()) return false;
    if (!Expect(TokenKind::kLeftParen, "'(' after IN")) return false;
    Node n;
    n.kind = NodeKind::kIn;
    n.negated = negated;
    n.children.push_back(operand);
    if (cur_.kind == TokenKind::kRightParen)
      return FailAtToken(ErrorCode::kSyntax, "an IN list needs at least one member");
    while (true) {
      if (n.children.size() - 1 >= options_.limits.max_in_list) {
        return FailAtToken(ErrorCode::kTooManyInMembers,
                           "IN list has more than " + std::to_string(options_.limits.max_in_list) + " members");
      }
      uint32_t member;
      if (!ParseAdditive(&member)) return false;
      n.children.push_back(member);
      if (cur_.kind == TokenKind::kComma) {
        if (!Advance()) return false;
        continue;
      }
      if (!Expect(TokenKind::kRightParen, "',' or ')' in the IN list")) return false;
      break;
    }
    return AddNode(std::move(n), at, out);
  }

  bool ParseBetween(uint32_t operand, bool negated, const Token& at, uint32_t* out) {
    if (!Advance()) return false;
    uint32_t low, high;
    if (!ParseAdditive(&low)) return false;
    if (!Expect(TokenKind::kAnd, "AND between the BETWEEN bounds")) return false;
    if (!ParseAdditive(&high)) return false;
    Node n;
    n.kind = NodeKind::kBetween;
    n.negated = negated;
    n.children = {operand, low, high};
    return AddNode(std::move(n), at, out);
  }

  bool ParseAdditive(uint32_t* out) {
    uint32_t left;
    if (!ParseMultiplicative(&left)) return false;
    while (cur_.kind == TokenKind::kPlus || cur_.kind == TokenKind::kMinus) {
      Token at = cur_;
      if (!Advance()) return false;
      uint32_t right;
      if (!ParseMultiplicative(&right)) return false;
      Node n;
      n.kind = NodeKind::kBinary;
      n.op = at.kind == TokenKind::kPlus ? Op::kAdd : Op::kSub;
      n.children = {left, right};
      if (!AddNode(std::move(n), at, &left)) return false;
    }
    *out = left;
    return true;
  }

  bool ParseMultiplicative(uint32_t* out) {
    uint32_t left;
    if (!ParseUnary(&left)) return false;
    while (cur_.kind == TokenKind::kStar || cur_.kind == TokenKind::kSlash || cur_.kind == TokenKind::kPercent) {
      Token at = cur_;
      if (!Advance()) return false;
      uint32_t right;
      if (!ParseUnary(&right)) return false;
      Node n;
      n.kind = NodeKind::kBinary;
      n.op = at.kind == TokenKind::kStar ? Op::kMul : at.kind == TokenKind::kSlash ? Op::kDiv : Op::kMod;
      n.children = {left, right};
      if (!AddNode(std::move(n), at, &left)) return false;
    }
    *out = left;
    return true;
  }

  bool ParseUnary(uint32_t* out) {
    if (cur_.kind == TokenKind::kPlus || cur_.kind == TokenKind::kMinus) {
      DepthGuard guard(&depth_);
      if (!EnterLevel()) return false;
      Token at = cur_;
      if (!Advance()) return false;
      uint32_t operand;
      if (!ParseUnary(&operand)) return false;
      Node n;
      n.kind = NodeKind::kUnary;
      n.op = at.kind == TokenKind::kPlus ? Op::kPlus : Op::kNegate;
      n.children.push_back(operand);
      return AddNode(std::move(n), at, out);
    }
    return ParsePrimary(out);
  }

  bool ParsePrimary(uint32_t* out) {
    Token t = cur_;
    switch (t.kind) {
      case TokenKind::kLeftParen: {
        if (!Advance()) return false;
        uint32_t inner;
        if (!ParseOr(&inner)) return false;
        if (cur_.kind != TokenKind::kRightParen) {
          return FailAtToken(ErrorCode::kSyntax, "expected ')' to close the '(' at byte " + std::to_string(t.position) +
                                                     ", found " + Describe(cur_));
        }
        *out = inner;
        return Advance();
      }
      case TokenKind::kInteger: return ParseInteger(t, out) && Advance();
      case TokenKind::kDecimal:
      case TokenKind::kApproximate: return ParseFloating(t, out) && Advance();
      case TokenKind::kString:
        return AddLiteral(Value::String(ast_->Keep(StringLiteral(t.text(text_)))), t, out) && Advance();
      case TokenKind::kBinary:
        return AddLiteral(Value::Binary(ast_->Keep(BinaryLiteral(t.text(text_)))), t, out) && Advance();
      case TokenKind::kTrue: return AddLiteral(Value::Boolean(true), t, out) && Advance();
      case TokenKind::kFalse: return AddLiteral(Value::Boolean(false), t, out) && Advance();
      case TokenKind::kNan:
        return AddLiteral(Value::Double(std::numeric_limits<double>::quiet_NaN()), t, out) && Advance();
      case TokenKind::kInf:
        return AddLiteral(Value::Double(std::numeric_limits<double>::infinity()), t, out) && Advance();
      case TokenKind::kIdentifier: return ParseIdentifier(out);
      case TokenKind::kDelimitedIdentifier: {
        FieldRef ref;
        ref.section = Section::kApplicationProperties;
        ref.name = Undelimit(t);
        if (!Advance()) return false;
        return ParsePath(&ref) && AddField(std::move(ref), t, out);
      }
      case TokenKind::kNull:
        return FailAtToken(ErrorCode::kSyntax, "NULL is not a value here; test for it with IS NULL");
      case TokenKind::kEnd:
        return FailAtToken(ErrorCode::kUnexpectedEnd, "expected an expression, found the end of the expression");
      default:
        if (IsKeyword(t.kind)) {
          return FailAtToken(ErrorCode::kSyntax,
                             "expected an expression, found the keyword " + std::string(TokenKindName(t.kind)) +
                                 " (quote a property with that name as [" + std::string(t.text(text_)) + "])");
        }
        return FailAtToken(ErrorCode::kSyntax, "expected an expression, found " + Describe(t));
    }
  }

  // The name inside `[...]` (`]]` stands for `]`) or, in the JMS dialect, `"..."` (`""` for `"`).
  std::string Undelimit(const Token& t) const {
    std::string_view raw = t.text(text_);
    const char close = raw[0] == '"' ? '"' : ']';
    std::string s;
    s.reserve(raw.size());
    for (size_t i = 1; i + 1 < raw.size(); ++i) {
      s += raw[i];
      if (raw[i] == close) ++i;
    }
    return s;
  }

  bool ParseInteger(const Token& t, uint32_t* out) {
    Value value;
    std::string why;
    if (!IntegerLiteral(t.text(text_), options_.dialect, &value, &why)) {
      return Fail(ErrorCode::kInvalidNumber, t.position, t.length, std::move(why));
    }
    return AddLiteral(value, t, out);
  }

  bool ParseFloating(const Token& t, uint32_t* out) {
    Value value;
    std::string why;
    if (!FloatingLiteral(t.text(text_), options_.dialect, &value, &why)) {
      return Fail(ErrorCode::kInvalidNumber, t.position, t.length, std::move(why));
    }
    return AddLiteral(value, t, out);
  }

  bool ParseIdentifier(uint32_t* out) {
    Token t = cur_;
    std::string_view name = t.text(text_);
    if (next_.kind == TokenKind::kLeftParen) return ParseFunction(out);
    if (options_.dialect == Dialect::kJms && name.substr(0, 3) == "JMS") {
      bool handled = false;
      if (!ParseJmsIdentifier(t, &handled, out)) return false;
      if (handled) return true;
    }
    FieldRef ref;
    if (next_.kind == TokenKind::kDot) {
      if (!LookupSection(name, &ref.section)) {
        return Fail(ErrorCode::kUnknownSection, t.position, t.length,
                    "unknown section '" + std::string(name) +
                        "' (sections: header/h, delivery_annotations/d, message_annotations/m, "
                        "properties/p, application_properties/a, footer/f)");
      }
      if (!Advance() || !Advance()) return false;  // section, '.'
      Token field = cur_;
      if (field.kind == TokenKind::kDelimitedIdentifier) {
        ref.name = Undelimit(field);
      } else if (field.kind == TokenKind::kIdentifier || IsKeyword(field.kind)) {
        ref.name = std::string(field.text(text_));
      } else {
        return FailAtToken(ErrorCode::kSyntax,
                           "expected a field name after '" + std::string(name) + ".', found " + Describe(field));
      }
      if (ref.section == Section::kHeader || ref.section == Section::kProperties) {
        if (!ResolveSpecField(field, &ref)) return false;
      }
      if (!Advance()) return false;
    } else {
      ref.section = Section::kApplicationProperties;
      ref.name = std::string(name);
      if (!Advance()) return false;
    }
    return ParsePath(&ref) && AddField(std::move(ref), t, out);
  }

  // Header and properties fields: see ResolveSpecFieldName.
  bool ResolveSpecField(const Token& field, FieldRef* ref) {
    std::string spec, known;
    if (!ResolveSpecFieldName(ref->section, ref->name, &spec, &known)) {
      bool header = ref->section == Section::kHeader;
      return Fail(ErrorCode::kUnknownField, field.position, field.length,
                  std::string("unknown ") + (header ? "header" : "properties") + " field '" + ref->name +
                      "' (fields: " + known + ")");
    }
    ref->name = std::move(spec);
    return true;
  }

  // Composite access: '.key' / '.[key]' into a map, '[n]' into a list or array.
  bool ParsePath(FieldRef* ref) {
    while (true) {
      if (cur_.kind == TokenKind::kDot) {
        if (!Advance()) return false;
        PathStep step;
        step.kind = PathStep::Kind::kKey;
        if (cur_.kind == TokenKind::kDelimitedIdentifier) {
          step.key = Undelimit(cur_);
        } else if (cur_.kind == TokenKind::kIdentifier || IsKeyword(cur_.kind)) {
          step.key = std::string(cur_.text(text_));
        } else {
          return FailAtToken(ErrorCode::kSyntax, "expected a map key after '.', found " + Describe(cur_));
        }
        ref->path.push_back(std::move(step));
        if (!Advance()) return false;
      } else if (cur_.kind == TokenKind::kDelimitedIdentifier && cur_.text(text_)[0] == '[') {
        std::string_view inner = cur_.text(text_).substr(1, cur_.length - 2);
        uint64_t index = 0;
        auto [ptr, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), index);
        bool digits_only =
            !inner.empty() && std::all_of(inner.begin(), inner.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits_only) {
          return FailAtToken(ErrorCode::kSyntax,
                             "a list index must be a non-negative integer, found " + Describe(cur_));
        }
        if (ec != std::errc() || ptr != inner.data() + inner.size()) {
          return FailAtToken(ErrorCode::kInvalidNumber, "list index out of range");
        }
        PathStep step;
        step.kind = PathStep::Kind::kIndex;
        step.index = index;
        ref->path.push_back(std::move(step));
        if (!Advance()) return false;
      } else {
        return true;
      }
      if (ref->path.size() > max_depth_) {
        return FailAtToken(ErrorCode::kTooDeep, "field path longer than " + std::to_string(max_depth_) + " steps");
      }
    }
  }

  bool ParseFunction(uint32_t* out) {
    Token t = cur_;
    std::string_view name = t.text(text_);
    const FunctionEntry* entry = LookupFunction(name);
    if (entry == nullptr) {
      return Fail(ErrorCode::kUnknownFunction, t.position, t.length,
                  "unknown function '" + std::string(name) +
                      "' (functions: UTC, LOWER, UPPER, LEFT, RIGHT, SUBSTRING, DATE, REGEXP_LIKE)");
    }
    if (entry->function == Function::kRegexpLike && options_.dialect == Dialect::kJms) {
      return Fail(ErrorCode::kUnknownFunction, t.position, t.length,
                  "REGEXP_LIKE is sift's extension of the SQL filter; a JMS selector cannot use it");
    }
    if (!Advance() || !Advance()) return false;  // name, '('
    Node n;
    n.kind = NodeKind::kFunction;
    n.function = entry->function;
    if (cur_.kind != TokenKind::kRightParen) {
      while (true) {
        uint32_t arg;
        if (!ParseOr(&arg)) return false;
        n.children.push_back(arg);
        if (cur_.kind == TokenKind::kComma) {
          if (!Advance()) return false;
          continue;
        }
        if (cur_.kind != TokenKind::kRightParen) {
          return FailAtToken(ErrorCode::kSyntax, "expected ',' or ')' in the arguments of " + std::string(entry->name) +
                                                     ", found " + Describe(cur_));
        }
        break;
      }
    }
    if (!Advance()) return false;  // ')'
    size_t argc = n.children.size();
    if (argc < entry->min_args || argc > entry->max_args) {
      std::string expected = entry->min_args == entry->max_args
                                 ? std::to_string(entry->min_args)
                                 : std::to_string(entry->min_args) + " or " + std::to_string(entry->max_args);
      return Fail(ErrorCode::kArgumentCount, t.position, t.length,
                  std::string(entry->name) + " takes " + expected + " argument" + (entry->max_args == 1 ? "" : "s") +
                      ", found " + std::to_string(argc));
    }
    return AddNode(std::move(n), t, out);
  }

  // The AMQP JMS mapping (parser_names.h): JMS header names -> AMQP fields.
  bool ParseJmsIdentifier(const Token& t, bool* handled, uint32_t* out) {
    std::string_view name = t.text(text_);
    const JmsMapping* m = LookupJmsHeader(name);
    if (m == nullptr || next_.kind == TokenKind::kDot || next_.kind == TokenKind::kDelimitedIdentifier) {
      return true;  // not a JMS header name: an ordinary application property
    }
    *handled = true;
    if (!Advance()) return false;
    FieldRef ref;
    ref.section = m->field.section == amqp::Section::kHeader ? Section::kHeader : Section::kProperties;
    ref.name = std::string(m->field.name);
    uint32_t field;
    if (!AddField(std::move(ref), t, &field)) return false;
    if (name == "JMSXDeliveryCount") {
      // JMSXDeliveryCount counts this delivery too: header delivery-count + 1.
      uint32_t one;
      if (!AddLiteral(Value::Long(1), t, &one)) return false;
      Node n;
      n.kind = NodeKind::kBinary;
      n.op = Op::kAdd;
      n.children = {field, one};
      return AddNode(std::move(n), t, out);
    }
    if (m->function == Function::kNone) {
      *out = field;
      return true;
    }
    Node n;
    n.kind = NodeKind::kFunction;
    n.function = m->function;
    n.children.push_back(field);
    return AddNode(std::move(n), t, out);
  }

  std::string_view text_;
  const CompileOptions& options_;
  const size_t max_depth_;
  Lexer lexer_;
  Ast* ast_;
  Error* error_;
  Token cur_;
  Token next_;
  size_t depth_ = 0;
  std::vector<uint32_t> heights_;
};

}  // namespace

bool ParseExpression(std::string_view text, const CompileOptions& options, Ast* ast, Error* error) {
  *ast = Ast();
  *error = Error();
  if (IsNoJmsSelector(text, options)) text = "TRUE";
  Parser parser(text, options, ast, error);
  if (!parser.Parse()) {
    if (error->code == ErrorCode::kNone) error->code = ErrorCode::kSyntax;
    return false;
  }
  return true;
}

bool IsNoJmsSelector(std::string_view text, const CompileOptions& options) {
  return options.dialect == Dialect::kJms && text.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos;
}

}  // namespace sift::selector
