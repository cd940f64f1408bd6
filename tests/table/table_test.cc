#include "floe/table/table.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/race.h"

namespace floe::table {
namespace table_test {

namespace fs = std::filesystem;
using iceberg::DataFile;

class TableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_table_test_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  // A table partitioned by identity(region).
  Table Create(const std::string& name, bool partitioned, std::map<std::string, std::string> props = {}) {
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "region", false, StringType(), {}}});
    if (partitioned) {
      iceberg::PartitionSpecBuilder b(def.schema);
      b.Identity("region");
      def.spec = *b.Build();
    }
    def.properties = std::move(props);
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_TRUE(t) << t.error().ToString();
    return Table(catalog_.get(), std::move(*t));
  }

  // A data file that exists on disk (its content does not matter here).
  DataFile File(const Table& t, const std::string& name, int64_t rows, std::optional<std::string> region) {
    DataFile f;
    std::string local = *t.LocalPath(t.metadata().location) + "/data/" + name;
    fs::create_directories(fs::path(local).parent_path());
    EXPECT_OK(WriteLocalFile(local, "x"));
    f.file_path = FileUri(local);
    f.record_count = rows;
    f.file_size_in_bytes = 100 + rows;
    if (!t.metadata().DefaultSpec()->is_unpartitioned()) {
      f.partition.push_back(region ? iceberg::Value::String(*region) : iceberg::Value::Null());
    }
    return f;
  }

  std::set<std::string> LivePaths(const Table& t, const iceberg::Snapshot& s) {
    std::set<std::string> out;
    auto entries = LiveEntries(t, s);
    EXPECT_TRUE(entries) << entries.error().ToString();
    for (const auto& e : *entries) EXPECT_TRUE(out.insert(fs::path(e.data_file.file_path).filename().string()).second);
    return out;
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

TEST_F(TableTest, AppendsBuildSnapshotsWithInheritedSequenceNumbers) {
  Table t = Create("a", false);
  auto c1 = SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet", 10, {})).Set("floe.sink-id", "s1").Commit();
  ASSERT_TRUE(c1) << c1.error().ToString();
  EXPECT_EQ(c1->operation, "append");
  EXPECT_EQ(c1->sequence_number, 1);
  auto c2 = SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet", 5, {})).AddDataFile(File(t, "c.parquet", 1, {})).Commit();
  ASSERT_OK(c2);
  const auto& md = t.metadata();
  ASSERT_EQ(md.snapshots.size(), 2u);
  EXPECT_EQ(md.last_sequence_number, 2);
  EXPECT_EQ(*md.current_snapshot_id, c2->snapshot_id);
  EXPECT_EQ(md.refs.at("main").snapshot_id, c2->snapshot_id);
  EXPECT_EQ(md.snapshots[1].parent_snapshot_id, c1->snapshot_id);
  EXPECT_EQ(md.snapshots[0].summary.at("floe.sink-id"), "s1");
  EXPECT_EQ(md.snapshots[1].summary.at("total-records"), "16");
  EXPECT_EQ(md.snapshots[1].summary.at("total-data-files"), "3");
  EXPECT_EQ(md.snapshots[1].summary.at("added-records"), "6");
  auto entries = *LiveEntries(t, md.snapshots[1]);
  ASSERT_EQ(entries.size(), 3u);
  for (const auto& e : entries) {
    int64_t want = e.data_file.file_path.ends_with("a.parquet") ? 1 : 2;
    EXPECT_EQ(e.sequence_number, want) << e.data_file.file_path;
    EXPECT_EQ(e.snapshot_id, want == 1 ? c1->snapshot_id : c2->snapshot_id);
  }
  EXPECT_EQ(LivePaths(t, md.snapshots[0]), (std::set<std::string>{"a.parquet"}));
}

TEST_F(TableTest, OverwriteReplacesOnlyTouchedPartitions) {
  Table t = Create("p", true);
  ASSERT_OK(SnapshotUpdate(&t)
                .AddDataFile(File(t, "eu1.parquet", 3, "eu"))
                .AddDataFile(File(t, "us1.parquet", 4, "us"))
                .AddDataFile(File(t, "null1.parquet", 1, std::nullopt))
                .Commit());
  auto c = SnapshotUpdate(&t).AddDataFile(File(t, "eu2.parquet", 7, "eu")).OverwritePartitions().Commit();
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->operation, "overwrite");
  EXPECT_EQ(c->summary.at("deleted-data-files"), "1");
  EXPECT_EQ(c->summary.at("deleted-records"), "3");
  EXPECT_EQ(c->summary.at("total-records"), "12");
  EXPECT_EQ(LivePaths(t, *t.metadata().CurrentSnapshot()),
            (std::set<std::string>{"eu2.parquet", "us1.parquet", "null1.parquet"}));
  // A null partition value is a partition too.
  ASSERT_OK(SnapshotUpdate(&t)
                .AddDataFile(File(t, "null2.parquet", 2, std::nullopt))
                .OverwritePartitions()
                .Commit());
  EXPECT_EQ(LivePaths(t, *t.metadata().CurrentSnapshot()),
            (std::set<std::string>{"eu2.parquet", "us1.parquet", "null2.parquet"}));
  // Unpartitioned tables are overwritten whole.
  Table u = Create("u", false);
  ASSERT_OK(SnapshotUpdate(&u).AddDataFile(File(u, "x.parquet", 3, {})).Commit());
  ASSERT_OK(
      SnapshotUpdate(&u).AddDataFile(File(u, "y.parquet", 3, {})).OverwritePartitions().Commit());
  EXPECT_EQ(LivePaths(u, *u.metadata().CurrentSnapshot()), (std::set<std::string>{"y.parquet"}));
}

