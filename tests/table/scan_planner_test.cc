// Scan planning without files: options, pruning by partition values,
// manifest summaries and column metrics, delete attachment, splits,
// snapshot selection and incremental reads, against hand-built manifests.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/value.h"
#include "floe/table/scan.h"
#include "testing/matchers.h"

namespace floe::table {
namespace scan_planner_test {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestContent;
using iceberg::ManifestEntry;
using iceberg::ManifestEntryStatus;
using iceberg::ManifestFile;
using iceberg::PartitionField;
using iceberg::PartitionSpec;
using iceberg::Snapshot;
using iceberg::SnapshotOperation;
using iceberg::TableMetadata;
using iceberg::Transform;
using iceberg::Value;
using ::testing::HasSubstr;

SchemaPtr TestSchema() {
  return std::make_shared<const Schema>(std::vector<NestedField>{
      {1, "id", true, LongType(), ""},
      {2, "region", false, StringType(), ""},
      {3, "ts", false, TimestampType(), ""},
      {4, "k", false, IntType(), ""},
      {5, "name", false, StringType(), ""},
  });
}

// spec 0: unpartitioned; spec 1: identity(region), bucket[4](id), day(ts), truncate[10](k), void(name)
PartitionSpec TestSpec() {
  return PartitionSpec(1, {
                              {2, 1000, "region", Transform::Identity()},
                              {1, 1001, "id_bucket", Transform::Bucket(4)},
                              {3, 1002, "ts_day", Transform::Day()},
                              {4, 1003, "k_trunc", Transform::Truncate(10)},
                              {5, 1004, "name_null", Transform::Void()},
                          });
}

expr::ExprPtr Filter(const std::string& text) {
  auto parsed = expr::Parse(text);
  EXPECT_TRUE(parsed) << parsed.error().ToString();
  auto bound = expr::Bind(*parsed, *TestSchema());
  EXPECT_TRUE(bound) << bound.error().ToString();
  return *bound;
}

int32_t BucketOf(int64_t id) {
  return iceberg::BucketOfHash(*iceberg::HashValue(*LongType(), Value::Long(id)), 4);
}

constexpr int64_t kDayMicros = 86400LL * 1000000;

// A partition tuple of TestSpec: region, bucket(id), day(ts), trunc(k), void.
iceberg::Values Tuple(std::optional<std::string> region, int64_t id, int32_t day, int32_t k_trunc) {
  return {region ? Value::String(*region) : Value::Null(), Value::Int(BucketOf(id)), Value::Date(day),
          Value::Int(k_trunc), Value::Null()};
}

bool PartMay(const std::string& filter, const iceberg::Values& tuple) {
  return PartitionMayMatch(*Filter(filter), TestSpec(), *TestSchema(), tuple);
}

TEST(ScanPartitionPruning, Identity) {
  auto t = Tuple("eu", 7, 100, 20);
  EXPECT_TRUE(PartMay("region = 'eu'", t));
  EXPECT_FALSE(PartMay("region = 'us'", t));
  EXPECT_FALSE(PartMay("region <> 'eu'", t));
  EXPECT_TRUE(PartMay("region IN ('us', 'eu')", t));
  EXPECT_FALSE(PartMay("region NOT IN ('us', 'eu')", t));
  EXPECT_FALSE(PartMay("region < 'eu'", t));
  EXPECT_TRUE(PartMay("region <= 'eu'", t));
  EXPECT_FALSE(PartMay("region LIKE 'u%'", t));
  EXPECT_TRUE(PartMay("region LIKE 'e%'", t));
  EXPECT_FALSE(PartMay("region IS NULL", t));
  EXPECT_FALSE(PartMay("NOT (region = 'eu')", t));
  EXPECT_TRUE(PartMay("region = 'us' OR k = 25", t));
  EXPECT_FALSE(PartMay("region = 'us' AND k = 25", t));
  auto null_region = Tuple(std::nullopt, 7, 100, 20);
  EXPECT_TRUE(PartMay("region IS NULL", null_region));
  EXPECT_FALSE(PartMay("region IS NOT NULL", null_region));
  EXPECT_FALSE(PartMay("region = 'eu'", null_region));
}

TEST(ScanPartitionPruning, BucketOnlyEqualityAndIn) {
  auto t = Tuple("eu", 7, 100, 20);
  EXPECT_TRUE(PartMay("id = 7", t));
  int64_t other = 8;
  while (BucketOf(other) == BucketOf(7)) ++other;
  EXPECT_FALSE(PartMay("id = " + std::to_string(other), t));
  EXPECT_TRUE(PartMay("id IN (" + std::to_string(other) + ", 7)", t));
  EXPECT_FALSE(PartMay("id IN (" + std::to_string(other) + ")", t));
  // Range predicates cannot be projected through bucket.
  EXPECT_TRUE(PartMay("id > 1000000", t));
  EXPECT_TRUE(PartMay("id <> 7", t));
}

TEST(ScanPartitionPruning, DayAndTruncate) {
  auto t = Tuple("eu", 7, 100, 20);  // day 100 = 1970-04-11; k in [20, 29]
  EXPECT_TRUE(PartMay("ts = TIMESTAMP '1970-04-11T12:00:00'", t));
  EXPECT_FALSE(PartMay("ts = TIMESTAMP '1970-04-12T00:00:00'", t));
  EXPECT_TRUE(PartMay("ts < TIMESTAMP '1970-04-11T00:00:01'", t));
  EXPECT_FALSE(PartMay("ts < TIMESTAMP '1970-04-10T23:59:59'", t));
  // ts < midnight of day 100 is ts <= the last microsecond of day 99: pruned.
  EXPECT_FALSE(PartMay("ts < TIMESTAMP '1970-04-11T00:00:00'", t));
  EXPECT_FALSE(PartMay("ts > TIMESTAMP '1970-04-12T00:00:00'", t));
  EXPECT_TRUE(PartMay("ts >= TIMESTAMP '1970-04-11T23:59:59'", t));
  EXPECT_TRUE(PartMay("k = 25", t));
  EXPECT_FALSE(PartMay("k = 30", t));
  EXPECT_FALSE(PartMay("k = 19", t));
  EXPECT_TRUE(PartMay("k >= 29", t));
  EXPECT_FALSE(PartMay("k >= 30", t));
  EXPECT_FALSE(PartMay("k < 20", t));
  EXPECT_TRUE(PartMay("k <> 25", t));
  // void never prunes.
  EXPECT_TRUE(PartMay("name = 'x'", t));
  EXPECT_TRUE(PartMay("name IS NULL", t));
}

TEST(ScanPartitionPruning, TruncateStringStartsWith) {
  auto schema = std::make_shared<const Schema>(std::vector<NestedField>{{1, "s", false, StringType(), ""}});
  PartitionSpec spec(0, {{1, 1000, "s_trunc", Transform::Truncate(3)}});
  auto bind = [&](const std::string& text) { return *expr::Bind(*expr::Parse(text), *schema); };
  iceberg::Values t{Value::String("abc")};
  EXPECT_TRUE(PartitionMayMatch(*bind("s LIKE 'abcd%'"), spec, *schema, t));
  EXPECT_FALSE(PartitionMayMatch(*bind("s LIKE 'abd%'"), spec, *schema, t));
  EXPECT_TRUE(PartitionMayMatch(*bind("s LIKE 'ab%'"), spec, *schema, t));
  EXPECT_FALSE(PartitionMayMatch(*bind("s LIKE 'b%'"), spec, *schema, t));
  EXPECT_FALSE(PartitionMayMatch(*bind("s = 'abx'"), spec, *schema, t));
  EXPECT_TRUE(PartitionMayMatch(*bind("s = 'abcxyz'"), spec, *schema, t));
}

TEST(ScanManifestPruning, PartitionSummaries) {
  PartitionSpec spec(0, {{4, 1000, "k", Transform::Identity()}});
  ManifestFile m;
  iceberg::PartitionFieldSummary s;
  s.contains_null = false;
  s.lower_bound = *iceberg::ToBinary(*IntType(), Value::Int(10));
  s.upper_bound = *iceberg::ToBinary(*IntType(), Value::Int(20));
  m.partitions = {s};
  auto schema = TestSchema();
  EXPECT_TRUE(ManifestMayMatch(*Filter("k = 15"), spec, *schema, m));
  EXPECT_FALSE(ManifestMayMatch(*Filter("k = 21"), spec, *schema, m));
  EXPECT_FALSE(ManifestMayMatch(*Filter("k < 10"), spec, *schema, m));
  EXPECT_TRUE(ManifestMayMatch(*Filter("k <= 10"), spec, *schema, m));
  EXPECT_FALSE(ManifestMayMatch(*Filter("k IS NULL"), spec, *schema, m));
  EXPECT_TRUE(ManifestMayMatch(*Filter("k IS NOT NULL"), spec, *schema, m));
  // A manifest whose values are all null.
  ManifestFile nulls;
  iceberg::PartitionFieldSummary ns;
  ns.contains_null = true;
  nulls.partitions = {ns};
  EXPECT_FALSE(ManifestMayMatch(*Filter("k = 15"), spec, *schema, nulls));
  EXPECT_TRUE(ManifestMayMatch(*Filter("k IS NULL"), spec, *schema, nulls));
}

DataFile FileWithBounds(int64_t lo, int64_t hi, int64_t rows, int64_t nulls) {
  DataFile f;
  f.file_path = "s3://b/t/data/f.parquet";
  f.record_count = rows;
  f.value_counts[1] = rows;
  f.null_value_counts[1] = nulls;
  f.lower_bounds[1] = *iceberg::ToBinary(*LongType(), Value::Long(lo));
  f.upper_bounds[1] = *iceberg::ToBinary(*LongType(), Value::Long(hi));
  return f;
}

TEST(ScanMetricsPruning, BoundsAndCounts) {
  auto schema = TestSchema();
  DataFile f = FileWithBounds(10, 20, 100, 0);
  EXPECT_TRUE(MetricsMayMatch(*Filter("id = 15"), *schema, f));
  EXPECT_FALSE(MetricsMayMatch(*Filter("id = 5"), *schema, f));
  EXPECT_FALSE(MetricsMayMatch(*Filter("id > 20"), *schema, f));
  EXPECT_TRUE(MetricsMayMatch(*Filter("id >= 20"), *schema, f));
  EXPECT_FALSE(MetricsMayMatch(*Filter("id IS NULL"), *schema, f));
  EXPECT_TRUE(MetricsMayMatch(*Filter("id IS NULL OR id = 12"), *schema, f));
  EXPECT_TRUE(MetricsMayMatch(*Filter("region = 'x'"), *schema, f));  // no metrics: kept
  // 4-byte bounds of a column promoted from int to long still decode.
  DataFile promoted;
  promoted.record_count = 3;
  promoted.lower_bounds[1] = *iceberg::ToBinary(*IntType(), Value::Int(1));
  promoted.upper_bounds[1] = *iceberg::ToBinary(*IntType(), Value::Int(3));
  EXPECT_FALSE(MetricsMayMatch(*Filter("id = 4"), *schema, promoted));
  EXPECT_TRUE(MetricsMayMatch(*Filter("id = 2"), *schema, promoted));
}

// ---------------------------------------------------------------- deletes

std::shared_ptr<TableMetadata> TestMetadata() {
  auto md = std::make_shared<TableMetadata>();
  md->location = "s3://b/t";
  md->schemas = {TestSchema()};
  md->specs = {PartitionSpec::Unpartitioned(0), TestSpec()};
  md->default_spec_id = 1;
  return md;
}

FileScanTask DataTask(std::string path, int64_t seq, int32_t spec_id, iceberg::Values partition) {
  FileScanTask t;
  t.data_file.file_path = std::move(path);
  t.data_file.partition = std::move(partition);
  t.data_file.file_size_in_bytes = 1000;
  t.data_file.record_count = 10;
  t.data_sequence_number = seq;
  t.spec_id = spec_id;
  return t;
}

DeleteFileTaskPtr Delete(DataFileContent content, std::string path, int64_t seq, int32_t spec_id,
                         iceberg::Values partition) {
  auto d = std::make_shared<DeleteFileTask>();
  d->file.content = content;
  d->file.file_path = std::move(path);
  d->file.partition = std::move(partition);
  if (content == DataFileContent::kEqualityDeletes) d->file.equality_ids = {1};
  d->data_sequence_number = seq;
  d->spec_id = spec_id;
  return d;
}

std::vector<std::string> Attached(const FileScanTask& t) {
  std::vector<std::string> out;
  for (const auto& d : t.deletes) out.push_back(d->file.file_path);
  return out;
}

TEST(ScanDeleteAttachment, SequenceNumbersAndScopes) {
  auto md = TestMetadata();
  auto p_eu = Tuple("eu", 1, 1, 0);
  auto p_us = Tuple("us", 1, 1, 0);
  std::vector<FileScanTask> files = {DataTask("d-eu-3", 3, 1, p_eu), DataTask("d-us-3", 3, 1, p_us),
                                     DataTask("d-unpart-3", 3, 0, {})};
  std::vector<DeleteFileTaskPtr> deletes = {
      Delete(DataFileContent::kPositionDeletes, "pos-eu-3", 3, 1, p_eu),    // equal seq: applies
      Delete(DataFileContent::kPositionDeletes, "pos-eu-2", 2, 1, p_eu),    // older: no
      Delete(DataFileContent::kEqualityDeletes, "eq-eu-3", 3, 1, p_eu),     // equal seq: no
      Delete(DataFileContent::kEqualityDeletes, "eq-eu-4", 4, 1, p_eu),     // eu only
      Delete(DataFileContent::kEqualityDeletes, "eq-global-4", 4, 0, {}),   // every spec
      Delete(DataFileContent::kEqualityDeletes, "eq-global-3", 3, 0, {}),   // equal seq: no
      Delete(DataFileContent::kPositionDeletes, "pos-unpart-5", 5, 0, {}),  // spec 0 files only
  };
  ASSERT_OK(AttachDeletes(*md, deletes, &files));
  EXPECT_THAT(Attached(files[0]), ::testing::ElementsAre("pos-eu-3", "eq-eu-4", "eq-global-4"));
  EXPECT_THAT(Attached(files[1]), ::testing::ElementsAre("eq-global-4"));
  EXPECT_THAT(Attached(files[2]), ::testing::ElementsAre("pos-unpart-5", "eq-global-4"));
}

TEST(ScanDeleteAttachment, ReferencedDataFile) {
  auto md = TestMetadata();
  std::vector<FileScanTask> files = {DataTask("a", 1, 0, {}), DataTask("b", 1, 0, {})};
  auto d = Delete(DataFileContent::kPositionDeletes, "pos-a", 2, 0, {});
  std::const_pointer_cast<DeleteFileTask>(d)->file.referenced_data_file = "a";
  ASSERT_OK(AttachDeletes(*md, {d}, &files));
  EXPECT_THAT(Attached(files[0]), ::testing::ElementsAre("pos-a"));
  EXPECT_TRUE(Attached(files[1]).empty());
}

// A deletion vector attaches as a position delete of its referenced data
// file (several share one Puffin path); it must name the file, and a data
// file has one live vector at most.
TEST(ScanDeleteAttachment, DeletionVectorsAttachToTheirDataFileOnly) {
  auto md = TestMetadata();
  auto dv = [](const std::string& data, int64_t offset) {
    auto d = std::make_shared<DeleteFileTask>();
    d->file.content = DataFileContent::kPositionDeletes;
    d->file.file_path = "s3://b/t/data/dv-1.puffin";
    d->file.file_format = iceberg::FileFormat::kPuffin;
    d->file.content_offset = offset;
    d->file.content_size_in_bytes = 40;
    d->file.referenced_data_file = data;
    d->data_sequence_number = 2;
    return d;
  };
  std::vector<FileScanTask> files = {DataTask("a", 1, 0, {}), DataTask("b", 1, 0, {}), DataTask("c", 3, 0, {})};
  ASSERT_OK(AttachDeletes(*md, {dv("a", 4), dv("b", 44), dv("c", 84)}, &files));
  ASSERT_EQ(files[0].deletes.size(), 1u);
  EXPECT_EQ(files[0].deletes[0]->file.content_offset, 4);
  ASSERT_EQ(files[1].deletes.size(), 1u);
  EXPECT_EQ(files[1].deletes[0]->file.content_offset, 44);
  EXPECT_TRUE(files[2].deletes.empty());  // data seq 3 > vector seq 2

  auto st = AttachDeletes(*md, {dv("a", 4), dv("a", 44)}, &files);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
  EXPECT_THAT(st.error().message, HasSubstr("data file a has two live deletion vectors"));
  EXPECT_THAT(st.error().message, HasSubstr("dv-1.puffin at offset 4 and s3://b/t/data/dv-1.puffin at offset 44"));

  auto unnamed = dv("a", 4);
  unnamed->file.referenced_data_file.reset();
  st = AttachDeletes(*md, {unnamed}, &files);
  ASSERT_FALSE(st);
  EXPECT_THAT(st.error().message, HasSubstr("referenced_data_file is required for a deletion vector"));
  EXPECT_THAT(st.error().message, HasSubstr("dv-1.puffin"));
  auto no_size = dv("a", 4);
  no_size->file.content_size_in_bytes.reset();
  st = AttachDeletes(*md, {no_size}, &files);
  ASSERT_FALSE(st);
  EXPECT_THAT(st.error().message, HasSubstr("content_size_in_bytes are required"));
}

// ------------------------------------------------------------------ options

TEST(ScanOptionsTest, ConflictsAreErrorsNamingBothOptions) {
  auto check = [](std::map<std::string, std::string> o, const char* a, const char* b) {
    auto r = ScanOptions::FromOptions(o, {});
    ASSERT_FALSE(r) << a << " + " << b;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidArgument);
    EXPECT_THAT(r.error().message, HasSubstr(a));
    EXPECT_THAT(r.error().message, HasSubstr(b));
  };
  check({{"snapshot-id", "1"}, {"as-of-timestamp", "2"}}, "snapshot-id", "as-of-timestamp");
  check({{"branch", "b"}, {"tag", "t"}}, "branch", "tag");
  check({{"snapshot-id", "1"}, {"branch", "b"}}, "snapshot-id", "branch");
  check({{"start-snapshot-id", "1"}, {"start-tag", "t"}}, "start-snapshot-id", "start-tag");
  check({{"end-snapshot-id", "1"}, {"end-tag", "t"}}, "end-snapshot-id", "end-tag");
  check({{"snapshot-id", "1"}, {"start-snapshot-id", "2"}}, "snapshot-id", "start-snapshot-id");
  check({{"end-snapshot-id", "1"}}, "end-snapshot-id", "start-snapshot-id");
}

TEST(ScanOptionsTest, ValuesDefaultsAndTableProperties) {
  auto r = ScanOptions::FromOptions({{"snapshot-id", "9223372036854775807"}, {"limit", "5"},
                                     {"case-sensitive", "true"}, {"split-lookback", "3"}},
                                    {{"read.split.target-size", "1000"}, {"read.split.open-file-cost", "7"}});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->snapshot_id, 9223372036854775807LL);
  EXPECT_EQ(r->limit, 5);
  EXPECT_TRUE(r->case_sensitive);
  EXPECT_EQ(r->split.split_size, 1000);
  EXPECT_EQ(r->split.open_file_cost, 7);
  EXPECT_EQ(r->split.lookback, 3);
  // A statement option wins over the table property.
  auto s = ScanOptions::FromOptions({{"split-size", "2000"}}, {{"read.split.target-size", "1000"}});
  ASSERT_OK(s);
  EXPECT_EQ(s->split.split_size, 2000);
  auto d = ScanOptions::FromOptions({}, {});
  ASSERT_OK(d);
  EXPECT_EQ(d->split.split_size, 134217728);
  EXPECT_EQ(d->limit, -1);
  EXPECT_FALSE(d->case_sensitive);
}

