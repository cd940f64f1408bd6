#include "floe/types/column_vector.h"
#include "floe/types/type.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe {
namespace type_test {

TEST(Type, ParsesAndPrintsPrimitives) {
  EXPECT_EQ((*ParsePrimitiveType("decimal(10, 2)"))->ToString(), "decimal(10, 2)");
  EXPECT_EQ((*ParsePrimitiveType("FIXED[4]"))->length, 4);
  EXPECT_EQ((*ParsePrimitiveType("timestamptz"))->id, TypeId::kTimestampTz);
  EXPECT_FALSE(ParsePrimitiveType("decimal(39,0)"));
  EXPECT_FALSE(ParsePrimitiveType("varchar"));
}

TEST(Type, DecimalBytes) {
  EXPECT_EQ(DecimalRequiredBytes(1), 1);
  EXPECT_EQ(DecimalRequiredBytes(2), 1);
  EXPECT_EQ(DecimalRequiredBytes(3), 2);
  EXPECT_EQ(DecimalRequiredBytes(9), 4);
  EXPECT_EQ(DecimalRequiredBytes(10), 5);
  EXPECT_EQ(DecimalRequiredBytes(18), 8);
  EXPECT_EQ(DecimalRequiredBytes(38), 16);
}

TEST(Schema, ValidatesIdsNamesAndIdentifiers) {
  Schema ok({{1, "id", true, LongType(), {}},
             {2, "tags", false, ListType(3, false, StringType()), {}}},
            0, {1});
  EXPECT_OK(ok.Validate());
  EXPECT_EQ(ok.HighestFieldId(), 3);
  EXPECT_EQ(ok.FindField(3)->name, "element");
  Schema dup_id({{1, "a", true, LongType(), {}}, {2, "b", false, ListType(1, false, IntType()), {}}});
  EXPECT_FALSE(dup_id.Validate());
  Schema dup_name({{1, "a", true, LongType(), {}}, {2, "a", false, IntType(), {}}});
  EXPECT_FALSE(dup_name.Validate());
  Schema float_key({{1, "x", true, DoubleType(), {}}}, 0, {1});
  EXPECT_FALSE(float_key.Validate());
  Schema optional_key({{1, "x", false, LongType(), {}}}, 0, {1});
  EXPECT_FALSE(optional_key.Validate());
}

TEST(ColumnVector, AppendsNestedRowsAndValidates) {
  auto list_type = ListType(2, false, StringType());
  ColumnVector col(list_type);
  col.children[0].AppendBytes("a");
  col.children[0].AppendNull();
  col.CloseListRow();  // ["a", null]
  col.AppendNull();    // null list
  col.CloseListRow();  // []
  ASSERT_TRUE(col.Validate()) << col.Validate().error().ToString();
  EXPECT_EQ(col.length, 3);
  EXPECT_EQ(col.null_count(), 1);
  EXPECT_EQ(col.offsets, (std::vector<int64_t>{0, 2, 2, 2}));
  EXPECT_EQ(col.children[0].bytes(0), "a");
  EXPECT_TRUE(col.children[0].IsNull(1));

  ColumnVector s(StructType({{1, "a", false, IntType(), {}}}));
  s.AppendNull();
  EXPECT_EQ(s.children[0].length, 1);
  EXPECT_OK(s.Validate());
  s.children[0].Append<int32_t>(5);
  EXPECT_FALSE(s.Validate());  // child longer than the struct
}

}  // namespace type_test
}  // namespace floe
