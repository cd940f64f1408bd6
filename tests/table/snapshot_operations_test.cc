// Snapshot summaries and operations, pinned: one scenario of appends,
// partition and full overwrites, row deltas (delete files alone and with data),
// an overwrite that also adds delete files and an empty append, each commit's
// operation and full summary compared with the values the one-function
// SnapshotUpdate::Commit produced before it was split into per-operation
// classes (so the split changed no byte of any summary; since then the summaries
// also count removed position and equality delete files, as Java's do). The scenario runs
// through the SnapshotUpdate facade and through AppendFiles / OverwriteFiles /
// RowDelta directly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "floe/iceberg/manifest_io.h"
#include "floe/io/file.h"
#include "floe/table/append_files.h"
#include "floe/table/overwrite_files.h"
#include "floe/table/row_delta.h"
#include "floe/table/table.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table {
namespace snapshot_operations_test {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::DataFileContent;
using Summary = std::map<std::string, std::string>;

/// One commit of the scenario: what it adds and how.
struct Step {
  enum class Kind { kAppend, kOverwritePartitions, kOverwriteAll, kRowDelta } kind;
  std::vector<DataFile> data, deletes;
  std::map<std::string, std::string> properties;
};

/// Commits a step; the tests give one committer per API.
using Committer = std::function<Result<CommitResult>(Table*, const Step&)>;

Result<CommitResult> CommitThroughFacade(Table* t, const Step& s) {
  SnapshotUpdate u(t);
  for (const auto& f : s.data) u.AddDataFile(f);
  for (const auto& f : s.deletes) u.AddDeleteFile(f);
  for (const auto& [k, v] : s.properties) u.Set(k, v);
  if (s.kind == Step::Kind::kOverwritePartitions) u.OverwritePartitions();
  if (s.kind == Step::Kind::kOverwriteAll) u.OverwriteAll();
  return u.Commit();
}

// The same steps through the one class each operation has.
Result<CommitResult> CommitThroughOperations(Table* t, const Step& s) {
  switch (s.kind) {
    case Step::Kind::kAppend: {
      EXPECT_TRUE(s.deletes.empty());
      AppendFiles op(t);
      for (const auto& f : s.data) op.AddDataFile(f);
      for (const auto& [k, v] : s.properties) op.Set(k, v);
      return op.Commit();
    }
    case Step::Kind::kOverwritePartitions:
    case Step::Kind::kOverwriteAll: {
      OverwriteFiles op(t, s.kind == Step::Kind::kOverwriteAll ? OverwriteMode::kAll
                                                               : OverwriteMode::kPartitions);
      for (const auto& f : s.data) op.AddDataFile(f);
      for (const auto& f : s.deletes) op.AddDeleteFile(f);
      for (const auto& [k, v] : s.properties) op.Set(k, v);
      return op.Commit();
    }
    case Step::Kind::kRowDelta: {
      RowDelta op(t);
      for (const auto& f : s.data) op.AddDataFile(f);
      for (const auto& f : s.deletes) op.AddDeleteFile(f);
      for (const auto& [k, v] : s.properties) op.Set(k, v);
      return op.Commit();
    }
  }
  return Internal("unknown step kind");
}

class SnapshotOperationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_snapshot_ops_test_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  Table Create(const std::string& name, bool partitioned,
               std::map<std::string, std::string> props = {}) {
    catalog::TableDefinition def;
    def.properties = std::move(props);
    def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "region", false, StringType(), {}}});
    if (partitioned) {
      iceberg::PartitionSpecBuilder b(def.schema);
      b.Identity("region");
      def.spec = *b.Build();
    }
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_TRUE(t) << t.error().ToString();
    return Table(catalog_.get(), std::move(*t));
  }

  // A content file that exists on disk (its bytes do not matter here).
  DataFile File(const Table& t, const std::string& name, int64_t rows,
                std::optional<std::string> region,
                DataFileContent content = DataFileContent::kData) {
    DataFile f;
    f.content = content;
    std::string local = *t.LocalPath(t.metadata().location) + "/data/" + name;
    fs::create_directories(fs::path(local).parent_path());
    EXPECT_OK(WriteLocalFile(local, "x"));
    f.file_path = FileUri(local);
    f.record_count = rows;
    f.file_size_in_bytes = 100 + rows;
    if (content == DataFileContent::kEqualityDeletes) f.equality_ids = {1};
    if (!t.metadata().DefaultSpec()->is_unpartitioned()) {
      f.partition.push_back(region ? iceberg::Value::String(*region) : iceberg::Value::Null());
    }
    return f;
  }

  /// Runs the scenario on a partitioned and an unpartitioned table and checks
  /// every commit's operation and summary.
  void RunScenario(const Committer& commit) {
    using K = Step::Kind;
    const auto kPos = DataFileContent::kPositionDeletes;
    const auto kEq = DataFileContent::kEqualityDeletes;
    Table p = Create("p", true);
    const std::vector<std::pair<Step, std::pair<std::string, Summary>>> partitioned = {
        {{K::kAppend,
          {File(p, "eu1", 3, "eu"), File(p, "us1", 4, "us"), File(p, "null1", 1, std::nullopt)},
          {},
          {{"floe.input", "in.jsonl"}, {"floe.input-rows", "8"}}},
         {"append",
          {{"added-data-files", "3"},
           {"added-files-size", "308"},
           {"added-records", "8"},
           {"changed-partition-count", "3"},
           {"floe.input", "in.jsonl"},
           {"floe.input-rows", "8"},
           {"total-data-files", "3"},
           {"total-delete-files", "0"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "308"},
           {"total-position-deletes", "0"},
           {"total-records", "8"}}}},
        {{K::kOverwritePartitions, {File(p, "eu2", 7, "eu")}, {}, {}},
         {"overwrite",
          {{"added-data-files", "1"},
           {"added-files-size", "107"},
           {"added-records", "7"},
           {"changed-partition-count", "1"},
           {"deleted-data-files", "1"},
           {"deleted-records", "3"},
           {"removed-files-size", "103"},
           {"total-data-files", "3"},
           {"total-delete-files", "0"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "312"},
           {"total-position-deletes", "0"},
           {"total-records", "12"}}}},
        {{K::kRowDelta, {}, {File(p, "d-eu", 2, "eu", kPos), File(p, "d-us", 1, "us", kEq)}, {}},
         {"delete",
          {{"added-delete-files", "2"},
           {"added-equality-delete-files", "1"},
           {"added-equality-deletes", "1"},
           {"added-files-size", "203"},
           {"added-position-delete-files", "1"},
           {"added-position-deletes", "2"},
           {"changed-partition-count", "2"},
           {"total-data-files", "3"},
           {"total-delete-files", "2"},
           {"total-equality-deletes", "1"},
           {"total-files-size", "515"},
           {"total-position-deletes", "2"},
           {"total-records", "12"}}}},
        {{K::kRowDelta,
          {File(p, "us2", 5, "us")},
          {File(p, "d-us2", 4, "us", kPos)},
          {{"floe.sink-id", "s"}}},
         {"overwrite",
          {{"added-data-files", "1"},
           {"added-delete-files", "1"},
           {"added-files-size", "209"},
           {"added-position-delete-files", "1"},
           {"added-position-deletes", "4"},
           {"added-records", "5"},
           {"changed-partition-count", "1"},
           {"floe.sink-id", "s"},
           {"total-data-files", "4"},
           {"total-delete-files", "3"},
           {"total-equality-deletes", "1"},
           {"total-files-size", "724"},
           {"total-position-deletes", "6"},
           {"total-records", "17"}}}},
        // Replacing partition us drops its data and delete files.
        {{K::kOverwritePartitions,
          {File(p, "us3", 2, "us")},
          {File(p, "d-eu2", 1, "eu", kPos)},
          {}},
         {"overwrite",
          {{"added-data-files", "1"},
           {"added-delete-files", "1"},
           {"added-files-size", "203"},
           {"added-position-delete-files", "1"},
           {"added-position-deletes", "1"},
           {"added-records", "2"},
           {"changed-partition-count", "2"},
           {"deleted-data-files", "2"},
           {"deleted-records", "9"},
           {"removed-delete-files", "2"},
           {"removed-equality-delete-files", "1"},
           {"removed-equality-deletes", "1"},
           {"removed-files-size", "414"},
           {"removed-position-delete-files", "1"},
           {"removed-position-deletes", "4"},
           {"total-data-files", "3"},
           {"total-delete-files", "2"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "513"},
           {"total-position-deletes", "3"},
           {"total-records", "10"}}}},
        {{K::kAppend, {}, {}, {}},
         {"append",
          {{"changed-partition-count", "0"},
           {"total-data-files", "3"},
           {"total-delete-files", "2"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "513"},
           {"total-position-deletes", "3"},
           {"total-records", "10"}}}},
        {{K::kOverwriteAll, {File(p, "eu4", 6, "eu")}, {}, {}},
         {"overwrite",
          {{"added-data-files", "1"},
           {"added-files-size", "106"},
           {"added-records", "6"},
           {"changed-partition-count", "3"},
           {"deleted-data-files", "3"},
           {"deleted-records", "10"},
           {"removed-delete-files", "2"},
           {"removed-files-size", "513"},
           {"removed-position-delete-files", "2"},
           {"removed-position-deletes", "3"},
           {"total-data-files", "1"},
           {"total-delete-files", "0"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "106"},
           {"total-position-deletes", "0"},
           {"total-records", "6"}}}},
    };
    for (size_t i = 0; i < partitioned.size(); ++i) {
      const auto& [step, want] = partitioned[i];
      auto c = commit(&p, step);
      ASSERT_TRUE(c) << "partitioned step " << i << ": " << c.error().ToString();
      EXPECT_EQ(c->operation, want.first) << "partitioned step " << i;
      EXPECT_EQ(c->summary, want.second) << "partitioned step " << i;
      // The committed snapshot carries exactly the summary the commit reported.
      EXPECT_EQ(t_summary(p), c->summary) << "partitioned step " << i;
    }

    Table u = Create("u", false);
    const std::vector<std::pair<Step, std::pair<std::string, Summary>>> unpartitioned = {
        {{K::kAppend, {File(u, "a", 3, {}), File(u, "b", 2, {})}, {}, {}},
         {"append",
          {{"added-data-files", "2"},
           {"added-files-size", "205"},
           {"added-records", "5"},
           {"changed-partition-count", "1"},
           {"total-data-files", "2"},
           {"total-delete-files", "0"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "205"},
           {"total-position-deletes", "0"},
           {"total-records", "5"}}}},
        // An unpartitioned table is replaced whole by a partition overwrite.
        {{K::kOverwritePartitions, {File(u, "c", 4, {})}, {}, {}},
         {"overwrite",
          {{"added-data-files", "1"},
           {"added-files-size", "104"},
           {"added-records", "4"},
           {"changed-partition-count", "1"},
           {"deleted-data-files", "2"},
           {"deleted-records", "5"},
           {"removed-files-size", "205"},
           {"total-data-files", "1"},
           {"total-delete-files", "0"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "104"},
           {"total-position-deletes", "0"},
           {"total-records", "4"}}}},
        // An overwrite that adds nothing deletes.
        {{K::kOverwriteAll, {}, {}, {}},
         {"delete",
          {{"changed-partition-count", "1"},
           {"deleted-data-files", "1"},
           {"deleted-records", "4"},
           {"removed-files-size", "104"},
           {"total-data-files", "0"},
           {"total-delete-files", "0"},
           {"total-equality-deletes", "0"},
           {"total-files-size", "0"},
           {"total-position-deletes", "0"},
           {"total-records", "0"}}}},
    };
    for (size_t i = 0; i < unpartitioned.size(); ++i) {
      const auto& [step, want] = unpartitioned[i];
      auto c = commit(&u, step);
      ASSERT_TRUE(c) << "unpartitioned step " << i << ": " << c.error().ToString();
      EXPECT_EQ(c->operation, want.first) << "unpartitioned step " << i;
      EXPECT_EQ(c->summary, want.second) << "unpartitioned step " << i;
      EXPECT_EQ(t_summary(u), c->summary) << "unpartitioned step " << i;
    }
  }

  /// Files under metadata/ that no snapshot references (manifest lists and
  /// manifests), metadata JSON and the version hint aside.
  std::set<std::string> Unreferenced(const Table& t) {
    std::set<std::string> referenced;
    for (const auto& s : t.metadata().snapshots) {
      referenced.insert(fs::path(s.manifest_list).filename().string());
      auto list = OpenLocalInput(*t.LocalPath(s.manifest_list));
      auto manifests = iceberg::ReadManifestList(**list);
      EXPECT_TRUE(manifests) << manifests.error().ToString();
      for (const auto& m : *manifests)
        referenced.insert(fs::path(m.manifest_path).filename().string());
    }
    std::set<std::string> out;
    for (const auto& e :
         fs::directory_iterator(*t.LocalPath(t.metadata().location) + "/metadata")) {
      std::string name = e.path().filename().string();
      if (name.ends_with(".metadata.json") || name == "version-hint.text") continue;
      if (!referenced.contains(name)) out.insert(name);
    }
    return out;
  }

  static Summary t_summary(const Table& t) {
    const iceberg::Snapshot* s = t.metadata().CurrentSnapshot();
    return s ? s->summary : Summary{};
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

TEST_F(SnapshotOperationsTest, FacadeSummariesAsBeforeTheSplit) {
  RunScenario(CommitThroughFacade);
}

TEST_F(SnapshotOperationsTest, OperationClassesSummariesAsBeforeTheSplit) {
  RunScenario(CommitThroughOperations);
}

// A retry reloads the table: the overwrite filters the new parent, its
// summary counts from it, and the failed attempt's list and rewritten
// manifests are gone.
TEST_F(SnapshotOperationsTest, RetriedOverwriteFiltersTheNewParentAndLeavesNoDebris) {
  Table t =
      Create("retry", true, {{"commit.retry.min-wait-ms", "0"}, {"commit.retry.max-wait-ms", "1"}});
  ASSERT_OK(AppendFiles(&t)
                .AddDataFile(File(t, "eu1", 3, "eu"))
                .AddDataFile(File(t, "us1", 4, "us"))
                .Commit());
  Table stale(catalog_.get(), t.loaded());
  ASSERT_OK(AppendFiles(&t).AddDataFile(File(t, "eu2", 5, "eu")).Commit());
  auto c = OverwriteFiles(&stale, OverwriteMode::kPartitions)
               .AddDataFile(File(t, "eu3", 1, "eu"))
               .Commit();
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->attempts, 2);
  EXPECT_EQ(c->summary.at("deleted-data-files"),
            "2");  // eu1 and eu2, the latter only in the new parent
  EXPECT_EQ(c->summary.at("deleted-records"), "8");
  EXPECT_EQ(c->summary.at("total-records"), "5");
  EXPECT_EQ(c->sequence_number, 3);
  EXPECT_EQ(Unreferenced(stale), std::set<std::string>{});
}

