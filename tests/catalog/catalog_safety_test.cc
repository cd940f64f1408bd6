// Regression tests for the catalog side of floe issue 7 (section 5, part C):
// identifiers that would escape their namespace, retry messages that read
// right, a failed version-hint update that is reported, and a copied table
// folder that is refused for writes.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/commit_retry.h"
#include "floe/catalog/identifier.h"
#include "floe/catalog/warnings.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::catalog {
namespace catalog_safety_test {

namespace fs = std::filesystem;

TEST(ParseTableIdentifier, RefusesEmptyDotAndSlashParts) {
  // ".t" used to parse as table "t" in the empty namespace: a table at the
  // warehouse root, beside the namespaces.
  for (std::string bad :
       {".t", "a..t", "..t", "a.", ".", "a./.t", "a/b.t", "a.t/u", "a...t", "a.t."}) {
    auto id = ParseTableIdentifier(bad);
    ASSERT_FALSE(id) << bad << " parsed as " << id->ToString();
    EXPECT_EQ(id.error().kind, ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(id.error().message.find("'" + bad + "'"), std::string::npos) << id.error().message;
  }
  auto empty_ns = ParseTableIdentifier(".t");
  EXPECT_NE(empty_ns.error().message.find("empty"), std::string::npos) << empty_ns.error().message;
  for (std::string good : {"db.t", "a.b.t", "db._t", "db.t-1"}) {
    auto id = ParseTableIdentifier(good);
    ASSERT_TRUE(id) << good << ": " << id.error().message;
    EXPECT_EQ(id->ToString(), good);
  }
}

TEST(RunWithRetries, GiveUpMessageReadsRightForOneAttempt) {
  RetryPolicy p;
  p.num_retries = 0;
  auto st = RunWithRetries(p, [&](int) -> Status { return CommitFailed("table db.t changed"); });
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCommitFailed);
  const std::string& m = st.error().message;
  EXPECT_EQ(m.find("1 attempts"), std::string::npos) << m;
  EXPECT_NE(m.find("table db.t changed"), std::string::npos) << m;
  EXPECT_NE(m.find("not retried"), std::string::npos) << m;
  EXPECT_NE(m.find("commit.retry.num-retries is 0"), std::string::npos) << m;
}

TEST(RunWithRetries, GiveUpMessageNamesWhatWasRetriedAndWhyItStopped) {
  RetryPolicy p;
  p.num_retries = 2;
  p.min_wait_ms = 0;
  p.max_wait_ms = 0;
  auto st = RunWithRetries(p, [&](int) -> Status { return CommitFailed("race"); });
  ASSERT_FALSE(st);
  const std::string& m = st.error().message;
  EXPECT_NE(m.find("tried 3 times"), std::string::npos) << m;
  EXPECT_NE(m.find("2 retries"), std::string::npos) << m;
  EXPECT_NE(m.find("another writer"), std::string::npos) << m;
  EXPECT_NE(m.find("commit.retry.num-retries is 2"), std::string::npos) << m;

  p.num_retries = 1000;
  p.total_timeout_ms = 0;
  st = RunWithRetries(p, [&](int) -> Status { return CommitFailed("race"); });
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("commit.retry.total-timeout-ms"), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("not retried"), std::string::npos) << st.error().message;
}

class CatalogSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_catalog_safety_");
    catalog_ = Open(dir_ / "wh");
    ASSERT_OK(catalog_->CreateNamespace(*ParseNamespace("db"), {}));
  }
  void TearDown() override {
    SetWarningHandler(nullptr);
    test::RemoveTestDirIfPassed(dir_);
  }

  static std::unique_ptr<Catalog> Open(const fs::path& warehouse) {
    auto c = OpenCatalog("test", {{"catalog-type", "hadoop"}, {"warehouse", warehouse.string()}});
    EXPECT_TRUE(c) << c.error().ToString();
    return std::move(*c);
  }

  LoadedTable Create(const std::string& name) {
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {1});
    auto t = catalog_->CreateTable(*ParseTableIdentifier(name), d);
    EXPECT_TRUE(t) << t.error().ToString();
    return *t;
  }

  fs::path dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(CatalogSafetyTest, FailedVersionHintUpdateIsReportedAndTheCommitStands) {
  auto t = Create("db.t");
  std::vector<std::string> warnings;
  SetWarningHandler([&](const std::string& w) { warnings.push_back(w); });
  // A folder where the hint goes: its rename fails even for root.
  fs::path hint = dir_ / "wh/db/t/metadata/version-hint.text";
  fs::remove(hint);
  fs::create_directories(hint / "blocker");
  auto v2 = catalog_->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "1"}}, {}));
  ASSERT_TRUE(v2) << v2.error().ToString();
  EXPECT_TRUE(v2->metadata_location.ends_with("v2.metadata.json"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("version-hint.text"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("version 2"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("db.t"), std::string::npos) << warnings[0];
  // Readers still find the new version (they probe past a stale hint).
  auto loaded = catalog_->LoadTable(t.id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata.properties.at("k"), "1");

  // A good hint write warns about nothing.
  fs::remove_all(hint);
  warnings.clear();
  ASSERT_OK(catalog_->CommitTable(*loaded,
                                  *iceberg::UpdateProperties(loaded->metadata, {{"k", "2"}}, {})));
  EXPECT_TRUE(warnings.empty()) << warnings[0];
}

TEST_F(CatalogSafetyTest, CopiedTableFolderIsRefusedForCommits) {
  auto t = Create("db.t");
  ASSERT_OK(catalog_->CheckLocation(t));
  fs::copy(dir_ / "wh", dir_ / "copy", fs::copy_options::recursive);
  auto copy_catalog = Open(dir_ / "copy");
  auto copied = copy_catalog->LoadTable(t.id);
  ASSERT_TRUE(copied) << copied.error().ToString();  // reading still works

  auto check = copy_catalog->CheckLocation(*copied);
  ASSERT_FALSE(check);
  const std::string& m = check.error().message;
  EXPECT_NE(m.find((dir_ / "wh/db/t").string()), std::string::npos) << m;
  EXPECT_NE(m.find((dir_ / "copy/db/t").string()), std::string::npos) << m;
  EXPECT_NE(m.find("copied"), std::string::npos) << m;

  auto committed = copy_catalog->CommitTable(
      *copied, *iceberg::UpdateProperties(copied->metadata, {{"k", "1"}}, {}));
  ASSERT_FALSE(committed);
  EXPECT_NE(committed.error().kind, ErrorKind::kCommitFailed);  // not a race: retrying cannot help
  EXPECT_FALSE(fs::exists(dir_ / "copy/db/t/metadata/v2.metadata.json"));
  EXPECT_FALSE(fs::exists(dir_ / "wh/db/t/metadata/v2.metadata.json"));
}

TEST_F(CatalogSafetyTest, TableReachedThroughASymlinkedWarehouseIsItself) {
  auto t = Create("db.t");
  fs::create_directory_symlink(dir_ / "wh", dir_ / "link");
  auto via_link = Open(dir_ / "link");
  auto loaded = via_link->LoadTable(t.id);
  ASSERT_OK(loaded);
  EXPECT_OK(via_link->CheckLocation(*loaded));
  EXPECT_OK(via_link->CommitTable(*loaded,
                                  *iceberg::UpdateProperties(loaded->metadata, {{"k", "1"}}, {})));
}

}  // namespace catalog_safety_test
}  // namespace floe::catalog
