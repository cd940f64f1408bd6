#include "floe/catalog/catalog.h"
#include "floe/catalog/commit_retry.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/race.h"

namespace floe::catalog {
namespace hadoop_catalog_test {

namespace fs = std::filesystem;

class HadoopCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_hadoop_catalog_");
    auto c = OpenCatalog("test", {{"catalog-type", "hadoop"}, {"warehouse", dir_.string()}});
    ASSERT_TRUE(c) << c.error().ToString();
    catalog_ = std::move(*c);
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  TableDefinition Def() {
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0, {1});
    d.properties = {{"format-version", "2"}, {"owner", "floe"}};
    return d;
  }

  fs::path dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(HadoopCatalogTest, NamespacesAndTables) {
  auto db = *ParseNamespace("db");
  auto nested = *ParseNamespace("db.inner");
  ASSERT_OK(catalog_->CreateNamespace(db, {}));
  EXPECT_EQ(catalog_->CreateNamespace(db, {}).error().kind, ErrorKind::kAlreadyExists);
  ASSERT_OK(catalog_->CreateNamespace(nested, {}));
  auto id = *ParseTableIdentifier("db.events");
  auto created = catalog_->CreateTable(id, Def());
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_EQ(created->metadata.properties.count("format-version"), 0u);
  EXPECT_EQ(created->metadata.properties.at("owner"), "floe");
  EXPECT_TRUE(created->metadata.location.starts_with("file:/"));
  EXPECT_EQ(catalog_->CreateTable(id, Def()).error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(*ReadLocalFile((dir_ / "db/events/metadata/version-hint.text").string()), "1");

  auto namespaces = *catalog_->ListNamespaces(db);
  ASSERT_EQ(namespaces.size(), 1u);  // the table folder is not a namespace
  EXPECT_EQ(namespaces[0].ToString(), "db.inner");
  auto tables = *catalog_->ListTables(db);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].ToString(), "db.events");
  EXPECT_EQ(catalog_->DropNamespace(db).error().kind, ErrorKind::kInvalidArgument);  // not empty
  EXPECT_EQ(catalog_->CreateTable(*ParseTableIdentifier("nope.t"), Def()).error().kind, ErrorKind::kNotFound);

  auto loaded = catalog_->LoadTable(id);
  ASSERT_OK(loaded);
  EXPECT_EQ(loaded->metadata.table_uuid, created->metadata.table_uuid);
  EXPECT_EQ(catalog_->RenameTable(id, *ParseTableIdentifier("db.other")).error().kind, ErrorKind::kUnsupported);
  ASSERT_OK(catalog_->DropTable(id, false));
  EXPECT_EQ(catalog_->LoadTable(id).error().kind, ErrorKind::kNotFound);
  ASSERT_OK(catalog_->DropNamespace(nested));
  ASSERT_OK(catalog_->DropNamespace(db));
  EXPECT_FALSE(*catalog_->NamespaceExists(db));
}

TEST_F(HadoopCatalogTest, StaleCommitsFailAndTheLogGrows) {
  ASSERT_OK(catalog_->CreateNamespace(*ParseNamespace("db"), {}));
  auto t = *catalog_->CreateTable(*ParseTableIdentifier("db.t"), Def());
  auto v2 = catalog_->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "1"}}, {}));
  ASSERT_TRUE(v2) << v2.error().ToString();
  EXPECT_TRUE(v2->metadata_location.ends_with("v2.metadata.json"));
  ASSERT_EQ(v2->metadata.metadata_log.size(), 1u);
  EXPECT_TRUE(v2->metadata.metadata_log[0].metadata_file.ends_with("v1.metadata.json"));
  // A commit based on v1 again must fail: v2 is current.
  auto stale = catalog_->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "2"}}, {}));
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().kind, ErrorKind::kCommitFailed);
  EXPECT_EQ(catalog_->LoadTable(t.id)->metadata.properties.at("k"), "1");
}

