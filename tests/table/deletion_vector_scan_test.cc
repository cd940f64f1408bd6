// Deletion vectors through PlanScan + TableReader: vectors built from the
// specs (testing/puffin_builder.h) with bitset, array and run containers over
// two 2^16-row chunks, read in one range and in many ranges on several
// threads; together with a v2 position delete file and with equality
// deletes; and the refusals, each naming the file: two live vectors for one
// data file, cardinality != record_count, a bad CRC, a bare blob without
// the Puffin container, a blob outside the file, a vector without its
// referenced_data_file.

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/value.h"
#include "floe/io/file.h"
#include "floe/parquet/writer.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/puffin_builder.h"

namespace floe::table {
namespace deletion_vector_scan_test {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestEntry;
using iceberg::ManifestFile;
using ::testing::HasSubstr;

class DvListSource : public ManifestSource {
 public:
  std::vector<ManifestFile> list;
  std::map<std::string, std::vector<ManifestEntry>> entries;
  Result<std::vector<ManifestFile>> ReadManifestList(const iceberg::Snapshot&) override { return list; }
  Result<std::vector<ManifestEntry>> ReadManifest(const ManifestFile& m) override { return entries[m.manifest_path]; }
};

SchemaPtr IdSchema() {
  return std::make_shared<const Schema>(std::vector<NestedField>{{1, "id", true, LongType(), ""}});
}

// A Parquet file of `b` (row groups of rows_per_group rows); returns its manifest entry.
DataFile WriteBatch(const std::string& path, const Batch& b, int64_t rows_per_group = 1 << 20) {
  parquet::WriterOptions o;
  o.row_group_size_bytes = 1;
  o.write_batch_rows = rows_per_group;
  auto out = OpenLocalOutput(path, true);
  EXPECT_OK(out);
  auto w = parquet::FileWriter::Open(std::move(*out), b.schema, o);
  EXPECT_OK(w);
  EXPECT_OK((*w)->Write(b));
  auto r = (*w)->Close();
  EXPECT_OK(r);
  DataFile f;
  f.file_path = path;
  f.record_count = b.num_rows;
  f.file_size_in_bytes = r->file_size_bytes;
  f.split_offsets = r->row_group_offsets;
  return f;
}

// A Parquet file of ids first..first+rows-1.
DataFile WriteIds(const std::string& path, int64_t first, int64_t rows, int64_t rows_per_group) {
  Batch b(IdSchema());
  for (int64_t i = 0; i < rows; ++i) b.columns[0].Append<int64_t>(first + i);
  b.num_rows = rows;
  return WriteBatch(path, b, rows_per_group);
}

class DeletionVectorScan : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_dv_scan_");
    big_ = WriteIds((dir_ / "big.parquet").string(), 0, kBigRows, 10000);
    small_ = WriteIds((dir_ / "small.parquet").string(), 1000000, 10, 10);
    auto md = std::make_shared<iceberg::TableMetadata>();
    md->format_version = 3;
    md->location = dir_.string();
    md->schemas = {IdSchema()};
    md->specs = {iceberg::PartitionSpec(0, {})};
    iceberg::Snapshot s;
    s.snapshot_id = 1;
    s.sequence_number = 2;
    s.manifest_list = "list";
    s.operation = iceberg::SnapshotOperation::kDelete;
    md->snapshots = {s};
    md->current_snapshot_id = 1;
    md->last_sequence_number = 2;
    metadata_ = md;
    ManifestFile m;
    m.manifest_path = "m-data";
    m.sequence_number = 1;
    source_.list = {m};
    for (const DataFile* f : {&big_, &small_}) {
      ManifestEntry e;
      e.sequence_number = 1;
      e.data_file = *f;
      source_.entries["m-data"].push_back(e);
    }
    // Deleted rows of big: every 7th row of the first 2^16 (a bitset), rows
    // 65636..65735 (a run) and three more (an array) in the second chunk.
    for (uint64_t i = 0; i < 65536; i += 7) big_deleted_.push_back(i);
    for (uint64_t i = 65636; i < 65736; ++i) big_deleted_.push_back(i);
    for (uint64_t i : {69000, 69001, 69999}) big_deleted_.push_back(i);
    small_deleted_ = {0, 9};
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  static test::RoaringKind Choose(uint32_t, uint16_t key, const std::vector<uint16_t>& v) {
    if (v.size() > 4096) return test::RoaringKind::kBitset;
    return key == 1 && v.size() == 103 ? test::RoaringKind::kRun : test::RoaringKind::kArray;
  }

