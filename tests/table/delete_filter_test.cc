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

}  // namespace delete_filter_test
}  // namespace floe::table
