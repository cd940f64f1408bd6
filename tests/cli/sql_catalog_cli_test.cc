// `floe` with the SQL catalog (catalog-type=sql on a SQLite file): write,
// scan, snapshots, expire, branch, tag, namespaces, tables and describe go
// through the JdbcCatalog tables, and the table the catalog points at reads
// the same in the spec-only reference reader (verify_table.mjs, given the
// metadata file the catalog row names).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_util.h"

namespace sql_catalog_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers

class SqlCatalogCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_sql_cli_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  std::string Catalog() const {
    return "--catalog catalog-type=sql --catalog " +
           Shell("uri=jdbc:sqlite:file:" + (dir_ / "cat.db").string()) + " --catalog " +
           Shell("warehouse=" + (dir_ / "wh").string()) + " --catalog-name prod";
  }
  RunResult Floe(const std::string& args) {
    return FloeRun(dir_, args + " " + Catalog());
  }
  RunResult Sqlite(const std::string& sql) {
    return RunIn(dir_, "sqlite3 " + Shell((dir_ / "cat.db").string()) + " " + Shell(sql));
  }
  static std::string Sorted(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string l; std::getline(ss, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }

  fs::path dir_;
};

TEST_F(SqlCatalogCli, CommandsRunThroughTheSqlCatalog) {
  WriteFile(dir_ / "a.jsonl", "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n");
  WriteFile(dir_ / "b.jsonl", "{\"id\":3,\"name\":\"c\"}\n");
  RunResult w1 =
      Floe("write --table shop.items --schema 'id BIGINT NOT NULL, name STRING' --input a.jsonl");
  ASSERT_EQ(w1.rc, 0) << w1.err;
  RunResult w2 = Floe("write --table shop.items --input b.jsonl");
  ASSERT_EQ(w2.rc, 0) << w2.err;

  RunResult scan = Floe("scan --table shop.items");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(Sorted(scan.out),
            "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n{\"id\":3,\"name\":\"c\"}\n");
  EXPECT_EQ(Floe("namespaces").out, "shop\n");
  EXPECT_EQ(Floe("tables").out, "shop.items\n");
  RunResult d = Floe("describe --table shop.items");
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_NE(d.out.find("\"name\""), std::string::npos) << d.out;
  RunResult snaps = Floe("snapshots --table shop.items");
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  EXPECT_EQ(std::count(snaps.out.begin(), snaps.out.end(), '\n'), 2) << snaps.out;

  // The catalog row: JdbcCatalog's encoding, under the catalog's name.
  RunResult row = Sqlite(
      "SELECT catalog_name, table_namespace, table_name, iceberg_type, previous_metadata_location "
      "IS NOT NULL "
      "FROM iceberg_tables");
  ASSERT_EQ(row.rc, 0) << row.err;
  EXPECT_EQ(row.out, "prod|shop|items|TABLE|1\n");

  ASSERT_EQ(Floe("tag --table shop.items --name v2").rc, 0);
  WriteFile(dir_ / "c.jsonl", "{\"id\":4,\"name\":\"d\"}\n");
  ASSERT_EQ(Floe("write --table shop.items --input c.jsonl --branch dev").rc, 0);
  RunResult dev = Floe("scan --table shop.items --set branch=dev");
  ASSERT_EQ(dev.rc, 0) << dev.err;
  EXPECT_EQ(std::count(dev.out.begin(), dev.out.end(), '\n'), 4);
  RunResult br = Floe("branch --table shop.items --name audit");
  ASSERT_EQ(br.rc, 0) << br.err;

  // The independent reader, given the metadata file the catalog points at.
  RunResult loc = Sqlite("SELECT metadata_location FROM iceberg_tables");
  ASSERT_EQ(loc.rc, 0) << loc.err;
  std::string metadata = loc.out.substr(0, loc.out.find('\n'));
  ASSERT_TRUE(metadata.starts_with("file:/")) << metadata;
  metadata = metadata.substr(5);
  RunResult v = Node(dir_, "verify_table.mjs", {metadata, "--strict"});
  ASSERT_EQ(v.rc, 0) << v.err;
  EXPECT_EQ(v.out, Sorted(scan.out));
  RunResult vdev = Node(dir_, "verify_table.mjs", {metadata, "--strict", "--ref", "dev"});
  ASSERT_EQ(vdev.rc, 0) << vdev.err;
  EXPECT_EQ(Sorted(vdev.out), Sorted(dev.out));

  // Expire all but the newest snapshot of main; the tag and branches keep theirs.
  RunResult ex = Floe("expire --table shop.items --retain-last 1 --older-than 99999999999999");
  ASSERT_EQ(ex.rc, 0) << ex.err;
  RunResult after = Floe("scan --table shop.items");
  ASSERT_EQ(after.rc, 0) << after.err;
  EXPECT_EQ(Sorted(after.out), Sorted(scan.out));
}

TEST_F(SqlCatalogCli, MissingUriIsAnError) {
  RunResult r =
      RunIn(dir_, Shell(FLOE_BIN) + " tables --catalog catalog-type=sql --catalog warehouse=wh");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("uri is required"), std::string::npos) << r.err;
}

}  // namespace sql_catalog_cli_test