TEST(ScanOptionsTest, UnknownAndIllTypedOptions) {
  auto r = ScanOptions::FromOptions({{"snapshot-idd", "1"}}, {});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("snapshot-idd"));
  EXPECT_THAT(r.error().message, HasSubstr("snapshot-id"));
  auto t = ScanOptions::FromOptions({{"limit", "many"}}, {});
  ASSERT_FALSE(t);
  EXPECT_THAT(t.error().message, HasSubstr("limit"));
  auto s = ScanOptions::FromOptions({{"split-size", "0"}}, {});
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr("split-size"));
}

// ----------------------------------------------------------------- planning

class FakeManifests : public ManifestSource {
 public:
  std::map<std::string, std::vector<ManifestFile>> lists;
  std::map<std::string, std::vector<ManifestEntry>> manifests;
  int manifests_read = 0;

  Result<std::vector<ManifestFile>> ReadManifestList(const Snapshot& s) override {
    auto it = lists.find(s.manifest_list);
    if (it == lists.end()) return NotFound("manifest list {} is missing", s.manifest_list);
    return it->second;
  }
  Result<std::vector<ManifestEntry>> ReadManifest(const ManifestFile& m) override {
    ++manifests_read;
    auto it = manifests.find(m.manifest_path);
    if (it == manifests.end()) return NotFound("manifest {} is missing", m.manifest_path);
    std::vector<ManifestEntry> out = it->second;
    for (auto& e : out) {
      if (!e.snapshot_id) e.snapshot_id = m.added_snapshot_id;
      if (!e.sequence_number) e.sequence_number = m.sequence_number;
    }
    return out;
  }
};

