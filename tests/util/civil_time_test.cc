// civil_time: the one home of floe's calendar arithmetic and date/time text.
// Edges: year 0 and negative years, the Gregorian switch year 1582 (the
// calendar is proleptic, so nothing special happens), 9999 and beyond, leap
// days, leap seconds refused, 0-9 fraction digits, zones.
#include "floe/util/civil_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace floe::civil {
namespace civil_time_test {

int64_t Days(std::string_view text, Spelling spelling = Spelling::kIso) {
  int64_t d = 0;
  EXPECT_TRUE(ParseDate(text, spelling, &d)) << text;
  return d;
}

bool IsDate(std::string_view text, Spelling spelling = Spelling::kIso) {
  int64_t d = 0;
  return ParseDate(text, spelling, &d);
}

int64_t Nanos(std::string_view text, Spelling spelling = Spelling::kIso) {
  int64_t n = -1;
  EXPECT_TRUE(ParseTime(text, spelling, &n)) << text;
  return n;
}

bool IsTime(std::string_view text, Spelling spelling = Spelling::kIso) {
  int64_t n = 0;
  return ParseTime(text, spelling, &n);
}

/// "micros N" (UTC) of a timestamp text, "zone" appended when one was written, or "error".
std::string Ts(std::string_view text, Spelling spelling, int digits = 6) {
  TimestampParts parts;
  if (!ParseTimestamp(text, spelling, &parts)) return "error";
  int64_t v = 0;
  if (!EpochUnits(parts, digits, &v)) return "out of range";
  return std::to_string(v) + (parts.has_zone ? " zone" : "");
}

TEST(CivilTime, DayCountsRoundTripOverTwentyThousandYears) {
  for (int64_t d = DaysFromCivil(-10000, 1, 1); d <= DaysFromCivil(10000, 12, 31); d += 7) {
    CivilDate c = CivilFromDays(d);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d);
    ASSERT_GE(c.month, 1);
    ASSERT_LE(c.month, 12);
    ASSERT_GE(c.day, 1);
    ASSERT_LE(c.day, DaysInMonth(c.year, c.month));
  }
  // Consecutive days are consecutive dates, across a leap day and a year end.
  EXPECT_EQ(CivilFromDays(DaysFromCivil(2024, 2, 28) + 1), (CivilDate{2024, 2, 29}));
  EXPECT_EQ(CivilFromDays(DaysFromCivil(2024, 2, 29) + 1), (CivilDate{2024, 3, 1}));
  EXPECT_EQ(CivilFromDays(DaysFromCivil(1999, 12, 31) + 1), (CivilDate{2000, 1, 1}));
}

TEST(CivilTime, KnownDayCounts) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2017, 11, 16), 17486);
  EXPECT_EQ(DaysFromCivil(0, 1, 1), -719528);  // year 0 = 1 BC, a leap year
  EXPECT_EQ(DaysFromCivil(-1, 12, 31), -719529);
  EXPECT_EQ(DaysFromCivil(9999, 12, 31), 2932896);
  // Proleptic Gregorian: 1582-10-04 is followed by 1582-10-05, not the Julian switch's 10-15.
  EXPECT_EQ(DaysFromCivil(1582, 10, 5) - DaysFromCivil(1582, 10, 4), 1);
  EXPECT_EQ(DaysFromCivil(1582, 10, 15),
            -141427);  // java.time LocalDate.of(1582,10,15).toEpochDay()
  static_assert(DaysFromCivil(2000, 3, 1) == 11017);
  static_assert(CivilFromDays(-1).year == 1969);
}

TEST(CivilTime, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(0));
  EXPECT_TRUE(IsLeapYear(-4));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_FALSE(IsLeapYear(-1));
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);
  EXPECT_EQ(DaysInMonth(2023, 4), 30);
  EXPECT_EQ(DaysInMonth(2023, 12), 31);
}

TEST(CivilTime, FloorDivision) {
  EXPECT_EQ(FloorDiv(-1, 86400), -1);
  EXPECT_EQ(FloorMod(-1, 86400), 86399);
  EXPECT_EQ(FloorDiv(86400, 86400), 1);
  EXPECT_EQ(FloorMod(7, 3), 1);
  EXPECT_EQ(FloorDiv(-6, 3), -2);
  EXPECT_EQ(FloorMod(-6, 3), 0);
}

