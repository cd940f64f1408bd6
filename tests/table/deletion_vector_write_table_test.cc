// Format v3 tables written by floe, read by floe's scan and by the independent
// reader verify_table.mjs --deletion-vectors --strict after every commit, their
// manifests and manifest lists by Apache Avro Java (avro_java.sh): a v3 table
// appended to, given deletion vectors (DeletionVectorWriter + RowDelta),
// vectors merged over several commits (the old one removed in the same
// snapshot), overwritten; a v2 table with a position delete file upgraded to
// v3 and then written (its position deletes merged into the first vector);
// row lineage (next-row-id, first-row-id, added-rows, manifests'
// first_row_id); and the refusals: vectors in a v2 table, position delete
// files in a v3 table, a vector committed over another writer's or for a
// data file a compaction removed meanwhile.

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "floe/parquet/writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/deletion_vector_writer.h"
#include "floe/table/row_delta.h"
#include "floe/table/scan.h"
#include "floe/table/table.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/avro_java.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/oracle.h"
#include "table_fixture.h"

namespace floe::table {
namespace deletion_vector_write_table_test {

namespace fs = std::filesystem;
using iceberg::DataFile;
using ::testing::HasSubstr;
using test::HasErrorMessage;
using test::IsError;

SchemaPtr IdSchema() {
  return std::make_shared<const Schema>(std::vector<NestedField>{{1, "id", true, LongType(), ""}});
}

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class DvTable : public testing_util::WarehouseTest {
 protected:
  // A Parquet data file of ids first..first+rows-1 under the table's data folder.
  DataFile WriteIds(const Table& t, const std::string& name, int64_t first, int64_t rows) {
    const std::string local = TableDir(t) + "/data/" + name;
    fs::create_directories(fs::path(local).parent_path());
    Batch b(IdSchema());
    for (int64_t i = 0; i < rows; ++i) b.columns[0].Append<int64_t>(first + i);
    b.num_rows = rows;
    parquet::WriterOptions o;
    auto out = OpenLocalOutput(local, true);
    EXPECT_OK(out);
    auto w = parquet::FileWriter::Open(std::move(*out), b.schema, o);
    EXPECT_OK(w);
    EXPECT_OK((*w)->Write(b));
    auto r = (*w)->Close();
    EXPECT_OK(r);
    DataFile f;
    f.file_path = FileUri(local);
    f.record_count = rows;
    f.file_size_in_bytes = r->file_size_bytes;
    f.split_offsets = r->row_group_offsets;
    return f;
  }

  // floe's rows of the table's current snapshot, as sorted JSON lines.
  std::vector<std::string> FloeRows(Table& t) {
    EXPECT_OK(t.Refresh());
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    FileManifestSource source(*md, t.io());
    auto plan = PlanScan(md, ScanOptions{}, &source);
    EXPECT_TRUE(plan) << plan.error().ToString();
    if (!plan) return {};
    auto batches = ReadAll(*plan, t.io());
    EXPECT_TRUE(batches) << batches.error().ToString();
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

  // verify_table.mjs --deletion-vectors --strict agrees with floe, row for
  // row. Returns the rows.
  std::vector<std::string> ExpectReadersAgree(Table& t) {
    std::vector<std::string> rows = FloeRows(t);
    test::OracleResult v = test::Oracle("verify_table.mjs", {TableDir(t), "--deletion-vectors", "--strict"});
    EXPECT_EQ(v.code, 0) << v.command << ": " << v.err;
    EXPECT_EQ(rows, SortedLines(v.out));
    return rows;
  }

  // Apache Avro Java reads the current snapshot's manifest list and every
  // manifest it lists (in one JVM).
  void ExpectAvroJavaReadsCurrentSnapshot(Table& t) {
    ASSERT_OK(t.Refresh());
    const iceberg::Snapshot* s = t.metadata().CurrentSnapshot();
    ASSERT_NE(s, nullptr);
    std::vector<std::string> files = {*t.LocalPath(s->manifest_list)};
    for (const auto& m : ListOf(t, *s)) files.push_back(*t.LocalPath(m.manifest_path));
    const test::AvroJavaResult avro = test::AvroJava(files);
    const std::string& out = avro.out;
    EXPECT_EQ(avro.code, 0) << avro.command << "\n" << out;
    EXPECT_THAT(out, HasSubstr("records"));
  }

  static std::vector<int64_t> Range(int64_t from, int64_t to, int64_t step = 1) {
    std::vector<int64_t> out;
    for (int64_t i = from; i < to; i += step) out.push_back(i);
    return out;
  }

  // Writes `deletes` (data file path -> positions) as vectors and commits them.
  Result<CommitResult> CommitVectors(Table& t, const std::map<std::string, std::vector<int64_t>>& deletes,
                                     DeletionVectorUpdate* update_out = nullptr) {
    DeletionVectorWriter w(&t);
    for (const auto& [path, positions] : deletes) FLOE_RETURN_IF_ERROR(w.Delete(path, positions));
    FLOE_ASSIGN_OR_RETURN(DeletionVectorUpdate u, w.Write());
    RowDelta delta(&t);
    u.AddTo(&delta);
    if (update_out) *update_out = u;
    auto r = delta.Commit();
    if (!r) w.Abort();
    return r;
  }

  // The live delete files of the current snapshot that are deletion vectors.
  std::vector<DataFile> LiveVectors(Table& t) {
    EXPECT_OK(t.Refresh());
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    FileManifestSource source(*md, t.io());
    auto plan = PlanScan(md, ScanOptions{}, &source);
    EXPECT_OK(plan);
    std::map<std::string, DataFile> out;
    for (const auto& task : plan->files) {
      for (const auto& d : task.deletes) {
        if (d->file.file_format == iceberg::FileFormat::kPuffin) out[DeleteFileKey(d->file)] = d->file;
      }
    }
    std::vector<DataFile> v;
    for (auto& [k, f] : out) v.push_back(f);
    return v;
  }

  static std::vector<iceberg::ManifestFile> ListOf(const Table& t, const iceberg::Snapshot& s) {
    auto in = t.io()->NewInput(s.manifest_list);
    EXPECT_OK(in);
    iceberg::ManifestListInfo info;
    auto list = iceberg::ReadManifestList(**in, &info);
    EXPECT_OK(list);
    EXPECT_EQ(info.format_version, t.metadata().format_version);
    return *list;
  }
};

TEST_F(DvTable, V3AppendVectorsMergedOverCommitsAndOverwrite) {
  Table t = Create("v3", {{"format-version", "3"}});
  ASSERT_EQ(t.metadata().format_version, 3);
  ASSERT_EQ(t.metadata().next_row_id, 0);

  // Append: 100 rows, and 70000 rows (two 2^16 chunks).
  const DataFile a = WriteIds(t, "a.parquet", 0, 100);
  const DataFile b = WriteIds(t, "b.parquet", 1000, 70000);
  SnapshotUpdate append(&t);
  append.AddDataFile(a).AddDataFile(b);
  ASSERT_OK(append.Commit());
  ASSERT_OK(t.Refresh());
  const iceberg::Snapshot* s1 = t.metadata().CurrentSnapshot();
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->first_row_id, 0);
  EXPECT_EQ(s1->added_rows, 70100);
  EXPECT_EQ(t.metadata().next_row_id, 70100);
  auto list1 = ListOf(t, *s1);
  ASSERT_EQ(list1.size(), 1u);
  EXPECT_EQ(list1[0].first_row_id, 0);
  EXPECT_EQ(ExpectReadersAgree(t).size(), 70100u);

  // Commit 2: an array (a), a run and a bitset (b).
  std::vector<int64_t> b_del = Range(10, 5000);                 // a run
  for (int64_t p : Range(65536, 65536 + 4000, 2)) b_del.push_back(p);  // 2000 scattered: an array
  DeletionVectorUpdate u2;
  ASSERT_OK(CommitVectors(t, {{a.file_path, {1, 3, 5}}, {b.file_path, b_del}}, &u2));
  EXPECT_EQ(u2.added.size(), 2u);
  EXPECT_TRUE(u2.removed.empty());
  EXPECT_EQ(u2.added[0].file.file_path, u2.added[1].file.file_path);  // one Puffin file
  EXPECT_THAT(u2.puffin_location, ::testing::EndsWith(".puffin"));
  EXPECT_EQ(ExpectReadersAgree(t).size(), 70100u - 3 - 4990 - 2000);
  // Only delete manifests were added: no row ids were assigned.
  const iceberg::Snapshot* s2 = t.metadata().CurrentSnapshot();
  EXPECT_EQ(s2->first_row_id, 70100);
  EXPECT_EQ(s2->added_rows, 0);
  EXPECT_EQ(t.metadata().next_row_id, 70100);
  for (const auto& m : ListOf(t, *s2)) {
    if (m.content == iceberg::ManifestContent::kDeletes) {
      EXPECT_FALSE(m.first_row_id);
    } else {
      EXPECT_EQ(m.first_row_id, 0);  // kept
    }
  }

  // Commit 3: more rows of a, and a bitset in b's first chunk: merged with
  // the live vectors, which are removed in the same snapshot.
  DeletionVectorUpdate u3;
  ASSERT_OK(CommitVectors(t, {{a.file_path, {3, 7, 99}}, {b.file_path, Range(6000, 30000, 3)}}, &u3));
  EXPECT_EQ(u3.removed.size(), 2u);
  auto live = LiveVectors(t);
  ASSERT_EQ(live.size(), 2u);  // one per data file
  for (const auto& v : live) {
    if (*v.referenced_data_file == a.file_path) {
      EXPECT_EQ(v.record_count, 5);  // 1 3 5 7 99
    } else {
      EXPECT_EQ(v.record_count, 4990 + 2000 + 8000);
    }
  }
  EXPECT_EQ(ExpectReadersAgree(t).size(), 70100u - 5 - 4990 - 2000 - 8000);
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("removed-delete-files"), "2");
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("removed-dvs"), "2");
  EXPECT_EQ(t.metadata().CurrentSnapshot()->summary.at("added-dvs"), "2");
  // v3 manifests with vectors (added, and EXISTING / DELETED in rewritten
  // manifests) and a v3 list, read by Avro Java.
  ExpectAvroJavaReadsCurrentSnapshot(t);

