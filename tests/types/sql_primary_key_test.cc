// PRIMARY KEY ... NOT ENFORCED in SQL column lists (Flink SQL): table and
// column constraints set the schema's identifier field ids (in key order,
// nested struct fields by dotted path), key columns become required, and
// every rule of the Iceberg spec for identifier fields — and Flink's
// NOT ENFORCED — is an error naming the column and position.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/types/sql_schema.h"
#include "testing/matchers.h"

namespace floe {
namespace sql_primary_key_test {

using test::HasErrorMessage;
using test::IsError;
using ::testing::HasSubstr;

TEST(SqlPrimaryKey, TableConstraintSetsIdentifierFieldsAndMakesThemRequired) {
  ASSERT_OK_AND_ASSIGN(Schema s, ParseSqlColumns("id BIGINT, region STRING NOT NULL, v DOUBLE, "
                                                 "PRIMARY KEY (region, id) NOT ENFORCED"));
  EXPECT_EQ(s.identifier_field_ids(), (std::vector<int32_t>{2, 1}));
  EXPECT_TRUE(s.fields()[0].required);  // made NOT NULL, as Flink does
  EXPECT_TRUE(s.fields()[1].required);
  EXPECT_FALSE(s.fields()[2].required);
  EXPECT_OK(s.Validate());
}

TEST(SqlPrimaryKey, ColumnConstraintAndConstraintNames) {
  ASSERT_OK_AND_ASSIGN(
      Schema a, ParseSqlColumns("v STRING, id BIGINT PRIMARY KEY NOT ENFORCED COMMENT 'key'"));
  EXPECT_EQ(a.identifier_field_ids(), (std::vector<int32_t>{2}));
  EXPECT_TRUE(a.fields()[1].required);
  EXPECT_EQ(a.fields()[1].doc, "key");

  ASSERT_OK_AND_ASSIGN(
      Schema b, ParseSqlColumns("id BIGINT NOT NULL CONSTRAINT pk PRIMARY KEY NOT ENFORCED"));
  EXPECT_EQ(b.identifier_field_ids(), (std::vector<int32_t>{1}));

  ASSERT_OK_AND_ASSIGN(
      Schema c,
      ParseSqlColumns("id INT, name STRING, CONSTRAINT `my pk` primary key (id) not enforced"));
  EXPECT_EQ(c.identifier_field_ids(), (std::vector<int32_t>{1}));
  EXPECT_EQ(c.num_fields(), 2);
}

TEST(SqlPrimaryKey, ColumnsNamedLikeTheKeywordsStayColumns) {
  ASSERT_OK_AND_ASSIGN(Schema s, ParseSqlColumns("primary INT, constraint STRING, key BIGINT, "
                                                 "PRIMARY KEY (key) NOT ENFORCED"));
  ASSERT_EQ(s.num_fields(), 3);
  EXPECT_EQ(s.fields()[0].name, "primary");
  EXPECT_EQ(s.fields()[1].name, "constraint");
  EXPECT_EQ(s.identifier_field_ids(), (std::vector<int32_t>{3}));
}

TEST(SqlPrimaryKey, NestedStructFieldsByDottedPath) {
  // Ids: id 1, loc 2, tags 3; loc's fields city 4, zip 5, inner 6; inner.k 7.
  ASSERT_OK_AND_ASSIGN(
      Schema s,
      ParseSqlColumns(
          "id BIGINT, loc STRUCT<city STRING, zip INT, inner STRUCT<k UUID> NOT NULL> NOT NULL, "
          "tags ARRAY<STRING>, PRIMARY KEY (loc.city, loc.inner.k) NOT ENFORCED"));
  EXPECT_EQ(s.identifier_field_ids(), (std::vector<int32_t>{4, 7}));
  EXPECT_TRUE(s.FindField(4)->required);
  EXPECT_TRUE(s.FindField(7)->required);
  EXPECT_FALSE(s.FindField(5)->required);
  EXPECT_OK(s.Validate());
}

TEST(SqlPrimaryKey, WithoutNotEnforcedIsAnErrorSayingFlinkRequiresIt) {
  for (const char* text : {"id BIGINT, PRIMARY KEY (id)", "id BIGINT PRIMARY KEY, v INT",
                           "id BIGINT, PRIMARY KEY (id) ENFORCED"}) {
    auto s = ParseSqlColumns(text);
    EXPECT_THAT(s, IsError(ErrorKind::kInvalidArgument)) << text;
    EXPECT_THAT(s, HasErrorMessage("NOT ENFORCED")) << text;
    EXPECT_THAT(s, HasErrorMessage("Flink SQL requires it")) << text;
  }
  EXPECT_THAT(ParseSqlColumns("id BIGINT, PRIMARY KEY (id)"), HasErrorMessage("column 12:"));
}

TEST(SqlPrimaryKey, IdentifierFieldRulesAreErrorsNamingTheColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"id BIGINT, PRIMARY KEY (nope) NOT ENFORCED",
       "column 25: PRIMARY KEY column 'nope' is not a column"},
      {"d DOUBLE, PRIMARY KEY (d) NOT ENFORCED", "'d' cannot be FLOAT or DOUBLE"},
      {"f FLOAT PRIMARY KEY NOT ENFORCED", "'f' cannot be FLOAT or DOUBLE"},
      {"s STRUCT<a INT> NOT NULL, PRIMARY KEY (s) NOT ENFORCED", "'s' must be of a primitive type"},
      {"t ARRAY<INT>, PRIMARY KEY (t) NOT ENFORCED", "'t' must be of a primitive type"},
      {"m MAP<STRING, STRUCT<a INT>>, PRIMARY KEY (m.a) NOT ENFORCED",
       "reaches into 'm', which is not a struct"},
      {"s STRUCT<a INT>, PRIMARY KEY (s.a) NOT ENFORCED", "inside the optional struct 's'"},
      {"s STRUCT<a INT> NOT NULL, PRIMARY KEY (s.b) NOT ENFORCED", "struct 's' has no field 'b'"},
      {"id INT, PRIMARY KEY (id, id) NOT ENFORCED", "'id' is listed twice"},
      {"id INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (id) NOT ENFORCED",
       "a second PRIMARY KEY (the first is at column 8)"},
      {"s STRUCT<a INT PRIMARY KEY NOT ENFORCED> NOT NULL", "belongs to a top-level column"},
      {"id INT, PRIMARY KEY () NOT ENFORCED", "expected a column name in PRIMARY KEY"},
      {"id INT, PRIMARY KEY (id NOT ENFORCED", "expected ',' or ')' to close PRIMARY KEY"},
      {"id INT, CONSTRAINT pk PRIMARY (id) NOT ENFORCED", "expected KEY after PRIMARY"},
  };
  for (const auto& [text, message] : cases) {
    auto s = ParseSqlColumns(text);
    EXPECT_THAT(s, IsError(ErrorKind::kInvalidArgument)) << text;
    EXPECT_THAT(s, HasErrorMessage(message)) << text;
  }
}

TEST(SqlPrimaryKey, NoKeyMeansNoIdentifierFields) {
  ASSERT_OK_AND_ASSIGN(Schema s, ParseSqlColumns("id BIGINT, v STRING"));
  EXPECT_TRUE(s.identifier_field_ids().empty());
  EXPECT_FALSE(s.fields()[0].required);
}

}  // namespace sql_primary_key_test
}  // namespace floe
