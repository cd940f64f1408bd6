// TableReader on files written here: column projection rules for columns a
// data file lacks (identity-partition value, initial-default, null), byte
// ranges at row-group offsets read every row exactly once, position deletes,
// filters on partition constants, and clear errors for missing files.

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
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table {
namespace scan_reader_test {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestEntry;
using iceberg::ManifestFile;
using iceberg::Value;
using ::testing::HasSubstr;

class ListSource : public ManifestSource {
 public:
  std::vector<ManifestFile> list;
  std::map<std::string, std::vector<ManifestEntry>> entries;
  Result<std::vector<ManifestFile>> ReadManifestList(const iceberg::Snapshot&) override { return list; }
  Result<std::vector<ManifestEntry>> ReadManifest(const ManifestFile& m) override { return entries[m.manifest_path]; }
};

struct Written {
  std::string path;
  parquet::WriteResult result;
};

Written WriteParquet(const std::string& path, SchemaPtr schema, const Batch& batch, int64_t rows_per_group) {
  parquet::WriterOptions o;
  o.row_group_size_bytes = 1;  // a row group per write batch
  o.write_batch_rows = rows_per_group;
  auto out = OpenLocalOutput(path, true);
  EXPECT_OK(out);
  auto w = parquet::FileWriter::Open(std::move(*out), schema, o);
  EXPECT_TRUE(w) << w.error().ToString();
  EXPECT_OK((*w)->Write(batch));
  auto r = (*w)->Close();
  EXPECT_TRUE(r) << r.error().ToString();
  return {path, *r};
}

class ScanReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_scan_reader_");
    // The data file holds only `id` (ids 0..9, two rows per row group).
    auto file_schema = std::make_shared<const Schema>(std::vector<NestedField>{{1, "id", true, LongType(), ""}});
    Batch b(file_schema);
    for (int64_t i = 0; i < 10; ++i) b.columns[0].Append<int64_t>(i);
    b.num_rows = 10;
    data_ = WriteParquet((dir_ / "data.parquet").string(), file_schema, b, 2);
    ASSERT_EQ(data_.result.row_group_offsets.size(), 5u);
    // Position deletes of rows 1 and 8 of that file (and one of another file).
    auto pos_schema = std::make_shared<const Schema>(std::vector<NestedField>{
        {2147483546, "file_path", true, StringType(), ""}, {2147483545, "pos", true, LongType(), ""}});
    Batch d(pos_schema);
    d.columns[0].AppendBytes(data_.path);
    d.columns[1].Append<int64_t>(1);
    d.columns[0].AppendBytes(data_.path);
    d.columns[1].Append<int64_t>(8);
    d.columns[0].AppendBytes("/elsewhere.parquet");
    d.columns[1].Append<int64_t>(0);
    d.num_rows = 3;
    deletes_ = WriteParquet((dir_ / "pos.parquet").string(), pos_schema, d, 100);

    // Table: id, region (identity partition source), note (initial-default), extra.
    auto md = std::make_shared<iceberg::TableMetadata>();
    md->location = dir_.string();
    md->schemas = {std::make_shared<const Schema>(std::vector<NestedField>{
        {1, "id", true, LongType(), ""},
        {2, "region", false, StringType(), ""},
        {3, "note", false, StringType(), ""},
        {4, "extra", false, IntType(), ""}})};
    md->field_defaults[0][3].initial_default = "\"hello\"";
    md->specs = {iceberg::PartitionSpec(0, {{2, 1000, "region", iceberg::Transform::Identity()}})};
    iceberg::Snapshot s;
    s.snapshot_id = 1;
    s.sequence_number = 1;
    s.manifest_list = "list";
    s.operation = iceberg::SnapshotOperation::kAppend;
    md->snapshots = {s};
    md->current_snapshot_id = 1;
    md->last_sequence_number = 1;
    metadata_ = md;

    ManifestFile m;
    m.manifest_path = "m-data";
    m.sequence_number = 1;
    ManifestEntry e;
    e.sequence_number = 1;
    e.data_file.file_path = data_.path;
    e.data_file.partition = {Value::String("eu")};
    e.data_file.record_count = 10;
    e.data_file.file_size_in_bytes = data_.result.file_size_bytes;
    e.data_file.split_offsets = data_.result.row_group_offsets;
    source_.list = {m};
    source_.entries["m-data"] = {e};
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  void AddPositionDeletes() {
    ManifestFile m;
    m.manifest_path = "m-deletes";
    m.content = iceberg::ManifestContent::kDeletes;
    m.sequence_number = 2;
    ManifestEntry e;
    e.sequence_number = 2;
    e.data_file.content = DataFileContent::kPositionDeletes;
    e.data_file.file_path = deletes_.path;
    e.data_file.partition = {Value::String("eu")};
    e.data_file.record_count = 3;
    e.data_file.file_size_in_bytes = deletes_.result.file_size_bytes;
    source_.list.push_back(m);
    source_.entries["m-deletes"] = {e};
  }

  Result<std::vector<std::string>> Read(ScanOptions o, TableReaderOptions ro = {}) {
    FLOE_ASSIGN_OR_RETURN(auto plan, PlanScan(metadata_, o, &source_));
    FLOE_ASSIGN_OR_RETURN(auto batches, ReadAll(plan, LocationMapper(), ro));
    std::vector<std::string> lines;
    for (const auto& b : batches) {
      EXPECT_OK(b.Validate());
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string s;
        AppendJsonRow(b, i, &s);
        lines.push_back(s);
      }
    }
    return lines;
  }

  fs::path dir_;
  Written data_;
  Written deletes_;
  std::shared_ptr<const iceberg::TableMetadata> metadata_;
  ListSource source_;
};

