// Delete writers: position deletes sorted by (path, pos) without duplicates, with
// full (untruncated) bounds, referenced_data_file and a null sort order; equality
// deletes with their projected schema, equality_ids and partitions taken from the
// rows they delete; bad input rejected with messages; Abort leaves nothing. The
// files are read back by DuckDB (shared/interop/parquet_rows.mjs).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "floe/iceberg/value.h"
#include "floe/table/delete_writer.h"
#include "testing/oracle.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::table {
namespace delete_writer_test {

namespace fs = std::filesystem;
using iceberg::Value;
using iceberg::Values;
using nlohmann::json;

using test::Field;

using test::SharedDir;

// DuckDB's view of one file: metadata lines and {"row":...} lines.
std::vector<json> ReadWithDuckDb(const std::string& local) {
  test::OracleResult r = test::Oracle("parquet_rows.mjs", {local});
  const int rc = r.code;
  const std::string out = r.out;
  EXPECT_EQ(rc, 0) << r.command << ": " << r.err;
  std::vector<json> lines;
  size_t i = 0;
  while (rc == 0 && i < out.size()) {
    size_t j = out.find('\n', i);
    if (j == std::string::npos) j = out.size();
    if (j > i) lines.push_back(json::parse(out.substr(i, j - i)));
    i = j + 1;
  }
  return lines;
}

std::vector<json> Rows(const std::vector<json>& lines) {
  std::vector<json> out;
  for (const auto& l : lines) {
    if (l.contains("row")) out.push_back(l["row"]);
  }
  return out;
}

std::map<std::string, int64_t> FieldIds(const std::vector<json>& lines) {
  std::map<std::string, int64_t> out;
  for (const auto& l : lines) {
    if (l.contains("schema") && !l["schema"]["field_id"].is_null()) {
      out[l["schema"]["name"].get<std::string>()] = l["schema"]["field_id"].get<int64_t>();
    }
  }
  return out;
}

class DeleteWriterTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FLOE_BINARY_DIR) / "test_tmp" / ("deletes_" + RandomUuid());
    fs::create_directories(dir_);
    schema_ = std::make_shared<Schema>(std::vector<NestedField>{
        Field(1, "id", LongType(), true), Field(2, "region", StringType()),
        Field(3, "score", DoubleType()),
        Field(4, "loc", StructType({Field(5, "city", StringType()), Field(6, "zip", IntType())})),
        Field(7, "tags", ListType(8, false, StringType()))});
    auto spec = iceberg::PartitionSpecBuilder(*schema_).Identity("region").Build();
    ASSERT_OK(spec);
    spec_ = *spec;
    options_.data_location = FileUri(dir_.string() + "/data");
    factory_ = std::make_shared<OutputFileFactory>(options_.data_location, LocationMapper(), 0, 3);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.is_regular_file()) out.push_back(e.path().string());
    }
    return out;
  }
  // Full rows: id i, region r<i%2>, score i/2, loc {c<i%3>, i}, tags [].
  Batch FullRows(int64_t n) {
    Batch b(schema_);
    for (int64_t i = 0; i < n; ++i) {
      b.columns[0].Append<int64_t>(i);
      b.columns[1].AppendBytes(fmt::format("r{}", i % 2));
      b.columns[2].Append<double>(static_cast<double>(i) / 2);
      b.columns[3].AppendStructRow();
      b.columns[3].children[0].AppendBytes(fmt::format("c{}", i % 3));
      b.columns[3].children[1].Append<int32_t>(static_cast<int32_t>(i));
      b.columns[4].CloseListRow();
    }
    b.num_rows = n;
    return b;
  }

  fs::path dir_;
  SchemaPtr schema_;
  iceberg::PartitionSpec spec_;
  DataWriterOptions options_;
  std::shared_ptr<OutputFileFactory> factory_;
};

