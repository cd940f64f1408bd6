// RewriteDataFiles (issue 25): compaction of tables floe writes through the
// table API — appends, equality deletes, position delete files (v2),
// deletion vectors (v3), a partitioned table whose spec evolved — read back
// by floe and by the independent reader verify_table.mjs (--deletion-vectors)
// before and after: the same rows, fewer files, and the deletes only the
// rewritten files needed gone. And the safety of the commit (Java's
// RewriteFiles validation): a position delete or deletion vector committed
// meanwhile for a rewritten file, or a rewritten file removed meanwhile,
// fails the rewrite with nothing written left behind; an equality delete
// committed meanwhile still applies to the rewritten rows (their data
// sequence number is the starting snapshot's).
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/config/options.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/value.h"
#include "floe/table/data_writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/deletion_vector_writer.h"
#include "floe/table/rewrite_data_files.h"
#include "floe/table/rewrite_files.h"
#include "floe/table/rewrite_position_deletes.h"
#include "floe/table/row_delta.h"
#include "floe/table/scan.h"
#include "floe/table/table.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "table_fixture.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/oracle.h"

namespace floe::table {
namespace rewrite_data_files_test {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::Value;
using iceberg::Values;
using ::testing::HasSubstr;

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Row {
  int64_t id;
  std::string region;
};

class RewriteDataFilesTest : public testing_util::WarehouseTest {
 protected:
  // A table (id BIGINT, region STRING), identity(region) when partitioned.
  Table MakeTable(const std::string& name, bool partitioned, int format_version = 2) {
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "region", false, StringType(), {}}});
    if (partitioned) {
      auto spec = iceberg::PartitionSpecBuilder(def.schema).Identity("region").Build();
      EXPECT_OK(spec);
      def.spec = *spec;
    }
    def.properties = {{"format-version", std::to_string(format_version)}};
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_TRUE(t) << t.error().ToString();
    return Table(catalog_.get(), std::move(*t));
  }

  Batch Rows(const Table& t, const std::vector<Row>& rows) {
    Batch b(t.metadata().CurrentSchema());
    for (const auto& r : rows) {
      b.columns[0].Append<int64_t>(r.id);
      b.columns[1].AppendBytes(r.region);
    }
    b.num_rows = static_cast<int64_t>(rows.size());
    return b;
  }

  DataWriterOptions WriterOptions(const Table& t) {
    auto o = DataWriterOptions::Resolve(t.metadata(), config::Resolver(t.metadata().properties));
    EXPECT_OK(o);
    return *o;
  }

  // Appends the rows as one commit (one file per partition); returns the files.
  std::vector<DataFile> Append(Table& t, const std::vector<Row>& rows) {
    EXPECT_OK(t.Refresh());
    auto factory = std::make_shared<OutputFileFactory>(t.io(), WriterOptions(t).data_location);
    auto w = MakeDataWriter(t.metadata(), WriterOptions(t), factory);
    EXPECT_OK(w);
    EXPECT_OK((*w)->Write(Rows(t, rows)));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    SnapshotUpdate u(&t);
    for (const auto& f : *files) u.AddDataFile(f);
    EXPECT_OK(u.Commit());
    return *files;
  }

  // Commits equality deletes on id for `ids` (partition of each row given).
  void DeleteByKey(Table& t, const std::vector<Row>& rows) {
    EXPECT_OK(t.Refresh());
    const auto& md = t.metadata();
    auto factory = std::make_shared<OutputFileFactory>(t.io(), WriterOptions(t).data_location);
    auto w = EqualityDeleteWriter::Make(factory, WriterOptions(t), *md.DefaultSpec(), md.CurrentSchema(), {1},
                                        md.CurrentSchema());
    EXPECT_OK(w);
    EXPECT_OK((*w)->Write(Rows(t, rows)));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    RowDelta d(&t);
    for (const auto& f : *files) d.AddDeleteFile(f);
    EXPECT_OK(d.Commit());
  }

  // Commits position deletes (v2 files) of `positions` in data file `f`.
  Result<CommitResult> DeletePositions(Table& t, const DataFile& f, const std::vector<int64_t>& positions) {
    FLOE_RETURN_IF_ERROR(t.Refresh());
    const auto& md = t.metadata();
    auto factory = std::make_shared<OutputFileFactory>(t.io(), WriterOptions(t).data_location);
    FLOE_ASSIGN_OR_RETURN(auto w,
                          PositionDeleteWriter::Make(factory, WriterOptions(t), *md.DefaultSpec(), md.CurrentSchema()));
    FLOE_RETURN_IF_ERROR(w->Delete(f.file_path, positions, f.partition));
    FLOE_ASSIGN_OR_RETURN(auto files, w->Close());
    RowDelta d(&t);
    for (const auto& x : files) d.AddDeleteFile(x);
    return d.Commit();
  }

  // Commits deletion vectors (v3) of `positions` in data file `f`.
  Result<CommitResult> DeleteVector(Table& t, const DataFile& f, const std::vector<int64_t>& positions) {
    FLOE_RETURN_IF_ERROR(t.Refresh());
    DeletionVectorWriter w(&t);
    FLOE_RETURN_IF_ERROR(w.Delete(f.file_path, positions));
    FLOE_ASSIGN_OR_RETURN(DeletionVectorUpdate u, w.Write());
    RowDelta d(&t);
    u.AddTo(&d);
    auto r = d.Commit();
    if (!r) w.Abort();
    return r;
  }

  std::vector<std::string> FloeRows(Table& t) {
    EXPECT_OK(t.Refresh());
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    FileManifestSource source(*md, t.io());
    auto plan = PlanScan(md, ScanOptions{}, &source);
    EXPECT_OK(plan);
    if (!plan) return {};
    auto batches = ReadAll(*plan, t.io());
    EXPECT_OK(batches);
    std::vector<std::string> lines;
    if (!batches) return lines;
    for (const auto& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string s;
        AppendJsonRow(b, i, &s);
        lines.push_back(std::move(s));
      }
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  // floe's rows, checked against verify_table.mjs.
  std::vector<std::string> CheckedRows(Table& t) {
    std::vector<std::string> rows = FloeRows(t);
    test::OracleResult v = test::Oracle("verify_table.mjs", {TableDir(t), "--deletion-vectors"});
    EXPECT_EQ(v.code, 0) << v.command << ": " << v.err;
    EXPECT_EQ(rows, SortedLines(v.out));
    return rows;
  }

  struct Counts {
    int64_t data = 0, position = 0, equality = 0;
  };
  Counts LiveCounts(Table& t) {
    EXPECT_OK(t.Refresh());
    Counts c;
    const iceberg::Snapshot* s = t.metadata().CurrentSnapshot();
    if (!s) return c;
    auto entries = LiveEntries(t, *s);
    EXPECT_OK(entries);
    for (const auto& e : *entries) {
      switch (e.data_file.content) {
        case iceberg::DataFileContent::kData: ++c.data; break;
        case iceberg::DataFileContent::kPositionDeletes: ++c.position; break;
        case iceberg::DataFileContent::kEqualityDeletes: ++c.equality; break;
      }
    }
    return c;
  }

  // Every regular file under the table's data folder.
  std::set<std::string> DataFolderFiles(const Table& t) {
    std::set<std::string> out;
    const fs::path d = fs::path(TableDir(t)) / "data";
    if (!fs::exists(d)) return out;
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      if (e.is_regular_file()) out.insert(e.path().string());
    }
    return out;
  }

  Result<RewriteDataFilesResult> Rewrite(Table& t, std::map<std::string, std::string> options = {},
                                         const std::string& where = "") {
    FLOE_RETURN_IF_ERROR(t.Refresh());
    FLOE_ASSIGN_OR_RETURN(auto o, RewriteDataFilesOptions::Resolve(t.metadata(), options));
    o.where = where;
    return RewriteDataFiles(&t, o);
  }

  static std::vector<Row> Ids(int64_t from, int64_t to, const std::string& region = "eu") {
    std::vector<Row> out;
    for (int64_t i = from; i < to; ++i) out.push_back({i, region});
    return out;
  }
};