TEST_F(ScanReaderTest, MissingColumnsReadPartitionValueDefaultOrNull) {
  auto rows = Read({});
  ASSERT_TRUE(rows) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 10u);
  EXPECT_EQ((*rows)[0], R"({"id":0,"region":"eu","note":"hello","extra":null})");
  EXPECT_EQ((*rows)[9], R"({"id":9,"region":"eu","note":"hello","extra":null})");
}

TEST_F(ScanReaderTest, FilterOnPartitionConstantAndProjection) {
  ScanOptions o;
  o.columns = {"note", "id"};
  o.filter_text = "region = 'eu' AND id >= 7";
  auto rows = Read(o);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_THAT(*rows, ::testing::ElementsAre(R"({"note":"hello","id":7})", R"({"note":"hello","id":8})",
                                            R"({"note":"hello","id":9})"));
  o.filter_text = "region = 'us'";
  auto none = Read(o);
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
}

TEST_F(ScanReaderTest, RangesAtRowGroupsReadEachRowOnce) {
  AddPositionDeletes();
  ScanOptions o;
  o.split.split_size = 1;  // one range per row group
  o.split.open_file_cost = 0;
  auto plan = PlanScan(metadata_, o, &source_);
  ASSERT_TRUE(plan) << plan.error().ToString();
  size_t ranges = 0;
  for (const auto& s : plan->splits) ranges += s.size();
  EXPECT_EQ(ranges, 5u);
  for (int threads : {1, 2, 4}) {
    for (bool ordered : {true, false}) {
      TableReaderOptions ro;
      ro.threads = threads;
      ro.preserve_order = ordered;
      auto rows = Read(o, ro);
      ASSERT_TRUE(rows) << rows.error().ToString();
      std::vector<std::string> ids;
      for (const auto& r : *rows) ids.push_back(r.substr(6, r.find(',') - 6));
      if (!ordered) std::sort(ids.begin(), ids.end());
      EXPECT_THAT(ids, ::testing::ElementsAre("0", "2", "3", "4", "5", "6", "7", "9")) << threads;
    }
  }
}

