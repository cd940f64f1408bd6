#include "floe/expr/expression.h"

#include <gtest/gtest.h>

#include <cmath>

#include "testing/matchers.h"

namespace floe::expr {
namespace expression_test {

Schema TestSchema() {
  return Schema({{1, "id", true, LongType(), {}},
                 {2, "qty", false, IntType(), {}},
                 {3, "name", false, StringType(), {}},
                 {4, "amount", false, DoubleType(), {}},
                 {5, "price", false, DecimalType(9, 2), {}},
                 {6, "day", false, DateType(), {}},
                 {7, "ts", false, TimestampType(), {}},
                 {8, "loc", false, StructType({{9, "lat", false, DoubleType(), {}}}), {}}});
}

Batch TestBatch() {
  auto schema = std::make_shared<Schema>(TestSchema());
  Batch b(schema);
  // rows: (1, 5, "apple", 1.5, 1.25, 2024-01-01, ts0, {lat 10})
  //       (2, null, "banana", NaN, null, null, null, null)
  //       (3, 7, null, -2, 3.00, 2024-03-01, ts1, {lat null})
  b.columns[0].Append<int64_t>(1), b.columns[0].Append<int64_t>(2), b.columns[0].Append<int64_t>(3);
  b.columns[1].Append<int32_t>(5), b.columns[1].AppendNull(), b.columns[1].Append<int32_t>(7);
  b.columns[2].AppendBytes("apple"), b.columns[2].AppendBytes("banana"), b.columns[2].AppendNull();
  b.columns[3].Append<double>(1.5), b.columns[3].Append<double>(std::nan("")), b.columns[3].Append<double>(-2);
  b.columns[4].Append<int128_t>(125), b.columns[4].AppendNull(), b.columns[4].Append<int128_t>(300);
  b.columns[5].Append<int32_t>(19723), b.columns[5].AppendNull(), b.columns[5].Append<int32_t>(19783);
  b.columns[6].Append<int64_t>(1704067200000000), b.columns[6].AppendNull(), b.columns[6].Append<int64_t>(1709251200000000);
  auto& loc = b.columns[7];
  loc.children[0].Append<double>(10), loc.AppendStructRow();
  loc.AppendNull();
  loc.children[0].AppendNull(), loc.AppendStructRow();
  b.num_rows = 3;
  EXPECT_TRUE(b.Validate()) << b.Validate().error().ToString();
  return b;
}

std::vector<uint8_t> Select(const std::string& filter) {
  auto parsed = Parse(filter);
  EXPECT_TRUE(parsed) << filter << ": " << parsed.error().ToString();
  auto bound = Bind(*parsed, TestSchema());
  EXPECT_TRUE(bound) << filter << ": " << bound.error().ToString();
  std::vector<uint8_t> sel;
  Batch b = TestBatch();
  auto st = Evaluate(**bound, b, &sel);
  EXPECT_TRUE(st) << st.error().ToString();
  return sel;
}

using V = std::vector<uint8_t>;

TEST(Expression, ComparisonsWithSqlNullSemantics) {
  EXPECT_EQ(Select("qty > 5"), (V{0, 0, 1}));
  EXPECT_EQ(Select("NOT qty > 5"), (V{1, 0, 0}));  // null stays unknown under NOT
  EXPECT_EQ(Select("qty IS NULL"), (V{0, 1, 0}));
  EXPECT_EQ(Select("qty IS NOT NULL OR id = 2"), (V{1, 1, 1}));
  EXPECT_EQ(Select("5 < qty"), (V{0, 0, 1}));
  EXPECT_EQ(Select("id IN (1, 3, 99)"), (V{1, 0, 1}));
  EXPECT_EQ(Select("id NOT IN (1)"), (V{0, 1, 1}));
  EXPECT_EQ(Select("id BETWEEN 2 AND 3"), (V{0, 1, 1}));
  EXPECT_EQ(Select("name LIKE 'ba%'"), (V{0, 1, 0}));
  EXPECT_EQ(Select("name = 'it''s'"), (V{0, 0, 0}));
  EXPECT_EQ(Select("amount IS NAN"), (V{0, 1, 0}));
  EXPECT_EQ(Select("amount < 0 OR amount > 1"), (V{1, 0, 1}));  // NaN compares false
  EXPECT_EQ(Select("price >= 3"), (V{0, 0, 1}));
  EXPECT_EQ(Select("price = 1.25"), (V{1, 0, 0}));
  EXPECT_EQ(Select("day >= '2024-02-01'"), (V{0, 0, 1}));
  EXPECT_EQ(Select("day = DATE '2024-01-01'"), (V{1, 0, 0}));
  EXPECT_EQ(Select("ts < TIMESTAMP '2024-02-01 00:00:00'"), (V{1, 0, 0}));
  EXPECT_EQ(Select("ts >= '2024-03-01T00:00:00Z'"), (V{0, 0, 1}));
  EXPECT_EQ(Select("loc.lat > 5"), (V{1, 0, 0}));
  EXPECT_EQ(Select("loc.lat IS NULL"), (V{0, 1, 1}));  // null parent = null field
  EXPECT_EQ(Select("(id = 1 OR id = 3) AND NOT (qty = 7)"), (V{1, 0, 0}));
}

TEST(Expression, OutOfRangeLiteralsFold) {
  // An INT column compared with a value above INT's range.
  EXPECT_EQ(Select("qty < 3000000000"), (V{1, 0, 1}));  // folds to qty IS NOT NULL
  EXPECT_EQ(Select("qty = 3000000000"), (V{0, 0, 0}));
  EXPECT_EQ(Select("qty > -3000000000"), (V{1, 0, 1}));
}

TEST(Expression, ErrorsNamePositionsAndColumns) {
  auto e = Parse("id = ");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "filter: expected a literal value at position 6, found the end");
  e = Parse("id = 1 xx");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("position 8"), std::string::npos) << e.error().message;
  auto b = Bind(*Parse("nope = 1"), TestSchema());
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("column 'nope' does not exist"), std::string::npos);
  b = Bind(*Parse("name = 5"), TestSchema());
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("column 'name' of type string cannot be compared with 5"),
            std::string::npos) << b.error().message;
  b = Bind(*Parse("day = '2024-02-30'"), TestSchema());
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("is not a date"), std::string::npos);
  b = Bind(*Parse("price = 1.234"), TestSchema());
  ASSERT_FALSE(b);
  EXPECT_FALSE(Parse("name LIKE '%x'"));
  // Case-insensitive by default (Flink's case-sensitive=false), sensitive on request.
  EXPECT_OK(Bind(*Parse("ID = 1"), TestSchema()));
  EXPECT_FALSE(Bind(*Parse("ID = 1"), TestSchema(), /*case_sensitive=*/true));
}

