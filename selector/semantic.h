// Semantic checks on a parsed expression: constructs that are wrong for every message.
//
// Each node gets a static type (what it can evaluate to whatever the message holds). A field can hold
// anything, so checks only fire where a constant or an operator result can never be valid: a
// non-boolean where a condition is required, arithmetic on strings / booleans / binaries, a function
// argument of the wrong constant type, DATE() of a constant that is not a date-time, a LIKE operand
// that can never be a string, a REGEXP_LIKE pattern or flags that are not string literals or that re2
// refuses (the position then points into the pattern). These are compile errors with the offending node's position
// (docs/selector-language.md, "Operators and functions": wrong for every message = compile error).
#ifndef SIFT_SELECTOR_SEMANTIC_H_
#define SIFT_SELECTOR_SEMANTIC_H_

#include <string_view>

#include "selector/ast.h"
#include "selector/error.h"

namespace sift::selector {

// kAny: anything (a field); kNumberOrString: the result of '+' on two fields, never a boolean.
enum class StaticType : uint8_t { kAny, kBoolean, kNumeric, kString, kTimestamp, kBinary, kNumberOrString, kOther };

// Checks the whole tree; on failure fills *error (position, token from `text`) and returns false.
bool CheckSemantics(std::string_view text, const Ast& ast, const Limits& limits, Error* error);

// The static type of a node (valid for any tree CheckSemantics accepted).
StaticType StaticTypeOf(const Ast& ast, uint32_t node);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_SEMANTIC_H_
