// Byte sizes and durations as people write them on a command line ("64MiB", "512K", "7d", "90s"),
// read strictly: one whole number and one unit, nothing else. Used by the flags of `sift` and
// `sift serve` that take sizes (chunk bounds, retention) and durations (retention age, timers).
#ifndef SIFT_TOOLS_UNITS_H_
#define SIFT_TOOLS_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace sift::tools {

// Reads a byte size: decimal digits, then optionally a unit: B (bytes), K or KiB, M or MiB, G or GiB,
// T or TiB (powers of 1024; units in either case). "0" is zero. False, with *error a phrase saying what
// was expected, for anything else: an empty text, a sign, spaces, a fraction, an unknown unit (KB, MB,
// GB and TB are refused as ambiguous between powers of 1000 and 1024), or a value above 2^64 - 1.
bool ParseByteSize(std::string_view text, uint64_t* bytes, std::string* error);

// Reads a duration: decimal digits, then a unit: ms, s, m (minutes), h, d (days) or w (weeks),
// lower case. "0" alone is zero; any other number needs its unit. False, with *error a phrase saying
// what was expected, for anything else or a value above 2^63 - 1 milliseconds.
bool ParseDuration(std::string_view text, int64_t* ms, std::string* error);

// The shortest exact form ParseByteSize reads back: the largest of KiB, MiB, GiB, TiB that divides
// `bytes` ("64MiB", "1536KiB"), else the plain number ("1000", "0").
std::string FormatByteSize(uint64_t bytes);

// The shortest exact form ParseDuration reads back: the largest of w, d, h, m, s, ms that divides
// `ms` ("7d", "90m", "1500ms"; "0" for zero). `ms` must not be negative.
std::string FormatDuration(int64_t ms);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_UNITS_H_
