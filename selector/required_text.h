// RequiredText: a necessary condition for a selector to be TRUE, testable on raw bytes before any
// field is read.
//
// The compiler derives requirements from a program's top-level conjuncts (ANDs, nested ANDs, the
// entries of a property filter and the parts of a filter-set): a conjunct `field = 'text'`,
// `field IN ('a', 'b')`, `field LIKE 'ord%'`, `field LIKE '%a_b%'` or a property filter's string
// match can only be TRUE when the field's value is text (string, symbol or char) that equals or
// contains a known text. A conjunct whose operand is computed (`LOWER(f) = 'ab'`, `f || 'x'`), a
// negated or OR-ed condition, or a comparison other than equality yields nothing.
//
// A field source that stores string and symbol values as their UTF-8 bytes verbatim (AMQP does) can
// therefore reject a message in whose bytes for the field's section none of a requirement's texts
// occurs: the message cannot be TRUE (it may be FALSE or UNKNOWN; the prefilter cannot tell which).
// A LIKE that starts with a literal comes with its pattern, so a source may test a whole value where
// the literal occurs (RequiredText::Alternative::pattern). Only texts of two or more code points are
// derived, because a char value (one code point) is text
// to the language but an encoding need not hold its UTF-8 bytes (AMQP encodes a char as UTF-32).
#ifndef SIFT_SELECTOR_REQUIRED_TEXT_H_
#define SIFT_SELECTOR_REQUIRED_TEXT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "selector/field_source.h"
#include "selector/like.h"

namespace sift::selector {

struct RequiredText {
  struct Alternative {
    Section section = Section::kApplicationProperties;  // where the field's value is read from
    std::string text;                                   // UTF-8, at least two code points
    // The value must equal `text` (=, IN, a LIKE without wildcards, a property filter's equality);
    // otherwise it must contain it. A source may then look for the text with its encoded length.
    bool exact = false;
    // Set for a LIKE whose pattern starts with `text` and has more to test than that (`'cust-_1%7'`):
    // the value begins with `text` and is TRUE only if it matches this pattern. A source that can
    // tell where a value starting at an occurrence of `text` ends may test the pattern there and
    // ignore an occurrence whose value does not match. Shared with the program; immutable.
    std::shared_ptr<const LikeMatcher> pattern;
  };
  // At least one; a TRUE needs one of them in its section's bytes.
  std::vector<Alternative> any_of;
};

// Bounds on what the compiler derives: an IN list up to the longest the language allows (a source
// decides how to search many alternatives, or not to), and a few requirements, which already reject
// almost all messages.
inline constexpr size_t kMaxRequiredAlternatives = 1024;
inline constexpr size_t kMaxRequiredTexts = 4;

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_REQUIRED_TEXT_H_
