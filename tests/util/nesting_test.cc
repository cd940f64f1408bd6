// JsonNestingBeyond: the bracket scan that keeps deep JSON away from the
// recursive parsers and walkers (issue 7).
#include "floe/util/nesting.h"

#include <gtest/gtest.h>

#include <string>

namespace floe {
namespace nesting_test {

TEST(JsonNesting, FindsTheFirstBracketPastTheLimit) {
  EXPECT_EQ(JsonNestingBeyond("[[1]]", 2), std::nullopt);
  EXPECT_EQ(JsonNestingBeyond("[[[1]]]", 2), std::optional<size_t>(2));
  EXPECT_EQ(JsonNestingBeyond(R"({"a":{"b":[1]}})", 2), std::optional<size_t>(10));
  // Siblings do not add up: only the depth counts.
  EXPECT_EQ(JsonNestingBeyond("[[1],[2],[3],{}]", 2), std::nullopt);
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(JsonNestingBeyond(deep), std::optional<size_t>(kMaxJsonDepth));
}

TEST(JsonNesting, BracketsInsideStringsDoNotCount) {
  EXPECT_EQ(JsonNestingBeyond(R"(["[[[[", "{{{{"])", 1), std::nullopt);
  // An escaped quote does not end the string; an escaped backslash does not escape the quote.
  EXPECT_EQ(JsonNestingBeyond(R"(["\"[[[[", "x\\", [1]])", 1), std::optional<size_t>(18));
  EXPECT_EQ(JsonNestingBeyond(R"(["\"[[[["])", 1), std::nullopt);
}

}  // namespace nesting_test
}  // namespace floe
