// RFC 3629 UTF-8, as AMQP 1.0 strings must be (core part 1, section 1.6.20): the rule for a sequence's
// lead byte, in one place for every reader that checks or repairs strings (validation, typed JSON).
#ifndef SIFT_ENGINE_AMQP_UTF8_H_
#define SIFT_ENGINE_AMQP_UTF8_H_

#include <cstdint>

namespace sift::amqp {

// What a lead byte of 0x80 or above allows: how many continuation bytes follow it, and the range the
// first of them must lie in (narrowed so that no overlong form, no surrogate and nothing above
// U+10FFFF can be written); the later continuation bytes are 0x80..0xbf.
struct Utf8Lead {
  int continuation = 0;
  uint8_t lo = 0x80;
  uint8_t hi = 0xbf;
};

// False for a byte that cannot start a multi-byte sequence (a continuation byte, 0xc0, 0xc1, 0xf5..).
inline bool ReadUtf8Lead(uint8_t b0, Utf8Lead* out) {
  Utf8Lead lead;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    lead.continuation = 1;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    lead.continuation = 2;
    if (b0 == 0xe0) lead.lo = 0xa0;
    if (b0 == 0xed) lead.hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    lead.continuation = 3;
    if (b0 == 0xf0) lead.lo = 0x90;
    if (b0 == 0xf4) lead.hi = 0x8f;
  } else {
    return false;
  }
  *out = lead;
  return true;
}

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_UTF8_H_
