// The table layer through a fault-injecting FileIO (floe issue 7, section 3):
// a write or commit that fails at any file operation leaves no debris, and
// the files of a commit known to have failed are removed. The catalog's
// FileIO is replaced by the injector, so the table, its writers and the
// hadoop catalog's metadata publication all go through it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "floe/config/options.h"
#include "floe/io/fault_file_io.h"
#include "floe/table/data_writer.h"
#include "floe/table/orphans.h"
#include "floe/table/table.h"
#include "table/table_fixture.h"

namespace floe::table {
namespace fileio_fault_test {

namespace fs = std::filesystem;
using io::FaultOp;
using testing_util::WarehouseTest;

class FileIOFaultTest : public WarehouseTest {
 protected:
  void SetUp() override {
    WarehouseTest::SetUp();
    faulty_ = std::make_shared<io::FaultInjectingFileIO>(catalog_->io());
    catalog_->SetFileIO(faulty_);
  }

  // Every path below `root` (folders end in '/'): two equal trees hold the
  // same entries.
  static std::set<std::string> Tree(const fs::path& root) {
    std::set<std::string> out;
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      std::string rel = fs::relative(e.path(), root).string();
      out.insert(e.is_directory() ? rel + "/" : rel);
    }
    return out;
  }

  // A table with one committed snapshot (so that later commits have a parent).
  Table Committed(const std::string& name) {
    Table t = Create(name);
    EXPECT_EQ(t.io(), catalog_->io());  // the table reaches its files through the catalog's FileIO
    auto c = SnapshotUpdate(&t).AddDataFile(File(t, "first.parquet")).Commit();
    EXPECT_TRUE(c) << c.error().ToString();
    return t;
  }

  // Asserts that a failed commit left the table as it was: same files under
  // its folder (but `extra`, the data files the test itself made), same
  // metadata version and snapshots.
  void ExpectUnchanged(Table* t, const std::set<std::string>& before, const std::string& extra,
                       size_t snapshots) {
    std::set<std::string> after = Tree(TableDir(*t));
    after.erase(extra);
    EXPECT_EQ(after, before);
    ASSERT_TRUE(t->Refresh());
    EXPECT_EQ(t->metadata().snapshots.size(), snapshots);
  }

  std::shared_ptr<io::FaultInjectingFileIO> faulty_;
};

TEST_F(FileIOFaultTest, FailedManifestListRenameRemovesTheAddedManifest) {
  Table t = Committed("a");
  const std::set<std::string> before = Tree(TableDir(t));
  iceberg::DataFile added = File(t, "second.parquet");
  faulty_->FailNth(FaultOp::kRename, 1, "/snap-");
  auto c = SnapshotUpdate(&t).AddDataFile(added).Commit();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().kind, ErrorKind::kIo) << c.error().ToString();
  EXPECT_THAT(c.error().message, testing::HasSubstr("injected fault"));
  ASSERT_EQ(faulty_->Fired().size(), 1u);
  ExpectUnchanged(&t, before, "data/second.parquet", 1);
}

TEST_F(FileIOFaultTest, FailedMetadataPublicationRemovesManifestsAndList) {
  Table t = Committed("m");
  const std::set<std::string> before = Tree(TableDir(t));
  faulty_->FailNth(FaultOp::kRename, 1, ".metadata.json");
  auto c = SnapshotUpdate(&t).AddDataFile(File(t, "second.parquet")).Commit();
  ASSERT_FALSE(c);
  // Nothing was published: a failure known as such (not kCommitStateUnknown),
  // so the manifest and the manifest list this commit wrote are gone again.
  EXPECT_EQ(c.error().kind, ErrorKind::kIo) << c.error().ToString();
  EXPECT_THAT(faulty_->Fired(), testing::ElementsAre(testing::HasSubstr("v3.metadata.json")));
  ExpectUnchanged(&t, before, "data/second.parquet", 1);
  // The next commit works and lands as v3.
  auto again = SnapshotUpdate(&t).AddDataFile(File(t, "third.parquet")).Commit();
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_THAT(again->metadata_location, testing::EndsWith("v3.metadata.json"));
}

TEST_F(FileIOFaultTest, FailedRewriteOfAnOverwriteRemovesEverythingItWrote) {
  Table t = Committed("o");
  const std::set<std::string> before = Tree(TableDir(t));
  // The added manifest publishes, the rewritten one (holding first.parquet,
  // now DELETED) fails.
  faulty_->FailNth(FaultOp::kRename, 2, ".avro");
  auto c = SnapshotUpdate(&t).AddDataFile(File(t, "new.parquet")).OverwriteAll().Commit();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().kind, ErrorKind::kIo) << c.error().ToString();
  ExpectUnchanged(&t, before, "data/new.parquet", 1);
}

