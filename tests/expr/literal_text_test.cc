// Filter literals read and print dates and timestamps through floe/util/civil_time
// (the spellings data files take); regressions of the copy expression.cc had.
#include "floe/expr/expression.h"

#include <gtest/gtest.h>

namespace floe::expr {
namespace literal_text_test {

TEST(LiteralText, MicrosecondTimestampsBeyondTheNanosecondRange) {
  // The old copy converted through nanoseconds, so a microsecond column could
  // not be compared with any instant before 1677 or after 2262.
  auto l = LiteralFromText("1500-01-01T00:00:00", *TimestampType());
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->i, -14831769600000000);
  auto far = LiteralFromText("3000-01-01 00:00:00+01:00", *TimestampTzType());
  ASSERT_TRUE(far) << far.error().message;
  EXPECT_EQ(far->i, 32503680000000000 - 3600000000);
  auto ns = LiteralFromText("1500-01-01T00:00:00", *Primitive(TypeId::kTimestampNs));
  ASSERT_FALSE(ns);
  EXPECT_NE(ns.error().message.find("out of range"), std::string::npos) << ns.error().message;
}

TEST(LiteralText, FractionDigitsBelowTheUnitFloor) {
  auto l = LiteralFromText("1969-12-31T23:59:59.9999999", *TimestampType());
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->i, -1);
}

TEST(LiteralText, NegativeYearsPrintAsJavaDoes) {
  // The old printer wrote "{:04}" of -1, that is "-001".
  auto l = LiteralFromText("-0001-12-31", *DateType());
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->ToString(), "DATE '-0001-12-31'");
  auto big = LiteralFromText("+10000-01-01", *DateType());
  ASSERT_TRUE(big) << big.error().message;
  EXPECT_EQ(big->ToString(), "DATE '+10000-01-01'");
}

TEST(LiteralText, RefusesLeapSecondsAndBadDays) {
  EXPECT_FALSE(LiteralFromText("2024-01-01T23:59:60", *TimestampType()));
  EXPECT_FALSE(LiteralFromText("2023-02-29", *DateType()));
  EXPECT_FALSE(LiteralFromText("2024-01-01T00:00:00+02:", *TimestampTzType()));
}

}  // namespace literal_text_test
}  // namespace floe::expr
