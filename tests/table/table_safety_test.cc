// Hardening of the table operations that delete or publish files (issue 23,
// round two): purge deletes only inside the table's folders and never another
// table's files; orphan removal and purge skip a table nested in the folder;
// a commit never publishes an added file that is gone; the commit.retry.*
// options of a write are applied.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "floe/catalog/forwarding_catalog.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "floe/table/append_files.h"
#include "floe/table/drop_table.h"
#include "floe/table/orphans.h"
#include "table/table_fixture.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table {
namespace table_safety_test {

namespace fs = std::filesystem;
using testing_util::WarehouseTest;

constexpr int64_t kDay = 24 * 60 * 60 * 1000;

// Every regular file below `dir`, relative to it.
std::set<std::string> FilesUnder(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

class TableSafetyTest : public WarehouseTest {};

// Issue 23 item 1: a commit (as a REST client may send it) points table a at
// table b's manifest list; purging a deleted b's manifests and data files.
// Purge is confined to a's folders, as expire is, and reports the rest.
TEST_F(TableSafetyTest, PurgeDeletesNothingOutsideTheTablesFolders) {
  Table a = Create("a");
  Table b = Create("b");
  ASSERT_OK(SnapshotUpdate(&a).AddDataFile(File(a, "a1.parquet")).Commit());
  ASSERT_OK(SnapshotUpdate(&b).AddDataFile(File(b, "b1.parquet")).Commit());
  ASSERT_OK(SnapshotUpdate(&b).AddDataFile(File(b, "b2.parquet")).Commit());
  const std::set<std::string> b_files = FilesUnder(TableDir(b));

  // a's next snapshot is b's current one: its manifest list, manifests and data files.
  iceberg::TableMetadata next = a.metadata();
  iceberg::Snapshot s = *b.metadata().CurrentSnapshot();
  s.parent_snapshot_id = a.metadata().current_snapshot_id;
  s.sequence_number = next.last_sequence_number + 1;
  s.snapshot_id = 4242;
  ASSERT_OK(iceberg::AddSnapshot(&next, s, iceberg::NowMillis(), "main"));
  ASSERT_OK_AND_ASSIGN(auto committed, catalog_->CommitTable(a.loaded(), std::move(next)));
  a.Reset(std::move(committed));

  ASSERT_OK_AND_ASSIGN(DropResult r, DropTable(catalog_.get(), a.id(), /*purge=*/true));
  EXPECT_EQ(FilesUnder(TableDir(b)), b_files);  // b keeps every file
  // b's manifest list, its two manifests and two data files were refused.
  EXPECT_EQ(r.refused.size(), 5u);
  for (const auto& f : r.refused) EXPECT_NE(f.find("/db/b/"), std::string::npos) << f;
  ASSERT_OK(b.Refresh());
  ASSERT_OK_AND_ASSIGN(auto live, LiveEntries(b, *b.metadata().CurrentSnapshot()));
  EXPECT_EQ(live.size(), 2u);
  EXPECT_FALSE(fs::exists(TableDir(a)));
}

// A table made inside another table's folder by hand (another engine, or
// before floe refused it): moved there with its files. Its metadata is
// recognized by the layout, whatever its catalog.
class NestedTableTest : public WarehouseTest {
 protected:
  void SetUp() override {
    WarehouseTest::SetUp();
    auto other = Open(dir_ / "other");
    ASSERT_OK(other->CreateNamespace(*catalog::ParseNamespace("x"), {}));
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}});
    ASSERT_OK_AND_ASSIGN(auto loaded, other->CreateTable(*catalog::ParseTableIdentifier("x.inner"), def));
    Table inner(other.get(), std::move(loaded));
    ASSERT_OK(SnapshotUpdate(&inner).AddDataFile(File(inner, "i1.parquet")).Commit());
    outer_ = std::make_unique<Table>(Create("t"));
    ASSERT_OK(SnapshotUpdate(outer_.get()).AddDataFile(File(*outer_, "o1.parquet")).Commit());
    nested_ = fs::path(TableDir(*outer_)) / "sub" / "inner";
    fs::create_directories(nested_.parent_path());
    fs::rename(TableDir(inner), nested_);
    nested_files_ = FilesUnder(nested_);
    ASSERT_GE(nested_files_.size(), 4u);  // metadata, hint, list, manifest, data file
    AgeAll(TableDir(*outer_), 10 * kDay);
  }

  std::unique_ptr<Table> outer_;
  fs::path nested_;
  std::set<std::string> nested_files_;
};

// Issue 23 item 2: remove-orphans --table ns.t deleted the inner tables' files.
TEST_F(NestedTableTest, OrphanRemovalSkipsANestedTablesFolder) {
  OrphanOptions o;
  o.older_than_ms = iceberg::NowMillis();
  ASSERT_OK_AND_ASSIGN(OrphanResult r, RemoveOrphanFiles(outer_.get(), o));
  EXPECT_TRUE(r.orphan_files.empty()) << r.orphan_files.front();
  EXPECT_EQ(FilesUnder(nested_), nested_files_);
  ASSERT_EQ(r.skipped_table_folders.size(), 1u);
  EXPECT_EQ(r.skipped_table_folders[0], outer_->metadata().location + "/sub/inner");
}

// Issue 23 item 2: drop-table (and purge) of ns.t removed the inner tables.
TEST_F(NestedTableTest, DropAndPurgeKeepANestedTable) {
  ASSERT_OK_AND_ASSIGN(DropResult r, DropTable(catalog_.get(), outer_->id(), /*purge=*/true));
  EXPECT_EQ(FilesUnder(nested_), nested_files_);
  EXPECT_TRUE(r.not_deleted.empty());
  // The outer table's own files are gone: only the nested table's remain.
  EXPECT_EQ(FilesUnder(TableDir(*outer_)).size(), nested_files_.size());
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->TableExists(outer_->id()));
  EXPECT_FALSE(exists);
}

