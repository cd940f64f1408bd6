// Iceberg single-value date text goes through floe/util/civil_time (Spelling::kIso):
// expanded years carry a sign, as Java's ISO_LOCAL_DATE requires.
#include <gtest/gtest.h>

#include "floe/iceberg/value.h"

namespace floe::iceberg {
namespace value_date_text_test {

TEST(ValueDateText, ExpandedYearsNeedASign) {
  // The old copy took 4 to 9 digits without a sign: "20244-01-01" was year 20244.
  EXPECT_FALSE(ParseDate("20244-01-01"));
  auto big = ParseDate("+20244-01-01");
  ASSERT_TRUE(big) << big.error().message;
  EXPECT_EQ(FormatDate(*big), "+20244-01-01");
  auto neg = ParseDate("-0001-12-31");
  ASSERT_TRUE(neg) << neg.error().message;
  EXPECT_EQ(*neg, -719529);
  EXPECT_EQ(FormatDate(*neg), "-0001-12-31");
}

TEST(ValueDateText, TimestampsKeepTheIsoForm) {
  EXPECT_FALSE(ParseTimestamp("2017-11-16 22:31:08", false, false));  // 'T' only
  EXPECT_FALSE(ParseTimestamp("2017-11-16", false, false));           // a time is required
  EXPECT_FALSE(ParseTimestamp("2017-11-16T22:31:08+0200", false, true));
  EXPECT_FALSE(ParseTimestamp("2017-11-16T23:59:60+00:00", false, true));
  auto tz = ParseTimestamp("2017-11-17T00:31:08.000001+02:00", false, true);
  ASSERT_TRUE(tz) << tz.error().message;
  EXPECT_EQ(*tz, 1510871468000001);
  // Microseconds reach beyond the nanosecond range; nanoseconds say which range they left.
  auto old = ParseTimestamp("1500-01-01T00:00:00", false, false);
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(*old, -14831769600000000);
  auto ns = ParseTimestamp("1500-01-01T00:00:00", true, false);
  ASSERT_FALSE(ns);
  EXPECT_NE(ns.error().message.find("nanosecond range"), std::string::npos) << ns.error().message;
}

}  // namespace value_date_text_test
}  // namespace floe::iceberg
