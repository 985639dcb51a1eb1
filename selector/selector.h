// A compiled selector: the public entry point of the selector language.
//
// Compile once, evaluate many (the RE2 model): compiling parses, checks and plans an expression into
// an immutable program; a bad expression yields a Selector in an error state (ok() false, error() says
// what and where), never an exception. A Selector is cheap to copy (the program is shared), immutable,
// and safe to evaluate from many threads at once, each thread with its own EvalContext.
//
// Evaluation follows SQL three-valued logic (filter expressions section 6) and never fails: anything
// wrong for one message (a missing field, unlike types, division by zero) makes the result UNKNOWN for
// that message. Only kTrue delivers a message.
#ifndef SIFT_SELECTOR_SELECTOR_H_
#define SIFT_SELECTOR_SELECTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "selector/error.h"
#include "selector/eval_context.h"
#include "selector/field_source.h"
#include "selector/required_text.h"
#include "selector/value.h"

namespace sift::selector {

enum class Truth : uint8_t { kFalse, kTrue, kUnknown };

enum class Dialect : uint8_t {
  kSql,  // amqp:sql-filter (filter expressions section 6)
  kJms,  // apache.org:selector-filter:string: JMS identifiers and Java literal forms
};

// Deeper nesting than this is refused whatever Limits::max_depth says: it bounds the stack the parser
// and every recursive pass over the tree use (about 10 frames per level), also under sanitizers.
inline constexpr size_t kMaxSupportedDepth = 500;

// Limits against hostile expressions, all enforced at compile time. The language's limits are all
// here.
struct Limits {
  size_t max_length = 4096;        // bytes of expression text
  size_t max_depth = 256;          // nesting of sub-expressions (values above kMaxSupportedDepth act as it)
  size_t max_in_list = 1024;       // members of one IN list
  size_t max_like_pattern = 1024;  // bytes of one LIKE pattern
  // Memory one REGEXP_LIKE pattern may use (RE2's max_mem: its compiled program and DFA cache), and
  // the instructions of its compiled program: a pattern that needs more is refused at compile time.
  // re2 matches with its DFA while the states a text leads to fit in the memory, else by simulating
  // the program, at most a few nanoseconds per instruction per byte: the program bound is the bound
  // on what one byte of text costs (docs/selector-semantics.md, "REGEXP_LIKE").
  size_t max_regexp_memory = 1024 * 1024;
  size_t max_regexp_program = 1024;
};

struct CompileOptions {
  Dialect dialect = Dialect::kSql;
  Limits limits;
};

class Program;  // the compiled, immutable form (selector/program.h)

class Selector {
 public:
  // Compiles an SQL filter expression (or a JMS selector, per options.dialect).
  static Selector Compile(std::string_view expression, const CompileOptions& options = {});

  // Compiles a property filter (filter expressions section 4.1): every listed field must match its
  // reference value. Properties field names are the spec's, with hyphens ("message-id", "subject");
  // a string reference may carry the &p: / &s: / && modifiers. Reference values are copied.
  static Selector CompilePropertiesFilter(std::span<const std::pair<std::string, Value>> fields);
  static Selector CompileApplicationPropertiesFilter(std::span<const std::pair<std::string, Value>> fields);

  // The conjunction of several filters (a filter-set, AMQP core 3.5.8), with one shared field list so
  // a source reads each section once for all of them. An error in any part is the result's error.
  static Selector AllOf(std::span<const Selector> parts);

  // A selector that matches every message (an empty filter-set).
  Selector();

  // A selector in the error state (ok() false, error() as given): what a caller hands on when a filter
  // failed before it reached the compiler (a property filter's reference values), so that nothing
  // evaluates it by mistake.
  static Selector Failed(Error error);

  bool ok() const;
  const Error& error() const;  // meaningful only when !ok()

  // The fields the program reads, in slot order (the FieldSource contract). Empty when !ok().
  const std::vector<FieldRef>& fields() const;

  // Necessary conditions for TRUE that a source can test on a message's raw bytes before reading any
  // field (selector/required_text.h); empty when none can be derived, or when !ok().
  const std::vector<RequiredText>& required_texts() const;

  // Evaluates against the current message of `source`. Allocates nothing on the heap once `context`
  // has warmed up. Returns kUnknown when !ok().
  Truth Evaluate(FieldSource& source, EvalContext& context) const;

  bool Matches(FieldSource& source, EvalContext& context) const { return Evaluate(source, context) == Truth::kTrue; }

  // The plan's estimated cost of one evaluation, at most, in units of about one field read (what
  // Explain() prints); 0 for the empty filter-set or when !ok(). For a caller deciding whether work
  // done before the evaluation (a prefilter) pays.
  double estimated_cost() const;

  // A readable plan: fields read, sections touched, the fast path chosen for each LIKE / IN /
  // comparison, the evaluation order of conjuncts, and a cost estimate.
  std::string Explain() const;

 private:
  friend class ChunkPredicate;  // reads the program (selector/chunk_predicate.h)
  std::shared_ptr<const Program> program_;
  std::shared_ptr<const Error> error_;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_SELECTOR_H_
