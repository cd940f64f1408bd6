// Kafka as a source of `floe write` (kafka/kafka_source.h), against
// librdkafka's mock cluster (tests/tools/kafka_mock.c) with kcat producing:
// a topic into a table and a relaunch that resumes at the offsets the table
// stores; the real Debezium streams of shared/interop/golden-cdc through a
// topic; templates whose destinations lost different commits; faults of the
// cluster (a broker down, fetch and offset-commit errors) that delay but do
// not corrupt; and kill -9 trials (KafkaCrash, label release).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "kafka_cli/kafka_mock.h"
#include "testing/debezium_reencode.h"
#include "testing/scale.h"

namespace floe_cli_test {
namespace kafka_cli_test {

using nlohmann::json;

std::vector<json> JsonRows(const std::string& text) {
  std::vector<json> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(json::parse(text.substr(start, end - start)));
    start = end + 1;
  }
  auto key = [](const json& j) { return j.contains("id") ? j["id"].get<int64_t>() : 0; };
  std::sort(out.begin(), out.end(), [&](const json& a, const json& b) {
    return key(a) != key(b) ? key(a) < key(b) : a.dump() < b.dump();
  });
  return out;
}

/// The ids of a table (every row's `id`), as a multiset.
std::multiset<int64_t> Ids(const fs::path& dir, const std::string& table) {
  RunResult r = FloeRun(dir, "scan --table " + table);
  EXPECT_EQ(r.rc, 0) << r.err;
  std::multiset<int64_t> ids;
  for (const json& j : JsonRows(r.out)) ids.insert(j["id"].get<int64_t>());
  return ids;
}

/// `first`..`last` as JSON lines `id|{"id":id,"g":"a"|"b","v":...}` (keyed by id).
std::string Records(int64_t first, int64_t last) {
  std::string s;
  for (int64_t i = first; i <= last; ++i) {
    s += std::to_string(i) + "|{\"id\":" + std::to_string(i) + ",\"g\":\"" + (i % 2 ? "a" : "b") +
         "\",\"v\":\"value " + std::to_string(i) + "\"}\n";
  }
  return s;
}

/// Upserts of key `k` = id % 37, keyed by k in Kafka (a key's records stay
/// in order in one partition), ordered by `seq` = id.
std::string KeyedRecords(int64_t first, int64_t last) {
  std::string s;
  for (int64_t i = first; i <= last; ++i) {
    const int64_t k = i % 37;
    s += std::to_string(k) + "|{\"id\":" + std::to_string(i) + ",\"k\":" + std::to_string(k) + ",\"g\":\"" +
         (k % 2 ? "a" : "b") + "\",\"seq\":" + std::to_string(i) + "}\n";
  }
  return s;
}

std::string Config(const std::string& table, const std::string& boot, const std::string& topic, bool bounded,
                    const std::string& extra = "", const std::string& group = "floe-test") {
  return "table: " + table + "\nsink_id: k1\nsource:\n  type: kafka\n  topic: " + topic +
         "\n  bootstrap_servers: " + boot + "\n  format: json\n" +
         (bounded ? "  bounded_mode: latest-offset\n" : "") + "  consumer_config:\n    group.id: " + group + "\n" + extra;
}

constexpr const char* kSchema = " --schema 'id BIGINT, g STRING, v STRING'";

class KafkaCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_kafka_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  fs::path dir_;
};

TEST_F(KafkaCli, TopicIntoTableThenARelaunchResumesAtTheTableOffsets) {
  KafkaMock mock({"ev:3"});
  WriteFile(dir_ / "p1", Records(1, 300));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p1").string(), true);
  WriteFile(dir_ / "c.yaml", Config("db.ev", mock.bootstrap(), "ev", true));
  RunResult r = Floe("write --config c.yaml" + std::string(kSchema));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  auto ids = Ids(dir_, "db.ev");
  EXPECT_EQ(ids.size(), 300u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 300u);
  // The commit stores the offsets of every partition it covers: 300 messages.
  r = Floe("snapshots --table db.ev");
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t at = r.out.rfind("floe.source-position");
  ASSERT_NE(at, std::string::npos) << r.out;
  // More records: the relaunch reads only those, from the table's offsets,
  // not the group's (a new group here, which has none: it would start at the
  // earliest offsets).
  WriteFile(dir_ / "p2", Records(301, 500));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p2").string(), true);
  WriteFile(dir_ / "c.yaml", Config("db.ev", mock.bootstrap(), "ev", true, "", "another-group"));
  r = Floe("write --config c.yaml");
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("\"read\":200"), std::string::npos) << r.out;
  ids = Ids(dir_, "db.ev");
  EXPECT_EQ(ids.size(), 500u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 500u);
  // Nothing new: nothing read, nothing committed.
  r = Floe("write --config c.yaml");
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_EQ(Ids(dir_, "db.ev").size(), 500u);
}

TEST_F(KafkaCli, SourcePositionNamesEveryPartitionOffset) {
  KafkaMock mock({"ev:2"});
  WriteFile(dir_ / "p1", Records(1, 10));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p1").string(), true, 0);
  WriteFile(dir_ / "p2", Records(11, 14));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p2").string(), true, 1);
  WriteFile(dir_ / "c.yaml", Config("db.ev", mock.bootstrap(), "ev", true));
  RunResult r = Floe("write --config c.yaml" + std::string(kSchema));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  r = Floe("snapshots --table db.ev");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(R"({\"source\":\"kafka\",\"topics\":[\"ev\"],\"offsets\":{\"ev/0\":10,\"ev/1\":4}})"),
            std::string::npos)
      << r.out;
}

