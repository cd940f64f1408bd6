// `floe` as a hostile probe drove it (floe issue 7, section 5, part C):
// - `floe expire` never deletes a file outside the table that a tampered
//   manifest names: it warns on stderr and lists it under refused-files;
// - a table folder copied with `cp -a` is refused for write, expire and
//   remove-orphans (its metadata names the original's files), and the
//   original is left exactly as it was; reading the copy still works;
// - `floe remove-orphans` removes old debris of killed writes and expires,
//   keeps what the table references and what is younger than the window, and
//   a dry run touches nothing;
// - a commit whose version-hint.text could not be updated succeeds with a
//   warning;
// - bad arguments (`--older-than -1`, `--retain-last -3`, table `.t`) are
//   usage errors naming the flag and the rule; an empty input prints
//   "snapshot-id":null.
#include <gtest/gtest.h>
#include <sys/time.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "cli/cli_util.h"
#include "floe/catalog/catalog.h"
#include "floe/io/location.h"
#include "floe/table/table.h"
#include "testing/matchers.h"

namespace table_safety_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

constexpr int64_t kDay = 24 * 60 * 60 * 1000;

/// Every path under `dir` (files and folders, hidden ones included), relative.
std::set<std::string> Tree(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out.insert(fs::relative(e.path(), dir).string() + (e.is_directory() ? "/" : ""));
  }
  return out;
}

/// Sets the modification time of every file under `dir` `age_ms` back.
void AgeAll(const fs::path& dir, int64_t age_ms) {
  struct timeval now;
  ::gettimeofday(&now, nullptr);
  int64_t t_ms = int64_t{now.tv_sec} * 1000 + now.tv_usec / 1000 - age_ms;
  struct timeval tv[2];
  tv[0].tv_sec = tv[1].tv_sec = t_ms / 1000;
  tv[0].tv_usec = tv[1].tv_usec = (t_ms % 1000) * 1000;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) ASSERT_EQ(::lutimes(e.path().c_str(), tv), 0) << e.path();
  }
}

class TableSafetyCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_table_safety_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  RunResult Write(const std::string& rows, const std::string& args = "") {
    WriteFile(dir_ / "rows.jsonl", rows);
    return Floe("write --table db.t --schema 'id BIGINT NOT NULL' --input rows.jsonl " + args);
  }
  std::string Scan(const std::string& args = "") {
    RunResult r = Floe("scan --table db.t " + args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.out;
  }

  fs::path dir_;
};

