// Unit tests of the data writer layers: partition paths and Java's escaping,
// grouping rows by partition tuple (nested sources included), option
// resolution, rolling at small target sizes, metrics modes and truncation,
// and Abort leaving no files behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "floe/iceberg/value.h"
#include "floe/table/data_writer.h"
#include "floe/table/partition_key.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::table {
namespace data_writer_test {

namespace fs = std::filesystem;
using iceberg::MetricsMode;
using iceberg::Transform;
using iceberg::Value;
using iceberg::Values;

using test::Field;

// A fresh folder under the build tree, removed at the end.
class TempDir {
 public:
  explicit TempDir(std::string_view name) {
    path_ = fs::path(FLOE_BINARY_DIR) / "test_tmp" / fmt::format("{}_{}", name, RandomUuid());
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }
  // Every regular file below (hidden temporaries included).
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(path_)) {
      if (e.is_regular_file()) out.push_back(e.path().string());
    }
    return out;
  }
  bool HasSubfolders() const {
    for (auto& e : fs::recursive_directory_iterator(path_)) {
      if (e.is_directory()) return true;
    }
    return false;
  }

 private:
  fs::path path_;
};

SchemaPtr EventSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "id", LongType(), true),
      Field(2, "name", StringType()),
      Field(3, "ts", TimestampType()),
      Field(4, "loc", StructType({Field(5, "city", StringType()), Field(6, "zip", IntType())})),
      Field(7, "tags", ListType(8, false, StringType())),
  });
}

// Rows: id = i, name = "name-<i % names>" (null every 7th), ts = base + i hours,
// loc null every 5th else {city c<i%3>, zip i}, tags [t<i%2>].
Batch EventBatch(int64_t first, int64_t n, int names = 3) {
  Batch b(EventSchema());
  const int64_t base = 1704067200000000;  // 2024-01-01T00:00:00
  for (int64_t i = first; i < first + n; ++i) {
    b.columns[0].Append<int64_t>(i);
    if (i % 7 == 6) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendBytes(fmt::format("name-{}", i % names));
    }
    b.columns[2].Append<int64_t>(base + i * 3600000000LL);
    if (i % 5 == 4) {
      b.columns[3].AppendNull();
    } else {
      b.columns[3].AppendStructRow();
      b.columns[3].children[0].AppendBytes(fmt::format("c{}", i % 3));
      b.columns[3].children[1].Append<int32_t>(static_cast<int32_t>(i));
    }
    b.columns[4].children[0].AppendBytes(fmt::format("t{}", i % 2));
    b.columns[4].CloseListRow();
  }
  b.num_rows = n;
  return b;
}

iceberg::TableMetadata Table(const std::string& location, iceberg::PartitionSpec spec,
                             std::map<std::string, std::string> props = {}) {
  iceberg::TableMetadata md;
  md.table_uuid = RandomUuid();
  md.location = location;
  md.schemas = {EventSchema()};
  md.last_column_id = 8;
  md.specs = {std::move(spec)};
  md.default_spec_id = md.specs[0].spec_id();
  md.sort_orders = {iceberg::SortOrder::Unsorted()};
  md.properties = std::move(props);
  return md;
}

Result<DataWriterOptions> Resolve(const iceberg::TableMetadata& md,
                                  const std::map<std::string, std::string>& job = {}) {
  config::Resolver r({&job, &md.properties});
  return DataWriterOptions::Resolve(md, r);
}

// ---------------------------------------------------------------- paths

TEST(PartitionPathTest, UrlEncodeLikeJava) {
  EXPECT_EQ(UrlEncode("abc-XYZ_0.9*"), "abc-XYZ_0.9*");
  EXPECT_EQ(UrlEncode("a b/c=d&e"), "a+b%2Fc%3Dd%26e");
  EXPECT_EQ(UrlEncode("é%"), "%C3%A9%25");
  EXPECT_EQ(UrlEncode(""), "");
}

