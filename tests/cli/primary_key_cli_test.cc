// `floe write --schema '... PRIMARY KEY (id) NOT ENFORCED'`: the table it
// creates stores the key as the current schema's `identifier-field-ids`
// (with the key column required), the spec-only reader verify_table.mjs
// --strict reads it, and a key without NOT ENFORCED is refused before any
// table exists.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "cli/cli_util.h"

namespace primary_key_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers
using Json = nlohmann::json;

class PrimaryKeyCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_primary_key_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }
  RunResult Sh(const std::string& cmd) { return RunIn(dir_, cmd); }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  /// The current schema of the table's newest metadata (by version-hint.text).
  Json CurrentSchema(const fs::path& table_dir) {
    const std::string hint = ReadFile(table_dir / "metadata/version-hint.text");
    const Json md = Json::parse(ReadFile(table_dir / ("metadata/v" + hint + ".metadata.json")));
    for (const auto& s : md.at("schemas")) {
      if (s.at("schema-id") == md.at("current-schema-id")) return s;
    }
    ADD_FAILURE() << "no current schema in " << md.dump();
    return Json();
  }

  fs::path dir_;
};

TEST_F(PrimaryKeyCli, WrittenTableStoresIdentifierFieldIds) {
  WriteFile(dir_ / "in.jsonl",
            "{\"region\":\"eu\",\"id\":1,\"v\":\"a\"}\n{\"region\":\"us\",\"id\":2,\"v\":\"b\"}\n");
  RunResult w =
      Floe("write --table db.keyed --schema " +
           Shell("region STRING, id BIGINT, v STRING, PRIMARY KEY (id, region) NOT ENFORCED") +
           " --set partition_fields=region --input in.jsonl");
  ASSERT_EQ(w.rc, 0) << w.err;
  const fs::path table_dir = dir_ / "warehouse/db/keyed";
  const Json schema = CurrentSchema(table_dir);
  // Ids as Iceberg assigns them: region 1, id 2, v 3; the key in its order.
  EXPECT_EQ(schema.at("identifier-field-ids"), Json::array({2, 1})) << schema.dump();
  for (const auto& f : schema.at("fields")) {
    EXPECT_EQ(f.at("required").get<bool>(), f.at("name") != "v") << f.dump();
  }

  RunResult v = Node(dir_, "verify_table.mjs", {table_dir.string(), "--strict"});
  ASSERT_EQ(v.rc, 0) << v.err;
  EXPECT_EQ(v.out,
            "{\"region\":\"eu\",\"id\":1,\"v\":\"a\"}\n{\"region\":\"us\",\"id\":2,\"v\":\"b\"}\n");
  EXPECT_EQ(v.err.find("warning"), std::string::npos) << v.err;
}

TEST_F(PrimaryKeyCli, KeyWithoutNotEnforcedIsRefused) {
  WriteFile(dir_ / "in.jsonl", "{\"id\":1}\n");
  RunResult w =
      Floe("write --table db.bad --schema " + Shell("id BIGINT PRIMARY KEY") + " --input in.jsonl");
  EXPECT_NE(w.rc, 0);
  EXPECT_NE(w.err.find("NOT ENFORCED"), std::string::npos) << w.err;
  EXPECT_FALSE(fs::exists(dir_ / "warehouse/db/bad"));
}

}  // namespace primary_key_cli_test