TEST_F(RewriteDataFilesTest, SmallAppendsBecomeOneFile) {
  Table t = MakeTable("append", false);
  for (int i = 0; i < 6; ++i) Append(t, Ids(i * 10, i * 10 + 10));
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 60u);
  ASSERT_EQ(LiveCounts(t).data, 6);
  const int64_t start = t.metadata().CurrentSnapshot()->snapshot_id;
  const int64_t start_seq = t.metadata().CurrentSnapshot()->sequence_number;
  auto r = Rewrite(t);
  ASSERT_OK(r);
  EXPECT_EQ(r->starting_snapshot_id, start);
  EXPECT_EQ(r->file_groups, 1);
  EXPECT_EQ(r->rewritten_data_files_count, 6);
  EXPECT_EQ(r->added_data_files_count, 1);
  ASSERT_EQ(r->snapshot_ids.size(), 1u);
  EXPECT_EQ(CheckedRows(t), before);
  EXPECT_EQ(LiveCounts(t).data, 1);
  // A replace snapshot with the spec's summary counts; the new file keeps
  // the starting snapshot's sequence number.
  const iceberg::Snapshot* s = t.metadata().CurrentSnapshot();
  EXPECT_EQ(s->operation, iceberg::SnapshotOperation::kReplace);
  EXPECT_EQ(s->summary.at("deleted-data-files"), "6");
  EXPECT_EQ(s->summary.at("added-data-files"), "1");
  EXPECT_EQ(s->summary.at("total-records"), "60");
  auto entries = LiveEntries(t, *s);
  ASSERT_OK(entries);
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].sequence_number, start_seq);
  EXPECT_EQ((*entries)[0].file_sequence_number, s->sequence_number);
  // Nothing left to do: one file is below min-input-files.
  auto again = Rewrite(t);
  ASSERT_OK(again);
  EXPECT_EQ(again->file_groups, 0);
  EXPECT_TRUE(again->snapshot_ids.empty());
}