TEST(PartitionPathTest, HumanStrings) {
  auto s = [](const Transform& t, TypePtr type, Value v) { return HumanString(t, *type, v); };
  EXPECT_EQ(s(Transform::Day(), DateType(), Value::Int(19724)), "2024-01-02");
  EXPECT_EQ(s(Transform::Hour(), TimestampType(), Value::Int(473362)), "2024-01-01-10");
  EXPECT_EQ(s(Transform::Month(), DateType(), Value::Int(648)), "2024-01");
  EXPECT_EQ(s(Transform::Month(), DateType(), Value::Int(-1)), "1969-12");
  EXPECT_EQ(s(Transform::Year(), DateType(), Value::Int(54)), "2024");
  EXPECT_EQ(s(Transform::Day(), DateType(), Value::Int(-1)), "1969-12-31");
  EXPECT_EQ(s(Transform::Hour(), TimestampType(), Value::Int(-1)), "1969-12-31-23");
  EXPECT_EQ(s(Transform::Bucket(16), LongType(), Value::Int(7)), "7");
  EXPECT_EQ(s(Transform::Identity(), StringType(), Value::Null()), "null");
  EXPECT_EQ(s(Transform::Void(), StringType(), Value::Null()), "null");
  EXPECT_EQ(s(Transform::Identity(), DateType(), Value::Int(19724)), "2024-01-02");
  EXPECT_EQ(s(Transform::Identity(), TimeType(), Value::Long(36000000000)), "10:00");
  EXPECT_EQ(s(Transform::Identity(), TimeType(), Value::Long(36001500000)), "10:00:01.500");
  EXPECT_EQ(s(Transform::Identity(), TimeType(), Value::Long(36001000001)), "10:00:01.000001");
  EXPECT_EQ(s(Transform::Identity(), TimestampType(), Value::Long(1704189600000000)), "2024-01-02T10:00");
  EXPECT_EQ(s(Transform::Identity(), TimestampTzType(), Value::Long(1704189601000000)),
            "2024-01-02T10:00:01Z");
  EXPECT_EQ(s(Transform::Identity(), BooleanType(), Value::Boolean(true)), "true");
  EXPECT_EQ(s(Transform::Identity(), DoubleType(), Value::Double(1.0)), "1.0");
  EXPECT_EQ(s(Transform::Identity(), DoubleType(), Value::Double(0.1)), "0.1");
  EXPECT_EQ(s(Transform::Identity(), DoubleType(), Value::Double(1e7)), "1.0E7");
  EXPECT_EQ(s(Transform::Identity(), DoubleType(), Value::Double(-1.5e-5)), "-1.5E-5");
  EXPECT_EQ(s(Transform::Identity(), DoubleType(), Value::Double(123456.75)), "123456.75");
  EXPECT_EQ(s(Transform::Identity(), FloatType(), Value::Float(0.1f)), "0.1");
  EXPECT_EQ(s(Transform::Identity(), DecimalType(9, 2), Value::Decimal(1420)), "14.20");
  EXPECT_EQ(s(Transform::Identity(), DecimalType(9, 2), Value::Decimal(-5)), "-0.05");
  EXPECT_EQ(s(Transform::Identity(), DecimalType(20, 10), Value::Decimal(1)), "1E-10");
  EXPECT_EQ(s(Transform::Truncate(10), DecimalType(9, 0), Value::Decimal(120)), "120");
  EXPECT_EQ(s(Transform::Identity(), BinaryType(), Value::Bytes("\x01\x02\x03\x04")), "AQIDBA==");
  EXPECT_EQ(s(Transform::Identity(), FixedType(2), Value::Bytes("ab")), "YWI=");
  EXPECT_EQ(s(Transform::Identity(), UuidType(),
              Value::Bytes(std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16))),
            "f79c3e09-677c-4bbd-a479-3f349cb785e7");
}

TEST(PartitionPathTest, PathOfTuple) {
  auto schema = EventSchema();
  auto spec = iceberg::PartitionSpecBuilder(*schema).Identity("name").Hour("ts").Identity("loc.city").Build();
  ASSERT_TRUE(spec) << spec.error().ToString();
  auto path = PartitionPath(*spec, *schema, {Value::String("a b/c"), Value::Int(473362), Value::Null()});
  ASSERT_TRUE(path) << path.error().ToString();
  EXPECT_EQ(*path, "name=a+b%2Fc/ts_hour=2024-01-01-10/loc.city=null");
  EXPECT_FALSE(PartitionPath(*spec, *schema, {Value::String("x")}));  // wrong arity
  EXPECT_FALSE(PartitionPath(*spec, *schema, {Value::Int(1), Value::Int(2), Value::Null()}));  // wrong type
  EXPECT_EQ(*PartitionPath(iceberg::PartitionSpec::Unpartitioned(), *schema, {}), "");
}