ManifestEntry Entry(ManifestEntryStatus status, std::string path, DataFileContent content = DataFileContent::kData,
                    iceberg::Values partition = {}) {
  ManifestEntry e;
  e.status = status;
  e.data_file.content = content;
  e.data_file.file_path = std::move(path);
  e.data_file.partition = std::move(partition);
  e.data_file.file_size_in_bytes = 100;
  e.data_file.record_count = 1;
  if (content == DataFileContent::kEqualityDeletes) e.data_file.equality_ids = {1};
  return e;
}

ManifestFile Manifest(std::string path, int64_t seq, int64_t snapshot, int32_t spec = 0,
                      ManifestContent content = ManifestContent::kData) {
  ManifestFile m;
  m.manifest_path = std::move(path);
  m.sequence_number = seq;
  m.added_snapshot_id = snapshot;
  m.partition_spec_id = spec;
  m.content = content;
  return m;
}

Snapshot Snap(int64_t id, std::optional<int64_t> parent, int64_t seq, SnapshotOperation op, int32_t schema_id = 0) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = seq;
  s.timestamp_ms = 1000 * seq;
  s.manifest_list = "list-" + std::to_string(id);
  s.operation = op;
  s.schema_id = schema_id;
  return s;
}

std::vector<std::string> PlannedPaths(const ScanPlan& p) {
  std::vector<std::string> out;
  for (const auto& f : p.files) out.push_back(f.data_file.file_path);
  return out;
}