TEST_F(KafkaCli, BadSourceBlocksAreRefusedByName) {
  WriteFile(dir_ / "c.yaml", "table: db.t\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n  colour: red\n");
  RunResult r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown key 'colour'"), std::string::npos) << r.err;
  WriteFile(dir_ / "c.yaml", "table: db.t\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n  format: canal-json\n");
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("option source.format=canal-json is not implemented"), std::string::npos) << r.err;
  WriteFile(dir_ / "c.yaml",
            "table: db.t\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n  consumer_config:\n"
            "    no.such.property: 1\n");
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no.such.property"), std::string::npos) << r.err;
  WriteFile(dir_ / "c.yaml",
            "table: db.t\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n  consumer_config:\n"
            "    enable.auto.commit: true\n");
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("enable.auto.commit"), std::string::npos) << r.err;
  // A group's partitions: group.id needed, unbounded only, no error outputs yet.
  const std::string group = "table: db.t\nsink_id: s\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n"
                            "  partition_assignment: group\n";
  WriteFile(dir_ / "c.yaml", group);
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("partition_assignment: group needs consumer_config group.id"), std::string::npos) << r.err;
  WriteFile(dir_ / "c.yaml", group + "  bounded_mode: latest-offset\n  consumer_config:\n    group.id: g\n");
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("bounded_mode: latest-offset reads every partition in one process"), std::string::npos) << r.err;
  WriteFile(dir_ / "c.yaml", group + "  consumer_config:\n    group.id: g\nerror_handling:\n  output: errors.jsonl\n");
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("an error or dead-letter output is not implemented yet"), std::string::npos) << r.err;
  WriteFile(dir_ / "c.yaml", "table: db.t\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n"
                            "  partition_assignment: everyone\n");
  r = Floe("write --config c.yaml --schema 'id BIGINT'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("everyone"), std::string::npos) << r.err;
}

TEST_F(KafkaCli, MissingTopicIsAnErrorNamingIt) {
  KafkaMock mock({"ev:1"});
  WriteFile(dir_ / "c.yaml", Config("db.ev", mock.bootstrap(), "nope", true, ""));
  // Shorter metadata wait: the default is 10 s.
  RunResult r = Floe("write --config c.yaml" + std::string(kSchema));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("no topic nope"), std::string::npos) << r.err;
}

/// A Debezium event with its Connect schema: columns id (int64), name
/// (string) and, with `born_and_price`, born (io.debezium.time.Date) and
/// price (Decimal, scale 2, precision 10).
std::string SchemaEvent(int64_t id, const std::string& op, bool born_and_price) {
  std::string fields = R"({"type":"int64","optional":false,"field":"id"},{"type":"string","optional":true,"field":"name"})";
  if (born_and_price) {
    fields += R"(,{"type":"int32","optional":true,"name":"io.debezium.time.Date","field":"born"})"
              R"(,{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"price"})";
  }
  const std::string image = R"({"type":"struct","optional":true,"name":"db.t.Value","fields":[)" + fields + "]";
  const std::string schema = R"({"type":"struct","name":"db.t.Envelope","optional":false,"fields":[)" + image +
                             R"(,"field":"before"},)" + image + R"(,"field":"after"},{"type":"string","optional":false,"field":"op"},{"type":"struct","optional":false,"fields":[{"type":"int64","optional":false,"field":"lsn"}],"field":"source"}]})";
  std::string row = R"({"id":)" + std::to_string(id) + R"(,"name":"n)" + std::to_string(id) + "\"";
  // born: day 19000 + id; price: 12.34 (unscaled 1234 = 0x04D2, base64 BNI=).
  if (born_and_price) row += R"(,"born":)" + std::to_string(19000 + id) + R"(,"price":"BNI=")";
  row += "}";
  const std::string before = op == "d" ? row : "null", after = op == "d" ? "null" : row;
  return std::to_string(id) + "|" + R"({"schema":)" + schema + R"(,"payload":{"before":)" + before +
         R"(,"after":)" + after + R"(,"op":")" + op + R"(","source":{"lsn":)" + std::to_string(id * 10) + "}}}\n";
}

// evolve_schema: records with columns the table lacks add them (typed from
// the JSON values, or from the envelope's Connect schema for Debezium), the
// rows before them committed first; without it such a record is an error
// naming the column. A nested new column is refused by name.
TEST_F(KafkaCli, EvolveSchemaAddsTheColumnsRecordsBring) {
  KafkaMock mock({"plain:1", "dbz:1", "nested:1"});
  auto config = [&](const std::string& table, const std::string& topic, const std::string& format, bool evolve,
                    const std::string& extra = "") {
    return "table: " + table + "\nsink_id: ev\n" + extra + "source:\n  type: kafka\n  topic: " + topic +
           "\n  bootstrap_servers: " + mock.bootstrap() + "\n  format: " + format +
           "\n  bounded_mode: latest-offset\n" + (evolve ? "  evolve_schema: true\n" : "");
  };
  // Plain JSON: 1-3 as the table is, 4-5 bring score (double), n (long) and
  // flag (boolean), 6 a null-valued key (no column: its type is unknown).
  std::string plain;
  for (int i = 1; i <= 3; ++i) plain += std::to_string(i) + R"(|{"id":)" + std::to_string(i) + R"(,"g":"a","v":"x"})" + "\n";
  for (int i = 4; i <= 5; ++i) {
    plain += std::to_string(i) + R"(|{"id":)" + std::to_string(i) + R"(,"g":"b","v":"y","score":)" +
             std::to_string(i) + R"(.5,"n":)" + std::to_string(i * 7) + R"(,"flag":true})" + "\n";
  }
  WriteFile(dir_ / "plain.txt", plain);
  Produce(dir_, mock.bootstrap(), "plain", (dir_ / "plain.txt").string(), true);
  WriteFile(dir_ / "off.yaml", config("db.plain", "plain", "json", false));
  RunResult r = Floe("write --config off.yaml" + std::string(kSchema));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("score"), std::string::npos) << r.err;
  WriteFile(dir_ / "on.yaml", config("db.plain", "plain", "json", true));
  r = Floe("write --config on.yaml" + std::string(kSchema));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("column score double added"), std::string::npos) << r.err;
  auto rows = JsonRows(Floe("scan --table db.plain").out);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_TRUE(rows[0]["score"].is_null());
  EXPECT_EQ(rows[3]["score"], 4.5);
  EXPECT_EQ(rows[3]["n"], 28);
  EXPECT_EQ(rows[4]["flag"], true);
  // Two snapshots of rows (before the change, after it) and the schema's.
  RunResult desc = Floe("describe --table db.plain");
  EXPECT_NE(desc.out.find("score"), std::string::npos) << desc.out;

  // Debezium with schemas, merge-on-read: 1-2 before, 3 with born and price,
  // then an update of 1 with them and a delete of 2.
  std::string dbz = SchemaEvent(1, "c", false) + SchemaEvent(2, "c", false) + SchemaEvent(3, "c", true) +
                    SchemaEvent(4, "c", true) + SchemaEvent(2, "d", false);
  WriteFile(dir_ / "dbz.txt", dbz);
  Produce(dir_, mock.bootstrap(), "dbz", (dir_ / "dbz.txt").string(), true);
  WriteFile(dir_ / "d.yaml", config("db.dbz", "dbz", "debezium-json", true, "mode: merge-on-read\n"));
  r = Floe("write --config d.yaml --schema 'id BIGINT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("column born date added"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("column price decimal(10, 2) added"), std::string::npos) << r.err;
  rows = JsonRows(Floe("scan --table db.dbz").out);
  ASSERT_EQ(rows.size(), 3u) << Floe("scan --table db.dbz").out;
  EXPECT_EQ(rows[0]["id"], 1);
  EXPECT_TRUE(rows[0]["born"].is_null());
  EXPECT_EQ(rows[1]["id"], 3);
  EXPECT_EQ(rows[1]["born"], "2022-01-11");  // day 19003
  EXPECT_EQ(rows[1]["price"], "12.34");
  EXPECT_EQ(rows[2]["id"], 4);

  // A new nested column: refused by name, nothing of it written.
  WriteFile(dir_ / "nested.txt", R"(1|{"id":1,"g":"a","v":"x","tags":["a"]})" "\n");
  Produce(dir_, mock.bootstrap(), "nested", (dir_ / "nested.txt").string(), true);
  WriteFile(dir_ / "n.yaml", config("db.nested", "nested", "json", true));
  r = Floe("write --config n.yaml" + std::string(kSchema));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("key 'tags' names no column"), std::string::npos) << r.err;
}