TEST(PartitionKeyerTest, GroupsRowsByTupleWithNestedSources) {
  auto schema = EventSchema();
  auto spec = iceberg::PartitionSpecBuilder(*schema).Identity("loc.city").Bucket("id", 2).Build();
  ASSERT_TRUE(spec) << spec.error().ToString();
  auto keyer = PartitionKeyer::Make(*spec, schema);
  ASSERT_TRUE(keyer) << keyer.error().ToString();
  Batch b = EventBatch(0, 30);
  auto groups = keyer->Group(b);
  ASSERT_TRUE(groups) << groups.error().ToString();
  int64_t total = 0;
  std::set<std::string> seen;
  for (const auto& g : *groups) {
    ASSERT_EQ(g.partition.size(), 2u);
    total += static_cast<int64_t>(g.rows.size());
    EXPECT_TRUE(std::is_sorted(g.rows.begin(), g.rows.end()));
    for (int64_t r : g.rows) {
      // Rows with a null struct have a null city (4, 9, 14, ...).
      if (r % 5 == 4) {
        EXPECT_TRUE(g.partition[0].is_null()) << r;
      } else {
        EXPECT_EQ(g.partition[0].as_bytes(), fmt::format("c{}", r % 3)) << r;
      }
      auto tuple = keyer->TupleOf(b, r);
      ASSERT_OK(tuple);
      EXPECT_TRUE(*tuple == g.partition);
    }
    auto path = PartitionPath(*spec, *schema, g.partition);
    ASSERT_OK(path);
    EXPECT_TRUE(seen.insert(*path).second) << "two groups for " << *path;
  }
  EXPECT_EQ(total, 30);
  EXPECT_GT(groups->size(), 4u);
  EXPECT_LE(groups->size(), 8u);
}

TEST(PartitionKeyerTest, RejectsSourcesInsideLists) {
  auto schema = EventSchema();
  iceberg::PartitionSpec spec(0, {iceberg::PartitionField{8, 1000, "tag", Transform::Identity()}});
  auto keyer = PartitionKeyer::Make(spec, schema);
  ASSERT_FALSE(keyer);
  EXPECT_THAT(keyer.error().message, testing::HasSubstr("tag"));
}

// ---------------------------------------------------------------- options

TEST(DataWriterOptionsTest, ResolvesWithFlinkPrecedence) {
  auto md = Table("file:/warehouse/db/t", iceberg::PartitionSpec::Unpartitioned(),
                  {{"write.target-file-size-bytes", "1000"},
                   {"write.parquet.compression-codec", "snappy"},
                   {"write.metadata.metrics.default", "counts"},
                   {"write.metadata.metrics.column.name", "full"}});
  auto o = Resolve(md);
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(o->target_file_size_bytes, 1000);
  EXPECT_EQ(o->parquet.codec, Codec::kSnappy);
  EXPECT_EQ(o->data_location, "file:/warehouse/db/t/data");
  EXPECT_EQ(o->metrics.ModeFor("name"), MetricsMode::Full());
  EXPECT_EQ(o->metrics.ModeFor("id"), MetricsMode::Counts());
  EXPECT_EQ(o->sort_order_id, 0);
  // A table with a sort order: floe does not sort, so its files claim none.
  {
    auto sorted = md;
    sorted.default_sort_order_id = 1;
    auto so = Resolve(sorted);
    ASSERT_TRUE(so) << so.error().ToString();
    EXPECT_EQ(so->sort_order_id, 0);
  }

  auto job = Resolve(md, {{"target-file-size-bytes", "2000"}, {"compression-codec", "gzip"},
                          {"compression-level", "3"}});
  ASSERT_TRUE(job) << job.error().ToString();
  EXPECT_EQ(job->target_file_size_bytes, 2000);
  EXPECT_EQ(job->parquet.codec, Codec::kGzip);
  EXPECT_EQ(job->parquet.compression_level, 3);

  auto defaults = Resolve(Table("/w/t/", iceberg::PartitionSpec::Unpartitioned()));
  ASSERT_OK(defaults);
  EXPECT_EQ(defaults->target_file_size_bytes, 536870912);
  EXPECT_EQ(defaults->parquet.codec, Codec::kZstd);
  EXPECT_EQ(defaults->data_location, "/w/t/data");

  auto path = Resolve(Table("/w/t", iceberg::PartitionSpec::Unpartitioned(), {{"write.data.path", "s3://b/d/"}}));
  ASSERT_OK(path);
  EXPECT_EQ(path->data_location, "s3://b/d");
}