// Issue 23, item 3: a manifest whose file_size_in_bytes is stale (smaller or
// larger than the file) still reads every row exactly once, over ranges
// planned from the stale size: split offsets beyond it do not lose row groups.
TEST_F(ScanReaderTest, StaleFileSizeStillReadsEachRowOnce) {
  AddPositionDeletes();
  const int64_t real = data_.result.file_size_bytes;
  // Row groups 2..4 start at or beyond the first stale size.
  const int64_t before_rg2 = data_.result.row_group_offsets[2];
  for (int64_t stale : {before_rg2, real - 1, real + 1000}) {
    SCOPED_TRACE(stale);
    source_.entries["m-data"][0].data_file.file_size_in_bytes = stale;
    source_.entries["m-deletes"][0].data_file.file_size_in_bytes = deletes_.result.file_size_bytes + 7;
    ScanOptions o;
    o.split.split_size = 64;  // several ranges in the file
    o.split.open_file_cost = 0;
    for (int threads : {1, 3}) {
      TableReaderOptions ro;
      ro.threads = threads;
      auto rows = Read(o, ro);
      ASSERT_TRUE(rows) << rows.error().ToString();
      std::vector<std::string> ids;
      for (const auto& r : *rows) ids.push_back(r.substr(6, r.find(',') - 6));
      EXPECT_THAT(ids, ::testing::ElementsAre("0", "2", "3", "4", "5", "6", "7", "9")) << threads;
    }
  }
}

TEST_F(ScanReaderTest, PositionDeletesNeedDataSeqAtMostDeleteSeq) {
  AddPositionDeletes();
  source_.entries["m-data"][0].sequence_number = 3;  // data written after the deletes
  auto rows = Read({});
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(rows->size(), 10u);
}

TEST_F(ScanReaderTest, MissingFilesAreErrorsNamingThem) {
  source_.entries["m-data"][0].data_file.file_path = (dir_ / "gone.parquet").string();
  auto rows = Read({});
  ASSERT_FALSE(rows);
  EXPECT_THAT(rows.error().message, HasSubstr("gone.parquet"));
  source_.entries["m-data"][0].data_file.file_path = "s3://bucket/unmapped.parquet";
  rows = Read({});
  ASSERT_FALSE(rows);
  EXPECT_THAT(rows.error().message, HasSubstr("s3://bucket/unmapped.parquet"));
}