struct History {
  std::shared_ptr<TableMetadata> md = TestMetadata();
  FakeManifests src;
  History() {
    // S1 append a; S2 append b; S3 overwrite: delete a, add c; S4 append d.
    md->snapshots = {Snap(1, std::nullopt, 1, SnapshotOperation::kAppend),
                     Snap(2, 1, 2, SnapshotOperation::kAppend),
                     Snap(3, 2, 3, SnapshotOperation::kOverwrite),
                     Snap(4, 3, 4, SnapshotOperation::kAppend)};
    md->last_sequence_number = 4;
    md->current_snapshot_id = 4;
    md->refs["main"] = {4, iceberg::SnapshotRefType::kBranch, {}, {}, {}};
    md->refs["t2"] = {2, iceberg::SnapshotRefType::kTag, {}, {}, {}};
    md->snapshot_log = {{1000, 1}, {2000, 2}, {3000, 3}, {4000, 4}};
    src.manifests["m1"] = {Entry(ManifestEntryStatus::kAdded, "a")};
    src.manifests["m2"] = {Entry(ManifestEntryStatus::kAdded, "b")};
    auto del_a = Entry(ManifestEntryStatus::kDeleted, "a");
    del_a.sequence_number = 1;
    del_a.snapshot_id = 3;
    src.manifests["m3"] = {del_a, Entry(ManifestEntryStatus::kAdded, "c")};
    src.manifests["m4"] = {Entry(ManifestEntryStatus::kAdded, "d")};
    src.lists["list-1"] = {Manifest("m1", 1, 1)};
    src.lists["list-2"] = {Manifest("m2", 2, 2), Manifest("m1", 1, 1)};
    src.lists["list-3"] = {Manifest("m3", 3, 3), Manifest("m2", 2, 2)};
    src.lists["list-4"] = {Manifest("m4", 4, 4), Manifest("m3", 3, 3), Manifest("m2", 2, 2)};
  }
  Result<ScanPlan> Plan(std::map<std::string, std::string> options) {
    auto o = ScanOptions::FromOptions(options, {});
    if (!o) return Fail(o.error());
    return PlanScan(md, *o, &src);
  }
};

