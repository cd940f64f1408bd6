// Format version 3 manifests and manifest lists written by floe (Iceberg spec:
// Manifests, Manifest Lists, First Row ID Inheritance and Assignment,
// Deletion Vectors): the v3 data_file fields (first_row_id, content_offset,
// content_size_in_bytes) with their field ids as avsc (avro_dump.mjs) reads
// them, deletion vectors of one Puffin file side by side in one manifest,
// first_row_id assigned to new data manifests only and inherited by their
// files on read; v2 files refuse what v3 adds.

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/manifest_io.h"
#include "floe/io/file.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/oracle.h"

namespace floe::iceberg {
namespace manifest_io_v3_test {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test::HasErrorMessage;

Schema IdSchema() { return Schema({{1, "id", true, LongType(), {}}}, 0, {}); }

TableMetadata V3Metadata() {
  TableMetadata md;
  md.format_version = 3;
  md.next_row_id = 0;
  md.location = "file:/warehouse/t";
  md.schemas = {std::make_shared<Schema>(IdSchema())};
  md.specs = {PartitionSpec::Unpartitioned(0)};
  return md;
}

DataFile Data(const std::string& path, int64_t rows) {
  DataFile f;
  f.file_path = path;
  f.record_count = rows;
  f.file_size_in_bytes = 100;
  return f;
}

DataFile Vector(const std::string& data, int64_t offset, int64_t size, int64_t rows) {
  DataFile f;
  f.content = DataFileContent::kPositionDeletes;
  f.file_format = FileFormat::kPuffin;
  f.file_path = "file:/warehouse/t/data/dv.puffin";
  f.referenced_data_file = data;
  f.content_offset = offset;
  f.content_size_in_bytes = size;
  f.record_count = rows;
  f.file_size_in_bytes = 500;
  return f;
}

class ManifestIoV3 : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_manifest_v3_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  Result<ManifestFile> Write(const std::string& name, ManifestContent content, const std::vector<DataFile>& files,
                             int32_t version = 3) {
    ManifestWriteOptions o;
    o.format_version = version;
    FLOE_ASSIGN_OR_RETURN(auto out, OpenLocalOutput(Path(name)));
    FLOE_ASSIGN_OR_RETURN(auto w, ManifestWriter::Open(std::move(out), IdSchema(), PartitionSpec::Unpartitioned(0),
                                                       content, kUnassigned, o));
    for (const auto& f : files) FLOE_RETURN_IF_ERROR(w->AddFile(f));
    return w->Close();
  }
  fs::path dir_;
};

TEST_F(ManifestIoV3, WritesTheV3FieldsAndAssignsRowIds) {
  ASSERT_OK_AND_ASSIGN(ManifestFile data, Write("data.avro", ManifestContent::kData,
                                                {Data("file:/d/a.parquet", 10), Data("file:/d/b.parquet", 5)}));
  ASSERT_OK_AND_ASSIGN(ManifestFile deletes,
                       Write("deletes.avro", ManifestContent::kDeletes,
                             {Vector("file:/d/a.parquet", 4, 40, 3), Vector("file:/d/b.parquet", 44, 30, 1)}));
  data.manifest_path = Path("data.avro");
  deletes.manifest_path = Path("deletes.avro");

  // An independent Avro reader sees the v3 fields with their ids.
  test::OracleResult r = test::Oracle("avro_dump.mjs", {Path("deletes.avro"), "--header", "--schema", "--records"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json header, schema;
  std::vector<Json> records;
  size_t start = 0;
  while (start < r.out.size()) {
    size_t end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    if (end > start) {
      Json j = Json::parse(r.out.substr(start, end - start));
      if (j.contains("header")) header = j["header"];
      if (j.contains("schema")) schema = j["schema"];
      if (j.contains("record")) records.push_back(j["record"]);
    }
    start = end + 1;
  }
  EXPECT_EQ(header["format-version"], "3");
  std::map<std::string, int> ids;
  for (const auto& f : schema["fields"][4]["type"]["fields"]) ids[f["name"].get<std::string>()] = f["field-id"].get<int>();
  EXPECT_EQ(ids["first_row_id"], 142);
  EXPECT_EQ(ids["referenced_data_file"], 143);
  EXPECT_EQ(ids["content_offset"], 144);
  EXPECT_EQ(ids["content_size_in_bytes"], 145);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1]["data_file"]["content_offset"], 44);
  EXPECT_EQ(records[1]["data_file"]["file_format"], "PUFFIN");

  // The list: a new data manifest gets ids from first-row-id, an existing
  // one keeps its own, a delete manifest none.
  ManifestFile old = data;
  old.manifest_path = Path("old.avro");
  old.sequence_number = 1;
  old.min_sequence_number = 1;
  old.added_snapshot_id = 1;
  old.first_row_id = 7;
  ManifestWriteOptions lo;
  lo.format_version = 3;
  lo.first_row_id = 100;
  ASSERT_OK_AND_ASSIGN(auto out, OpenLocalOutput(Path("list.avro")));
  ASSERT_OK_AND_ASSIGN(auto lw, ManifestListWriter::Open(std::move(out), 9, 1, 2, lo));
  ASSERT_OK_AND_ASSIGN(ManifestFile d_listed, lw->Add(data));
  ASSERT_OK_AND_ASSIGN(ManifestFile x_listed, lw->Add(deletes));
  ASSERT_OK_AND_ASSIGN(ManifestFile o_listed, lw->Add(old));
  ASSERT_OK(lw->Close());
  EXPECT_EQ(d_listed.first_row_id, 100);
  EXPECT_FALSE(x_listed.first_row_id);
  EXPECT_EQ(o_listed.first_row_id, 7);
  EXPECT_EQ(lw->next_row_id(), 115);

  ASSERT_OK_AND_ASSIGN(auto in, OpenLocalInput(Path("list.avro")));
  ManifestListInfo info;
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(*in, &info));
  EXPECT_EQ(info.format_version, 3);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].first_row_id, 100);
  EXPECT_FALSE(list[1].first_row_id);
  EXPECT_EQ(list[2].first_row_id, 7);

  // Files inherit: 100, then 100 + 10.
  const TableMetadata md = V3Metadata();
  ASSERT_OK_AND_ASSIGN(auto din, OpenLocalInput(Path("data.avro")));
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*din, list[0], md));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].data_file.first_row_id, 100);
  EXPECT_EQ(entries[1].data_file.first_row_id, 110);
  // Two vectors of one Puffin file live side by side.
  ASSERT_OK_AND_ASSIGN(auto xin, OpenLocalInput(Path("deletes.avro")));
  ASSERT_OK_AND_ASSIGN(auto dvs, ReadManifest(*xin, list[1], md));
  ASSERT_EQ(dvs.size(), 2u);
  EXPECT_OK(ValidateManifest(list[1], dvs));
  EXPECT_EQ(dvs[0].data_file.content_size_in_bytes, 40);
  EXPECT_EQ(dvs[1].data_file.referenced_data_file, "file:/d/b.parquet");
  EXPECT_FALSE(dvs[0].data_file.first_row_id);
}

TEST_F(ManifestIoV3, V2FilesRefuseWhatV3Adds) {
  EXPECT_THAT(Write("v2.avro", ManifestContent::kDeletes, {Vector("file:/d/a.parquet", 4, 40, 3)}, 2),
              HasErrorMessage("v3 fields"));
  EXPECT_THAT(Write("v4.avro", ManifestContent::kData, {}, 4), HasErrorMessage("not 4"));
  ManifestWriteOptions lo;
  lo.format_version = 3;  // no first-row-id
  ASSERT_OK_AND_ASSIGN(auto out, OpenLocalOutput(Path("list.avro")));
  EXPECT_THAT(ManifestListWriter::Open(std::move(out), 9, std::nullopt, 2, lo), HasErrorMessage("first-row-id"));
}

}  // namespace manifest_io_v3_test
}  // namespace floe::iceberg
