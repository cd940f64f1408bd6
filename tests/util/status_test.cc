#include "floe/util/status.h"

#include <gtest/gtest.h>

namespace floe {
namespace status_test {

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  FLOE_ASSIGN_OR_RETURN(int h, Half(x));
  FLOE_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Status, PropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_EQ(r.error().message, "3 is odd");
  EXPECT_EQ(r.error().ToString(), "invalid argument: 3 is odd");
  EXPECT_FALSE(r.error().retryable);
}

TEST(Status, CommitKindsDifferInRetryability) {
  Status failed = CommitFailed("lost race at v{}", 3);
  Status unknown = CommitStateUnknown("timeout");
  EXPECT_TRUE(failed.error().retryable);
  EXPECT_FALSE(unknown.error().retryable);
  EXPECT_EQ(failed.error().WithContext("t1").message, "t1: lost race at v3");
}

}  // namespace status_test
}  // namespace floe