TEST(DataWriterOptionsTest, RejectsOtherFormatsAndBadValues) {
  auto md = Table("/w/t", iceberg::PartitionSpec::Unpartitioned());
  auto avro = Resolve(md, {{"write-format", "avro"}});
  ASSERT_FALSE(avro);
  EXPECT_EQ(avro.error().kind, ErrorKind::kUnsupported);
  EXPECT_THAT(avro.error().message, testing::HasSubstr("parquet"));
  auto orc = Resolve(Table("/w/t", iceberg::PartitionSpec::Unpartitioned(), {{"write.format.default", "orc"}}));
  ASSERT_FALSE(orc);
  EXPECT_EQ(orc.error().kind, ErrorKind::kUnsupported);
  auto size = Resolve(md, {{"target-file-size-bytes", "-5"}});
  ASSERT_FALSE(size);
  EXPECT_THAT(size.error().message, testing::HasSubstr("target-file-size-bytes"));
  auto metrics = Resolve(Table("/w/t", iceberg::PartitionSpec::Unpartitioned(),
                               {{"write.metadata.metrics.default", "truncate(x)"}}));
  ASSERT_FALSE(metrics);
  EXPECT_THAT(metrics.error().message, testing::HasSubstr("write.metadata.metrics.default"));
}

// ---------------------------------------------------------------- writing

struct Written {
  std::vector<iceberg::DataFile> files;
};

Result<std::vector<iceberg::DataFile>> WriteAll(const iceberg::TableMetadata& md, const DataWriterOptions& o,
                                                const std::vector<Batch>& batches) {
  auto factory = std::make_shared<OutputFileFactory>(o.data_location, LocationMapper(), 0, 7);
  FLOE_ASSIGN_OR_RETURN(auto w, MakeDataWriter(md, o, factory));
  for (const auto& b : batches) FLOE_RETURN_IF_ERROR(w->Write(b));
  return w->Close();
}

TEST(DataWriterTest, NamesFilesAsJavaAndFillsDataFiles) {
  TempDir dir("names");
  auto schema = EventSchema();
  auto spec = iceberg::PartitionSpecBuilder(*schema).Day("ts").Identity("name").Build();
  ASSERT_OK(spec);
  auto md = Table(FileUri(dir.str()), *spec);
  auto o = Resolve(md);
  ASSERT_OK(o);
  auto files = WriteAll(md, *o, {EventBatch(0, 100)});
  ASSERT_TRUE(files) << files.error().ToString();
  int64_t rows = 0;
  std::set<std::string> uuids;
  for (const auto& f : *files) {
    rows += f.record_count;
    ASSERT_TRUE(f.file_path.starts_with("file:" + dir.str() + "/data/ts_day=2024-01-0")) << f.file_path;
    std::string local = f.file_path.substr(5);
    ASSERT_TRUE(fs::exists(local)) << local;
    EXPECT_EQ(f.file_size_in_bytes, static_cast<int64_t>(fs::file_size(local)));
    std::string name = fs::path(local).filename().string();
    // 00000-7-<uuid>-00001.parquet
    ASSERT_EQ(name.size(), std::string("00000-7-").size() + 36 + std::string("-00001.parquet").size()) << name;
    EXPECT_TRUE(name.starts_with("00000-7-")) << name;
    EXPECT_TRUE(name.ends_with(".parquet")) << name;
    uuids.insert(name.substr(8, 36));
    std::string folder = fs::path(local).parent_path().filename().string();
    EXPECT_TRUE(folder.starts_with("name=name-") || folder == "name=null") << folder;
    EXPECT_EQ(f.partition.size(), 2u);
    EXPECT_EQ(f.file_format, iceberg::FileFormat::kParquet);
    EXPECT_EQ(f.content, iceberg::DataFileContent::kData);
    EXPECT_EQ(f.sort_order_id, 0);
    EXPECT_FALSE(f.split_offsets.empty());
    EXPECT_EQ(f.split_offsets[0], 4);
    EXPECT_OK(f.Validate());
    // Top-level and struct leaves have bounds; list leaves counts only.
    EXPECT_TRUE(f.lower_bounds.contains(1));
    EXPECT_TRUE(f.lower_bounds.contains(3));
    EXPECT_TRUE(f.value_counts.contains(8));
    EXPECT_TRUE(f.null_value_counts.contains(8));
    EXPECT_FALSE(f.lower_bounds.contains(8));
    EXPECT_FALSE(f.upper_bounds.contains(8));
    EXPECT_EQ(f.value_counts.at(1), f.record_count);
  }
  EXPECT_EQ(rows, 100);
  EXPECT_EQ(uuids.size(), 1u);  // one operation id per factory
  // Identity source columns stay in the data files: name has metrics.
  EXPECT_TRUE((*files)[0].value_counts.contains(2));
}

