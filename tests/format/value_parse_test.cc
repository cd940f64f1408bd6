// The fixed-position timestamp parser (value_parse.cc FastTimestamp, also
// ParseTimestampFast) against the general one: with 'T' or ' ' spelled 't' a
// timestamp has the same value but takes the general path, so every pair
// must agree on success and value.
#include "floe/format/value_parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

namespace floe::format {
namespace value_parse_test {

/// What `text` parses to: "value N" or "error".
std::string Parsed(const std::string& text, const Type& type, DateCache* cache) {
  auto r = ParseTimestampText(text, type, cache);
  return r ? "value " + std::to_string(*r) : "error";
}

/// The same timestamp spelled so that only the general parser takes it: it
/// reads 'T', 't' and ' ' between date and time alike, the fast one no 't'.
std::string GeneralSpelling(const std::string& text) {
  std::string g = text;
  if (g.size() > 10 && (g[10] == 'T' || g[10] == ' ')) g[10] = 't';
  return g;
}

Type Of(TypeId id) {
  Type t;
  t.id = id;
  return t;
}

TEST(ValueParse, FixedPositionTimestampsAgreeWithTheGeneralParser) {
  const Type types[] = {Of(TypeId::kTimestamp), Of(TypeId::kTimestampTz), Of(TypeId::kTimestampNs),
                        Of(TypeId::kTimestampTzNs)};
  uint64_t h = 0x2545f4914f6cdd1dULL;
  int fast_values = 0;
  for (int i = 0; i < 200000; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    char buf[40];
    // Mostly valid fields, sometimes out of range (month 13, day 31 in
    // February, hour 24, minute 60, second 60).
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d%c%02d:%02d:%02d.%06d",
                  static_cast<int>(h % 10000), static_cast<int>(h >> 14 & 15) % 14,
                  static_cast<int>(h >> 18 & 31) % 32, (h >> 23 & 1) ? 'T' : ' ',
                  static_cast<int>(h >> 24 & 31) % 25, static_cast<int>(h >> 29 & 63) % 61,
                  static_cast<int>(h >> 35 & 63) % 61,
                  static_cast<int>(h >> 41 & 0xfffff) % 1000000);
    std::string text = buf;
    if (h >> 62 & 1) text.resize(19 + (h >> 57 & 7));  // no fraction, or 0 to 6 of its digits
    if ((h >> 60 & 3) == 0) {
      // one byte broken
      text[(h >> 50) % text.size()] = "0/:-. Tx\x7f\xff"[(h >> 56) % 10];
    }
    const Type& type = types[(h >> 44) % 4];
    DateCache cache, general_cache;
    const std::string fast = Parsed(text, type, &cache);
    EXPECT_EQ(fast, Parsed(GeneralSpelling(text), type, &general_cache)) << text;
    // Again with a warm date cache.
    EXPECT_EQ(Parsed(text, type, &cache), fast) << text;
    int64_t v = 0;
    DateCache c2;
    if (ParseTimestampFast(text, type, &c2, &v)) {
      ++fast_values;
      EXPECT_EQ(fast, "value " + std::to_string(v)) << text;
    }
  }
  EXPECT_GT(fast_values, 50000);
}

TEST(ValueParse, FixedPositionTimestampValues) {
  const Type ts = Of(TypeId::kTimestamp);
  const Type ns = Of(TypeId::kTimestampNs);
  int64_t v = 0;
  ASSERT_TRUE(ParseTimestampFast("2017-11-16T22:31:08.000001", ts, nullptr, &v));
  EXPECT_EQ(v, 1510871468000001);
  ASSERT_TRUE(ParseTimestampFast("1969-12-31 23:59:59", ts, nullptr, &v));
  EXPECT_EQ(v, -1000000);
  ASSERT_TRUE(ParseTimestampFast("2024-02-29T00:00:00.999999", ns, nullptr, &v));
  EXPECT_EQ(v, 1709164800999999000);
  EXPECT_FALSE(ParseTimestampFast("2023-02-29T00:00:00.000000", ts, nullptr, &v));
  EXPECT_FALSE(ParseTimestampFast("2023-01-01T00:00:00Z", ts, nullptr, &v));
  EXPECT_FALSE(ParseTimestampFast("2023-01-01t00:00:00", ts, nullptr, &v));
  EXPECT_FALSE(
      ParseTimestampFast("1000-01-01T00:00:00", ns, nullptr, &v));  // the general path range-checks
}

// The CSV decoder's fast integer and double shapes (ParseInt64Fast,
// ParseDoubleFast) give the general parsers' value whenever they take a text,
// bit for bit (-0.0 included), and take the common shapes: random texts of
// digits, signs, points, exponents and letters, then the edges.
TEST(ValueParse, FastIntegersAndDoublesAgreeWithTheGeneralParsers) {
  const Type long_type = Of(TypeId::kLong);
  auto check = [&](const std::string& text, int* fast_ints, int* fast_doubles) {
    SCOPED_TRACE(text);
    int64_t i = 0;
    if (ParseInt64Fast(text, &i)) {
      ++*fast_ints;
      auto general = ParseIntegerText(text, long_type);
      ASSERT_TRUE(general.has_value());
      EXPECT_EQ(*general, i);
    }
    double d = 0;
    if (ParseDoubleFast(text, &d)) {
      ++*fast_doubles;
      auto general = ParseDoubleText(text);
      ASSERT_TRUE(general.has_value());
      EXPECT_EQ(std::memcmp(&*general, &d, sizeof d), 0) << *general << " vs " << d;
    }
  };
  int fast_ints = 0, fast_doubles = 0;
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int n = 0; n < 300000; ++n) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    std::string text;
    const int len = 1 + static_cast<int>(h % 22);
    uint64_t g = h;
    for (int k = 0; k < len; ++k) {
      g = g * 6364136223846793005ULL + 1442695040888963407ULL;
      const unsigned pick = static_cast<unsigned>(g >> 59);  // 0..31
      text += pick < 24 ? static_cast<char>('0' + pick % 10) : "-+.eEx -."[pick - 24];
    }
    check(text, &fast_ints, &fast_doubles);
  }
  for (const char* text : {"0", "-0", "7", "-7", "007", "123456789012345678", "-123456789012345678",
                           "1234567890123456789", "9223372036854775807", "-9223372036854775808", "+5", "+-5",
                           "--5", "-", "", "0.0", "-0.0", "1.5", "-1.5", "1.", ".5", "1.50", "0.1", "0.3",
                           "123456789012345", "12345678901234.5", "1234567890123456", "0.000000000000001",
                           "9007199254740993", "1e5", "1.5e-3", "nan", "inf", " 1", "1 "}) {
    check(text, &fast_ints, &fast_doubles);
  }
  // The shapes CSV and JSON writers print go the fast way.
  EXPECT_GT(fast_ints, 1000);
  EXPECT_GT(fast_doubles, 1000);
  int64_t i = 0;
  double d = 0;
  EXPECT_TRUE(ParseInt64Fast("-123456789012345678", &i));
  EXPECT_EQ(i, -123456789012345678);
  EXPECT_TRUE(ParseDoubleFast("7583.94", &d));
  EXPECT_EQ(d, 7583.94);
  EXPECT_TRUE(ParseDoubleFast("-0.0", &d));
  EXPECT_TRUE(std::signbit(d));
  // Left to the general parser: a sign it must judge, more digits than are exact.
  EXPECT_FALSE(ParseInt64Fast("+5", &i));
  EXPECT_FALSE(ParseInt64Fast("1234567890123456789", &i));
  EXPECT_FALSE(ParseDoubleFast("1234567890123456", &d));
  EXPECT_FALSE(ParseDoubleFast("1.", &d));
  // A '-' after a sign is no number (from_chars took it: "--5" read as 5, "+-5" as -5).
  EXPECT_FALSE(ParseIntegerText("+-5", long_type).has_value());
  EXPECT_FALSE(ParseDoubleText("--5").has_value());
  EXPECT_FALSE(ParseDoubleText("+-5").has_value());
  EXPECT_FALSE(ParseFloatText("--5").has_value());
}

}  // namespace value_parse_test
}  // namespace floe::format
