// SQL column list parser: every type name and alias, nesting, NOT NULL, field
// ids as Iceberg assigns them, and error positions.
#include "floe/types/sql_schema.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe {
namespace sql_schema_test {

TypePtr OneType(std::string_view sql_type) {
  auto s = ParseSqlColumns(std::string("c ") + std::string(sql_type));
  EXPECT_TRUE(s) << sql_type << ": " << s.error().ToString();
  if (!s) return nullptr;
  return s->fields()[0].type;
}

std::string ErrorOf(std::string_view text) {
  auto s = ParseSqlColumns(text);
  EXPECT_FALSE(s) << text;
  return s ? std::string() : s.error().message;
}

TEST(SqlSchema, EveryPrimitiveNameAndAlias) {
  const std::pair<const char*, const char*> cases[] = {
      {"BOOLEAN", "boolean"},
      {"boolean", "boolean"},
      {"INT", "int"},
      {"Integer", "int"},
      {"BIGINT", "long"},
      {"long", "long"},
      {"FLOAT", "float"},
      {"DOUBLE", "double"},
      {"DOUBLE PRECISION", "double"},
      {"DECIMAL(9,2)", "decimal(9, 2)"},
      {"decimal( 38 , 0 )", "decimal(38, 0)"},
      {"DECIMAL(5)", "decimal(5, 0)"},
      {"DECIMAL", "decimal(10, 0)"},
      {"NUMERIC(3,3)", "decimal(3, 3)"},
      {"DATE", "date"},
      {"TIME", "time"},
      {"TIMESTAMP", "timestamp"},
      {"TIMESTAMP(6)", "timestamp"},
      {"TIMESTAMP(9)", "timestamp_ns"},
      {"TIMESTAMPTZ", "timestamptz"},
      {"TIMESTAMP_LTZ", "timestamptz"},
      {"timestamp_ltz(3)", "timestamptz"},
      {"TIMESTAMP WITH LOCAL TIME ZONE", "timestamptz"},
      {"TIMESTAMP(6) WITH TIME ZONE", "timestamptz"},
      {"TIMESTAMP WITHOUT TIME ZONE", "timestamp"},
      {"TIMESTAMP_NS", "timestamp_ns"},
      {"TIMESTAMPTZ_NS", "timestamptz_ns"},
      {"STRING", "string"},
      {"VARCHAR(20)", "string"},
      {"UUID", "uuid"},
      {"FIXED(16)", "fixed[16]"},
      {"fixed[4]", "fixed[4]"},
      {"BINARY(3)", "fixed[3]"},
      {"BINARY", "binary"},
      {"VARBINARY", "binary"},
      {"BYTES", "binary"},
  };
  for (const auto& [sql, iceberg] : cases) {
    TypePtr t = OneType(sql);
    ASSERT_TRUE(t) << sql;
    EXPECT_EQ(t->ToString(), iceberg) << sql;
  }
}

TEST(SqlSchema, TopLevelColumnsNullabilityAndDocs) {
  auto s = ParseSqlColumns("id BIGINT NOT NULL, name STRING COMMENT 'the name', `a b` INT NULL");
  ASSERT_TRUE(s) << s.error().ToString();
  ASSERT_EQ(s->num_fields(), 3);
  EXPECT_EQ(s->fields()[0].id, 1);
  EXPECT_EQ(s->fields()[0].name, "id");
  EXPECT_TRUE(s->fields()[0].required);
  EXPECT_EQ(s->fields()[1].id, 2);
  EXPECT_FALSE(s->fields()[1].required);
  EXPECT_EQ(s->fields()[1].doc, "the name");
  EXPECT_EQ(s->fields()[2].name, "a b");
  EXPECT_FALSE(s->fields()[2].required);
  // Names keep their spelling; quoted names may hold a doubled backquote.
  auto q = ParseSqlColumns("`we``ird` int, Mixed_Case1 string");
  ASSERT_OK(q);
  EXPECT_EQ(q->fields()[0].name, "we`ird");
  EXPECT_EQ(q->fields()[1].name, "Mixed_Case1");
}

TEST(SqlSchema, NestedTypesAndIdsAsIcebergAssignsThem) {
  // Java TypeUtil.assignFreshIds: the fields of a struct first, then each
  // field's nested type in order.
  auto s = ParseSqlColumns(
      "id BIGINT NOT NULL, name STRING, tags ARRAY<STRING>, "
      "loc STRUCT<lat DOUBLE, lon DOUBLE NOT NULL>, m MAP<STRING, INT>");
  ASSERT_TRUE(s) << s.error().ToString();
  const auto& f = s->fields();
  EXPECT_EQ(f[0].id, 1);
  EXPECT_EQ(f[1].id, 2);
  EXPECT_EQ(f[2].id, 3);
  EXPECT_EQ(f[3].id, 4);
  EXPECT_EQ(f[4].id, 5);
  EXPECT_EQ(f[2].type->element().id, 6);
  EXPECT_FALSE(f[2].type->element().required);
  EXPECT_EQ(f[3].type->fields[0].id, 7);
  EXPECT_EQ(f[3].type->fields[0].name, "lat");
  EXPECT_FALSE(f[3].type->fields[0].required);
  EXPECT_EQ(f[3].type->fields[1].id, 8);
  EXPECT_TRUE(f[3].type->fields[1].required);
  EXPECT_EQ(f[4].type->key().id, 9);
  EXPECT_TRUE(f[4].type->key().required);
  EXPECT_EQ(f[4].type->value().id, 10);
  EXPECT_FALSE(f[4].type->value().required);
  EXPECT_EQ(s->HighestFieldId(), 10);
  EXPECT_OK(s->Validate());
}

TEST(SqlSchema, DeepNestingIdsDepthFirstPerStruct) {
  auto s = ParseSqlColumns(
      "a STRUCT<x STRUCT<p INT>, y INT>, b ARRAY<ROW<q INT NOT NULL> NOT NULL>, "
      "c MAP<STRING, ARRAY<MAP<INT, STRING NOT NULL>>>");
  ASSERT_TRUE(s) << s.error().ToString();
  const auto& f = s->fields();
  EXPECT_EQ(f[0].id, 1);
  EXPECT_EQ(f[1].id, 2);
  EXPECT_EQ(f[2].id, 3);
  const Type& a = *f[0].type;
  EXPECT_EQ(a.fields[0].id, 4);  // x
  EXPECT_EQ(a.fields[1].id, 5);  // y
  EXPECT_EQ(a.fields[0].type->fields[0].id, 6);  // x.p
  const Type& b = *f[1].type;
  EXPECT_EQ(b.element().id, 7);
  EXPECT_TRUE(b.element().required);
  EXPECT_EQ(b.element().type->fields[0].id, 8);
  EXPECT_TRUE(b.element().type->fields[0].required);
  const Type& c = *f[2].type;
  EXPECT_EQ(c.key().id, 9);
  EXPECT_EQ(c.value().id, 10);
  const Type& inner_list = *c.value().type;
  EXPECT_EQ(inner_list.element().id, 11);
  const Type& inner_map = *inner_list.element().type;
  EXPECT_EQ(inner_map.key().id, 12);
  EXPECT_EQ(inner_map.value().id, 13);
  EXPECT_TRUE(inner_map.value().required);
  EXPECT_EQ(f[2].type->ToString(), "map<string, list<map<int, string>>>");
}

TEST(SqlSchema, StructSpellings) {
  for (const char* text : {"s STRUCT<a INT, b STRING>", "s ROW<a INT, b STRING>",
                           "s row<a: int, b: string>", "s ROW(a INT, b STRING)",
                           "s struct<`a` int,`b` string>"}) {
    auto s = ParseSqlColumns(text);
    ASSERT_TRUE(s) << text << ": " << s.error().ToString();
    EXPECT_EQ(s->fields()[0].type->ToString(), "struct<a: int, b: string>") << text;
  }
  // Closing '>>' of nested types is two tokens.
  auto s = ParseSqlColumns("x ARRAY<ARRAY<INT>>, y INT");
  ASSERT_OK(s);
  EXPECT_EQ(s->fields()[0].type->ToString(), "list<list<int>>");
}

TEST(SqlSchema, ErrorsNamePositionAndExpectation) {
  EXPECT_EQ(ErrorOf("id BIGINT, name STRNG"),
            "SQL column list, column 17: expected a type name (BOOLEAN, INT, BIGINT, FLOAT, "
            "DOUBLE, DECIMAL(P,S), DATE, TIME, TIMESTAMP, TIMESTAMPTZ, TIMESTAMP_NS, "
            "TIMESTAMPTZ_NS, STRING, UUID, FIXED(L), BINARY, ARRAY<T>, STRUCT<...>, ROW<...>, "
            "MAP<K, V>), found 'STRNG'");
  EXPECT_EQ(ErrorOf("tags ARRAY<STRING, x INT"),
            "SQL column list, column 18: expected '>' to close ARRAY<...>, found ','");
  EXPECT_EQ(ErrorOf("m MAP<STRING>"),
            "SQL column list, column 13: expected ',' between the MAP key and value types, "
            "found '>'");
  EXPECT_EQ(ErrorOf("a INT NOT"), "SQL column list, column 10: expected NULL after NOT, found end of text");
  EXPECT_EQ(ErrorOf("a INT b INT"),
            "SQL column list, column 7: expected ',' or the end of the column list, found 'b'");
  EXPECT_EQ(ErrorOf(""), "SQL column list, column 1: expected a column name, found end of text");
  EXPECT_EQ(ErrorOf("a INT,"), "SQL column list, column 7: expected a column name, found end of text");
  EXPECT_EQ(ErrorOf("d DECIMAL(39, 2)"),
            "SQL column list, column 10: DECIMAL(39, 2): precision must be 1..38 and scale "
            "0..precision");
  EXPECT_EQ(ErrorOf("d DECIMAL(4, 5)"),
            "SQL column list, column 10: DECIMAL(4, 5): precision must be 1..38 and scale "
            "0..precision");
  EXPECT_EQ(ErrorOf("f FIXED"),
            "SQL column list, column 8: expected '(' and a length after FIXED, found end of text");
  EXPECT_EQ(ErrorOf("f FIXED(0)"), "SQL column list, column 8: FIXED length must be at least 1");
  EXPECT_EQ(ErrorOf("s STRUCT<a INT b INT>"),
            "SQL column list, column 16: expected ',' or '>' to close STRUCT<...>, found 'b'");
  EXPECT_EQ(ErrorOf("`a INT"), "SQL column list, column 1: unterminated ` quote");
  EXPECT_EQ(ErrorOf("a INT; DROP"), "SQL column list, column 6: unexpected character ';'");
  EXPECT_EQ(ErrorOf("t TIMESTAMP(12)"), "SQL column list, column 12: timestamp precision 12 is above 9");
  // Duplicate names are caught by the schema's own rules.
  EXPECT_NE(ErrorOf("a INT, a STRING").find("a"), std::string::npos);
  EXPECT_EQ(ErrorOf("s STRUCT<a INT, a INT>"), "SQL column list: duplicate field name 'a' in STRUCT");
}

TEST(SqlSchema, DeepNestingIsBounded) {
  std::string deep = "x ";
  for (int i = 0; i < 500; ++i) deep += "ARRAY<";
  deep += "INT";
  for (int i = 0; i < 500; ++i) deep += ">";
  auto s = ParseSqlColumns(deep);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("deeper than 200"), std::string::npos);
  std::string ok = "x ";
  for (int i = 0; i < 50; ++i) ok += "ARRAY<";
  ok += "INT";
  for (int i = 0; i < 50; ++i) ok += ">";
  EXPECT_OK(ParseSqlColumns(ok));
}