TEST_F(TableSafetyCli, ExpireRefusesAFileOutsideTheTableThatATamperedManifestNames) {
  ASSERT_EQ(Write("{\"id\":1}\n").rc, 0);
  fs::path victim = dir_ / "precious.txt";
  WriteFile(victim, "do not delete");
  // The tampered manifest: a snapshot that names the victim, then replaced.
  int64_t tampered = 0;
  {
    auto cat = floe::catalog::OpenHadoopCatalog("t", (dir_ / "warehouse").string());
    ASSERT_OK(cat);
    auto loaded = (*cat)->LoadTable(*floe::catalog::ParseTableIdentifier("db.t"));
    ASSERT_OK(loaded);
    floe::table::Table t(cat->get(), std::move(*loaded));
    floe::iceberg::DataFile f;
    f.file_path = floe::FileUri(victim.string());
    f.record_count = 1;
    f.file_size_in_bytes = 13;
    auto c = floe::table::SnapshotUpdate(&t).AddDataFile(f).Commit();
    ASSERT_TRUE(c) << c.error().ToString();
    tampered = c->snapshot_id;
  }
  ASSERT_EQ(Write("{\"id\":2}\n", "--set overwrite-enabled=true").rc, 0);

  RunResult r = Floe("expire --table db.t --snapshot-id " + std::to_string(tampered));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(victim));
  json j = json::parse(r.out);
  ASSERT_EQ(j["refused-files"].size(), 1u) << r.out;
  EXPECT_EQ(j["refused-files"][0], floe::FileUri(victim.string()));
  EXPECT_EQ(j["expired-snapshot-ids"][0], tampered);
  EXPECT_NE(r.err.find("floe: warning: expire: 1 file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(victim.string()), std::string::npos) << r.err;
  EXPECT_EQ(Scan(), "{\"id\":2}\n");
}

TEST_F(TableSafetyCli, CopiedTableFolderIsRefusedForWritesExpiryAndOrphanRemoval) {
  ASSERT_EQ(Write("{\"id\":1}\n").rc, 0);
  ASSERT_EQ(Write("{\"id\":2}\n").rc, 0);
  ASSERT_EQ(RunIn(dir_, "cp -a warehouse copy").rc, 0);
  const auto original = Tree(dir_ / "warehouse");
  const auto copy = Tree(dir_ / "copy");

  WriteFile(dir_ / "rows.jsonl", "{\"id\":3}\n");
  RunResult w = Floe("write --table db.t --input rows.jsonl --catalog warehouse=copy");
  EXPECT_EQ(w.rc, 1) << w.out;
  EXPECT_NE(w.err.find("copied"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find((dir_ / "warehouse/db/t").string()), std::string::npos) << w.err;
  RunResult e = Floe(
      "expire --table db.t --retain-last 1 --older-than 99999999999999 --catalog warehouse=copy");
  EXPECT_EQ(e.rc, 1) << e.out;
  EXPECT_NE(e.err.find("copied"), std::string::npos) << e.err;
  RunResult o =
      Floe("remove-orphans --table db.t --older-than 99999999999999 --catalog warehouse=copy");
  EXPECT_EQ(o.rc, 1) << o.out;
  EXPECT_NE(o.err.find("copied"), std::string::npos) << o.err;

  EXPECT_EQ(Tree(dir_ / "warehouse"), original);
  EXPECT_EQ(Tree(dir_ / "copy"), copy);
  // Reads still work (they follow the absolute paths the metadata names).
  EXPECT_EQ(Scan("--catalog warehouse=copy --format jsonl"), Scan("--format jsonl"));
}

TEST_F(TableSafetyCli, RemoveOrphansClearsDebrisOfKilledWritesAndKeepsTheTable) {
  ASSERT_EQ(Write("{\"id\":1}\n").rc, 0);
  ASSERT_EQ(Write("{\"id\":2}\n").rc, 0);
  const fs::path t = dir_ / "warehouse/db/t";
  // What kill -9 leaves: a data file no commit names, writer temporaries.
  WriteFile(t / "data/00000-0-killed-00001.parquet", "PAR1");
  WriteFile(t / "data/.00000-0-killed-00002.parquet.999-1f-0.tmp", "PAR1");
  WriteFile(t / "metadata/.v4.metadata.json.999-2e-1.tmp", "{");
  AgeAll(t, 4 * kDay);
  WriteFile(t / "data/00000-0-in-flight-00001.parquet", "PAR1");  // a write still running
  const std::string rows = Scan();
  const auto before = Tree(dir_ / "warehouse");

  RunResult dry = Floe("remove-orphans --table db.t --dry-run");
  ASSERT_EQ(dry.rc, 0) << dry.err;
  json d = json::parse(dry.out);
  EXPECT_EQ(d["dry-run"], true);
  EXPECT_EQ(d["orphan-files"].size(), 3u) << dry.out;
  EXPECT_EQ(Tree(dir_ / "warehouse"), before);

  RunResult r = Floe("remove-orphans --table db.t");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["dry-run"], false);
  EXPECT_EQ(j["orphan-files"], d["orphan-files"]);
  EXPECT_FALSE(fs::exists(t / "data/00000-0-killed-00001.parquet"));
  EXPECT_FALSE(fs::exists(t / "data/.00000-0-killed-00002.parquet.999-1f-0.tmp"));
  EXPECT_FALSE(fs::exists(t / "metadata/.v4.metadata.json.999-2e-1.tmp"));
  EXPECT_TRUE(fs::exists(t / "data/00000-0-in-flight-00001.parquet"));
  EXPECT_EQ(Scan(), rows);
  EXPECT_EQ(Tree(dir_ / "warehouse").size(), before.size() - 3);
}

TEST_F(TableSafetyCli, FailedVersionHintUpdateIsAWarningAndTheCommitStands) {
  ASSERT_EQ(Write("{\"id\":1}\n").rc, 0);
  const fs::path hint = dir_ / "warehouse/db/t/metadata/version-hint.text";
  fs::remove(hint);
  fs::create_directories(hint / "in-the-way");
  RunResult r = Write("{\"id\":2}\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("floe: warning: table db.t: version 3 was committed"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("version-hint.text"), std::string::npos) << r.err;
  EXPECT_NE(json::parse(r.out)["snapshot-id"], nullptr);
  const std::string rows = Scan("--format jsonl --columns id");  // both commits, in any order
  EXPECT_TRUE(rows == "{\"id\":1}\n{\"id\":2}\n" || rows == "{\"id\":2}\n{\"id\":1}\n") << rows;
}

TEST_F(TableSafetyCli, BadArgumentsAreUsageErrorsNamingTheFlagAndTheRule) {
  ASSERT_EQ(Write("{\"id\":1}\n").rc, 0);
  RunResult r = Floe("expire --table db.t --older-than -1");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--older-than -1: a time in epoch milliseconds must be 0 or more"),
            std::string::npos)
      << r.err;
  r = Floe("expire --table db.t --retain-last -3");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--retain-last -3: must be 1 or more"), std::string::npos) << r.err;
  r = Floe("remove-orphans --table db.t --older-than -5");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--older-than -5"), std::string::npos) << r.err;

  const auto before = Tree(dir_ / "warehouse");
  for (std::string bad : {".t", "db..t", "db./.t", "../t.x"}) {
    WriteFile(dir_ / "rows.jsonl", "{\"id\":1}\n");
    r = Floe("write --table " + Shell(bad) + " --schema 'id BIGINT' --input rows.jsonl");
    EXPECT_NE(r.rc, 0) << bad;
    EXPECT_NE(r.err.find("'" + bad + "'"), std::string::npos) << r.err;
  }
  EXPECT_EQ(Tree(dir_ / "warehouse"), before);  // no table at the warehouse root
}

TEST_F(TableSafetyCli, EmptyInputCommitsNothingAndPrintsANullSnapshotId) {
  RunResult r = Write("");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["rows"], 0);
  EXPECT_TRUE(j["snapshot-id"].is_null()) << r.out;
  EXPECT_NE(r.out.find("\"snapshot-id\":null"), std::string::npos);
}

}  // namespace table_safety_cli_test
