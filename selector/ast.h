// The abstract syntax tree of a selector expression, and the parser entry point.
//
// ParseExpression() lexes, parses, resolves names and runs the semantic checks of the language
// (docs/selector-language.md, docs/selector-semantics.md), so an expression it accepts is exactly
// one that Selector::Compile accepts, and it reports the same Error. The tree it returns is *not*
// folded or optimised: it is the expression as written, with these resolutions already made:
// - every field reference is resolved to a FieldRef (section + spec name with hyphens + path), listed
//   once in Ast::fields, and referenced by index from kField / kExists nodes;
// - JMS identifiers (JMS dialect) become kField nodes, or kFunction nodes with a JMS conversion
//   function over a field (see Function), per the AMQP JMS mapping;
// - literals are typed Values (long / ulong / double / float / boolean / string / binary), their bytes
//   owned by the Ast;
// - `x BETWEEN a AND b`, `x IN (...)`, `x LIKE p ESCAPE e` keep their own node kinds.
//
// The tree is a flat array of nodes addressed by index (children before parents is NOT guaranteed);
// its depth is bounded by Limits::max_depth, so a recursive walk is safe.
#ifndef SIFT_SELECTOR_AST_H_
#define SIFT_SELECTOR_AST_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "selector/error.h"
#include "selector/field_source.h"
#include "selector/selector.h"
#include "selector/value.h"

namespace sift::selector {

enum class NodeKind : uint8_t {
  kLiteral,   // value
  kField,     // field: index into Ast::fields; evaluates to the field's Value (kMissing if absent)
  kUnary,     // op in {kNot, kNegate, kPlus}; children[0]
  kBinary,    // op in {kAnd, kOr, comparisons, arithmetic}; children[0], children[1]
  kLike,      // children[0] operand, children[1] pattern (a string literal),
              // children[2] escape (a one-character string literal) if present; negated: NOT LIKE
  kIn,        // children[0] operand, children[1..] members (any expressions); negated: NOT IN
  kBetween,   // children[0] operand, children[1] low, children[2] high; negated: NOT BETWEEN
  kIsNull,    // children[0]; negated: IS NOT NULL
  kExists,    // field: the field tested for presence (children empty)
  kFunction,  // function; children are the arguments
};

enum class Op : uint8_t {
  kNone,
  kAnd,
  kOr,
  kNot,
  kEq,  // =
  kNe,  // <> and !=
  kLt,
  kLe,
  kGt,
  kGe,
  kAdd,  // numbers, or concatenation of strings / symbols
  kSub,
  kMul,
  kDiv,
  kMod,
  kNegate,  // unary -
  kPlus,    // unary +
};

enum class Function : uint8_t {
  kNone,
  // Callable by name (filter expressions section 6).
  kUtc,        // UTC(): timestamp, now
  kLower,      // LOWER(s)
  kUpper,      // UPPER(s)
  kLeft,       // LEFT(s, n)
  kRight,      // RIGHT(s, n)
  kSubstring,  // SUBSTRING(s, start [, length])
  kDate,       // DATE(iso8601): timestamp
  // sift's extension of the SQL filter (not in JMS selectors): a condition.
  kRegexpLike,  // REGEXP_LIKE(s, pattern [, flags]): pattern and flags are string literals
  // Produced by the JMS dialect only; one argument, a kField node (docs/selector-semantics.md):
  kJmsMessageId,      // properties message-id as the string Qpid JMS shows ("ID:...")
  kJmsCorrelationId,  // properties correlation-id as the string Qpid JMS shows
  kJmsDeliveryMode,   // header durable: 'PERSISTENT' if true, else 'NON_PERSISTENT'
  kJmsRedelivered,    // header delivery-count: TRUE if > 0
  kJmsTime,           // a timestamp field as a long (JMSTimestamp, JMSExpiration)
  kJmsUserId,         // properties user-id (binary) as the string Qpid JMS shows (JMSXUserID)
};

std::string_view OpName(Op op);  // "AND", "=", "<>", "+", "-" (unary: "NEG")
// The comparison with its operands swapped (a < b is b > a); = and <> are their own, as is any other op.
Op MirroredComparison(Op op);
std::string_view FunctionName(Function fn);  // "UPPER", "JMS_MESSAGE_ID", ...

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  Op op = Op::kNone;                    // kUnary, kBinary
  Function function = Function::kNone;  // kFunction
  bool negated = false;                 // kLike, kIn, kBetween, kIsNull
  uint32_t field = 0;                   // kField, kExists: index into Ast::fields
  uint32_t position = 0;                // byte offset of the node's main token in the text
  uint32_t length = 0;                  // byte length of that token
  Value value;                          // kLiteral (byte views into Ast-owned storage)
  std::vector<uint32_t> children;       // indices into Ast::nodes
};

// Move-only: literal Values view bytes the Ast owns.
class Ast {
 public:
  Ast() = default;
  Ast(Ast&&) = default;
  Ast& operator=(Ast&&) = default;
  Ast(const Ast&) = delete;
  Ast& operator=(const Ast&) = delete;

  std::vector<Node> nodes;
  std::vector<FieldRef> fields;  // deduplicated, in order of first appearance
  uint32_t root = 0;

  // Keeps a copy of `bytes` alive as long as the Ast and returns a view of it.
  std::string_view Keep(std::string_view bytes);

  // The tree as one S-expression, for tests and debugging:
  // (AND (= a.color 'red') (NOT (LIKE p.subject 'x%' ESCAPE '!'))).
  std::string ToString() const;

 private:
  std::deque<std::string> storage_;  // deque: elements never move, so views stay valid
};

// Parses `text` per `options` (dialect and limits). On success fills *ast and returns true; on failure
// fills *error and returns false (*ast is then unspecified). Never throws, never recurses deeper than
// options.limits.max_depth levels of the expression.
bool ParseExpression(std::string_view text, const CompileOptions& options, Ast* ast, Error* error);

// Jakarta Messaging 3.1, section 3.8.1: an empty JMS selector "is treated as a null and indicates
// that there is no message selector" (blank counts as empty). ParseExpression() parses it as TRUE:
// every message matches. A SQL filter must hold an expression.
bool IsNoJmsSelector(std::string_view text, const CompileOptions& options);

// "header.priority", "properties.message-id", "application_properties.color",
// "message_annotations.x-opt-route.region", "application_properties.tags[0]".
std::string FieldRefName(const FieldRef& ref);
std::string_view SectionIdentifier(Section section);  // "header", "delivery_annotations", ...

// A literal as the language would write it: 42, 1.5, NAN, 'it''s', 0x0A0B, TRUE.
std::string LiteralToString(const Value& value);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_AST_H_