  // Commit 4: a vector for only one file again (b keeps its vector).
  ASSERT_OK(CommitVectors(t, {{a.file_path, {0}}}));
  EXPECT_EQ(LiveVectors(t).size(), 2u);
  EXPECT_EQ(ExpectReadersAgree(t).size(), 70100u - 6 - 4990 - 2000 - 8000);

  // Append more rows: they get ids from next-row-id.
  const DataFile c = WriteIds(t, "c.parquet", 200000, 50);
  SnapshotUpdate append2(&t);
  append2.AddDataFile(c);
  ASSERT_OK(append2.Commit());
  ASSERT_OK(t.Refresh());
  EXPECT_EQ(t.metadata().CurrentSnapshot()->first_row_id, 70100);
  EXPECT_EQ(t.metadata().CurrentSnapshot()->added_rows, 50);
  EXPECT_EQ(t.metadata().next_row_id, 70150);
  ExpectReadersAgree(t);

  // Overwrite the whole table: the vectors go with their data files.
  const DataFile d = WriteIds(t, "d.parquet", 500, 10);
  SnapshotUpdate ow(&t);
  ow.AddDataFile(d).OverwriteAll();
  ASSERT_OK(ow.Commit());
  EXPECT_EQ(ExpectReadersAgree(t).size(), 10u);
  EXPECT_TRUE(LiveVectors(t).empty());
  EXPECT_EQ(t.metadata().next_row_id, 70160);
}

