// Program::Explain: a readable plan (fields, sections, fast paths, evaluation order, cost).
#include <cstdio>
#include <set>
#include <string>

#include "selector/program.h"

namespace sift::selector {
namespace {

std::string FormatCost(double cost) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", cost);
  return buf;
}

std::string_view OriginName(Program::Origin origin) {
  switch (origin) {
    case Program::Origin::kSql: return "SQL filter expression (amqp:sql-filter)";
    case Program::Origin::kJms: return "JMS selector (apache.org:selector-filter:string)";
    case Program::Origin::kPropertiesFilter: return "properties filter (amqp:properties-filter)";
    case Program::Origin::kApplicationPropertiesFilter:
      return "application-properties filter (amqp:application-properties-filter)";
    case Program::Origin::kAllOf: return "filter-set (all filters ANDed)";
  }
  return "?";
}

std::string ConstantText(const Value& v) {
  if (v.type == ValueType::kNull) return "UNKNOWN";
  std::string s = LiteralToString(v);
  return s;
}

}  // namespace

std::string Program::InstrSummary(const Instr& in) const {
  auto field = [&](uint32_t slot) { return FieldRefName(fields_[slot]); };
  auto sub = [&](uint32_t i) {
    const Instr& x = instrs_[i];
    std::string s = InstrSummary(x);
    bool simple = x.kind == InstrKind::kConst || x.kind == InstrKind::kField || x.kind == InstrKind::kFunction;
    return simple ? s : "(" + s + ")";
  };
  switch (in.kind) {
    case InstrKind::kConst: return ConstantText(in.constant);
    case InstrKind::kField: return field(in.slot);
    case InstrKind::kAnd:
    case InstrKind::kOr: {
      std::string out;
      for (uint32_t k = 0; k < in.count; ++k) {
        if (k > 0) out += in.kind == InstrKind::kAnd ? " AND " : " OR ";
        out += sub(children_[in.first + k]);
      }
      return out;
    }
    case InstrKind::kNot: return "NOT " + sub(in.a);
    case InstrKind::kCompare: return sub(in.a) + " " + std::string(OpName(in.op)) + " " + sub(in.b);
    case InstrKind::kCompareFieldConst:
      return field(in.slot) + " " + std::string(OpName(in.op)) + " " + ConstantText(in.constant);
    case InstrKind::kArith: return sub(in.a) + " " + std::string(OpName(in.op)) + " " + sub(in.b);
    case InstrKind::kUnaryArith: return std::string(in.op == Op::kNegate ? "-" : "+") + sub(in.a);
    case InstrKind::kLike:
      return sub(in.a) + (in.negated ? " NOT LIKE " : " LIKE ") +
             LiteralToString(Value::String(likes_[in.aux]->pattern()));
    case InstrKind::kRegexp: {
      const RegexpMatcher& m = *regexps_[in.aux];
      return "REGEXP_LIKE(" + sub(in.a) + ", " + LiteralToString(Value::String(m.pattern())) +
             (m.flags().empty() ? "" : ", " + LiteralToString(Value::String(m.flags()))) + ")";
    }
    case InstrKind::kInSet:
      return sub(in.a) + (in.negated ? " NOT IN " : " IN ") + "(" + std::to_string(sets_[in.aux]->size()) +
             " constants)";
    case InstrKind::kIn: {
      std::string out = sub(in.a) + (in.negated ? " NOT IN (" : " IN (");
      for (uint32_t k = 0; k < in.count; ++k) {
        if (k > 0) out += ", ";
        out += sub(children_[in.first + k]);
      }
      return out + ")";
    }
    case InstrKind::kBetween:
      return sub(in.a) + (in.negated ? " NOT BETWEEN " : " BETWEEN ") + sub(in.b) + " AND " + sub(in.c);
    case InstrKind::kIsNull: return sub(in.a) + (in.negated ? " IS NOT NULL" : " IS NULL");
    case InstrKind::kExists: return "EXISTS " + field(in.slot);
    case InstrKind::kFunction: {
      std::string out(FunctionName(in.function));
      out += '(';
      for (uint32_t k = 0; k < in.count; ++k) {
        if (k > 0) out += ", ";
        out += InstrSummary(instrs_[children_[in.first + k]]);
      }
      return out + ")";
    }
    case InstrKind::kPropertyMatch: {
      const PropertyMatcher& m = properties_[in.aux];
      switch (m.mode) {
        case PropertyMatcher::Mode::kAny: return field(in.slot) + " matches anything (null reference)";
        case PropertyMatcher::Mode::kEquals: return field(in.slot) + " equals " + ConstantText(m.reference);
        case PropertyMatcher::Mode::kPrefix: return field(in.slot) + " starts with '" + std::string(m.text) + "'";
        case PropertyMatcher::Mode::kSuffix: return field(in.slot) + " ends with '" + std::string(m.text) + "'";
      }
      return "?";
    }
  }
  return "?";
}