TEST(DataWriterTest, RollsAtSmallTargetSizes) {
  TempDir dir("roll");
  auto md = Table(dir.str(), iceberg::PartitionSpec::Unpartitioned());
  auto o = Resolve(md, {{"target-file-size-bytes", "32768"}});
  ASSERT_OK(o);
  o->parquet.codec = Codec::kUncompressed;
  o->parquet.dictionary_enabled = false;
  std::vector<Batch> batches;
  for (int i = 0; i < 10; ++i) batches.push_back(EventBatch(i * 5000, 5000, 1000));
  auto files = WriteAll(md, *o, batches);
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_GT(files->size(), 5u);
  int64_t rows = 0;
  for (size_t i = 0; i < files->size(); ++i) {
    const auto& f = (*files)[i];
    rows += f.record_count;
    EXPECT_EQ(f.file_size_in_bytes, static_cast<int64_t>(fs::file_size(f.file_path.substr(5))));
    // Every file but the last reaches the target, none overshoots by much.
    if (i + 1 < files->size()) EXPECT_GE(f.file_size_in_bytes, 32768 * 8 / 10) << i;
    EXPECT_LE(f.file_size_in_bytes, 32768 * 2) << i;
    // ids are consecutive across files: bounds of id tile 0..49999.
    auto lo = iceberg::FromBinary(*LongType(), f.lower_bounds.at(1));
    auto hi = iceberg::FromBinary(*LongType(), f.upper_bounds.at(1));
    ASSERT_TRUE(lo && hi);
    EXPECT_EQ(hi->as_long() - lo->as_long() + 1, f.record_count);
  }
  EXPECT_EQ(rows, 50000);
  EXPECT_EQ(dir.Files().size(), files->size());
}

TEST(DataWriterTest, MetricsModesPerColumnAndTruncation) {
  TempDir dir("metrics");
  auto schema = std::make_shared<Schema>(
      std::vector<NestedField>{Field(1, "id", LongType(), true), Field(2, "s_trunc", StringType()),
                               Field(3, "s_full", StringType()), Field(4, "s_counts", StringType()),
                               Field(5, "s_none", StringType()), Field(6, "b", BinaryType()),
                               Field(7, "d", DoubleType()), Field(8, "s_t4", StringType())});
  iceberg::TableMetadata md = Table(dir.str(), iceberg::PartitionSpec::Unpartitioned(),
                                    {{"write.metadata.metrics.column.s_full", "full"},
                                     {"write.metadata.metrics.column.s_counts", "counts"},
                                     {"write.metadata.metrics.column.s_none", "none"},
                                     {"write.metadata.metrics.column.s_t4", "truncate(4)"}});
  md.schemas = {schema};
  auto o = Resolve(md);
  ASSERT_OK(o);
  Batch b(schema);
  const std::string lo = "aaaaaaaaaaaaaaaaaaaaaaaa";  // 24 chars
  const std::string hi = "zzzzzzzzzzzzzzzzzzzzzzzz";
  for (int i = 0; i < 3; ++i) {
    const std::string& v = i == 0 ? lo : hi;
    b.columns[0].Append<int64_t>(i);
    for (int c = 1; c <= 4; ++c) b.columns[c].AppendBytes(v);
    b.columns[5].AppendBytes(std::string(20, static_cast<char>(i == 0 ? 0x01 : 0xFF)));
    b.columns[6].Append<double>(i == 2 ? std::nan("") : i * 1.5);
    b.columns[7].AppendBytes(v);
  }
  b.columns[1].validity = {1, 1, 1};
  b.columns[1].SetValid(2, false);
  b.num_rows = 3;
  auto files = WriteAll(md, *o, {b});
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 1u);
  const auto& f = (*files)[0];
  // truncate(16) default on strings: lower is a prefix, upper a bumped prefix.
  EXPECT_EQ(f.lower_bounds.at(2), lo.substr(0, 16));
  EXPECT_EQ(f.upper_bounds.at(2), std::string(15, 'z') + "{");
  EXPECT_EQ(f.null_value_counts.at(2), 1);
  EXPECT_EQ(f.lower_bounds.at(3), lo);
  EXPECT_EQ(f.upper_bounds.at(3), hi);
  EXPECT_FALSE(f.lower_bounds.contains(4));
  EXPECT_EQ(f.value_counts.at(4), 3);
  EXPECT_EQ(f.null_value_counts.at(4), 0);
  EXPECT_TRUE(f.column_sizes.contains(4));
  EXPECT_FALSE(f.value_counts.contains(5));
  EXPECT_FALSE(f.column_sizes.contains(5));
  EXPECT_FALSE(f.null_value_counts.contains(5));
  // binary: 16 bytes; all-0xFF prefix has no upper bound after truncation.
  EXPECT_EQ(f.lower_bounds.at(6), std::string(16, '\x01'));
  EXPECT_FALSE(f.upper_bounds.contains(6));
  // doubles: NaN counted, not in bounds.
  EXPECT_EQ(f.nan_value_counts.at(7), 1);
  EXPECT_EQ(iceberg::FromBinary(*DoubleType(), f.upper_bounds.at(7))->as_double(), 1.5);
  EXPECT_EQ(f.lower_bounds.at(8), "aaaa");
  EXPECT_EQ(f.upper_bounds.at(8), "zzz{");
  EXPECT_FALSE(f.nan_value_counts.contains(1));
}

