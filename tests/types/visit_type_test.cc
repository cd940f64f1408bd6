// VisitType: one dispatch over the type id with compile-time facts per type.
#include "floe/types/visit_type.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "floe/types/column_vector.h"

namespace floe {
namespace visit_type_test {

TEST(VisitType, EveryIdReachesItsOwnTag) {
  std::set<std::string_view> names;
  for (TypeId id : kAllTypeIds) {
    EXPECT_EQ(VisitTypeId(id, [](auto tag) { return decltype(tag)::id; }), id);
    EXPECT_EQ(VisitTypeId(id, [](auto tag) { return decltype(tag)::is_nested; }), IsNested(id));
    names.insert(TypeIdName(id));
  }
  EXPECT_EQ(names.size(), std::size(kAllTypeIds));  // no two ids share a name
  static_assert(TypeIdName(TypeId::kTimestampTzNs) == "timestamptz_ns");
}

TEST(VisitType, NamesAreTheIcebergNamesThatParseBack) {
  for (TypeId id : kAllTypeIds) {
    if (IsNested(id) || id == TypeId::kDecimal || id == TypeId::kFixed) continue;
    auto t = ParsePrimitiveType(TypeIdName(id));
    ASSERT_TRUE(t) << TypeIdName(id);
    EXPECT_EQ((*t)->id, id);
    EXPECT_EQ((*t)->ToString(), TypeIdName(id));
  }
  EXPECT_FALSE(ParsePrimitiveType("decimal"));
  EXPECT_FALSE(ParsePrimitiveType("fixed"));
  EXPECT_FALSE(ParsePrimitiveType("struct"));
  EXPECT_EQ(DecimalType(9, 2)->ToString(), "decimal(9, 2)");
  EXPECT_EQ(FixedType(3)->ToString(), "fixed[3]");
  EXPECT_EQ(MapType(1, StringType(), 2, false, ListType(3, true, LongType()))->ToString(),
            "map<string, list<long>>");
}

TEST(VisitType, WidthsMatchTheColumnLayout) {
  // FixedValueWidth comes from the tags; a column of each fixed-width type
  // holds exactly that many bytes per value.
  for (TypeId id : kAllTypeIds) {
    if (IsNested(id)) continue;
    TypePtr t = id == TypeId::kFixed     ? FixedType(5)
                : id == TypeId::kDecimal ? DecimalType(9, 2)
                                         : Primitive(id);
    ColumnVector c(t);
    c.AppendNull();
    c.AppendNull();
    const int w = FixedValueWidth(*t);
    if (id == TypeId::kString || id == TypeId::kBinary) {
      EXPECT_EQ(w, 0) << t->ToString();
      EXPECT_EQ(c.offsets.size(), 3u) << t->ToString();
    } else {
      EXPECT_EQ(c.values.size(), static_cast<size_t>(2 * w)) << t->ToString();
      EXPECT_TRUE(c.offsets.empty()) << t->ToString();
    }
  }
  EXPECT_EQ(FixedValueWidth(*FixedType(5)), 5);
  EXPECT_EQ(FixedValueWidth(*UuidType()), 16);
  EXPECT_EQ(FixedValueWidth(*DecimalType(38, 0)), 16);
  EXPECT_EQ(FixedValueWidth(*BooleanType()), 1);
  EXPECT_EQ(FixedValueWidth(*StructType({})), 0);
}

}  // namespace visit_type_test
}  // namespace floe
