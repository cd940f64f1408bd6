// Table templates (Beam's dynamic destinations): parse errors name the
// character position; Bind resolves dotted paths through structs only, to
// primitive fields; Evaluate formats every primitive type, sanitizes values
// into identifier characters (literal text kept), fills namespace fields,
// and refuses null values, empty and over-long names with the row, its input
// position and the field; the last-value cache never returns a stale name.
#include "floe/sink/table_template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::sink {
namespace table_template_test {

using test::Field;
using test::HasErrorMessage;
using test::IsError;
using ::testing::ElementsAre;

/// The name, or "error: ..." (so a comparison prints what went wrong).
std::string Text(const Result<std::string>& r) { return r ? *r : "error: " + r.error().ToString(); }

TEST(TableTemplate, PlainNameIsNoTemplate) {
  ASSERT_OK_AND_ASSIGN(TableTemplate t, TableTemplate::Parse("db.events"));
  EXPECT_FALSE(t.is_template());
  EXPECT_TRUE(t.fields().empty());
  Batch b(std::make_shared<const Schema>(std::vector<NestedField>{Field(1, "id", LongType())}));
  b.columns[0].Append<int64_t>(1);
  b.num_rows = 1;
  EXPECT_EQ(Text(t.Evaluate(b, 0)), "db.events");
}

TEST(TableTemplate, FieldsInOrderOfFirstAppearance) {
  ASSERT_OK_AND_ASSIGN(TableTemplate t,
                       TableTemplate::Parse("{tenant}.events_{region}_{meta.kind}_{region}"));
  EXPECT_TRUE(t.is_template());
  EXPECT_THAT(t.fields(), ElementsAre("tenant", "region", "meta.kind"));
}

TEST(TableTemplate, ParseErrorsNameThePosition) {
  const std::pair<const char*, const char*> cases[] = {
      {"db.events_{region", "character 11: '{' without a closing '}'"},
      {"db.events_{}", "character 11: empty '{}'"},
      {"db.{a{b}}", "character 6: '{' inside '{...}': fields do not nest"},
      {"db.events}", "character 10: '}' without a '{' before it"},
      {"db.{a..b}", "character 7: empty name in the field path 'a..b'"},
      {"db.{.a}", "character 5: empty name"},
  };
  for (const auto& [text, message] : cases) {
    auto t = TableTemplate::Parse(text);
    EXPECT_THAT(t, IsError(ErrorKind::kInvalidArgument)) << text;
    EXPECT_THAT(t, HasErrorMessage(message)) << text;
    EXPECT_THAT(t, HasErrorMessage(std::string("table template '") + text + "'")) << text;
  }
}

SchemaPtr EventSchema() {
  return std::make_shared<const Schema>(std::vector<NestedField>{
      Field(1, "region", StringType()),
      Field(2, "meta",
            StructType({Field(3, "kind", StringType()),
                        Field(4, "deep", StructType({Field(5, "n", IntType())}))})),
      Field(6, "tags", ListType(7, false, StringType())),
      Field(8, "m", MapType(9, StringType(), 10, false, StructType({Field(11, "x", IntType())}))),
      Field(12, "items", ListType(13, false, StructType({Field(14, "k", StringType())})))});
}

TEST(TableTemplate, BindErrorsNamePathAndTemplate) {
  const std::pair<const char*, const char*> cases[] = {
      {"db.{nope}", "field 'nope' is not a column of the rows"},
      {"db.{meta.none}", "struct 'meta' has no field 'none'"},
      {"db.{meta}", "field 'meta' is a struct"},
      {"db.{tags}", "field 'tags' is a list"},
      {"db.{items.k}", "reaches into 'items', a list"},
      {"db.{m.x}", "reaches into 'm', a map"},
      {"db.{region.x}", "reaches into 'region', a string"},
  };
  for (const auto& [text, message] : cases) {
    ASSERT_OK_AND_ASSIGN(TableTemplate t, TableTemplate::Parse(text));
    Status st = t.Bind(*EventSchema());
    EXPECT_THAT(st, IsError(ErrorKind::kInvalidArgument)) << text;
    EXPECT_THAT(st, HasErrorMessage(message)) << text;
    EXPECT_THAT(st, HasErrorMessage(std::string("table template '") + text + "'")) << text;
  }
  ASSERT_OK_AND_ASSIGN(TableTemplate ok, TableTemplate::Parse("db.{meta.deep.n}_{region}"));
  EXPECT_OK(ok.Bind(*EventSchema()));
}

// Rows of EventSchema: region, meta {kind, deep {n}}; lists and maps empty.
struct EventRow {
  std::optional<std::string> region;
  bool meta_null = false;
  std::optional<std::string> kind;
  int32_t n = 0;
};
Batch Events(const std::vector<EventRow>& rows) {
  Batch b(EventSchema());
  for (const auto& r : rows) {
    if (r.region) {
      b.columns[0].AppendBytes(*r.region);
    } else {
      b.columns[0].AppendNull();
    }
    if (r.meta_null) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendStructRow();
      if (r.kind) {
        b.columns[1].children[0].AppendBytes(*r.kind);
      } else {
        b.columns[1].children[0].AppendNull();
      }
      b.columns[1].children[1].AppendStructRow();
      b.columns[1].children[1].children[0].Append<int32_t>(r.n);
    }
    b.columns[2].CloseListRow();
    b.columns[3].CloseListRow();
    b.columns[4].CloseListRow();
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  return b;
}

TEST(TableTemplate, EvaluatesNestedAndNamespaceFieldsAndSanitizes) {
  ASSERT_OK_AND_ASSIGN(TableTemplate t,
                       TableTemplate::Parse("{region}.events_{meta.kind}_{meta.deep.n}"));
  ASSERT_OK(t.Bind(*EventSchema()));
  Batch b = Events(
      {{"eu", false, "click", 7},
       {"us-west.2", false, "Säle ü", -3},  // '-', '.', ' ' and each UTF-8 character: one '_'
       {"eu", false, "click", 7},
       {"eu", false, "view", 7}});
  ASSERT_OK(b.Validate());
  EXPECT_EQ(Text(t.Evaluate(b, 0)), "eu.events_click_7");
  EXPECT_EQ(Text(t.Evaluate(b, 1)), "us_west_2.events_S_le____3");
  // The cache of the last value: equal values reuse it, a new one replaces it.
  EXPECT_EQ(Text(t.Evaluate(b, 2)), "eu.events_click_7");
  EXPECT_EQ(Text(t.Evaluate(b, 3)), "eu.events_view_7");
  std::string out;
  ASSERT_OK(t.EvaluateTo(b, 1, &out));
  EXPECT_EQ(out, "us_west_2.events_S_le____3");
}

TEST(TableTemplate, NullEmptyAndLongNamesAreRowErrorsNamingTheField) {
  ASSERT_OK_AND_ASSIGN(TableTemplate t, TableTemplate::Parse("db.{region}"));
  ASSERT_OK(t.Bind(*EventSchema()));
  ASSERT_OK_AND_ASSIGN(TableTemplate k, TableTemplate::Parse("db.events_{meta.kind}"));
  ASSERT_OK(k.Bind(*EventSchema()));
  ASSERT_OK_AND_ASSIGN(TableTemplate ns, TableTemplate::Parse("{region}.events"));
  ASSERT_OK(ns.Bind(*EventSchema()));
  Batch b = Events({{std::nullopt, false, "a", 1},
                    {"", false, std::nullopt, 1},
                    {std::string(256, 'x'), true, {}, 0},
                    {std::string(255, 'x'), false, "ok", 0}});
  b.positions = {10, 11, 12, 13};
  EXPECT_THAT(
      t.Evaluate(b, 0),
      HasErrorMessage(
          "table template 'db.{region}', row 0 (input position 10): field 'region' is null"));
  EXPECT_THAT(
      t.Evaluate(b, 1),
      HasErrorMessage(
          "row 1 (input position 11): the table name comes out empty (from field 'region')"));
  EXPECT_THAT(ns.Evaluate(b, 1),
              HasErrorMessage("namespace level 1 comes out empty (from field 'region')"));
  EXPECT_THAT(k.Evaluate(b, 1), HasErrorMessage("field 'meta.kind' is null"));
  EXPECT_THAT(
      t.Evaluate(b, 2),
      HasErrorMessage("the table name comes out 256 bytes long, over 255 (from field 'region')"));
  EXPECT_THAT(k.Evaluate(b, 2),
              HasErrorMessage(
                  "row 2 (input position 12): field 'meta.kind' is null"));  // under a null struct
  EXPECT_EQ(Text(t.Evaluate(b, 3)), "db." + std::string(255, 'x'));
  EXPECT_THAT(t.Evaluate(b, 0), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(t.Evaluate(b, 4), IsError(ErrorKind::kInvalidArgument));  // outside the batch
  ASSERT_OK_AND_ASSIGN(TableTemplate unbound, TableTemplate::Parse("db.{region}"));
  EXPECT_THAT(unbound.Evaluate(b, 3), IsError(ErrorKind::kInternal));
}

TEST(TableTemplate, FormatsEveryPrimitiveType) {
  auto schema = std::make_shared<const Schema>(std::vector<NestedField>{
      Field(1, "b", BooleanType()), Field(2, "i", IntType()), Field(3, "l", LongType()),
      Field(4, "f", FloatType()), Field(5, "d", DoubleType()), Field(6, "dec", DecimalType(9, 2)),
      Field(7, "dt", DateType()), Field(8, "t", TimeType()), Field(9, "ts", TimestampType()),
      Field(10, "tz", TimestampTzType()), Field(11, "u", UuidType()),
      Field(12, "bin", BinaryType()), Field(13, "fx", FixedType(2))});
  Batch b(schema);
  b.columns[0].Append<uint8_t>(1);
  b.columns[1].Append<int32_t>(-42);
  b.columns[2].Append<int64_t>(9007199254740993);
  b.columns[3].Append<float>(1.5f);
  b.columns[4].Append<double>(0.1);
  b.columns[5].Append<int128_t>(-1230);            // -12.30
  b.columns[6].Append<int32_t>(19753);             // 2024-01-31
  b.columns[7].Append<int64_t>(3723000001);        // 01:02:03.000001
  b.columns[8].Append<int64_t>(1706659200000000);  // 2024-01-31T00:00:00
  b.columns[9].Append<int64_t>(1706659200123456);
  b.columns[10].AppendBytes(
      std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16));
  b.columns[11].AppendBytes(std::string("\x00\xff", 2));
  b.columns[12].AppendBytes(std::string("\xab\x01", 2));
  b.num_rows = 1;
  ASSERT_OK(b.Validate());
  const std::pair<const char*, const char*> cases[] = {
      {"{b}", "true"},
      {"{i}", "_42"},
      {"{l}", "9007199254740993"},
      {"{f}", "1_5"},
      {"{d}", "0_1"},
      {"{dec}", "_12_30"},
      {"{dt}", "2024_01_31"},
      {"{t}", "01_02_03_000001"},
      {"{ts}", "2024_01_31T00_00_00_000000"},
      {"{tz}", "2024_01_31T00_00_00_123456"},
      {"{u}", "f79c3e09_677c_4bbd_a479_3f349cb785e7"},
      {"{bin}", "00ff"},
      {"{fx}", "ab01"},
  };
  for (const auto& [field, want] : cases) {
    ASSERT_OK_AND_ASSIGN(TableTemplate t, TableTemplate::Parse(std::string("db.v_") + field));
    ASSERT_OK(t.Bind(*schema));
    EXPECT_EQ(Text(t.Evaluate(b, 0)), std::string("db.v_") + want) << field;
  }
}

}  // namespace table_template_test
}  // namespace floe::sink