TEST(CivilTime, ParsesDates) {
  EXPECT_EQ(Days("1970-01-01"), 0);
  EXPECT_EQ(Days("2024-02-29"), DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(Days("0000-01-01"), -719528);
  EXPECT_EQ(Days("9999-12-31"), 2932896);
  EXPECT_EQ(Days("1582-10-10"), DaysFromCivil(1582, 10, 10));
  // Years outside 0000..9999: a sign and 4 to 9 digits (JavaScript's +010000, Java's -0001).
  EXPECT_EQ(Days("+010000-01-01"), DaysFromCivil(10000, 1, 1));
  EXPECT_EQ(Days("+10000-01-01"), DaysFromCivil(10000, 1, 1));
  EXPECT_EQ(Days("-0001-12-31"), -719529);
  EXPECT_EQ(Days("-000001-12-31"), -719529);
  EXPECT_EQ(Days("+2024-01-01"), DaysFromCivil(2024, 1, 1));
  EXPECT_EQ(Days("+999999999-12-31"), DaysFromCivil(999999999, 12, 31));
}

TEST(CivilTime, RefusesBadDates) {
  for (const char* bad : {"2023-02-29",
                          "1900-02-29",
                          "2024-02-30",
                          "2024-04-31",
                          "2024-13-01",
                          "2024-00-10",
                          "2024-01-00",
                          "2024-1-01",
                          "2024-01-1",
                          "24-01-01",
                          "20244-01-01",  // an unsigned year has 4 digits (ISO 8601: sign first)
                          "+123-01-01",
                          "+1234567890-01-01",
                          "2024/01/01",
                          "2024-01-01x",
                          "2024-01-01T00:00",
                          " 2024-01-01",
                          "",
                          "-",
                          "+"}) {
    EXPECT_FALSE(IsDate(bad)) << bad;
    EXPECT_FALSE(IsDate(bad, Spelling::kNatural)) << bad;
  }
}

TEST(CivilTime, ParsesTimesWithZeroToNineFractionDigits) {
  EXPECT_EQ(Nanos("00:00"), 0);
  EXPECT_EQ(Nanos("23:59"), (23 * 60 + 59) * 60 * kNanosPerSecond);
  EXPECT_EQ(Nanos("23:59:59"), kNanosPerDay - kNanosPerSecond);
  const char* fractions[] = {"",       ".1",      ".12",      ".123",      ".1234",
                             ".12345", ".123456", ".1234567", ".12345678", ".123456789"};
  const int64_t expect[] = {0,         100000000, 120000000, 123000000, 123400000,
                            123450000, 123456000, 123456700, 123456780, 123456789};
  for (int n = 0; n <= 9; ++n) {
    EXPECT_EQ(Nanos(std::string("12:00:00") + fractions[n]),
              12 * 3600 * kNanosPerSecond + expect[n])
        << n << " fraction digits";
  }
  EXPECT_EQ(Nanos("23:59:59.999999999"), kNanosPerDay - 1);
}

TEST(CivilTime, RefusesBadTimesAndLeapSeconds) {
  for (const char* bad :
       {"23:59:60", "23:59:60.5", "24:00", "24:00:00", "12:60", "1:00", "12:00:0", "12:00:00.",
        "12:00:00.1234567890", "12", "12:00:00Z", "12:00:00 ", "T12:00"}) {
    EXPECT_FALSE(IsTime(bad)) << bad;
    EXPECT_FALSE(IsTime(bad, Spelling::kNatural)) << bad;
  }
  // A ',' fraction point only in the natural spelling.
  EXPECT_FALSE(IsTime("12:00:00,5"));
  EXPECT_EQ(Nanos("12:00:00,5", Spelling::kNatural), 12 * 3600 * kNanosPerSecond + 500000000);
}

TEST(CivilTime, ParsesTimestampsAndZones) {
  const Spelling iso = Spelling::kIso, natural = Spelling::kNatural;
  EXPECT_EQ(Ts("2017-11-16T22:31:08", iso), "1510871468000000");
  EXPECT_EQ(Ts("2017-11-16T22:31:08.000001", iso), "1510871468000001");
  EXPECT_EQ(Ts("1969-12-31T23:59:59.999999", iso), "-1");
  EXPECT_EQ(Ts("1969-12-31T23:59:59.999999999", iso, 9), "-1");
  EXPECT_EQ(Ts("1969-12-31T23:59:59.9999999", iso), "-1");  // below the unit: dropped (floor)
  // Zones: the instant is UTC; local = UTC + offset.
  EXPECT_EQ(Ts("2017-11-16T22:31:08Z", iso), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-16T22:31:08+00:00", iso), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-17T00:31:08+02:00", iso), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-16T20:01:08-02:30", iso), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-16T22:31:08+18:00", iso), "1510806668000000 zone");
  // The natural spellings.
  EXPECT_EQ(Ts("2017-11-16 22:31:08", natural), "1510871468000000");
  EXPECT_EQ(Ts("2017-11-16t22:31:08", natural), "1510871468000000");
  EXPECT_EQ(Ts("2017-11-16", natural), "1510790400000000");
  EXPECT_EQ(Ts("2017-11-16T22:31:08z", natural), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-17T00:31:08+02", natural), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-17T00:31:08+0200", natural), "1510871468000000 zone");
  EXPECT_EQ(Ts("2017-11-16T22:31:08,5", natural), "1510871468500000");
  for (const char* natural_only :
       {"2017-11-16 22:31:08", "2017-11-16t22:31:08", "2017-11-16", "2017-11-16T22:31:08z",
        "2017-11-17T00:31:08+02", "2017-11-17T00:31:08+0200", "2017-11-16T22:31:08,5"}) {
    EXPECT_EQ(Ts(natural_only, iso), "error") << natural_only;
  }
  for (const char* bad :
       {"2017-11-16T22:31:08+19:00", "2017-11-16T22:31:08+02:60", "2017-11-16T22:31:08+2",
        "2017-11-16T22:31:08+02:", "2017-11-16T22:31:60", "2017-11-16T", "2017-11-16T22:31:08 Z",
        "2017-11-16T22:31:08ZZ", "2017-02-29T00:00:00"}) {
    EXPECT_EQ(Ts(bad, iso), "error") << bad;
    EXPECT_EQ(Ts(bad, natural), "error") << bad;
  }
}

