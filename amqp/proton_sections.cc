// Splitting a message into sections with Proton's decoder; see proton_sections.h.
#include "amqp/proton_sections.h"

#include <proton/error.h>

#include <fmt/format.h>

#include "amqp/json_value.h"
#include "amqp/limits.h"

#include <string>

namespace sift::amqp {
namespace {

Section SectionOf(ProtonSectionKind kind) {
  return static_cast<Section>(static_cast<uint64_t>(kind) - amqp::kFirstSectionDescriptor);
}
ProtonSectionKind KindOf(Section section) { return static_cast<ProtonSectionKind>(amqp::SectionDescriptor(section)); }

// The type each section's value must have, in spec order; PN_INVALID for amqp-value (any type).
constexpr pn_type_t kValueTypes[amqp::kSectionCount] = {PN_LIST,   PN_MAP,  PN_MAP,     PN_LIST, PN_MAP,
                                                        PN_BINARY, PN_LIST, PN_INVALID, PN_MAP};

bool IsBody(ProtonSectionKind kind) {
  return kind == ProtonSectionKind::kData || kind == ProtonSectionKind::kAmqpSequence ||
         kind == ProtonSectionKind::kAmqpValue;
}

// Rank in spec order: the three body kinds share one rank.
int Rank(ProtonSectionKind kind) {
  int code = static_cast<int>(SectionOf(kind));
  if (IsBody(kind)) return 5;
  return code < 5 ? code : 6;
}

// Resolves a section descriptor (core part 1, section 1.5: a ulong code or a symbol). The ulong form
// is the 64-bit code 0x00000000:0x000000NN (domain 0, the AMQP spec).
bool ResolveDescriptor(pn_data_t* data, ProtonSectionKind* kind, bool* symbolic) {
  switch (pn_data_type(data)) {
    case PN_ULONG: {
      Section section;
      if (!amqp::SectionFromDescriptorCode(pn_data_get_ulong(data), &section)) return false;
      *kind = KindOf(section);
      *symbolic = false;
      return true;
    }
    case PN_SYMBOL: {
      pn_bytes_t s = pn_data_get_symbol(data);
      Section section;
      if (!amqp::SectionFromDescriptorSymbol(std::string_view(s.start, s.size), &section)) return false;
      *kind = KindOf(section);
      *symbolic = true;
      return true;
    }
    default: return false;
  }
}

std::string DescribeDescriptor(pn_data_t* data) {
  switch (pn_data_type(data)) {
    case PN_ULONG: return fmt::format("ulong 0x{:016x}", pn_data_get_ulong(data));
    case PN_SYMBOL: {
      pn_bytes_t s = pn_data_get_symbol(data);
      return fmt::format("symbol \"{}\"", std::string_view(s.start, s.size));
    }
    default: return fmt::format("a {}", JsonTypeName(pn_data_type(data)));
  }
}

// A bounded walk over one encoded value (core part 1, section 1.2), run before Proton's decoder sees
// the bytes, for two things Proton 0.37 gets wrong: its decoder recurses without a limit (so deep
// nesting would exhaust the stack), and after a described value whose value is itself described
// (0x00 <descriptor> 0x00 ...) it fails to leave one level, so every value that follows inside the
// same top-level value lands in the wrong container, silently. Such a nested described value is
// therefore accepted only where nothing follows it (an amqp-value section holding a described value
// is the common, safe case) and refused elsewhere with an error naming its byte. Everything else is
// left to Proton to judge.
class EncodingWalk {
 public:
  EncodingWalk(const uint8_t* base, const uint8_t* end) : base_(base), end_(end) {}

  // Walks the value at *p, advancing *p past it.
  bool Value(const uint8_t** p, int depth) {
    if (depth > kMaxProtonWalkDepth)
      return Fail(*p, fmt::format("values nested deeper than {} levels", kMaxProtonWalkDepth));
    if (*p >= end_) return Fail(*p, "value runs past the end");
    uint8_t code = *(*p)++;
    if (code == 0x00) {
      if (!Value(p, depth + 1)) return false;  // the descriptor
      const uint8_t* nested = *p < end_ && **p == 0x00 ? *p : nullptr;
      if (!Value(p, depth + 1)) return false;
      if (nested != nullptr) Note(nested, *p);
      return true;
    }
    return Body(code, p, depth);
  }

