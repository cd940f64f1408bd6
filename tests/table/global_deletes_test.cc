// Global equality deletes: on a partitioned table (identity, bucket, both),
// EnsureUnpartitionedSpec adds one unpartitioned spec (not the default) by a
// metadata-only commit, an EqualityDeleteWriter over it writes deletes for
// the partitioned table's schema, and a RowDelta commits them in a delete
// manifest of that spec. Deleted keys living in two partitions disappear from
// both, as floe's scan (PlanScan + ReadAll) and the spec-only reader
// verify_table.mjs --strict agree; a row re-inserted in the same row delta
// (a key moving partition) and a later insert of a deleted key survive. Two
// processes racing to add the spec leave exactly one. A delete file naming a
// spec the table lacks is refused before anything is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "floe/iceberg/metadata_updates.h"
#include "floe/table/append_files.h"
#include "floe/table/data_writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/row_delta.h"
#include "floe/table/scan.h"
#include "floe/table/table.h"
#include "floe/table/table_internal.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/oracle.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/race.h"

namespace floe::table {
namespace global_deletes_test {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestContent;

std::string SortedLines(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

/// The partitionings the deletes must reach across.
enum class Layout { kIdentity, kBucket, kBoth };

class GlobalDeletesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_global_deletes_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  Table Create(const std::string& name, Layout layout) {
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}},
                         {2, "region", false, StringType(), {}},
                         {3, "v", false, StringType(), {}}});
    iceberg::PartitionSpecBuilder b(def.schema);
    if (layout != Layout::kBucket) b.Identity("region");
    if (layout != Layout::kIdentity) b.Bucket("id", 4);
    def.spec = *b.Build();
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_OK(t);
    return Table(catalog_.get(), std::move(*t));
  }

  struct Row {
    int64_t id;
    std::string region, v;
  };
  static Batch Rows(const SchemaPtr& schema, const std::vector<Row>& rows) {
    Batch b(schema);
    for (const auto& r : rows) {
      b.columns[0].Append<int64_t>(r.id);
      b.columns[1].AppendBytes(r.region);
      b.columns[2].AppendBytes(r.v);
    }
    b.num_rows = static_cast<int64_t>(rows.size());
    return b;
  }

  std::shared_ptr<OutputFileFactory> Factory(const Table& t, const DataWriterOptions& o) {
    return std::make_shared<OutputFileFactory>(t.io(), o.data_location);
  }
  DataWriterOptions Options(const Table& t) {
    auto o = DataWriterOptions::Resolve(t.metadata(), config::Resolver(t.metadata().properties));
    EXPECT_OK(o);
    return *o;
  }

  /// Data files of `rows`, partitioned by the table's default spec.
  std::vector<DataFile> WriteData(const Table& t, const std::vector<Row>& rows) {
    DataWriterOptions o = Options(t);
    auto w = MakeDataWriter(t.metadata(), o, Factory(t, o));
    EXPECT_OK(w);
    EXPECT_OK((*w)->Write(Rows(t.metadata().CurrentSchema(), rows)));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    return *files;
  }

  /// Appends `rows` in one snapshot.
  Result<CommitResult> Append(Table* t, const std::vector<Row>& rows) {
    AppendFiles op(t);
    for (auto& f : WriteData(*t, rows)) op.AddDataFile(f);
    return op.Commit();
  }

  /// Equality deletes of `ids` on `id`, written with the spec `spec_id`.
  std::vector<DataFile> WriteGlobalDeletes(const Table& t, int32_t spec_id,
                                           const std::vector<int64_t>& ids) {
    DataWriterOptions o = Options(t);
    SchemaPtr schema = t.metadata().CurrentSchema();
    auto w =
        EqualityDeleteWriter::Make(Factory(t, o), o, *t.metadata().SpecById(spec_id), schema, {1});
    EXPECT_OK(w);
    Batch keys((*w)->delete_schema());
    for (int64_t id : ids) keys.columns[0].Append<int64_t>(id);
    keys.num_rows = static_cast<int64_t>(ids.size());
    EXPECT_OK((*w)->Write(keys));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    return *files;
  }

  /// The table's current rows through floe's scan, sorted JSON lines.
  std::string ScanRows(Table& t) {
    EXPECT_OK(t.Refresh());
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    FileManifestSource source(*md, t.io());
    auto plan = PlanScan(md, ScanOptions{}, &source);
    EXPECT_OK(plan);
    if (!plan) return "";
    auto batches = ReadAll(*plan, t.io());
    EXPECT_OK(batches);
    if (!batches) return "";
    std::vector<std::string> lines;
    for (const auto& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string s;
        AppendJsonRow(b, i, &s);
        lines.push_back(s);
      }
    }
    return SortedLines(lines);
  }

  /// verify_table.mjs --strict on the table folder: its rows (sorted by it).
  std::string VerifyRows(const Table& t) {
    test::OracleResult r = test::Oracle("verify_table.mjs", {*t.LocalPath(t.metadata().location), "--strict"});
    EXPECT_EQ(r.code, 0) << r.command << "\n" << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    return r.out;
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

class GlobalDeletesLayouts : public GlobalDeletesTest,
                             public ::testing::WithParamInterface<Layout> {};

std::string Json(int64_t id, const std::string& region, const std::string& v) {
  return "{\"id\":" + std::to_string(id) + ",\"region\":\"" + region + "\",\"v\":\"" + v + "\"}\n";
}

TEST_P(GlobalDeletesLayouts, DeleteKeysInEveryPartitionAndKeepLaterRows) {
  Table t = Create("g", GetParam());
  const int32_t default_spec = t.metadata().default_spec_id;
  // Keys 1-3 in region a, 4-6 in region b (and over several buckets).
  ASSERT_OK(Append(&t, {{1, "a", "x"}, {2, "a", "x"}, {3, "a", "x"}}));
  ASSERT_OK(Append(&t, {{4, "b", "x"}, {5, "b", "x"}, {6, "b", "x"}}));
  ASSERT_EQ(ScanRows(t), Json(1, "a", "x") + Json(2, "a", "x") + Json(3, "a", "x") +
                             Json(4, "b", "x") + Json(5, "b", "x") + Json(6, "b", "x"));

  // The unpartitioned spec: added once, not the default, no fields.
  ASSERT_OK_AND_ASSIGN(int32_t global, EnsureUnpartitionedSpec(&t));
  EXPECT_NE(global, default_spec);
  EXPECT_EQ(t.metadata().default_spec_id, default_spec);
  ASSERT_EQ(t.metadata().specs.size(), 2u);
  EXPECT_TRUE(t.metadata().SpecById(global)->fields().empty());
  const size_t snapshots = t.metadata().snapshots.size();
  ASSERT_OK_AND_ASSIGN(int32_t again, EnsureUnpartitionedSpec(&t));
  EXPECT_EQ(again, global);
  EXPECT_EQ(t.metadata().specs.size(), 2u);
  EXPECT_EQ(t.metadata().snapshots.size(), snapshots);  // metadata-only

  // Keys 2 (region a) and 5 (region b) deleted; key 3 moves from a to b: its
  // old row is deleted globally and its new row added in the same snapshot
  // (data sequence number equal to the delete's, so the delete spares it).
  std::vector<DataFile> deletes = WriteGlobalDeletes(t, global, {2, 5, 3});
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_TRUE(deletes[0].partition.empty());
  EXPECT_EQ(deletes[0].content, DataFileContent::kEqualityDeletes);
  RowDelta delta(&t);
  delta.AddDeleteFile(deletes[0], global);
  for (auto& f : WriteData(t, {{3, "b", "moved"}})) delta.AddDataFile(f);
  ASSERT_OK_AND_ASSIGN(CommitResult c, delta.Commit());
  EXPECT_EQ(c.operation, "overwrite");
  EXPECT_EQ(c.summary.at("added-equality-delete-files"), "1");

  // The delete manifest is written with the unpartitioned spec.
  ASSERT_OK_AND_ASSIGN(auto manifests, internal::ReadManifests(t, *t.metadata().CurrentSnapshot()));
  int delete_manifests = 0;
  for (const auto& m : manifests) {
    if (m.content != ManifestContent::kDeletes) continue;
    ++delete_manifests;
    EXPECT_EQ(m.partition_spec_id, global);
    EXPECT_TRUE(m.partitions.empty());
  }
  EXPECT_EQ(delete_manifests, 1);

  const std::string after_delete =
      Json(1, "a", "x") + Json(3, "b", "moved") + Json(4, "b", "x") + Json(6, "b", "x");
  EXPECT_EQ(ScanRows(t), after_delete);
  EXPECT_EQ(VerifyRows(t), after_delete);

  // A later insert of a deleted key has a higher sequence number: it stays.
  ASSERT_OK(Append(&t, {{2, "b", "back"}}));
  const std::string after_insert = Json(1, "a", "x") + Json(2, "b", "back") +
                                   Json(3, "b", "moved") + Json(4, "b", "x") + Json(6, "b", "x");
  EXPECT_EQ(ScanRows(t), after_insert);
  EXPECT_EQ(VerifyRows(t), after_insert);
}

INSTANTIATE_TEST_SUITE_P(Layouts, GlobalDeletesLayouts,
                         ::testing::Values(Layout::kIdentity, Layout::kBucket, Layout::kBoth),
                         [](const auto& info) {
                           switch (info.param) {
                             case Layout::kIdentity: return std::string("Identity");
                             case Layout::kBucket: return std::string("Bucket");
                             case Layout::kBoth: return std::string("IdentityAndBucket");
                           }
                           return std::string("?");
                         });

// Partition-scoped deletes (the default spec) and global ones in one row
// delta: one delete manifest per spec, each applying by its own rule.
TEST_F(GlobalDeletesTest, DefaultSpecAndGlobalDeletesInOneRowDelta) {
  Table t = Create("mixed", Layout::kIdentity);
  ASSERT_OK(Append(&t, {{1, "a", "x"}, {2, "a", "x"}}));
  ASSERT_OK(Append(&t, {{1, "b", "y"}, {3, "b", "y"}}));
  ASSERT_OK_AND_ASSIGN(int32_t global, EnsureUnpartitionedSpec(&t));

  // Scoped to region b: deletes id 1 there only (id 1 of region a stays).
  DataWriterOptions o = Options(t);
  SchemaPtr schema = t.metadata().CurrentSchema();
  ASSERT_OK_AND_ASSIGN(
      auto scoped,
      EqualityDeleteWriter::Make(Factory(t, o), o, *t.metadata().DefaultSpec(), schema, {1}));
  Batch key(scoped->delete_schema());
  key.columns[0].Append<int64_t>(1);
  key.num_rows = 1;
  ASSERT_OK(scoped->WriteToPartition({iceberg::Value::String("b")}, key));
  ASSERT_OK_AND_ASSIGN(auto scoped_files, scoped->Close());

  RowDelta delta(&t);
  for (auto& f : scoped_files) delta.AddDeleteFile(f);
  for (auto& f : WriteGlobalDeletes(t, global, {2})) delta.AddDeleteFile(f, global);
  ASSERT_OK_AND_ASSIGN(CommitResult c, delta.Commit());
  EXPECT_EQ(c.operation, "delete");

  ASSERT_OK_AND_ASSIGN(auto manifests, internal::ReadManifests(t, *t.metadata().CurrentSnapshot()));
  std::vector<int32_t> delete_specs;
  for (const auto& m : manifests) {
    if (m.content == ManifestContent::kDeletes) delete_specs.push_back(m.partition_spec_id);
  }
  EXPECT_EQ(delete_specs, (std::vector<int32_t>{t.metadata().default_spec_id, global}));

  const std::string want = Json(1, "a", "x") + Json(3, "b", "y");
  EXPECT_EQ(ScanRows(t), want);
  EXPECT_EQ(VerifyRows(t), want);
}

TEST_F(GlobalDeletesTest, UnknownSpecIsRefusedAndLeavesNothing) {
  Table t = Create("unknown", Layout::kIdentity);
  ASSERT_OK(Append(&t, {{1, "a", "x"}}));
  const std::string meta = *t.LocalPath(t.metadata().location) + "/metadata";
  auto count = [&] {
    return std::distance(fs::directory_iterator(meta), fs::directory_iterator());
  };
  const auto before = count();
  DataWriterOptions o = Options(t);
  ASSERT_OK_AND_ASSIGN(
      auto w, EqualityDeleteWriter::Make(Factory(t, o), o, iceberg::PartitionSpec::Unpartitioned(7),
                                         t.metadata().CurrentSchema(), {1}));
  Batch key(w->delete_schema());
  key.columns[0].Append<int64_t>(1);
  key.num_rows = 1;
  ASSERT_OK(w->Write(key));
  ASSERT_OK_AND_ASSIGN(auto files, w->Close());
  const DataFile& d = files.at(0);
  auto c = RowDelta(&t).AddDeleteFile(d, 7).Commit();
  EXPECT_THAT(c, test::IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(c, test::HasErrorMessage("partition spec 7"));
  EXPECT_EQ(count(), before);
  EXPECT_EQ(t.metadata().snapshots.size(), 1u);
}

// An unpartitioned table already has one: its default spec, no commit.
TEST_F(GlobalDeletesTest, UnpartitionedTableUsesItsDefaultSpec) {
  catalog::TableDefinition def;
  def.schema = Schema({{1, "id", true, LongType(), {}}});
  ASSERT_OK_AND_ASSIGN(auto loaded,
                       catalog_->CreateTable(*catalog::ParseTableIdentifier("db.u"), def));
  Table t(catalog_.get(), std::move(loaded));
  const std::string location = t.loaded().metadata_location;
  ASSERT_OK_AND_ASSIGN(int32_t id, EnsureUnpartitionedSpec(&t));
  EXPECT_EQ(id, 0);
  EXPECT_EQ(t.loaded().metadata_location, location);
}

// Two processes add the spec to the same tables at the same time: each table
// ends with exactly one unpartitioned spec, and both processes got its id.
TEST_F(GlobalDeletesTest, RacingWritersAddOneSpec) {
  const int kTables = 12;
  for (int i = 0; i < kTables; ++i) {
    Table t = Create("race" + std::to_string(i), Layout::kIdentity);
    // Fast retries: the loser of a swap reloads at once.
    auto props = iceberg::UpdateProperties(
        t.metadata(), {{"commit.retry.min-wait-ms", "0"}, {"commit.retry.max-wait-ms", "2"}}, {});
    ASSERT_OK(props);
    ASSERT_OK(catalog_->CommitTable(t.loaded(), *props));
  }
  auto child = [&](int who) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto cat, catalog::OpenHadoopCatalog("c", dir_.string()));
    for (int i = 0; i < kTables; ++i) {
      FLOE_ASSIGN_OR_RETURN(
          auto loaded,
          cat->LoadTable(*catalog::ParseTableIdentifier("db.race" + std::to_string(i))));
      Table mine(cat.get(), std::move(loaded));
      FLOE_ASSIGN_OR_RETURN(int32_t id, EnsureUnpartitionedSpec(&mine));
      if (id != 1) return Internal("table race{}: process {} got spec id {}, want 1", i, who, id);
    }
    return Ok();
  };
  ASSERT_TRUE(test::RaceTwoProcesses(child));
  for (int i = 0; i < kTables; ++i) {
    ASSERT_OK_AND_ASSIGN(
        auto loaded,
        catalog_->LoadTable(*catalog::ParseTableIdentifier("db.race" + std::to_string(i))));
    ASSERT_EQ(loaded.metadata.specs.size(), 2u) << i;
    EXPECT_EQ(loaded.metadata.default_spec_id, 0) << i;
    EXPECT_TRUE(loaded.metadata.SpecById(1)->fields().empty()) << i;
  }
}

}  // namespace global_deletes_test
}  // namespace floe::table
