// ISO 8601 parsing for DATE() (see date_time.h).
#include "selector/date_time.h"

namespace sift::selector {
namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

}  // namespace

// Howard Hinnant's days_from_civil.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool ParseIsoDateTime(std::string_view s, int64_t* ms) {
  int year, month, day;
  if (!Digits(s, 0, 4, &year) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &month) || s[7] != '-' ||
      !Digits(s, 8, 2, &day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  int64_t millis = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400000;
  size_t pos = 10;
  if (pos == s.size()) {
    *ms = millis;
    return true;
  }
  if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return false;
  ++pos;
  int hour, minute, second = 0, fraction_ms = 0;
  if (!Digits(s, pos, 2, &hour) || pos + 2 >= s.size() || s[pos + 2] != ':' || !Digits(s, pos + 3, 2, &minute)) {
    return false;
  }
  pos += 5;
  if (pos < s.size() && s[pos] == ':') {
    if (!Digits(s, pos + 1, 2, &second)) return false;
    pos += 3;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
      ++pos;
      size_t n = 0;
      int scale = 100;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        if (n < 3) fraction_ms += (s[pos] - '0') * scale;
        scale /= 10;
        ++pos;
        ++n;
      }
      if (n == 0 || n > 9) return false;
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  millis += ((hour * 60 + minute) * 60 + second) * int64_t{1000} + fraction_ms;
  if (pos < s.size()) {
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      int sign = s[pos] == '-' ? -1 : 1;
      int oh, om = 0;
      if (!Digits(s, pos + 1, 2, &oh)) return false;
      pos += 3;
      if (pos < s.size()) {
        if (s[pos] == ':') ++pos;
        if (!Digits(s, pos, 2, &om)) return false;
        pos += 2;
      }
      if (oh > 23 || om > 59) return false;
      // local = UTC + offset, so UTC = local - offset.
      millis -= sign * (oh * 60 + om) * int64_t{60000};
    } else {
      return false;
    }
  }
  if (pos != s.size()) return false;
  *ms = millis;
  return true;
}

}  // namespace sift::selector