TEST(ScanPlanTest, SnapshotSelectionAndDeletedEntries) {
  History h;
  auto cur = h.Plan({});
  ASSERT_TRUE(cur) << cur.error().ToString();
  EXPECT_THAT(PlannedPaths(*cur), ::testing::ElementsAre("d", "c", "b"));
  EXPECT_EQ(cur->snapshot_id, 4);
  auto s2 = h.Plan({{"snapshot-id", "2"}});
  ASSERT_OK(s2);
  EXPECT_THAT(PlannedPaths(*s2), ::testing::ElementsAre("b", "a"));
  auto tag = h.Plan({{"tag", "t2"}});
  ASSERT_OK(tag);
  EXPECT_EQ(tag->snapshot_id, 2);
  auto asof = h.Plan({{"as-of-timestamp", "3500"}});
  ASSERT_OK(asof);
  EXPECT_EQ(asof->snapshot_id, 3);
  EXPECT_THAT(PlannedPaths(*asof), ::testing::ElementsAre("c", "b"));
  auto branch = h.Plan({{"branch", "main"}});
  ASSERT_OK(branch);
  EXPECT_EQ(branch->snapshot_id, 4);
  auto missing = h.Plan({{"snapshot-id", "99"}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("99"));
  auto wrong_kind = h.Plan({{"branch", "t2"}});
  ASSERT_FALSE(wrong_kind);
  EXPECT_THAT(wrong_kind.error().message, HasSubstr("is a tag"));
  auto too_early = h.Plan({{"as-of-timestamp", "10"}});
  ASSERT_FALSE(too_early);
  EXPECT_THAT(too_early.error().message, HasSubstr("as-of-timestamp"));
}

TEST(ScanPlanTest, IncrementalAppendsOnly) {
  History h;
  auto ok = h.Plan({{"start-snapshot-id", "1"}, {"end-snapshot-id", "2"}});
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_THAT(PlannedPaths(*ok), ::testing::ElementsAre("b"));
  auto from3 = h.Plan({{"start-snapshot-id", "3"}});
  ASSERT_TRUE(from3) << from3.error().ToString();
  EXPECT_THAT(PlannedPaths(*from3), ::testing::ElementsAre("d"));
  auto over = h.Plan({{"start-snapshot-id", "1"}});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, ErrorKind::kUnsupported);
  EXPECT_THAT(over.error().message, HasSubstr("overwrite"));
  auto tags = h.Plan({{"start-tag", "t2"}, {"end-snapshot-id", "2"}});
  ASSERT_OK(tags);
  EXPECT_TRUE(tags->files.empty());
  auto backwards = h.Plan({{"start-snapshot-id", "4"}, {"end-snapshot-id", "2"}});
  ASSERT_FALSE(backwards);
  EXPECT_THAT(backwards.error().message, HasSubstr("not an ancestor"));
}

