// The printers' integer text (util/decimal_digits.h) is std::to_chars's:
// every length and its edges (0, 9/10, 99/100, ..., the largest and the
// most negative values) and random values of every magnitude.
#include "floe/util/decimal_digits.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace floe {
namespace decimal_digits_test {

std::string Want(int64_t v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
std::string WantUnsigned(uint64_t v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
std::string Got(int64_t v) {
  char buf[32];
  return std::string(buf, PutInt64(buf, v));
}
std::string GotUnsigned(uint64_t v) {
  char buf[32];
  return std::string(buf, PutUint64(buf, v));
}

TEST(DecimalDigits, IntegersAsToChars) {
  std::vector<uint64_t> edges = {0, std::numeric_limits<uint64_t>::max()};
  for (uint64_t p = 1; p <= 10000000000000000000ULL / 10; p *= 10) {
    for (uint64_t v : {p - 1, p, p + 1, 10 * p - 1, 10 * p}) edges.push_back(v);
  }
  for (uint64_t v : edges) {
    EXPECT_EQ(GotUnsigned(v), WantUnsigned(v));
    EXPECT_EQ(static_cast<size_t>(DecimalLength(v)), WantUnsigned(v).size()) << v;
    const auto s = static_cast<int64_t>(v);
    EXPECT_EQ(Got(s), Want(s));
  }
  for (int64_t v : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 1,
                    std::numeric_limits<int64_t>::max(), int64_t{-1}, int64_t{-10}, int64_t{-99}}) {
    EXPECT_EQ(Got(v), Want(v));
  }
  uint64_t h = 0x2545f4914f6cdd1dULL;
  for (int i = 0; i < 200000; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    const uint64_t v = h >> (h % 64);  // every magnitude
    ASSERT_EQ(GotUnsigned(v), WantUnsigned(v));
    ASSERT_EQ(Got(static_cast<int64_t>(v)), Want(static_cast<int64_t>(v)));
    ASSERT_EQ(Got(-static_cast<int64_t>(v >> 1)), Want(-static_cast<int64_t>(v >> 1)));
  }
}

}  // namespace decimal_digits_test
}  // namespace floe
