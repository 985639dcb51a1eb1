// TextPrefilter: rejects a message from its raw bytes, before any field is read, when it cannot
// satisfy a selector.
//
// A compiled selector publishes texts that a TRUE needs (selector::RequiredText: `region = 'eu-west'`
// needs the bytes "eu-west" somewhere in the application-properties section). AMQP 1.0 encodes every
// string and symbol value as its UTF-8 bytes verbatim (core part 1, section 1.6.20-1.6.21), inside
// the section that holds the field, so a message whose section bytes contain none of a requirement's
// texts is not TRUE. When the value must equal the text, the prefilter looks for the text with its
// length in front: str8 / sym8 write the length as one byte, str32 / sym32 as four big-endian bytes
// whose last is the same byte for a text under 256 bytes, so `0x03 r e d` is in the bytes of every
// encoding of the value "red" (and not in "ordered_at"). The prefilter locates the sections by their size prefixes
// (O(1) each) and searches only their bytes for the texts with a vectorised first-and-last-byte scan ("Filter Before
// You Parse", Palkar et al., VLDB 2018, applies the same idea to JSON); a hit says nothing, and the
// message goes on to the full evaluation.
//
// MayMatch() never rejects a message that could be TRUE: a message it cannot read the common way (a
// section with a ulong or symbolic descriptor, a malformed size) passes. Nothing here allocates after
// construction. Immutable after construction, so it may be shared between threads.
//
// A LIKE that starts with a literal (`customer LIKE 'cust-_1%7'`) is searched by that literal, and
// at each occurrence the pattern is tested on the value that would start there: its length is the
// byte before it (str8 / sym8, or an array element of theirs) or the four bytes before it (str32 /
// sym32), both read and each tried. The field's real value is one of the candidates, so a message
// none of whose candidates matches cannot be TRUE, even when the literal is in every message.
//
// A requirement with a few alternatives is searched one text at a time. A long list of whole values
// (an IN list of ids) is searched through the prefix its members share: every hit's value is looked
// up in a hash set, its length read from the byte before it (str8 / sym8 write the length there,
// and so do str32 / sym32 in the last byte of theirs, for values under 256 bytes). A long list with no
// shared prefix of two bytes or more, or with a member of 256 bytes or more, is not used.
#ifndef SIFT_ENGINE_TEXT_PREFILTER_H_
#define SIFT_ENGINE_TEXT_PREFILTER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <bitset>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "amqp/type_codes.h"
#include "selector/required_text.h"

namespace sift::engine {

class TextPrefilter {
 public:
  // Keeps copies of the requirements' texts. With no requirement, MayMatch() is always true.
  explicit TextPrefilter(std::span<const selector::RequiredText> required);

  bool empty() const { return requirements_.empty(); }

  // False when the message cannot be TRUE under the selector the requirements came from.
  bool MayMatch(std::span<const uint8_t> message) const { return Check(message, {}) == Verdict::kMayMatch; }

  // The two steps, each sound alone. The flat search of the whole message has no dependent loads
  // and rejects a message that lacks a text anywhere; the section check walks to each field's
  // section and searches (and tests a LIKE's pattern) only there: more precise, and for a message
  // that holds the texts somewhere, cheaper than searching everything first.
  struct Steps {
    bool flat = true;
    bool sections = true;
    // The requirements to test, in this order (indexes below requirement_count()); empty: all of
    // them. Leaving some out is sound: each is a necessary condition on its own.
    std::span<const uint8_t> order;
  };
  // The same, saying which step decided.
  enum class Verdict : uint8_t {
    kMayMatch,
    kNotInMessage,  // some requirement has none of its texts anywhere in the message
    kNotInSection,  // ... none in the section its field lives in (or no value there matches its LIKE)
  };
  Verdict Check(std::span<const uint8_t> message, const Steps& steps) const;

  // The requirements, at most kMaxRequiredTexts (selector/required_text.h).
  size_t requirement_count() const { return requirements_.size(); }
  // For calibration: what each requirement alone decides, both steps run in full. Bit i of
  // *not_in_message is set when requirement i has none of its texts in the message, of
  // *not_in_section when it has none in its section (a superset of the first).
  void Measure(std::span<const uint8_t> message, uint32_t* not_in_message, uint32_t* not_in_section) const;

  // Where `needle` (two bytes or more) first occurs in haystack, or nullptr. Exposed for tests.
  using FindFunction = const uint8_t* (*)(const uint8_t* haystack, size_t size, const uint8_t* needle,
                                          size_t needle_size);
  static FindFunction BestFind();  // AVX2 when the CPU has it, else SSE2 (x86-64), else portable
  static FindFunction PortableFind();

 private:
  struct Alternative {
    int section = 0;  // amqp::SectionKind as int
    std::string text;
    // A LIKE starting with `text`: an occurrence counts only if a value starting there matches.
    std::shared_ptr<const selector::LikeMatcher> pattern;
  };
  struct Requirement {
    std::vector<Alternative> any_of;  // searched one by one (a few alternatives)
    // A long list of whole values (an IN list) sharing a text prefix: the prefix is searched, and
    // each hit's value, its length read from the byte before it, is looked up among the members.
    bool by_prefix = false;
    int section = 0;
    std::string prefix;
    std::vector<std::string> member_texts;
    std::vector<uint64_t> member_hashes;  // selector::HashText of each member
    std::vector<int32_t> table;           // open addressing: index into member_texts, -1 empty
    std::bitset<256> lengths;             // the members' byte lengths
    bool Contains(std::string_view text) const;
  };
  // Where the sections the requirements need are: [begin, end) of each section found (bit in `found`).
  struct SectionRanges {
    uint32_t found = 0;
    const uint8_t* begin[amqp::kSectionKindCount];
    const uint8_t* end[amqp::kSectionKindCount];
  };
  // False when the message's sections are not in the encoding the walk follows.
  bool FindSections(std::span<const uint8_t> message, SectionRanges* s) const;
  // Whether one of the requirement's texts is anywhere in the message (a LIKE's pattern untested).
  bool HoldsAnywhere(const Requirement& r, std::span<const uint8_t> message) const;
  // Whether one of them is in its section (a LIKE's as a value matching its pattern).
  bool HoldsInSections(const Requirement& r, const SectionRanges& s) const;
  bool PrefixSetHolds(const Requirement& r, const uint8_t* b, size_t n) const;
  // Whether alternative `a` occurs in [b, b + n); with `test_pattern`, as a value that matches its
  // pattern (the flat search of a whole message leaves that test to the section step).
  bool Occurs(const Alternative& a, const uint8_t* b, size_t n, bool test_pattern) const;
  static bool PatternMatchesAt(const selector::LikeMatcher& pattern, const uint8_t* b, const uint8_t* at,
                               const uint8_t* end);
  std::vector<Requirement> requirements_;
  uint32_t sections_wanted_ = 0;  // bit per amqp::SectionKind
  // Needles longer than this are searched in linear time (memmem), shorter ones by find_.
  static constexpr size_t kLongNeedle = 32;
  const uint8_t* Find(const uint8_t* h, size_t n, const uint8_t* needle, size_t m) const;
  FindFunction find_ = nullptr;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_TEXT_PREFILTER_H_
