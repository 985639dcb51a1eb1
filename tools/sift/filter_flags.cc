// FILTER flags: registration, compilation and the bad-selector error with its caret.
#include "tools/sift/filter_flags.h"

#include <CLI/CLI.hpp>

#include <cstdio>

#include "base/utf8.h"
#include "tools/sift/command.h"

namespace sift::tools {

FilterSpec FilterFlags::Spec() const {
  FilterSpec spec;
  for (const std::string& e : sql) spec.AddSql(e);
  for (const std::string& e : jms) spec.AddJms(e);
  for (const std::string& j : properties) spec.AddProperties(j);
  for (const std::string& j : application_properties) spec.AddApplicationProperties(j);
  return spec;
}

void AddFilterFlags(CLI::App* command, FilterFlags* flags, bool required) {
  auto* group = command->add_option_group("FILTER", "Filters (several are ANDed)");
  group->add_option("-e,--sql", flags->sql, "SQL filter expression (AMQP filter expressions section 6)")
      ->allow_extra_args(false)
      ->type_name("EXPR");
  group->add_option("--jms", flags->jms, "JMS message selector")->allow_extra_args(false)->type_name("EXPR");
  group
      ->add_option("--properties", flags->properties,
                   "Properties filter: JSON object of properties fields and reference values "
                   "(strings may start with &p: prefix, &s: suffix, && literal &)")
      ->allow_extra_args(false)
      ->type_name("JSON");
  group
      ->add_option("--application-properties", flags->application_properties,
                   "Application-properties filter: JSON object of keys and reference values")
      ->allow_extra_args(false)
      ->type_name("JSON");
  if (required) group->require_option(1, 0);
}

std::string CaretLines(std::string_view text, size_t position) {
  if (position > text.size()) position = text.size();
  size_t line_start = text.rfind('\n', position == 0 ? std::string_view::npos : position - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  if (position < text.size() && text[position] == '\n' && position > 0 && line_start > position) line_start = 0;
  size_t line_end = text.find('\n', position);
  if (line_end == std::string_view::npos) line_end = text.size();
  std::string out = "  ";
  out.append(text.substr(line_start, line_end - line_start));
  out += "\n  ";
  for (size_t i = line_start; i < position; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (base::IsUtf8Continuation(c)) continue;  // same column
    out += c == '\t' ? '\t' : ' ';
  }
  out += "^\n";
  return out;
}

bool CompileFilterFlags(const FilterFlags& flags, CompiledFilter* out, std::string_view origin) {
  FilterSpec spec = flags.Spec();
  FilterError error;
  Status status = spec.Compile(out, &error);
  if (status.ok()) return true;
  // Name the flag the user typed, and the column (1-based, in code points) of the problem.
  static constexpr const char* kFlag[] = {"--sql", "--jms", "--properties", "--application-properties"};
  const FilterClause& clause = spec.clauses()[error.clause];
  size_t nth = 0, of_kind = 0;
  for (size_t i = 0; i < spec.clauses().size(); ++i) {
    if (spec.clauses()[i].kind != clause.kind) continue;
    ++of_kind;
    if (i <= error.clause) ++nth;
  }
  std::string where = origin.empty() ? kFlag[static_cast<int>(clause.kind)] : std::string(origin);
  if (origin.empty() && of_kind > 1) where += " #" + std::to_string(nth);
  if (error.has_position) {
    size_t column = 1;
    const size_t line_start = [&] {
      size_t p = clause.text.rfind('\n', error.position == 0 ? std::string::npos : error.position - 1);
      return p == std::string::npos ? size_t{0} : p + 1;
    }();
    for (size_t i = line_start; i < error.position && i < clause.text.size(); ++i) {
      if (!base::IsUtf8Continuation(static_cast<uint8_t>(clause.text[i]))) ++column;
    }
    where += " column " + std::to_string(column);
  }
  PrintError(status.what(), where, error.why);
  if (error.has_position) {
    std::string caret = CaretLines(clause.text, error.position);
    std::fwrite(caret.data(), 1, caret.size(), stderr);
  }
  return false;
}

}  // namespace sift::tools