TEST_F(RewriteDataFilesTest, MinInputFilesAndRewriteAllDecideWhatIsRewritten) {
  Table t = MakeTable("opts", false);
  for (int i = 0; i < 3; ++i) Append(t, Ids(i * 10, i * 10 + 10));
  auto r = Rewrite(t);  // 3 small files < min-input-files 5, 3 files < target
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 0);
  EXPECT_EQ(LiveCounts(t).data, 3);
  r = Rewrite(t, {{"min-input-files", "3"}});
  ASSERT_OK(r);
  EXPECT_EQ(r->rewritten_data_files_count, 3);
  EXPECT_EQ(LiveCounts(t).data, 1);
  // rewrite-all rewrites even the single file.
  r = Rewrite(t, {{"rewrite-all", "true"}});
  ASSERT_OK(r);
  EXPECT_EQ(r->rewritten_data_files_count, 1);
  EXPECT_EQ(CheckedRows(t).size(), 30u);
  // max-file-group-size-bytes: groups of at most one file each, so three
  // small files stay three (a group of one is not rewritten)...
  for (int i = 3; i < 5; ++i) Append(t, Ids(i * 10, i * 10 + 10));
  ASSERT_EQ(LiveCounts(t).data, 3);
  int64_t largest = 0;
  auto entries = LiveEntries(t, *t.metadata().CurrentSnapshot());
  ASSERT_OK(entries);
  for (const auto& e : *entries) largest = std::max(largest, e.data_file.file_size_in_bytes);
  const std::string one_file = std::to_string(largest + largest / 3);
  r = Rewrite(t, {{"min-input-files", "2"}, {"max-file-group-size-bytes", one_file}});
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 0);
  // ...and with rewrite-all each is rewritten on its own: three groups, three files.
  r = Rewrite(t, {{"rewrite-all", "true"}, {"max-file-group-size-bytes", one_file}});
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 3);
  EXPECT_EQ(LiveCounts(t).data, 3);
  r = Rewrite(t, {{"min-input-files", "2"}});
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 1);
  EXPECT_EQ(LiveCounts(t).data, 1);
  EXPECT_EQ(CheckedRows(t).size(), 50u);
  // Bad options: named.
  EXPECT_THAT(Rewrite(t, {{"min-input-file", "3"}}), test::HasErrorMessage("min-input-file"));
  EXPECT_THAT(Rewrite(t, {{"min-file-size-bytes", "1000"}, {"target-file-size-bytes", "100"}}),
              test::HasErrorMessage("min-file-size-bytes 1000 is above the target file size 100"));
  EXPECT_THAT(Rewrite(t, {{"use-starting-sequence-number", "false"}}),
              test::HasErrorMessage("use-starting-sequence-number=false"));
}

