// The Kafka source's Avro formats end to end: messages encoded by avsc (an
// Avro implementation independent of floe's) in Confluent's wire format,
// their schemas registered in the registry fixture (tests/testing/
// schema_registry.mjs, basic auth on), produced with kcat one file a message,
// read by `floe write` (source: block) and `floe sql` (the kafka connector).
//   - avro-confluent: a record with every Avro logical type ends as the same
//     table as its JSONL text written by hand; damaged messages (no magic
//     byte, truncated, trailing bytes, an unknown schema id) go to the error
//     output naming topic, partition and offset; each schema id is fetched
//     once.
//   - debezium-avro-confluent: the real Debezium streams of
//     shared/interop/golden-cdc turned into Avro as Confluent's AvroConverter
//     does (the envelope record, connect.name annotations from the Connect
//     schema), and the stream re-encoded with Debezium's value encodings, end
//     as their expected tables, as with debezium-json; a new writer schema
//     with an extra column is refused as debezium-json refuses it.
//   - wrong registry credentials: the job fails naming the URL, nothing is
//     committed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "floe/avro/confluent.h"
#include "kafka_cli/kafka_mock.h"
#include "testing/debezium_reencode.h"
#include "testing/schema_registry.h"

namespace floe_cli_test {
namespace kafka_avro_test {

using nlohmann::json;

constexpr const char* kUser = "floe";
constexpr const char* kPassword = "registry-secret";

std::vector<json> Rows(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a.dump() < b.dump(); });
  return out;
}

/// Produces each file as one message into partition 0.
void ProduceFiles(const fs::path& dir, const std::string& bootstrap, const std::string& topic,
                  const std::vector<std::string>& files) {
  std::string cmd = "kcat -P -Z -b " + bootstrap + " -t " + topic + " -p 0 -X log_level=0";
  for (const auto& f : files) cmd += " " + Shell(f);
  RunResult r = RunIn(dir, cmd);
  ASSERT_EQ(r.rc, 0) << cmd << ": " << r.err;
}

class KafkaAvro : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_kafka_avro_");
    auto r = floe::test::SchemaRegistryServer::Start(kUser, kPassword);
    ASSERT_TRUE(r) << r.error().message;
    registry_ = std::move(*r);
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  std::vector<std::string> Encode(const std::string& name, const std::string& args) {
    auto files = registry_->Encode(name + "-value", dir_ / name, args);
    EXPECT_TRUE(files) << files.error().message;
    return files ? *files : std::vector<std::string>{};
  }

  std::string Registry(const std::string& password = kPassword) const {
    return "  confluent_schema_registry_url: " + registry_->url() +
           "\n  confluent_schema_registry_basic_auth_user_info: " + std::string(kUser) + ":" + password + "\n";
  }

  std::string Source(const std::string& table, const std::string& topic, const std::string& format,
                     const std::string& bootstrap, const std::string& extra = "",
                     const std::string& password = kPassword) const {
    return "table: " + table + "\nsink_id: avro\n" + extra + "source:\n  type: kafka\n  topic: " + topic +
           "\n  bootstrap_servers: " + bootstrap + "\n  format: " + format + "\n  bounded_mode: latest-offset\n" +
           Registry(password);
  }

  fs::path dir_;
  std::unique_ptr<floe::test::SchemaRegistryServer> registry_;
};

// Every Avro logical type, nulls and unions, written by avsc.
constexpr const char* kEveryType = R"({"type":"record","name":"Row","namespace":"floe.test","fields":[
  {"name":"id","type":"long"},
  {"name":"b","type":"boolean"},
  {"name":"i","type":"int"},
  {"name":"f","type":"float"},
  {"name":"d","type":"double"},
  {"name":"s","type":["null","string"],"default":null},
  {"name":"by","type":"bytes"},
  {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
  {"name":"e","type":{"type":"enum","name":"Colour","symbols":["RED","GREEN"]}},
  {"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},
  {"name":"tms","type":{"type":"int","logicalType":"time-millis"}},
  {"name":"tus","type":{"type":"long","logicalType":"time-micros"}},
  {"name":"tsms","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"tsus","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"lts","type":{"type":"long","logicalType":"local-timestamp-micros"}},
  {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
  {"name":"fdec","type":{"type":"fixed","name":"D6","size":6,"logicalType":"decimal","precision":14,"scale":4}},
  {"name":"u","type":{"type":"string","logicalType":"uuid"}},
  {"name":"arr","type":{"type":"array","items":["null","int"]}},
  {"name":"m","type":{"type":"map","values":"string"}},
  {"name":"rec","type":["null",{"type":"record","name":"Inner","fields":[{"name":"a","type":"int"}]}],"default":null}]})";