  // A Puffin file at `name` with a vector per data file; the delete manifest
  // entries naming them (sequence number 2).
  std::vector<ManifestEntry> WritePuffin(const std::string& name, const std::string* replace_file = nullptr) {
    test::PuffinBuilder p;
    auto b1 = p.Add(test::DeletionVectorBlob(test::PortableRoaring64(big_deleted_, Choose)),
                    test::DvProperties(big_.file_path, static_cast<int64_t>(big_deleted_.size())));
    auto b2 = p.Add(test::DeletionVectorBlob(test::PortableRoaring64(small_deleted_)),
                    test::DvProperties(small_.file_path, static_cast<int64_t>(small_deleted_.size())));
    const std::string path = (dir_ / name).string();
    const std::string bytes = replace_file ? *replace_file : p.Finish();
    EXPECT_OK(WriteLocalFile(path, bytes));
    std::vector<ManifestEntry> out;
    for (auto [blob, data, n] : {std::tuple{b1, &big_, big_deleted_.size()}, std::tuple{b2, &small_, small_deleted_.size()}}) {
      ManifestEntry e;
      e.sequence_number = 2;
      e.data_file.content = DataFileContent::kPositionDeletes;
      e.data_file.file_format = iceberg::FileFormat::kPuffin;
      e.data_file.file_path = path;
      e.data_file.record_count = static_cast<int64_t>(n);
      e.data_file.file_size_in_bytes = static_cast<int64_t>(bytes.size());
      e.data_file.referenced_data_file = data->file_path;
      e.data_file.content_offset = blob.offset;
      e.data_file.content_size_in_bytes = blob.length;
      out.push_back(e);
    }
    return out;
  }

  void AddDeleteManifest(const std::string& name, std::vector<ManifestEntry> entries) {
    ManifestFile m;
    m.manifest_path = name;
    m.content = iceberg::ManifestContent::kDeletes;
    m.sequence_number = 2;
    source_.list.push_back(m);
    source_.entries[name] = std::move(entries);
  }

  Result<std::set<int64_t>> ReadIds(ScanOptions o = {}, TableReaderOptions ro = {}) {
    FLOE_ASSIGN_OR_RETURN(auto plan, PlanScan(metadata_, o, &source_));
    FLOE_ASSIGN_OR_RETURN(auto batches, ReadAll(plan, LocationMapper(), ro));
    std::set<int64_t> ids;
    for (const auto& b : batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) ids.insert(b.columns[0].data<int64_t>()[i]);
    }
    return ids;
  }

  std::set<int64_t> Expected(const std::set<int64_t>& also_deleted = {}) const {
    std::set<int64_t> out;
    std::set<uint64_t> big(big_deleted_.begin(), big_deleted_.end());
    for (int64_t i = 0; i < kBigRows; ++i) {
      if (!big.contains(static_cast<uint64_t>(i)) && !also_deleted.contains(i)) out.insert(i);
    }
    for (int64_t i = 0; i < 10; ++i) {
      if (i != 0 && i != 9 && !also_deleted.contains(1000000 + i)) out.insert(1000000 + i);
    }
    return out;
  }

  std::string ReadError() {
    auto ids = ReadIds();
    return ids ? std::string("(read ") + std::to_string(ids->size()) + " rows)" : ids.error().message;
  }

  static constexpr int64_t kBigRows = 70000;
  fs::path dir_;
  DataFile big_, small_;
  std::vector<uint64_t> big_deleted_, small_deleted_;
  std::shared_ptr<const iceberg::TableMetadata> metadata_;
  DvListSource source_;
};

TEST_F(DeletionVectorScan, VectorsApplyToTheirDataFiles) {
  AddDeleteManifest("m-dv", WritePuffin("dv.puffin"));
  auto ids = ReadIds();
  ASSERT_TRUE(ids) << ids.error().ToString();
  EXPECT_EQ(*ids, Expected());
  EXPECT_EQ(ids->size(), static_cast<size_t>(kBigRows + 10) - big_deleted_.size() - 2);
}

TEST_F(DeletionVectorScan, ManyRangesOnSeveralThreadsGiveTheSameRows) {
  AddDeleteManifest("m-dv", WritePuffin("dv.puffin"));
  ScanOptions o;
  o.split.split_size = 1;  // a range per row group
  o.split.open_file_cost = 0;
  for (int threads : {1, 3}) {
    TableReaderOptions ro;
    ro.threads = threads;
    ro.batch_rows = 777;  // batches that straddle the 2^16 boundary and the words of the bitset
    auto ids = ReadIds(o, ro);
    ASSERT_TRUE(ids) << ids.error().ToString();
    EXPECT_EQ(*ids, Expected()) << threads;
  }
}