TEST_F(RewriteDataFilesTest, EqualityDeletesAreAppliedAndDropped) {
  Table t = MakeTable("eq", true);
  for (int i = 0; i < 5; ++i) {
    Append(t, Ids(i * 10, i * 10 + 10, "eu"));
    Append(t, Ids(100 + i * 10, 100 + i * 10 + 10, "us"));
  }
  DeleteByKey(t, {{3, "eu"}, {17, "eu"}, {104, "us"}});
  Append(t, Ids(200, 205, "eu"));  // newer than the deletes
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 102u);
  ASSERT_EQ(LiveCounts(t).equality, 2);  // one per partition
  auto r = Rewrite(t);
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 2);  // one per partition
  EXPECT_EQ(r->rewritten_data_files_count, 11);
  EXPECT_EQ(r->added_data_files_count, 2);
  EXPECT_EQ(r->removed_delete_files_count, 2);
  EXPECT_EQ(CheckedRows(t), before);
  const Counts c = LiveCounts(t);
  EXPECT_EQ(c.data, 2);
  EXPECT_EQ(c.equality, 0);
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("removed-delete-files"), "2");
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("removed-equality-deletes"), "3");
}

TEST_F(RewriteDataFilesTest, AFilterLimitsTheRewriteAndKeepsDeletesOthersNeed) {
  Table t = MakeTable("where", true);
  for (int i = 0; i < 5; ++i) {
    Append(t, Ids(i * 10, i * 10 + 10, "eu"));
    Append(t, Ids(100 + i * 10, 100 + i * 10 + 10, "us"));
  }
  DeleteByKey(t, {{3, "eu"}, {104, "us"}});
  const auto before = CheckedRows(t);
  auto r = Rewrite(t, {}, "region = 'us'");
  ASSERT_OK(r);
  EXPECT_EQ(r->rewritten_data_files_count, 5);
  EXPECT_EQ(r->removed_delete_files_count, 1);  // us's; eu's still applies
  EXPECT_EQ(CheckedRows(t), before);
  const Counts c = LiveCounts(t);
  EXPECT_EQ(c.data, 6);
  EXPECT_EQ(c.equality, 1);
}

TEST_F(RewriteDataFilesTest, PositionDeleteFilesAreAppliedAndDropped) {
  Table t = MakeTable("pos", false);
  std::vector<DataFile> files;
  for (int i = 0; i < 5; ++i) files.push_back(Append(t, Ids(i * 10, i * 10 + 10))[0]);
  ASSERT_OK(DeletePositions(t, files[0], {0, 5}));
  ASSERT_OK(DeletePositions(t, files[3], {9}));
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 47u);
  ASSERT_EQ(LiveCounts(t).position, 2);
  auto r = Rewrite(t);
  ASSERT_OK(r);
  EXPECT_EQ(r->removed_delete_files_count, 2);
  EXPECT_EQ(CheckedRows(t), before);
  const Counts c = LiveCounts(t);
  EXPECT_EQ(c.data, 1);
  EXPECT_EQ(c.position, 0);
}