void Program::ExplainInstr(uint32_t i, int indent, std::string* out) const {
  const Instr& in = instrs_[i];
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  if (in.kind == InstrKind::kAnd || in.kind == InstrKind::kOr) {
    *out += pad + (in.kind == InstrKind::kAnd ? "AND" : "OR") + " of " + std::to_string(in.count) +
            ", evaluated in this order, stopping at the first " + (in.kind == InstrKind::kAnd ? "FALSE" : "TRUE") +
            " [cost " + FormatCost(in.cost) + "]\n";
    for (uint32_t k = 0; k < in.count; ++k) {
      *out += pad + "  " + std::to_string(k + 1) + ".\n";
      ExplainInstr(children_[in.first + k], indent + 2, out);
    }
    return;
  }
  std::string path;
  switch (in.kind) {
    case InstrKind::kConst: path = "constant"; break;
    case InstrKind::kField: path = "field truth value"; break;
    case InstrKind::kCompareFieldConst:
      path = in.constant_class == ValueClass::kText     ? "field vs text constant (length + memcmp)"
             : in.constant_class == ValueClass::kNumber ? "field vs numeric constant (pre-decoded)"
                                                        : "field vs constant";
      break;
    case InstrKind::kCompare: path = "general comparison"; break;
    case InstrKind::kLike: path = "LIKE " + likes_[in.aux]->Describe(); break;
    case InstrKind::kRegexp: path = "REGEXP_LIKE " + regexps_[in.aux]->Describe(); break;
    case InstrKind::kInSet: path = "IN " + sets_[in.aux]->Describe(); break;
    case InstrKind::kIn: path = "IN, members evaluated per message"; break;
    case InstrKind::kExists: path = "presence test"; break;
    case InstrKind::kPropertyMatch: path = "property filter match (4.1.1)"; break;
    default: path = "evaluated"; break;
  }
  *out += pad + InstrSummary(in) + "\n" + pad + "   -> " + path + " [cost " + FormatCost(in.cost) + "]\n";
}

std::string Program::Explain() const {
  std::string out;
  out += "selector: ";
  out += OriginName(origin_);
  out += '\n';
  if (!text_.empty()) out += "expression: " + text_ + "\n";
  out += "fields read (" + std::to_string(fields_.size()) + "), by slot:\n";
  std::set<std::string> sections;
  for (size_t s = 0; s < fields_.size(); ++s) {
    out += "  " + std::to_string(s) + ": " + FieldRefName(fields_[s]) + "\n";
    sections.insert(std::string(SectionIdentifier(fields_[s].section)));
  }
  out += "sections touched:";
  if (sections.empty()) out += " none";
  for (const auto& s : sections) out += " " + s;
  out += "\nplan:\n";
  ExplainInstr(root_, 1, &out);
  out +=
      "estimated cost: " + FormatCost(instrs_[root_].cost) + " units per message at most (1 unit ~ one field read)\n";
  for (const auto& note : notes_) out += "note: " + note + "\n";
  if (!required_texts_.empty()) {
    // What a byte-level prefilter may test before any field is read (required_text.h).
    out += "required texts (a message whose section bytes hold none of a line's texts is not TRUE):\n";
    for (const RequiredText& r : required_texts_) {
      out += " ";
      for (size_t k = 0; k < r.any_of.size(); ++k) {
        out += k == 0 ? " " : " or ";
        const RequiredText::Alternative& a = r.any_of[k];
        const std::string what =
            a.exact     ? "' (whole value) in "
            : a.pattern ? "' (start of a value that matches '" + std::string(a.pattern->pattern()) + "') in "
                        : "' (part of a value) in ";
        out += "'" + a.text + what + std::string(SectionIdentifier(a.section));
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace sift::selector