TEST_F(DeletionVectorScan, AppliesWithPositionAndEqualityDeletes) {
  AddDeleteManifest("m-dv", WritePuffin("dv.puffin"));
  // A v2 position delete file of big (rows 1 and 2) and an equality delete of id 5, 1000003.
  auto pos_schema = std::make_shared<const Schema>(std::vector<NestedField>{
      {2147483546, "file_path", true, StringType(), ""}, {2147483545, "pos", true, LongType(), ""}});
  Batch d(pos_schema);
  for (int64_t p : {1, 2}) {
    d.columns[0].AppendBytes(big_.file_path);
    d.columns[1].Append<int64_t>(p);
  }
  d.num_rows = 2;
  DataFile pos = WriteBatch((dir_ / "pos.parquet").string(), d);
  pos.content = DataFileContent::kPositionDeletes;
  Batch e(IdSchema());
  e.columns[0].Append<int64_t>(5);
  e.columns[0].Append<int64_t>(1000003);
  e.num_rows = 2;
  DataFile eq = WriteBatch((dir_ / "eq.parquet").string(), e);
  eq.content = DataFileContent::kEqualityDeletes;
  eq.equality_ids = {1};
  ManifestEntry pe, ee;
  pe.sequence_number = 2;
  pe.data_file = pos;
  ee.sequence_number = 2;
  ee.data_file = eq;
  AddDeleteManifest("m-other", {pe, ee});
  auto ids = ReadIds();
  ASSERT_TRUE(ids) << ids.error().ToString();
  EXPECT_EQ(*ids, Expected({1, 2, 5, 1000003}));
}

TEST_F(DeletionVectorScan, AVectorDoesNotApplyToNewerData) {
  auto entries = WritePuffin("dv.puffin");
  for (auto& e : source_.entries["m-data"]) e.sequence_number = 3;  // data written after the vectors
  AddDeleteManifest("m-dv", entries);
  auto ids = ReadIds();
  ASSERT_TRUE(ids) << ids.error().ToString();
  EXPECT_EQ(ids->size(), static_cast<size_t>(kBigRows + 10));
}

// ---------------------------------------------------------------- errors

TEST_F(DeletionVectorScan, TwoLiveVectorsForOneDataFileAreRefused) {
  auto first = WritePuffin("dv1.puffin");
  auto second = WritePuffin("dv2.puffin");
  AddDeleteManifest("m-dv1", first);
  AddDeleteManifest("m-dv2", {second[0]});
  const std::string m = ReadError();
  EXPECT_THAT(m, HasSubstr("data file " + big_.file_path + " has two live deletion vectors"));
  EXPECT_THAT(m, HasSubstr("dv1.puffin"));
  EXPECT_THAT(m, HasSubstr("dv2.puffin"));
}

TEST_F(DeletionVectorScan, CardinalityMustEqualRecordCount) {
  auto entries = WritePuffin("dv.puffin");
  entries[1].data_file.record_count = 3;
  AddDeleteManifest("m-dv", entries);
  const std::string m = ReadError();
  EXPECT_THAT(m, HasSubstr("dv.puffin"));
  EXPECT_THAT(m, HasSubstr("holds 2 positions, its manifest entry's record_count says 3"));
}

TEST_F(DeletionVectorScan, ADamagedVectorIsAnErrorNamingItsFile) {
  auto entries = WritePuffin("dv.puffin");
  std::string bytes = test::ReadFile(dir_ / "dv.puffin");
  bytes[static_cast<size_t>(*entries[0].data_file.content_offset + 20)] ^= 0x04;
  ASSERT_OK(WriteLocalFile((dir_ / "dv.puffin").string(), bytes));
  AddDeleteManifest("m-dv", entries);
  const std::string m = ReadError();
  EXPECT_THAT(m, HasSubstr("CRC-32 mismatch"));
  EXPECT_THAT(m, HasSubstr((dir_ / "dv.puffin").string()));
}

TEST_F(DeletionVectorScan, ABareBlobWithoutThePuffinContainerIsRefused) {
  auto entries = WritePuffin("dv.puffin");
  const std::string blob = test::DeletionVectorBlob(test::PortableRoaring64(small_deleted_));
  ASSERT_OK(WriteLocalFile((dir_ / "bare.bin").string(), blob));
  auto e = entries[1];
  e.data_file.file_path = (dir_ / "bare.bin").string();
  e.data_file.content_offset = 0;
  e.data_file.content_size_in_bytes = static_cast<int64_t>(blob.size());
  AddDeleteManifest("m-dv", {e});
  const std::string m = ReadError();
  EXPECT_THAT(m, HasSubstr((dir_ / "bare.bin").string() + " is not a Puffin file"));
}

TEST_F(DeletionVectorScan, OffsetsOutsideTheFileAreRefused) {
  auto entries = WritePuffin("dv.puffin");
  entries[1].data_file.content_offset = 1 << 30;
  AddDeleteManifest("m-dv", {entries[1]});
  const std::string m = ReadError();
  EXPECT_THAT(m, HasSubstr("outside the Puffin file's blob area"));
  EXPECT_THAT(m, HasSubstr("dv.puffin"));
}

TEST_F(DeletionVectorScan, AVectorMustNameItsDataFile) {
  auto entries = WritePuffin("dv.puffin");
  entries[1].data_file.referenced_data_file.reset();
  AddDeleteManifest("m-dv", {entries[1]});
  const std::string m = ReadError();
  EXPECT_THAT(m, HasSubstr("referenced_data_file is required for a deletion vector"));
  EXPECT_THAT(m, HasSubstr("dv.puffin"));
}

}  // namespace deletion_vector_scan_test
}  // namespace floe::table