TEST_F(DeleteWriterTest, PositionDeletesAreSortedWithFullBounds) {
  auto w = PositionDeleteWriter::Make(factory_, options_, spec_, schema_);
  ASSERT_TRUE(w) << w.error().ToString();
  // Paths longer than 16 characters: bounds must not be truncated (PITFALLS 79).
  const std::string a = "file:/warehouse/db/t/data/region=r0/00000-1-aaaa-00001.parquet";
  const std::string b = "file:/warehouse/db/t/data/region=r0/00000-1-aaaa-00002.parquet";
  const std::string c = "file:/warehouse/db/t/data/region=r1/00000-1-aaaa-00003.parquet";
  const Values r0{Value::String("r0")}, r1{Value::String("r1")};
  ASSERT_OK((*w)->Delete(b, 7, r0));
  ASSERT_OK((*w)->Delete(a, std::vector<int64_t>{9, 2, 2, 0}, r0));
  ASSERT_OK((*w)->Delete(b, 1, r0));
  ASSERT_OK((*w)->Delete(c, std::vector<int64_t>{5, 4}, r1));
  EXPECT_EQ((*w)->buffered(), 8);
  auto files = (*w)->Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 2u);
  const auto& f0 = (*files)[0];
  const auto& f1 = (*files)[1];
  EXPECT_EQ(f0.content, iceberg::DataFileContent::kPositionDeletes);
  EXPECT_EQ(f0.partition, r0);
  EXPECT_EQ(f0.record_count, 5);  // a: 0 2 9, b: 1 7
  EXPECT_FALSE(f0.sort_order_id.has_value());
  EXPECT_TRUE(f0.equality_ids.empty());
  EXPECT_FALSE(f0.referenced_data_file.has_value());  // two data files
  EXPECT_EQ(f0.lower_bounds.at(kDeleteFilePathFieldId), a);
  EXPECT_EQ(f0.upper_bounds.at(kDeleteFilePathFieldId), b);
  EXPECT_EQ(iceberg::FromBinary(*LongType(), f0.lower_bounds.at(kDeleteFilePosFieldId))->as_long(), 0);
  EXPECT_EQ(iceberg::FromBinary(*LongType(), f0.upper_bounds.at(kDeleteFilePosFieldId))->as_long(), 9);
  EXPECT_EQ(f1.referenced_data_file, c);
  EXPECT_EQ(f1.record_count, 2);
  EXPECT_TRUE(f0.file_path.ends_with("-00001-deletes.parquet") || f0.file_path.ends_with("-00002-deletes.parquet"))
      << f0.file_path;
  EXPECT_THAT(f0.file_path, testing::HasSubstr("/data/region=r0/00000-3-"));
  EXPECT_THAT(f1.file_path, testing::HasSubstr("/data/region=r1/00000-3-"));
  EXPECT_OK(f0.Validate());

  auto lines = ReadWithDuckDb(f0.file_path.substr(5));
  auto rows = Rows(lines);
  ASSERT_EQ(rows.size(), 5u);
  std::vector<std::pair<std::string, int64_t>> got;
  for (const auto& r : rows) got.emplace_back(r["file_path"].get<std::string>(), r["pos"].get<int64_t>());
  std::vector<std::pair<std::string, int64_t>> want = {{a, 0}, {a, 2}, {a, 9}, {b, 1}, {b, 7}};
  EXPECT_EQ(got, want);
  auto ids = FieldIds(lines);
  EXPECT_EQ(ids["file_path"], kDeleteFilePathFieldId);
  EXPECT_EQ(ids["pos"], kDeleteFilePosFieldId);
  bool schema_key = false;
  for (const auto& l : lines) {
    if (l.contains("kv") && l["kv"]["key"] == "iceberg.schema") {
      schema_key = true;
      EXPECT_EQ(l["kv"]["value"]["fields"].size(), 2u);
    }
    if (l.contains("file")) EXPECT_EQ(l["file"]["num_rows"].get<int64_t>(), 5);
  }
  EXPECT_TRUE(schema_key);
  EXPECT_EQ(f0.file_size_in_bytes, static_cast<int64_t>(fs::file_size(f0.file_path.substr(5))));
}

TEST_F(DeleteWriterTest, PositionDeletesRejectBadInputAndAbortCleansUp) {
  auto w = PositionDeleteWriter::Make(factory_, options_, spec_, schema_);
  ASSERT_OK(w);
  auto neg = (*w)->Delete("file:/x.parquet", -1, {Value::String("r0")});
  ASSERT_FALSE(neg);
  EXPECT_THAT(neg.error().message, testing::HasSubstr("negative"));
  EXPECT_FALSE((*w)->Delete("", 1, {Value::String("r0")}));
  auto arity = (*w)->Delete("file:/x.parquet", 1, {});
  ASSERT_FALSE(arity);
  EXPECT_THAT(arity.error().message, testing::HasSubstr("partition"));
  EXPECT_FALSE((*w)->Delete("file:/x.parquet", 1, {Value::Int(3)}));  // wrong type
  ASSERT_OK((*w)->Delete("file:/x.parquet", 1, {Value::String("r0")}));
  auto files = (*w)->Close();
  ASSERT_OK(files);
  EXPECT_EQ(Files().size(), 1u);
  (*w)->Abort();
  EXPECT_THAT(Files(), testing::IsEmpty());
}

TEST_F(DeleteWriterTest, PositionDeletesRollAndKeepOrderAcrossFiles) {
  DataWriterOptions small = options_;
  small.target_file_size_bytes = 8192;
  small.parquet.codec = Codec::kUncompressed;
  auto w = PositionDeleteWriter::Make(factory_, small, iceberg::PartitionSpec::Unpartitioned(), schema_);
  ASSERT_OK(w);
  for (int f = 2; f >= 0; --f) {
    std::vector<int64_t> pos;
    for (int64_t i = 20000; i-- > 0;) pos.push_back(i * 3);
    ASSERT_OK((*w)->Delete(fmt::format("file:/t/data/f{}.parquet", f), pos));
  }
  auto files = (*w)->Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_GT(files->size(), 2u);
  int64_t total = 0;
  std::string prev_upper;
  for (const auto& f : *files) {
    total += f.record_count;
    const std::string& lo = f.lower_bounds.at(kDeleteFilePathFieldId);
    EXPECT_LE(prev_upper, lo);
    prev_upper = f.upper_bounds.at(kDeleteFilePathFieldId);
    if (lo == prev_upper) EXPECT_EQ(f.referenced_data_file, lo);
  }
  EXPECT_EQ(total, 60000);
}

