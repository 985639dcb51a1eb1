// AMQP 1.0 format codes and section descriptors, as constants.
//
// Every primitive type of AMQP 1.0 core part 1, section 1.6, and the nine message sections of core
// part 3, section 3.2. A format code's high nibble is its "subcategory" (section 1.2): it fixes how
// many bytes follow the constructor (0x4: none, 0x5: 1, 0x6: 2, 0x7: 4, 0x8: 8, 0x9: 16; 0xa / 0xc /
// 0xe: a 1-byte size prefix; 0xb / 0xd / 0xf: a 4-byte size prefix). Only the codes listed here are
// valid: this project rejects the reserved codes of a subcategory instead of skipping them.
#ifndef SIFT_ENGINE_AMQP_TYPE_CODES_H_
#define SIFT_ENGINE_AMQP_TYPE_CODES_H_

#include <cstdint>
#include <string_view>

#include "base/amqp_fields.h"

namespace sift::amqp {

namespace code {
inline constexpr uint8_t kDescribed = 0x00;  // constructor prefix: descriptor value, then the value
inline constexpr uint8_t kNull = 0x40;
inline constexpr uint8_t kTrue = 0x41;
inline constexpr uint8_t kFalse = 0x42;
inline constexpr uint8_t kUInt0 = 0x43;
inline constexpr uint8_t kULong0 = 0x44;
inline constexpr uint8_t kList0 = 0x45;
inline constexpr uint8_t kUByte = 0x50;
inline constexpr uint8_t kByte = 0x51;
inline constexpr uint8_t kSmallUInt = 0x52;
inline constexpr uint8_t kSmallULong = 0x53;
inline constexpr uint8_t kSmallInt = 0x54;
inline constexpr uint8_t kSmallLong = 0x55;
inline constexpr uint8_t kBoolean = 0x56;
inline constexpr uint8_t kUShort = 0x60;
inline constexpr uint8_t kShort = 0x61;
inline constexpr uint8_t kUInt = 0x70;
inline constexpr uint8_t kInt = 0x71;
inline constexpr uint8_t kFloat = 0x72;
inline constexpr uint8_t kChar = 0x73;
inline constexpr uint8_t kDecimal32 = 0x74;
inline constexpr uint8_t kULong = 0x80;
inline constexpr uint8_t kLong = 0x81;
inline constexpr uint8_t kDouble = 0x82;
inline constexpr uint8_t kTimestamp = 0x83;
inline constexpr uint8_t kDecimal64 = 0x84;
inline constexpr uint8_t kDecimal128 = 0x94;
inline constexpr uint8_t kUuid = 0x98;
inline constexpr uint8_t kVbin8 = 0xa0;
inline constexpr uint8_t kStr8 = 0xa1;
inline constexpr uint8_t kSym8 = 0xa3;
inline constexpr uint8_t kVbin32 = 0xb0;
inline constexpr uint8_t kStr32 = 0xb1;
inline constexpr uint8_t kSym32 = 0xb3;
inline constexpr uint8_t kList8 = 0xc0;
inline constexpr uint8_t kMap8 = 0xc1;
inline constexpr uint8_t kList32 = 0xd0;
inline constexpr uint8_t kMap32 = 0xd1;
inline constexpr uint8_t kArray8 = 0xe0;
inline constexpr uint8_t kArray32 = 0xf0;
}  // namespace code

namespace internal {
struct FormatCodeTable {
  bool valid[256] = {};
  constexpr FormatCodeTable() {
    constexpr uint8_t kCodes[] = {0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56,
                                  0x60, 0x61, 0x70, 0x71, 0x72, 0x73, 0x74, 0x80, 0x81, 0x82, 0x83, 0x84, 0x94,
                                  0x98, 0xa0, 0xa1, 0xa3, 0xb0, 0xb1, 0xb3, 0xc0, 0xc1, 0xd0, 0xd1, 0xe0, 0xf0};
    for (uint8_t c : kCodes) valid[c] = true;
  }
};
inline constexpr FormatCodeTable kFormatCodes;
}  // namespace internal

// True for the format codes listed above, except kDescribed (which is a constructor prefix).
// A table lookup: it sits on the hot path of every value read.
constexpr bool IsValidFormatCode(uint8_t format_code) { return internal::kFormatCodes.valid[format_code]; }

// The spec's name of an encoding ("smallulong", "str8", "list32", "described"); "invalid" for a code
// that is not one. Always a static string.
std::string_view FormatCodeName(uint8_t format_code);

// Bytes of payload a fixed-width format code carries after its constructor (0, 1, 2, 4, 8 or 16), or
// -1 for variable-width and compound codes (subcategories 0xa..0xf).
constexpr int FixedWidth(uint8_t format_code) {
  switch (format_code >> 4) {
    case 0x4: return 0;
    case 0x5: return 1;
    case 0x6: return 2;
    case 0x7: return 4;
    case 0x8: return 8;
    case 0x9: return 16;
    default: return -1;
  }
}

// Message sections, in the order core part 3, section 3.2 requires them. base/amqp_fields.h has the
// one table of their names, symbols and descriptor codes (0x70 header .. 0x78 footer); the enumerator
// value is the descriptor code minus 0x70. SectionFromDescriptorCode / SectionFromDescriptorSymbol
// give the section a ulong descriptor or a symbolic one ("amqp:header:list", ...) names (false for
// anything else); SectionName ("header", "delivery-annotations", ...) and SectionSymbol its texts.
using SectionKind = amqp::Section;
inline constexpr int kSectionKindCount = amqp::kSectionCount;

// The section descriptor every client writes, smallulong 0x53 then 0x70..0x78, at d (the byte after
// the 0x00 that makes a section a described value): the first byte after it, with *kind set; nullptr
// when [d, limit) does not start so (a ulong or symbol descriptor is for the general readers). The
// one definition of this fast path for every reader of sections.
inline const uint8_t* SmallSectionDescriptor(const uint8_t* d, const uint8_t* limit, SectionKind* kind) {
  if (d >= limit || limit - d < 2 || d[0] != code::kSmallULong || !SectionFromDescriptorCode(d[1], kind)) {
    return nullptr;
  }
  return d + 2;
}
// The same from a section's first byte (0x00 0x53 0x7N): the first byte of the section's value.
inline const uint8_t* SmallSectionHeader(const uint8_t* p, const uint8_t* limit, SectionKind* kind) {
  return p < limit && p[0] == code::kDescribed ? SmallSectionDescriptor(p + 1, limit, kind) : nullptr;
}

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_TYPE_CODES_H_
