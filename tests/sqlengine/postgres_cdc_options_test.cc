// The postgres-cdc connector's options (sqlengine/postgres_cdc_connector.h)
// into the PostgreSQL source's settings, without a server: defaults, the
// libpq connection string, the snapshot and heartbeat options, refusals.
// The end-to-end path is tests/cli/pg_sql_cli_test.cc.
#include <gtest/gtest.h>

#include "floe/sqlengine/postgres_cdc_connector.h"

namespace floe::sqlengine {
namespace postgres_cdc_options_test {

TableHandle Handle(std::map<std::string, std::string> extra) {
  TableHandle t;
  t.catalog = "default_catalog";
  t.database = "default_database";
  t.name = "src";
  t.primary_key = {"id"};
  t.options = {{"connector", "postgres-cdc"}, {"hostname", "db"},        {"username", "u"},
               {"password", "p'w\\"},          {"database-name", "shop"}, {"schema-name", "public"},
               {"table-name", "t"},            {"slot.name", "s1"}};
  for (auto& [k, v] : extra) t.options[k] = v;
  return t;
}

TEST(PostgresCdcOptions, Defaults) {
  auto s = PostgresCdcSourceOf(Handle({}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->config.connection,
            "host='db' port=5432 user='u' password='p\\'w\\\\' dbname='shop' connect_timeout=30");
  EXPECT_EQ(s->config.slot, "s1");
  EXPECT_EQ(s->config.publication, "floe_s1");
  EXPECT_EQ(s->config.startup, "initial");
  EXPECT_EQ(s->config.heartbeat_interval_ms, 30000);
  EXPECT_EQ(s->config.snapshot_chunk_size, 8096);
  EXPECT_EQ(s->config.snapshot_connections, 2);
  EXPECT_FALSE(s->config.evolve_schema);
  EXPECT_EQ(s->schema_regex, "public");
  EXPECT_EQ(s->table_regex, "t");
}

TEST(PostgresCdcOptions, Given) {
  auto s = PostgresCdcSourceOf(Handle({{"port", "6543"},
                                       {"scan.startup.mode", "SNAPSHOT"},
                                       {"heartbeat.interval.ms", "250"},
                                       {"connect.timeout", "1500ms"},
                                       {"changelog-mode", "upsert"},
                                       {"debezium.publication.name", "pub"},
                                       {"scan.incremental.snapshot.chunk.size", "100"}}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_NE(s->config.connection.find("port=6543"), std::string::npos);
  EXPECT_NE(s->config.connection.find("connect_timeout=2"), std::string::npos);
  EXPECT_EQ(s->config.startup, "snapshot");
  EXPECT_EQ(s->config.heartbeat_interval_ms, 250);
  EXPECT_EQ(s->config.publication, "pub");
  EXPECT_EQ(s->config.snapshot_chunk_size, 100);
  auto whole = PostgresCdcSourceOf(Handle({{"scan.incremental.snapshot.enabled", "false"}}));
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(whole->config.snapshot_chunk_size, 0);  // one chunk ...
  EXPECT_EQ(whole->config.snapshot_connections, 1);  // ... on one connection
}

TEST(PostgresCdcOptions, Refused) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"port", "70000"}}, "is not a port"},
      {{{"decoding.plugin.name", "wal2json_streaming"}}, "'decoding.plugin.name' = 'wal2json_streaming'"},
      {{{"scan.startup.mode", "committed-offset"}}, "'scan.startup.mode' = 'committed-offset'"},
      {{{"connect.timeout", "x"}}, "Option 'connect.timeout': 'x' is not a duration"},
      {{{"scan.incremental.snapshot.enabled", "maybe"}}, "Invalid value for option 'scan.incremental.snapshot.enabled'"},
      {{{"scan.incremental.snapshot.enabled", "false"}, {"scan.incremental.snapshot.chunk.size", "5"}},
       "needs 'scan.incremental.snapshot.enabled' = 'true'"},
      {{{"debezium.slot.drop.on.stop", "true"}}, "Option 'debezium.slot.drop.on.stop'"},
      {{{"scan.incremental.snapshot.backfill.skip", "true"}}, "Option 'scan.incremental.snapshot.backfill.skip'"},
      {{{"table-name", ""}}, "must name the PostgreSQL table"},
  };
  for (const auto& [extra, want] : cases) {
    auto s = PostgresCdcSourceOf(Handle(extra));
    ASSERT_FALSE(s) << want;
    EXPECT_NE(s.error().message.find(want), std::string::npos) << s.error().message;
  }
  TableHandle no_key = Handle({});
  no_key.primary_key.clear();
  auto s = PostgresCdcSourceOf(no_key);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("needs a PRIMARY KEY"), std::string::npos) << s.error().message;
}

}  // namespace postgres_cdc_options_test
}  // namespace floe::sqlengine