TEST(CivilTime, EpochUnitsRange) {
  const Spelling iso = Spelling::kIso;
  // Nanoseconds reach 1677-09-21T00:12:43.145224192 .. 2262-04-11T23:47:16.854775807.
  EXPECT_EQ(Ts("2262-04-11T23:47:16.854775807", iso, 9), "9223372036854775807");
  EXPECT_EQ(Ts("2262-04-11T23:47:16.854775808", iso, 9), "out of range");
  EXPECT_EQ(Ts("1677-09-21T00:12:43.145224192", iso, 9), "-9223372036854775808");
  EXPECT_EQ(Ts("1677-09-21T00:12:43.145224191", iso, 9), "out of range");
  // Microseconds reach far beyond (the year 1500 is no problem), nine-digit years are not.
  EXPECT_EQ(Ts("1500-01-01T00:00:00", iso), "-14831769600000000");
  EXPECT_EQ(Ts("+999999999-01-01T00:00:00", iso), "out of range");
}

TEST(CivilTime, FixedPositionParserMatchesTheGeneralOne) {
  const char* texts[] = {"2017-11-16T22:31:08.000001", "2017-11-16 22:31:08",
                         "0000-01-01T00:00:00",        "9999-12-31T23:59:59.999999",
                         "1582-10-15T12:00:00.500000", "2024-02-29T00:00:00",
                         "1969-12-31T23:59:59.999999"};
  for (const char* text : texts) {
    for (bool ns : {false, true}) {
      int64_t fast = 0;
      TimestampParts parts;
      ASSERT_TRUE(ParseTimestamp(text, Spelling::kNatural, &parts)) << text;
      int64_t general = 0;
      const bool fits = EpochUnits(parts, ns ? 9 : 6, &general);
      if (ParseTimestampFixed(text, ns, nullptr, &fast)) {
        EXPECT_TRUE(fits) << text;
        EXPECT_EQ(fast, general) << text;
      } else {
        EXPECT_TRUE(ns) << text << ": only nanosecond range checks leave to the general parser";
      }
    }
  }
  int64_t v = 0;
  for (const char* refused :
       {"2023-02-29T00:00:00", "2024-01-01T23:59:60", "2024-01-01T24:00:00", "2024-13-01T00:00:00",
        "2024-01-01T00:00:00Z", "2024-01-01T00:00:00.1234567"}) {
    EXPECT_FALSE(ParseTimestampFixed(refused, false, nullptr, &v)) << refused;
  }
  // The cache serves a repeated date and is replaced by a new one.
  DateCache cache;
  ASSERT_TRUE(ParseTimestampFixed("2024-02-29T01:00:00", false, &cache, &v));
  ASSERT_TRUE(ParseTimestampFixed("2024-02-29T02:00:00", false, &cache, &v));
  EXPECT_EQ(v, (DaysFromCivil(2024, 2, 29) * 86400 + 7200) * kMicrosPerSecond);
  ASSERT_TRUE(ParseTimestampFixed("2024-03-01T02:00:00", false, &cache, &v));
  EXPECT_EQ(v, (DaysFromCivil(2024, 3, 1) * 86400 + 7200) * kMicrosPerSecond);
}

