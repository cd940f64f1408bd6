// The caching catalog (cache-enabled, cache.expiration-interval-ms) and how
// OpenCatalog picks catalogs: Java class names for catalog-impl, options of
// another catalog type refused, hive refused naming the alternatives.

#include "floe/catalog/caching_catalog.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/catalog/catalog.h"
#include "floe/iceberg/metadata_updates.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::catalog {
namespace caching_catalog_test {

namespace fs = std::filesystem;
using test::IsError;

class CachingCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_caching_catalog_");
    writer_ = Open({{"cache-enabled", "false"}});
    ASSERT_OK(writer_->CreateNamespace(*ParseNamespace("db"), {}));
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {});
    ASSERT_OK(writer_->CreateTable(Id(), d));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  std::unique_ptr<Catalog> Open(std::map<std::string, std::string> extra) {
    extra["warehouse"] = dir_.string();
    auto c = OpenCatalog("c", extra);
    EXPECT_TRUE(c) << c.error().ToString();
    return c ? std::move(*c) : nullptr;
  }
  std::unique_ptr<Catalog> Cached(int64_t expiration_ms) {
    auto inner = Open({{"cache-enabled", "false"}});
    return NewCachingCatalog(std::move(inner), expiration_ms, [this] { return now_ms_; });
  }
  static TableIdentifier Id() { return *ParseTableIdentifier("db.t"); }

  // Commits a property change through `c` from `base`.
  static Result<LoadedTable> SetProperty(Catalog* c, const LoadedTable& base, const std::string& key) {
    FLOE_ASSIGN_OR_RETURN(auto next, iceberg::UpdateProperties(base.metadata, {{key, "x"}}, {}));
    return c->CommitTable(base, std::move(next));
  }

  fs::path dir_;
  int64_t now_ms_ = 1000;
  std::unique_ptr<Catalog> writer_;  // another process, uncached
};

TEST_F(CachingCatalogTest, LoadsAreCachedUntilTheEntryIsIdleForTheInterval) {
  auto cached = Cached(30000);
  ASSERT_OK_AND_ASSIGN(auto first, cached->LoadTable(Id()));
  ASSERT_OK_AND_ASSIGN(auto base, writer_->LoadTable(Id()));
  ASSERT_OK(SetProperty(writer_.get(), base, "elsewhere"));

  now_ms_ += 29000;  // used within the interval: the cached version
  ASSERT_OK_AND_ASSIGN(auto second, cached->LoadTable(Id()));
  EXPECT_EQ(second.metadata_location, first.metadata_location);
  now_ms_ += 29000;  // the access above renewed the entry (expire after access)
  ASSERT_OK_AND_ASSIGN(auto third, cached->LoadTable(Id()));
  EXPECT_EQ(third.metadata_location, first.metadata_location);
  now_ms_ += 30000;  // idle for the whole interval: reloaded
  ASSERT_OK_AND_ASSIGN(auto fourth, cached->LoadTable(Id()));
  EXPECT_NE(fourth.metadata_location, first.metadata_location);
  EXPECT_EQ(fourth.metadata.properties.count("elsewhere"), 1u);
  const CacheStats* stats = CacheStatsOf(*cached);
  ASSERT_NE(stats, nullptr);
  EXPECT_EQ(stats->hits, 2);
  EXPECT_EQ(stats->misses, 2);
}

TEST_F(CachingCatalogTest, MinusOneNeverExpiresAndRefreshTableGoesPastTheCache) {
  auto cached = Cached(-1);
  ASSERT_OK_AND_ASSIGN(auto first, cached->LoadTable(Id()));
  ASSERT_OK_AND_ASSIGN(auto base, writer_->LoadTable(Id()));
  ASSERT_OK(SetProperty(writer_.get(), base, "elsewhere"));
  now_ms_ += int64_t{1} << 40;
  ASSERT_OK_AND_ASSIGN(auto again, cached->LoadTable(Id()));
  EXPECT_EQ(again.metadata_location, first.metadata_location);
  ASSERT_OK_AND_ASSIGN(auto fresh, cached->RefreshTable(Id()));
  EXPECT_NE(fresh.metadata_location, first.metadata_location);
  // The refresh replaced the entry.
  ASSERT_OK_AND_ASSIGN(auto after, cached->LoadTable(Id()));
  EXPECT_EQ(after.metadata_location, fresh.metadata_location);
}

TEST_F(CachingCatalogTest, ACommitThroughTheCacheRefreshesItsEntryAndAFailedOneEvictsIt) {
  auto cached = Cached(-1);
  ASSERT_OK_AND_ASSIGN(auto base, cached->LoadTable(Id()));
  ASSERT_OK_AND_ASSIGN(auto committed, SetProperty(cached.get(), base, "here"));
  ASSERT_OK_AND_ASSIGN(auto loaded, cached->LoadTable(Id()));
  EXPECT_EQ(loaded.metadata_location, committed.metadata_location);

  // Another writer commits; a commit here from the cached (stale) base loses
  // the race, and the retry's load sees the other writer's version.
  ASSERT_OK_AND_ASSIGN(auto other_base, writer_->LoadTable(Id()));
  ASSERT_OK_AND_ASSIGN(auto other, SetProperty(writer_.get(), other_base, "elsewhere"));
  ASSERT_OK_AND_ASSIGN(auto stale, cached->LoadTable(Id()));
  EXPECT_EQ(stale.metadata_location, committed.metadata_location);
  EXPECT_THAT(SetProperty(cached.get(), stale, "lost"), IsError(ErrorKind::kCommitFailed));
  ASSERT_OK_AND_ASSIGN(auto reloaded, cached->LoadTable(Id()));
  EXPECT_EQ(reloaded.metadata_location, other.metadata_location);
  ASSERT_OK(SetProperty(cached.get(), reloaded, "retried"));
}

