// The `source:` block of the PostgreSQL source (PgSourceConfig::FromMap):
// startup modes, heartbeat_interval_ms, tables or a publication.
#include <gtest/gtest.h>

#include "floe/pgsrc/pg_source.h"

namespace floe::pgsrc {
namespace pg_source_config_test {

std::map<std::string, std::string> Block(std::map<std::string, std::string> extra) {
  std::map<std::string, std::string> b = {
      {"type", "postgres"}, {"connection", "postgresql://x/db"}, {"tables", "t"}, {"slot", "s"}};
  for (auto& [k, v] : extra) b[k] = v;
  return b;
}

TEST(PgSourceConfig, StartupAndHeartbeat) {
  auto c = PgSourceConfig::FromMap(Block({}), "pg.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->startup, "initial");
  EXPECT_EQ(c->heartbeat_interval_ms, 10000);
  EXPECT_TRUE(c->evolve_schema);
  c = PgSourceConfig::FromMap(Block({{"startup", "snapshot"}, {"heartbeat_interval_ms", "0"}}), "pg.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->startup, "snapshot");
  EXPECT_EQ(c->heartbeat_interval_ms, 0);
  c = PgSourceConfig::FromMap(Block({{"startup", "earliest"}}), "pg.yaml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("valid values are initial, latest-offset, snapshot"), std::string::npos);
  c = PgSourceConfig::FromMap(Block({{"heartbeat_interval_ms", "1s"}}), "pg.yaml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("heartbeat_interval_ms '1s'"), std::string::npos) << c.error().message;
}

// Without `tables`, an existing publication's tables (read at run time);
// without both, an error naming both keys.
TEST(PgSourceConfig, TablesOrAPublication) {
  auto b = Block({});
  b.erase("tables");
  auto c = PgSourceConfig::FromMap(b, "pg.yaml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("give 'tables'"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("'publication'"), std::string::npos) << c.error().message;
  b["publication"] = "shop";
  c = PgSourceConfig::FromMap(b, "pg.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->tables_from_publication);
  EXPECT_EQ(c->publication, "shop");
  c = PgSourceConfig::FromMap(Block({{"publication", "shop"}}), "pg.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->tables_from_publication);
}

}  // namespace pg_source_config_test
}  // namespace floe::pgsrc