TEST_F(DvTable, V2TableUpgradedToV3ThenWritten) {
  Table t = Create("up");
  ASSERT_EQ(t.metadata().format_version, 2);
  const DataFile a = WriteIds(t, "a.parquet", 0, 20);
  SnapshotUpdate append(&t);
  append.AddDataFile(a);
  ASSERT_OK(append.Commit());

  // Deletion vectors are refused in a v2 table.
  {
    DeletionVectorWriter w(&t);
    ASSERT_OK(w.Delete(a.file_path, std::vector<int64_t>{1}));
    EXPECT_THAT(w.Write(), HasErrorMessage("format version 3"));
  }
  // A v2 position delete file of a.
  auto factory = std::make_shared<OutputFileFactory>(t.io(), t.metadata().location + "/data");
  DataWriterOptions options;
  options.data_location = t.metadata().location + "/data";
  auto pw = PositionDeleteWriter::Make(factory, options, *t.metadata().DefaultSpec(), t.metadata().CurrentSchema());
  ASSERT_OK(pw);
  ASSERT_OK((*pw)->Delete(a.file_path, std::vector<int64_t>{2, 4}));
  auto pos_files = (*pw)->Close();
  ASSERT_OK(pos_files);
  {
    RowDelta delta(&t);
    for (const auto& f : *pos_files) delta.AddDeleteFile(f);
    ASSERT_OK(delta.Commit());
  }
  EXPECT_EQ(ExpectReadersAgree(t).size(), 18u);

  // Upgrade: a property update; never lowered.
  auto up = iceberg::UpdateProperties(t.metadata(), {{"format-version", "3"}}, {});
  ASSERT_OK(up);
  auto committed = catalog_->CommitTable(t.loaded(), *up);
  ASSERT_OK(committed);
  t.Reset(std::move(*committed));
  EXPECT_EQ(t.metadata().format_version, 3);
  EXPECT_EQ(t.metadata().next_row_id, 0);
  EXPECT_THAT(iceberg::UpdateProperties(t.metadata(), {{"format-version", "2"}}, {}), HasErrorMessage("lowered"));
  EXPECT_EQ(ExpectReadersAgree(t).size(), 18u);

  // A position delete file is refused now.
  {
    RowDelta delta(&t);
    for (const auto& f : *pos_files) delta.AddDeleteFile(f);
    EXPECT_THAT(delta.Commit(), HasErrorMessage("takes deletion vectors"));
  }

  // The first vector of a carries its position deletes over (2, 4).
  ASSERT_OK(CommitVectors(t, {{a.file_path, {0, 2}}}));
  auto live = LiveVectors(t);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].record_count, 3);  // 0 2 4
  EXPECT_EQ(ExpectReadersAgree(t).size(), 17u);
  // The first v3 snapshot assigned row ids to the existing data manifest.
  const iceberg::Snapshot* s = t.metadata().CurrentSnapshot();
  EXPECT_EQ(s->first_row_id, 0);
  EXPECT_EQ(s->added_rows, 20);
  EXPECT_EQ(t.metadata().next_row_id, 20);
  for (const auto& m : ListOf(t, *s)) {
    if (m.content == iceberg::ManifestContent::kData) {
      EXPECT_EQ(m.first_row_id, 0);
    }
  }
  // A v3 append after the upgrade.
  const DataFile b = WriteIds(t, "b.parquet", 100, 5);
  SnapshotUpdate append2(&t);
  append2.AddDataFile(b);
  ASSERT_OK(append2.Commit());
  ASSERT_OK(t.Refresh());
  EXPECT_EQ(t.metadata().CurrentSnapshot()->first_row_id, 20);
  EXPECT_EQ(t.metadata().next_row_id, 25);
  EXPECT_EQ(ExpectReadersAgree(t).size(), 22u);
  ExpectAvroJavaReadsCurrentSnapshot(t);
}

