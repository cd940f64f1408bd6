// The changelog (table/changelog_scan.h) of windows committed by floe's CDC
// sink (sink/change_sink.h, merge-on-read, keyed by the identifier field):
// an update is a -U/+U pair of the old and new image, a delete a -D of the
// full old row, an insert a +I; a key inserted and deleted within one
// window never shows; a key updated twice in a window shows once with its
// last image; a key deleted and inserted again in a later window comes back.
// Applying each window's changelog to the rows before it gives the rows
// after it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "floe/sink/change_sink.h"
#include "floe/table/changelog_scan.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::sink {
namespace changelog_cdc_test {

namespace fs = std::filesystem;
using ::testing::UnorderedElementsAre;

class ChangelogCdcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_changelog_cdc_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
    catalog::TableDefinition def;
    def.schema =
        Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0, {1});
    ASSERT_OK(catalog_->CreateTable(*catalog::ParseTableIdentifier("db.t"), def));
    schema_ = std::make_shared<const Schema>(def.schema);
    WriteConfig cfg;
    ASSERT_OK(cfg.Set("table", "db.t"));
    ASSERT_OK(cfg.Set("mode", "merge-on-read"));
    ChangeSinkOptions opt;
    opt.changes_in_batch = true;
    opt.spill_dir = dir_.string();
    auto sink = ChangeSink::Open(cfg, catalog_.get(), schema_, opt);
    ASSERT_OK(sink);
    sink_ = std::move(*sink);
  }
  void TearDown() override {
    sink_.reset();
    test::RemoveTestDirIfPassed(dir_);
  }

  struct Change {
    RowKind kind;
    int64_t id;
    std::string name;
  };
  // One window: the changes, in order, then a commit; the snapshot id.
  int64_t Window(const std::vector<Change>& changes) {
    Batch b(schema_);
    int64_t seq = next_seq_;
    for (const auto& c : changes) {
      b.columns[0].Append<int64_t>(c.id);
      if (c.name.empty()) {
        b.columns[1].AppendNull();
      } else {
        b.columns[1].AppendBytes(c.name);
      }
      b.row_kinds.push_back(c.kind);
      b.sequence_numbers.push_back(seq++);
    }
    next_seq_ = seq;
    b.num_rows = static_cast<int64_t>(changes.size());
    EXPECT_OK(sink_->Write(std::move(b)));
    EXPECT_OK(sink_->Commit());
    auto t = catalog_->RefreshTable(*catalog::ParseTableIdentifier("db.t"));
    EXPECT_OK(t);
    return t->metadata.current_snapshot_id.value_or(0);
  }

  std::shared_ptr<const iceberg::TableMetadata> Metadata() {
    auto t = catalog_->RefreshTable(*catalog::ParseTableIdentifier("db.t"));
    EXPECT_OK(t);
    return std::make_shared<const iceberg::TableMetadata>(t->metadata);
  }

  std::vector<std::string> Changelog(int64_t snapshot_id) {
    auto md = Metadata();
    auto shape = table::PlanShape(md, {});
    EXPECT_OK(shape);
    table::FileManifestSource source(*md, catalog_->io());
    auto plan = table::PlanChangelog(*shape, *md->SnapshotById(snapshot_id), &source);
    EXPECT_OK(plan);
    std::vector<std::string> out;
    static const char* kNames[] = {"+I", "-U", "+U", "-D"};
    EXPECT_OK(table::ReadChangelog(*plan, *catalog_->io(), 1024, [&](Batch&& b) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::string json;
        AppendJsonRow(b, i, &json);
        out.push_back(std::string(kNames[static_cast<int>(b.row_kinds[i])]) + " " + json);
      }
      return Ok();
    }));
    // An update pair is adjacent: -U then its +U.
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].starts_with("-U")) {
        EXPECT_TRUE(i + 1 < out.size() && out[i + 1].starts_with("+U")) << out[i];
      }
    }
    return out;
  }

  std::vector<std::string> Rows(std::optional<int64_t> snapshot_id) {
    std::vector<std::string> out;
    if (!snapshot_id) return out;
    auto md = Metadata();
    table::FileManifestSource source(*md, catalog_->io());
    table::ScanOptions o;
    o.snapshot_id = *snapshot_id;
    auto plan = table::PlanScan(md, o, &source);
    EXPECT_OK(plan);
    auto batches = table::ReadAll(*plan, catalog_->io());
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

  void ExpectConsistent(int64_t snapshot_id, const std::vector<std::string>& changes) {
    auto md = Metadata();
    std::vector<std::string> rows = Rows(md->SnapshotById(snapshot_id)->parent_snapshot_id);
    for (const auto& c : changes) {
      const std::string kind = c.substr(0, 2), row = c.substr(3);
      if (kind == "-D" || kind == "-U") {
        auto it = std::find(rows.begin(), rows.end(), row);
        ASSERT_NE(it, rows.end()) << c;
        rows.erase(it);
      } else {
        rows.push_back(row);
      }
    }
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, Rows(snapshot_id));
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  SchemaPtr schema_;
  std::unique_ptr<ChangeSink> sink_;
  int64_t next_seq_ = 1;
};

TEST_F(ChangelogCdcTest, WindowsOfTheChangeSinkGiveTheirChanges) {
  const auto I = RowKind::kInsert, UB = RowKind::kUpdateBefore, UA = RowKind::kUpdateAfter,
             D = RowKind::kDelete;
  int64_t w1 = Window({{I, 1, "a"}, {I, 2, "b"}, {I, 3, "c"}});
  auto c1 = Changelog(w1);
  EXPECT_THAT(c1,
              UnorderedElementsAre("+I {\"id\":1,\"name\":\"a\"}", "+I {\"id\":2,\"name\":\"b\"}",
                                   "+I {\"id\":3,\"name\":\"c\"}"));

  int64_t w2 = Window({{UB, 1, "a"},
                       {UA, 1, "a2"},  // an update
                       {D, 2, "b"},    // a delete
                       {I, 4, "d"},    // an insert
                       {I, 5, "e"},
                       {D, 5, "e"},  // born and gone in the window
                       {UA, 3, "x"},
                       {UA, 3, "y"}});  // updated twice
  auto c2 = Changelog(w2);
  EXPECT_THAT(c2,
              UnorderedElementsAre("-U {\"id\":1,\"name\":\"a\"}", "+U {\"id\":1,\"name\":\"a2\"}",
                                   "-D {\"id\":2,\"name\":\"b\"}", "-U {\"id\":3,\"name\":\"c\"}",
                                   "+U {\"id\":3,\"name\":\"y\"}", "+I {\"id\":4,\"name\":\"d\"}"));
  ExpectConsistent(w2, c2);

  int64_t w3 = Window({{D, 4, "d"}, {I, 2, "b2"}});  // a deleted key comes back
  auto c3 = Changelog(w3);
  EXPECT_THAT(
      c3, UnorderedElementsAre("-D {\"id\":4,\"name\":\"d\"}", "+I {\"id\":2,\"name\":\"b2\"}"));
  ExpectConsistent(w3, c3);
}

}  // namespace changelog_cdc_test
}  // namespace floe::sink