TEST(DataWriterTest, AbortLeavesNoFiles) {
  TempDir dir("abort");
  auto schema = EventSchema();
  auto spec = iceberg::PartitionSpecBuilder(*schema).Identity("name").Build();
  ASSERT_OK(spec);
  auto md = Table(dir.str(), *spec);
  auto o = Resolve(md, {{"target-file-size-bytes", "4096"}});
  ASSERT_OK(o);
  auto factory = std::make_shared<OutputFileFactory>(o->data_location);
  {
    auto w = MakeDataWriter(md, *o, factory);
    ASSERT_OK(w);
    for (int i = 0; i < 5; ++i) ASSERT_OK((*w)->Write(EventBatch(i * 20000, 20000)));
    EXPECT_GT(dir.Files().size(), 3u);  // finished files and open temporaries
    (*w)->Abort();
    EXPECT_THAT(dir.Files(), testing::IsEmpty());
    // The folders this write made go too: data/ did not exist before.
    EXPECT_FALSE(fs::exists(dir.str() + "/data/name=name-0"));
    EXPECT_FALSE(fs::exists(dir.str() + "/data"));
    EXPECT_THAT(factory->created_folders(), testing::IsEmpty());
  }
  {
    // Folders that were there before stay, even when empty; new ones go.
    fs::create_directories(dir.str() + "/data/name=name-1");
    auto w = MakeDataWriter(md, *o, factory);
    ASSERT_OK(w);
    ASSERT_OK((*w)->Write(EventBatch(0, 20000)));
    EXPECT_TRUE(fs::exists(dir.str() + "/data/name=name-0"));
    (*w)->Abort();
    EXPECT_TRUE(fs::is_directory(dir.str() + "/data/name=name-1"));
    EXPECT_FALSE(fs::exists(dir.str() + "/data/name=name-0"));
    EXPECT_THAT(factory->created_folders(), testing::IsEmpty());
    fs::remove_all(dir.str() + "/data");
  }
  {
    // Destroyed without Close: a failed write, nothing stays.
    auto w = MakeDataWriter(md, *o, factory);
    ASSERT_OK(w);
    ASSERT_OK((*w)->Write(EventBatch(0, 5000)));
  }
  EXPECT_THAT(dir.Files(), testing::IsEmpty());
  {
    // A bad batch fails with a message; Abort cleans up what came before.
    auto w = MakeDataWriter(md, *o, factory);
    ASSERT_OK(w);
    ASSERT_OK((*w)->Write(EventBatch(0, 3000)));
    Batch bad(std::make_shared<Schema>(std::vector<NestedField>{Field(1, "id", LongType(), true)}));
    bad.columns[0].Append<int64_t>(1);
    bad.num_rows = 1;
    auto st = (*w)->Write(bad);
    ASSERT_FALSE(st);
    EXPECT_THAT(st.error().message, testing::HasSubstr("name"));
    (*w)->Abort();
  }
  EXPECT_THAT(dir.Files(), testing::IsEmpty());
  // Close then Abort (a commit that failed for good) removes the closed files too.
  auto w = MakeDataWriter(md, *o, factory);
  ASSERT_OK(w);
  ASSERT_OK((*w)->Write(EventBatch(0, 300)));
  auto files = (*w)->Close();
  ASSERT_OK(files);
  EXPECT_EQ(dir.Files().size(), files->size());
  (*w)->Abort();
  EXPECT_THAT(dir.Files(), testing::IsEmpty());
}