// The real Debezium streams, produced into a topic (one partition: the
// stream's order), end as their expected tables.
TEST_F(KafkaCli, DebeziumGoldenStreamsThroughATopic) {
  const std::string golden = SharedDir() + "/interop/golden-cdc/";
  KafkaMock mock({"products:1", "ri:1"});
  Produce(dir_, mock.bootstrap(), "products", golden + "debezium_postgres_products.jsonl", false);
  Produce(dir_, mock.bootstrap(), "ri", golden + "debezium_postgres_replica_identity_default.jsonl", false);
  const std::string schema =
      " --schema 'id INT NOT NULL, name STRING, description STRING, weight DOUBLE, PRIMARY KEY (id) NOT ENFORCED'";
  auto config = [&](const std::string& table, const std::string& topic, const std::string& extra) {
    return "table: " + table + "\nmode: merge-on-read\nsink_id: dbz\n" + extra +
           "source:\n  type: kafka\n  topic: " + topic + "\n  bootstrap_servers: " + mock.bootstrap() +
           "\n  format: debezium-json\n  bounded_mode: latest-offset\n";
  };
  WriteFile(dir_ / "p.yaml", config("inv.products", "products", ""));
  RunResult r = Floe("write --config p.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(JsonRows(Floe("scan --table inv.products").out),
            JsonRows(ReadFile(golden + "debezium_postgres_products.expected.jsonl")));
  // Again: nothing re-read.
  r = Floe("write --config p.yaml");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"read\":0"), std::string::npos) << r.out;
  WriteFile(dir_ / "r.yaml", config("inv.ri", "ri", "error_handling:\n  output: errors.jsonl\n"));
  r = Floe("write --config r.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(JsonRows(Floe("scan --table inv.ri").out),
            JsonRows(ReadFile(golden + "debezium_postgres_replica_identity_default.expected.jsonl")));
  const auto errors = JsonRows(ReadFile(dir_ / "errors.jsonl"));
  EXPECT_EQ(errors.size(), 1u);
}

// The same streams with Debezium's default value encodings (dates as days,
// timestamps and times as micros, decimals as base64 bytes), with the
// envelope's schema and without it (then the table's column types decide):
// the same tables.
TEST_F(KafkaCli, DebeziumDefaultEncodingsThroughATopic) {
  const std::string golden = SharedDir() + "/interop/golden-cdc/";
  KafkaMock mock({"wrapped:1", "bare:1"});
  WriteFile(dir_ / "wrapped.jsonl", floe::test::ReencodeGolden(golden + "debezium_postgres_products.jsonl", true));
  WriteFile(dir_ / "bare.jsonl", floe::test::ReencodeGolden(golden + "debezium_postgres_products.jsonl", false));
  Produce(dir_, mock.bootstrap(), "wrapped", (dir_ / "wrapped.jsonl").string(), false);
  Produce(dir_, mock.bootstrap(), "bare", (dir_ / "bare.jsonl").string(), false);
  const std::string schema = std::string(" --schema '") + floe::test::kProductsEncoded + ", PRIMARY KEY (id) NOT ENFORCED'";
  // The expected table, written by floe from the ISO text forms (a plain
  // JSONL append), scanned the same way.
  WriteFile(dir_ / "expected.jsonl", floe::test::ExpectedEncodedRows(golden + "debezium_postgres_products.expected.jsonl"));
  RunResult r = Floe("write --table inv.expected --input expected.jsonl" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto expected = JsonRows(Floe("scan --table inv.expected").out);
  ASSERT_EQ(expected.size(), 10u);
  for (const std::string topic : {"wrapped", "bare"}) {
    WriteFile(dir_ / "c.yaml", "table: inv." + topic + "\nmode: merge-on-read\nsink_id: dbz\nsource:\n  type: kafka\n  topic: " +
                                   topic + "\n  bootstrap_servers: " + mock.bootstrap() +
                                   "\n  format: debezium-json\n  bounded_mode: latest-offset\n");
    r = Floe("write --config c.yaml" + schema);
    ASSERT_EQ(r.rc, 0) << topic << ": " << r.err;
    EXPECT_EQ(JsonRows(Floe("scan --table inv." + topic).out), expected) << topic;
  }
}

// topic_pattern: a topic created while the source runs is found at the
// next discovery (partition_discovery_interval_ms) and read from its start.
TEST_F(KafkaCli, TopicPatternFindsTopicsCreatedLater) {
  KafkaMock mock({"ev.a:2"});
  WriteFile(dir_ / "p1", Records(1, 50));
  Produce(dir_, mock.bootstrap(), "ev.a", (dir_ / "p1").string(), true);
  WriteFile(dir_ / "c.yaml", "table: db.ev\nsink_id: k1\ntriggering_frequency_seconds: 1\nsource:\n  type: kafka\n"
                             "  topic_pattern: 'ev\\..*'\n  bootstrap_servers: " + mock.bootstrap() +
                             "\n  partition_discovery_interval_ms: 200\n");
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir_.c_str()) != 0) ::_exit(126);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execl(FLOE_BIN, FLOE_BIN, "write", "--config", "c.yaml", "--schema", "id BIGINT, g STRING, v STRING",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto wait_for = [&](size_t n) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    size_t seen = 0;
    while (std::chrono::steady_clock::now() < give_up) {
      if (fs::exists(dir_ / "warehouse" / "db" / "ev")) {
        seen = Ids(dir_, "db.ev").size();
        if (seen >= n) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return seen;
  };
  EXPECT_EQ(wait_for(50), 50u);
  ASSERT_TRUE(mock.Command("topic ev.b 1"));
  ASSERT_TRUE(mock.Command("topic other 1"));
  WriteFile(dir_ / "p2", Records(51, 80));
  Produce(dir_, mock.bootstrap(), "ev.b", (dir_ / "p2").string(), true);
  WriteFile(dir_ / "p3", Records(81, 90));
  Produce(dir_, mock.bootstrap(), "other", (dir_ / "p3").string(), true);
  EXPECT_EQ(wait_for(80), 80u);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto ids = Ids(dir_, "db.ev");
  EXPECT_EQ(ids.size(), 80u);  // nothing of `other`, which the pattern does not match
  EXPECT_EQ(ids.count(85), 0u);
  RunResult r = Floe("snapshots --table db.ev");
  EXPECT_NE(r.out.find(R"(\"ev.b/0\":30)"), std::string::npos) << r.out;
}

// auto_offset_reset_config: latest starts a partition that no table and no
// group names at its end; earliest (the default) at its start.
TEST_F(KafkaCli, AutoOffsetResetLatestSkipsWhatCameBefore) {
  KafkaMock mock({"ev:2"});
  WriteFile(dir_ / "p1", Records(1, 40));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p1").string(), true);
  WriteFile(dir_ / "c.yaml", Config("db.late", mock.bootstrap(), "ev", true, "", "g-late") +
                                 "  auto_offset_reset_config: latest\n");
  RunResult r = Floe("write --config c.yaml" + std::string(kSchema));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("\"read\":0"), std::string::npos) << r.out;
  WriteFile(dir_ / "c.yaml", Config("db.early", mock.bootstrap(), "ev", true, "", "g-early") +
                                 "  auto_offset_reset_config: earliest\n");
  r = Floe("write --config c.yaml" + std::string(kSchema));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_EQ(Ids(dir_, "db.early").size(), 40u);
  // A value outside the declared ones is refused by name.
  WriteFile(dir_ / "c.yaml", Config("db.x", mock.bootstrap(), "ev", true) + "  auto_offset_reset_config: middle\n");
  r = Floe("write --config c.yaml" + std::string(kSchema));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("option source.auto_offset_reset_config: 'middle' is not one of: earliest, latest"),
            std::string::npos)
      << r.err;
}

