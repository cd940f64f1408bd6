// Iceberg table operations with the warehouse on object storage (floe issue
// 10, proof 1): `floe write`, `scan`, time travel (snapshot id and
// timestamp), `expire` and `remove-orphans` on a table at s3://B/wh/db/t on
// the S3 test server, through the hadoop catalog and the SQL catalog
// (SQLite). After each step the spec-only reference reader
// (verify_table.mjs) reads the same rows from a mirror of the store; expiry
// and orphan removal are checked against the objects the store holds, and
// the orphans are planted by another S3 client (curl's SigV4), not by floe.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <string>

#include "cli/s3_cli_util.h"

namespace s3_table_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

class S3TableCli : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_s3_table_");
    auto s = S3TestServer::Start();
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = std::move(*s);
    catalog_ = S3CatalogArgs(GetParam(), *server_, dir_);
  }
  void TearDown() override {
    server_.reset();
    RemoveTestDirIfPassed(dir_);
  }

  RunResult Floe(const std::string& args) {
    return FloeRun(dir_, args + catalog_);
  }
  std::string MetadataLocation() {
    RunResult d = Floe("describe --table db.t");
    EXPECT_EQ(d.rc, 0) << d.err;
    return json::parse(d.out, nullptr, false).value("metadata-location", std::string());
  }
  /// Rows of `floe scan` with `args`, each id once.
  std::set<int64_t> Scan(const std::string& args = "") {
    RunResult r = Floe("scan --table db.t " + args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return OnceEach(IdsOf(r.out), "scan " + args);
  }
  /// Rows verify_table.mjs reads from the mirror (`extra`: its options).
  std::set<int64_t> Verify(const std::string& extra = "") {
    RunResult v = VerifyFromMirror(dir_, *server_, MetadataLocation(), extra);
    EXPECT_EQ(v.rc, 0) << "verify_table.mjs " << extra << ": " << v.err;
    return OnceEach(IdsOf(v.out), "verify_table.mjs " + extra);
  }
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  fs::path dir_;
  std::unique_ptr<S3TestServer> server_;
  std::string catalog_;
};

