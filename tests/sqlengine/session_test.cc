// The SQL session through its library API: WHERE reaches Iceberg scan
// planning (a data file the filter rules out is never opened), option
// precedence (hint over SET over default), Flink's full option error text,
// the tableau printer and Java's floating-point text.

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/sqlengine/engine_types.h"
#include "floe/sqlengine/result.h"
#include "floe/sqlengine/session.h"
#include "floe/sqlengine/value_text.h"
#include "testing/files.h"

namespace floe::sqlengine {
namespace session_test {

namespace fs = std::filesystem;

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = floe::test::FreshTestDir("sqlengine_session");
    Run("CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='" +
        (dir_ / "wh").string() + "')");
    Run("CREATE DATABASE ice.db");
    Run("USE CATALOG ice");
    Run("USE db");
  }
  void TearDown() override { floe::test::RemoveTestDirIfPassed(dir_); }

  StatementResult Run(const std::string& sql) {
    auto r = session_.ExecuteSql(sql);
    EXPECT_TRUE(r.has_value()) << sql << "\n" << (r ? "" : r.error().message);
    return r ? *r : StatementResult{};
  }
  std::string Error(const std::string& sql) {
    auto r = session_.ExecuteSql(sql);
    EXPECT_FALSE(r.has_value()) << sql;
    return r ? "" : r.error().message;
  }
  static size_t Rows(const StatementResult& r) { return r.table.rows.size(); }

  // The data files of table db.t, in the order written.
  std::vector<fs::path> DataFiles() {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "wh" / "db" / "t" / "data")) {
      if (e.is_regular_file() && e.path().extension() == ".parquet") out.push_back(e.path());
    }
    return out;
  }

  fs::path dir_;
  Session session_;
};

TEST_F(SessionTest, WhereIsPushedToIcebergScanPlanning) {
  Run("CREATE TABLE t (id BIGINT, name STRING)");
  Run("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  auto first = DataFiles();
  ASSERT_EQ(first.size(), 1u);
  Run("INSERT INTO t VALUES (100, 'x'), (101, 'y')");
  // Remove the first file: a scan that opens it fails.
  fs::remove(first[0]);
  EXPECT_NE(Error("SELECT * FROM t").find(first[0].filename().string()), std::string::npos);
  // The filter's bounds rule the first file out: it is never opened.
  StatementResult r = Run("SELECT id FROM t WHERE id >= 100 AND name IS NOT NULL");
  ASSERT_EQ(Rows(r), 2u);
  EXPECT_EQ(r.table.rows[0][0], "100");
  EXPECT_EQ(Rows(Run("SELECT id FROM t WHERE id IN (100, 101)")), 2u);
  EXPECT_EQ(Rows(Run("SELECT id FROM t WHERE name LIKE 'x%'")), 1u);
  // A conjunct that does not map (a function call) leaves the others pushed.
  EXPECT_EQ(Rows(Run("SELECT id FROM t WHERE id > 99 AND UPPER(name) = 'Y'")), 1u);
  // An OR with a part that does not map is not pushed: the missing file is read.
  EXPECT_FALSE(
      session_.ExecuteSql("SELECT id FROM t WHERE id > 99 OR UPPER(name) = 'A'").has_value());
}

TEST_F(SessionTest, HintOverridesSessionOptionOverridesDefault) {
  Run("CREATE TABLE t (id BIGINT)");
  Run("INSERT INTO t VALUES (1), (2), (3)");
  EXPECT_EQ(Rows(Run("SELECT id FROM t")), 3u);
  Run("SET 'connector.iceberg.limit' = '1'");
  EXPECT_EQ(Rows(Run("SELECT id FROM t")), 1u);
  EXPECT_EQ(Rows(Run("SELECT id FROM t /*+ OPTIONS('limit'='2') */")), 2u);
  Run("RESET 'connector.iceberg.limit'");
  EXPECT_EQ(Rows(Run("SELECT id FROM t")), 3u);
}

TEST_F(SessionTest, UnknownIcebergHintIsAWarning) {
  Run("CREATE TABLE t (id BIGINT)");
  StatementResult r = Run("SELECT id FROM t /*+ OPTIONS('no-such-option'='1') */");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("'no-such-option' is not an Iceberg read option; ignored"),
            std::string::npos);
}

TEST_F(SessionTest, UnsupportedConnectorOptionsListBothSets) {
  Run("CREATE TABLE default_catalog.default_database.g (x INT) WITH ('connector'='datagen', "
      "'bogus'='1')");
  EXPECT_EQ(Error("SELECT * FROM default_catalog.default_database.g"),
            "floe.ValidationException: Unsupported options found for 'datagen'.\n\n"
            "Unsupported options:\n\n"
            "bogus\n\n"
            "Supported options:\n\n"
            "connector\n"
            "fields.x.end\n"
            "fields.x.kind\n"
            "fields.x.length\n"
            "fields.x.max\n"
            "fields.x.max-past\n"
            "fields.x.min\n"
            "fields.x.null-rate\n"
            "fields.x.start\n"
            "number-of-rows\n"
            "rows-per-second");
}