TEST(ScanPlanTest, PathLiveTwiceIsCorrupt) {
  History h;
  h.src.manifests["m4"].push_back(Entry(ManifestEntryStatus::kAdded, "b"));
  auto p = h.Plan({});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::kCorrupt);
  EXPECT_THAT(p.error().message, HasSubstr("live twice"));
}

TEST(ScanPlanTest, ProjectionAndFilterErrors) {
  History h;
  ScanOptions o;
  o.columns = {"name", "ID"};
  auto p = PlanScan(h.md, o, &h.src);
  ASSERT_TRUE(p) << p.error().ToString();
  ASSERT_EQ(p->projected_schema->num_fields(), 2);
  EXPECT_EQ(p->projected_schema->fields()[0].id, 5);
  EXPECT_EQ(p->projected_schema->fields()[1].id, 1);
  o.case_sensitive = true;
  auto cs = PlanScan(h.md, o, &h.src);
  ASSERT_FALSE(cs);
  EXPECT_THAT(cs.error().message, HasSubstr("'ID'"));
  ScanOptions f;
  f.filter_text = "nope = 1";
  auto bad = PlanScan(h.md, f, &h.src);
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("nope"));
}

TEST(ScanPlanTest, PartitionAndMetricsPruningInPlans) {
  auto md = TestMetadata();
  md->snapshots = {Snap(1, std::nullopt, 1, SnapshotOperation::kAppend)};
  md->current_snapshot_id = 1;
  md->refs["main"] = {1, iceberg::SnapshotRefType::kBranch, {}, {}, {}};
  md->last_sequence_number = 1;
  FakeManifests src;
  auto eu = Entry(ManifestEntryStatus::kAdded, "eu", DataFileContent::kData, Tuple("eu", 1, 0, 0));
  auto us = Entry(ManifestEntryStatus::kAdded, "us", DataFileContent::kData, Tuple("us", 1, 0, 0));
  us.data_file.lower_bounds[1] = *iceberg::ToBinary(*LongType(), Value::Long(100));
  us.data_file.upper_bounds[1] = *iceberg::ToBinary(*LongType(), Value::Long(200));
  src.manifests["m"] = {eu, us};
  src.lists["list-1"] = {Manifest("m", 1, 1, 1)};
  ScanOptions o;
  o.filter_text = "region = 'us' OR id = 1";
  auto p = PlanScan(md, o, &src);
  ASSERT_TRUE(p) << p.error().ToString();
  EXPECT_THAT(PlannedPaths(*p), ::testing::ElementsAre("eu", "us"));
  o.filter_text = "region = 'us' AND id = 1";
  p = PlanScan(md, o, &src);
  ASSERT_OK(p);
  EXPECT_TRUE(p->files.empty());
  EXPECT_EQ(p->counters.data_files_skipped_by_partition, 1);
  EXPECT_EQ(p->counters.data_files_skipped_by_metrics, 1);
  // Stats are dropped unless include-column-stats.
  o.filter_text = "region = 'us'";
  p = PlanScan(md, o, &src);
  ASSERT_OK(p);
  ASSERT_EQ(p->files.size(), 1u);
  EXPECT_TRUE(p->files[0].data_file.lower_bounds.empty());
  o.include_column_stats = true;
  p = PlanScan(md, o, &src);
  ASSERT_OK(p);
  EXPECT_FALSE(p->files[0].data_file.lower_bounds.empty());
}

TEST(ScanPlanTest, SplitsFollowRowGroupOffsets) {
  History h;
  ScanOptions o;
  o.split.split_size = 1000;
  o.split.open_file_cost = 10;
  auto& b = h.src.manifests["m2"][0].data_file;
  b.file_size_in_bytes = 3000;
  b.split_offsets = {4, 1000, 2000};
  auto p = PlanScan(h.md, o, &h.src);
  ASSERT_TRUE(p) << p.error().ToString();
  // c and d are small (100 bytes); b is cut in three ranges at its row groups.
  int64_t ranges_of_b = 0;
  int64_t covered = 0;
  for (const auto& split : p->splits) {
    int64_t weight = 0;
    for (const auto& r : split) {
      weight += r.weight;
      if (p->files[r.file].data_file.file_path == "b") {
        ++ranges_of_b;
        covered += r.length;
      }
    }
    EXPECT_LE(weight, 1000 + 100);
  }
  EXPECT_EQ(ranges_of_b, 3);
  EXPECT_EQ(covered, 3000);
}

}  // namespace scan_planner_test
}  // namespace floe::table
