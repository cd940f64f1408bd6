// The table reader compares each data and delete file with its manifest entry
// (Iceberg spec: Data File Fields, record_count): a file whose row count
// differs, or whose footer does not parse, is an error naming the file, so a
// truncated, replaced or swapped file never reads as other (fewer or more)
// rows. A size other than file_size_in_bytes alone is read (issue 23, item 3:
// tables other engines read record stale sizes); scan_file_size_test.cc.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/value.h"
#include "floe/io/file.h"
#include "floe/parquet/writer.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"

namespace floe::table {
namespace manifest_mismatch_test {

namespace fs = std::filesystem;
using iceberg::DataFileContent;
using iceberg::ManifestEntry;
using iceberg::ManifestFile;
using ::testing::HasSubstr;

class ListSource : public ManifestSource {
 public:
  std::vector<ManifestFile> list;
  std::map<std::string, std::vector<ManifestEntry>> entries;
  Result<std::vector<ManifestFile>> ReadManifestList(const iceberg::Snapshot&) override {
    return list;
  }
  Result<std::vector<ManifestEntry>> ReadManifest(const ManifestFile& m) override {
    return entries[m.manifest_path];
  }
};

parquet::WriteResult WriteParquet(const std::string& path, SchemaPtr schema, const Batch& batch) {
  auto out = OpenLocalOutput(path, true);
  EXPECT_TRUE(out);
  auto w = parquet::FileWriter::Open(std::move(*out), schema, {});
  EXPECT_TRUE(w) << w.error().ToString();
  EXPECT_TRUE((*w)->Write(batch));
  auto r = (*w)->Close();
  EXPECT_TRUE(r) << r.error().ToString();
  return *r;
}

class ManifestMismatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("floe_manifest_mismatch_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    schema_ =
        std::make_shared<const Schema>(std::vector<NestedField>{{1, "id", true, LongType(), ""}});
    // Two data files: ids 0..9 and ids 100..104.
    for (auto [name, first, n] :
         {std::tuple{"a.parquet", 0, 10}, std::tuple{"b.parquet", 100, 5}}) {
      Batch b(schema_);
      for (int64_t i = 0; i < n; ++i) b.columns[0].Append<int64_t>(first + i);
      b.num_rows = n;
      std::string path = (dir_ / name).string();
      auto r = WriteParquet(path, schema_, b);
      ManifestEntry e;
      e.sequence_number = 1;
      e.data_file.file_path = path;
      e.data_file.record_count = n;
      e.data_file.file_size_in_bytes = r.file_size_bytes;
      e.data_file.split_offsets = r.row_group_offsets;
      data_.push_back(e);
    }
    // Position deletes of row 3 of a.parquet.
    auto pos_schema = std::make_shared<const Schema>(
        std::vector<NestedField>{{2147483546, "file_path", true, StringType(), ""},
                                 {2147483545, "pos", true, LongType(), ""}});
    Batch d(pos_schema);
    d.columns[0].AppendBytes(data_[0].data_file.file_path);
    d.columns[1].Append<int64_t>(3);
    d.num_rows = 1;
    std::string pos_path = (dir_ / "pos.parquet").string();
    auto pr = WriteParquet(pos_path, pos_schema, d);
    deletes_.sequence_number = 2;
    deletes_.data_file.content = DataFileContent::kPositionDeletes;
    deletes_.data_file.file_path = pos_path;
    deletes_.data_file.record_count = 1;
    deletes_.data_file.file_size_in_bytes = pr.file_size_bytes;

    auto md = std::make_shared<iceberg::TableMetadata>();
    md->location = dir_.string();
    md->schemas = {schema_};
    md->specs = {iceberg::PartitionSpec(0, {})};
    iceberg::Snapshot s;
    s.snapshot_id = 1;
    s.sequence_number = 2;
    s.manifest_list = "list";
    s.operation = iceberg::SnapshotOperation::kAppend;
    md->snapshots = {s};
    md->current_snapshot_id = 1;
    md->last_sequence_number = 2;
    metadata_ = md;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<int64_t> CountRows() {
    ListSource source;
    ManifestFile m;
    m.manifest_path = "m-data";
    m.sequence_number = 1;
    source.list = {m};
    source.entries["m-data"] = data_;
    ManifestFile dm;
    dm.manifest_path = "m-deletes";
    dm.content = iceberg::ManifestContent::kDeletes;
    dm.sequence_number = 2;
    source.list.push_back(dm);
    source.entries["m-deletes"] = {deletes_};
    FLOE_ASSIGN_OR_RETURN(auto plan, PlanScan(metadata_, {}, &source));
    FLOE_ASSIGN_OR_RETURN(auto batches, ReadAll(plan, LocationMapper(), {}));
    int64_t n = 0;
    for (const auto& b : batches) n += b.num_rows;
    return n;
  }

  fs::path dir_;
  SchemaPtr schema_;
  std::vector<ManifestEntry> data_;
  ManifestEntry deletes_;
  std::shared_ptr<const iceberg::TableMetadata> metadata_;
};

TEST_F(ManifestMismatchTest, FilesMatchingTheirEntriesRead) {
  auto n = CountRows();
  ASSERT_TRUE(n) << n.error().ToString();
  EXPECT_EQ(*n, 14);
}

TEST_F(ManifestMismatchTest, DataFileReplacedByAnotherIsAnError) {
  // b.parquet copied over a.parquet: a valid Parquet file, 5 rows instead of 10.
  fs::copy_file(data_[1].data_file.file_path, data_[0].data_file.file_path,
                fs::copy_options::overwrite_existing);
  auto n = CountRows();
  ASSERT_FALSE(n) << "read " << *n << " rows from a swapped file";
  EXPECT_EQ(n.error().kind, ErrorKind::kCorrupt) << n.error().ToString();
  EXPECT_THAT(n.error().message, HasSubstr("a.parquet"));
  EXPECT_THAT(n.error().message, HasSubstr("file_size_in_bytes"));
}

TEST_F(ManifestMismatchTest, RowCountDifferentFromRecordCountIsAnError) {
  data_[0].data_file.record_count = 11;
  auto n = CountRows();
  ASSERT_FALSE(n) << "read " << *n << " rows";
  EXPECT_EQ(n.error().kind, ErrorKind::kCorrupt) << n.error().ToString();
  EXPECT_THAT(n.error().message, HasSubstr("a.parquet"));
  EXPECT_THAT(n.error().message, HasSubstr("record_count 11"));
  EXPECT_THAT(n.error().message, HasSubstr("10 rows"));
}

TEST_F(ManifestMismatchTest, SizeDifferentFromFileSizeInBytesAloneReadsTheFile) {
  data_[1].data_file.file_size_in_bytes += 1;
  auto n = CountRows();
  ASSERT_TRUE(n) << n.error().ToString();
  EXPECT_EQ(*n, 14);
}

TEST_F(ManifestMismatchTest, DeleteFileIsComparedWithItsEntryToo) {
  deletes_.data_file.record_count = 2;
  auto n = CountRows();
  ASSERT_FALSE(n) << "read " << *n << " rows";
  EXPECT_THAT(n.error().message, HasSubstr("pos.parquet"));
  EXPECT_THAT(n.error().message, HasSubstr("record_count 2"));
  // Its size alone differing: read, its delete applied.
  deletes_.data_file.record_count = 1;
  deletes_.data_file.file_size_in_bytes -= 7;
  n = CountRows();
  ASSERT_TRUE(n) << n.error().ToString();
  EXPECT_EQ(*n, 14);
}

TEST_F(ManifestMismatchTest, TruncatedDataFileNamesTheFile) {
  const std::string path = data_[0].data_file.file_path;
  fs::resize_file(path, fs::file_size(path) - 3);
  auto n = CountRows();
  ASSERT_FALSE(n) << "read " << *n << " rows";
  EXPECT_THAT(n.error().message, HasSubstr("a.parquet"));
}

}  // namespace manifest_mismatch_test
}  // namespace floe::table
