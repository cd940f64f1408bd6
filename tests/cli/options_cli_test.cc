// Every option a new user tried that passed validation and then did nothing
// (issue 7, section 1), run through each surface it can be given on: `--set`,
// `--config` YAML (`write_properties`, `table_properties`,
// `catalog_properties`, top-level Beam keys), `--catalog`, and `floe scan
// --set`. Each is either implemented (accepted; its effect is tested where
// the registry's status says, e.g. tests/cli/iceberg_cli_test.cc for
// write options and tests/table/scan_planner_test.cc for
// include-column-stats) or refused with exit 2 and a message that names it.
// Nothing is written when an option is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "floe/config/options.h"

namespace floe_cli_test {
namespace options_cli_test {

class OptionsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_options_cli_");
    WriteFile(dir_ / "in.jsonl", "{\"id\":1,\"region\":\"eu\",\"name\":\"a\"}\n");
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  // A first write of a new table with extra arguments.
  RunResult Write(const std::string& extra) {
    return Floe("write --table db.t --schema 'id BIGINT, region STRING, name STRING' --input in.jsonl " + extra);
  }
  RunResult WriteYaml(const std::string& yaml) {
    WriteFile(dir_ / "w.yaml", yaml);
    return Write("--config w.yaml");
  }

  // Refused: exit 2, the message names `name`, and no table was made.
  void ExpectRefused(const RunResult& r, const std::string& name, const std::string& how) {
    EXPECT_EQ(r.rc, 2) << how << "\n" << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << how << ": the message does not name " << name << ":\n" << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "db" / "t")) << how << " left a table behind";
    std::error_code ec;
    fs::remove_all(dir_ / "warehouse", ec);
  }
  void ExpectAccepted(const RunResult& r, const std::string& how) {
    EXPECT_EQ(r.rc, 0) << how << "\n" << r.err;
    std::error_code ec;
    fs::remove_all(dir_ / "warehouse", ec);
  }

  fs::path dir_;
};

// Write options and table properties that floe does not act on as a job option.
TEST_F(OptionsCli, WriteSeedsAreRefusedOnEverySurface) {
  struct Seed {
    std::string key, value;
  };
  const std::vector<Seed> seeds = {
      {"distribution-mode", "range"},
      {"compression-strategy", "whatever"},
      {"write.delete.mode", "merge-on-read"},
      {"write.update.mode", "merge-on-read"},
      {"write.merge.mode", "merge-on-read"},
      {"write.distribution-mode", "hash"},
      {"write-format", "orc"},
  };
  for (const auto& s : seeds) {
    ExpectRefused(Write("--set " + Shell(s.key + "=" + s.value)), s.key, "--set " + s.key);
    ExpectRefused(WriteYaml("write_properties: {" + s.key + ": " + s.value + "}\n"), s.key,
                  "write_properties " + s.key);
  }
  // A table property that asks writers to upsert makes a plain append refused:
  // it would duplicate keys (merge-on-read writes honour it).
  {
    RunResult r = WriteYaml("table_properties: {write.upsert.enabled: 'true'}\n");
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("write.upsert.enabled"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "db" / "t" / "metadata" / "v1.metadata.json")) << r.err;
    std::error_code ec;
    fs::remove_all(dir_ / "warehouse", ec);
  }
  // Row-level modes are stored for the engines that run DELETE/UPDATE/MERGE.
  ExpectAccepted(WriteYaml("table_properties: {write.delete.mode: merge-on-read}\n"),
                 "table_properties write.delete.mode");
}

TEST_F(OptionsCli, BeamSeedsAreRefused) {
  // Table templates are destinations, never literal names: a template naming
  // no input column is refused and leaves no table named after it.
  for (const std::string t : {"db.ev_{nope}", "db.n_{a.b}"}) {
    ExpectRefused(Floe("write --table " + Shell(t) + " --schema 'id BIGINT, region STRING, name STRING' --input in.jsonl"),
                  "template", "--table " + t);
  }
  EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "db" / "n_{a"));
  for (const std::string v : {"0", "-5"}) {
    ExpectRefused(Write("--set triggering_frequency_seconds=" + v), "triggering_frequency_seconds", "--set " + v);
    ExpectRefused(WriteYaml("triggering_frequency_seconds: " + v + "\n"), "triggering_frequency_seconds",
                  "YAML " + v);
  }
  ExpectRefused(WriteYaml("config_properties: {fs.s3a.endpoint: http://x}\n"), "config_properties",
                "config_properties");
  ExpectAccepted(WriteYaml("config_properties: {}\n"), "empty config_properties");
  // keep / drop / only conflict wherever they are given; the last one does not win.
  ExpectRefused(Write("--set keep=id --set drop=name"), "keep", "--set keep + drop");
  ExpectRefused(Write("--set only=name --set keep=id"), "keep", "--set only + keep");
  ExpectRefused(WriteYaml("keep: [id]\ndrop: [name]\n"), "drop", "YAML keep + drop");
  // --table and --set table= must agree.
  ExpectRefused(Floe("write --table db.t --set table=db.u --schema 'id BIGINT, region STRING, name STRING' "
                     "--input in.jsonl"),
                "db.u", "--table + --set table=");
}

