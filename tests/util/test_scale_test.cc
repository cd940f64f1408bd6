// FLOE_TEST_SCALE (tests/testing/scale.h): the sanitizer runs of
// ./scripts/test shrink the slow tests with it, so a bad value must never
// turn a test into one that runs nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "testing/scale.h"

namespace floe {
namespace test_scale_test {

/// Sets FLOE_TEST_SCALE for one scope and puts the old value back.
class ScaleEnv {
 public:
  explicit ScaleEnv(const char* value) {
    if (const char* old = std::getenv("FLOE_TEST_SCALE")) old_ = old;
    if (value) {
      ::setenv("FLOE_TEST_SCALE", value, 1);
    } else {
      ::unsetenv("FLOE_TEST_SCALE");
    }
  }
  ~ScaleEnv() {
    if (old_) {
      ::setenv("FLOE_TEST_SCALE", old_->c_str(), 1);
    } else {
      ::unsetenv("FLOE_TEST_SCALE");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(TestScale, UnsetOrBadRunsTheFullCounts) {
  for (const char* v : {static_cast<const char*>(nullptr), "", "x", "0", "-1", "0.5x", "nan"}) {
    ScaleEnv env(v);
    EXPECT_EQ(test::TestScale(), 1.0) << (v ? v : "(unset)");
    EXPECT_EQ(test::Scaled(200), 200) << (v ? v : "(unset)");
  }
}

TEST(TestScale, FractionsRoundUpAndKeepTheMinimum) {
  ScaleEnv env("0.1");
  EXPECT_EQ(test::Scaled(200), 20);
  EXPECT_EQ(test::Scaled(45), 5);
  EXPECT_EQ(test::Scaled(3), 1);
  EXPECT_EQ(test::Scaled(40, 8), 8);
  EXPECT_EQ(test::Scaled(5, 8), 5) << "never more than the full count";
}

TEST(TestScale, AboveOneIsTheFullCount) {
  ScaleEnv env("3");
  EXPECT_EQ(test::TestScale(), 1.0);
  EXPECT_EQ(test::Scaled(200), 200);
}

}  // namespace test_scale_test
}  // namespace floe
