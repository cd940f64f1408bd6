// civil_time at the ends of int64: the nanosecond timestamps INT64_MIN and
// INT64_MAX (1677-09-21T00:12:43.145224192 and 2262-04-11T23:47:16.854775807)
// are valid values, and splitting them into day and time of day must not
// overflow. Found by UBSan (./scripts/test, asan part): FloorMod computed
// a - FloorDiv(a, b) * b, whose product leaves int64 for INT64_MIN.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "floe/util/civil_time.h"

namespace floe::civil {
namespace civil_time_extremes_test {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Constant evaluation refuses signed overflow, so these fail to compile with
// the old FloorMod (and the runtime checks below fail under UBSan).
static_assert(FloorMod(kMin, kNanosPerDay) == 763'145'224'192);
static_assert(FloorDiv(kMin, kNanosPerDay) == -106'752);
static_assert(FloorMod(kMax, kNanosPerDay) == 85'636'854'775'807);
static_assert(FloorMod(kMin, kMicrosPerDay) == 71'945'224'192);
static_assert(FloorMod(-1, kNanosPerDay) == kNanosPerDay - 1);
static_assert(FloorMod(7, -3) == -2);
static_assert(FloorMod(kMin, -1) == 0);

TEST(CivilTimeExtremes, FloorModAtTheEndsOfInt64) {
  volatile int64_t lo = kMin, hi = kMax;  // evaluated at run time, where UBSan sees it
  EXPECT_EQ(FloorMod(lo, kNanosPerDay), 763'145'224'192);
  EXPECT_EQ(FloorMod(hi, kNanosPerDay), 85'636'854'775'807);
  EXPECT_EQ(FloorMod(lo, kMicrosPerDay), 71'945'224'192);
  EXPECT_EQ(FloorMod(lo, int64_t{-1}), 0);
}

TEST(CivilTimeExtremes, NanosecondTimestampsAtTheEndsPrint) {
  std::string s;
  AppendTimestamp(kMin, 9, YearStyle::kJava, &s);
  EXPECT_EQ(s, "1677-09-21T00:12:43.145224192");
  s.clear();
  AppendTimestamp(kMax, 9, YearStyle::kJava, &s);
  EXPECT_EQ(s, "2262-04-11T23:47:16.854775807");
}

}  // namespace civil_time_extremes_test
}  // namespace floe::civil
