// The changelog of one snapshot (changelog_scan.h) on v2 tables, for each
// kind of snapshot: appends (+I), row deltas with equality deletes (-U/+U
// pairs with identifier fields, -D/+I without), position deletes of older
// rows and of rows written in the same snapshot, a snapshot with both kinds
// of deletes, overwrites that remove whole files (-D of their live rows,
// carried-over rows cancelled) and deletes of whole files; on Trino's v3
// table, deletion vectors (one replacing another). -D rows are the
// full row image as the parent had it (older deletes applied). Each test
// also checks that applying the changelog to the parent's rows gives the
// snapshot's rows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "floe/table/append_files.h"
#include "floe/table/changelog_scan.h"
#include "floe/table/data_writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/overwrite_files.h"
#include "floe/table/row_delta.h"
#include "floe/table/scan.h"
#include "floe/table/scan_static.h"
#include "floe/table/table.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table {
namespace changelog_scan_test {

namespace fs = std::filesystem;
using iceberg::DataFile;

std::string KindName(RowKind k) {
  switch (k) {
    case RowKind::kInsert: return "+I";
    case RowKind::kUpdateBefore: return "-U";
    case RowKind::kUpdateAfter: return "+U";
    case RowKind::kDelete: return "-D";
  }
  return "?";
}

class ChangelogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_changelog_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  // id (identifier field when `keyed`), name.
  Table Create(const std::string& name, bool keyed) {
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0,
                        keyed ? std::vector<int32_t>{1} : std::vector<int32_t>{});
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_OK(t);
    return Table(catalog_.get(), std::move(*t));
  }

  struct Row {
    int64_t id;
    std::string name;
  };
  DataWriterOptions Options(const Table& t) {
    auto o = DataWriterOptions::Resolve(t.metadata(), config::Resolver(t.metadata().properties));
    EXPECT_OK(o);
    return *o;
  }
  std::shared_ptr<OutputFileFactory> Factory(const Table& t, const DataWriterOptions& o) {
    return std::make_shared<OutputFileFactory>(t.io(), o.data_location);
  }
  // One data file holding `rows` in this order.
  DataFile WriteData(const Table& t, const std::vector<Row>& rows) {
    DataWriterOptions o = Options(t);
    auto w = MakeDataWriter(t.metadata(), o, Factory(t, o));
    EXPECT_OK(w);
    Batch b(t.metadata().CurrentSchema());
    for (const auto& r : rows) {
      b.columns[0].Append<int64_t>(r.id);
      b.columns[1].AppendBytes(r.name);
    }
    b.num_rows = static_cast<int64_t>(rows.size());
    EXPECT_OK((*w)->Write(b));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    EXPECT_EQ(files->size(), 1u);
    return files->front();
  }
  DataFile WriteEqualityDeletes(const Table& t, const std::vector<int64_t>& ids) {
    DataWriterOptions o = Options(t);
    auto w = EqualityDeleteWriter::Make(Factory(t, o), o, *t.metadata().DefaultSpec(),
                                        t.metadata().CurrentSchema(), {1});
    EXPECT_OK(w);
    Batch keys((*w)->delete_schema());
    for (int64_t id : ids) keys.columns[0].Append<int64_t>(id);
    keys.num_rows = static_cast<int64_t>(ids.size());
    EXPECT_OK((*w)->Write(keys));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    return files->front();
  }
  DataFile WritePositionDeletes(const Table& t, const std::string& data_path,
                                std::vector<int64_t> positions) {
    DataWriterOptions o = Options(t);
    auto w = PositionDeleteWriter::Make(Factory(t, o), o, *t.metadata().DefaultSpec(),
                                        t.metadata().CurrentSchema());
    EXPECT_OK(w);
    EXPECT_OK((*w)->Delete(data_path, positions));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    return files->front();
  }

  int64_t Append(Table* t, const std::vector<Row>& rows, DataFile* written = nullptr) {
    DataFile f = WriteData(*t, rows);
    if (written) *written = f;
    auto r = AppendFiles(t).AddDataFile(f).Commit();
    EXPECT_OK(r);
    return r ? r->snapshot_id : 0;
  }

  // The changelog of `snapshot_id` as "+I {json}" lines, in emitted order.
  std::vector<std::string> Changes(Table& t, int64_t snapshot_id, ScanOptions options = {},
                                   ChangeCounts* counts = nullptr) {
    EXPECT_OK(t.Refresh());
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    auto shape = PlanShape(md, options);
    EXPECT_OK(shape);
    FileManifestSource source(*md, t.io());
    const iceberg::Snapshot* s = md->SnapshotById(snapshot_id);
    EXPECT_NE(s, nullptr);
    auto plan = PlanChangelog(*shape, *s, &source);
    EXPECT_OK(plan);
    std::vector<std::string> out;
    if (!plan) return out;
    auto c = ReadChangelog(*plan, *t.io(), 2, [&](Batch&& b) {
      EXPECT_EQ(b.row_kinds.size(), static_cast<size_t>(b.num_rows));
      EXPECT_LE(b.num_rows, 2);  // batch_rows
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string json;
        AppendJsonRow(b, i, &json);
        out.push_back(KindName(b.row_kinds[i]) + " " + json);
      }
      return Ok();
    });
    EXPECT_OK(c);
    if (c && counts) *counts = *c;
    return out;
  }

  // The rows of a snapshot (JSON), sorted.
  std::vector<std::string> Rows(Table& t, std::optional<int64_t> snapshot_id) {
    std::vector<std::string> out;
    if (!snapshot_id) return out;
    EXPECT_OK(t.Refresh());
    auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
    FileManifestSource source(*md, t.io());
    ScanOptions o;
    o.snapshot_id = *snapshot_id;
    auto plan = PlanScan(md, o, &source);
    EXPECT_OK(plan);
    auto batches = ReadAll(*plan, t.io());
    EXPECT_OK(batches);
    for (const auto& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string json;
        AppendJsonRow(b, i, &json);
        out.push_back(json);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Applies changelog lines to sorted rows (a multiset): -D/-U remove one
  // copy (which must be there), +I/+U add one.
  static std::vector<std::string> Apply(std::vector<std::string> rows,
                                        const std::vector<std::string>& changes) {
    for (const auto& c : changes) {
      const std::string kind = c.substr(0, 2), row = c.substr(3);
      if (kind == "-D" || kind == "-U") {
        auto it = std::find(rows.begin(), rows.end(), row);
        EXPECT_NE(it, rows.end()) << "removed row not in the parent: " << c;
        if (it != rows.end()) rows.erase(it);
      } else {
        rows.push_back(row);
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  // Changelog of `snapshot` applied to its parent's rows == its rows.
  void ExpectConsistent(Table& t, int64_t snapshot_id, const std::vector<std::string>& changes) {
    ASSERT_OK(t.Refresh());
    const iceberg::Snapshot* s = t.metadata().SnapshotById(snapshot_id);
    ASSERT_NE(s, nullptr);
    // Copied first: Rows refreshes the table, which replaces the metadata `s`
    // points into (the order EXPECT_EQ's operands run in is unspecified;
    // the TSan build read the freed snapshot).
    const std::optional<int64_t> parent = s->parent_snapshot_id;
    const std::vector<std::string> before = Rows(t, parent);
    const std::vector<std::string> after = Rows(t, snapshot_id);
    EXPECT_EQ(Apply(before, changes), after);
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

using test::IsError;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

TEST_F(ChangelogTest, AppendsAreInserts) {
  Table t = Create("a", true);
  int64_t s1 = Append(&t, {{1, "a"}, {2, "b"}});
  int64_t s2 = Append(&t, {{3, "c"}});
  EXPECT_THAT(Changes(t, s1),
              ElementsAre("+I {\"id\":1,\"name\":\"a\"}", "+I {\"id\":2,\"name\":\"b\"}"));
  EXPECT_THAT(Changes(t, s2), ElementsAre("+I {\"id\":3,\"name\":\"c\"}"));
  ExpectConsistent(t, s2, Changes(t, s2));
}

TEST_F(ChangelogTest, EqualityDeletesWithIdentifierFieldsGiveUpdatePairs) {
  Table t = Create("k", true);
  Append(&t, {{1, "a"}, {2, "b"}, {3, "c"}});
  // A CDC window as the change sink writes it: key 1 updated, key 2
  // deleted, key 4 inserted (equality deletes of 1 and 2, new rows 1 and 4).
  auto r = RowDelta(&t)
               .AddDataFile(WriteData(t, {{1, "a2"}, {4, "d"}}))
               .AddDeleteFile(WriteEqualityDeletes(t, {1, 2}))
               .Commit();
  ASSERT_OK(r);
  ChangeCounts counts;
  auto changes = Changes(t, r->snapshot_id, {}, &counts);
  EXPECT_THAT(changes, ElementsAre("-U {\"id\":1,\"name\":\"a\"}", "+U {\"id\":1,\"name\":\"a2\"}",
                                   "-D {\"id\":2,\"name\":\"b\"}", "+I {\"id\":4,\"name\":\"d\"}"));
  EXPECT_EQ(counts.update_before, 1);
  EXPECT_EQ(counts.update_after, 1);
  EXPECT_EQ(counts.deletes, 1);
  EXPECT_EQ(counts.inserts, 1);
  ExpectConsistent(t, r->snapshot_id, changes);

  // Projected without the key column: the rows still pair by key (whole
  // rows decide, as Flink's row kinds do not depend on the projection).
  ScanOptions o;
  o.columns = {"name"};
  EXPECT_THAT(Changes(t, r->snapshot_id, o),
              ElementsAre("-U {\"name\":\"a\"}", "+U {\"name\":\"a2\"}", "-D {\"name\":\"b\"}",
                          "+I {\"name\":\"d\"}"));
  // Projected without the changed column: the update keeps its -U/+U pair
  // with equal projected values (an unchanged projection is still a change).
  o.columns = {"id"};
  EXPECT_THAT(Changes(t, r->snapshot_id, o),
              ElementsAre("-U {\"id\":1}", "+U {\"id\":1}", "-D {\"id\":2}", "+I {\"id\":4}"));
  // A filter applies to both sides of a change.
  o = {};
  o.filter_text = "id >= 2";
  EXPECT_THAT(Changes(t, r->snapshot_id, o),
              ElementsAre("-D {\"id\":2,\"name\":\"b\"}", "+I {\"id\":4,\"name\":\"d\"}"));
}

TEST_F(ChangelogTest, WithoutIdentifierFieldsDeletesAndInsertsStayApart) {
  Table t = Create("n", false);
  Append(&t, {{1, "a"}, {2, "b"}});
  auto r = RowDelta(&t)
               .AddDataFile(WriteData(t, {{1, "a2"}}))
               .AddDeleteFile(WriteEqualityDeletes(t, {1}))
               .Commit();
  ASSERT_OK(r);
  auto changes = Changes(t, r->snapshot_id);
  EXPECT_THAT(changes,
              ElementsAre("-D {\"id\":1,\"name\":\"a\"}", "+I {\"id\":1,\"name\":\"a2\"}"));
  ExpectConsistent(t, r->snapshot_id, changes);
}

TEST_F(ChangelogTest, DeletedRowsAreTheParentsImageWithOlderDeletesApplied) {
  Table t = Create("o", false);
  // Key 1 lives twice (two files); an earlier equality delete removed the
  // older copy, so a later delete of key 1 removes one row only.
  Append(&t, {{1, "old"}, {2, "b"}});
  ASSERT_OK(RowDelta(&t)
                .AddDataFile(WriteData(t, {{1, "new"}}))
                .AddDeleteFile(WriteEqualityDeletes(t, {1}))
                .Commit());
  auto r = RowDelta(&t).AddDeleteFile(WriteEqualityDeletes(t, {1})).Commit();
  ASSERT_OK(r);
  EXPECT_EQ(r->operation, "delete");
  auto changes = Changes(t, r->snapshot_id);
  EXPECT_THAT(changes, ElementsAre("-D {\"id\":1,\"name\":\"new\"}"));
  ExpectConsistent(t, r->snapshot_id, changes);
}

TEST_F(ChangelogTest, EqualityAndPositionDeletesInOneSnapshot) {
  Table t = Create("p", true);
  DataFile first, second;
  Append(&t, {{1, "a"}, {2, "b"}, {3, "c"}}, &first);
  Append(&t, {{4, "d"}, {5, "e"}}, &second);
  // One snapshot: a position delete of row 1 of the first file (key 2) and
  // of row 0 of the second (key 4), an equality delete of key 5, and a new
  // file whose row 1 (key 7) is deleted by position in the same snapshot
  // (a row inserted and deleted within one window never shows).
  DataFile fresh = WriteData(t, {{6, "f"}, {7, "g"}, {5, "e2"}});
  auto r = RowDelta(&t)
               .AddDataFile(fresh)
               .AddDeleteFile(WritePositionDeletes(t, first.file_path, {1}))
               .AddDeleteFile(WritePositionDeletes(t, second.file_path, {0}))
               .AddDeleteFile(WritePositionDeletes(t, fresh.file_path, {1}))
               .AddDeleteFile(WriteEqualityDeletes(t, {5}))
               .Commit();
  ASSERT_OK(r);
  auto changes = Changes(t, r->snapshot_id);
  // Files come in manifest order; each -U is followed by its +U, and the
  // inserts come last.
  EXPECT_THAT(changes,
              UnorderedElementsAre("-D {\"id\":2,\"name\":\"b\"}", "-D {\"id\":4,\"name\":\"d\"}",
                                   "-U {\"id\":5,\"name\":\"e\"}", "+U {\"id\":5,\"name\":\"e2\"}",
                                   "+I {\"id\":6,\"name\":\"f\"}"));
  auto u = std::find(changes.begin(), changes.end(), "-U {\"id\":5,\"name\":\"e\"}");
  ASSERT_NE(u, changes.end());
  ASSERT_NE(u + 1, changes.end());
  EXPECT_EQ(*(u + 1), "+U {\"id\":5,\"name\":\"e2\"}");
  EXPECT_EQ(changes.back(), "+I {\"id\":6,\"name\":\"f\"}");
  ExpectConsistent(t, r->snapshot_id, changes);
}

TEST_F(ChangelogTest, OverwriteRemovesWholeFilesAndCancelsCarriedOverRows) {
  Table t = Create("w", false);
  DataFile first;
  Append(&t, {{1, "a"}, {2, "b"}, {3, "c"}}, &first);
  // An older position delete hides key 3: the overwrite's -D rows are the
  // file's live rows only.
  ASSERT_OK(RowDelta(&t).AddDeleteFile(WritePositionDeletes(t, first.file_path, {2})).Commit());
  // Copy-on-write rewrite: row 1 carried over unchanged, row 2 changed.
  auto r = OverwriteFiles(&t, OverwriteMode::kAll)
               .AddDataFile(WriteData(t, {{1, "a"}, {2, "b2"}}))
               .Commit();
  ASSERT_OK(r);
  EXPECT_EQ(r->operation, "overwrite");
  ChangeCounts counts;
  auto changes = Changes(t, r->snapshot_id, {}, &counts);
  EXPECT_THAT(changes,
              ElementsAre("-D {\"id\":2,\"name\":\"b\"}", "+I {\"id\":2,\"name\":\"b2\"}"));
  EXPECT_EQ(counts.carried_over, 1);
  ExpectConsistent(t, r->snapshot_id, changes);
}

TEST_F(ChangelogTest, DeleteOfWholeFilesGivesTheirLiveRows) {
  Table t = Create("d", true);
  Append(&t, {{1, "a"}, {2, "b"}});
  Append(&t, {{3, "c"}});
  auto r = OverwriteFiles(&t, OverwriteMode::kAll).Commit();  // a truncate
  ASSERT_OK(r);
  EXPECT_EQ(r->operation, "delete");
  auto changes = Changes(t, r->snapshot_id);
  std::vector<std::string> sorted = changes;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_THAT(sorted, ElementsAre("-D {\"id\":1,\"name\":\"a\"}", "-D {\"id\":2,\"name\":\"b\"}",
                                  "-D {\"id\":3,\"name\":\"c\"}"));
  ExpectConsistent(t, r->snapshot_id, changes);
}

TEST_F(ChangelogTest, TheSnapshotAsInsertsIsItsLiveRows) {
  Table t = Create("s", true);
  Append(&t, {{1, "a"}, {2, "b"}});
  auto r = RowDelta(&t)
               .AddDataFile(WriteData(t, {{2, "b2"}}))
               .AddDeleteFile(WriteEqualityDeletes(t, {2}))
               .Commit();
  ASSERT_OK(r);
  ASSERT_OK(t.Refresh());
  auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
  ASSERT_OK_AND_ASSIGN(auto shape, PlanShape(md, {}));
  FileManifestSource source(*md, t.io());
  ASSERT_OK_AND_ASSIGN(auto plan,
                       PlanSnapshotAsInserts(shape, *md->SnapshotById(r->snapshot_id), &source));
  std::vector<std::string> rows;
  ASSERT_OK(ReadChangelog(plan, *t.io(), 100, [&](Batch&& b) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      std::string json;
      AppendJsonRow(b, i, &json);
      rows.push_back(KindName(b.row_kinds[i]) + " " + json);
    }
    return Ok();
  }));
  std::sort(rows.begin(), rows.end());
  EXPECT_THAT(rows, ElementsAre("+I {\"id\":1,\"name\":\"a\"}", "+I {\"id\":2,\"name\":\"b2\"}"));
}

TEST_F(ChangelogTest, ASourceWithoutDeletedEntriesIsRefusedForRowDeltas) {
  // A ManifestSource that cannot return DELETED entries cannot plan a
  // snapshot that removes rows (it would miss removed files silently).
  class LiveOnly : public ManifestSource {
   public:
    explicit LiveOnly(FileManifestSource* inner) : inner_(inner) {}
    Result<std::vector<iceberg::ManifestFile>> ReadManifestList(
        const iceberg::Snapshot& s) override {
      return inner_->ReadManifestList(s);
    }
    Result<std::vector<iceberg::ManifestEntry>> ReadManifest(
        const iceberg::ManifestFile& m) override {
      return inner_->ReadManifest(m);
    }
    FileManifestSource* inner_;
  };
  Table t = Create("l", true);
  Append(&t, {{1, "a"}});
  auto r = RowDelta(&t).AddDeleteFile(WriteEqualityDeletes(t, {1})).Commit();
  ASSERT_OK(r);
  ASSERT_OK(t.Refresh());
  auto md = std::make_shared<const iceberg::TableMetadata>(t.metadata());
  ASSERT_OK_AND_ASSIGN(auto shape, PlanShape(md, {}));
  FileManifestSource files(*md, t.io());
  LiveOnly source(&files);
  EXPECT_THAT(PlanChangelog(shape, *md->SnapshotById(r->snapshot_id), &source),
              IsError(ErrorKind::kUnsupported));
}

// Trino's v3 table: a DELETE writes a deletion vector, the next DELETE a new
// one for the same data file that replaces it (and one for the other file).
// Each snapshot's changelog applied to its parent's rows gives its rows, and
// the -D rows are exactly the rows each DELETE removed.
TEST(ChangelogGolden, DeletionVectorsGiveTheRowsEachDeleteRemoved) {
  ASSERT_OK_AND_ASSIGN(StaticTable t, OpenStaticTable(test::SharedDir() + "/interop/golden/trino_v3_deletion_vectors"));
  ASSERT_OK_AND_ASSIGN(auto shape, PlanShape(t.metadata, {}));
  FileManifestSource source(*t.metadata, t.io);
  auto rows = [&](std::optional<int64_t> id) {
    std::vector<std::string> out;
    if (!id) return out;
    ScanOptions o;
    o.snapshot_id = *id;
    auto plan = PlanScan(t.metadata, o, &source);
    EXPECT_OK(plan);
    auto batches = ReadAll(*plan, t.io);
    EXPECT_OK(batches);
    for (const auto& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string json;
        AppendJsonRow(b, i, &json);
        out.push_back(json);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  int deletes_seen = 0;
  for (const auto& entry : t.metadata->snapshot_log) {
    const iceberg::Snapshot* s = t.metadata->SnapshotById(entry.snapshot_id);
    ASSERT_NE(s, nullptr);
    ASSERT_OK_AND_ASSIGN(auto plan, PlanChangelog(shape, *s, &source));
    std::vector<std::string> changes, removed;
    ASSERT_OK(ReadChangelog(plan, *t.io, 3, [&](Batch&& b) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string json;
        AppendJsonRow(b, i, &json);
        changes.push_back(KindName(b.row_kinds[i]) + " " + json);
        if (b.row_kinds[i] == RowKind::kDelete) removed.push_back(json);
      }
      return Ok();
    }));
    std::vector<std::string> before = rows(s->parent_snapshot_id);
    std::vector<std::string> after = rows(s->snapshot_id);
    std::vector<std::string> applied = before;
    for (const auto& c : changes) {
      const std::string row = c.substr(3);
      if (c[0] == '-') {
        auto it = std::find(applied.begin(), applied.end(), row);
        ASSERT_NE(it, applied.end()) << c;
        applied.erase(it);
      } else {
        applied.push_back(row);
      }
    }
    std::sort(applied.begin(), applied.end());
    EXPECT_EQ(applied, after) << s->snapshot_id;
    if (!removed.empty()) {
      // The first DELETE removed the rows with c1 % 3 == 0, the second those with c1 % 3 == 1.
      EXPECT_EQ(removed.size(), before.size() - after.size());
      for (const auto& r : removed) {
        long long c1 = -1;
        ASSERT_EQ(std::sscanf(r.c_str(), "{\"c1\":%lld", &c1), 1) << r;
        EXPECT_EQ(c1 % 3, deletes_seen) << r;
      }
      ++deletes_seen;
    }
  }
  EXPECT_EQ(deletes_seen, 2);
}

}  // namespace changelog_scan_test
}  // namespace floe::table
