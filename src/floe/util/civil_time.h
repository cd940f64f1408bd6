/// \file
/// Civil (calendar) time, the one home of floe's date arithmetic and of the
/// text forms of dates, times and timestamps. Every module that turns days
/// since 1970-01-01, microseconds or nanoseconds since the epoch, or time of
/// day into text or back uses these (the JSONL/CSV decoders, the canonical
/// JSON printer, filter literals, Iceberg's single-value JSON and partition
/// paths).
///
/// Calendar: proleptic Gregorian, as Java's java.time and the Iceberg spec use
/// ("Primitive Types": date is days from 1970-01-01), year 0 = 1 BC, no leap
/// seconds. Pre-epoch values floor (Iceberg spec: Partition Transforms).
///
/// Text grammar (ISO 8601 extended format):
///
///   date       YYYY-MM-DD; years outside 0000..9999 carry a sign and 4 to 9
///              digits (+010000, -0001, +12345), as JavaScript and Java print them
///   time       HH:MM[:SS[.f{1,9}]]; SS 60 (a leap second) is refused
///   timestamp  date 'T' time [zone]
///   zone       Z | +HH:MM | -HH:MM  (HH <= 18)
///
/// Spelling::kNatural also accepts what people write in data files and
/// filters: ' ' or 't' for 'T', a date alone as a timestamp (midnight), ','
/// for the fraction point, and zones z, +HH and +HHMM.
///
/// Hot functions (day counts, the fixed-position timestamp parser of the
/// JSONL fast path) are inline here; the general parsers and printers are in
/// civil_time.cc.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace floe::civil {

inline constexpr int64_t kSecondsPerDay = 86'400;
inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kNanosPerSecond = 1'000'000'000;
inline constexpr int64_t kNanosPerMicro = 1'000;
inline constexpr int64_t kMicrosPerHour = 3'600'000'000;
inline constexpr int64_t kMicrosPerDay = 86'400'000'000;
inline constexpr int64_t kNanosPerDay = 86'400'000'000'000;

/// Division rounding toward negative infinity (Java's Math.floorDiv).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Remainder with the sign of the divisor (Java's Math.floorMod). From `a % b`,
/// never `a - FloorDiv(a, b) * b`: that product leaves int64 for the valid
/// timestamp INT64_MIN ns (1677-09-21), and signed overflow is undefined (UBSan
/// found it). b == -1 is answered first, as INT64_MIN % -1 overflows too.
constexpr int64_t FloorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/// Gregorian leap year: divisible by 4, except centuries not divisible by 400.
constexpr bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/// Days in month `m` (1..12) of year `y`.
constexpr int DaysInMonth(int64_t y, int m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

/// A calendar date.
struct CivilDate {
  int64_t year = 1970;
  int month = 1;  ///< 1..12
  int day = 1;    ///< 1..31

  friend bool operator==(const CivilDate&, const CivilDate&) = default;
};

/// Days since 1970-01-01 of a calendar date (no range check; any year).
/// Counts in 400-year eras of 146097 days with years starting in March, so
/// that the leap day is the last day of a year.
constexpr int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(y, 400);
  const int64_t year_of_era = y - era * 400;                             // 0..399
  const int64_t month_from_march = m > 2 ? m - 3 : m + 9;                // 0..11
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + d - 1;  // 0..365
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468 = days from 0000-03-01 to 1970-01-01
}

/// The calendar date of a day count since 1970-01-01 (inverse of DaysFromCivil).
constexpr CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t day_of_era = days - era * 146097;  // 0..146096
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;  // 0..399
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t mp = (5 * day_of_year + 2) / 153;  // month from March, 0..11
  CivilDate out;
  out.day = static_cast<int>(day_of_year - (153 * mp + 2) / 5 + 1);
  out.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  out.year = year_of_era + era * 400 + (out.month <= 2 ? 1 : 0);
  return out;
}

// ------------------------------------------------------------------ parsing

/// Which spellings a parser accepts (see the file comment).
enum class Spelling {
  kIso,      ///< the ISO forms only (Iceberg's JSON single values, as Java writes them)
  kNatural,  ///< also ' ' for 'T', date-only timestamps, ',' fractions, z / +HH / +HHMM zones
};