TEST(DataWriterTest, FactoriesRemoveOnlyTheFoldersTheyMade) {
  TempDir dir("folders");
  const std::string data = dir.str() + "/data";
  fs::create_directories(data);
  OutputFileFactory a(data), b(data);
  // a makes k=1 and k=1/j=2 and publishes a file; b makes only k=1/j=3.
  auto fa = a.Open("k=1/j=2");
  ASSERT_OK(fa);
  ASSERT_OK(fa->output->Write("x", 1));
  ASSERT_OK(fa->output->Commit());
  EXPECT_EQ(a.created_folders(), (std::vector<std::string>{data + "/k=1", data + "/k=1/j=2"}));
  auto fb = b.Open("k=1/j=3");
  ASSERT_OK(fb);
  EXPECT_EQ(b.created_folders(), (std::vector<std::string>{data + "/k=1/j=3"}));
  // a takes its file back: j=2 goes, k=1 stays (b's folder is in it).
  a.Remove(fa->local_path);
  EXPECT_FALSE(fs::exists(data + "/k=1/j=2"));
  EXPECT_TRUE(fs::exists(data + "/k=1/j=3"));
  EXPECT_EQ(a.created_folders(), (std::vector<std::string>{data + "/k=1"}));
  // b aborts its open file: j=3 goes; k=1 is not b's, so b leaves it.
  fb->output->Abort();
  b.ReleaseFolders(fb->local_path);
  EXPECT_FALSE(fs::exists(data + "/k=1/j=3"));
  EXPECT_TRUE(fs::is_directory(data + "/k=1"));
  EXPECT_THAT(b.created_folders(), testing::IsEmpty());
  // a releasing again removes k=1, now empty; data/ was there before and stays.
  a.ReleaseFolders(fa->local_path);
  EXPECT_FALSE(fs::exists(data + "/k=1"));
  EXPECT_TRUE(fs::is_directory(data));
  EXPECT_THAT(a.created_folders(), testing::IsEmpty());
  // A file where a folder should be: a clear error, nothing made.
  ASSERT_OK(WriteLocalFile(data + "/k=9", "f"));
  auto bad = a.Open("k=9/j=1");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, testing::HasSubstr("k=9"));
  EXPECT_THAT(a.created_folders(), testing::IsEmpty());
}

TEST(DataWriterTest, UnmappedRemoteLocationIsAnError) {
  auto md = Table("s3://bucket/t", iceberg::PartitionSpec::Unpartitioned());
  auto o = Resolve(md);
  ASSERT_OK(o);
  auto factory = std::make_shared<OutputFileFactory>(o->data_location);
  auto w = MakeDataWriter(md, *o, factory);
  ASSERT_OK(w);
  auto st = (*w)->Write(EventBatch(0, 10));
  ASSERT_FALSE(st);
  EXPECT_THAT(st.error().message, testing::HasSubstr("s3://bucket/t/data"));
}

TEST(DataWriterTest, MappedRemoteLocationKeepsTheUriInMetadata) {
  TempDir dir("mapped");
  auto md = Table("s3://bucket/t", iceberg::PartitionSpec::Unpartitioned());
  auto o = Resolve(md);
  ASSERT_OK(o);
  LocationMapper mapper;
  mapper.AddMapping("s3://bucket/t", dir.str());
  auto factory = std::make_shared<OutputFileFactory>(o->data_location, mapper);
  auto w = MakeDataWriter(md, *o, factory);
  ASSERT_OK(w);
  ASSERT_OK((*w)->Write(EventBatch(0, 10)));
  auto files = (*w)->Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_TRUE((*files)[0].file_path.starts_with("s3://bucket/t/data/00000-0-")) << (*files)[0].file_path;
  EXPECT_EQ(dir.Files().size(), 1u);
}

}  // namespace data_writer_test
}  // namespace floe::table