TEST_F(OptionsCli, CatalogSeedsAreRefusedWithTheHadoopCatalog) {
  struct Seed {
    std::string key, value, says;
  };
  // Each is refused as a usage error naming the option: malformed values,
  // options floe does not have (hive), and options of the rest and sql
  // catalogs, which would do nothing with the hadoop catalog.
  const std::vector<Seed> seeds = {
      {"type", "anything", "type"},
      {"catalog-type", "hive", "catalog-type=rest"},
      {"catalog-impl", "com.example.Catalog", "org.apache.iceberg.jdbc.JdbcCatalog"},
      {"catalog-impl", "org.apache.iceberg.hive.HiveCatalog", "no Hive Metastore client"},
      {"uri", "http://127.0.0.1:8181", "does nothing with catalog-type=hadoop"},
      {"token", "t0k", "does nothing with catalog-type=hadoop"},
      {"credential", "id:secret", "does nothing with catalog-type=hadoop"},
      {"jdbc.user", "me", "does nothing with catalog-type=hadoop"},
      {"header.X-Tenant", "a", "does nothing with catalog-type=hadoop"},
      {"clients", "-3", "clients"},
      {"clients", "4", "Hive"},
      {"property-version", "2", "property-version"},
      {"cache.expiration-interval-ms", "0", "0 is not allowed"},
      {"io-impl", "com.example.MyFileIO", "org.apache.iceberg.aws.s3.S3FileIO"},  // names the supported ones
  };
  for (const auto& s : seeds) {
    const std::string kv = s.key + "=" + s.value;
    ExpectRefused(Write("--catalog " + Shell(kv)), s.key, "--catalog " + kv);
    ExpectRefused(Write("--catalog " + Shell(kv)), s.says, "--catalog " + kv);
    ExpectRefused(WriteYaml("catalog_properties: {" + s.key + ": '" + s.value + "'}\n"), s.says,
                  "catalog_properties " + kv);
    ExpectRefused(Floe("tables db --catalog " + Shell(kv)), s.says, "tables --catalog " + kv);
  }
  ExpectRefused(Write("--catalog catalog-impl=a.B --catalog catalog-type=hadoop"), "catalog-impl",
                "catalog-impl with catalog-type");
  ExpectRefused(Write("--catalog cache-enabled=false --catalog cache.expiration-interval-ms=1000"),
                "does nothing with cache-enabled=false", "expiration without a cache");
  ExpectRefused(WriteYaml("catalog_properties: {type: rest, uri: 'http://x'}\n"), "rest", "type: rest");
  ExpectAccepted(Write("--catalog property-version=1 --catalog type=iceberg --catalog catalog-type=hadoop "
                       "--catalog cache-enabled=false"),
                 "the implemented catalog options");
  ExpectAccepted(Write("--catalog catalog-impl=org.apache.iceberg.hadoop.HadoopCatalog --catalog "
                       "cache.expiration-interval-ms=-1"),
                 "catalog-impl naming the hadoop catalog");
}

TEST_F(OptionsCli, ReadSeedsAreRefusedByScan) {
  ASSERT_EQ(Write("").rc, 0);
  struct Seed {
    std::string key, value;
  };
  // The streaming options are implemented (streaming_scan_cli_test.cc): a
  // batch scan refuses them without streaming=true, and bad values.
  const std::vector<Seed> seeds = {
      {"monitor-interval", "10s"},
      {"monitor-interval", "garbage"},
      {"starting-strategy", "TABLE_SCAN_THEN_INCREMENTAL"},
      {"start-snapshot-timestamp", "1700000000000"},
      {"max-planning-snapshot-count", "-5"},
      {"max-allowed-planning-failures", "2"},
  };
  for (const auto& s : seeds) {
    RunResult r = Floe("scan --table db.t --set " + Shell(s.key + "=" + s.value));
    EXPECT_EQ(r.rc, 2) << s.key << "\n" << r.err;
    EXPECT_NE(r.err.find(s.key), std::string::npos) << r.err;
  }
  // streaming=true in either spelling is a streaming read (bounded here).
  for (const std::string key : {"streaming", "connector.iceberg.streaming"}) {
    RunResult r = Floe("scan --table db.t --set " + key + "=true --max-snapshots 1");
    EXPECT_EQ(r.rc, 0) << key << "\n" << r.err;
    EXPECT_NE(r.out.find("\"op\":\"+I\""), std::string::npos) << r.out;
  }
  // Implemented read options are accepted (their effects: tests/table and iceberg_cli_test).
  for (const std::string kv : {"include-column-stats=true", "split-size=1024", "case-sensitive=true", "limit=1"}) {
    RunResult r = Floe("scan --table db.t --set " + kv);
    EXPECT_EQ(r.rc, 0) << kv << "\n" << r.err;
  }
}