TEST(Expression, MetricsPruneOnlyWhenProvable) {
  auto bound = [](const std::string& f) { return *Bind(*Parse(f), TestSchema()); };
  FileMetrics m;
  m.record_count = 100;
  m.value_count = [](int32_t) { return std::optional<int64_t>(100); };
  m.null_count = [](int32_t id) { return std::optional<int64_t>(id == 2 ? 100 : 0); };
  m.nan_count = [](int32_t) { return std::optional<int64_t>(0); };
  m.lower_bound = [](int32_t id) -> std::optional<Literal> {
    if (id == 1) return Literal::Long(10);
    if (id == 3) return Literal::String("b");
    return std::nullopt;
  };
  m.upper_bound = [](int32_t id) -> std::optional<Literal> {
    if (id == 1) return Literal::Long(20);
    if (id == 3) return Literal::String("d");
    return std::nullopt;
  };
  EXPECT_FALSE(MayMatch(*bound("id < 10"), m));
  EXPECT_TRUE(MayMatch(*bound("id <= 10"), m));
  EXPECT_FALSE(MayMatch(*bound("id > 20"), m));
  EXPECT_FALSE(MayMatch(*bound("id = 21"), m));
  EXPECT_TRUE(MayMatch(*bound("id = 15"), m));
  EXPECT_FALSE(MayMatch(*bound("id IN (1, 2, 30)"), m));
  EXPECT_TRUE(MayMatch(*bound("id != 15"), m));
  EXPECT_FALSE(MayMatch(*bound("NOT id >= 10"), m));  // NOT pushed down to id < 10
  EXPECT_FALSE(MayMatch(*bound("qty = 1"), m));       // all null
  EXPECT_TRUE(MayMatch(*bound("qty IS NULL"), m));
  EXPECT_FALSE(MayMatch(*bound("name IS NULL"), m));
  EXPECT_FALSE(MayMatch(*bound("name LIKE 'e%'"), m));
  EXPECT_TRUE(MayMatch(*bound("name LIKE 'c%'"), m));
  EXPECT_FALSE(MayMatch(*bound("amount IS NAN"), m));
  EXPECT_TRUE(MayMatch(*bound("id < 10 OR name = 'c'"), m));
  EXPECT_TRUE(MayMatch(*bound("amount > 3"), m));  // no bounds: cannot prune
}

}  // namespace expression_test
}  // namespace floe::expr