  // Walks the top-level value at *p, advancing *p past it, and checks that nothing follows a
  // described value directly inside a described value.
  bool TopLevel(const uint8_t** p) {
    if (!Value(p, 0)) return false;
    if (nested_ != nullptr && nested_end_ != *p) {
      return Fail(nested_,
                  "a described value inside a described value, followed by more values: "
                  "Proton 0.37 decodes this wrongly, so it cannot be fully decoded");
    }
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  // Remembers the nested described value [start, end) that ends first.
  void Note(const uint8_t* start, const uint8_t* end) {
    if (nested_ == nullptr || end < nested_end_) {
      nested_ = start;
      nested_end_ = end;
    }
  }

  bool Fail(const uint8_t* at, std::string why) {
    error_ = fmt::format("byte {}: {}", at - base_, why);
    return false;
  }

  bool Take(const uint8_t** p, size_t n, const uint8_t** start = nullptr) {
    if (static_cast<size_t>(end_ - *p) < n) return Fail(*p, "value runs past the end");
    if (start != nullptr) *start = *p;
    *p += n;
    return true;
  }

  bool ReadUint(const uint8_t** p, size_t width, uint32_t* out) {
    const uint8_t* at;
    if (!Take(p, width, &at)) return false;
    *out = 0;
    for (size_t i = 0; i < width; ++i) *out = (*out << 8) | at[i];
    return true;
  }

  // The payload of a value whose constructor is `code`.
  bool Body(uint8_t code, const uint8_t** p, int depth) {
    switch (code >> 4) {
      case 0x4: return true;
      case 0x5: return Take(p, 1);
      case 0x6: return Take(p, 2);
      case 0x7: return Take(p, 4);
      case 0x8: return Take(p, 8);
      case 0x9: return Take(p, 16);
      case 0xa:
      case 0xb: {
        uint32_t size;
        return ReadUint(p, code >> 4 == 0xa ? 1 : 4, &size) && Take(p, size);
      }
      case 0xc:
      case 0xd:
      case 0xe:
      case 0xf: {
        size_t width = (code >> 4) % 2 == 0 ? 1 : 4;
        const uint8_t* constructor = *p - 1;
        uint32_t size, count;
        if (!ReadUint(p, width, &size)) return false;
        const uint8_t* start = *p;
        if (size < width || static_cast<size_t>(end_ - start) < size) {
          return Fail(start, "compound size runs past the end");
        }
        const uint8_t* limit = start + size;
        if (!ReadUint(p, width, &count)) return false;
        // Every element takes at least a byte, except array elements of a zero-width constructor
        // (null, true, false, uint0, ulong0, list0); bounding their count by the size keeps both this
        // walk and Proton (which makes a node per element) linear in the input.
        if (count > size) {
          return Fail(constructor, fmt::format("compound count {} exceeds its size {}", count, size));
        }
        EncodingWalk inner(base_, limit);
        bool ok = code >= 0xe0 ? inner.Array(p, count, depth + 1) : inner.Items(p, count, depth + 1);
        if (!ok) {
          error_ = inner.error_;
          return false;
        }
        if (inner.nested_ != nullptr) Note(inner.nested_, inner.nested_end_);
        *p = limit;
        return true;
      }
      default: return true;  // not a format code: Proton reports it
    }
  }

  bool Items(const uint8_t** p, uint32_t count, int depth) {
    for (uint32_t i = 0; i < count; ++i) {
      if (!Value(p, depth)) return false;
    }
    return true;
  }

  bool Array(const uint8_t** p, uint32_t count, int depth) {
    if (*p >= end_) return Fail(*p, "array constructor runs past the end");
    uint8_t code = *(*p)++;
    if (code == 0x00) {
      if (!Value(p, depth + 1)) return false;  // the elements' descriptor
      if (*p >= end_) return Fail(*p, "array constructor runs past the end");
      code = *(*p)++;
      if (code == 0x00) return Fail(*p - 1, "a described array element constructor inside another");
    }
    for (uint32_t i = 0; i < count; ++i) {
      if (!Body(code, p, depth)) return false;
    }
    return true;
  }

  const uint8_t* base_;
  const uint8_t* end_;
  const uint8_t* nested_ = nullptr;  // a described value directly inside another, the one ending first
  const uint8_t* nested_end_ = nullptr;
  std::string error_;
};

}  // namespace

std::string_view ProtonSectionName(ProtonSectionKind kind) { return amqp::SectionName(SectionOf(kind)); }

pn_data_t* ProtonSection::Value() const {
  pn_data_rewind(data);
  pn_data_next(data);  // the described node
  pn_data_enter(data);
  pn_data_next(data);  // the descriptor
  pn_data_next(data);  // the value
  return data;
}

ProtonSections::~ProtonSections() { Clear(); }

void ProtonSections::Clear() {
  for (ProtonSection& section : sections_) pn_data_free(section.data);
  sections_.clear();
}

const ProtonSection* ProtonSections::Find(ProtonSectionKind kind) const {
  for (const ProtonSection& section : sections_) {
    if (section.kind == kind) return &section;
  }
  return nullptr;
}

bool ProtonSections::Split(std::span<const uint8_t> bytes, std::string* error) {
  Clear();
  const char* base = reinterpret_cast<const char*>(bytes.data());
  size_t offset = 0;
  int last_rank = -1;
  while (offset < bytes.size()) {
    EncodingWalk walk(bytes.data(), bytes.data() + bytes.size());
    const uint8_t* at = bytes.data() + offset;
    if (!walk.TopLevel(&at)) {
      *error = walk.error();
      return false;
    }
    pn_data_t* data = pn_data(0);
    ssize_t used = pn_data_decode(data, base + offset, bytes.size() - offset);
    if (used <= 0) {
      const char* text = pn_error_text(pn_data_error(data));
      *error = fmt::format("byte {}: section {}: not a well-formed AMQP value ({}{}{})", offset, sections_.size(),
                           used == 0 ? "no progress" : pn_code(static_cast<int>(used)),
                           text != nullptr && *text != '\0' ? ": " : "", text != nullptr ? text : "");
      pn_data_free(data);
      return false;
    }
    sections_.push_back(ProtonSection{ProtonSectionKind::kHeader, offset, static_cast<size_t>(used), false, data});
    if (static_cast<size_t>(at - bytes.data()) != offset + static_cast<size_t>(used)) {
      *error = fmt::format("byte {}: Proton decoded {} bytes of a section {} bytes long", offset, used,
                           at - bytes.data() - offset);
      return false;
    }
    ProtonSection& section = sections_.back();
    pn_data_rewind(data);
    pn_data_next(data);
    if (pn_data_type(data) != PN_DESCRIBED) {
      *error =
          fmt::format("byte {}: expected a described section, found a {}", offset, JsonTypeName(pn_data_type(data)));
      return false;
    }
    pn_data_enter(data);
    pn_data_next(data);
    if (!ResolveDescriptor(data, &section.kind, &section.symbolic)) {
      *error = fmt::format("byte {}: unknown section descriptor {}", offset, DescribeDescriptor(data));
      return false;
    }
    const std::string_view name = ProtonSectionName(section.kind);
    const pn_type_t expected = kValueTypes[static_cast<int>(SectionOf(section.kind))];
    pn_data_next(data);
    pn_type_t type = pn_data_type(data);
    if (expected != PN_INVALID && type != expected) {
      *error = fmt::format("byte {}: {} section holds a {}, expected a {}", offset, name, JsonTypeName(type),
                           JsonTypeName(expected));
      return false;
    }
    int rank = Rank(section.kind);
    if (rank < last_rank) {
      *error = fmt::format(
          "byte {}: {} section after a later section (core 3.2: sections come in "
          "spec order)",
          offset, name);
      return false;
    }
    if (rank == last_rank) {
      const ProtonSection& previous = sections_[sections_.size() - 2];
      bool repeatable = section.kind == previous.kind &&
                        (section.kind == ProtonSectionKind::kData || section.kind == ProtonSectionKind::kAmqpSequence);
      if (!repeatable) {
        if (IsBody(section.kind)) {
          *error = fmt::format(
              "byte {}: {} section after {} section (core 3.2: the body is one or "
              "more data, one or more amqp-sequence, or one amqp-value section)",
              offset, name, ProtonSectionName(previous.kind));
        } else {
          *error = fmt::format("byte {}: second {} section", offset, name);
        }
        return false;
      }
    }
    last_rank = rank;
    offset += static_cast<size_t>(used);
  }
  return true;
}

}  // namespace sift::amqp