TEST_P(S3TableCli, WriteScanTimeTravelExpireAndRemoveOrphans) {
  const std::string table_key = "wh/db/t/";
  // Two appends.
  WriteFile(dir_ / "a.jsonl", RowsJsonl(1, 3));
  WriteFile(dir_ / "b.jsonl", RowsJsonl(3, 4));
  RunResult w1 = Floe("write --table db.t --schema 'id BIGINT NOT NULL, s STRING' --input a.jsonl");
  ASSERT_EQ(w1.rc, 0) << w1.err;
  const int64_t s1 = json::parse(w1.out).at("snapshot-id").get<int64_t>();
  RunResult w2 = Floe("write --table db.t --input b.jsonl");
  ASSERT_EQ(w2.rc, 0) << w2.err;
  const int64_t s2 = json::parse(w2.out).at("snapshot-id").get<int64_t>();

  // The table is on the store, where the catalog says.
  const std::string metadata = MetadataLocation();
  EXPECT_TRUE(metadata.starts_with("s3://" + server_->bucket() + "/" + table_key + "metadata/"))
      << metadata;
  EXPECT_TRUE(StoreKeys(*server_).contains(KeyOf(*server_, metadata))) << metadata;
  EXPECT_EQ(Floe("namespaces").out, "db\n");
  EXPECT_EQ(Floe("tables").out, "db.t\n");

  // Reads, now and back in time, in floe and in the reference reader.
  EXPECT_EQ(Scan(), IdRange(1, 4));
  EXPECT_EQ(Scan("--set snapshot-id=" + std::to_string(s1)), IdRange(1, 3));
  RunResult snaps = Floe("snapshots --table db.t");
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  std::map<int64_t, int64_t> time_of;
  {
    std::istringstream in(snaps.out);
    for (std::string line; std::getline(in, line);) {
      json s = json::parse(line);
      time_of[s.at("snapshot-id").get<int64_t>()] = s.at("timestamp-ms").get<int64_t>();
    }
  }
  ASSERT_EQ(time_of.size(), 2u) << snaps.out;
  ASSERT_TRUE(time_of.contains(s1) && time_of.contains(s2)) << snaps.out;
  // Two processes one after the other: their snapshots are milliseconds apart.
  ASSERT_LT(time_of[s1], time_of[s2]) << snaps.out;
  EXPECT_EQ(Scan("--set as-of-timestamp=" + std::to_string(time_of[s1])), IdRange(1, 3));
  EXPECT_EQ(Verify("--as-of-timestamp " + std::to_string(time_of[s1])), IdRange(1, 3));
  EXPECT_EQ(Verify(), IdRange(1, 4));
  EXPECT_EQ(Verify("--snapshot-id " + std::to_string(s1)), IdRange(1, 3));

  // The data files are objects under the table's data folder.
  RunResult files = Floe("files --table db.t");
  ASSERT_EQ(files.rc, 0) << files.err;
  std::set<std::string> first_files;
  {
    std::istringstream in(files.out);
    for (std::string line; std::getline(in, line);) {
      const std::string key = KeyOf(*server_, json::parse(line).at("file-path"));
      EXPECT_TRUE(key.starts_with(table_key + "data/")) << line;
      EXPECT_TRUE(StoreKeys(*server_).contains(key)) << key;
      first_files.insert(key);
    }
  }
  ASSERT_EQ(first_files.size(), 2u) << files.out;

  // An overwrite replaces them; expiry then deletes what only the old
  // snapshots referenced, on the store.
  WriteFile(dir_ / "c.jsonl", RowsJsonl(10, 12));
  RunResult w3 = Floe("write --table db.t --input c.jsonl --set overwrite-enabled=true");
  ASSERT_EQ(w3.rc, 0) << w3.err;
  EXPECT_EQ(Scan(), IdRange(10, 12));
  EXPECT_EQ(Scan("--set snapshot-id=" + std::to_string(s2)), IdRange(1, 4));
  RunResult dry = Floe("expire --table db.t --retain-last 1 --older-than 99999999999999 --dry-run");
  ASSERT_EQ(dry.rc, 0) << dry.err;
  for (const auto& key : first_files) {
    EXPECT_TRUE(StoreKeys(*server_).contains(key)) << "a dry run deleted " << key;
  }
  RunResult ex = Floe("expire --table db.t --retain-last 1 --older-than 99999999999999");
  ASSERT_EQ(ex.rc, 0) << ex.err;
  json expired = json::parse(ex.out);
  std::set<int64_t> expired_ids;
  for (const auto& id : expired.at("expired-snapshot-ids")) expired_ids.insert(id.get<int64_t>());
  EXPECT_EQ(expired_ids, (std::set<int64_t>{s1, s2})) << ex.out;
  EXPECT_TRUE(expired.at("refused-files").empty()) << ex.out;
  std::set<std::string> deleted;
  for (const auto& f : expired.at("deleted-files")) deleted.insert(KeyOf(*server_, f));
  const std::set<std::string> keys_after_expire = StoreKeys(*server_);
  for (const auto& key : first_files) {
    EXPECT_TRUE(deleted.contains(key)) << key << " not in " << ex.out;
    EXPECT_FALSE(keys_after_expire.contains(key)) << key << " is still on the store";
  }
  for (const auto& key : deleted) {
    EXPECT_FALSE(key.empty()) << "a deleted file outside the store: " << ex.out;
    EXPECT_FALSE(keys_after_expire.contains(key)) << key << " reported deleted, still there";
  }
  EXPECT_EQ(Scan(), IdRange(10, 12));
  EXPECT_NE(Floe("scan --table db.t --set snapshot-id=" + std::to_string(s1)).rc, 0)
      << "an expired snapshot still reads";
  EXPECT_EQ(Verify(), IdRange(10, 12));

  // Orphans planted by another client: two in the table, one beside it.
  for (const std::string key :
       {table_key + "data/orphan-00001.parquet", table_key + "metadata/stray.avro",
        std::string("wh/db/other/kept.parquet")}) {
    RunResult put = CurlPut(dir_, *server_, key, "not a table file");
    ASSERT_EQ(put.rc, 0) << key << ": " << put.out << put.err;
  }
  const std::set<std::string> planted = {table_key + "data/orphan-00001.parquet",
                                         table_key + "metadata/stray.avro"};
  // Younger than the window: kept.
  RunResult young =
      Floe("remove-orphans --table db.t --older-than " + std::to_string(NowMs() - 3600 * 1000));
  ASSERT_EQ(young.rc, 0) << young.err;
  EXPECT_TRUE(json::parse(young.out).at("orphan-files").empty()) << young.out;
  const std::string future = std::to_string(NowMs() + 3600 * 1000);
  RunResult listed = Floe("remove-orphans --table db.t --dry-run --older-than " + future);
  ASSERT_EQ(listed.rc, 0) << listed.err;
  std::set<std::string> orphans;
  const json listed_json = json::parse(listed.out);
  for (const auto& f : listed_json.at("orphan-files")) {
    orphans.insert(KeyOf(*server_, f));
  }
  EXPECT_EQ(orphans, planted) << listed.out;
  for (const auto& key : planted) EXPECT_TRUE(StoreKeys(*server_).contains(key)) << key;
  const std::string history = Floe("snapshots --table db.t").out;
  RunResult removed = Floe("remove-orphans --table db.t --older-than " + future);
  ASSERT_EQ(removed.rc, 0) << removed.err;
  orphans.clear();
  const json removed_json = json::parse(removed.out);
  for (const auto& f : removed_json.at("orphan-files")) {
    orphans.insert(KeyOf(*server_, f));
  }
  EXPECT_EQ(orphans, planted) << removed.out;
  const std::set<std::string> keys = StoreKeys(*server_);
  for (const auto& key : planted) EXPECT_FALSE(keys.contains(key)) << key << " still there";
  EXPECT_TRUE(keys.contains("wh/db/other/kept.parquet")) << "a file outside the table went";
  EXPECT_EQ(Floe("snapshots --table db.t").out, history) << "remove-orphans changed the history";
  EXPECT_EQ(Scan(), IdRange(10, 12));
  EXPECT_EQ(Verify(), IdRange(10, 12));

  if (GetParam() == "sql") {
    // The catalog row names the metadata file on the store.
    RunResult row = RunIn(dir_, "sqlite3 " + Shell((dir_ / "catalog.db").string()) +
                                    " 'SELECT metadata_location FROM iceberg_tables'");
    ASSERT_EQ(row.rc, 0) << row.err;
    EXPECT_EQ(row.out, MetadataLocation() + "\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogs, S3TableCli, testing::ValuesIn(kS3Catalogs),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace s3_table_cli_test