// Issue 23 item 4: an orphan removal with a short window deleted the data
// file and the manifests of a commit in flight; the commit published them
// anyway and the table became unreadable. Now the commit fails cleanly.
TEST_F(TableSafetyTest, ACommitWhoseAddedFilesAreGoneFailsAndPublishesNothing) {
  Table t = Create("c");
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit());
  const std::string before = t.loaded().metadata_location;
  const std::set<std::string> files_before = FilesUnder(TableDir(t));

  // The data file is gone before the commit starts.
  iceberg::DataFile gone = File(t, "gone.parquet");
  fs::remove(*t.LocalPath(gone.file_path));
  auto c1 = SnapshotUpdate(&t).AddDataFile(gone).Commit();
  ASSERT_FALSE(c1.has_value());
  EXPECT_EQ(c1.error().kind, ErrorKind::kCommitFailed);
  EXPECT_FALSE(c1.error().retryable);
  EXPECT_NE(c1.error().message.find("data file " + gone.file_path + " does not exist"), std::string::npos)
      << c1.error().message;

  // The commit's own manifest is removed while it is in flight (after it
  // was written, before the swap): as remove-orphans --older-than now would.
  int attempts = 0;
  auto c2 = AppendFiles(&t)
                .AddDataFile(File(t, "b.parquet"))
                .Check([&](const SnapshotAttempt&) -> Status {
                  ++attempts;
                  for (const auto& e : fs::directory_iterator(TableDir(t) + "/metadata")) {
                    if (e.path().filename().string().ends_with("-m0.avro") &&
                        !files_before.contains("metadata/" + e.path().filename().string())) {
                      fs::remove(e.path());
                    }
                  }
                  return Ok();
                })
                .Commit();
  ASSERT_FALSE(c2.has_value());
  EXPECT_EQ(c2.error().kind, ErrorKind::kCommitFailed);
  EXPECT_NE(c2.error().message.find("manifest"), std::string::npos) << c2.error().message;
  EXPECT_EQ(attempts, 1);  // not retried
  ASSERT_OK(t.Refresh());
  EXPECT_EQ(t.loaded().metadata_location, before);  // nothing published
  // Nothing of either commit is left in metadata/ (the attempt's list removed).
  std::set<std::string> metadata_now;
  for (const auto& f : FilesUnder(TableDir(t))) {
    if (f.starts_with("metadata/")) metadata_now.insert(f);
  }
  std::set<std::string> metadata_before;
  for (const auto& f : files_before) {
    if (f.starts_with("metadata/")) metadata_before.insert(f);
  }
  EXPECT_EQ(metadata_now, metadata_before);
  ASSERT_OK_AND_ASSIGN(auto live, LiveEntries(t, *t.metadata().CurrentSnapshot()));
  EXPECT_EQ(live.size(), 1u);
}

// A catalog whose first `losses` commits lose the race (kCommitFailed).
class LosingCatalog : public catalog::ForwardingCatalog {
 public:
  LosingCatalog(catalog::Catalog* inner, int losses) : ForwardingCatalog(inner), losses_(losses) {}
  Result<catalog::LoadedTable> CommitTable(const catalog::LoadedTable& base, iceberg::TableMetadata updated) override {
    ++calls_;
    if (losses_-- > 0) return CommitFailed("another writer changed the table (test)");
    return ForwardingCatalog::CommitTable(base, std::move(updated));
  }
  int calls() const { return calls_; }

 private:
  int losses_;
  int calls_ = 0;
};

// Issue 23 item 5: --set commit.retry.num-retries=20 on a write was accepted
// and not applied (commits gave up after 5 attempts). The job's options now
// override the table's properties for its commits.
TEST_F(TableSafetyTest, CommitRetryOptionsOfAWriteAreApplied) {
  Table created = Create("r", {{"commit.retry.min-wait-ms", "0"}, {"commit.retry.max-wait-ms", "0"}});
  {
    LosingCatalog losing(catalog_.get(), 10);
    Table t(&losing, created.loaded());
    auto c = SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit();
    ASSERT_FALSE(c.has_value());  // the table's default: 4 retries
    EXPECT_EQ(losing.calls(), 5);
  }
  {
    LosingCatalog losing(catalog_.get(), 10);
    Table t(&losing, created.loaded());
    t.SetOptionOverrides({{"commit.retry.num-retries", "20"}});
    ASSERT_OK_AND_ASSIGN(CommitResult c, SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet")).Commit());
    EXPECT_EQ(c.attempts, 11);
    EXPECT_EQ(losing.calls(), 11);
  }
  {
    // The override wins over the table's property, and a bad value is named.
    LosingCatalog losing(catalog_.get(), 10);
    Table t(&losing, created.loaded());
    t.SetOptionOverrides({{"commit.retry.num-retries", "2"}});
    EXPECT_FALSE(SnapshotUpdate(&t).AddDataFile(File(t, "c.parquet")).Commit().has_value());
    EXPECT_EQ(losing.calls(), 3);
    t.SetOptionOverrides({{"commit.retry.max-wait-ms", "-1"}});
    auto bad = SnapshotUpdate(&t).AddDataFile(File(t, "d.parquet")).Commit();
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("commit.retry.max-wait-ms"), std::string::npos) << bad.error().message;
  }
}

}  // namespace table_safety_test
}  // namespace floe::table
