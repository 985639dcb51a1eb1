// A tiny FieldSource for the selector's own unit tests: values keyed by FieldRefName() text
// ("application_properties.color", "header.priority"), looked up once per Bind() into a slot array so
// that Get() is an array read and never allocates. Header defaults are NOT applied here (tests that
// need them set the fields explicitly).
#ifndef SIFT_TESTS_SELECTOR_SIMPLE_SOURCE_H_
#define SIFT_TESTS_SELECTOR_SIMPLE_SOURCE_H_

#include <map>
#include <string>
#include <vector>

#include "selector/ast.h"
#include "selector/field_source.h"
#include "selector/selector.h"

namespace sift::selector::testing {

class SimpleSource final : public FieldSource {
 public:
  // Values by field name; byte views must outlive the source.
  void Set(const std::string& name, Value v) { values_[name] = v; }
  void Clear() { values_.clear(); }

  // Resolves `fields` (a Selector's fields()) against the current values.
  void Bind(const std::vector<FieldRef>& fields) {
    slots_.clear();
    for (const FieldRef& f : fields) {
      auto it = values_.find(FieldRefName(f));
      slots_.push_back(it == values_.end() ? Value::Missing() : it->second);
    }
  }

  Value Get(uint32_t slot) override { return slot < slots_.size() ? slots_[slot] : Value::Missing(); }

 private:
  std::map<std::string, Value> values_;
  std::vector<Value> slots_;
};

// Compiles `expression` and evaluates it once against `source` (bound to the selector's fields).
inline Truth Eval(const std::string& expression, SimpleSource& source, Dialect dialect = Dialect::kSql,
                  EvalContext* context = nullptr) {
  CompileOptions options;
  options.dialect = dialect;
  Selector s = Selector::Compile(expression, options);
  if (!s.ok()) return Truth::kUnknown;
  source.Bind(s.fields());
  EvalContext local;
  return s.Evaluate(source, context ? *context : local);
}

}  // namespace sift::selector::testing

#endif  // SIFT_TESTS_SELECTOR_SIMPLE_SOURCE_H_
