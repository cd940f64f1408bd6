// Deletion vectors from the change sink (issue 24, section 3): on a format
// version 3 table a merge-on-read sink deletes by position through
// table::DeletionVectorWriter, one vector per data file merged with the live
// one. Two sinks on overlapping keys of one table commit in turn, each
// against a table the other has changed since it read it: the later commit
// meets the other's vector for the same data file (or rows of its keys the
// other added), resolves its deletes again against the reloaded table and
// commits; the table stays key-unique and equal to the sequential fold of
// the windows in commit order, by floe's reader and by verify_table.mjs
// --deletion-vectors. A copy of a sink whose commit number another copy took
// publishes nothing and leaves no Puffin file behind.
//
// Every test runs on format version 2 as well, where the sink writes a Parquet
// position delete file per data file at the commit, merged with the data
// file's live file-scoped one, which the commit removes (the same writer, its
// position_files_on_v2 form): a data file keeps one position delete file
// however many commits change it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "floe/sink/change_sink.h"
#include "floe/table/rewrite_data_files.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/oracle.h"

namespace floe::sink {
namespace cdc_vectors_test {

namespace fs = std::filesystem;

class CdcVectors : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_cdc_vectors_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0, {1});
    def.properties["format-version"] = std::to_string(GetParam());
    ASSERT_OK(catalog_->CreateTable(*catalog::ParseTableIdentifier("db.t"), def));
    schema_ = std::make_shared<const Schema>(def.schema);
  }
  void TearDown() override {
    sinks_.clear();
    test::RemoveTestDirIfPassed(dir_);
  }

  ChangeSink* OpenSink(const std::string& sink_id) {
    WriteConfig cfg;
    EXPECT_OK(cfg.Set("table", "db.t"));
    EXPECT_OK(cfg.Set("mode", "merge-on-read"));
    EXPECT_OK(cfg.Set("sink_id", sink_id));
    ChangeSinkOptions opt;
    opt.changes_in_batch = true;
    opt.spill_dir = dir_.string();
    auto sink = ChangeSink::Open(cfg, catalog_.get(), schema_, opt);
    EXPECT_OK(sink);
    if (!sink) return nullptr;
    sinks_.push_back(std::move(*sink));
    return sinks_.back().get();
  }

  // Buffers updates (UPDATE_AFTER) of keys `ids` to `name` in `sink`.
  void Update(ChangeSink* sink, const std::vector<int64_t>& ids, const std::string& name,
              RowKind kind = RowKind::kUpdateAfter) {
    Batch b(schema_);
    for (int64_t id : ids) {
      b.columns[0].Append<int64_t>(id);
      b.columns[1].AppendBytes(name);
      b.row_kinds.push_back(kind);
      // Positions grow across the sinks (a copy of a sink resumes after its
      // token's position: what is at or before it counts as committed input).
      b.positions.push_back(next_seq_);
      b.sequence_numbers.push_back(next_seq_++);
    }
    b.num_rows = static_cast<int64_t>(ids.size());
    ASSERT_OK(sink->Write(std::move(b)));
  }
  // The model: the windows folded in commit order.
  void Fold(const std::vector<int64_t>& ids, const std::string& name) {
    for (int64_t id : ids) model_[id] = name;
  }
  std::vector<std::string> ModelRows() const {
    std::vector<std::string> out;
    for (const auto& [id, name] : model_) out.push_back(R"({"id":)" + std::to_string(id) + R"(,"name":")" + name + "\"}");
    std::sort(out.begin(), out.end());
    return out;
  }

  std::shared_ptr<const iceberg::TableMetadata> Metadata() {
    auto t = catalog_->RefreshTable(*catalog::ParseTableIdentifier("db.t"));
    EXPECT_OK(t);
    return std::make_shared<const iceberg::TableMetadata>(t->metadata);
  }
  // The current rows by floe's reader, sorted.
  std::vector<std::string> Rows() {
    auto md = Metadata();
    table::FileManifestSource source(*md, catalog_->io());
    auto plan = table::PlanScan(md, {}, &source);
    EXPECT_OK(plan);
    std::vector<std::string> out;
    if (!plan) return out;
    auto batches = table::ReadAll(*plan, catalog_->io());
    EXPECT_OK(batches);
    if (!batches) return out;
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
  // The current rows by verify_table.mjs --deletion-vectors, sorted.
  std::vector<std::string> VerifiedRows() {
    test::OracleResult r = test::Oracle("verify_table.mjs", {(dir_ / "db" / "t").string(), "--deletion-vectors"});
    EXPECT_EQ(r.code, 0) << r.command << ": " << r.err;
    std::vector<std::string> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(line);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  void ExpectTableIsTheModel() {
    const std::vector<std::string> want = ModelRows();
    const std::vector<std::string> rows = Rows();
    EXPECT_EQ(rows, want);
    EXPECT_EQ(VerifiedRows(), want);
    std::set<std::string> ids;
    for (const auto& r : rows) ids.insert(r.substr(0, r.find(',')));
    EXPECT_EQ(ids.size(), rows.size()) << "a key holds two rows";
  }

  // Every delete file (Puffin, or v2's Parquet position delete files) in the
  // data folder, and those some snapshot references.
  std::pair<std::set<std::string>, std::set<std::string>> DeleteFiles() {
    std::set<std::string> on_disk, referenced;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "db" / "t" / "data")) {
      if (e.path().filename().string().find("-deletes.") != std::string::npos) {
        on_disk.insert(fs::canonical(e.path()).string());
      }
    }
    auto md = Metadata();
    table::FileManifestSource source(*md, catalog_->io());
    for (const auto& snap : md->snapshots) {
      auto manifests = source.ReadManifestList(snap);
      EXPECT_OK(manifests);
      if (!manifests) continue;
      for (const auto& m : *manifests) {
        auto entries = source.ReadManifest(m);
        EXPECT_OK(entries);
        if (!entries) continue;
        for (const auto& e : *entries) {
          if (e.data_file.content == iceberg::DataFileContent::kData) continue;
          std::string p = e.data_file.file_path;
          if (p.rfind("file:", 0) == 0) p = p.substr(5);
          referenced.insert(p);
        }
      }
    }
    return {on_disk, referenced};
  }
  // The live delete files of each data file of the current snapshot, by the
  // data file's path (a data file without deletes is left out).
  std::map<std::string, std::vector<iceberg::DataFile>> LiveDeletes() {
    std::map<std::string, std::vector<iceberg::DataFile>> out;
    auto md = Metadata();
    table::FileManifestSource source(*md, catalog_->io());
    auto plan = table::PlanScan(md, {}, &source);
    EXPECT_OK(plan);
    if (!plan) return out;
    for (const auto& t : plan->files) {
      for (const auto& d : t.deletes) out[t.data_file.file_path].push_back(d->file);
    }
    return out;
  }

  // The snapshots committed by sink `sink_id`, by their commit number.
  std::multiset<int64_t> CommitNumbers(const std::string& sink_id) {
    std::multiset<int64_t> out;
    const auto md = Metadata();  // held: the loop reads its snapshots
    for (const auto& snap : md->snapshots) {
      auto id = snap.summary.find("floe.sink-id");
      auto n = snap.summary.find("floe.commit-number");
      if (id != snap.summary.end() && id->second == sink_id && n != snap.summary.end()) {
        out.insert(std::stoll(n->second));
      }
    }
    return out;
  }

  std::vector<int64_t> Range(int64_t from, int64_t to) {
    std::vector<int64_t> out;
    for (int64_t i = from; i <= to; ++i) out.push_back(i);
    return out;
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  SchemaPtr schema_;
  std::vector<std::unique_ptr<ChangeSink>> sinks_;
  std::map<int64_t, std::string> model_;
  int64_t next_seq_ = 1;
};

