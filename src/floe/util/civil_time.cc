// General date/time parsers and printers (see civil_time.h for the grammar).
#include "floe/util/civil_time.h"

#include <climits>
#include <cstring>

#include "floe/util/decimal_digits.h"

namespace floe::civil {
namespace {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// Reads exactly `n` digits at `*p`.
bool Digits(std::string_view s, size_t* p, int n, int64_t* out) {
  if (*p + n > s.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*p + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *p += n;
  *out = v;
  return true;
}

inline bool At(std::string_view s, size_t p, char c) { return p < s.size() && s[p] == c; }

/// YYYY-MM-DD or [+-]Y{4,9}-MM-DD at *p; days since epoch. An unsigned year
/// has exactly 4 digits (ISO 8601 expanded years carry a sign, as Java's
/// ISO_LOCAL_DATE requires), so "20244-01-01" is a typo, not year 20244.
bool ParseDateAt(std::string_view s, size_t* p, int64_t* days) {
  int64_t y = 0, m = 0, d = 0;
  if (At(s, *p, '+') || At(s, *p, '-')) {
    const bool neg = s[*p] == '-';
    ++*p;
    size_t n = 0;
    while (*p + n < s.size() && IsDigit(s[*p + n])) ++n;
    if (n < 4 || n > 9 || !Digits(s, p, static_cast<int>(n), &y)) return false;
    if (neg) y = -y;
  } else if (!Digits(s, p, 4, &y)) {
    return false;
  }
  if (!At(s, *p, '-')) return false;
  ++*p;
  if (!Digits(s, p, 2, &m) || !At(s, *p, '-')) return false;
  ++*p;
  if (!Digits(s, p, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<int>(m))) return false;
  *days = DaysFromCivil(y, static_cast<int>(m), static_cast<int>(d));
  return true;
}

/// HH:MM[:SS[.f{1,9}]] at *p; nanoseconds since midnight.
bool ParseTimeAt(std::string_view s, size_t* p, Spelling spelling, int64_t* nanos) {
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (!Digits(s, p, 2, &h) || !At(s, *p, ':')) return false;
  ++*p;
  if (!Digits(s, p, 2, &mi)) return false;
  if (At(s, *p, ':')) {
    ++*p;
    if (!Digits(s, p, 2, &sec)) return false;
    if (At(s, *p, '.') || (spelling == Spelling::kNatural && At(s, *p, ','))) {
      ++*p;
      int n = 0;
      while (*p < s.size() && IsDigit(s[*p])) {
        if (n == 9) return false;  // more than nanoseconds
        frac = frac * 10 + (s[*p] - '0');
        ++n;
        ++*p;
      }
      if (n == 0) return false;
      for (; n < 9; ++n) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || sec > 59) return false;  // 60: no leap seconds
  *nanos = ((h * 60 + mi) * 60 + sec) * kNanosPerSecond + frac;
  return true;
}

/// Z | [+-]HH:MM at *p (kNatural also z, [+-]HH and [+-]HHMM); offset in seconds.
bool ParseZoneAt(std::string_view s, size_t* p, Spelling spelling, int64_t* offset_seconds) {
  const bool natural = spelling == Spelling::kNatural;
  if (At(s, *p, 'Z') || (natural && At(s, *p, 'z'))) {
    ++*p;
    *offset_seconds = 0;
    return true;
  }
  if (!At(s, *p, '+') && !At(s, *p, '-')) return false;
  const bool neg = s[*p] == '-';
  ++*p;
  int64_t hh = 0, mm = 0;
  if (!Digits(s, p, 2, &hh)) return false;
  if (At(s, *p, ':')) {
    ++*p;
    if (!Digits(s, p, 2, &mm)) return false;
  } else if (!natural) {
    return false;
  } else if (*p < s.size()) {
    if (!Digits(s, p, 2, &mm)) return false;
  }
  if (hh > 18 || mm > 59) return false;
  *offset_seconds = (neg ? -1 : 1) * (hh * 3600 + mm * 60);
  return true;
}

// The formatters write into a caller's buffer and append it once: a
// timestamp is one append, not two dozen push_backs (floe scan prints one
// per row and column).
char* PutPadded(char* p, uint64_t v, int width) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = n; i < width; ++i) *p++ = '0';
  while (n) *p++ = buf[--n];
  return p;
}

// Two digits 00..99 (month, day, hour, minute, second).
inline char* Put2(char* p, uint64_t v) { return PutTwoDigits(p, v); }

char* PutYear(char* p, int64_t y, YearStyle style) {
  if (y >= 0 && y <= 9999) return PutPadded(p, static_cast<uint64_t>(y), 4);
  const uint64_t abs = static_cast<uint64_t>(y < 0 ? -y : y);
  *p++ = y < 0 ? '-' : '+';
  return PutPadded(p, abs, style == YearStyle::kJavaScript ? 6 : 4);
}

// Room for the longest date + 'T' + time: a year of 20 digits and a sign,
// "-MM-DD", "THH:MM:SS." and 9 fraction digits.
constexpr size_t kTextBuffer = 64;

char* PutDate(char* p, int64_t days, YearStyle style) {
  const CivilDate c = CivilFromDays(days);
  p = PutYear(p, c.year, style);
  *p++ = '-';
  p = Put2(p, static_cast<uint64_t>(c.month));
  *p++ = '-';
  return Put2(p, static_cast<uint64_t>(c.day));
}

char* PutTimeOfDay(char* p, int64_t units, int digits) {
  if (digits == 6 && units >= 0 && units < 100 * int64_t{3600} * 1000000) {
    // Microseconds (the common case: every timestamp of floe scan's output),
    // each quotient taken once: ~60 instructions, not ~190.
    const uint64_t u = static_cast<uint64_t>(units);
    const uint64_t secs = u / 1000000, f = u - secs * 1000000;
    const uint64_t h = secs / 3600, in_hour = secs - h * 3600, m = in_hour / 60, s = in_hour - m * 60;
    const uint64_t f1 = f / 10000, f23 = f - f1 * 10000, f2 = f23 / 100, f3 = f23 - f2 * 100;
    p = Put2(p, h);
    *p++ = ':';
    p = Put2(p, m);
    *p++ = ':';
    p = Put2(p, s);
    *p++ = '.';
    p = Put2(p, f1);
    p = Put2(p, f2);
    return Put2(p, f3);
  }
  int64_t scale = 1;
  for (int i = 0; i < digits; ++i) scale *= 10;
  // (Constant divisors for the common scales: a division by a variable is
  // the slowest instruction of a timestamp's text.)
  const int64_t secs = digits == 6 ? units / 1000000 : digits == 9 ? units / 1000000000 : units / scale;
  const int64_t frac = units - secs * scale;
  p = secs / 3600 < 100 ? Put2(p, static_cast<uint64_t>(secs / 3600))
                        : PutPadded(p, static_cast<uint64_t>(secs / 3600), 2);
  *p++ = ':';
  p = Put2(p, static_cast<uint64_t>(secs / 60 % 60));
  *p++ = ':';
  p = Put2(p, static_cast<uint64_t>(secs % 60));
  if (digits == 6) {  // microseconds: three digit pairs
    const uint64_t f = static_cast<uint64_t>(frac);
    *p++ = '.';
    p = Put2(p, f / 10000);
    p = Put2(p, f / 100 % 100);
    return Put2(p, f % 100);
  }
  if (digits > 0) {
    *p++ = '.';
    p = PutPadded(p, static_cast<uint64_t>(frac), digits);
  }
  return p;
}

void AppendPadded(uint64_t v, int width, std::string* out) {
  char buf[kTextBuffer];
  out->append(buf, PutPadded(buf, v, width));
}

}  // namespace

bool ParseDate(std::string_view text, Spelling spelling, int64_t* days) {
  size_t p = 0;
  return ParseDateAt(text, &p, days) && p == text.size();
}

bool ParseTime(std::string_view text, Spelling spelling, int64_t* nanos_of_day) {
  size_t p = 0;
  return ParseTimeAt(text, &p, spelling, nanos_of_day) && p == text.size();
}

bool ParseTimestamp(std::string_view text, Spelling spelling, TimestampParts* out) {
  const bool natural = spelling == Spelling::kNatural;
  size_t p = 0;
  TimestampParts parts;
  if (!ParseDateAt(text, &p, &parts.days)) return false;
  if (At(text, p, 'T') || (natural && (At(text, p, 't') || At(text, p, ' ')))) {
    ++p;
    if (!ParseTimeAt(text, &p, spelling, &parts.nanos_of_day)) return false;
  } else if (!natural) {
    return false;  // the ISO form has a time
  }
  if (p < text.size()) {
    if (!ParseZoneAt(text, &p, spelling, &parts.offset_seconds) || p != text.size()) return false;
    parts.has_zone = true;
  }
  *out = parts;
  return true;
}

bool EpochUnits(const TimestampParts& parts, int digits, int64_t* out) {
  const bool ns = digits == 9;
  // Seconds fit easily in __int128; check the unit count against int64.
  const __int128 secs = static_cast<__int128>(parts.days) * kSecondsPerDay - parts.offset_seconds;
  const __int128 units = ns ? secs * kNanosPerSecond + parts.nanos_of_day
                            : secs * kMicrosPerSecond + parts.nanos_of_day / kNanosPerMicro;
  if (units < INT64_MIN || units > INT64_MAX) return false;
  *out = static_cast<int64_t>(units);
  return true;
}

void AppendDate(int64_t days, YearStyle style, std::string* out) {
  char buf[kTextBuffer];
  out->append(buf, PutDate(buf, days, style));
}

void AppendTimeOfDay(int64_t units, int digits, std::string* out) {
  char buf[kTextBuffer];
  out->append(buf, PutTimeOfDay(buf, units, digits));
}

char* PutTimestamp(char* p, int64_t units, int digits, YearStyle style) {
  const int64_t per_day = kSecondsPerDay * (digits == 9 ? kNanosPerSecond : kMicrosPerSecond);
  // The date of the last call is kept: rows of a table tend to share days.
  thread_local struct {
    int64_t days = INT64_MIN;
    YearStyle style = YearStyle::kJavaScript;
    char text[32];
    size_t size = 0;
  } last;
  const int64_t days = FloorDiv(units, per_day);
  if (days != last.days || style != last.style) {
    last.size = static_cast<size_t>(PutDate(last.text, days, style) - last.text);
    last.days = days;
    last.style = style;
  }
  std::memcpy(p, last.text, last.size);
  p += last.size;
  *p++ = 'T';
  return PutTimeOfDay(p, FloorMod(units, per_day), digits);
}

void AppendTimestamp(int64_t units, int digits, YearStyle style, std::string* out) {
  char buf[kTextBuffer];
  out->append(buf, PutTimestamp(buf, units, digits, style));
}

void AppendJavaLocalTime(int64_t nanos_of_day, std::string* out) {
  const int64_t secs = nanos_of_day / kNanosPerSecond, nanos = nanos_of_day % kNanosPerSecond;
  AppendPadded(static_cast<uint64_t>(secs / 3600), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(secs / 60 % 60), 2, out);
  if (secs % 60 == 0 && nanos == 0) return;
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(secs % 60), 2, out);
  if (nanos == 0) return;
  out->push_back('.');
  if (nanos % 1'000'000 == 0) {
    AppendPadded(static_cast<uint64_t>(nanos / 1'000'000), 3, out);
  } else if (nanos % 1'000 == 0) {
    AppendPadded(static_cast<uint64_t>(nanos / 1'000), 6, out);
  } else {
    AppendPadded(static_cast<uint64_t>(nanos), 9, out);
  }
}

std::string FormatDate(int64_t days, YearStyle style) {
  std::string out;
  AppendDate(days, style, &out);
  return out;
}

std::string FormatJavaLocalTime(int64_t nanos_of_day) {
  std::string out;
  AppendJavaLocalTime(nanos_of_day, &out);
  return out;
}

}  // namespace floe::civil
