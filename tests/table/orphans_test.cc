// Orphan file removal (Iceberg's DeleteOrphanFiles): debris as a killed
// write or a killed expire leaves it (old modification times set with
// lutimes), files any snapshot, branch, tag or metadata file references,
// the age window, dry runs, hidden files, and copied table folders.

#include "floe/table/orphans.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "table/table_fixture.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table {
namespace orphans_test {

namespace fs = std::filesystem;
using testing_util::WarehouseTest;

constexpr int64_t kDay = 24 * 60 * 60 * 1000;

// Every file under `dir`, hidden ones too, as paths relative to it.
std::set<std::string> FilesUnder(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

class OrphansTest : public WarehouseTest {
 protected:
  // A table with history: two snapshots on main (the first overwritten), a
  // branch and a tag, and a snapshot whose expiry was killed after its
  // metadata commit (its files are left, no snapshot names them). Then the
  // debris of killed writes: an unreferenced data file, hidden temporaries
  // in data/ and metadata/, and a file in a partition-like folder.
  Table MakeTableWithDebris() {
    Table t = Create("o");
    auto c1 = SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit();
    EXPECT_TRUE(c1) << c1.error().ToString();
    EXPECT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet")).OverwriteAll().Commit());
    EXPECT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "dev.parquet")).ToBranch("dev").Commit());
    EXPECT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "c.parquet")).Commit());
    EXPECT_OK(SetRef(&t, "v1", /*is_tag=*/true));
    // The killed expire: c1 leaves the metadata, its files stay on disk.
    killed_expire_list_ = *t.LocalPath(t.metadata().SnapshotById(c1->snapshot_id)->manifest_list);
    auto next = iceberg::RemoveSnapshots(t.metadata(), {c1->snapshot_id});
    EXPECT_TRUE(next) << next.error().ToString();
    auto committed = catalog_->CommitTable(t.loaded(), std::move(*next));
    EXPECT_TRUE(committed) << committed.error().ToString();
    t.Reset(std::move(*committed));

    const std::string dir = TableDir(t);
    for (std::string debris :
         {"data/killed.parquet", "data/.00000-0-x.parquet.4242-9f3a1c-0.tmp",
          "metadata/.v9.metadata.json.4242-77ab-3.tmp", "data/id=7/deep.parquet"}) {
      FileAt(dir + "/" + debris);
    }
    return t;
  }

  // The files the debris and the killed expire left, relative to the table.
  std::set<std::string> ExpectedOrphans(const Table& t) {
    std::set<std::string> out = {"data/killed.parquet", "data/.00000-0-x.parquet.4242-9f3a1c-0.tmp",
                                 "metadata/.v9.metadata.json.4242-77ab-3.tmp",
                                 "data/id=7/deep.parquet", "data/a.parquet"};
    out.insert(fs::relative(killed_expire_list_, TableDir(t)).string());
    return out;
  }

  std::set<std::string> Relative(const Table& t, const std::vector<std::string>& uris) {
    std::set<std::string> out;
    for (const auto& u : uris) out.insert(fs::relative(*t.LocalPath(u), TableDir(t)).string());
    return out;
  }

  std::string killed_expire_list_;
};

TEST_F(OrphansTest, RemovesOldDebrisAndNothingAnySnapshotRefOrMetadataFileNeeds) {
  Table t = MakeTableWithDebris();
  const fs::path dir = TableDir(t);
  AgeAll(dir, 4 * kDay);
  auto reachable = ReachableFiles(t);
  ASSERT_TRUE(reachable) << reachable.error().ToString();
  const std::set<std::string> before = FilesUnder(dir);

  auto r = RemoveOrphanFiles(&t, {});
  ASSERT_TRUE(r) << r.error().ToString();
  std::set<std::string> orphans = Relative(t, r->orphan_files);
  // The killed expire's manifest list names one manifest: an orphan too.
  std::set<std::string> want = ExpectedOrphans(t);
  for (const auto& o : orphans) {
    if (!want.contains(o) && o.starts_with("metadata/") && o.ends_with(".avro")) want.insert(o);
  }
  EXPECT_EQ(orphans, want);
  EXPECT_EQ(want.size(), ExpectedOrphans(t).size() + 1);  // that one manifest, nothing else

  for (const auto& o : orphans) EXPECT_FALSE(fs::exists(dir / o)) << o;
  for (const auto& f : *reachable) EXPECT_TRUE(fs::exists(f)) << f;
  for (const auto& f : before) {
    if (!orphans.contains(f)) EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  EXPECT_TRUE(fs::exists(dir / "metadata/version-hint.text"));
  // The table still reads on every ref.
  for (const char* ref : {"main", "dev", "v1"}) {
    auto s = t.metadata().SnapshotByRef(ref);
    ASSERT_OK(s);
    auto live = LiveEntries(t, **s);
    EXPECT_TRUE(live) << ref << ": " << live.error().ToString();
  }
  // A second run finds nothing.
  auto again = RemoveOrphanFiles(&t, {});
  ASSERT_OK(again);
  EXPECT_TRUE(again->orphan_files.empty());
}

TEST_F(OrphansTest, DryRunTouchesNothing) {
  Table t = MakeTableWithDebris();
  const fs::path dir = TableDir(t);
  AgeAll(dir, 4 * kDay);
  const std::set<std::string> before = FilesUnder(dir);
  OrphanOptions o;
  o.dry_run = true;
  auto r = RemoveOrphanFiles(&t, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->orphan_files.size(), ExpectedOrphans(t).size() + 1);
  EXPECT_EQ(FilesUnder(dir), before);
}

TEST_F(OrphansTest, FilesYoungerThanTheWindowAreKept) {
  Table t = MakeTableWithDebris();
  const fs::path dir = TableDir(t);
  AgeAll(dir, 4 * kDay);
  // A write in flight: its data file and temporary are a day old at most.
  FileAt((dir / "data/in-flight.parquet").string());
  FileAt((dir / "data/.in-flight.parquet.55-1-2.tmp").string());
  Age(dir / "data/in-flight.parquet", 2 * kDay);
  auto r = RemoveOrphanFiles(&t, {});  // default window: 3 days
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(fs::exists(dir / "data/in-flight.parquet"));
  EXPECT_TRUE(fs::exists(dir / "data/.in-flight.parquet.55-1-2.tmp"));
  EXPECT_FALSE(fs::exists(dir / "data/killed.parquet"));
  EXPECT_EQ(r->older_than_ms <= iceberg::NowMillis() - 3 * kDay, true);

  // An explicit window: files older than one day go.
  OrphanOptions o;
  o.older_than_ms = iceberg::NowMillis() - kDay;
  r = RemoveOrphanFiles(&t, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(Relative(t, r->orphan_files), std::set<std::string>{"data/in-flight.parquet"});
  EXPECT_TRUE(fs::exists(dir / "data/.in-flight.parquet.55-1-2.tmp"));
}

TEST_F(OrphansTest, HiddenFilesOtherThanWriterTemporariesAreLeftAlone) {
  Table t = Create("h");
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit());
  const fs::path dir = TableDir(t);
  for (std::string f :
       {".keep", "data/.hidden", ".git/objects/x", "data/_SUCCESS", "data/.x.tmp", "data/.tmp"}) {
    FileAt((dir / f).string());
  }
  AgeAll(dir, 4 * kDay);
  auto r = RemoveOrphanFiles(&t, {});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->orphan_files.empty()) << r->orphan_files[0];
}