constexpr const char* kEveryTypeColumns =
    "id BIGINT NOT NULL, b BOOLEAN, i INT, f FLOAT, d DOUBLE, s STRING, by BINARY, fx FIXED(4), e STRING, day DATE, "
    "tms TIME, tus TIME, tsms TIMESTAMPTZ, tsus TIMESTAMPTZ, lts TIMESTAMP, dec DECIMAL(10,2), fdec DECIMAL(14,4), "
    "u UUID, arr ARRAY<INT>, m MAP<STRING, STRING>, rec STRUCT<a INT>";

// The values in avsc's input form (unions as {"branch": v}, bytes as hex,
// longs as digits), then the same rows as JSONL text written by hand.
constexpr const char* kEveryTypeAvro =
    R"({"id":1,"b":true,"i":-2147483648,"f":1.5,"d":-0.1,"s":{"string":"héllo\n\"q\""},"by":"00ff10","fx":"deadbeef","e":"GREEN","day":{"int":17486},"tms":81068123,"tus":"81068123456","tsms":"1510871468123","tsus":"1510871468123456","lts":"-1","dec":"3039","fdec":"fffffffffe0c","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","arr":[{"int":1},null,{"int":3}],"m":{"k":"v"},"rec":{"floe.test.Inner":{"a":7}}})"
    "\n"
    R"({"id":2,"b":false,"i":0,"f":"NaN","d":"-Infinity","s":null,"by":"","fx":"00000000","e":"RED","day":null,"tms":0,"tus":"0","tsms":"-1","tsus":"0","lts":"253402300799999999","dec":"ff","fdec":"000000000000","u":"00000000-0000-0000-0000-000000000000","arr":[],"m":{},"rec":null})"
    "\n"
    R"({"id":3,"b":true,"i":2147483647,"f":3.4028234663852886e38,"d":1e300,"s":{"string":""},"by":"ff","fx":"01020304","e":"RED","day":{"int":-719528},"tms":86399999,"tus":"86399999999","tsms":"0","tsus":"-62135596800000000","lts":"0","dec":"7fffffff","fdec":"00ffffffffff","u":"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF","arr":[null],"m":{"a":"1","b":"2"},"rec":{"floe.test.Inner":{"a":-1}}})"
    "\n";

constexpr const char* kEveryTypeJsonl =
    R"({"id":1,"b":true,"i":-2147483648,"f":1.5,"d":-0.1,"s":"héllo\n\"q\"","by":"00ff10","fx":"deadbeef","e":"GREEN","day":"2017-11-16","tms":"22:31:08.123","tus":"22:31:08.123456","tsms":"2017-11-16T22:31:08.123Z","tsus":"2017-11-16T22:31:08.123456Z","lts":"1969-12-31T23:59:59.999999","dec":"123.45","fdec":"-0.0500","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","arr":[1,null,3],"m":{"k":"v"},"rec":{"a":7}})"
    "\n"
    R"({"id":2,"b":false,"i":0,"f":"NaN","d":"-Infinity","s":null,"by":"","fx":"00000000","e":"RED","day":null,"tms":"00:00:00","tus":"00:00:00","tsms":"1969-12-31T23:59:59.999Z","tsus":"1970-01-01T00:00:00Z","lts":"9999-12-31T23:59:59.999999","dec":"-0.01","fdec":"0","u":"00000000-0000-0000-0000-000000000000","arr":[],"m":{},"rec":null})"
    "\n"
    R"({"id":3,"b":true,"i":2147483647,"f":3.4028234663852886e38,"d":1e300,"s":"","by":"ff","fx":"01020304","e":"RED","day":"0000-01-01","tms":"23:59:59.999","tus":"23:59:59.999999","tsms":"1970-01-01T00:00:00Z","tsus":"0001-01-01T00:00:00Z","lts":"1970-01-01T00:00:00","dec":"21474836.47","fdec":"109951162.7775","u":"ffffffff-ffff-ffff-ffff-ffffffffffff","arr":[null],"m":{"a":"1","b":"2"},"rec":{"a":-1}})"
    "\n";

