// A catalog plugin (test.FileCatalog, a pointer store) through the Catalog
// adapter: floe writes the metadata files, the plugin swaps pointers; a
// stale commit is kCommitFailed with the plugin's message and leaves no file.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "floe/plugin/plugin_catalog.h"
#include "plugin_test_util.h"
#include "testing/matchers.h"

namespace floe::plugin {
namespace catalog_test {

using floe::test::HasErrorMessage;
using floe::test::IsError;
using test::PluginFile;

size_t MetadataFiles(const std::filesystem::path& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().string().ends_with(".metadata.json");
  return n;
}

TEST(PluginCatalog, CommitsSwapPointersAndStaleCommitsFail) {
  ASSERT_OK(LoadPlugin(PluginFile("floe_test_catalog")));
  auto dir = floe::test::FreshTestDir("plugin_catalog");
  ASSERT_OK_AND_ASSIGN(auto cat,
                       OpenPluginCatalog("test.FileCatalog", "c", {{"warehouse", dir.string()}}));
  catalog::Namespace ns{{"db"}};
  ASSERT_OK(cat->CreateNamespace(ns, {{"owner", "me"}}));
  EXPECT_THAT(cat->CreateNamespace(ns, {}), IsError(ErrorKind::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(auto props, cat->LoadNamespaceProperties(ns));
  EXPECT_EQ(props.at("owner"), "me");

  catalog::TableIdentifier id{ns, "t"};
  catalog::TableDefinition def;
  def.schema = *test::IdNameSchema();
  ASSERT_OK_AND_ASSIGN(catalog::LoadedTable created, cat->CreateTable(id, def));
  EXPECT_THAT(created.metadata_location, ::testing::HasSubstr("/db/t/metadata/00000-"));
  ASSERT_OK_AND_ASSIGN(auto tables, cat->ListTables(ns));
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].name, "t");

  iceberg::TableMetadata next = created.metadata;
  next.properties["k"] = "v1";
  ASSERT_OK_AND_ASSIGN(catalog::LoadedTable committed, cat->CommitTable(created, next));
  EXPECT_THAT(committed.metadata_location, ::testing::HasSubstr("/db/t/metadata/00001-"));
  ASSERT_OK_AND_ASSIGN(catalog::LoadedTable loaded, cat->LoadTable(id));
  EXPECT_EQ(loaded.metadata_location, committed.metadata_location);
  EXPECT_EQ(loaded.metadata.properties.at("k"), "v1");

  // A second commit from the same (now stale) base loses the race.
  iceberg::TableMetadata other = created.metadata;
  other.properties["k"] = "v2";
  EXPECT_THAT(cat->CommitTable(created, other),
              ::testing::AllOf(
                  IsError(ErrorKind::kCommitFailed),
                  HasErrorMessage("floe.PluginException: test.FileCatalog: commit_table: the table "
                                  "moved on to " +
                                  committed.metadata_location)));
  EXPECT_EQ(MetadataFiles(dir / "db" / "t" / "metadata"), 2u)
      << "the refused commit's file is removed";

  EXPECT_THAT(cat->RegisterTable(catalog::TableIdentifier{ns, "u"}, committed.metadata_location),
              ::testing::AllOf(
                  IsError(ErrorKind::kUnsupported),
                  HasErrorMessage("test.FileCatalog: register_table: the catalog class does not "
                                  "implement it")));
  ASSERT_OK(cat->DropTable(id, false));
  EXPECT_THAT(cat->LoadTable(id), IsError(ErrorKind::kNotFound));
  floe::test::RemoveTestDirIfPassed(dir);
}

}  // namespace catalog_test
}  // namespace floe::plugin