/// A parsed timestamp, before its conversion to an instant.
struct TimestampParts {
  int64_t days = 0;            ///< date, days since 1970-01-01
  int64_t nanos_of_day = 0;    ///< 0 .. 86399999999999
  bool has_zone = false;       ///< a zone was written (Z counts)
  int64_t offset_seconds = 0;  ///< local time = UTC + offset
};

/// The whole of `text` as a date: days since 1970-01-01. False when it is not one.
bool ParseDate(std::string_view text, Spelling spelling, int64_t* days);
/// The whole of `text` as a time of day: nanoseconds since midnight.
bool ParseTime(std::string_view text, Spelling spelling, int64_t* nanos_of_day);
/// The whole of `text` as a timestamp, with or without a zone (the caller
/// decides whether a zone is allowed or required).
bool ParseTimestamp(std::string_view text, Spelling spelling, TimestampParts* out);
/// The UTC instant of `parts` in units of 10^-digits seconds (digits 6 or 9),
/// fraction digits below the unit dropped. False when it does not fit int64.
bool EpochUnits(const TimestampParts& parts, int digits, int64_t* out);

/// The date part of the last timestamp ParseTimestampFixed parsed:
/// consecutive rows usually share it.
struct DateCache {
  char text[10] = {};
  int64_t days = 0;
  bool valid = false;
};

namespace internal {
/// The 8 bytes at `p` as a little-endian word.
inline uint64_t Load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

/// Whether the bytes of `w` selected by `mask` (0xff per byte) are all ASCII
/// digits: a digit has high nibble 3, and so has the digit plus 6. (A byte
/// >= 0xfa carries into the next one, but is itself rejected, and a carry
/// only ever makes a digit fail the test, never a non-digit pass.)
inline bool AllDigits(uint64_t w, uint64_t mask) {
  constexpr uint64_t kF0 = 0xf0f0f0f0f0f0f0f0ULL, k30 = 0x3030303030303030ULL,
                     k06 = 0x0606060606060606ULL;
  return ((((w & kF0) ^ k30) | (((w + k06) & kF0) ^ k30)) & mask) == 0;
}
}  // namespace internal

