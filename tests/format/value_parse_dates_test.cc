// Date text in data files goes through floe/util/civil_time (Spelling::kNatural),
// so the years Java prints (-0001, +10000) read back like JavaScript's (-000001, +010000).
#include <gtest/gtest.h>

#include "floe/format/value_parse.h"

namespace floe::format {
namespace value_parse_dates_test {

TEST(ValueParseDates, JavaAndJavaScriptExpandedYears) {
  // The old copy took exactly 6 digits after a sign.
  for (const char* text : {"-0001-12-31", "-000001-12-31"}) {
    auto d = ParseDateText(text);
    ASSERT_TRUE(d) << text << ": " << d.error().message;
    EXPECT_EQ(*d, -719529) << text;
  }
  for (const char* text : {"+10000-01-01", "+010000-01-01"}) {
    auto d = ParseDateText(text);
    ASSERT_TRUE(d) << text << ": " << d.error().message;
    EXPECT_EQ(*d, 2932897) << text;
  }
  auto bad = ParseDateText("20244-01-01");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "value '20244-01-01' is not a valid DATE (expected YYYY-MM-DD)");
}

TEST(ValueParseDates, TimestampErrorsNameTheRule) {
  Type ts;
  ts.id = TypeId::kTimestamp;
  auto zoned = ParseTimestampText("2024-01-01T00:00:00+02:00", ts);
  ASSERT_FALSE(zoned);
  EXPECT_NE(zoned.error().message.find("has a zone offset"), std::string::npos);
  auto leap = ParseTimestampText("2024-01-01T23:59:60", ts);
  ASSERT_FALSE(leap);
  EXPECT_NE(leap.error().message.find("is not a valid TIMESTAMP"), std::string::npos)
      << leap.error().message;
}

}  // namespace value_parse_dates_test
}  // namespace floe::format