// include-column-stats changes what `floe files` prints: the data file metrics.
TEST_F(OptionsCli, IncludeColumnStatsAddsMetricsToFiles) {
  ASSERT_EQ(Write("").rc, 0);
  RunResult plain = Floe("files --table db.t");
  ASSERT_EQ(plain.rc, 0) << plain.err;
  EXPECT_EQ(plain.out.find("lower-bounds"), std::string::npos) << plain.out;
  RunResult with = Floe("files --table db.t --set include-column-stats=true");
  ASSERT_EQ(with.rc, 0) << with.err;
  // id 1 is the BIGINT 1 (8 bytes little-endian); name (id 3) is "a".
  EXPECT_NE(with.out.find("\"lower-bounds\":{\"1\":\"0100000000000000\""), std::string::npos) << with.out;
  EXPECT_NE(with.out.find("\"3\":\"61\""), std::string::npos) << with.out;
  EXPECT_EQ(Floe("files --table db.t --set streaming=true").rc, 2);
  EXPECT_EQ(Floe("files --table db.t --set limit=3").rc, 2);
}

// Per-column Parquet keys take effect from YAML write_properties as from --set
// (they were ignored from YAML): a bloom filter is written either way.
TEST_F(OptionsCli, PerColumnKeysWorkFromYamlAndSet) {
  auto bloom_in_files = [&]() {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "warehouse" / "db" / "t" / "data")) {
      if (e.path().extension() != ".parquet") continue;
      all += Floe("parquet meta " + Shell(e.path().string())).out;
    }
    return all;
  };
  ASSERT_EQ(WriteYaml("write_properties: {write.parquet.bloom-filter-enabled.column.name: 'true'}\n").rc, 0);
  const std::string from_yaml = bloom_in_files();
  EXPECT_NE(from_yaml.find("bloom_filter_offset"), std::string::npos) << from_yaml;
  fs::remove_all(dir_ / "warehouse");
  ASSERT_EQ(Write("--set write.parquet.bloom-filter-enabled.column.name=true").rc, 0);
  EXPECT_NE(bloom_in_files().find("bloom_filter_offset"), std::string::npos);
  fs::remove_all(dir_ / "warehouse");
  ASSERT_EQ(Write("").rc, 0);
  const std::string without = bloom_in_files();
  EXPECT_EQ(without.find("bloom"), std::string::npos) << without;
}

// Exit codes agree: an unknown or ill-typed option is a usage error (2)
// whether it came from YAML, --set or --catalog.
TEST_F(OptionsCli, BadOptionsAreUsageErrorsOnEverySurface) {
  EXPECT_EQ(Write("--set target-file-size-bytes=big").rc, 2);
  EXPECT_EQ(WriteYaml("write_properties: {target-file-size-bytes: big}\n").rc, 2);
  EXPECT_EQ(WriteYaml("tabel: db.t\n").rc, 2);
  EXPECT_EQ(Write("--catalog warehous=x").rc, 2);
  EXPECT_EQ(Floe("scan --table db.t --set limit=-7").rc, 2);
}

// The writer is chosen once (sink::ChooseWriter): a dynamic overwrite with
// Flink's distribution-mode=hash is the append job's, which overwrites (it
// was routed to the change sink, which refused the overwrite); with a Beam
// sink option the change sink refuses the combination by name.
TEST_F(OptionsCli, OverwriteWithHashDistributionOverwrites) {
  ASSERT_EQ(Write("").rc, 0);
  WriteFile(dir_ / "in2.jsonl", "{\"id\":2,\"region\":\"us\",\"name\":\"b\"}\n");
  RunResult r = Floe("write --table db.t --input in2.jsonl --set overwrite-enabled=true --set distribution-mode=hash");
  ASSERT_EQ(r.rc, 0) << r.err;
  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, "{\"id\":2,\"region\":\"us\",\"name\":\"b\"}\n");
  RunResult refused =
      Floe("write --table db.t --input in2.jsonl --set overwrite-enabled=true --set sink_id=s1");
  EXPECT_EQ(refused.rc, 2) << refused.err;
  EXPECT_NE(refused.err.find("overwrite-enabled"), std::string::npos) << refused.err;
}

}  // namespace options_cli_test
}  // namespace floe_cli_test