// Issue 23, item 5: initial-default applies at every nesting level, not only
// to top-level columns: a field added to a struct column, to a struct in a
// struct, to the struct elements of a list and the struct values of a map,
// and a struct column added with the default {} (its fields' own defaults).
// A null struct stays null; a field without a default reads as null.
TEST(NestedDefaults, FieldsAFileLacksReadAsTheirInitialDefaultAtEveryDepth) {
  const fs::path dir = test::FreshTestDir("floe_nested_defaults_");
  auto st = [](std::vector<NestedField> f) { return StructType(std::move(f)); };
  // The file: id, s struct<a int, in struct<p int>>, l list<struct<x int>>,
  // m map<string, struct<v int>>.
  auto file_schema = std::make_shared<const Schema>(std::vector<NestedField>{
      {1, "id", true, LongType(), ""},
      {10, "s", false, st({{11, "a", false, IntType(), ""}, {15, "in", false, st({{16, "p", false, IntType(), ""}}), ""}}),
       ""},
      {20, "l", false, ListType(21, false, st({{22, "x", false, IntType(), ""}})), ""},
      {30, "m", false, MapType(31, StringType(), 32, false, st({{33, "v", false, IntType(), ""}})), ""}});
  Batch b(file_schema);
  const std::vector<std::vector<std::string>> rows = {
      {"1", R"({"11": 1, "15": {"16": 100}})", R"([{"22": 10}, {"22": 11}])", R"({"keys": ["k"], "values": [{"33": 5}]})"},
      {"2", "null", "[]", R"({"keys": [], "values": []})"},
      {"3", R"({"11": 3, "15": null})", R"([{"22": 30}])", R"({"keys": ["a", "b"], "values": [{"33": 1}, null]})"}};
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) ASSERT_OK(iceberg::AppendJsonText(&b.columns[c], r[c]));
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  Written data = WriteParquet((dir / "data.parquet").string(), file_schema, b, 100);

  // The table: fields added later, each with an initial-default (or none).
  auto md = std::make_shared<iceberg::TableMetadata>();
  md->location = dir.string();
  md->schemas = {std::make_shared<const Schema>(std::vector<NestedField>{
      {1, "id", true, LongType(), ""},
      {10, "s", false,
       st({{11, "a", false, IntType(), ""},
           {12, "b", false, IntType(), ""},                                               // default 7
           {15, "in", false, st({{16, "p", false, IntType(), ""}, {17, "q", false, StringType(), ""}}), ""},  // q: "qq"
           {13, "c", false, st({{14, "d", false, StringType(), ""}, {18, "e", false, IntType(), ""}}), ""},  // {}; d "dd"
           {19, "n", false, IntType(), ""}}),                                             // no default: null
       ""},
      {20, "l", false, ListType(21, false, st({{22, "x", false, IntType(), ""}, {23, "y", false, StringType(), ""}})),
       ""},  // y: "why"
      {30, "m", false,
       MapType(31, StringType(), 32, false, st({{33, "v", false, IntType(), ""}, {34, "w", false, LongType(), ""}})),
       ""},  // w: 9
      {40, "t", false, st({{41, "r", false, IntType(), ""}}), ""},   // a struct column added with {}; r: 5
      {42, "u", false, st({{43, "z", false, IntType(), ""}}), ""}})};  // added without a default: null
  md->specs = {iceberg::PartitionSpec::Unpartitioned()};
  auto& d = md->field_defaults[0];
  d[12].initial_default = "7";
  d[17].initial_default = "\"qq\"";
  d[13].initial_default = "{}";
  d[14].initial_default = "\"dd\"";
  d[23].initial_default = "\"why\"";
  d[34].initial_default = "9";
  d[40].initial_default = "{}";
  d[41].initial_default = "5";
  d[43].initial_default = "6";  // its struct has no default: the column is null
  iceberg::Snapshot snap;
  snap.snapshot_id = 1;
  snap.sequence_number = 1;
  snap.manifest_list = "list";
  snap.operation = iceberg::SnapshotOperation::kAppend;
  md->snapshots = {snap};
  md->current_snapshot_id = 1;
  md->last_sequence_number = 1;

  ListSource source;
  ManifestFile m;
  m.manifest_path = "m";
  m.sequence_number = 1;
  ManifestEntry e;
  e.sequence_number = 1;
  e.data_file.file_path = data.path;
  e.data_file.record_count = 3;
  e.data_file.file_size_in_bytes = data.result.file_size_bytes;
  source.list = {m};
  source.entries["m"] = {e};

  auto read = [&](ScanOptions o) -> std::vector<std::string> {
    auto plan = PlanScan(md, o, &source);
    EXPECT_TRUE(plan) << plan.error().ToString();
    if (!plan) return {};
    auto batches = ReadAll(*plan, LocationMapper());
    EXPECT_TRUE(batches) << batches.error().ToString();
    if (!batches) return {};
    std::vector<std::string> lines;
    for (const auto& batch : *batches) {
      EXPECT_OK(batch.Validate());
      for (int64_t i = 0; i < batch.num_rows; ++i) {
        std::string line;
        AppendJsonRow(batch, i, &line);
        lines.push_back(line);
      }
    }
    return lines;
  };
  EXPECT_THAT(
      read({}),
      ::testing::ElementsAre(
          R"({"id":1,"s":{"a":1,"b":7,"in":{"p":100,"q":"qq"},"c":{"d":"dd","e":null},"n":null},)"
          R"("l":[{"x":10,"y":"why"},{"x":11,"y":"why"}],"m":{"keys":["k"],"values":[{"v":5,"w":9}]},"t":{"r":5},"u":null})",
          R"({"id":2,"s":null,"l":[],"m":{"keys":[],"values":[]},"t":{"r":5},"u":null})",
          R"({"id":3,"s":{"a":3,"b":7,"in":null,"c":{"d":"dd","e":null},"n":null},"l":[{"x":30,"y":"why"}],)"
          R"("m":{"keys":["a","b"],"values":[{"v":1,"w":9},null]},"t":{"r":5},"u":null})"));
  // A projection of nested columns only, and a filter on a defaulted column.
  ScanOptions o;
  o.columns = {"id", "t"};
  o.filter_text = "id >= 3";
  EXPECT_THAT(read(o), ::testing::ElementsAre(R"({"id":3,"t":{"r":5}})"));
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace scan_reader_test
}  // namespace floe::table