TEST_F(SessionTest, TypeMismatchNamesColumnAndSchemas) {
  Run("CREATE TABLE t (id BIGINT, name STRING, d DATE)");
  EXPECT_EQ(
      Error("INSERT INTO t SELECT 1, 'a', 'not a date'"),
      "floe.ValidationException: Column types of query result and sink for 'ice.db.t' do not "
      "match.\n"
      "Cause: Incompatible types for sink column 'd' at position 2.\n\n"
      "Query schema: [EXPR$0: INT NOT NULL, EXPR$1: CHAR(1) NOT NULL, EXPR$2: CHAR(10) NOT NULL]\n"
      "Sink schema:  [id: BIGINT, name: STRING, d: DATE]");
}

TEST_F(SessionTest, FailedInsertLeavesNoSnapshotAndNoFiles) {
  Run("CREATE TABLE t (id BIGINT NOT NULL)");
  EXPECT_NE(
      Error("INSERT INTO t VALUES (1), (CAST(NULL AS BIGINT))").find("Column 'id' is NOT NULL"),
      std::string::npos);
  EXPECT_EQ(Rows(Run("SELECT * FROM t")), 0u);
  EXPECT_FALSE(fs::exists(dir_ / "wh" / "db" / "t" / "data") && !DataFiles().empty());
}

TEST(ResultTest, TableauRightAlignsAndCountsRows) {
  ResultTable t;
  t.columns = {"id", "name"};
  t.rows = {{"1", "a"}, {"22", std::nullopt}};
  EXPECT_EQ(RenderTableau(t),
            "+----+--------+\n"
            "| id |   name |\n"
            "+----+--------+\n"
            "|  1 |      a |\n"
            "| 22 | <NULL> |\n"
            "+----+--------+\n"
            "2 rows in set\n");
  t.rows.clear();
  EXPECT_EQ(RenderTableau(t), "Empty set\n");
  t.changelog = true;
  t.rows = {{"1", "a"}};
  t.kinds = {RowKind::kUpdateBefore};
  EXPECT_EQ(RenderTableau(t),
            "+----+----+------+\n"
            "| op | id | name |\n"
            "+----+----+------+\n"
            "| -U |  1 |    a |\n"
            "+----+----+------+\n"
            "Received a total of 1 row\n");
}

// A streaming result on a terminal: widths from the types (the rows are not
// known when the header prints), a long value cut with "...", the footer.
TEST(ResultTest, StreamingTableauSizesColumnsByType) {
  ResultTable t;
  t.columns = {"id", "name"};
  t.types = {MakeType(sql::TypeName::kInt), MakeType(sql::TypeName::kString)};
  t.changelog = true;
  StreamingTableau tableau(t);
  EXPECT_EQ(tableau.Header(),
            "+----+-------------+--------------------------------+\n"
            "| op |          id |                           name |\n"
            "+----+-------------+--------------------------------+\n");
  ResultTable batch = t;
  batch.rows = {{"1", std::string(40, 'x')}, {"-2", std::nullopt}};
  batch.kinds = {RowKind::kInsert, RowKind::kDelete};
  EXPECT_EQ(tableau.Rows(batch),
            "| +I |           1 | " + std::string(27, 'x') + "... |\n"
            "| -D |          -2 |                         <NULL> |\n");
  EXPECT_EQ(tableau.Footer(2),
            "+----+-------------+--------------------------------+\n"
            "Received a total of 2 rows\n");
  EXPECT_EQ(tableau.Footer(0), "Received a total of 0 row\n");
  EXPECT_EQ(ChangelogLine(RowKind::kUpdateAfter, {"1", std::nullopt, "x y"}), "+U[1, null, x y]\n");
}

TEST(ValueTextTest, JavaDoubleToString) {
  EXPECT_EQ(JavaDoubleText(1.5), "1.5");
  EXPECT_EQ(JavaDoubleText(2.0), "2.0");
  EXPECT_EQ(JavaDoubleText(1e20), "1.0E20");
  EXPECT_EQ(JavaDoubleText(1.25e-5), "1.25E-5");
  EXPECT_EQ(JavaDoubleText(0.001), "0.001");
  EXPECT_EQ(JavaDoubleText(1234567.0), "1234567.0");
  EXPECT_EQ(JavaDoubleText(12345678.0), "1.2345678E7");
  EXPECT_EQ(JavaDoubleText(-0.0), "-0.0");
  EXPECT_EQ(JavaFloatText(0.1f), "0.1");
}

}  // namespace session_test
}  // namespace floe::sqlengine