TEST_P(CdcVectors, TwoSinksOnOverlappingKeysBothCommitAndTheTableIsTheFold) {
  ChangeSink* a = OpenSink("a");
  ChangeSink* b = OpenSink("b");
  ASSERT_TRUE(a && b);
  // Window 1 (a): 40 keys.
  Update(a, Range(1, 40), "a0", RowKind::kInsert);
  ASSERT_OK(a->Commit());
  Fold(Range(1, 40), "a0");
  ExpectTableIsTheModel();

  // b buffers updates of 21..40 and of 5, 6 against the table as it is now;
  // a then commits updates of 1..10 (a vector for the first data file, and
  // new rows of 5 and 6). b's commit meets both: it resolves its deletes
  // again (5 and 6 now live in a's new file) and merges a's vector.
  std::vector<int64_t> b_keys = Range(21, 40);
  b_keys.push_back(5);
  b_keys.push_back(6);
  Update(b, b_keys, "b1");
  Update(a, Range(1, 10), "a1");
  ASSERT_OK(a->Commit());
  Fold(Range(1, 10), "a1");
  ExpectTableIsTheModel();
  ASSERT_OK(b->Commit());
  Fold(b_keys, "b1");
  ExpectTableIsTheModel();
  EXPECT_GE(b->stats().destinations.at(0).vector_replans, 1);

  // The other way, on disjoint keys of the same data file: a buffers 11..15,
  // b commits 16..20 first; a's commit meets b's vector for the data file
  // and merges it.
  Update(a, Range(11, 15), "a2");
  Update(b, Range(16, 20), "b2");
  ASSERT_OK(b->Commit());
  Fold(Range(16, 20), "b2");
  ASSERT_OK(a->Commit());
  Fold(Range(11, 15), "a2");
  ExpectTableIsTheModel();
  EXPECT_GE(a->stats().destinations.at(0).vector_replans, 1);

  // Deletes, in turn, of keys both changed.
  Update(a, {1, 21}, "", RowKind::kDelete);
  Update(b, {2, 22}, "", RowKind::kDelete);
  ASSERT_OK(a->Commit());
  ASSERT_OK(b->Commit());
  for (int64_t id : {1, 21, 2, 22}) model_.erase(id);
  ExpectTableIsTheModel();

  // Each commit number of each sink once; no delete file left unreferenced.
  EXPECT_EQ(CommitNumbers("a"), (std::multiset<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(CommitNumbers("b"), (std::multiset<int64_t>{1, 2, 3}));
  auto [on_disk, referenced] = DeleteFiles();
  EXPECT_FALSE(on_disk.empty());
  EXPECT_EQ(on_disk, referenced);
}

// A second copy of a sink (the same sink_id) commits the number the first
// was about to: the first's commit is refused by the token check, publishes
// nothing, and removes the file of its deletes (the Puffin file of its
// vectors, or on v2 its position delete file).
TEST_P(CdcVectors, ACopyOfTheSinkThatLostTheTokenLeavesNoDeleteFile) {
  ChangeSink* a = OpenSink("a");
  ASSERT_TRUE(a);
  Update(a, Range(1, 10), "a0", RowKind::kInsert);
  ASSERT_OK(a->Commit());
  Fold(Range(1, 10), "a0");
  ChangeSink* copy = OpenSink("a");
  ASSERT_TRUE(copy);
  Update(a, {1, 2}, "a1");
  Update(copy, {3, 4}, "c1");
  ASSERT_OK(copy->Commit());
  Fold({3, 4}, "c1");
  Status st = a->Commit();
  ASSERT_FALSE(st);
  EXPECT_THAT(st.error().message, ::testing::HasSubstr("already in the table"));
  ExpectTableIsTheModel();
  EXPECT_EQ(CommitNumbers("a"), (std::multiset<int64_t>{1, 2}));
  auto [on_disk, referenced] = DeleteFiles();
  EXPECT_EQ(on_disk.size(), 1u);
  EXPECT_EQ(on_disk, referenced);
}

// One sink, commits of updates spread over the rows of one data file: after
// each, the data file has one live delete file (a vector, or on v2 a position
// delete file with every position deleted so far: its record count), and the
// earlier ones are no longer live (the commit removed them).
TEST_P(CdcVectors, ADataFileKeepsOneDeleteFileOverManyCommits) {
  ChangeSink* a = OpenSink("a");
  ASSERT_TRUE(a);
  Update(a, Range(1, 100), "v0", RowKind::kInsert);
  ASSERT_OK(a->Commit());
  Fold(Range(1, 100), "v0");
  auto first = LiveDeletes();
  EXPECT_TRUE(first.empty());
  int64_t deleted = 0;
  for (int round = 1; round <= 6; ++round) {
    std::vector<int64_t> ids;
    for (int64_t id = round; id <= 100; id += 7) ids.push_back(id);  // each round other rows of the file
    Update(a, ids, "v" + std::to_string(round));
    ASSERT_OK(a->Commit());
    Fold(ids, "v" + std::to_string(round));
    deleted += static_cast<int64_t>(ids.size());
    ExpectTableIsTheModel();
    const auto live = LiveDeletes();
    // The first data file (1..100) and no other has deletes: each round's new
    // rows are in a file of their own that no later round changes.
    ASSERT_EQ(live.size(), 1u) << "round " << round;
    const std::vector<iceberg::DataFile>& files = live.begin()->second;
    ASSERT_EQ(files.size(), 1u) << "round " << round << ": " << files.size() << " live delete files";
    EXPECT_EQ(files[0].record_count, deleted) << "round " << round;
    EXPECT_EQ(files[0].referenced_data_file, live.begin()->first);
    EXPECT_EQ(files[0].file_format, GetParam() >= 3 ? iceberg::FileFormat::kPuffin : iceberg::FileFormat::kParquet);
    // The summary counts the replaced one as Java does (a vector, or a position delete file).
    const auto md = Metadata();  // held: summary refers into it
    const auto& summary = md->CurrentSnapshot()->summary;
    const char* removed_key = GetParam() >= 3 ? "removed-dvs" : "removed-position-delete-files";
    if (round == 1) {
      EXPECT_FALSE(summary.contains(removed_key));
    } else {
      EXPECT_EQ(summary.count(removed_key) ? summary.at(removed_key) : "", "1") << "round " << round;
    }
    EXPECT_FALSE(summary.contains(GetParam() >= 3 ? "removed-position-delete-files" : "removed-dvs"));
  }
  EXPECT_EQ(a->stats().destinations.at(0).vector_replans, 0);
}

// Two sinks on overlapping keys commit in a random order, with compactions
// (rewrite-data-files) between some windows: after the first open, each
// sink's key index is caught up with the other writers' commits (only the
// files that changed read: CatchUpKeyIndex), never built again, and the
// table stays the fold of the windows in commit order, key-unique.
TEST_P(CdcVectors, KeyIndexesCatchUpWithTheOtherWritersAndCompactions) {
  ChangeSink* a = OpenSink("a");
  ChangeSink* b = OpenSink("b");
  ASSERT_TRUE(a && b);
  Update(a, Range(1, 60), "a0", RowKind::kInsert);
  ASSERT_OK(a->Commit());
  Fold(Range(1, 60), "a0");
  std::mt19937 rng(7);
  for (int round = 1; round <= 24 && !::testing::Test::HasFailure(); ++round) {
    ChangeSink* s = rng() % 2 ? a : b;
    const std::string name = (s == a ? "a" : "b") + std::to_string(round);
    std::vector<int64_t> ids, gone;
    for (int k = 0; k < 8; ++k) {
      const int64_t id = 1 + static_cast<int64_t>(rng() % 80);
      if (std::find(ids.begin(), ids.end(), id) != ids.end() ||
          std::find(gone.begin(), gone.end(), id) != gone.end()) {
        continue;
      }
      if (rng() % 5 == 0 && model_.contains(id)) {
        gone.push_back(id);
      } else {
        ids.push_back(id);
      }
    }
    // An update of a key the table lacks is an insert (upsert-like fold).
    Update(s, ids, name);
    if (!gone.empty()) Update(s, gone, "", RowKind::kDelete);
    ASSERT_OK(s->Commit()) << "round " << round;
    Fold(ids, name);
    for (int64_t id : gone) model_.erase(id);
    ExpectTableIsTheModel();
    if (round % 6 == 0) {
      // Another writer compacts every data file (their deletes applied).
      auto loaded = catalog_->LoadTable(*catalog::ParseTableIdentifier("db.t"));
      ASSERT_OK(loaded);
      table::Table t(catalog_.get(), std::move(*loaded));
      // (Resolved from the table, as the command does: its data folder and
      // write properties.)
      auto o = table::RewriteDataFilesOptions::Resolve(t.metadata(), {{"rewrite-all", "true"}, {"min-input-files", "1"}});
      ASSERT_OK(o);
      auto rewritten = table::RewriteDataFiles(&t, *o);
      ASSERT_OK(rewritten);
      EXPECT_GT(rewritten->rewritten_data_files_count, 0);
      // Its files are the table's (in its data folder), not the working folder's.
      auto md = Metadata();
      table::FileManifestSource source(*md, catalog_->io());
      auto plan = table::PlanScan(md, {}, &source);
      ASSERT_OK(plan);
      for (const auto& f : plan->files) {
        EXPECT_NE(f.data_file.file_path.find((dir_ / "db" / "t" / "data").string()), std::string::npos)
            << f.data_file.file_path;
      }
      ExpectTableIsTheModel();
    }
  }
  for (ChangeSink* s : {a, b}) {
    const DestinationStats st = s->stats().destinations.at(0);
    EXPECT_EQ(st.index_builds, 1) << "an index was built again";
    EXPECT_GT(st.index_catch_ups, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(FormatVersion, CdcVectors, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) { return "v" + std::to_string(info.param); });

}  // namespace cdc_vectors_test
}  // namespace floe::sink
