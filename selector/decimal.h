// IEEE 754-2008 decimal32 / decimal64 / decimal128 in the binary integer decimal (BID) encoding, as
// AMQP 1.0 carries them (core part 1, 1.6.15-17), converted to the nearest double.
//
// The selector does decimal arithmetic and comparison in double (docs/selector-semantics.md): exact
// for every decimal32 and for decimal64 / decimal128 values with up to 15 significant digits, the
// nearest double otherwise. Infinities and NaNs map to double infinities and NaN; non-canonical
// significands (above the format's maximum) read as zero, as the standard says.
#ifndef SIFT_SELECTOR_DECIMAL_H_
#define SIFT_SELECTOR_DECIMAL_H_

#include <string_view>

#include "selector/value.h"

namespace sift::selector {

// `bytes` are the big-endian raw bytes (4, 8 or 16 for kDecimal32/64/128). False when the type is not
// a decimal or the size is wrong.
bool DecimalToDouble(ValueType type, std::string_view bytes, double* out);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_DECIMAL_H_
