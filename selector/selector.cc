// The Selector facade (see selector.h).
#include "selector/selector.h"

#include "selector/ast.h"
#include "selector/program.h"

namespace sift::selector {
namespace {
const std::vector<FieldRef>& NoFields() {
  static const std::vector<FieldRef> kNone;
  return kNone;
}
const Error& NoError() {
  static const Error kNone;
  return kNone;
}
}  // namespace

Selector::Selector() = default;

Selector Selector::Compile(std::string_view expression, const CompileOptions& options) {
  Selector s;
  auto program = std::make_shared<Program>();
  Error error;
  if (!ParseExpression(expression, options, &program->ast, &error)) {
    s.error_ = std::make_shared<Error>(std::move(error));
    return s;
  }
  program->fields = program->ast.fields;
  s.program_ = std::move(program);
  return s;
}

Selector Selector::CompilePropertiesFilter(std::span<const std::pair<std::string, Value>>) { return Selector(); }
Selector Selector::CompileApplicationPropertiesFilter(std::span<const std::pair<std::string, Value>>) {
  return Selector();
}
Selector Selector::AllOf(std::span<const Selector>) { return Selector(); }

bool Selector::ok() const { return error_ == nullptr; }
const Error& Selector::error() const { return error_ ? *error_ : NoError(); }
const std::vector<FieldRef>& Selector::fields() const { return program_ ? program_->fields : NoFields(); }
Truth Selector::Evaluate(FieldSource&, EvalContext&) const { return Truth::kUnknown; }
std::string Selector::Explain() const { return program_ ? program_->ast.ToString() : std::string(); }

}  // namespace sift::selector