TEST_F(DvTable, AVectorCommittedOverAnotherWritersIsRefused) {
  Table t = Create("race", {{"format-version", "3"}});
  const DataFile a = WriteIds(t, "a.parquet", 0, 10);
  SnapshotUpdate append(&t);
  append.AddDataFile(a);
  ASSERT_OK(append.Commit());
  // Two writers merge against the same snapshot.
  Table t2(catalog_.get(), t.loaded());
  DeletionVectorWriter w1(&t), w2(&t2);
  ASSERT_OK(w1.Delete(a.file_path, std::vector<int64_t>{1}));
  ASSERT_OK(w2.Delete(a.file_path, std::vector<int64_t>{2}));
  ASSERT_OK_AND_ASSIGN(auto u1, w1.Write());
  ASSERT_OK_AND_ASSIGN(auto u2, w2.Write());
  RowDelta d1(&t);
  u1.AddTo(&d1);
  ASSERT_OK(d1.Commit());
  RowDelta d2(&t2);
  u2.AddTo(&d2);
  auto r = d2.Commit();
  EXPECT_THAT(r, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(r, HasErrorMessage("another commit added"));
  w2.Abort();
  // Written again from the table as it is now, it merges both.
  ASSERT_OK(t2.Refresh());
  ASSERT_OK(CommitVectors(t2, {{a.file_path, {2}}}));
  auto live = LiveVectors(t2);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].record_count, 2);
  EXPECT_EQ(ExpectReadersAgree(t2).size(), 8u);
  // A data file removed (a compaction) between the write and the commit:
  // the vector is refused, naming it (Java's validateDataFilesExist).
  DeletionVectorWriter w4(&t2);
  ASSERT_OK(w4.Delete(a.file_path, std::vector<int64_t>{5}));
  ASSERT_OK_AND_ASSIGN(auto u4, w4.Write());
  const DataFile c = WriteIds(t, "c.parquet", 0, 10);
  ASSERT_OK(t.Refresh());
  SnapshotUpdate compaction(&t);
  compaction.AddDataFile(c).OverwriteAll();
  ASSERT_OK(compaction.Commit());
  RowDelta d4(&t2);
  u4.AddTo(&d4);
  auto r4 = d4.Commit();
  EXPECT_THAT(r4, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(r4, HasErrorMessage("data file " + a.file_path + " was removed by snapshot"));
  w4.Abort();
  ASSERT_OK(t2.Refresh());
  EXPECT_EQ(FloeRows(t2).size(), 10u);
  // A data file that is not in the table is named.
  DeletionVectorWriter w3(&t2);
  ASSERT_OK(w3.Delete("file:/nowhere.parquet", std::vector<int64_t>{0}));
  EXPECT_THAT(w3.Write(), HasErrorMessage("file:/nowhere.parquet"));
}

}  // namespace deletion_vector_write_table_test
}  // namespace floe::table