TEST_F(KafkaAvro, EveryLogicalTypeThroughATopicAndDamagedMessagesRejected) {
  KafkaMock mock({"av:1"});
  WriteFile(dir_ / "every.avsc", kEveryType);
  WriteFile(dir_ / "every.jsonl", kEveryTypeAvro);
  auto files = Encode("av", "--schema every.avsc --rows every.jsonl");
  ASSERT_EQ(files.size(), 3u);
  // Damaged messages after them: JSON text (no magic byte), a body cut
  // short, trailing bytes, an unknown schema id, a header alone.
  const std::string good = ReadFile(files[0]);
  WriteFile(dir_ / "bad1.bin", R"({"id":9})");
  WriteFile(dir_ / "bad2.bin", good.substr(0, good.size() - 3));
  WriteFile(dir_ / "bad3.bin", good + "!");
  WriteFile(dir_ / "bad4.bin", floe::avro::ConfluentHeader(4242) + good.substr(5));
  WriteFile(dir_ / "bad5.bin", good.substr(0, 4));
  for (int i = 1; i <= 5; ++i) files.push_back((dir_ / ("bad" + std::to_string(i) + ".bin")).string());
  ProduceFiles(dir_, mock.bootstrap(), "av", files);

  const std::string schema = std::string(" --schema '") + kEveryTypeColumns + "'";
  WriteFile(dir_ / "c.yaml", Source("db.av", "av", "avro-confluent", mock.bootstrap(), "error_handling:\n  output: errors.jsonl\n"));
  RunResult r = Floe("write --config c.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  // The expected table: the JSONL text through the JSONL decoder.
  WriteFile(dir_ / "expected.jsonl", kEveryTypeJsonl);
  r = Floe("write --table db.expected --input expected.jsonl" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto expected = Rows(Floe("scan --table db.expected").out);
  ASSERT_EQ(expected.size(), 3u);
  EXPECT_EQ(Rows(Floe("scan --table db.av").out), expected);
  // Each damaged message in the error output, naming where it is and what is wrong.
  const auto errors = Rows(ReadFile(dir_ / "errors.jsonl"));
  ASSERT_EQ(errors.size(), 5u) << ReadFile(dir_ / "errors.jsonl");
  const std::string text = ReadFile(dir_ / "errors.jsonl");
  for (const char* want :
       {"topic 'av' partition 0 offset 3: not in Confluent's wire format: the first byte is 0x7b",
        "topic 'av' partition 0 offset 4: schema id 1: field 'm': avro: truncated varint",
        "topic 'av' partition 0 offset 5: schema id 1: avro: 1 bytes follow the datum",
        "topic 'av' partition 0 offset 6: schema registry " , "/schemas/ids/4242: no schema with id 4242 (HTTP 404",
        "topic 'av' partition 0 offset 7: not in Confluent's wire format: 4 bytes, shorter than the 5-byte header"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  // One fetch per schema id (the good one and the unknown one) for the whole run.
  EXPECT_EQ(registry_->Requests("GET /schemas/ids/1"), 1);
  EXPECT_EQ(registry_->Requests("GET /schemas/ids/4242"), 1);

  // Without an error output the first damaged message fails the write, naming it.
  WriteFile(dir_ / "c2.yaml", Source("db.av2", "av", "avro-confluent", mock.bootstrap()));
  r = Floe("write --config c2.yaml" + schema);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("topic 'av' partition 0 offset 3: not in Confluent's wire format"), std::string::npos) << r.err;

  // floe sql: the kafka connector with value.format avro-confluent (Flink's
  // option names under value.avro-confluent.*).
  WriteFile(dir_ / "s.sql", std::string("CREATE TEMPORARY TABLE av (id BIGINT, d DOUBLE, day DATE, dec DECIMAL(10,2)) WITH (") +
                                "'connector'='kafka', 'topic'='av', 'properties.bootstrap.servers'='" + mock.bootstrap() +
                                "', 'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset', "
                                "'value.format'='avro-confluent', 'value.avro-confluent.url'='" + registry_->url() +
                                "', 'value.avro-confluent.basic-auth.credentials-source'='USER_INFO', "
                                "'value.avro-confluent.basic-auth.user-info'='" + kUser + ":" + kPassword + "');\n"
                                "SELECT id, d, day, dec FROM av WHERE id = 1;\n");
  r = Floe("sql -f s.sql");
  // The engine has no error output: the first damaged message fails the query, naming it.
  EXPECT_NE(r.out.find("topic 'av' partition 0 offset 3: not in Confluent's wire format"), std::string::npos) << r.out << r.err;
}

// Kafka Connect's schema of the golden Debezium 1.2 PostgreSQL events (they
// were captured without it): what the connector declares for
// inventory.products, and the source block of Debezium 1.2.
std::string GoldenConnectSchema() {
  const std::string value = R"({"type":"struct","fields":[
      {"type":"int32","optional":false,"field":"id"},
      {"type":"string","optional":true,"field":"name"},
      {"type":"string","optional":true,"field":"description"},
      {"type":"float64","optional":true,"field":"weight"}],
    "optional":true,"name":"fullfillment.inventory.products.Value","field":"%s"})";
  auto image = [&](const char* name) {
    std::string s = value;
    s.replace(s.find("%s"), 2, name);
    return s;
  };
  const std::string source = R"({"type":"struct","fields":[
      {"type":"string","optional":false,"field":"version"},
      {"type":"string","optional":false,"field":"connector"},
      {"type":"string","optional":false,"field":"name"},
      {"type":"int64","optional":false,"field":"ts_ms"},
      {"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"parameters":{"allowed":"true,last,false"},"field":"snapshot"},
      {"type":"string","optional":false,"field":"db"},
      {"type":"string","optional":false,"field":"schema"},
      {"type":"string","optional":false,"field":"table"},
      {"type":"int64","optional":true,"field":"txId"},
      {"type":"int64","optional":true,"field":"lsn"},
      {"type":"int64","optional":true,"field":"xmin"}],
    "optional":false,"name":"io.debezium.connector.postgresql.Source","field":"source"})";
  const std::string transaction = R"({"type":"struct","fields":[
      {"type":"string","optional":false,"field":"id"},
      {"type":"int64","optional":false,"field":"total_order"},
      {"type":"int64","optional":false,"field":"data_collection_order"}],
    "optional":true,"field":"transaction"})";
  return json::parse(R"({"type":"struct","fields":[)" + image("before") + "," + image("after") + "," + source +
                     R"(,{"type":"string","optional":false,"field":"op"},{"type":"int64","optional":true,"field":"ts_ms"},)" +
                     transaction + R"(],"optional":false,"name":"fullfillment.inventory.products.Envelope"})")
      .dump();
}

