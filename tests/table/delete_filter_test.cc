#include "floe/table/delete_filter.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe::table {
namespace delete_filter_test {

Schema TableSchema() {
  return Schema({{1, "id", false, IntType(), {}},
                 {2, "name", false, StringType(), {}},
                 {3, "s", false, StructType({{4, "k", false, LongType(), {}}}), {}},
                 {5, "tags", false, ListType(6, false, StringType()), {}}});
}

Batch Rows(const std::vector<std::tuple<std::optional<int32_t>, std::optional<std::string>, int>>& rows) {
  auto schema = std::make_shared<Schema>(TableSchema());
  Batch b(schema);
  for (const auto& [id, name, k] : rows) {
    if (id) b.columns[0].Append<int32_t>(*id); else b.columns[0].AppendNull();
    if (name) b.columns[1].AppendBytes(*name); else b.columns[1].AppendNull();
    if (k < 0) {
      b.columns[2].AppendNull();
    } else {
      b.columns[2].children[0].Append<int64_t>(k);
      b.columns[2].AppendStructRow();
    }
    b.columns[3].CloseListRow();
    ++b.num_rows;
  }
  EXPECT_TRUE(b.Validate()) << b.Validate().error().ToString();
  return b;
}

TEST(DeleteFilter, FieldPaths) {
  Schema s = TableSchema();
  EXPECT_EQ(*FieldPath(s, 4), (std::vector<int>{2, 0}));
  EXPECT_EQ(FieldPath(s, 6).error().kind, ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldPath(s, 99).error().kind, ErrorKind::kNotFound);
}

TEST(DeleteFilter, PositionsAcrossBatches) {
  PositionDeletes d;
  d.AddAll(std::vector<int64_t>{7, 2, 2, 10, 100});
  std::vector<uint8_t> keep(5, 1);
  d.Apply(0, keep);
  EXPECT_EQ(keep, (std::vector<uint8_t>{1, 1, 0, 1, 1}));
  keep.assign(5, 1);
  d.Apply(5, keep);  // rows 5..9
  EXPECT_EQ(keep, (std::vector<uint8_t>{1, 1, 0, 1, 1}));
}

TEST(DeleteFilter, EqualityIsNullSafeAndUsesOnlyTheKeyColumns) {
  Schema s = TableSchema();
  auto eq = EqualityDeletes::Make({1}, s);
  ASSERT_OK(eq);
  // Delete rows where id = 1 or id is null; the name column of the delete
  // file is ignored (Java writes full rows with nulls outside the key).
  ASSERT_OK(eq->AddDeletes(Rows({{1, "other", 0}, {std::nullopt, std::nullopt, -1}})));
  Batch data = Rows({{1, "a", 1}, {2, "b", 2}, {std::nullopt, "c", 3}, {1, std::nullopt, -1}});
  std::vector<uint8_t> keep(4, 1);
  ASSERT_OK(eq->Apply(data, keep));
  EXPECT_EQ(keep, (std::vector<uint8_t>{0, 1, 0, 0}));
}

TEST(DeleteFilter, CompositeAndNestedKeys) {
  Schema s = TableSchema();
  auto eq = EqualityDeletes::Make({2, 4}, s);
  ASSERT_OK(eq);
  ASSERT_OK(eq->AddDeletes(Rows({{0, "x", 5}, {0, "y", -1}})));  // (x,5), (y,null: parent null)
  Batch data = Rows({{1, "x", 5}, {2, "x", 6}, {3, "y", -1}, {4, "y", 0}});
  std::vector<uint8_t> keep(4, 1);
  ASSERT_OK(eq->Apply(data, keep));
  EXPECT_EQ(keep, (std::vector<uint8_t>{0, 1, 0, 1}));
  EXPECT_FALSE(EqualityDeletes::Make({6}, s));
  EXPECT_FALSE(EqualityDeletes::Make({3}, s));  // a struct is not a primitive key
}

// The scan's shared index: each file's keys once, applied to a data file
// through the set of files that apply to it (the planner's rules).
TEST(DeleteFilter, EqualityIndexAppliesOnlyTheFilesGiven) {
  Schema s = TableSchema();
  auto index = EqualityDeleteIndex::Make({1, 2}, s);
  ASSERT_OK(index);
  // File 0 deletes (1,a) and (null,null); file 1 deletes (1,a) again and (2,b); file 2 (3,c) twice.
  ASSERT_OK_AND_ASSIGN(uint32_t f0, index->Add({Rows({{1, "a", 0}, {std::nullopt, std::nullopt, -1}})}));
  ASSERT_OK_AND_ASSIGN(uint32_t f1, index->Add({Rows({{1, "a", 0}}), Rows({{2, "b", 0}})}));
  ASSERT_OK_AND_ASSIGN(uint32_t f2, index->Add({Rows({{3, "c", 0}, {3, "c", 9}})}));
  EXPECT_EQ(f0, 0u);
  EXPECT_EQ(f1, 1u);
  EXPECT_EQ(f2, 2u);
  EXPECT_EQ(index->size(), 4u);
  EXPECT_EQ(index->files(), 3u);
  Batch data = Rows({{1, "a", 1}, {2, "b", 2}, {3, "c", 3}, {std::nullopt, std::nullopt, 4}, {1, "b", 5}});
  auto apply = [&](std::vector<uint8_t> applies) {
    std::vector<uint8_t> keep(5, 1);
    EXPECT_OK(index->Apply(data, applies, keep));
    return keep;
  };
  EXPECT_EQ(apply({1, 1, 1}), (std::vector<uint8_t>{0, 0, 0, 0, 1}));
  EXPECT_EQ(apply({1, 0, 0}), (std::vector<uint8_t>{0, 1, 1, 0, 1}));
  EXPECT_EQ(apply({0, 1}), (std::vector<uint8_t>{0, 0, 1, 1, 1}));  // ordinals past the mask do not apply
  EXPECT_EQ(apply({0, 0, 1}), (std::vector<uint8_t>{1, 1, 0, 1, 1}));
  EXPECT_EQ(apply({}), (std::vector<uint8_t>{1, 1, 1, 1, 1}));
  // A row already removed is left alone.
  std::vector<uint8_t> keep = {1, 0, 1, 1, 1};
  ASSERT_OK(index->Apply(data, std::vector<uint8_t>{0, 1, 0}, keep));
  EXPECT_EQ(keep, (std::vector<uint8_t>{0, 0, 1, 1, 1}));
}

TEST(DeleteFilter, EqualityIndexGrowsAndKeepsEveryKey) {
  Schema s = TableSchema();
  auto index = EqualityDeleteIndex::Make({1}, s);
  ASSERT_OK(index);
  // 20,000 keys over 4 files (every key in files k % 4 and (k + 1) % 4).
  std::vector<std::vector<std::tuple<std::optional<int32_t>, std::optional<std::string>, int>>> files(4);
  for (int k = 0; k < 20000; ++k) {
    files[k % 4].push_back({k, std::nullopt, 0});
    files[(k + 1) % 4].push_back({k, std::nullopt, 0});
  }
  for (const auto& f : files) ASSERT_OK(index->Add({Rows(f)}));
  EXPECT_EQ(index->size(), 20000u);
  std::vector<std::tuple<std::optional<int32_t>, std::optional<std::string>, int>> rows;
  for (int k = -10; k < 20010; ++k) rows.push_back({k, std::nullopt, 0});
  Batch data = Rows(rows);
  std::vector<uint8_t> keep(rows.size(), 1);
  ASSERT_OK(index->Apply(data, std::vector<uint8_t>{0, 0, 1, 0}, keep));  // file 2 only
  for (int k = -10; k < 20010; ++k) {
    const bool in_file_2 = k >= 0 && k < 20000 && (k % 4 == 2 || (k + 1) % 4 == 2);
    ASSERT_EQ(keep[static_cast<size_t>(k + 10)] == 0, in_file_2) << k;
  }
}

}  // namespace delete_filter_test
}  // namespace floe::table