TEST_F(HadoopCatalogTest, DropIfUnchangedKeepsATableSomeoneCommittedTo) {
  ASSERT_OK(catalog_->CreateNamespace(*ParseNamespace("db"), {}));
  // Nobody committed: the table and its folder go; the namespace stays.
  auto id = *ParseTableIdentifier("db.t");
  auto t = *catalog_->CreateTable(id, Def());
  auto dropped = catalog_->DropIfUnchanged(t);
  ASSERT_TRUE(dropped) << dropped.error().ToString();
  EXPECT_TRUE(*dropped);
  EXPECT_FALSE(*catalog_->TableExists(id));
  EXPECT_FALSE(fs::exists(dir_ / "db/t"));
  EXPECT_TRUE(fs::is_directory(dir_ / "db"));
  // Another writer committed v2: nothing is removed.
  t = *catalog_->CreateTable(id, Def());
  ASSERT_OK(catalog_->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "1"}}, {})));
  dropped = catalog_->DropIfUnchanged(t);
  ASSERT_OK(dropped);
  EXPECT_FALSE(*dropped);
  auto now = catalog_->LoadTable(id);
  ASSERT_OK(now);
  EXPECT_EQ(now->metadata.properties.at("k"), "1");
  EXPECT_TRUE(fs::exists(dir_ / "db/t/metadata/v1.metadata.json"));
  // A file another writer left in the table folder keeps the folder.
  auto id2 = *ParseTableIdentifier("db.u");
  auto u = *catalog_->CreateTable(id2, Def());
  fs::create_directories(dir_ / "db/u/data");
  ASSERT_OK(WriteLocalFile((dir_ / "db/u/data/x.parquet").string(), "x"));
  ASSERT_TRUE(*catalog_->DropIfUnchanged(u));
  EXPECT_FALSE(*catalog_->TableExists(id2));
  EXPECT_TRUE(fs::exists(dir_ / "db/u/data/x.parquet"));
  EXPECT_FALSE(fs::exists(dir_ / "db/u/metadata"));
}

TEST_F(HadoopCatalogTest, WrittenMetadataPassesTheSpecCheck) {
  ASSERT_OK(catalog_->CreateNamespace(*ParseNamespace("db"), {}));
  auto t = *catalog_->CreateTable(*ParseTableIdentifier("db.t"), Def());
  auto text = ReadLocalFile(t.metadata_location);
  ASSERT_OK(text);
  auto st = iceberg::CheckV2MetadataJson(*text);
  EXPECT_TRUE(st) << st.error().ToString();
  EXPECT_EQ(text->find("current-snapshot-id"), std::string::npos);  // empty table: omitted
}

// Two processes commit 200 property changes each to one table: every change
// lands exactly once and the versions have no gaps.
TEST_F(HadoopCatalogTest, TwoProcessesCommitConcurrently) {
  ASSERT_OK(catalog_->CreateNamespace(*ParseNamespace("db"), {}));
  auto id = *ParseTableIdentifier("db.race");
  ASSERT_OK(catalog_->CreateTable(id, Def()));
  const int kCommits = 200;
  auto child = [&](int who) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto cat, OpenCatalog("c", {{"warehouse", dir_.string()}}));
    RetryPolicy p;
    p.num_retries = 100000;
    p.min_wait_ms = 0;
    p.max_wait_ms = 3;
    for (int i = 0; i < kCommits; ++i) {
      FLOE_RETURN_IF_ERROR(RunWithRetries(p, [&](int) -> Status {
        FLOE_ASSIGN_OR_RETURN(auto base, cat->LoadTable(id));
        FLOE_ASSIGN_OR_RETURN(auto next, iceberg::UpdateProperties(
                                             base.metadata, {{fmt::format("p{}-{}", who, i), "x"}}, {}));
        FLOE_RETURN_IF_ERROR(cat->CommitTable(base, std::move(next)));
        return Ok();
      }));
    }
    return Ok();
  };
  ASSERT_TRUE(test::RaceTwoProcesses(child));
  auto final_table = catalog_->RefreshTable(id);
  ASSERT_OK(final_table);
  EXPECT_TRUE(final_table->metadata_location.ends_with(fmt::format("v{}.metadata.json", 2 * kCommits + 1)));
  for (int v = 1; v <= 2 * kCommits + 1; ++v) {
    EXPECT_TRUE(fs::exists(dir_ / fmt::format("db/race/metadata/v{}.metadata.json", v))) << v;
  }
  int props = 0;
  for (const auto& [k, v] : final_table->metadata.properties) props += k.starts_with("p");
  EXPECT_EQ(props, 2 * kCommits);
}

}  // namespace hadoop_catalog_test
}  // namespace floe::catalog