TEST_F(RewriteDataFilesTest, DeleteFileThresholdRewritesAFileWithManyDeletes) {
  Table t = MakeTable("thr", false);
  // One big-enough file (rewrite by size would skip it) with two delete files.
  std::map<std::string, std::string> sizes = {{"target-file-size-bytes", "100"},
                                              {"min-file-size-bytes", "1"},
                                              {"max-file-size-bytes", "100000000"}};
  const DataFile f = Append(t, Ids(0, 50))[0];
  ASSERT_OK(DeletePositions(t, f, {1}));
  ASSERT_OK(DeletePositions(t, f, {2}));
  const auto before = CheckedRows(t);
  auto r = Rewrite(t, sizes);
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 0);
  sizes["delete-file-threshold"] = "2";
  r = Rewrite(t, sizes);
  ASSERT_OK(r);
  EXPECT_EQ(r->rewritten_data_files_count, 1);
  EXPECT_EQ(r->removed_delete_files_count, 2);
  EXPECT_EQ(CheckedRows(t), before);
  EXPECT_EQ(LiveCounts(t).position, 0);
}

TEST_F(RewriteDataFilesTest, DeletionVectorsAreAppliedAndDroppedOnV3) {
  Table t = MakeTable("dv", false, 3);
  std::vector<DataFile> files;
  for (int i = 0; i < 5; ++i) files.push_back(Append(t, Ids(i * 10, i * 10 + 10))[0]);
  ASSERT_OK(DeleteVector(t, files[1], {0, 1, 2}));
  ASSERT_OK(DeleteVector(t, files[4], {7}));
  DeleteByKey(t, {{25, "eu"}});
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 45u);
  auto r = Rewrite(t);
  ASSERT_OK(r);
  EXPECT_EQ(r->removed_delete_files_count, 3);
  EXPECT_EQ(CheckedRows(t), before);
  const Counts c = LiveCounts(t);
  EXPECT_EQ(c.data, 1);
  EXPECT_EQ(c.position, 0);
  EXPECT_EQ(c.equality, 0);
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("removed-dvs"), "2");
}

TEST_F(RewriteDataFilesTest, PartitionedTableWithEvolvedSpecRewritesEachSpecApart) {
  Table t = MakeTable("evo", false);
  for (int i = 0; i < 5; ++i) Append(t, {{i, "eu"}, {100 + i, "us"}});
  // The spec evolves to identity(region); more small files in both partitions.
  {
    ASSERT_OK(t.Refresh());
    auto spec = iceberg::PartitionSpecBuilder(*t.metadata().CurrentSchema(), t.metadata().last_partition_id)
                    .Identity("region")
                    .Build();
    ASSERT_OK(spec);
    auto next = iceberg::AddPartitionSpec(t.metadata(), *spec);
    ASSERT_OK(next);
    next->default_spec_id = next->specs.back().spec_id();
    auto loaded = catalog_->CommitTable(t.loaded(), std::move(*next));
    ASSERT_OK(loaded);
    t.Reset(std::move(*loaded));
  }
  for (int i = 0; i < 5; ++i) Append(t, {{10 + i, "eu"}, {110 + i, "us"}});
  DeleteByKey(t, {{12, "eu"}});
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 19u);
  ASSERT_EQ(LiveCounts(t).data, 15);
  auto r = Rewrite(t);
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 3);  // spec 0; spec 1 eu; spec 1 us
  EXPECT_EQ(CheckedRows(t), before);
  EXPECT_EQ(LiveCounts(t).data, 3);
  EXPECT_EQ(LiveCounts(t).equality, 0);
  // Each new file stays in the spec it was read from.
  auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
  FileManifestSource source(*md, t.io());
  auto plan = PlanScan(md, ScanOptions{}, &source);
  ASSERT_OK(plan);
  std::multiset<int32_t> specs;
  for (const auto& task : plan->files) specs.insert(task.spec_id);
  EXPECT_EQ(specs, (std::multiset<int32_t>{0, 1, 1}));
}

