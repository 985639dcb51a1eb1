// Arithmetic and concatenation under the selector's rules (docs/selector-semantics.md, "Arithmetic").
//
// - A missing / null operand, or an operand of the wrong class, gives UNKNOWN (returned as Null).
// - Two integers (any of byte..long, ubyte..ulong, timestamp): computed exactly; the result is a long
//   when it fits in int64, a ulong when it is non-negative and fits in uint64, and UNKNOWN otherwise
//   (integer overflow never wraps). Division truncates toward zero; % takes the dividend's sign.
// - Any float / double / decimal operand: computed in double, result double.
// - Division or modulo by zero (integer or floating): UNKNOWN.
// - '+' of two text values (string, symbol, char): their concatenation, a string in the context's
//   scratch.
#ifndef SIFT_SELECTOR_ARITHMETIC_H_
#define SIFT_SELECTOR_ARITHMETIC_H_

#include "selector/ast.h"
#include "selector/eval_context.h"
#include "selector/value.h"

namespace sift::selector {

// op is one of kAdd, kSub, kMul, kDiv, kMod.
Value Arithmetic(Op op, const Value& a, const Value& b, EvalContext& context);

// op is kNegate or kPlus.
Value UnaryArithmetic(Op op, const Value& a);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_ARITHMETIC_H_