TEST_F(TableTest, BranchesAndTags) {
  Table t = Create("b", false);
  auto c1 = *SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet", 1, {})).Commit();
  ASSERT_OK(SetRef(&t, "v1", /*is_tag=*/true));
  auto dev = SnapshotUpdate(&t).AddDataFile(File(t, "dev.parquet", 1, {})).ToBranch("dev").Commit();
  ASSERT_TRUE(dev) << dev.error().ToString();
  const auto& md = t.metadata();
  EXPECT_EQ(*md.current_snapshot_id, c1.snapshot_id);  // main unchanged
  EXPECT_EQ(md.refs.at("dev").snapshot_id, dev->snapshot_id);
  EXPECT_EQ(md.refs.at("v1").snapshot_id, c1.snapshot_id);
  EXPECT_EQ(LivePaths(t, **md.SnapshotByRef("dev")), (std::set<std::string>{"a.parquet", "dev.parquet"}));
  EXPECT_FALSE(SetRef(&t, "v1", /*is_tag=*/false));  // a tag stays a tag
  auto bad = SnapshotUpdate(&t).AddDataFile(File(t, "z.parquet", 1, {})).ToBranch("v1").Commit();
  EXPECT_FALSE(bad);
}

TEST_F(TableTest, ExpireDeletesOnlyUnreferencedFiles) {
  Table t = Create("e", false);
  auto c1 = *SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet", 1, {})).Commit();
  auto c2 = *SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet", 1, {})).OverwriteAll().Commit();
  auto c3 = *SnapshotUpdate(&t).AddDataFile(File(t, "c.parquet", 1, {})).Commit();
  std::string data = *t.LocalPath(t.metadata().location) + "/data/";
  ExpireOptions dry;
  dry.older_than_ms = iceberg::NowMillis() + 1000;
  dry.retain_last = 1;
  dry.dry_run = true;
  auto r = ExpireSnapshots(&t, dry);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 2u);
  EXPECT_TRUE(fs::exists(data + "a.parquet"));
  ExpireOptions o = dry;
  o.dry_run = false;
  r = ExpireSnapshots(&t, o);
  ASSERT_OK(r);
  EXPECT_EQ(t.metadata().snapshots.size(), 1u);
  EXPECT_EQ(t.metadata().snapshots[0].snapshot_id, c3.snapshot_id);
  EXPECT_FALSE(fs::exists(data + "a.parquet"));  // only c1 had it
  EXPECT_TRUE(fs::exists(data + "b.parquet"));   // still live in c3
  EXPECT_TRUE(fs::exists(data + "c.parquet"));
  for (const auto& f : r->deleted_files) EXPECT_EQ(f.find("b.parquet"), std::string::npos) << f;
  EXPECT_EQ(LivePaths(t, *t.metadata().CurrentSnapshot()), (std::set<std::string>{"b.parquet", "c.parquet"}));
  (void)c1;
  (void)c2;
}

TEST_F(TableTest, LostRaceWithoutRetriesLeavesNoDebris) {
  Table t = Create("r", false, {{"commit.retry.num-retries", "0"}});
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet", 1, {})).Commit());
  Table stale(catalog_.get(), t.loaded());
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet", 1, {})).Commit());
  std::string meta = *t.LocalPath(t.metadata().location) + "/metadata";
  size_t before = std::distance(fs::directory_iterator(meta), fs::directory_iterator());
  // `stale` still sees version 2; with no retries its commit must fail and clean up.
  // (Refresh happens only on retries.)
  auto c = SnapshotUpdate(&stale).AddDataFile(File(t, "c.parquet", 1, {})).Commit();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().kind, ErrorKind::kCommitFailed);
  size_t after = std::distance(fs::directory_iterator(meta), fs::directory_iterator());
  EXPECT_EQ(before, after);
}

TEST_F(TableTest, TwoProcessesAppendConcurrently) {
  Table t = Create("race", false, {{"commit.retry.num-retries", "100000"}, {"commit.retry.min-wait-ms", "0"},
                                   {"commit.retry.max-wait-ms", "5"}});
  const int kCommits = 200;
  auto child = [&](int who) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto cat, catalog::OpenHadoopCatalog("c", dir_.string()));
    FLOE_ASSIGN_OR_RETURN(auto loaded, cat->LoadTable(t.id()));
    Table mine(cat.get(), std::move(loaded));
    for (int i = 0; i < kCommits; ++i) {
      FLOE_RETURN_IF_ERROR(SnapshotUpdate(&mine)
                               .AddDataFile(File(mine, fmt::format("{}-{}.parquet", who, i), 1, {}))
                               .Commit());
    }
    return Ok();
  };
  ASSERT_TRUE(test::RaceTwoProcesses(child));
  ASSERT_OK(t.Refresh());
  EXPECT_EQ(t.metadata().snapshots.size(), static_cast<size_t>(2 * kCommits));
  EXPECT_EQ(t.metadata().last_sequence_number, 2 * kCommits);
  EXPECT_EQ(LivePaths(t, *t.metadata().CurrentSnapshot()).size(), static_cast<size_t>(2 * kCommits));
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("total-records"), std::to_string(2 * kCommits));
  for (int v = 1; v <= 2 * kCommits + 1; ++v) {
    EXPECT_TRUE(fs::exists(dir_ / fmt::format("db/race/metadata/v{}.metadata.json", v))) << v;
  }
}

}  // namespace table_test
}  // namespace floe::table