TEST_F(RewriteDataFilesTest, PartialProgressCommitsGroupsApart) {
  Table t = MakeTable("partial", true);
  for (const char* region : {"eu", "us", "ap"}) {
    for (int i = 0; i < 5; ++i) Append(t, Ids(i * 10, i * 10 + 10, region));
  }
  const auto before = CheckedRows(t);
  auto r = Rewrite(t, {{"partial-progress.enabled", "true"}, {"partial-progress.max-commits", "2"},
                       {"max-concurrent-file-group-rewrites", "2"}});
  ASSERT_OK(r);
  EXPECT_EQ(r->file_groups, 3);
  EXPECT_EQ(r->snapshot_ids.size(), 2u);
  EXPECT_EQ(r->rewritten_data_files_count, 15);
  EXPECT_EQ(CheckedRows(t), before);
  EXPECT_EQ(LiveCounts(t).data, 3);
  EXPECT_THAT(Rewrite(t, {{"partial-progress.max-commits", "2"}}),
              test::HasErrorMessage("partial-progress.max-commits needs partial-progress.enabled=true"));
}

// A commit that lands between the rewrite's read and its commit: injected
// through the attempt check of the rewrite's RewriteFiles is not possible
// from outside, so the tests commit on a second handle of the same table
// after planning by hand (RewriteFiles directly).
class RewriteConflict : public RewriteDataFilesTest {
 protected:
  // The files of `t`'s current snapshot rewritten into one new file (rows
  // read by floe with deletes applied), committed by RewriteFiles from
  // `start` — after `meanwhile` ran.
  Result<CommitResult> RewriteAfter(Table& t, const std::function<void()>& meanwhile) {
    FLOE_RETURN_IF_ERROR(t.Refresh());
    const iceberg::Snapshot* start = t.metadata().CurrentSnapshot();
    const int64_t start_id = start->snapshot_id, start_seq = start->sequence_number;
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    FileManifestSource source(*md, t.io());
    FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(md, ScanOptions{}, &source));
    FLOE_ASSIGN_OR_RETURN(auto batches, ReadAll(plan, t.io()));
    auto factory = std::make_shared<OutputFileFactory>(t.io(), WriterOptions(t).data_location);
    FLOE_ASSIGN_OR_RETURN(auto w, MakeDataWriter(*md, WriterOptions(t), factory));
    for (const auto& b : batches) FLOE_RETURN_IF_ERROR(w->Write(b));
    FLOE_ASSIGN_OR_RETURN(auto files, w->Close());
    meanwhile();
    RewriteFiles rw(&t, start_id, start_seq);
    for (const auto& task : plan.files) {
      rw.DeleteDataFile(task.data_file, task.spec_id);
      for (const auto& d : task.deletes) rw.DeleteDeleteFile(d->file);
    }
    for (const auto& f : files) rw.AddDataFile(f, 0);
    auto r = rw.Commit();
    if (!r) w->Abort();
    return r;
  }
};

TEST_F(RewriteConflict, APositionDeleteCommittedMeanwhileFailsTheRewrite) {
  Table t = MakeTable("c1", false);
  std::vector<DataFile> files;
  for (int i = 0; i < 3; ++i) files.push_back(Append(t, Ids(i * 10, i * 10 + 10))[0]);
  const auto data_before = DataFolderFiles(t);
  std::vector<std::string> after_delete;
  auto r = RewriteAfter(t, [&] {
    Table other(catalog_.get(), *catalog_->LoadTable(t.id()));
    ASSERT_OK(DeletePositions(other, files[1], {4}));
    after_delete = FloeRows(other);
  });
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCommitFailed);
  EXPECT_THAT(r.error().message, HasSubstr("added position deletes"));
  // The row stays deleted (not resurrected), nothing of the rewrite is left.
  EXPECT_EQ(CheckedRows(t), after_delete);
  EXPECT_EQ(after_delete.size(), 29u);
  std::set<std::string> now = DataFolderFiles(t);
  for (const auto& f : data_before) now.erase(f);
  EXPECT_EQ(now.size(), 1u);  // the position delete file only
  EXPECT_THAT(*now.begin(), HasSubstr("deletes"));
}

