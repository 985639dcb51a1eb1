// Derivation of RequiredText from a finished Program (selector/required_text.h).
//
// Soundness rests on three facts of the language (docs/selector-semantics.md): AND is TRUE only when
// every operand is TRUE; `field = 'text'` (or IN, LIKE, a property filter's string match) is TRUE only
// when the field holds text equal to (or containing) the literal, compared byte-exactly on UTF-8; and
// a char value, the one text that may not be stored as its UTF-8 bytes, is a single code point, which
// can neither equal nor contain a text of two or more code points.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <string_view>

#include "base/utf8.h"
#include "selector/program.h"

namespace sift::selector {
namespace {

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += !base::IsUtf8Continuation(c);
  return n;
}

bool Usable(std::string_view text) { return CodePoints(text) >= 2; }

}  // namespace

void Program::CollectRequiredTexts(uint32_t i, std::vector<RequiredText>* out) const {
  const Instr& in = instrs_[i];
  auto single = [&](uint32_t slot, std::string_view text, bool exact) {
    if (!Usable(text) || slot >= fields_.size()) return;
    out->push_back(RequiredText{{RequiredText::Alternative{fields_[slot].section, std::string(text), exact, nullptr}}});
  };
  // The operand of LIKE / IN must be a field read as it is: a computed value is not in the bytes.
  auto field_slot = [&](uint32_t operand, uint32_t* slot) {
    if (operand >= instrs_.size() || instrs_[operand].kind != InstrKind::kField) return false;
    *slot = instrs_[operand].slot;
    return true;
  };
  switch (in.kind) {
    case InstrKind::kAnd: {
      const uint32_t* c = children_.data() + in.first;
      for (uint32_t k = 0; k < in.count; ++k) CollectRequiredTexts(c[k], out);
      return;
    }
    case InstrKind::kCompareFieldConst:
      if (in.op == Op::kEq && ClassOf(in.constant.type) == ValueClass::kText && in.constant.type != ValueType::kChar) {
        single(in.slot, in.constant.bytes(), true);
      }
      return;
    case InstrKind::kLike: {
      uint32_t slot = 0;
      if (in.negated || !field_slot(in.a, &slot)) return;
      const std::shared_ptr<const LikeMatcher>& m = likes_[in.aux];
      const bool more_than_literal = m->kind() == LikeMatcher::Kind::kSegments;
      if (more_than_literal && m->leading_code_points() >= 2 && slot < fields_.size()) {
        // Anchored: a source can find each candidate value and test the whole pattern on it, which
        // rejects as much as the pattern does (a value matching it contains the longest literal).
        out->push_back(RequiredText{
            {RequiredText::Alternative{fields_[slot].section, std::string(m->leading_literal()), false, m}}});
      } else if (m->required_code_points() >= 2) {
        single(slot, m->required_literal(), m->kind() == LikeMatcher::Kind::kExact);
      }
      return;
    }
    case InstrKind::kRegexp: {
      // TRUE needs text that matches: the one text of `^literal$`, else text holding the pattern's
      // longest literal run (regexp.h; nothing for a case-insensitive pattern).
      uint32_t slot = 0;
      if (!field_slot(in.a, &slot)) return;
      const RegexpMatcher& m = *regexps_[in.aux];
      if (m.whole()) {
        single(slot, m.whole_literal(), true);
      } else {
        single(slot, m.required_literal(), false);
      }
      return;
    }
    case InstrKind::kInSet: {
      uint32_t slot = 0;
      if (in.negated || !field_slot(in.a, &slot) || slot >= fields_.size()) return;
      const InSet& set = *sets_[in.aux];
      if (!set.only_text() || set.texts().empty() || set.texts().size() > kMaxRequiredAlternatives) return;
      RequiredText r;
      for (const std::string& t : set.texts()) {
        if (!Usable(t)) return;  // one short member and the requirement no longer holds
        r.any_of.push_back({fields_[slot].section, t, true, nullptr});
      }
      out->push_back(std::move(r));
      return;
    }
    case InstrKind::kPropertyMatch: {
      const PropertyMatcher& m = properties_[in.aux];
      if (m.mode == PropertyMatcher::Mode::kEquals) {
        if (ClassOf(m.reference.type) == ValueClass::kText && m.reference.type != ValueType::kChar) {
          single(in.slot, m.reference.bytes(), true);
        }
      } else if (m.mode == PropertyMatcher::Mode::kPrefix || m.mode == PropertyMatcher::Mode::kSuffix) {
        single(in.slot, m.text, false);
      }
      return;
    }
    default: return;
  }
}

void Program::DeriveRequiredTexts() {
  required_texts_.clear();
  if (instrs_.empty()) return;
  std::vector<RequiredText> all;
  CollectRequiredTexts(root_, &all);
  // Keep the strongest: single texts before alternatives, longer texts first (a long text is rarer).
  auto strength = [](const RequiredText& r) {
    size_t shortest = SIZE_MAX;
    for (const auto& a : r.any_of) shortest = std::min(shortest, a.text.size());
    return std::pair<size_t, size_t>(r.any_of.size(), SIZE_MAX - shortest);
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const RequiredText& a, const RequiredText& b) { return strength(a) < strength(b); });
  // The same text twice (`a = 'x' AND b = 'x'` in one section) is one requirement.
  for (RequiredText& r : all) {
    if (required_texts_.size() >= kMaxRequiredTexts) break;
    bool duplicate = std::any_of(required_texts_.begin(), required_texts_.end(), [&](const RequiredText& k) {
      return k.any_of.size() == 1 && r.any_of.size() == 1 && k.any_of[0].section == r.any_of[0].section &&
             k.any_of[0].text == r.any_of[0].text && k.any_of[0].exact == r.any_of[0].exact &&
             k.any_of[0].pattern == r.any_of[0].pattern;
    });
    if (!duplicate) required_texts_.push_back(std::move(r));
  }
}

}  // namespace sift::selector
