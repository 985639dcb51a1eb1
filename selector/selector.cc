// The Selector facade (see selector.h): compiles through Compiler, evaluates through Program.
#include "selector/selector.h"

#include "selector/compiler.h"
#include "selector/program.h"

namespace sift::selector {
namespace {

const std::vector<FieldRef>& NoFields() {
  static const std::vector<FieldRef> kNone;
  return kNone;
}

const std::vector<RequiredText>& NoRequiredTexts() {
  static const std::vector<RequiredText> kNone;
  return kNone;
}

const Error& NoError() {
  static const Error kNone;
  return kNone;
}

}  // namespace

Selector::Selector() = default;

Selector Selector::Failed(Error error) {
  Selector s;
  s.error_ = std::make_shared<const Error>(std::move(error));
  return s;
}

Selector Selector::Compile(std::string_view expression, const CompileOptions& options) {
  Selector s;
  Error error;
  s.program_ = Compiler::CompileExpression(expression, options, &error);
  if (!s.program_) s.error_ = std::make_shared<Error>(std::move(error));
  return s;
}

Selector Selector::CompilePropertiesFilter(std::span<const std::pair<std::string, Value>> fields) {
  Selector s;
  Error error;
  s.program_ = Compiler::CompilePropertyFilter(fields, false, &error);
  if (!s.program_) s.error_ = std::make_shared<Error>(std::move(error));
  return s;
}

Selector Selector::CompileApplicationPropertiesFilter(std::span<const std::pair<std::string, Value>> fields) {
  Selector s;
  Error error;
  s.program_ = Compiler::CompilePropertyFilter(fields, true, &error);
  if (!s.program_) s.error_ = std::make_shared<Error>(std::move(error));
  return s;
}

Selector Selector::AllOf(std::span<const Selector> parts) {
  std::vector<std::shared_ptr<const Program>> programs;
  for (const Selector& part : parts) {
    if (!part.ok()) return part;  // the first error is the result's error
    if (part.program_) programs.push_back(part.program_);
  }
  Selector s;
  if (!programs.empty()) s.program_ = Compiler::Merge(programs);
  return s;
}

bool Selector::ok() const { return error_ == nullptr; }

const Error& Selector::error() const { return error_ ? *error_ : NoError(); }

const std::vector<FieldRef>& Selector::fields() const { return program_ ? program_->fields() : NoFields(); }

const std::vector<RequiredText>& Selector::required_texts() const {
  return program_ && !error_ ? program_->required_texts() : NoRequiredTexts();
}

double Selector::estimated_cost() const { return program_ && !error_ ? program_->estimated_cost() : 0; }

Truth Selector::Evaluate(FieldSource& source, EvalContext& context) const {
  if (error_) return Truth::kUnknown;
  if (!program_) return Truth::kTrue;  // the empty filter-set matches every message
  return program_->Evaluate(source, context);
}

std::string Selector::Explain() const {
  if (error_) return "invalid selector: " + error_->ToString() + "\n";
  if (!program_) return "selector: empty filter-set (matches every message)\n";
  return program_->Explain();
}

}  // namespace sift::selector
