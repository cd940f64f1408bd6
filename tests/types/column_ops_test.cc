#include "floe/types/column_ops.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe {
namespace column_ops_test {

// list<struct<a: int, s: string>> with nulls at each level.
ColumnVector Nested() {
  auto elem = StructType({{3, "a", false, IntType(), {}}, {4, "s", false, StringType(), {}}});
  ColumnVector col(ListType(2, false, elem));
  auto& st = col.children[0];
  auto add = [&](int32_t a, const char* s) {
    st.children[0].Append<int32_t>(a);
    if (s) st.children[1].AppendBytes(s); else st.children[1].AppendNull();
    st.AppendStructRow();
  };
  add(1, "x"), add(2, nullptr), col.CloseListRow();  // row 0: 2 elements
  col.AppendNull();                                   // row 1: null list
  col.CloseListRow();                                 // row 2: empty
  st.AppendNull(), add(3, "yy"), col.CloseListRow();  // row 3: [null, {3,"yy"}]
  EXPECT_TRUE(col.Validate()) << col.Validate().error().ToString();
  return col;
}

TEST(ColumnOps, TakeGathersNestedRowsWithRepeats) {
  ColumnVector col = Nested();
  std::vector<int64_t> idx{3, 0, 1, 3};
  ColumnVector t = Take(col, idx);
  ASSERT_TRUE(t.Validate()) << t.Validate().error().ToString();
  EXPECT_EQ(t.length, 4);
  EXPECT_EQ(t.offsets, (std::vector<int64_t>{0, 2, 4, 4, 6}));
  EXPECT_EQ(t.validity, (std::vector<uint8_t>{1, 1, 0, 1}));
  const auto& st = t.children[0];
  EXPECT_TRUE(st.IsNull(0));
  EXPECT_EQ(st.children[1].bytes(1), "yy");
  EXPECT_EQ(st.children[0].data<int32_t>()[2], 1);
  EXPECT_TRUE(st.children[1].IsNull(3));
}

TEST(ColumnOps, AppendRangeMatchesTake) {
  ColumnVector col = Nested();
  ColumnVector a(col.type);
  AppendRange(col, 1, 4, &a);
  AppendRange(col, 0, 1, &a);
  ASSERT_TRUE(a.Validate()) << a.Validate().error().ToString();
  std::vector<int64_t> idx{1, 2, 3, 0};
  ColumnVector b = Take(col, idx);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.validity, b.validity);
  EXPECT_EQ(a.children[0].children[1].offsets, b.children[0].children[1].offsets);
}

TEST(ColumnOps, BatchTakeCarriesRowKindsAndSequences) {
  auto schema = std::make_shared<Schema>(std::vector<NestedField>{{1, "id", true, LongType(), {}}});
  Batch b(schema);
  for (int64_t i = 0; i < 5; ++i) b.columns[0].Append<int64_t>(i * 10);
  b.num_rows = 5;
  b.row_kinds = {RowKind::kInsert, RowKind::kDelete, RowKind::kInsert, RowKind::kUpdateAfter, RowKind::kInsert};
  b.sequence_numbers = {1, 2, 3, 4, 5};
  std::vector<uint8_t> sel{0, 1, 0, 1, 1};
  auto idx = SelectedIndices(sel);
  Batch t = Take(b, idx);
  ASSERT_OK(t.Validate());
  EXPECT_EQ(t.num_rows, 3);
  EXPECT_EQ(t.columns[0].data<int64_t>()[2], 40);
  EXPECT_EQ(t.row_kinds[0], RowKind::kDelete);
  EXPECT_EQ(t.sequence_numbers, (std::vector<int64_t>{2, 4, 5}));
  Batch r(schema);
  AppendRange(b, 3, 5, &r);
  EXPECT_OK(r.Validate());
  EXPECT_EQ(r.sequence_numbers, (std::vector<int64_t>{4, 5}));
}

}  // namespace column_ops_test
}  // namespace floe