// floe sql: Flink's `kafka` connector with debezium-json, INSERT INTO an
// Iceberg table SELECT * FROM it: the golden streams end as their expected
// tables, through the streaming job of floe write (the offsets are in the
// commit: a second run reads nothing). `upsert-kafka` with tombstones. What
// is not implemented is refused by name.
TEST_F(KafkaCli, SqlKafkaConnectorsIntoIcebergTables) {
  const std::string golden = SharedDir() + "/interop/golden-cdc/";
  KafkaMock mock({"products:1", "ri:1", "kv:2"});
  Produce(dir_, mock.bootstrap(), "products", golden + "debezium_postgres_products.jsonl", false);
  Produce(dir_, mock.bootstrap(), "ri", golden + "debezium_postgres_replica_identity_default.jsonl", false);
  // upsert-kafka: JSON keys; an empty value is a tombstone (kcat -Z sends it as null).
  WriteFile(dir_ / "kv.txt",
            "{\"id\":1}|{\"id\":1,\"v\":\"a\"}\n{\"id\":2}|{\"id\":2,\"v\":\"b\"}\n{\"id\":3}|{\"id\":3,\"v\":\"c\"}\n"
            "{\"id\":1}|{\"id\":1,\"v\":\"a2\"}\n{\"id\":2}|\n{\"id\":4}|{\"id\":4,\"v\":\"d\"}\n"
            "{\"id\":4}|\n{\"id\":4}|{\"id\":4,\"v\":\"d2\"}\n");
  RunResult k = RunIn(dir_, "kcat -P -Z -K'|' -b " + mock.bootstrap() + " -t kv -X log_level=0 -l kv.txt");
  ASSERT_EQ(k.rc, 0) << k.err;
  const std::string cols = "id INT NOT NULL, name STRING, description STRING, weight DOUBLE";
  auto kafka_table = [&](const std::string& name, const std::string& topic) {
    return "CREATE TEMPORARY TABLE " + name + " (" + cols + ") WITH ('connector'='kafka', 'topic'='" + topic +
           "', 'properties.bootstrap.servers'='" + mock.bootstrap() +
           "', 'properties.group.id'='floe-sql', 'scan.startup.mode'='earliest-offset', "
           "'scan.bounded.mode'='latest-offset', 'format'='debezium-json');\n";
  };
  const std::string script =
      "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='warehouse');\n"
      "CREATE DATABASE IF NOT EXISTS c.inv;\n"
      "CREATE TABLE IF NOT EXISTS c.inv.products (" + cols + ", PRIMARY KEY (id) NOT ENFORCED);\n" +
      kafka_table("products_cdc", "products") + "INSERT INTO c.inv.products SELECT * FROM products_cdc;\n";
  WriteFile(dir_ / "p.sql", script);
  RunResult r = Floe("sql -f p.sql");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(JsonRows(Floe("scan --table inv.products").out),
            JsonRows(ReadFile(golden + "debezium_postgres_products.expected.jsonl")));
  r = Floe("snapshots --table inv.products");
  EXPECT_NE(r.out.find(R"({\"source\":\"kafka\",\"topics\":[\"products\"],\"offsets\":{\"products/0\":16}})"),
            std::string::npos)
      << r.out;
  const size_t snapshots = std::count(r.out.begin(), r.out.end(), '\n');
  // Again: the table's offsets say everything is in; nothing is applied twice.
  r = Floe("sql -f p.sql");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(JsonRows(Floe("scan --table inv.products").out),
            JsonRows(ReadFile(golden + "debezium_postgres_products.expected.jsonl")));
  r = Floe("snapshots --table inv.products");
  EXPECT_EQ(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')), snapshots) << r.out;

  // Replica identity default: the keyless delete fails the INSERT, naming it;
  // nothing of it is committed.
  WriteFile(dir_ / "r.sql",
            "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='warehouse');\n"
            "CREATE TABLE c.inv.ri (" + cols + ", PRIMARY KEY (id) NOT ENFORCED);\n" + kafka_table("ri_cdc", "ri") +
            "INSERT INTO c.inv.ri SELECT * FROM ri_cdc;\n");
  r = Floe("sql -f r.sql");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("delete event has no 'before' image"), std::string::npos) << r.out;
  EXPECT_TRUE(JsonRows(Floe("scan --table inv.ri").out).empty());

  // upsert-kafka: values upsert by the key, tombstones delete.
  const std::string kv_source =
      "CREATE TEMPORARY TABLE kv_src (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
      "('connector'='upsert-kafka', 'topic'='kv', 'properties.bootstrap.servers'='" + mock.bootstrap() +
      "', 'key.format'='json', 'value.format'='json', 'scan.bounded.mode'='latest-offset');\n";
  WriteFile(dir_ / "u.sql",
            "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='warehouse');\n"
            "CREATE TABLE c.inv.kv (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED);\n" + kv_source +
            "INSERT INTO c.inv.kv SELECT * FROM kv_src;\n");
  r = Floe("sql -f u.sql");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(JsonRows(Floe("scan --table inv.kv").out),
            JsonRows("{\"id\":1,\"v\":\"a2\"}\n{\"id\":3,\"v\":\"c\"}\n{\"id\":4,\"v\":\"d2\"}\n"));

  // A SELECT reads the topic through the engine.
  WriteFile(dir_ / "s.sql", kafka_table("products_cdc", "products") + "SELECT id, weight FROM products_cdc WHERE id = 111;\n");
  r = Floe("sql -f s.sql");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("5.18"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5.17"), std::string::npos) << r.out;

  // Refused by name.
  auto refused = [&](const std::string& sql, const std::string& want) {
    WriteFile(dir_ / "x.sql", sql);
    RunResult x = Floe("sql -f x.sql");
    EXPECT_EQ(x.rc, 1) << sql;
    EXPECT_NE(x.out.find(want), std::string::npos) << sql << "\n" << x.out << x.err;
  };
  const std::string base = "CREATE TEMPORARY TABLE t (id INT) WITH ('connector'='kafka', 'topic'='products', "
                           "'properties.bootstrap.servers'='" + mock.bootstrap() + "'";
  refused(base + ", 'format'='json', 'scan.startup.mode'='timestamp', 'scan.startup.timestamp-millis'='1');\nSELECT * FROM t;\n",
          "'scan.startup.mode' = 'timestamp' (table default_catalog.default_database.t ('connector' = 'kafka')) is "
          "not supported yet");
  refused(base + ", 'format'='json', 'colour'='red');\nSELECT * FROM t;\n", "Unsupported options found for 'kafka'");
  refused(base + ", 'format'='json');\nINSERT INTO t VALUES (1);\n", "Writing to a 'kafka' table");
  refused(base + ", 'format'='canal-json');\nSELECT * FROM t;\n", "Format 'canal-json' of the kafka connector");
  refused("CREATE TEMPORARY TABLE u (id INT, v STRING) WITH ('connector'='upsert-kafka', 'topic'='kv', "
          "'properties.bootstrap.servers'='x:1', 'key.format'='json', 'value.format'='json');\nSELECT * FROM u;\n",
          "'upsert-kafka' tables require to define a PRIMARY KEY constraint");
  refused("CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='warehouse');\n" +
              kafka_table("products_cdc", "products") +
              "INSERT INTO c.inv.products SELECT id, name, description, weight * 2 FROM products_cdc;\n",
          "with a query other than SELECT *");
}

// Templates: a crash after the first destination's commit and before the
// second's. The relaunch re-reads from the lowest offsets; the records the
// first table holds are not applied to it again, the second gets all of its.
TEST_F(KafkaCli, TemplatesResumeEachDestinationFromItsOwnOffsets) {
  KafkaMock mock({"ev:3"});
  WriteFile(dir_ / "p1", Records(1, 400));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p1").string(), true);
  WriteFile(dir_ / "c.yaml", Config("'db.t_{g}'", mock.bootstrap(), "ev", true));
  const std::string cmd = Shell(FLOE_BIN) + " write --config c.yaml" + kSchema;
  RunResult r = RunIn(dir_, "FLOE_CRASH_AT=sink.files-written:2 " + cmd);
  ASSERT_NE(r.rc, 0) << "the crash point was not reached: " << r.out;
  // One table committed, the other not.
  const size_t a = Ids(dir_, "db.t_a").size(), b = fs::exists(dir_ / "warehouse" / "db" / "t_b") ? Ids(dir_, "db.t_b").size() : 0;
  EXPECT_EQ(a + b, 200u) << a << " " << b;
  WriteFile(dir_ / "p2", Records(401, 500));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p2").string(), true);
  r = RunIn(dir_, cmd);
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* t : {"db.t_a", "db.t_b"}) {
    auto ids = Ids(dir_, t);
    EXPECT_EQ(ids.size(), 250u) << t;
    EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 250u) << t;
  }
}

