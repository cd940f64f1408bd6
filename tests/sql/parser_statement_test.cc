// Every statement kind of the subset parses into the expected tree.
#include <gtest/gtest.h>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "testing/matchers.h"

namespace floe::sql {
namespace parser_statement_test {

template <typename T>
T Parse(std::string_view sql) {
  auto r = ParseStatement(sql);
  EXPECT_TRUE(r.has_value()) << sql << "\n" << r.error().ToString();
  if (!r.has_value()) return T{};
  const T* node = std::get_if<T>(&r->node);
  EXPECT_NE(node, nullptr) << sql;
  return node ? *node : T{};
}

using Parts = std::vector<std::string>;

TEST(SqlStatements, Catalogs) {
  auto c = Parse<CreateCatalog>(
      "CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='/w')");
  EXPECT_EQ(c.name.parts, Parts{"ice"});
  ASSERT_EQ(c.options.size(), 3u);
  EXPECT_EQ(c.options[1].key, "catalog-type");
  EXPECT_EQ(c.options[1].value, "hadoop");
  EXPECT_EQ(c.options[1].pos, (Pos{1, 44}));
  EXPECT_EQ(Parse<UseCatalog>("use catalog `My Cat`").name.parts, Parts{"My Cat"});
  EXPECT_EQ(Parse<UseDatabase>("USE c.db").name.parts, (Parts{"c", "db"}));
  auto d = Parse<CreateDatabase>("CREATE DATABASE IF NOT EXISTS c.db COMMENT 'x' WITH ('k'='v')");
  EXPECT_TRUE(d.if_not_exists);
  EXPECT_EQ(d.name.parts, (Parts{"c", "db"}));
  EXPECT_EQ(d.comment, "x");
  EXPECT_EQ(d.options.size(), 1u);
  auto dd = Parse<DropDatabase>("DROP DATABASE IF EXISTS db CASCADE");
  EXPECT_TRUE(dd.if_exists);
  EXPECT_TRUE(dd.cascade);
}

TEST(SqlStatements, ShowDescribeSetReset) {
  EXPECT_EQ(Parse<Show>("SHOW CATALOGS").kind, ShowKind::kCatalogs);
  EXPECT_EQ(Parse<Show>("show databases").kind, ShowKind::kDatabases);
  EXPECT_EQ(Parse<Show>("SHOW JARS").kind, ShowKind::kJars);
  EXPECT_EQ(Parse<Show>("SHOW CURRENT DATABASE").kind, ShowKind::kCurrentDatabase);
  auto t = Parse<Show>("SHOW TABLES FROM c.db");
  EXPECT_EQ(t.kind, ShowKind::kTables);
  EXPECT_EQ(t.from->parts, (Parts{"c", "db"}));
  EXPECT_EQ(Parse<ShowCreateTable>("SHOW CREATE TABLE c.db.t").name.parts, (Parts{"c", "db", "t"}));
  EXPECT_EQ(Parse<Describe>("DESC t").name.parts, Parts{"t"});
  EXPECT_EQ(Parse<Describe>("DESCRIBE db.t").name.parts, (Parts{"db", "t"}));
  EXPECT_FALSE(Parse<Set>("SET").property.has_value());
  auto s = Parse<Set>("SET 'execution.runtime-mode' = 'batch';");
  EXPECT_EQ(s.property->key, "execution.runtime-mode");
  EXPECT_EQ(s.property->value, "batch");
  EXPECT_FALSE(Parse<Reset>("RESET").key.has_value());
  EXPECT_EQ(Parse<Reset>("RESET 'table.dml-sync'").key, "table.dml-sync");
  EXPECT_EQ(Parse<AddJar>("ADD JAR '/p/lib.so'").path, "/p/lib.so");
  EXPECT_EQ(Parse<RemoveJar>("REMOVE JAR '/p/lib.so'").path, "/p/lib.so");
}

TEST(SqlStatements, CreateTableWithEverything) {
  auto ct = Parse<CreateTable>(
      "CREATE TEMPORARY TABLE IF NOT EXISTS c.db.t (\n"
      "  id BIGINT NOT NULL COMMENT 'the key',\n"
      "  `name` VARCHAR(32),\n"
      "  price DECIMAL(10, 2),\n"
      "  tags ARRAY<STRING NOT NULL>,\n"
      "  attrs MAP<STRING, INT>,\n"
      "  loc ROW<lat DOUBLE, lon DOUBLE 'east'>,\n"
      "  ts TIMESTAMP(3),\n"
      "  lts TIMESTAMP(3) WITH LOCAL TIME ZONE,\n"
      "  total AS price * 2,\n"
      "  part STRING METADATA FROM 'partition' VIRTUAL,\n"
      "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,\n"
      "  CONSTRAINT pk PRIMARY KEY (id, `name`) NOT ENFORCED\n"
      ") COMMENT 'a table'\n"
      "PARTITIONED BY (`name`)\n"
      "WITH ('connector' = 'datagen', 'rows-per-second' = '5')");
  EXPECT_TRUE(ct.temporary);
  EXPECT_TRUE(ct.if_not_exists);
  EXPECT_EQ(ct.name.parts, (Parts{"c", "db", "t"}));
  ASSERT_EQ(ct.columns.size(), 10u);
  EXPECT_EQ(ct.columns[0].name, "id");
  EXPECT_EQ(ct.columns[0].pos, (Pos{2, 3}));
  EXPECT_EQ(ct.columns[0].type->name, TypeName::kBigInt);
  EXPECT_FALSE(ct.columns[0].type->nullable);
  EXPECT_EQ(ct.columns[0].comment, "the key");
  EXPECT_EQ(ct.columns[1].type->name, TypeName::kVarChar);
  EXPECT_EQ(ct.columns[1].type->precision, 32);
  EXPECT_EQ(ct.columns[2].type->scale, 2);
  EXPECT_EQ(ct.columns[3].type->name, TypeName::kArray);
  EXPECT_FALSE(ct.columns[3].type->elements[0].nullable);
  EXPECT_EQ(ct.columns[4].type->elements.size(), 2u);
  EXPECT_EQ(ct.columns[5].type->fields[1].description, "east");
  EXPECT_EQ(ct.columns[7].type->name, TypeName::kTimestampLtz);
  EXPECT_TRUE(ct.columns[8].computed.has_value());
  EXPECT_EQ(ExprToSql(*ct.columns[8].computed), "`price` * 2");
  EXPECT_TRUE(ct.columns[9].metadata);
  EXPECT_EQ(ct.columns[9].metadata_key, "partition");
  EXPECT_TRUE(ct.columns[9].is_virtual);
  ASSERT_EQ(ct.watermarks.size(), 1u);
  EXPECT_EQ(ct.watermarks[0].column, "ts");
  EXPECT_EQ(ExprToSql(ct.watermarks[0].expr), "`ts` - INTERVAL '5' SECOND");
  ASSERT_TRUE(ct.primary_key.has_value());
  EXPECT_EQ(ct.primary_key->name, "pk");
  EXPECT_EQ(ct.primary_key->columns, (Parts{"id", "name"}));
  EXPECT_EQ(ct.comment, "a table");
  EXPECT_EQ(ct.partitioned_by, Parts{"name"});
  EXPECT_EQ(ct.options.size(), 2u);
}

TEST(SqlStatements, ColumnPrimaryKeyAndLike) {
  auto ct = Parse<CreateTable>("CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, v STRING)");
  EXPECT_TRUE(ct.columns[0].primary_key);
  EXPECT_FALSE(ct.primary_key.has_value());

  auto like = Parse<CreateTable>(
      "CREATE TABLE t2 WITH ('k' = 'v') LIKE db.t (EXCLUDING ALL INCLUDING CONSTRAINTS "
      "OVERWRITING OPTIONS)");
  EXPECT_TRUE(like.columns.empty());
  ASSERT_TRUE(like.like.has_value());
  EXPECT_EQ(like.like->source.parts, (Parts{"db", "t"}));
  ASSERT_EQ(like.like->options.size(), 3u);
  EXPECT_EQ(like.like->options[0].strategy, LikeStrategy::kExcluding);
  EXPECT_EQ(like.like->options[0].feature, LikeFeature::kAll);
  EXPECT_EQ(like.like->options[2].strategy, LikeStrategy::kOverwriting);
  EXPECT_EQ(like.like->options[2].feature, LikeFeature::kOptions);
  EXPECT_FALSE(ParseStatement("CREATE TABLE t LIKE s (OVERWRITING ALL)").has_value());
}

TEST(SqlStatements, DropAndAlter) {
  auto d = Parse<DropTable>("DROP TEMPORARY TABLE IF EXISTS db.t");
  EXPECT_TRUE(d.temporary);
  EXPECT_TRUE(d.if_exists);
  auto s = Parse<AlterTableSet>("ALTER TABLE t SET ('write.format.default' = 'avro')");
  EXPECT_EQ(s.options[0].value, "avro");
  auto r = Parse<AlterTableReset>("ALTER TABLE t RESET ('a', 'b')");
  EXPECT_EQ(r.keys, (Parts{"a", "b"}));
}

TEST(SqlStatements, Insert) {
  auto i = Parse<Insert>(
      "INSERT OVERWRITE c.db.t /*+ OPTIONS('upsert-enabled'='true') */ PARTITION (dt = "
      "'2024-01-01', h = -1) (a, b) SELECT x, y FROM s WHERE x > 0");
  EXPECT_TRUE(i.overwrite);
  EXPECT_EQ(i.table.parts, (Parts{"c", "db", "t"}));
  ASSERT_EQ(i.hints.size(), 1u);
  EXPECT_EQ(i.hints[0].options[0].key, "upsert-enabled");
  EXPECT_EQ(i.hints[0].pos, (Pos{1, 29}));  // the hint's name
  ASSERT_EQ(i.partition.size(), 2u);
  EXPECT_EQ(i.partition[0].first, "dt");
  EXPECT_EQ(i.partition[0].second.value, "2024-01-01");
  EXPECT_EQ(i.columns, (Parts{"a", "b"}));
  const auto& sel = std::get<Select>(i.query.body);
  EXPECT_EQ(sel.items.size(), 2u);
  EXPECT_TRUE(sel.where.has_value());

  auto v = Parse<Insert>("INSERT INTO t VALUES (1, 'a'), (2, NULL)");
  const auto& values = std::get<Values>(v.query.body);
  ASSERT_EQ(values.rows.size(), 2u);
  EXPECT_EQ(values.rows[1][1].literal, LiteralKind::kNull);
  auto p = Parse<Insert>("INSERT INTO t (SELECT 1)");
  EXPECT_TRUE(p.columns.empty());
}

TEST(SqlStatements, Select) {
  auto q = Parse<Query>(
      "SELECT *, t.*, a AS x, b y, c.db.t.d FROM c.db.t /*+ OPTIONS('streaming'='true', "
      "'monitor-interval'='1s') */ AS t WHERE a > 1 LIMIT 10");
  const auto& s = std::get<Select>(q.body);
  ASSERT_EQ(s.items.size(), 5u);
  EXPECT_EQ(s.items[0].expr.kind, ExprKind::kStar);
  EXPECT_EQ(s.items[1].expr.kind, ExprKind::kStar);
  EXPECT_EQ(s.items[1].expr.names, Parts{"t"});
  EXPECT_EQ(s.items[2].alias, "x");
  EXPECT_EQ(s.items[3].alias, "y");
  EXPECT_EQ(s.items[4].expr.names, (Parts{"c", "db", "t", "d"}));
  EXPECT_EQ(s.from->name.parts, (Parts{"c", "db", "t"}));
  ASSERT_EQ(s.from->hints.size(), 1u);
  EXPECT_EQ(s.from->hints[0].options.size(), 2u);
  EXPECT_EQ(s.from->alias, "t");
  EXPECT_EQ(s.limit, 10);
  auto nofrom = Parse<Query>("SELECT 1 + 1");
  EXPECT_FALSE(std::get<Select>(nofrom.body).from.has_value());
  auto values = Parse<Query>("VALUES (1), (2)");
  EXPECT_EQ(std::get<Values>(values.body).rows.size(), 2u);
}

TEST(SqlStatements, StatementText) {
  ASSERT_OK_AND_ASSIGN(auto st, ParseStatement("  SELECT 1 ;  "));
  EXPECT_EQ(st.text, "SELECT 1");
  EXPECT_EQ(st.pos, (Pos{1, 3}));
}

}  // namespace parser_statement_test
}  // namespace floe::sql
