// Expiry through the table's FileIO deletes only inside the table, also when
// a manifest names a file through `<link>/..` (floe issue 7, section 3): the
// containment check compares locations lexically, but the system resolves
// `link/..` through the link, so such a location must be refused rather than
// deleted.

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/table/table.h"
#include "floe/table/table_folders.h"
#include "table/table_fixture.h"

namespace floe::table {
namespace fileio_expire_test {

namespace fs = std::filesystem;
using testing_util::WarehouseTest;

class FileIOExpireTest : public WarehouseTest {};

TEST_F(FileIOExpireTest, DotDotThroughALinkInsideTheTableIsRefused) {
  Table t = Create("e");
  // <table>/data/link -> <dir>/elsewhere/sub, so <table>/data/link/../victim
  // is <dir>/elsewhere/victim for the system, <table>/data/victim lexically.
  fs::create_directories(dir_ / "elsewhere" / "sub");
  fs::create_directories(TableDir(t) + "/data");
  fs::create_directory_symlink(dir_ / "elsewhere" / "sub", TableDir(t) + "/data/link");
  const fs::path victim = dir_ / "elsewhere" / "victim";
  FileAt(victim.string());
  iceberg::DataFile sneaky;
  sneaky.file_path = FileUri(TableDir(t) + "/data/link/../victim");
  sneaky.record_count = 1;
  sneaky.file_size_in_bytes = 1;
  EXPECT_FALSE(TableFolders::Of(t).Contains(sneaky.file_path));
  EXPECT_TRUE(TableFolders::Of(t).Contains(FileUri(TableDir(t) + "/data/a.parquet")));

  auto c1 = SnapshotUpdate(&t).AddDataFile(File(t, "a.parquet")).AddDataFile(sneaky).Commit();
  ASSERT_TRUE(c1) << c1.error().ToString();
  auto c2 = SnapshotUpdate(&t).AddDataFile(File(t, "b.parquet")).OverwriteAll().Commit();
  ASSERT_TRUE(c2) << c2.error().ToString();
  ExpireOptions o;
  o.snapshot_ids = {c1->snapshot_id};
  auto r = ExpireSnapshots(&t, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(fs::exists(victim));
  EXPECT_EQ(r->refused_files, std::vector<std::string>{sneaky.file_path});
  EXPECT_FALSE(fs::exists(TableDir(t) + "/data/a.parquet"));
}

}  // namespace fileio_expire_test
}  // namespace floe::table