// A broker down while the run starts, and injected Fetch and OffsetCommit
// errors: the run is delayed, the table is the same.
TEST_F(KafkaCli, MockClusterFaultsDelayButNeverCorrupt) {
  KafkaMock mock({"ev:6"}, 3);
  WriteFile(dir_ / "p1", Records(1, 3000));
  Produce(dir_, mock.bootstrap(), "ev", (dir_ / "p1").string(), true);
  WriteFile(dir_ / "c.yaml", Config("db.ev", mock.bootstrap(), "ev", false, "triggering_frequency_seconds: 1\n"));
  ASSERT_TRUE(mock.Command("errors 1 6 30"));   // Fetch: NOT_LEADER_OR_FOLLOWER
  ASSERT_TRUE(mock.Command("errors 1 7 10"));   // Fetch: REQUEST_TIMED_OUT
  ASSERT_TRUE(mock.Command("errors 8 15 10"));  // OffsetCommit: COORDINATOR_NOT_AVAILABLE
  ASSERT_TRUE(mock.Command("down 2"));
  // Unbounded, in its own process; stopped with SIGTERM once all is in.
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir_.c_str()) != 0) ::_exit(126);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execl(FLOE_BIN, FLOE_BIN, "write", "--config", "c.yaml", "--schema", "id BIGINT, g STRING, v STRING",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(mock.Command("up 2"));
  size_t seen = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    if (fs::exists(dir_ / "warehouse" / "db" / "ev")) {
      seen = Ids(dir_, "db.ev").size();
      if (seen >= 3000) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto ids = Ids(dir_, "db.ev");
  EXPECT_EQ(ids.size(), 3000u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 3000u);
}

// ---------------------------------------------------------- consumer groups

/// A floe in its own process group, its standard error in `log`.
pid_t StartFloeLogged(const fs::path& dir, const std::string& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int devnull = ::open("/dev/null", O_WRONLY);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(devnull, 1);
    ::dup2(err, 2);
    ::execl("/bin/sh", "sh", "-c", ("exec " + Shell(FLOE_BIN) + " " + args).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  return pid;
}

/// The snapshots of a table's newest metadata file, oldest first.
std::vector<json> Snapshots(const fs::path& table_dir) {
  const fs::path hint = table_dir / "metadata" / "version-hint.text";
  if (!fs::exists(hint)) return {};
  std::string version = ReadFile(hint);
  while (!version.empty() && std::isspace(static_cast<unsigned char>(version.back()))) version.pop_back();
  const fs::path newest = table_dir / "metadata" / ("v" + version + ".metadata.json");
  json md = json::parse(ReadFile(newest));
  std::vector<json> snaps(md["snapshots"].begin(), md["snapshots"].end());
  std::sort(snaps.begin(), snaps.end(),
            [](const json& a, const json& b) { return a["sequence-number"] < b["sequence-number"]; });
  return snaps;
}

// Scale-out: three processes of one group (partition_assignment: group)
// share a 6-partition topic while records are produced; one is killed -9
// once it has committed, its partitions go to the others when its session
// expires, and a fourth joins mid-stream (every process's partitions are
// revoked and assigned again). At the end the table holds every record once,
// no partition's offset ever moved back, and the newest token stores every
// partition's end. The rebalances and which process committed which
// partitions are printed. Merge-on-read: upserts of 37 keys (Kafka keys, so
// a key's changes stay in one partition) through the key index, which each
// process refreshes after the others' commits; the table ends as the newest
// record of every key, no key twice.
void GroupScenario(bool mor) {
  const fs::path dir = FreshTestDir(mor ? "floe_kafka_group_mor_" : "floe_kafka_group_");
  KafkaMock mock({"ev:6"});
  const std::string mor_options =
      mor ? "mode: merge-on-read\nupsert: true\nequality_columns: k\nsequence_number_column: seq\n" : "";
  const std::string schema = mor ? " --schema 'id BIGINT, k BIGINT, g STRING, seq BIGINT'" : kSchema;
  auto config = [&](const std::string& process) {
    return "table: db.ev\nsink_id: k1\ntriggering_frequency_seconds: 1\n" + mor_options +
           "snapshot_properties:\n  floe-test.process: " + process + "\nsource:\n  type: kafka\n  topic: ev\n  bootstrap_servers: " + mock.bootstrap() +
           "\n  format: json\n  partition_assignment: group\n  consumer_config:\n    group.id: g1\n"
           "    session.timeout.ms: 3000\n    heartbeat.interval.ms: 300\n";
  };
  const std::vector<std::string> names = {"p1", "p2", "p3", "p4"};
  std::map<std::string, pid_t> pids;
  auto start = [&](const std::string& n) {
    WriteFile(dir / (n + ".yaml"), config(n));
    pids[n] = StartFloeLogged(dir, "write --batch-rows 64 --config " + n + ".yaml" + schema, dir / (n + ".log"));
  };
  auto assignments = [&](const std::string& n) {
    const std::string log = fs::exists(dir / (n + ".log")) ? ReadFile(dir / (n + ".log")) : std::string();
    size_t count = 0;
    for (size_t at = log.find("assigned "); at != std::string::npos; at = log.find("assigned ", at + 1)) ++count;
    return count;
  };
  auto all_logs = [&] {
    std::string out;
    for (const auto& n : names) {
      if (fs::exists(dir / (n + ".log"))) out += "--- " + n + "\n" + ReadFile(dir / (n + ".log"));
    }
    return out;
  };
  auto committed_by = [&](const std::string& n) {
    if (!fs::exists(dir / "warehouse" / "db" / "ev" / "metadata")) return false;
    for (const json& snap : Snapshots(dir / "warehouse" / "db" / "ev")) {
      if (snap["summary"].value("floe-test.process", "") == n) return true;
    }
    return false;
  };
  auto wait_for = [](const std::function<bool()>& done, int seconds) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return true;
  };
  const int batches = 24, per_batch = 250;
  int produced = 0;
  auto produce = [&](int upto) {
    for (; produced < upto; ++produced) {
      const fs::path f = dir / ("b" + std::to_string(produced));
      const int64_t first = 1 + int64_t{produced} * per_batch, last = int64_t{produced + 1} * per_batch;
      WriteFile(f, mor ? KeyedRecords(first, last) : Records(first, last));
      Produce(dir, mock.bootstrap(), "ev", f.string(), true);
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  };
  for (const char* n : {"p1", "p2", "p3"}) start(n);
  ASSERT_TRUE(wait_for([&] { return assignments("p1") && assignments("p2") && assignments("p3"); }, 60))
      << "the three processes did not all get partitions\n" << all_logs();
  produce(8);
  ASSERT_TRUE(wait_for([&] { return committed_by("p1"); }, 30)) << "p1 never committed\n" << all_logs();
  std::printf("killing p1\n");
  ::kill(-pids["p1"], SIGKILL);
  int status = 0;
  ::waitpid(pids["p1"], &status, 0);
  pids.erase("p1");
  produce(14);
  // p1's session expires: the others share its partitions.
  ASSERT_TRUE(wait_for([&] { return assignments("p2") >= 2 && assignments("p3") >= 2; }, 60))
      << "p1's partitions were not assigned again\n" << all_logs();
  std::printf("starting p4\n");
  start("p4");
  produce(18);
  ASSERT_TRUE(wait_for([&] { return assignments("p4") >= 1; }, 60)) << "p4 got no partitions\n" << all_logs();
  produce(batches);
  const size_t total = size_t{batches} * per_batch;
  // Merge-on-read: the newest id of every key.
  std::set<int64_t> newest;
  for (int64_t k = 0; k < 37; ++k) newest.insert(static_cast<int64_t>(total) - ((static_cast<int64_t>(total) - k) % 37 + 37) % 37);
  auto caught_up = [&] {
    if (!fs::exists(dir / "warehouse" / "db" / "ev" / "metadata")) return false;
    const auto ids = Ids(dir, "db.ev");
    return mor ? std::set<int64_t>(ids.begin(), ids.end()) == newest : ids.size() >= total;
  };
  EXPECT_TRUE(wait_for(caught_up, 90)) << "the group did not catch up\n" << all_logs();
  for (auto& [n, pid] : pids) ::kill(pid, SIGTERM);
  for (auto& [n, pid] : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << n << " " << status << ": " << ReadFile(dir / (n + ".log"));
  }
  auto ids = Ids(dir, "db.ev");
  if (mor) {
    EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()), newest);
    EXPECT_EQ(ids.size(), newest.size()) << "a key twice";
  } else {
    EXPECT_EQ(ids.size(), total);
    EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), total) << "a record applied twice";
  }
  // The rebalances, and per snapshot which process committed which partitions.
  for (const auto& n : names) {
    std::printf("--- %s\n%s", n.c_str(), ReadFile(dir / (n + ".log")).c_str());
  }
  std::map<std::string, int64_t> last;
  std::map<std::string, std::set<std::string>> by_process;
  for (const json& snap : Snapshots(dir / "warehouse" / "db" / "ev")) {
    const json& sum = snap["summary"];
    if (!sum.contains("floe.source-position")) continue;
    const json pos = json::parse(sum["floe.source-position"].get<std::string>());
    std::string moved;
    for (const auto& [k, v] : pos["offsets"].items()) {
      if (!last.contains(k) || last[k] != v.get<int64_t>()) {
        moved += (moved.empty() ? "" : " ") + k + "@" + std::to_string(v.get<int64_t>());
        if (sum.contains("floe-test.process")) by_process[sum["floe-test.process"].get<std::string>()].insert(k);
      }
      EXPECT_GE(v.get<int64_t>(), last[k]) << "an offset moved back in commit " << sum.value("floe.commit-number", "");
      last[k] = v.get<int64_t>();
    }
    std::printf("commit %s by %s: %s\n", sum.value("floe.commit-number", "?").c_str(),
                sum.value("floe-test.process", "?").c_str(), moved.c_str());
  }
  int64_t sum_offsets = 0;
  for (const auto& [k, v] : last) sum_offsets += v;
  EXPECT_EQ(last.size(), 6u);
  EXPECT_EQ(sum_offsets, static_cast<int64_t>(total)) << "the newest token does not store every partition's end";
  for (const auto& [p, parts] : by_process) {
    std::printf("%s committed %zu partitions: %s\n", p.c_str(), parts.size(), fmt::format("{}", fmt::join(parts, " ")).c_str());
  }
  EXPECT_GE(by_process.size(), 3u) << "the partitions were not shared";
  RemoveTestDirIfPassed(dir);
}

