/// \file
/// Test support: assertions and gmock matchers for floe's `Result<T>` and
/// `Status` that say what failed. A bare `EXPECT_TRUE(result)` prints only
/// "Value of: result, Actual: false"; these print the error's kind and message.
///
///   ASSERT_OK(table.Refresh());                      // fatal unless OK
///   EXPECT_OK(writer->Close()) << "after 3 files";   // non-fatal; takes <<
///   ASSERT_OK_AND_ASSIGN(auto reader, Open(path));   // the value, or fatal
///   EXPECT_THAT(Parse("x"), IsError(ErrorKind::kInvalidArgument));
///   EXPECT_THAT(Open("gone"), HasErrorMessage("gone"));
///   EXPECT_THAT(r, ::testing::AllOf(IsError(ErrorKind::kCorrupt), HasErrorMessage("page")));
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <concepts>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "floe/util/status.h"

namespace floe {

/// gtest prints an Error as "kind: message".
inline void PrintTo(const Error& e, std::ostream* os) { *os << e.ToString(); }

/// gtest prints a Result as "OK" (with its value) or as its error, instead of
/// the object's bytes.
template <typename T>
void PrintTo(const Result<T>& r, std::ostream* os) {
  if (!r.has_value()) {
    *os << "error (" << r.error().ToString() << ")";
  } else if constexpr (std::is_void_v<T>) {
    *os << "OK";
  } else {
    *os << "OK (" << ::testing::PrintToString(*r) << ")";
  }
}

}  // namespace floe

namespace floe::test {

namespace detail {

/// What the assertions and matchers accept: a Result<T> or a Status.
template <typename R>
concept ResultLike = requires(const R& r) {
  { r.has_value() } -> std::convertible_to<bool>;
  { r.error() } -> std::convertible_to<const Error&>;
};

/// The check behind ASSERT_OK / EXPECT_OK: success, or a failure naming the
/// expression and the error's kind and message.
template <ResultLike R>
::testing::AssertionResult CheckOk(const char* expression, const R& r) {
  if (r.has_value()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expression << " failed: " << r.error().ToString()
                                       << (r.error().retryable ? " (retryable)" : "");
}

class IsOkMatcher {
 public:
  template <ResultLike R>
  bool MatchAndExplain(const R& r, ::testing::MatchResultListener* listener) const {
    if (r.has_value()) return true;
    *listener << "which is an error: " << r.error().ToString();
    return false;
  }
  void DescribeTo(std::ostream* os) const { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is an error"; }
};

class IsErrorMatcher {
 public:
  explicit IsErrorMatcher(ErrorKind kind) : kind_(kind) {}
  template <ResultLike R>
  bool MatchAndExplain(const R& r, ::testing::MatchResultListener* listener) const {
    if (r.has_value()) {
      *listener << "which is OK";
      return false;
    }
    if (r.error().kind != kind_) {
      *listener << "which is an error of another kind: " << r.error().ToString();
      return false;
    }
    *listener << "which is " << r.error().ToString();
    return true;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "is an error of kind \"" << ErrorKindName(kind_) << "\"";
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "is OK or an error of a kind other than \"" << ErrorKindName(kind_) << "\"";
  }

 private:
  ErrorKind kind_;
};

class HasErrorMessageMatcher {
 public:
  explicit HasErrorMessageMatcher(std::string substring) : substring_(std::move(substring)) {}
  template <ResultLike R>
  bool MatchAndExplain(const R& r, ::testing::MatchResultListener* listener) const {
    if (r.has_value()) {
      *listener << "which is OK";
      return false;
    }
    bool found = r.error().message.find(substring_) != std::string::npos;
    *listener << "which is " << r.error().ToString();
    return found;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "is an error whose message contains \"" << substring_ << "\"";
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "is OK or an error whose message does not contain \"" << substring_ << "\"";
  }

 private:
  std::string substring_;
};

}  // namespace detail

/// Matches a Result/Status that holds a value (or, for a Status, success).
inline ::testing::PolymorphicMatcher<detail::IsOkMatcher> IsOk() {
  return ::testing::MakePolymorphicMatcher(detail::IsOkMatcher());
}

/// Matches a Result/Status that failed with an error of `kind`.
inline ::testing::PolymorphicMatcher<detail::IsErrorMatcher> IsError(ErrorKind kind) {
  return ::testing::MakePolymorphicMatcher(detail::IsErrorMatcher(kind));
}

/// Matches a Result/Status that failed with an error whose message contains
/// `substring` (any kind).
inline ::testing::PolymorphicMatcher<detail::HasErrorMessageMatcher> HasErrorMessage(
    std::string substring) {
  return ::testing::MakePolymorphicMatcher(detail::HasErrorMessageMatcher(std::move(substring)));
}

}  // namespace floe::test

// The assertions are macros, like gtest's, so that ASSERT_* can return from
// the test and both take `<< message`. GTEST_ASSERT_ is gtest's own building
// block for ASSERT_PRED* and friends.
#define FLOE_TEST_CHECK_OK_(text, expr, on_failure) \
  GTEST_ASSERT_(::floe::test::detail::CheckOk(text, expr), on_failure)

/// Fails the test (non-fatally) unless `expr` (a Result or Status) is OK,
/// printing the expression and the error's kind and message.
#define EXPECT_OK(expr) FLOE_TEST_CHECK_OK_(#expr, (expr), GTEST_NONFATAL_FAILURE_)

/// Like EXPECT_OK, but returns from the test function on failure.
#define ASSERT_OK(expr) FLOE_TEST_CHECK_OK_(#expr, (expr), GTEST_FATAL_FAILURE_)

#define FLOE_TEST_ASSIGN_OR_FAIL_(tmp, lhs, expr)        \
  auto tmp = (expr);                                     \
  FLOE_TEST_CHECK_OK_(#expr, tmp, GTEST_FATAL_FAILURE_); \
  lhs = std::move(tmp).value()

/// `ASSERT_OK_AND_ASSIGN(auto x, F())`: x = F()'s value, or the test fails
/// (fatally) with F()'s error. A statement, not an expression.
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  FLOE_TEST_ASSIGN_OR_FAIL_(FLOE_CONCAT(floe_test_result_, __LINE__), lhs, expr)