TEST_F(OrphansTest, SymbolicLinksAreNeverRemoved) {
  // A table whose data folder is a link to another disk: the link is named
  // by no manifest, but removing it would break the table.
  fs::create_directories(dir_ / "bigdisk");
  fs::create_directories(dir_ / "wh/db/l");
  fs::create_directory_symlink(dir_ / "bigdisk", dir_ / "wh/db/l/data");
  Table t = Create("l");
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit());
  fs::create_symlink(dir_ / "bigdisk/a.parquet", dir_ / "wh/db/l/stray-link");
  FileAt((dir_ / "bigdisk/unreferenced.parquet").string());
  AgeAll(dir_, 4 * kDay);
  Age(dir_ / "wh/db/l/data", 4 * kDay);  // AgeAll took it for a folder
  auto r = RemoveOrphanFiles(&t, {});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->orphan_files.empty()) << r->orphan_files[0];
  EXPECT_TRUE(fs::is_symlink(dir_ / "wh/db/l/data"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "wh/db/l/stray-link"));
  EXPECT_TRUE(fs::exists(dir_ / "bigdisk/unreferenced.parquet"));  // not under the table location
}

TEST_F(OrphansTest, ACommitThisHandleHasNotSeenIsHonoured) {
  Table t = Create("c");
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).Commit());
  Table stale(catalog_.get(), t.loaded());
  // Another writer commits a file written long ago.
  ASSERT_OK(SnapshotUpdate(&t).AddDataFile(File(t, "late.parquet")).Commit());
  AgeAll(TableDir(t), 4 * kDay);
  auto r = RemoveOrphanFiles(&stale, {});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->orphan_files.empty()) << r->orphan_files[0];
  EXPECT_TRUE(fs::exists(TableDir(t) + "/data/late.parquet"));
}

TEST_F(OrphansTest, CopiedTableFolderIsRefused) {
  Table t = MakeTableWithDebris();
  AgeAll(dir_ / "wh", 4 * kDay);
  fs::copy(dir_ / "wh", dir_ / "copy", fs::copy_options::recursive);
  auto copy_catalog = Open(dir_ / "copy");
  Table copy(copy_catalog.get(), *copy_catalog->LoadTable(t.id()));
  const std::set<std::string> before = FilesUnder(dir_ / "copy");
  for (bool dry_run : {true, false}) {
    OrphanOptions o;
    o.dry_run = dry_run;
    auto r = RemoveOrphanFiles(&copy, o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("copied"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(FilesUnder(dir_ / "copy"), before);
}

TEST(IsLocalOutputTempName, MatchesWhatOpenLocalOutputLeavesBehind) {
  fs::path dir = test::FreshTestDir("floe_tmpname_");
  {
    auto out = OpenLocalOutput((dir / "00000-1-abc.parquet").string());
    ASSERT_OK(out);
    ASSERT_OK((*out)->Write("x", 1));
    auto names = FilesUnder(dir);  // the temporary a kill -9 would leave
    ASSERT_EQ(names.size(), 1u);
    EXPECT_TRUE(IsLocalOutputTempName(*names.begin())) << *names.begin();
  }
  fs::remove_all(dir);
  for (std::string not_temp :
       {".keep", "x.tmp", ".x.tmp", ".tmp", "..1-2-3.tmp", ".a.b.tmp", ".a.1-zz-3.tmp",
        "a.parquet.1-2-3.tmp", ".a.1-2.tmp", ".a.-2-3.tmp"}) {
    EXPECT_FALSE(IsLocalOutputTempName(not_temp)) << not_temp;
  }
  EXPECT_TRUE(IsLocalOutputTempName(".v3.metadata.json.12-0-0.tmp"));
  EXPECT_TRUE(IsLocalOutputTempName(".version-hint.text.7-ffffffff-1a.tmp"));
}

}  // namespace orphans_test
}  // namespace floe::table
