// Flink SQL types <-> Iceberg types, both ways (Iceberg's Flink connector's rules).
#include "floe/sql/sql_types.h"

#include <gtest/gtest.h>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "testing/matchers.h"

namespace floe::sql {
namespace sql_types_test {

using test::HasErrorMessage;
using test::IsError;

std::string Iceberg(std::string_view flink) {
  auto t = ParseDataType(flink);
  EXPECT_TRUE(t.has_value()) << flink;
  if (!t) return "";
  int32_t next = 1;
  auto r = ToIcebergType(*t, &next);
  EXPECT_TRUE(r.has_value()) << flink << ": " << r.error().ToString();
  return r.has_value() ? (*r)->ToString() : "";
}

TEST(SqlTypeMapping, FlinkToIceberg) {
  EXPECT_EQ(Iceberg("BOOLEAN"), "boolean");
  EXPECT_EQ(Iceberg("TINYINT"), "int");
  EXPECT_EQ(Iceberg("SMALLINT"), "int");
  EXPECT_EQ(Iceberg("INT"), "int");
  EXPECT_EQ(Iceberg("BIGINT"), "long");
  EXPECT_EQ(Iceberg("FLOAT"), "float");
  EXPECT_EQ(Iceberg("DOUBLE"), "double");
  EXPECT_EQ(Iceberg("DECIMAL(9, 2)"), "decimal(9, 2)");
  EXPECT_EQ(Iceberg("DECIMAL"), "decimal(10, 0)");
  EXPECT_EQ(Iceberg("CHAR(3)"), "string");
  EXPECT_EQ(Iceberg("VARCHAR(3)"), "string");
  EXPECT_EQ(Iceberg("STRING"), "string");
  EXPECT_EQ(Iceberg("BINARY(16)"), "fixed[16]");
  EXPECT_EQ(Iceberg("BINARY"), "fixed[1]");
  EXPECT_EQ(Iceberg("VARBINARY(9)"), "binary");
  EXPECT_EQ(Iceberg("BYTES"), "binary");
  EXPECT_EQ(Iceberg("DATE"), "date");
  EXPECT_EQ(Iceberg("TIME(3)"), "time");
  EXPECT_EQ(Iceberg("TIMESTAMP(3)"), "timestamp");
  // Iceberg 1.x's FlinkTypeToType ignores the precision: microseconds.
  EXPECT_EQ(Iceberg("TIMESTAMP(9)"), "timestamp");
  EXPECT_EQ(Iceberg("TIMESTAMP_LTZ(3)"), "timestamptz");
  EXPECT_EQ(Iceberg("TIMESTAMP WITH LOCAL TIME ZONE"), "timestamptz");
}

TEST(SqlTypeMapping, NestedTypesGetFreshIdsInIcebergsOrder) {
  auto t =
      ParseDataType("ROW<a INT NOT NULL, b ARRAY<ROW<c STRING>>, m MAP<STRING, INT NOT NULL>>");
  ASSERT_TRUE(t.has_value());
  int32_t next = 1;
  ASSERT_OK_AND_ASSIGN(TypePtr it, ToIcebergType(*t, &next));
  // Struct fields first (1, 2, 3), then b's element (4) and its field (5),
  // then m's key and value (6, 7).
  ASSERT_EQ(it->fields.size(), 3u);
  EXPECT_EQ(it->fields[0].id, 1);
  EXPECT_TRUE(it->fields[0].required);
  EXPECT_EQ(it->fields[1].type->element().id, 4);
  EXPECT_EQ(it->fields[1].type->element().type->fields[0].id, 5);
  EXPECT_EQ(it->fields[2].type->key().id, 6);
  EXPECT_EQ(it->fields[2].type->value().id, 7);
  EXPECT_TRUE(it->fields[2].type->value().required);
  EXPECT_EQ(next, 8);
}

TEST(SqlTypeMapping, MultisetIsRefused) {
  auto t = ParseDataType("MULTISET<STRING>");
  ASSERT_TRUE(t.has_value());
  int32_t next = 1;
  EXPECT_THAT(ToIcebergType(*t, &next),
              ::testing::AllOf(IsError(ErrorKind::kUnsupported),
                               HasErrorMessage("At line 1, column 1: MULTISET<STRING> cannot be "
                                               "stored in an Iceberg table")));
}

Result<Schema> SchemaOf(std::string_view create) {
  FLOE_ASSIGN_OR_RETURN(Statement st, ParseStatement(create));
  return ToIcebergSchema(std::get<CreateTable>(st.node));
}

TEST(SqlTypeMapping, CreateTableToSchema) {
  ASSERT_OK_AND_ASSIGN(Schema s,
                       SchemaOf("CREATE TABLE t (id BIGINT COMMENT 'key', tags ARRAY<STRING>, name "
                                "STRING NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH ('k'='v')"));
  ASSERT_EQ(s.num_fields(), 3);
  EXPECT_EQ(s.fields()[0].id, 1);
  EXPECT_TRUE(s.fields()[0].required);  // key columns are NOT NULL
  EXPECT_EQ(s.fields()[0].doc, "key");
  EXPECT_EQ(s.fields()[1].id, 2);
  EXPECT_EQ(s.fields()[1].type->element().id, 4);
  EXPECT_FALSE(s.fields()[1].required);
  EXPECT_TRUE(s.fields()[2].required);
  EXPECT_EQ(s.identifier_field_ids(), (std::vector<int32_t>{1}));
}

TEST(SqlTypeMapping, CreateTableRefusals) {
  EXPECT_THAT(SchemaOf("CREATE TABLE t (a INT, b AS a + 1)"),
              ::testing::AllOf(IsError(ErrorKind::kUnsupported),
                               HasErrorMessage("At line 1, column 24: computed column 'b'")));
  EXPECT_THAT(SchemaOf("CREATE TABLE t (a INT,\n ts TIMESTAMP(3),\n WATERMARK FOR ts AS ts)"),
              HasErrorMessage("At line 3, column 2: a WATERMARK is not supported"));
  EXPECT_THAT(SchemaOf("CREATE TABLE t (a INT, o BIGINT METADATA)"),
              HasErrorMessage("metadata column 'o'"));
  EXPECT_THAT(SchemaOf("CREATE TABLE t (a INT, PRIMARY KEY (b) NOT ENFORCED)"),
              HasErrorMessage("Invalid primary key 'PK_b'. Column 'b' does not exist."));
  EXPECT_THAT(SchemaOf("CREATE TABLE t (a DOUBLE, PRIMARY KEY (a) NOT ENFORCED)"),
              IsError(ErrorKind::kInvalidArgument));  // Iceberg: no float identifier fields
}

TEST(SqlTypeMapping, IcebergToFlink) {
  auto show = [](const TypePtr& t, bool required = false) {
    return TypeToSql(FromIcebergType(*t, required), TypeStyle::kSerializable);
  };
  EXPECT_EQ(show(IntType(), true), "INT NOT NULL");
  EXPECT_EQ(show(LongType()), "BIGINT");
  EXPECT_EQ(show(StringType()), "VARCHAR(2147483647)");
  EXPECT_EQ(show(BinaryType()), "VARBINARY(2147483647)");
  EXPECT_EQ(show(FixedType(7)), "BINARY(7)");
  EXPECT_EQ(show(UuidType()), "BINARY(16)");
  EXPECT_EQ(show(TimeType()), "TIME(0)");
  EXPECT_EQ(show(TimestampType()), "TIMESTAMP(6)");
  EXPECT_EQ(show(TimestampTzType()), "TIMESTAMP(6) WITH LOCAL TIME ZONE");
  EXPECT_EQ(show(Primitive(TypeId::kTimestampNs)), "TIMESTAMP(9)");
  EXPECT_EQ(show(Primitive(TypeId::kTimestampTzNs)), "TIMESTAMP(9) WITH LOCAL TIME ZONE");
  EXPECT_EQ(show(DecimalType(38, 9)), "DECIMAL(38, 9)");
  EXPECT_EQ(show(ListType(2, true, IntType())), "ARRAY<INT NOT NULL>");
  EXPECT_EQ(show(MapType(2, StringType(), 3, false, DoubleType())),
            "MAP<VARCHAR(2147483647) NOT NULL, DOUBLE>");
  EXPECT_EQ(show(StructType({NestedField{2, "a", true, IntType(), "doc"}})),
            "ROW<`a` INT NOT NULL 'doc'>");
}

TEST(SqlTypeMapping, SchemaToShowCreateTableAndBack) {
  Schema schema({NestedField{1, "id", true, LongType(), "the key"},
                 NestedField{2, "name", false, StringType(), ""},
                 NestedField{3, "ts", false, TimestampTzType(), ""}},
                0, {1});
  CreateTable t = FromIcebergSchema(schema, Identifier{{"ice", "db", "t"}, {}});
  t.options = {{"write.format.default", "parquet", {}}};
  std::string text = ShowCreateTableText(t);
  EXPECT_EQ(text,
            "CREATE TABLE `ice`.`db`.`t` (\n"
            "  `id` BIGINT NOT NULL COMMENT 'the key',\n"
            "  `name` VARCHAR(2147483647),\n"
            "  `ts` TIMESTAMP(6) WITH LOCAL TIME ZONE,\n"
            "  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED\n"
            ") WITH (\n"
            "  'write.format.default' = 'parquet'\n"
            ")\n");
  // The printed text creates the same schema again.
  ASSERT_OK_AND_ASSIGN(Schema again, SchemaOf(text));
  EXPECT_EQ(again, schema);
}

}  // namespace sql_types_test
}  // namespace floe::sql
