// The compiled, immutable form of a selector (selector.h): placeholder until the compiler lands.
#ifndef SIFT_SELECTOR_PROGRAM_H_
#define SIFT_SELECTOR_PROGRAM_H_

#include <vector>

#include "selector/ast.h"

namespace sift::selector {

class Program {
 public:
  Ast ast;
  std::vector<FieldRef> fields;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_PROGRAM_H_