TEST(CivilTime, PrintsDatesInBothYearStyles) {
  EXPECT_EQ(FormatDate(0, YearStyle::kJava), "1970-01-01");
  EXPECT_EQ(FormatDate(-719528, YearStyle::kJava), "0000-01-01");
  EXPECT_EQ(FormatDate(-719529, YearStyle::kJava), "-0001-12-31");
  EXPECT_EQ(FormatDate(-719529, YearStyle::kJavaScript), "-000001-12-31");
  EXPECT_EQ(FormatDate(2932896, YearStyle::kJava), "9999-12-31");
  EXPECT_EQ(FormatDate(2932897, YearStyle::kJava), "+10000-01-01");
  EXPECT_EQ(FormatDate(2932897, YearStyle::kJavaScript), "+010000-01-01");
  EXPECT_EQ(FormatDate(DaysFromCivil(-12345, 6, 7), YearStyle::kJava), "-12345-06-07");
  // Every printed form reads back.
  for (int64_t d : {int64_t{-719529}, int64_t{0}, int64_t{2932897}, DaysFromCivil(-12345, 6, 7)}) {
    for (YearStyle style : {YearStyle::kJava, YearStyle::kJavaScript}) {
      EXPECT_EQ(Days(FormatDate(d, style)), d) << FormatDate(d, style);
    }
  }
}

TEST(CivilTime, PrintsTimesAndTimestamps) {
  std::string s;
  AppendTimeOfDay(0, 6, &s);
  EXPECT_EQ(s, "00:00:00.000000");
  s.clear();
  AppendTimeOfDay(kMicrosPerDay - 1, 6, &s);
  EXPECT_EQ(s, "23:59:59.999999");
  s.clear();
  AppendTimeOfDay(3661, 0, &s);
  EXPECT_EQ(s, "01:01:01");
  s.clear();
  AppendTimestamp(-1, 6, YearStyle::kJava, &s);
  EXPECT_EQ(s, "1969-12-31T23:59:59.999999");
  s.clear();
  AppendTimestamp(-1, 9, YearStyle::kJava, &s);
  EXPECT_EQ(s, "1969-12-31T23:59:59.999999999");
  s.clear();
  AppendTimestamp(1510871468000001, 6, YearStyle::kJavaScript, &s);
  EXPECT_EQ(s, "2017-11-16T22:31:08.000001");
}

TEST(CivilTime, PrintsJavaLocalTime) {
  EXPECT_EQ(FormatJavaLocalTime(0), "00:00");
  EXPECT_EQ(FormatJavaLocalTime(3600 * kNanosPerSecond), "01:00");
  EXPECT_EQ(FormatJavaLocalTime(61 * kNanosPerSecond), "00:01:01");
  EXPECT_EQ(FormatJavaLocalTime(500'000'000), "00:00:00.500");
  EXPECT_EQ(FormatJavaLocalTime(1'000), "00:00:00.000001");
  EXPECT_EQ(FormatJavaLocalTime(1), "00:00:00.000000001");
  EXPECT_EQ(FormatJavaLocalTime(kNanosPerDay - 1), "23:59:59.999999999");
}

// Times of day in microseconds (every timestamp floe scan prints) take a
// path of their own; it writes what the general one writes: random values
// over a day and beyond it (up to 120 hours, where hours take three digits),
// against snprintf's fields.
TEST(CivilTime, MicrosecondTimesOfDayMatchTheirFields) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 200000; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    const int64_t units = static_cast<int64_t>(h % (120 * uint64_t{3600} * 1000000));
    const int64_t secs = units / 1000000;
    char want[48];
    std::snprintf(want, sizeof want, "%02lld:%02lld:%02lld.%06lld", static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60),
                  static_cast<long long>(units % 1000000));
    std::string got;
    AppendTimeOfDay(units, 6, &got);
    ASSERT_EQ(got, want) << units;
  }
}

}  // namespace civil_time_test
}  // namespace floe::civil
