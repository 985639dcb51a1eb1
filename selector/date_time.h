// ISO 8601 date-times for DATE(): the subset a SQL user writes, converted to ms since the Unix epoch.
//
// Accepted: YYYY-MM-DD, optionally followed by 'T' (or one space) and HH:MM[:SS[.fraction]], then
// optionally 'Z' or an offset +HH:MM / -HH:MM / +HHMM / +HH. No zone means UTC. The fraction may have
// 1 to 9 digits and is truncated to milliseconds. Fields are range-checked (month 1-12, day within
// the month with leap years, hour 0-23, minute 0-59, second 0-59, offset below 24:00).
#ifndef SIFT_SELECTOR_DATE_TIME_H_
#define SIFT_SELECTOR_DATE_TIME_H_

#include <cstdint>
#include <string_view>

namespace sift::selector {

// True and *ms set when `text` is a date-time of the form above; false otherwise (never throws).
bool ParseIsoDateTime(std::string_view text, int64_t* ms);

// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12, day 1-31).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_DATE_TIME_H_