TEST_F(CachingCatalogTest, DropAndRenameEvict) {
  auto cached = Cached(-1);
  ASSERT_OK(cached->LoadTable(Id()));
  ASSERT_OK(cached->DropTable(Id(), false));
  EXPECT_THAT(cached->LoadTable(Id()), IsError(ErrorKind::kNotFound));
  EXPECT_FALSE(*cached->TableExists(Id()));
}

TEST_F(CachingCatalogTest, OpenCatalogWrapsUnlessDisabledAndChecksTheInterval) {
  auto on = Open({});
  EXPECT_NE(CacheStatsOf(*on), nullptr);  // cache-enabled defaults to true, as in Iceberg
  ASSERT_OK(on->LoadTable(Id()));
  ASSERT_OK(on->LoadTable(Id()));
  EXPECT_EQ(CacheStatsOf(*on)->hits, 1);
  auto off = Open({{"cache-enabled", "false"}});
  EXPECT_EQ(CacheStatsOf(*off), nullptr);

  auto zero = OpenCatalog("c", {{"warehouse", dir_.string()}, {"cache.expiration-interval-ms", "0"}});
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("0 is not allowed"), std::string::npos) << zero.error().message;
  auto useless = OpenCatalog(
      "c", {{"warehouse", dir_.string()}, {"cache-enabled", "false"}, {"cache.expiration-interval-ms", "5000"}});
  ASSERT_FALSE(useless);
  EXPECT_NE(useless.error().message.find("does nothing with cache-enabled=false"), std::string::npos)
      << useless.error().message;
}

TEST_F(CachingCatalogTest, CatalogImplNamesAndTypeChecks) {
  // The Java class names of the built-in catalogs select them.
  auto hadoop = OpenCatalog("c", {{"catalog-impl", "org.apache.iceberg.hadoop.HadoopCatalog"},
                                  {"warehouse", dir_.string()}});
  ASSERT_TRUE(hadoop) << hadoop.error().ToString();
  EXPECT_TRUE(*(*hadoop)->TableExists(Id()));
  auto sql = OpenCatalog("c", {{"catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog"},
                               {"uri", "jdbc:sqlite:file:" + (dir_ / "c.db").string()},
                               {"warehouse", dir_.string()}});
  ASSERT_TRUE(sql) << sql.error().ToString();
  EXPECT_TRUE(fs::exists(dir_ / "c.db"));

  struct Bad {
    std::map<std::string, std::string> options;
    std::string says;
  };
  const std::vector<Bad> bad = {
      {{{"catalog-impl", "com.example.MyCatalog"}},
       "catalog-impl 'com.example.MyCatalog' is not a catalog floe knows: the built-in ones are "
       "org.apache.iceberg.hadoop.HadoopCatalog, org.apache.iceberg.rest.RESTCatalog, "
       "org.apache.iceberg.jdbc.JdbcCatalog"},
      {{{"catalog-impl", "org.apache.iceberg.hive.HiveCatalog"}}, "no Hive Metastore client"},
      {{{"catalog-type", "hive"}}, "catalog-type=hive is not available in floe: no Hive Metastore client (use catalog-type=rest"},
      {{{"catalog-impl", "org.apache.iceberg.hadoop.HadoopCatalog"}, {"catalog-type", "hadoop"}},
       "catalog-type and catalog-impl cannot both be set"},
      {{{"token", "t0k"}}, "option token does nothing with catalog-type=hadoop (it is an option of catalog-type=rest)"},
      {{{"uri", "jdbc:sqlite:file:x.db"}}, "option uri does nothing with catalog-type=hadoop (it is an option of "
                                           "catalog-type=rest, sql)"},
      {{{"jdbc.user", "me"}}, "option jdbc.user does nothing with catalog-type=hadoop"},
      {{{"catalog-type", "sql"}, {"uri", "jdbc:sqlite:file:x.db"}, {"credential", "a:b"}},
       "option credential does nothing with catalog-type=sql (it is an option of catalog-type=rest)"},
      {{{"catalog-type", "sql"}, {"uri", "jdbc:sqlite:file:x.db"}, {"header.X-Y", "1"}},
       "option header.X-Y does nothing with catalog-type=sql"},
  };
  for (const Bad& b : bad) {
    auto options = b.options;
    options.emplace("warehouse", dir_.string());
    auto c = OpenCatalog("c", options);
    ASSERT_FALSE(c) << b.says;
    EXPECT_NE(c.error().message.find(b.says), std::string::npos) << c.error().message;
    // Secrets are not echoed.
    EXPECT_EQ(c.error().message.find("t0k"), std::string::npos) << c.error().message;
  }
}

}  // namespace caching_catalog_test
}  // namespace floe::catalog
