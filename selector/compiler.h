// The compiler: Ast -> Program (program.h).
//
// Steps, in order:
// 1. lower each AST node to an instruction, folding every sub-expression made only of constants by
//    evaluating it once (same code as at run time, so folding never changes a result); AND / OR drop
//    operands that cannot decide the result (TRUE in AND, FALSE in OR) and become a constant when an
//    operand decides it (FALSE in AND, TRUE in OR); nested AND / OR chains are flattened;
// 2. choose fast paths: `field op constant` comparisons with the constant pre-decoded; LIKE patterns
//    compiled to exact / prefix / suffix / contains / segments matchers; IN lists of constants
//    indexed (hash for text, sorted for numbers);
// 3. order AND / OR operands by estimated cost, then selectivity (stable, so deterministic);
// 4. renumber field slots so fields() lists only fields some instruction still reads.
#ifndef SIFT_SELECTOR_COMPILER_H_
#define SIFT_SELECTOR_COMPILER_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "selector/ast.h"
#include "selector/error.h"
#include "selector/program.h"

namespace sift::selector {

class Compiler {
 public:
  // Compiles an expression; nullptr and *error filled when it is not valid.
  static std::shared_ptr<const Program> CompileExpression(std::string_view text, const CompileOptions& options,
                                                          Error* error);

  // Property filters (filter expressions section 4.1). `application` selects the
  // application-properties filter (keys are application property names) over the properties
  // filter (keys are properties field names with hyphens).
  static std::shared_ptr<const Program> CompilePropertyFilter(std::span<const std::pair<std::string, Value>> fields,
                                                              bool application, Error* error);

  // The conjunction of several programs, with one merged field list.
  static std::shared_ptr<const Program> Merge(std::span<const std::shared_ptr<const Program>> parts);
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_COMPILER_H_
