// Change streams through `floe write`: the real Debezium streams in
// shared/interop/golden-cdc give their expected tables (floe scan and the
// spec-only reader agree), and table templates route changes to destinations
// created on first use.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_util.h"

namespace floe_cli_test {
namespace cdc_streams_cli_test {

using nlohmann::json;

std::vector<json> JsonLines(const std::string& text) {
  std::vector<json> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(json::parse(text.substr(start, end - start)));
    start = end + 1;
  }
  // Order-free comparison: by the row's text with numbers normalized.
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a.dump() < b.dump(); });
  return out;
}

// Numbers compare by value (1 and 1.0 are the same double).
bool SameRows(std::vector<json> a, std::vector<json> b) {
  auto key = [](const json& j) { return j.contains("id") ? j["id"].get<int64_t>() : 0; };
  auto by_id = [&](const json& x, const json& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), by_id);
  std::sort(b.begin(), b.end(), by_id);
  return a == b;
}

class CdcStreamsCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_cdc_streams_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  std::string Golden(const std::string& name) { return SharedDir() + "/interop/golden-cdc/" + name; }
  std::vector<json> Scan(const std::string& table) {
    RunResult r = Floe("scan --table " + table);
    EXPECT_EQ(r.rc, 0) << r.err;
    return JsonLines(r.out);
  }
  std::vector<json> Verify(const std::string& ns, const std::string& name) {
    RunResult r = Node(dir_, "verify_table.mjs", {(dir_ / "warehouse" / ns / name).string(), "--strict"});
    EXPECT_EQ(r.rc, 0) << r.err;
    return JsonLines(r.out);
  }
  fs::path dir_;
};

const char* kProducts =
    "--schema 'id INT NOT NULL, name STRING, description STRING, weight DOUBLE, PRIMARY KEY (id) NOT ENFORCED' "
    "--input-format debezium-json --set mode=merge-on-read ";

TEST_F(CdcStreamsCli, DebeziumProductsStreamGivesTheExpectedTable) {
  RunResult r = Floe("write --table inv.products -i " + Shell(Golden("debezium_postgres_products.jsonl")) + " " +
                     kProducts + "--set sink_id=dbz");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto expected = JsonLines(ReadFile(Golden("debezium_postgres_products.expected.jsonl")));
  EXPECT_TRUE(SameRows(Scan("inv.products"), expected));
  EXPECT_TRUE(SameRows(Verify("inv", "products"), expected));
  // The same stream again with the same sink_id: everything is skipped.
  r = Floe("write --table inv.products -i " + Shell(Golden("debezium_postgres_products.jsonl")) + " " + kProducts +
           "--set sink_id=dbz");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"skipped\":20"), std::string::npos) << r.out;
  EXPECT_TRUE(SameRows(Scan("inv.products"), expected));
}

TEST_F(CdcStreamsCli, KeylessDeleteFailsTheWindowOrGoesToTheErrorOutput) {
  const std::string in = Shell(Golden("debezium_postgres_replica_identity_default.jsonl"));
  RunResult r = Floe("write --table inv.p -i " + in + " " + kProducts);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("position 16"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("REPLICA IDENTITY FULL"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "inv" / "p"));  // nothing of the window
  r = Floe("write --table inv.p -i " + in + " " + kProducts + "--set error_handling=output:errors.jsonl");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto expected = JsonLines(ReadFile(Golden("debezium_postgres_replica_identity_default.expected.jsonl")));
  EXPECT_TRUE(SameRows(Scan("inv.p"), expected));
  EXPECT_TRUE(SameRows(Verify("inv", "p"), expected));
  const auto errors = JsonLines(ReadFile(dir_ / "errors.jsonl"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["position"], 16);
}

TEST_F(CdcStreamsCli, TableTemplatesRouteChangesToDestinationsCreatedOnFirstUse) {
  WriteFile(dir_ / "in.jsonl",
            "{\"id\":1,\"region\":\"eu-west\",\"meta\":{\"kind\":\"Click\"},\"seq\":1}\n"
            "{\"id\":2,\"region\":\"us\",\"meta\":{\"kind\":\"view\"},\"seq\":2}\n"
            "{\"id\":1,\"region\":\"eu-west\",\"meta\":{\"kind\":\"Click\"},\"seq\":3,\"v\":7}\n"
            "{\"id\":3,\"region\":null,\"meta\":{\"kind\":\"view\"},\"seq\":4}\n");
  RunResult r = Floe(
      "write --table 'db.ev_{region}_{meta.kind}' -i in.jsonl "
      "--schema 'id BIGINT, region STRING, meta STRUCT<kind STRING>, seq BIGINT, v INT' "
      "--set mode=merge-on-read --set upsert=true --set sequence_number_column=seq --set equality_columns=id "
      "--set drop=region,meta --set error_handling=output:errors.jsonl");
  ASSERT_EQ(r.rc, 0) << r.err;
  // Values sanitized into identifiers; keep/drop/only apply after routing.
  EXPECT_EQ(Scan("db.ev_eu_west_Click"), JsonLines("{\"id\":1,\"v\":7}\n"));
  EXPECT_EQ(Scan("db.ev_us_view"), JsonLines("{\"id\":2,\"v\":null}\n"));
  EXPECT_TRUE(SameRows(Verify("db", "ev_us_view"), JsonLines("{\"id\":2,\"v\":null}\n")));
  // A null template value has no destination: an invalid row.
  const auto errors = JsonLines(ReadFile(dir_ / "errors.jsonl"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["position"], 4);
  EXPECT_NE(errors[0]["reason"].get<std::string>().find("region"), std::string::npos) << errors[0];
  // Accounting per destination.
  json acc = json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(acc["destinations"].size(), 2u);
  EXPECT_EQ(acc["read"], 4);
  EXPECT_EQ(acc["errors"], 1);
}

// The README's walk-through: examples/cdc as it is documented.
TEST_F(CdcStreamsCli, ReadmeWalkThroughExample) {
  const std::string ex = std::string(FLOE_SOURCE_DIR) + "/examples/cdc/";
  const std::string cmd = "write --config " + Shell(ex + "customers.yaml") + " --input-format debezium-json -i " +
                          Shell(ex + "customers.debezium.jsonl");
  RunResult r = Floe(cmd + " --schema \"$(cat " + Shell(ex + "customers.schema.sql") + ")\"");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(SameRows(Scan("shop.customers"),
                       JsonLines("{\"id\":1,\"email\":\"ada@example.org\",\"tier\":\"gold\",\"credit\":80.25}\n"
                                 "{\"id\":2,\"email\":\"bo@example.org\",\"tier\":\"gold\",\"credit\":40.0}\n"
                                 "{\"id\":4,\"email\":\"dee@example.net\",\"tier\":\"bronze\",\"credit\":5.0}\n"
                                 "{\"id\":5,\"email\":\"eve@example.org\",\"tier\":\"silver\",\"credit\":9.99}\n")));
  r = Floe(cmd);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"skipped\":12"), std::string::npos) << r.out;
}

}  // namespace cdc_streams_cli_test
}  // namespace floe_cli_test
