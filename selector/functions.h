// The functions of the language (filter expressions section 6; docs/selector-language.md) and the
// JMS dialect's conversions, evaluated on Values (docs/selector-semantics.md, "Functions", "JMS
// dialect").
//
// A function never fails: an argument that is missing, null or of the wrong type makes the result
// UNKNOWN (returned as Null; Missing when the JMS conversion's field is absent and has no default).
// Results that are pieces of the argument (LEFT, RIGHT, SUBSTRING, an unchanged LOWER / UPPER) are
// views into it; new text goes to the context's scratch. Nothing here allocates on the heap once the
// scratch has warmed up.
#ifndef SIFT_SELECTOR_FUNCTIONS_H_
#define SIFT_SELECTOR_FUNCTIONS_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "selector/ast.h"
#include "selector/eval_context.h"
#include "selector/value.h"

namespace sift::selector {

// `args` has the arity the parser checked.
Value CallFunction(Function fn, std::span<const Value> args, EvalContext& context);

// Number of code points in UTF-8 text; a byte that starts no valid sequence counts as one.
size_t CodePointCount(std::string_view text);

// Byte offset of code point number `n` (0-based) in `text`, or text.size() if there are fewer.
size_t CodePointOffset(std::string_view text, size_t n);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_FUNCTIONS_H_
