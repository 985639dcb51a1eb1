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
// encoding of the value "red" (and not in "ordered_at"). The prefilter locates the sections by their size prefixes (O(1) each) and
// searches only their bytes for the texts with a vectorised first-and-last-byte scan ("Filter Before
// You Parse", Palkar et al., VLDB 2018, applies the same idea to JSON); a hit says nothing, and the
// message goes on to the full evaluation.
//
// MayMatch() never rejects a message that could be TRUE: a message it cannot read the common way (a
// section with a ulong or symbolic descriptor, a malformed size) passes. Nothing here allocates after
// construction. Immutable after construction, so it may be shared between threads.
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
#include <string>
#include <string_view>
#include <vector>

#include "selector/required_text.h"

namespace sift::engine {

class TextPrefilter {
 public:
  // Keeps copies of the requirements' texts. With no requirement, MayMatch() is always true.
  explicit TextPrefilter(std::span<const selector::RequiredText> required);

  bool empty() const { return requirements_.empty(); }

  // False when the message cannot be TRUE under the selector the requirements came from.
  bool MayMatch(std::span<const uint8_t> message) const { return Check(message, true) == Verdict::kMayMatch; }

  // The same, saying which step decided. With `check_sections` false only the flat search of the
  // whole message runs (cheaper for a message that holds the texts, less precise: a text outside
  // its field's section no longer rejects).
  enum class Verdict : uint8_t {
    kMayMatch,
    kNotInMessage,  // some requirement has none of its texts anywhere in the message
    kNotInSection,  // ... none in the section its field lives in
  };
  Verdict Check(std::span<const uint8_t> message, bool check_sections) const;

  // Where `needle` (two bytes or more) first occurs in haystack, or nullptr. Exposed for tests.
  using FindFunction = const uint8_t* (*)(const uint8_t* haystack, size_t size, const uint8_t* needle,
                                          size_t needle_size);
  static FindFunction BestFind();   // AVX2 when the CPU has it, else SSE2 (x86-64), else portable
  static FindFunction PortableFind();

 private:
  struct Alternative {
    int section = 0;  // amqp::SectionKind as int
    std::string text;
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
  // Whether the requirement holds somewhere in [b, b + n) (for by_prefix, `section` is ignored: the
  // caller passes the right range). `section` < 0: any alternative, wherever it belongs.
  bool Holds(const Requirement& r, const uint8_t* b, size_t n, int section) const;
  bool PrefixSetHolds(const Requirement& r, const uint8_t* b, size_t n) const;
  std::vector<Requirement> requirements_;
  uint32_t sections_wanted_ = 0;  // bit per amqp::SectionKind
  FindFunction find_ = nullptr;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_TEXT_PREFILTER_H_