TEST_F(RewriteConflict, ADeletionVectorCommittedMeanwhileFailsTheRewrite) {
  Table t = MakeTable("c2", false, 3);
  std::vector<DataFile> files;
  for (int i = 0; i < 3; ++i) files.push_back(Append(t, Ids(i * 10, i * 10 + 10))[0]);
  ASSERT_OK(DeleteVector(t, files[0], {0}));
  std::vector<std::string> after_delete;
  auto r = RewriteAfter(t, [&] {
    Table other(catalog_.get(), *catalog_->LoadTable(t.id()));
    ASSERT_OK(DeleteVector(other, files[0], {1}));  // replaces the rewrite's vector
    after_delete = FloeRows(other);
  });
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCommitFailed);
  EXPECT_EQ(CheckedRows(t), after_delete);
  EXPECT_EQ(after_delete.size(), 28u);
}

TEST_F(RewriteConflict, ARewrittenFileRemovedMeanwhileFailsTheRewrite) {
  Table t = MakeTable("c3", false);
  for (int i = 0; i < 3; ++i) Append(t, Ids(i * 10, i * 10 + 10));
  auto r = RewriteAfter(t, [&] {
    Table other(catalog_.get(), *catalog_->LoadTable(t.id()));
    auto o = RewriteDataFilesOptions::Resolve(other.metadata(), {{"rewrite-all", "true"}});
    ASSERT_OK(o);
    ASSERT_OK(RewriteDataFiles(&other, *o));  // another compaction wins
  });
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("is no longer live"));
  EXPECT_EQ(CheckedRows(t).size(), 30u);
  EXPECT_EQ(LiveCounts(t).data, 1);
}

TEST_F(RewriteConflict, AnEqualityDeleteCommittedMeanwhileStillApplies) {
  Table t = MakeTable("c4", false);
  for (int i = 0; i < 3; ++i) Append(t, Ids(i * 10, i * 10 + 10));
  auto r = RewriteAfter(t, [&] {
    Table other(catalog_.get(), *catalog_->LoadTable(t.id()));
    DeleteByKey(other, {{5, "eu"}, {25, "eu"}});
  });
  ASSERT_OK(r);
  // The rewritten rows carry the starting sequence number: the newer
  // equality delete still removes ids 5 and 25.
  const auto rows = CheckedRows(t);
  EXPECT_EQ(rows.size(), 28u);
  for (const auto& row : rows) {
    EXPECT_THAT(row, ::testing::Not(HasSubstr("\"id\":5,")));
    EXPECT_THAT(row, ::testing::Not(HasSubstr("\"id\":25,")));
  }
  EXPECT_EQ(LiveCounts(t).equality, 1);
  // A rewrite now drops it: no file of a lower sequence number remains.
  auto again = Rewrite(t, {{"rewrite-all", "true"}});
  ASSERT_OK(again);
  EXPECT_EQ(again->removed_delete_files_count, 1);
  EXPECT_EQ(CheckedRows(t), rows);
}