TEST_F(DeleteWriterTest, EqualityDeletesProjectKeysAndTakePartitionsFromRows) {
  // Key: id and the nested loc.city; the partition source (region) is not in the file.
  auto w = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {1, 5});
  ASSERT_TRUE(w) << w.error().ToString();
  const Schema& ds = *(*w)->delete_schema();
  ASSERT_EQ(ds.num_fields(), 2);
  EXPECT_EQ(ds.fields()[0].id, 1);
  EXPECT_EQ(ds.fields()[1].id, 4);
  ASSERT_EQ(ds.fields()[1].type->fields.size(), 1u);
  EXPECT_EQ(ds.fields()[1].type->fields[0].id, 5);

  Batch full = FullRows(6);
  auto keys = ProjectBatch(full, (*w)->delete_schema());
  ASSERT_TRUE(keys) << keys.error().ToString();
  ASSERT_OK(keys->Validate());
  auto no_source = (*w)->Write(*keys);
  ASSERT_FALSE(no_source);
  EXPECT_THAT(no_source.error().message, testing::HasSubstr("partition source"));
  ASSERT_OK((*w)->Write(*keys, full));
  auto files = (*w)->Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 2u);
  for (const auto& f : *files) {
    EXPECT_EQ(f.content, iceberg::DataFileContent::kEqualityDeletes);
    EXPECT_EQ(f.equality_ids, (std::vector<int32_t>{1, 5}));
    EXPECT_FALSE(f.sort_order_id.has_value());
    EXPECT_EQ(f.record_count, 3);
    EXPECT_TRUE(f.file_path.ends_with("-deletes.parquet")) << f.file_path;
    EXPECT_OK(f.Validate());
    const std::string region = f.partition[0].as_bytes();
    EXPECT_THAT(f.file_path, testing::HasSubstr("/data/region=" + region + "/"));
    auto lines = ReadWithDuckDb(f.file_path.substr(5));
    auto rows = Rows(lines);
    ASSERT_EQ(rows.size(), 3u);
    for (const auto& r : rows) {
      int64_t id = r["id"].get<int64_t>();
      EXPECT_EQ(fmt::format("r{}", id % 2), region);
      EXPECT_EQ(r["loc"], json::parse(fmt::format(R"({{"city":"c{}"}})", id % 3)));
      EXPECT_EQ(r.size(), 2u);  // only the key columns
    }
    auto ids = FieldIds(lines);
    EXPECT_EQ(ids["id"], 1);
    EXPECT_EQ(ids["loc"], 4);
    EXPECT_EQ(ids["city"], 5);
    EXPECT_FALSE(ids.contains("region"));
  }
}

TEST_F(DeleteWriterTest, EqualityDeletesOfFullRowsPartitionThemselves) {
  auto w = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {1}, schema_, 0);
  ASSERT_TRUE(w) << w.error().ToString();
  ASSERT_OK((*w)->Write(FullRows(4)));
  ASSERT_OK((*w)->WriteToPartition({Value::String("r9")}, FullRows(1)));
  auto files = (*w)->Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 3u);
  for (const auto& f : *files) {
    EXPECT_EQ(f.sort_order_id, 0);
    EXPECT_EQ(f.equality_ids, std::vector<int32_t>{1});
    EXPECT_TRUE(f.lower_bounds.contains(2));  // full rows: every column has metrics
  }
  EXPECT_EQ((*files)[2].partition, (Values{Value::String("r9")}));
}

TEST_F(DeleteWriterTest, EqualityDeletesRejectBadKeys) {
  auto flt = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {3});
  ASSERT_FALSE(flt);
  EXPECT_THAT(flt.error().message, testing::HasSubstr("score"));
  auto in_list = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {8});
  ASSERT_FALSE(in_list);
  EXPECT_THAT(in_list.error().message, testing::HasSubstr("list or map"));
  auto nested = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {4});
  ASSERT_FALSE(nested);
  auto missing = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {42});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_FALSE(EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {}));
  // A delete schema must hold the equality columns and match the table's types.
  auto only_region =
      std::make_shared<Schema>(std::vector<NestedField>{Field(2, "region", StringType())});
  EXPECT_FALSE(EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {1}, only_region));
  auto wrong_type =
      std::make_shared<Schema>(std::vector<NestedField>{Field(1, "id", IntType(), true)});
  auto wt = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {1}, wrong_type);
  ASSERT_FALSE(wt);
  EXPECT_THAT(wt.error().message, testing::HasSubstr("long"));
}

TEST_F(DeleteWriterTest, EqualityDeleteAbortLeavesNoFiles) {
  auto w = EqualityDeleteWriter::Make(factory_, options_, spec_, schema_, {1}, schema_);
  ASSERT_OK(w);
  ASSERT_OK((*w)->Write(FullRows(10)));
  (*w)->Abort();
  EXPECT_THAT(Files(), testing::IsEmpty());
}

}  // namespace delete_writer_test
}  // namespace floe::table