TEST(SqlSchema, SingleType) {
  auto t = ParseSqlType("MAP<STRING, ARRAY<INT>>", 100);
  ASSERT_OK(t);
  EXPECT_EQ((*t)->key().id, 100);
  EXPECT_EQ((*t)->value().id, 101);
  EXPECT_EQ((*t)->value().type->element().id, 102);
  EXPECT_FALSE(ParseSqlType("INT INT"));
}

}  // namespace sql_schema_test
}  // namespace floe

namespace floe {
namespace sql_schema_test {

TEST(SqlSchema, FormatRoundTrips) {
  const char* text =
      "id BIGINT NOT NULL, `a b` STRING, `not` INT, tags ARRAY<STRING NOT NULL>, "
      "loc STRUCT<lat DOUBLE NOT NULL, `x``y` DECIMAL(9, 2)>, m MAP<STRING, TIMESTAMPTZ NOT NULL>, "
      "f FIXED(16), u UUID, n TIMESTAMP_NS, z TIMESTAMPTZ_NS, t TIME, d DATE, b BINARY, "
      "o BOOLEAN, fl FLOAT";
  auto s = ParseSqlColumns(text);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(FormatSqlColumns(*s), text);
  auto again = ParseSqlColumns(FormatSqlColumns(*s));
  ASSERT_OK(again);
  EXPECT_EQ(*again, *s);
}

}  // namespace sql_schema_test
}  // namespace floe