TEST(KafkaGroup, ThreeProcessesShareSixPartitionsThroughAKillAndAJoin) { GroupScenario(false); }

TEST(KafkaGroup, ThreeProcessesUpsertOneMergeOnReadTable) { GroupScenario(true); }

// A process paused past its session (a zombie, SIGSTOP) with records of its
// partitions read and not committed: the other process takes the partitions
// over and commits them; woken (SIGCONT), the zombie's commit finds its
// partitions committed further by another process and publishes nothing.
// The table holds every record once.
TEST(KafkaGroup, AZombieThatLostItsPartitionsCommitsNothing) {
  const fs::path dir = FreshTestDir("floe_kafka_zombie_");
  KafkaMock mock({"ev:4"});
  auto config = [&](int trigger) {
    return "table: db.ev\nsink_id: k1\ntriggering_frequency_seconds: " + std::to_string(trigger) +
           "\nsource:\n  type: kafka\n  topic: ev\n  bootstrap_servers: " + mock.bootstrap() +
           "\n  format: json\n  partition_assignment: group\n  consumer_config:\n    group.id: g1\n"
           "    session.timeout.ms: 3000\n    heartbeat.interval.ms: 300\n";
  };
  WriteFile(dir / "zombie.yaml", config(8));
  WriteFile(dir / "live.yaml", config(1));
  const pid_t zombie = StartFloeLogged(dir, "write --config zombie.yaml" + std::string(kSchema), dir / "zombie.log");
  const pid_t live = StartFloeLogged(dir, "write --config live.yaml" + std::string(kSchema), dir / "live.log");
  auto log_has = [&](const std::string& n, const std::string& what, size_t times = 1) {
    const std::string log = fs::exists(dir / (n + ".log")) ? ReadFile(dir / (n + ".log")) : std::string();
    size_t count = 0;
    for (size_t at = log.find(what); at != std::string::npos; at = log.find(what, at + 1)) ++count;
    return count >= times;
  };
  auto wait_for = [](const std::function<bool()>& done, int seconds) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return true;
  };
  ASSERT_TRUE(wait_for([&] { return log_has("zombie", "assigned") && log_has("live", "assigned"); }, 60));
  WriteFile(dir / "p1", Records(1, 2000));
  Produce(dir, mock.bootstrap(), "ev", (dir / "p1").string(), true);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // read by both; the zombie commits in 8 s
  ::kill(zombie, SIGSTOP);
  // The zombie's session expires; the live process takes its partitions
  // over and commits them (from the offsets in the table).
  ASSERT_TRUE(wait_for([&] { return log_has("live", "assigned", 2); }, 60)) << ReadFile(dir / "live.log");
  ASSERT_TRUE(wait_for([&] { return Ids(dir, "db.ev").size() >= 2000; }, 60));
  ::kill(zombie, SIGCONT);
  int status = 0;
  ASSERT_TRUE(wait_for([&] { return ::waitpid(zombie, &status, WNOHANG) == zombie; }, 60)) << "the zombie did not stop";
  const std::string zlog = ReadFile(dir / "zombie.log");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status << ": " << zlog;
  // Either it learns first that its session expired, or its commit finds
  // the partitions committed further by the other process.
  EXPECT_TRUE(zlog.find("session expired") != std::string::npos ||
              zlog.find("lost it in a rebalance") != std::string::npos)
      << zlog;
  std::printf("%s", zlog.c_str());
  WriteFile(dir / "p2", Records(2001, 2500));
  Produce(dir, mock.bootstrap(), "ev", (dir / "p2").string(), true);
  ASSERT_TRUE(wait_for([&] { return Ids(dir, "db.ev").size() >= 2500; }, 60));
  ::kill(live, SIGTERM);
  ::waitpid(live, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(dir / "live.log");
  auto ids = Ids(dir, "db.ev");
  EXPECT_EQ(ids.size(), 2500u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 2500u) << "a record applied twice";
  RemoveTestDirIfPassed(dir);
}

