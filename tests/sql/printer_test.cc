// The printer: parse -> print -> parse gives the same tree; SHOW CREATE
// TABLE's text is Flink's; type spellings in the three styles.
#include <gtest/gtest.h>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "testing/matchers.h"

namespace floe::sql {
namespace printer_test {

/// Parses, prints, parses the print: the two trees must be equal (positions
/// aside) and printing is a fixed point.
void ExpectRoundTrip(std::string_view sql) {
  auto first = ParseStatement(sql);
  ASSERT_TRUE(first.has_value()) << sql << "\n" << first.error().ToString();
  std::string printed = ToSql(*first);
  auto second = ParseStatement(printed);
  ASSERT_TRUE(second.has_value()) << "printed: " << printed << "\n" << second.error().ToString();
  Statement a = *first, b = *second;
  ClearPositions(a);
  ClearPositions(b);
  EXPECT_TRUE(a == b) << "source:  " << sql << "\nprinted: " << printed
                      << "\nreprint: " << ToSql(b);
  EXPECT_EQ(ToSql(b), printed);
}

TEST(SqlPrinter, EveryStatementKindRoundTrips) {
  const char* statements[] = {
      "CREATE CATALOG ice WITH ('type'='iceberg', 'warehouse'='/w''s')",
      "USE CATALOG ice",
      "USE ice.db",
      "CREATE DATABASE IF NOT EXISTS ice.db COMMENT 'c' WITH ('k'='v')",
      "DROP DATABASE IF EXISTS db CASCADE",
      "SHOW CATALOGS",
      "SHOW DATABASES",
      "SHOW TABLES FROM db",
      "SHOW JARS",
      "SHOW CURRENT CATALOG",
      "SHOW CREATE TABLE c.db.t",
      "DESCRIBE t",
      "SET",
      "SET 'a.b' = 'c'",
      "RESET",
      "RESET 'a.b'",
      "CREATE TEMPORARY TABLE IF NOT EXISTS c.db.`t t` (id BIGINT NOT NULL COMMENT 'k', v "
      "VARCHAR(3), d DECIMAL, d2 DECIMAL(5), d3 DECIMAL(5, 1), tl TIMESTAMP_LTZ(3), "
      "r ROW<`a``b` INT NOT NULL 'x', c MAP<STRING, ARRAY<BYTES>>> NOT NULL, m MULTISET<INT>, "
      "c AS v || 'x', md INT METADATA FROM 'offset' VIRTUAL, "
      "WATERMARK FOR tl AS tl - INTERVAL '5' SECOND, CONSTRAINT `my pk` PRIMARY KEY (id) NOT "
      "ENFORCED) COMMENT 'tbl' PARTITIONED BY (v, d) WITH ('connector'='datagen')",
      "CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED)",
      "CREATE TABLE t2 WITH ('a'='b') LIKE t (EXCLUDING ALL INCLUDING PARTITIONS)",
      "CREATE TABLE t3 (a INT) LIKE t",
      "DROP TEMPORARY TABLE IF EXISTS t",
      "ALTER TABLE t SET ('a'='1', 'b'='2')",
      "ALTER TABLE t RESET ('a', 'b')",
      "ADD JAR '/x.so'",
      "REMOVE JAR '/x.so'",
      "INSERT INTO c.db.t /*+ OPTIONS('upsert-enabled'='true') */ PARTITION (p = 'x', q = -1) "
      "(a, b) SELECT a, b FROM s",
      "INSERT OVERWRITE t VALUES (1, 'a'), (-2.5, NULL)",
      "EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1); INSERT INTO b SELECT * FROM c; END",
      "SELECT * FROM t",
      "SELECT /*+ MY_HINT('x') */ t.*, a AS x, `b c` y FROM c.db.t /*+ OPTIONS('a'='1', 'b'='2') "
      "*/ AS t WHERE a > 1 AND b IS NOT NULL LIMIT 5",
      "SELECT 1",
      "VALUES (1), (2)",
      // Hint names keep their spelling (sql_parse_fuzz: `OpTIONS`, `p`
      // printed upper-case parsed to another tree).
      "INSERT INTO b/*+p*/VALUES(T)",
      "SELECT * FROM t /*+ OpTIONS('k'='v') */",
      // Chains of signs print with spaces, not parentheses (a chain of 67
      // printed as +(+(... passed the depth limit: sql_parse_fuzz).
      "SELECT - -1, + +a, -(-(a)), -(+1), +(-a), -(NOT a), - - - - b",
  };
  for (const char* s : statements) {
    SCOPED_TRACE(s);
    ExpectRoundTrip(s);
  }
}

TEST(SqlPrinter, ExpressionsRoundTripWithTheirShape) {
  const char* exprs[] = {
      "a - (b - c)",
      "(a - b) - c",
      "a * (b + c)",
      "-(-a)",
      "- -a",
      "a - -1",
      "NOT (a AND b)",
      "(a OR b) AND c",
      "a OR (b OR c)",
      "(a AND b) AND c",
      "NOT NOT a",
      "(a = b) = c",
      "a = (b = c)",
      "(a IS NULL) IS NOT TRUE",
      "a NOT IN (1, 2 + 3, 'x')",
      "a NOT BETWEEN 1 + 1 AND 3 OR b",
      "(a BETWEEN 1 AND 2) BETWEEN c AND d",
      "s LIKE 'a%' ESCAPE '!'",
      "CAST(a + 1 AS DECIMAL(10, 2) NOT NULL)",
      "TRY_CAST(a AS ROW<x INT>)",
      "CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END",
      "CASE a WHEN 1 THEN 'x' END",
      "f(DISTINCT a, *) + `select`(1) + lib.g()",
      "DATE '2024-01-01' < TIMESTAMP '2024-01-01 00:00:00' OR TIME '01:02:03' IS NULL",
      "INTERVAL -'1' DAY + INTERVAL '1 02' DAY TO HOUR",
      "X'0aff' || 'it''s'",
      "1.5E3 + .5 + 10",
      "a % b / c * d",
      "TRUE AND FALSE OR NULL",
      "SUBSTRING(s FROM 1 + 1 FOR 2) || SUBSTRING(s FROM 3) || SUBSTRING(s, 1, 2)",
      "TRIM(BOTH 'x' FROM s) || TRIM(LEADING FROM s) || TRIM(TRAILING 'y' || 'z' FROM s) || TRIM(s)",
      "POSITION('a' || 'b' IN s) + POSITION(a IN b || c)",
      "EXTRACT(DAY FROM ts) + EXTRACT(YEAR FROM ts + INTERVAL '1' DAY)",
      "a IS DISTINCT FROM b + 1 AND a IS NOT DISTINCT FROM NULL",
      "TRIM(LEADING `both` FROM s) || TRIM(`both`) || POSITION((a = b) IN c)",
  };
  for (const char* e : exprs) {
    SCOPED_TRACE(e);
    ExpectRoundTrip(std::string("SELECT ") + e);
  }
}

TEST(SqlPrinter, CanonicalText) {
  ASSERT_OK_AND_ASSIGN(auto st, ParseStatement("select a+1 as x from t where not a=1 limit 3"));
  EXPECT_EQ(ToSql(st), "SELECT `a` + 1 AS `x` FROM `t` WHERE NOT `a` = 1 LIMIT 3");
  ASSERT_OK_AND_ASSIGN(auto ct, ParseStatement("create table t (a int not null, primary key (a) "
                                               "not enforced) with ('k'='v')"));
  EXPECT_EQ(ToSql(ct),
            "CREATE TABLE `t` (\n"
            "  `a` INT NOT NULL,\n"
            "  PRIMARY KEY (`a`) NOT ENFORCED\n"
            ") WITH (\n"
            "  'k' = 'v'\n"
            ")");
}

TEST(SqlPrinter, ShowCreateTableIsFlinksText) {
  // Flink's flink-sql-client table.q: the table `orders`, as SHOW CREATE TABLE prints it
  // (computed columns and watermarks included; options sorted by key).
  ASSERT_OK_AND_ASSIGN(auto st, ParseStatement("CREATE TABLE IF NOT EXISTS orders (\n"
                                               " `user` BIGINT NOT NULl,\n"
                                               " product VARCHAR(32),\n"
                                               " amount INT,\n"
                                               " ts TIMESTAMP(3),\n"
                                               " ptime AS PROCTIME(),\n"
                                               " PRIMARY KEY(`user`) NOT ENFORCED,\n"
                                               " WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS\n"
                                               ") with (\n"
                                               " 'connector' = 'datagen'\n"
                                               ")"));
  CreateTable t = std::get<CreateTable>(st.node);
  t.name.parts = {"default_catalog", "default_database", "orders"};
  EXPECT_EQ(ShowCreateTableText(t),
            "CREATE TABLE `default_catalog`.`default_database`.`orders` (\n"
            "  `user` BIGINT NOT NULL,\n"
            "  `product` VARCHAR(32),\n"
            "  `amount` INT,\n"
            "  `ts` TIMESTAMP(3),\n"
            "  `ptime` AS PROCTIME(),\n"
            "  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,\n"
            "  CONSTRAINT `PK_user` PRIMARY KEY (`user`) NOT ENFORCED\n"
            ") WITH (\n"
            "  'connector' = 'datagen'\n"
            ")\n");
}

TEST(SqlPrinter, ShowCreateTableSortsOptionsAndSpellsTypesOut) {
  ASSERT_OK_AND_ASSIGN(
      auto st, ParseStatement("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY NOT ENFORCED, s "
                              "STRING, b BYTES, l TIMESTAMP_LTZ, d DECIMAL, ts TIMESTAMP) "
                              "PARTITIONED BY (s) WITH ('z'='1', 'a'='it''s')"));
  EXPECT_EQ(ShowCreateTableText(std::get<CreateTable>(st.node)),
            "CREATE TEMPORARY TABLE `t` (\n"
            "  `id` INT NOT NULL,\n"
            "  `s` VARCHAR(2147483647),\n"
            "  `b` VARBINARY(2147483647),\n"
            "  `l` TIMESTAMP(6) WITH LOCAL TIME ZONE,\n"
            "  `d` DECIMAL(10, 0),\n"
            "  `ts` TIMESTAMP(6),\n"
            "  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED\n"
            ") PARTITIONED BY (`s`)\n"
            "WITH (\n"
            "  'a' = 'it''s',\n"
            "  'z' = '1'\n"
            ")\n");
}

TEST(SqlPrinter, TypeStyles) {
  ASSERT_OK_AND_ASSIGN(DataType t,
                       ParseDataType("ROW<s STRING, b BYTES NOT NULL, l TIMESTAMP_LTZ(3)>"));
  EXPECT_EQ(TypeToSql(t), "ROW<`s` STRING, `b` BYTES NOT NULL, `l` TIMESTAMP_LTZ(3)>");
  EXPECT_EQ(TypeToSql(t, TypeStyle::kSerializable),
            "ROW<`s` VARCHAR(2147483647), `b` VARBINARY(2147483647) NOT NULL, `l` TIMESTAMP(3) "
            "WITH LOCAL TIME ZONE>");
  EXPECT_EQ(TypeToSql(t, TypeStyle::kSummary),
            "ROW<`s` STRING, `b` BYTES NOT NULL, `l` TIMESTAMP_LTZ(3)>");
  ASSERT_OK_AND_ASSIGN(DataType v, ParseDataType("VARCHAR(2147483647)"));
  EXPECT_EQ(TypeToSql(v, TypeStyle::kSummary), "STRING");
  ASSERT_OK_AND_ASSIGN(DataType c, ParseDataType("CHAR"));
  EXPECT_EQ(TypeToSql(c, TypeStyle::kSummary), "CHAR(1)");
  EXPECT_EQ(TypeToSql(c), "CHAR");
}

}  // namespace printer_test
}  // namespace floe::sql
