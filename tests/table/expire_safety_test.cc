// `floe expire` deletes only inside the table (floe issue 7, section 5 C):
// a tampered manifest that names a file elsewhere must not make expiry
// delete it, and a copied table folder is not expired at all.

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/table/table.h"
#include "table/table_fixture.h"
#include "testing/matchers.h"

namespace floe::table {
namespace expire_safety_test {

namespace fs = std::filesystem;
using testing_util::WarehouseTest;

class ExpireSafetyTest : public WarehouseTest {
 protected:
  // Commits `outside` (a tampered manifest naming it), replaces it with an
  // in-table file, and expires the first snapshot: the one that named it.
  Result<ExpireResult> ExpireSnapshotNaming(Table* t, const iceberg::DataFile& outside,
                                            bool dry_run) {
    auto c1 = SnapshotUpdate(t).AddDataFile(File(*t, "a.parquet")).AddDataFile(outside).Commit();
    EXPECT_TRUE(c1) << c1.error().ToString();
    auto c2 = SnapshotUpdate(t).AddDataFile(File(*t, "b.parquet")).OverwriteAll().Commit();
    EXPECT_TRUE(c2) << c2.error().ToString();
    ExpireOptions o;
    o.snapshot_ids = {c1->snapshot_id};
    o.dry_run = dry_run;
    return ExpireSnapshots(t, o);
  }
};

TEST_F(ExpireSafetyTest, FileOutsideTheTableIsRefusedNotDeleted) {
  Table t = Create("e");
  fs::path victim = dir_ / "unrelated" / "precious.txt";
  auto r = ExpireSnapshotNaming(&t, FileAt(victim.string()), /*dry_run=*/false);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(fs::exists(victim));
  ASSERT_EQ(r->refused_files.size(), 1u);
  EXPECT_EQ(r->refused_files[0], FileUri(victim.string()));
  for (const auto& f : r->deleted_files) EXPECT_EQ(f.find("precious"), std::string::npos) << f;
  // What is inside the table still goes.
  EXPECT_FALSE(fs::exists(TableDir(t) + "/data/a.parquet"));
  EXPECT_TRUE(fs::exists(TableDir(t) + "/data/b.parquet"));
}

TEST_F(ExpireSafetyTest, DryRunReportsTheRefusalToo) {
  Table t = Create("e");
  fs::path victim = dir_ / "precious.txt";
  auto r = ExpireSnapshotNaming(&t, FileAt(victim.string()), /*dry_run=*/true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->refused_files, std::vector<std::string>{FileUri(victim.string())});
  EXPECT_TRUE(fs::exists(victim));
  EXPECT_TRUE(fs::exists(TableDir(t) + "/data/a.parquet"));
}

TEST_F(ExpireSafetyTest, DotDotPathsAndSiblingPrefixesAreOutside) {
  Table t = Create("e");
  Table sibling = Create("e2");  // "<wh>/db/e2" starts with "<wh>/db/e"
  fs::path in_sibling = TableDir(sibling) + "/data/s.parquet";
  fs::path escaped = dir_ / "escaped.txt";
  FileAt(escaped.string());
  iceberg::DataFile dotdot = FileAt(in_sibling.string());
  auto c1 = SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).AddDataFile(dotdot).Commit();
  ASSERT_OK(c1);
  // A second tampered entry climbs out of the data folder.
  iceberg::DataFile climb;
  climb.file_path = FileUri(TableDir(t) + "/data/../../../../escaped.txt");
  climb.record_count = 1;
  climb.file_size_in_bytes = 1;
  auto c2 = SnapshotUpdate(&t).AddDataFile(climb).Commit();
  ASSERT_OK(c2);
  auto c3 = SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet")).OverwriteAll().Commit();
  ASSERT_OK(c3);
  ExpireOptions o;
  o.snapshot_ids = {c1->snapshot_id, c2->snapshot_id};
  auto r = ExpireSnapshots(&t, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(fs::exists(in_sibling));
  EXPECT_TRUE(fs::exists(escaped));
  EXPECT_EQ(r->refused_files.size(), 2u);
  EXPECT_FALSE(fs::exists(TableDir(t) + "/data/a.parquet"));
}

TEST_F(ExpireSafetyTest, SymlinkedFolderInsideTheTableLeadsOutside) {
  Table t = Create("e");
  fs::create_directories(dir_ / "elsewhere");
  fs::create_directories(TableDir(t) + "/data");
  fs::create_directory_symlink(dir_ / "elsewhere", TableDir(t) + "/data/link");
  fs::path victim = dir_ / "elsewhere" / "precious.txt";
  FileAt(victim.string());
  iceberg::DataFile through_link;
  through_link.file_path = FileUri(TableDir(t) + "/data/link/precious.txt");
  through_link.record_count = 1;
  through_link.file_size_in_bytes = 1;
  auto r = ExpireSnapshotNaming(&t, through_link, /*dry_run=*/false);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(fs::exists(victim));
  EXPECT_EQ(r->refused_files.size(), 1u);
}

TEST_F(ExpireSafetyTest, WriteDataPathCountsAsInsideTheTable) {
  fs::path data_dir = dir_ / "data-elsewhere";
  Table t = Create("e", {{"write.data.path", FileUri(data_dir.string())}});
  auto r = ExpireSnapshotNaming(&t, FileAt((data_dir / "x.parquet").string()), /*dry_run=*/false);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->refused_files.empty());
  EXPECT_FALSE(fs::exists(data_dir / "x.parquet"));
}

TEST_F(ExpireSafetyTest, CopiedTableFolderIsNotExpired) {
  Table t = Create("e");
  auto c1 = SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit();
  ASSERT_OK(c1);
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet")).OverwriteAll().Commit());
  fs::copy(dir_ / "wh", dir_ / "copy", fs::copy_options::recursive);
  auto copy_catalog = Open(dir_ / "copy");
  Table copy(copy_catalog.get(), *copy_catalog->LoadTable(t.id()));
  for (bool dry_run : {true, false}) {
    ExpireOptions o;
    o.snapshot_ids = {c1->snapshot_id};
    o.dry_run = dry_run;
    auto r = ExpireSnapshots(&copy, o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("copied"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(fs::exists(TableDir(t) + "/data/a.parquet"));  // the original's file
  EXPECT_EQ(copy.metadata().snapshots.size(), 2u);
}

}  // namespace expire_safety_test
}  // namespace floe::table
