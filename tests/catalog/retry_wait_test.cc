// commit.retry.min-wait-ms and commit.retry.max-wait-ms shape the waits
// between commit attempts: exponential from the minimum, capped at the
// maximum, with at most 10% jitter.
#include <gtest/gtest.h>

#include "floe/catalog/commit_retry.h"

namespace floe::catalog {
namespace retry_wait_test {

TEST(RetryPolicy, WaitsFollowMinAndMaxWaitProperties) {
  auto p = RetryPolicy::FromProperties({{"commit.retry.min-wait-ms", "50"}, {"commit.retry.max-wait-ms", "300"}});
  ASSERT_TRUE(p) << p.error().message;
  for (int i = 0; i < 20; ++i) {  // jitter: each bound holds for every draw
    EXPECT_GE(p->WaitMs(1), 50);
    EXPECT_LE(p->WaitMs(1), 55);
    EXPECT_GE(p->WaitMs(2), 100);
    EXPECT_LE(p->WaitMs(2), 110);
    EXPECT_LE(p->WaitMs(12), 300);
    EXPECT_GE(p->WaitMs(12), 270);
  }
  auto d = RetryPolicy::FromProperties({});
  ASSERT_TRUE(d);
  EXPECT_GE(d->WaitMs(1), 100);  // the registry's default minimum
  EXPECT_LE(d->WaitMs(1), 110);
}

}  // namespace retry_wait_test
}  // namespace floe::catalog