/// The most common timestamp spelling, "YYYY-MM-DDTHH:MM:SS.ffffff" (or with
/// a space, with 1 to 5 fraction digits, or without the fraction), read at fixed positions 8 bytes at a
/// time, for the JSONL fast path. Sets `*out` to microseconds (nanoseconds
/// when `ns`) since the epoch and returns true, or returns false to leave the
/// text to ParseTimestamp, which accepts everything this accepts with the same
/// value. `cache` (optional) skips re-reading a date equal to the previous one.
inline bool ParseTimestampFixed(std::string_view s, bool ns, DateCache* cache, int64_t* out) {
  using internal::AllDigits;
  using internal::Load8;
  char buf[32];
  const char* p = s.data();
  if (s.size() == 19) {
    std::memcpy(buf, p, 19);
    std::memcpy(buf + 19, ".000000", 7);
    p = buf;
  } else if (s.size() > 20 && s.size() < 26 && p[19] == '.') {
    // 1 to 5 fraction digits (writers that trim trailing zeros: DuckDB, Spark), read as 6.
    std::memcpy(buf, p, s.size());
    std::memset(buf + s.size(), '0', 26 - s.size());
    p = buf;
  } else if (s.size() != 26) {
    return false;
  }
  //            byte:  7 6 5 4 3 2 1 0
  // w0 "YYYY-MM-":    - M M - Y Y Y Y
  // w1 "DDTHH:MM":    M M : H H T D D
  // w2 ":SS.ffff":    f f f f . S S :
  const uint64_t w0 = Load8(p), w1 = Load8(p + 8), w2 = Load8(p + 16);
  uint16_t w3;  // "ff"
  std::memcpy(&w3, p + 24, 2);
  if (!AllDigits(w0, 0x00ffff00ffffffffULL) || !AllDigits(w1, 0xffff00ffff00ffffULL) ||
      !AllDigits(w2, 0xffffffff00ffff00ULL) || !AllDigits(w3, 0xffff)) {
    return false;
  }
  if ((w0 & 0xff0000ff00000000ULL) != 0x2d00002d00000000ULL ||  // '-' at 4 and 7
      (w1 & 0x0000ff0000000000ULL) != 0x00003a0000000000ULL ||  // ':' at 13
      (w2 & 0x00000000ff0000ffULL) != 0x000000002e00003aULL ||  // ':' at 16, '.' at 19
      (p[10] != 'T' && p[10] != ' ')) {
    return false;
  }
  // Two-digit numbers from the low nibbles: byte i of pairs(w) is
  // 10 * digit i + digit i+1 (no carries: every byte stays below 256).
  auto pairs = [](uint64_t w) {
    const uint64_t x = w & 0x0f0f0f0f0f0f0f0fULL;
    return x * 10 + (x >> 8);
  };
  auto at = [](uint64_t q, int byte) { return static_cast<int64_t>((q >> (8 * byte)) & 0xff); };
  const uint64_t q0 = pairs(w0), q1 = pairs(w1), q2 = pairs(w2);
  const int64_t h = at(q1, 3), mi = at(q1, 6), se = at(q2, 1);
  if (h > 23 || mi > 59 || se > 59) return false;  // the general parser gives the message
  const int64_t frac = at(q2, 4) * 10000 + at(q2, 6) * 100 + (p[24] - '0') * 10 + (p[25] - '0');
  const int64_t y = at(q0, 0) * 100 + at(q0, 2);
  int64_t days;
  if (cache && cache->valid && std::memcmp(cache->text, p, 10) == 0) {
    days = cache->days;
  } else {
    const int mo = static_cast<int>(at(q0, 5)), da = static_cast<int>(at(q1, 0));
    if (mo < 1 || mo > 12 || da < 1 || da > DaysInMonth(y, mo)) return false;
    days = DaysFromCivil(y, mo, da);
    if (cache) {
      std::memcpy(cache->text, p, 10);
      cache->days = days;
      cache->valid = true;
    }
  }
  const int64_t secs = days * kSecondsPerDay + (h * 60 + mi) * 60 + se;
  if (ns) {
    // years 0..9999 can overflow nanoseconds: leave the range check to the general path
    if (y < 1678 || y > 2261) return false;
    *out = secs * kNanosPerSecond + frac * 1000;
  } else {
    *out = secs * kMicrosPerSecond + frac;
  }
  return true;
}

// ----------------------------------------------------------------- printing

/// How years outside 0000..9999 are written.
enum class YearStyle {
  kJavaScript,  ///< Date#toISOString: sign and 6 digits (+010000, -000001)
  kJava,        ///< java.time.LocalDate: '-' and at least 4 digits, '+' above 9999 (+10000, -0001)
};

/// Appends "YYYY-MM-DD" for days since 1970-01-01.
void AppendDate(int64_t days, YearStyle style, std::string* out);
/// Appends "HH:MM:SS" and, when `digits` > 0, '.' and that many fraction
/// digits, for a time of day in units of 10^-digits seconds (0 <= units < 1 day).
void AppendTimeOfDay(int64_t units, int digits, std::string* out);
/// Appends "<date>T<time>" with `digits` (6 or 9) fraction digits for an
/// instant in units of 10^-digits seconds since the epoch (no zone suffix).
void AppendTimestamp(int64_t units, int digits, YearStyle style, std::string* out);
/// AppendTimestamp into a caller's buffer of at least kTimestampTextMax
/// bytes at `p`; returns the end of what it wrote.
inline constexpr size_t kTimestampTextMax = 64;
char* PutTimestamp(char* p, int64_t units, int digits, YearStyle style);
/// Appends java.time.LocalTime#toString of nanoseconds since midnight: HH:mm,
/// then :ss when seconds or fraction are non-zero, then the fraction in
/// groups of 3 digits (Iceberg partition paths follow Java's forms).
void AppendJavaLocalTime(int64_t nanos_of_day, std::string* out);

/// AppendDate into a new string.
std::string FormatDate(int64_t days, YearStyle style);
/// AppendJavaLocalTime into a new string.
std::string FormatJavaLocalTime(int64_t nanos_of_day);

}  // namespace floe::civil
