#include "floe/table/split_planner.h"

#include <gtest/gtest.h>

namespace floe::table {
namespace split_planner_test {

TEST(SplitPlanner, CutsAtRowGroupsAndMergesSmallOnes) {
  SplitOptions o;
  o.split_size = 100;
  o.open_file_cost = 10;
  std::vector<int64_t> offsets{4, 40, 90, 150, 260};
  auto r = SplitFile(0, 300, offsets, 0, o);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].start, 0);
  EXPECT_EQ(r[0].length, 150);  // row groups at 4, 40, 90 merge until >= 100
  EXPECT_EQ(r[1].start, 150);
  EXPECT_EQ(r[1].length, 110);
  EXPECT_EQ(r[2].start, 260);
  EXPECT_EQ(r[2].length, 40);
  // Bad offsets (past the end, not ascending) fall back to fixed steps.
  std::vector<int64_t> bad{4, 400};
  auto f = SplitFile(1, 250, bad, 0, o);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2].length, 50);
  // Small files weigh at least the open cost; deletes add weight.
  auto s = SplitFile(2, 3, {}, 0, o);
  EXPECT_EQ(s[0].weight, 10);
  auto d = SplitFile(3, 30, {}, 50, o);
  EXPECT_EQ(d[0].weight, 80);
}

TEST(SplitPlanner, PacksWithLookback) {
  SplitOptions o;
  o.split_size = 100;
  o.lookback = 1;
  std::vector<FileRange> ranges;
  for (int64_t w : {60, 60, 30, 30, 90}) ranges.push_back(FileRange{static_cast<int64_t>(ranges.size()), 0, w, w});
  auto splits = PackSplits(ranges, o);
  // lookback 1: [60] closes when the second 60 arrives; [60, 30] then [30, ...]
  ASSERT_EQ(splits.size(), 4u);
  EXPECT_EQ(splits[0].size(), 1u);
  EXPECT_EQ(splits[1].size(), 2u);
  EXPECT_EQ(splits[2].size(), 1u);
  EXPECT_EQ(splits[3][0].file, 4);
  o.lookback = 10;
  splits = PackSplits(ranges, o);
  // With more lookback the 30s fill the gaps next to the 60s.
  ASSERT_EQ(splits.size(), 3u);
  EXPECT_EQ(splits[0].size(), 2u);
  EXPECT_EQ(splits[1].size(), 2u);
  int64_t total = 0;
  for (auto& sp : splits) for (auto& r : sp) total += r.weight;
  EXPECT_EQ(total, 270);
  o.split_size = 0;
  EXPECT_FALSE(o.Validate());
}

}  // namespace split_planner_test
}  // namespace floe::table