TEST_F(FileIOFaultTest, FailedDataFileRemovesTheFilesAndFoldersTheWriteMade) {
  catalog::TableDefinition def;
  def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "region", false, StringType(), {}}});
  iceberg::PartitionSpecBuilder b(def.schema);
  b.Identity("region");
  def.spec = *b.Build();
  auto loaded = catalog_->CreateTable(*catalog::ParseTableIdentifier("db.p"), def);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  Table t(catalog_.get(), std::move(*loaded));
  const std::set<std::string> before = Tree(TableDir(t));  // metadata only: no data folder yet

  const auto& md = t.metadata();
  auto options = DataWriterOptions::Resolve(md, config::Resolver(md.properties));
  ASSERT_TRUE(options) << options.error().ToString();
  auto factory = std::make_shared<OutputFileFactory>(t.io(), options->data_location);
  auto writer = MakeDataWriter(md, *options, factory);
  ASSERT_TRUE(writer) << writer.error().ToString();
  // 30 rows over three regions, built in place (the table tests do not link the decoders).
  Batch batch(md.CurrentSchema());
  for (int i = 0; i < 30; ++i) {
    batch.columns[0].Append<int64_t>(i);
    batch.columns[1].AppendBytes(fmt::format("r{}", i % 3));
  }
  batch.num_rows = 30;
  ASSERT_TRUE((*writer)->Write(batch));
  // Three partition files: the second one's publication fails.
  faulty_->FailNth(FaultOp::kRename, 2, ".parquet");
  auto files = (*writer)->Close();
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().kind, ErrorKind::kIo) << files.error().ToString();
  // The published file and every folder the write made (data/, region=r*) are gone.
  EXPECT_EQ(Tree(TableDir(t)), before);
  EXPECT_THAT(factory->created_folders(), testing::IsEmpty());
  EXPECT_GE(faulty_->Count(FaultOp::kRename), 2);
}

TEST_F(FileIOFaultTest, FailedFirstVersionOfANewTableLeavesNoFolder) {
  faulty_->FailNth(FaultOp::kRename, 1, "v1.metadata.json");
  catalog::TableDefinition def;
  def.schema = Schema({{1, "id", true, LongType(), {}}});
  auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db.n"), def);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().kind, ErrorKind::kIo) << t.error().ToString();
  // No empty table folder that would list as a namespace db.n.
  EXPECT_FALSE(fs::exists(dir_ / "wh/db/n"));
  auto namespaces = catalog_->ListNamespaces(*catalog::ParseNamespace("db"));
  ASSERT_TRUE(namespaces);
  EXPECT_TRUE(namespaces->empty());
}

TEST_F(FileIOFaultTest, FailedListingRemovesNoOrphan) {
  Table t = Committed("l");
  FileAt(TableDir(t) + "/data/stray.parquet");
  AgeAll(TableDir(t), 4 * int64_t{24 * 3600 * 1000});
  faulty_->FailNth(FaultOp::kList, 1);
  auto r = RemoveOrphanFiles(&t, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_TRUE(fs::exists(TableDir(t) + "/data/stray.parquet"));
  // Without the fault the stray file goes, through the same FileIO.
  auto again = RemoveOrphanFiles(&t, {});
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_EQ(again->orphan_files, std::vector<std::string>{FileUri(TableDir(t) + "/data/stray.parquet")});
  EXPECT_FALSE(fs::exists(TableDir(t) + "/data/stray.parquet"));
}

TEST_F(FileIOFaultTest, ExpireDeletesThroughTheFileIOAndAFailedDeleteKeepsTheCommit) {
  Table t = Committed("e");
  auto c2 = SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet")).OverwriteAll().Commit();
  ASSERT_TRUE(c2) << c2.error().ToString();
  faulty_->FailFrom(FaultOp::kDelete, 1, "first.parquet");
  ExpireOptions o;
  o.snapshot_ids = {t.metadata().snapshots[0].snapshot_id};
  auto r = ExpireSnapshots(&t, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 1u);
  EXPECT_THAT(faulty_->Fired(), testing::ElementsAre(testing::HasSubstr("first.parquet")));
  EXPECT_TRUE(fs::exists(TableDir(t) + "/data/first.parquet"));  // the injected failure kept it
  EXPECT_EQ(t.metadata().snapshots.size(), 1u);
}

}  // namespace fileio_fault_test
}  // namespace floe::table