// rewrite-position-delete-files on v2: many small position delete files
// (one per commit, some naming two data files) become one per partition;
// deletes of a data file a rewrite removed (dangling) are dropped.
TEST_F(RewriteDataFilesTest, PositionDeleteFilesCompactToOnePerPartition) {
  Table t = MakeTable("posc", true);
  std::vector<DataFile> eu, us;
  for (int i = 0; i < 3; ++i) {
    eu.push_back(Append(t, Ids(i * 10, i * 10 + 10, "eu"))[0]);
    us.push_back(Append(t, Ids(100 + i * 10, 100 + i * 10 + 10, "us"))[0]);
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(DeletePositions(t, eu[i], {static_cast<int64_t>(i)}));
    ASSERT_OK(DeletePositions(t, us[i], {static_cast<int64_t>(i + 3)}));
  }
  // One file naming two data files (no referenced_data_file).
  {
    ASSERT_OK(t.Refresh());
    const auto& md = t.metadata();
    auto factory = std::make_shared<OutputFileFactory>(t.io(), WriterOptions(t).data_location);
    auto w = PositionDeleteWriter::Make(factory, WriterOptions(t), *md.DefaultSpec(), md.CurrentSchema());
    ASSERT_OK(w);
    ASSERT_OK((*w)->Delete(eu[0].file_path, std::vector<int64_t>{9}, eu[0].partition));
    ASSERT_OK((*w)->Delete(eu[1].file_path, std::vector<int64_t>{9}, eu[1].partition));
    auto files = (*w)->Close();
    ASSERT_OK(files);
    ASSERT_EQ(files->size(), 1u);
    EXPECT_FALSE((*files)[0].referenced_data_file);
    RowDelta d(&t);
    d.AddDeleteFile((*files)[0]);
    ASSERT_OK(d.Commit());
  }
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 60u - 8);
  ASSERT_EQ(LiveCounts(t).position, 7);
  RewritePositionDeletesOptions o;
  {
    auto r = RewritePositionDeletesOptions::Resolve(t.metadata(), {});
    ASSERT_OK(r);
    o = *r;
  }
  auto r = RewritePositionDeletes(&t, o);
  ASSERT_OK(r);
  EXPECT_EQ(r->rewritten_delete_files_count, 7);
  EXPECT_EQ(r->added_delete_files_count, 2);  // eu and us
  EXPECT_EQ(CheckedRows(t), before);
  EXPECT_EQ(LiveCounts(t).position, 2);
  EXPECT_EQ(t.metadata().CurrentSnapshot()->operation, iceberg::SnapshotOperation::kReplace);
  // Below min-input-files now: nothing to do.
  auto again = RewritePositionDeletes(&t, o);
  ASSERT_OK(again);
  EXPECT_FALSE(again->snapshot_id);
  // Options it does not take are named.
  EXPECT_THAT(RewritePositionDeletesOptions::Resolve(t.metadata(), {{"partial-progress.enabled", "true"}}),
              test::HasErrorMessage("rewrite-position-delete-files takes"));
}

// rewrite-position-delete-files on a table upgraded from v2 to v3: each data
// file's position delete files and vector become one deletion vector.
TEST_F(RewriteDataFilesTest, UpgradedTablePositionDeletesBecomeOneVectorPerDataFile) {
  Table t = MakeTable("posv3", false);
  std::vector<DataFile> files;
  for (int i = 0; i < 3; ++i) files.push_back(Append(t, Ids(i * 10, i * 10 + 10))[0]);
  ASSERT_OK(DeletePositions(t, files[0], {1}));
  ASSERT_OK(DeletePositions(t, files[0], {2}));
  ASSERT_OK(DeletePositions(t, files[1], {3}));
  {
    auto up = iceberg::UpdateProperties(t.metadata(), {{"format-version", "3"}}, {});
    ASSERT_OK(up);
    auto committed = catalog_->CommitTable(t.loaded(), *up);
    ASSERT_OK(committed);
    t.Reset(std::move(*committed));
  }
  ASSERT_OK(DeleteVector(t, files[2], {4}));
  const auto before = CheckedRows(t);
  ASSERT_EQ(before.size(), 26u);
  auto o = RewritePositionDeletesOptions::Resolve(t.metadata(), {});
  ASSERT_OK(o);
  auto r = RewritePositionDeletes(&t, *o);
  ASSERT_OK(r);
  EXPECT_EQ(r->rewritten_delete_files_count, 3);  // the three v2 files; files[2]'s vector stays
  EXPECT_EQ(r->added_delete_files_count, 2);      // vectors of files[0] and files[1]
  EXPECT_EQ(CheckedRows(t), before);
  ASSERT_OK(t.Refresh());
  auto entries = LiveEntries(t, *t.metadata().CurrentSnapshot());
  ASSERT_OK(entries);
  std::set<std::string> vectors_of;
  int position_entries = 0;
  for (const auto& e : *entries) {
    if (e.data_file.content != iceberg::DataFileContent::kPositionDeletes) continue;
    ++position_entries;
    EXPECT_EQ(e.data_file.file_format, iceberg::FileFormat::kPuffin);
    ASSERT_TRUE(e.data_file.referenced_data_file);
    EXPECT_TRUE(vectors_of.insert(*e.data_file.referenced_data_file).second);
  }
  EXPECT_EQ(position_entries, 3);
}

}  // namespace rewrite_data_files_test
}  // namespace floe::table