// ------------------------------------------------------------ kill -9 trials

constexpr const char* kCrashPoints[] = {
    "sink.files-written",     "commit.manifests-written", "commit.list-written",
    "catalog.before-publish", "catalog.published",        "commit.swapped",
    "sink.committed",
};

/// Runs `cmd` (sh) in `dir`, in its own process group; SIGKILLs it after
/// `kill_after_ms` when given. The exit code, or -1 when killed.
int Launch(const fs::path& dir, const std::string& cmd, std::optional<int> kill_after_ms) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  if (kill_after_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(*kill_after_ms));
    ::kill(-pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (kill_after_ms) ::kill(-pid, SIGKILL);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Each trial: records produced in two parts into a 3-partition topic; a
// consuming floe is killed (SIGKILL at a random moment of an unbounded run
// committing every second, or at a crash point of the commit path of a
// bounded run), then relaunched (bounded) until it exits 0. Half the trials
// route to two tables by a template. At the end the tables hold every
// record once: no offset applied twice, none lost.
TEST(KafkaCrash, KillNineTrialsApplyEveryOffsetOnce) {
  const int trials = static_cast<int>(floe::test::Scaled(100, 6));
  const fs::path dir = FreshTestDir("floe_kafka_crash_");
  KafkaMock mock({});
  int kills = 0, relaunches = 0;
  for (int t = 0; t < trials && !::testing::Test::HasFailure(); ++t) {
    std::mt19937 rng(static_cast<uint32_t>(t) * 7919u + 3);
    const fs::path td = dir / ("t" + std::to_string(t));
    fs::create_directories(td);
    const std::string topic = "crash" + std::to_string(t);
    ASSERT_TRUE(mock.Command("topic " + topic + " 3"));
    const bool templates = t % 4 >= 2;
    const bool random_kill = t % 2 == 0;
    // Every third trial merge-on-read: upserts of 37 keys, the table their
    // newest rows (no key twice).
    const bool mor = t % 3 == 2;
    const std::string mor_options = mor ? "mode: merge-on-read\nupsert: true\nequality_columns: k\nsequence_number_column: seq\n" : "";
    const int64_t n1 = 200 + static_cast<int64_t>(rng() % 600), n2 = 100 + static_cast<int64_t>(rng() % 300);
    const std::string table = templates ? "'db.t_{g}'" : "db.t";
    WriteFile(td / "p1", mor ? KeyedRecords(1, n1) : Records(1, n1));
    WriteFile(td / "p2", mor ? KeyedRecords(n1 + 1, n1 + n2) : Records(n1 + 1, n1 + n2));
    WriteFile(td / "unbounded.yaml",
              Config(table, mock.bootstrap(), topic, false, "triggering_frequency_seconds: 1\n" + mor_options));
    WriteFile(td / "bounded.yaml", Config(table, mock.bootstrap(), topic, true, mor_options));
    const std::string schema = mor ? "'id BIGINT, k BIGINT, g STRING, seq BIGINT'" : "'id BIGINT, g STRING, v STRING'";
    const std::string floe = Shell(FLOE_BIN) + " write --batch-rows 64 --schema " + schema + " --config ";
    Produce(td, mock.bootstrap(), topic, (td / "p1").string(), true);
    for (int part = 0; part < 2; ++part) {
      if (part == 1) Produce(td, mock.bootstrap(), topic, (td / "p2").string(), true);
      if (random_kill) {
        // Killed at a random moment of an unbounded run (about two commits).
        Launch(td, floe + "unbounded.yaml", 100 + static_cast<int>(rng() % 1500));
        ++kills;
      } else {
        const std::string point = kCrashPoints[(t / 2 + part) % 7];
        const int nth = 1 + static_cast<int>(rng() % (templates ? 2 : 1));
        const int rc = Launch(td, "FLOE_CRASH_AT=" + point + ":" + std::to_string(nth) + " " + floe + "bounded.yaml",
                              std::nullopt);
        if (rc != 0) ++kills;
      }
      int rc = -1;
      for (int attempt = 0; attempt < 5 && rc != 0; ++attempt) {
        rc = Launch(td, floe + "bounded.yaml", std::nullopt);
        ++relaunches;
      }
      ASSERT_EQ(rc, 0) << "trial " << t << " part " << part << ": the relaunch failed";
      // Every record produced so far, once.
      std::multiset<int64_t> ids;
      for (const std::string& tb : templates ? std::vector<std::string>{"db.t_a", "db.t_b"}
                                             : std::vector<std::string>{"db.t"}) {
        auto got = Ids(td, tb);
        ids.insert(got.begin(), got.end());
      }
      const int64_t want = part == 0 ? n1 : n1 + n2;
      if (mor) {
        // The newest id of every key, once.
        std::set<int64_t> newest;
        for (int64_t k = 0; k < 37; ++k) {
          int64_t top = want - ((want - k) % 37 + 37) % 37;
          if (top >= 1) newest.insert(top);
        }
        ASSERT_EQ(std::set<int64_t>(ids.begin(), ids.end()), newest) << "trial " << t << " part " << part;
        ASSERT_EQ(ids.size(), newest.size()) << "trial " << t << " part " << part << ": a key twice";
        continue;
      }
      ASSERT_EQ(static_cast<int64_t>(ids.size()), want) << "trial " << t << " part " << part;
      ASSERT_EQ(static_cast<int64_t>(std::set<int64_t>(ids.begin(), ids.end()).size()), want)
          << "trial " << t << " part " << part << ": a record applied twice";
    }
    fs::remove_all(td);
  }
  std::printf("kafka crash trials: %d trials, %d kills, %d relaunches\n", trials, kills, relaunches);
  RemoveTestDirIfPassed(dir);
}

}  // namespace kafka_cli_test
}  // namespace floe_cli_test
