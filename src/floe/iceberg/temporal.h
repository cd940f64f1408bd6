/// \file
/// Calendar arithmetic for Iceberg's temporal encodings: days since
/// 1970-01-01 (date), microseconds/nanoseconds since the epoch (timestamps),
/// microseconds since midnight (time). Proleptic Gregorian calendar, as Java's
/// java.time and the Iceberg spec use. Pre-epoch values floor (Iceberg spec:
/// Partition Transforms).
#pragma once

#include <cstdint>

namespace floe::iceberg {

inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerHour = 3'600'000'000;
inline constexpr int64_t kMicrosPerDay = 86'400'000'000;
inline constexpr int64_t kNanosPerMicro = 1'000;

/// Division rounding toward negative infinity (Java's Math.floorDiv).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Remainder with the sign of the divisor (Java's Math.floorMod).
constexpr int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

/// A calendar date.
struct CivilDate {
  int64_t year = 1970;
  int month = 1;  ///< 1..12
  int day = 1;    ///< 1..31
};

/// Days since 1970-01-01 of a calendar date (no range check).
constexpr int64_t DaysFromCivil(int64_t y, int m, int d) {
  // Shift the year to start in March so the leap day is the last day of a year.
  y -= m <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(y, 400);
  const int64_t year_of_era = y - era * 400;                                 // 0..399
  const int64_t month_from_march = m > 2 ? m - 3 : m + 9;                    // 0..11
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + d - 1;      // 0..365
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468 = days from 0000-03-01 to 1970-01-01
}

/// The calendar date of a day count since 1970-01-01.
constexpr CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t day_of_era = days - era * 146097;                                    // 0..146096
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;  // 0..399
  const int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t mp = (5 * day_of_year + 2) / 153;  // month from March, 0..11
  CivilDate out;
  out.day = static_cast<int>(day_of_year - (153 * mp + 2) / 5 + 1);
  out.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  out.year = year_of_era + era * 400 + (out.month <= 2 ? 1 : 0);
  return out;
}

/// Years since 1970 of a day count (Iceberg `year` transform).
constexpr int32_t YearsFromDays(int64_t days) {
  return static_cast<int32_t>(CivilFromDays(days).year - 1970);
}

/// Months since 1970-01 of a day count (Iceberg `month` transform).
constexpr int32_t MonthsFromDays(int64_t days) {
  CivilDate c = CivilFromDays(days);
  return static_cast<int32_t>((c.year - 1970) * 12 + (c.month - 1));
}

}  // namespace floe::iceberg