TEST_F(KafkaAvro, DebeziumGoldenStreamsInAvroEndAsTheirTables) {
  const std::string golden = SharedDir() + "/interop/golden-cdc/";
  KafkaMock mock({"products:1", "ri:1", "enc:1"});
  WriteFile(dir_ / "golden.schema.json", GoldenConnectSchema());
  ProduceFiles(dir_, mock.bootstrap(), "products",
               Encode("products", "--connect " + Shell(golden + "debezium_postgres_products.jsonl") +
                                      " --connect-schema golden.schema.json"));
  ProduceFiles(dir_, mock.bootstrap(), "ri",
               Encode("ri", "--connect " + Shell(golden + "debezium_postgres_replica_identity_default.jsonl") +
                                " --connect-schema golden.schema.json"));
  // Debezium's value encodings (Decimal bytes, io.debezium.time.Date /
  // MicroTimestamp / MicroTime / ZonedTimestamp) from the events' own schema.
  WriteFile(dir_ / "enc.jsonl", floe::test::ReencodeGolden(golden + "debezium_postgres_products.jsonl", true));
  ProduceFiles(dir_, mock.bootstrap(), "enc", Encode("enc", "--connect enc.jsonl"));

  const std::string schema =
      " --schema 'id INT NOT NULL, name STRING, description STRING, weight DOUBLE, PRIMARY KEY (id) NOT ENFORCED'";
  const std::string mor = "mode: merge-on-read\n";
  WriteFile(dir_ / "p.yaml", Source("inv.products", "products", "debezium-avro-confluent", mock.bootstrap(), mor));
  RunResult r = Floe("write --config p.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Rows(Floe("scan --table inv.products").out), Rows(ReadFile(golden + "debezium_postgres_products.expected.jsonl")));
  // The same events as debezium-json give the same table (equality deletes and all).
  KafkaMock json_mock({"products:1"});
  Produce(dir_, json_mock.bootstrap(), "products", golden + "debezium_postgres_products.jsonl", false);
  WriteFile(dir_ / "j.yaml", "table: inv.products_json\nsink_id: json\n" + mor +
                                 "source:\n  type: kafka\n  topic: products\n  bootstrap_servers: " +
                                 json_mock.bootstrap() + "\n  format: debezium-json\n  bounded_mode: latest-offset\n");
  r = Floe("write --config j.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Floe("scan --table inv.products_json").out.size(), Floe("scan --table inv.products").out.size());
  EXPECT_EQ(Rows(Floe("scan --table inv.products_json").out), Rows(Floe("scan --table inv.products").out));
  // Again: nothing re-read.
  r = Floe("write --config p.yaml");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"read\":0"), std::string::npos) << r.out;

  // Replica identity default: the keyless delete to the error output.
  WriteFile(dir_ / "r.yaml", Source("inv.ri", "ri", "debezium-avro-confluent", mock.bootstrap(),
                                    mor + "error_handling:\n  output: errors.jsonl\n"));
  r = Floe("write --config r.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Rows(Floe("scan --table inv.ri").out),
            Rows(ReadFile(golden + "debezium_postgres_replica_identity_default.expected.jsonl")));
  const std::string errors = ReadFile(dir_ / "errors.jsonl");
  EXPECT_EQ(Rows(errors).size(), 1u) << errors;
  EXPECT_NE(errors.find("delete event has no 'before' image"), std::string::npos) << errors;

  // Debezium's encodings: the table written from the ISO text forms.
  const std::string enc_schema = std::string(" --schema '") + floe::test::kProductsEncoded + ", PRIMARY KEY (id) NOT ENFORCED'";
  WriteFile(dir_ / "expected.jsonl", floe::test::ExpectedEncodedRows(golden + "debezium_postgres_products.expected.jsonl"));
  r = Floe("write --table inv.expected --input expected.jsonl" + enc_schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  WriteFile(dir_ / "e.yaml", Source("inv.enc", "enc", "debezium-avro-confluent", mock.bootstrap(), mor));
  r = Floe("write --config e.yaml" + enc_schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto expected = Rows(Floe("scan --table inv.expected").out);
  ASSERT_EQ(expected.size(), 10u);
  EXPECT_EQ(Rows(Floe("scan --table inv.enc").out), expected);

  // A new writer schema with a column the table lacks: refused as
  // debezium-json refuses it (the error output names the column).
  std::string first;
  std::getline(std::istringstream(floe::test::ReencodeGolden(golden + "debezium_postgres_products.jsonl", true)), first);
  json e = json::parse(first);
  for (auto& f : e["schema"]["fields"]) {
    if (f["field"] == "after" || f["field"] == "before") {
      f["fields"].push_back(json{{"type", "string"}, {"optional", true}, {"field", "colour"}});
    }
  }
  e["payload"]["after"]["colour"] = "red";
  e["payload"]["after"]["id"] = 500;
  WriteFile(dir_ / "evolved.jsonl", e.dump() + "\n");
  ProduceFiles(dir_, mock.bootstrap(), "enc", Encode("evolved", "--connect evolved.jsonl"));
  WriteFile(dir_ / "e2.yaml", Source("inv.enc", "enc", "debezium-avro-confluent", mock.bootstrap(),
                                     mor + "error_handling:\n  output: evolved-errors.jsonl\n"));
  r = Floe("write --config e2.yaml");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string evolved = ReadFile(dir_ / "evolved-errors.jsonl");
  EXPECT_NE(evolved.find("the event's schema has a column 'colour' that the table lacks"), std::string::npos) << evolved;
  EXPECT_EQ(Rows(Floe("scan --table inv.enc").out), expected);

  // floe sql: the kafka connector, 'format'='debezium-avro-confluent' with
  // Flink's option names, INSERT INTO an Iceberg table.
  const std::string cols = "id INT NOT NULL, name STRING, description STRING, weight DOUBLE";
  WriteFile(dir_ / "p.sql",
            "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='warehouse');\n"
            "CREATE TABLE c.inv.products_sql (" + cols + ", PRIMARY KEY (id) NOT ENFORCED);\n"
            "CREATE TEMPORARY TABLE cdc (" + cols + ") WITH ('connector'='kafka', 'topic'='products', "
            "'properties.bootstrap.servers'='" + mock.bootstrap() + "', 'scan.startup.mode'='earliest-offset', "
            "'scan.bounded.mode'='latest-offset', 'format'='debezium-avro-confluent', "
            "'debezium-avro-confluent.url'='" + registry_->url() + "', "
            "'debezium-avro-confluent.basic-auth.credentials-source'='USER_INFO', "
            "'debezium-avro-confluent.basic-auth.user-info'='" + kUser + ":" + kPassword + "');\n"
            "INSERT INTO c.inv.products_sql SELECT * FROM cdc;\n");
  r = Floe("sql -f p.sql");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(Rows(Floe("scan --table inv.products_sql").out),
            Rows(ReadFile(golden + "debezium_postgres_products.expected.jsonl")));
}

TEST_F(KafkaAvro, WrongRegistryCredentialsFailAndCommitNothing) {
  KafkaMock mock({"av:1"});
  WriteFile(dir_ / "every.avsc", kEveryType);
  WriteFile(dir_ / "every.jsonl", kEveryTypeAvro);
  ProduceFiles(dir_, mock.bootstrap(), "av", Encode("av", "--schema every.avsc --rows every.jsonl"));
  const std::string schema = std::string(" --schema '") + kEveryTypeColumns + "'";
  WriteFile(dir_ / "c.yaml", Source("db.av", "av", "avro-confluent", mock.bootstrap(),
                                    "error_handling:\n  output: errors.jsonl\n", "not-the-password"));
  RunResult r = Floe("write --config c.yaml" + schema);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("schema registry " + registry_->url() + "/schemas/ids/1: HTTP 401"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not-the-password"), std::string::npos) << r.err;
  // Nothing committed, nothing in the error output (the messages are not at fault).
  RunResult scan = Floe("scan --table db.av");
  EXPECT_TRUE(scan.rc != 0 || Rows(scan.out).empty()) << scan.out;
  EXPECT_TRUE(Rows(ReadFile(dir_ / "errors.jsonl")).empty());
  // The right credentials, from the URL (credentials source URL): the rows.
  const std::string with_user = "http://" + std::string(kUser) + ":" + kPassword + "@" + registry_->url().substr(7);
  WriteFile(dir_ / "u.yaml", "table: db.av\nsink_id: avro\nsource:\n  type: kafka\n  topic: av\n  bootstrap_servers: " +
                                 mock.bootstrap() + "\n  format: avro-confluent\n  bounded_mode: latest-offset\n" +
                                 "  confluent_schema_registry_url: " + with_user +
                                 "\n  confluent_schema_registry_basic_auth_credentials_source: URL\n");
  r = Floe("write --config u.yaml" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Rows(Floe("scan --table db.av").out).size(), 3u);
  // The SQL connector: the same failure.
  WriteFile(dir_ / "s.sql", std::string("CREATE TEMPORARY TABLE av (id BIGINT) WITH (") +
                                "'connector'='kafka', 'topic'='av', 'properties.bootstrap.servers'='" + mock.bootstrap() +
                                "', 'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset', "
                                "'format'='avro-confluent', 'avro-confluent.url'='" + registry_->url() +
                                "', 'avro-confluent.basic-auth.user-info'='" + kUser + ":nope');\nSELECT * FROM av;\n");
  r = Floe("sql -f s.sql");
  EXPECT_NE(r.out.find("HTTP 401"), std::string::npos) << r.out << r.err;
}

TEST_F(KafkaAvro, OptionsFloeDoesNotImplementAreRefused) {
  auto block = [&](const std::string& extra) {
    WriteFile(dir_ / "c.yaml", "table: db.t\nsource:\n  type: kafka\n  topic: t\n  bootstrap_servers: x:1\n" + extra);
    return Floe("write --config c.yaml --schema 'id BIGINT'");
  };
  RunResult r = block("  format: avro-confluent\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("format avro-confluent needs confluent_schema_registry_url"), std::string::npos) << r.err;
  r = block("  format: json\n  confluent_schema_registry_url: http://x:1\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("apply to the formats avro-confluent and debezium-avro-confluent, not json"), std::string::npos)
      << r.err;
  r = block("  format: avro-confluent\n  confluent_schema_registry_url: http://x:1\n"
            "  confluent_schema_registry_basic_auth_credentials_source: SASL_INHERIT\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("SASL_INHERIT is not implemented"), std::string::npos) << r.err;
  r = block("  format: avro-confluent\n  confluent_schema_registry_url: http://x:1\n"
            "  confluent_schema_registry_subject: t-value\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("confluent_schema_registry_subject is not implemented"), std::string::npos) << r.err;
  r = block("  format: canal-json\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("option source.format=canal-json is not implemented"), std::string::npos) << r.err;

  auto sql = [&](const std::string& with, const std::string& tail = "SELECT * FROM t;\n") {
    WriteFile(dir_ / "x.sql", "CREATE TEMPORARY TABLE t (id INT) WITH ('connector'='kafka', 'topic'='t', "
                              "'properties.bootstrap.servers'='x:1', " + with + ");\n" + tail);
    return Floe("sql -f x.sql");
  };
  r = sql("'format'='avro-confluent'");
  EXPECT_NE(r.out.find("Missing required options are:\n\navro-confluent.url"), std::string::npos) << r.out;
  r = sql("'format'='avro-confluent', 'avro-confluent.url'='http://x:1', 'avro-confluent.ssl.truststore.location'='/t'");
  EXPECT_NE(r.out.find("Option 'avro-confluent.ssl.truststore.location'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is not supported yet"), std::string::npos) << r.out;
  r = sql("'format'='avro-confluent', 'avro-confluent.url'='http://x:1', 'avro-confluent.bearer-auth.token'='t'");
  EXPECT_NE(r.out.find("Option 'avro-confluent.bearer-auth.token'"), std::string::npos) << r.out;
  r = sql("'format'='json', 'avro-confluent.url'='http://x:1'");
  EXPECT_NE(r.out.find("Unsupported options found for 'kafka'"), std::string::npos) << r.out;
  r = sql("'format'='debezium-avro-confluent', 'debezium-avro-confluent.url'='http://x:1'", "INSERT INTO t VALUES (1);\n");
  EXPECT_NE(r.out.find("Writing to a 'kafka' table"), std::string::npos) << r.out;
}

}  // namespace kafka_avro_test
}  // namespace floe_cli_test