TEST_F(SnapshotOperationsTest, RowDeltaOfDataOnlyIsAnAppend) {
  Table t = Create("rd", false);
  auto c = RowDelta(&t).AddDataFile(File(t, "a", 2, {})).Commit();
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->operation, "append");
}

TEST_F(SnapshotOperationsTest, OperationsCommitToABranch) {
  Table t = Create("br", false);
  ASSERT_OK(AppendFiles(&t).AddDataFile(File(t, "a", 1, {})).Commit());
  auto dev = OverwriteFiles(&t, OverwriteMode::kAll)
                 .AddDataFile(File(t, "b", 2, {}))
                 .ToBranch("dev")
                 .Commit();
  ASSERT_TRUE(dev) << dev.error().ToString();
  EXPECT_EQ(t.metadata().refs.at("dev").snapshot_id, dev->snapshot_id);
  EXPECT_NE(*t.metadata().current_snapshot_id, dev->snapshot_id);  // main unchanged
  EXPECT_EQ(dev->summary.at("total-records"), "2");
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("total-records"), "1");
}

TEST_F(SnapshotOperationsTest, FacadeRejectsMisfiledContent) {
  Table t = Create("m", false);
  auto as_delete = SnapshotUpdate(&t).AddDeleteFile(File(t, "a", 1, {})).Commit();
  ASSERT_FALSE(as_delete);
  EXPECT_EQ(as_delete.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(as_delete.error().message.find("is a data file, not a delete file"), std::string::npos)
      << as_delete.error().message;
  auto as_data = SnapshotUpdate(&t)
                     .AddDataFile(File(t, "d", 1, {}, DataFileContent::kPositionDeletes))
                     .Commit();
  ASSERT_FALSE(as_data);
  EXPECT_NE(as_data.error().message.find("is a delete file"), std::string::npos)
      << as_data.error().message;
  EXPECT_EQ(t.metadata().snapshots.size(), 0u);
}

}  // namespace snapshot_operations_test
}  // namespace floe::table
