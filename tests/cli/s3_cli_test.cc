// `floe` with the warehouse on S3 (floe issue 10), against the S3 test server
// (tests/testing/s3_server.h): the write -> scan round trip through the hadoop
// and sql catalogs, read back by the spec-only reference reader from a mirror
// of the store; a store without conditional writes refused by the hadoop
// catalog before anything is written; a wrong secret is a clear 403 that never
// shows the secret; io-impl and the AWS_* environment fallback.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "cli/cli_util.h"
#include "testing/s3_server.h"

namespace s3_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers
using floe::test::S3ServerOptions;
using floe::test::S3TestServer;
using nlohmann::json;

class S3Cli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_s3_cli_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  void StartServer(S3ServerOptions o = {}) {
    auto s = S3TestServer::Start(o);
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = std::move(*s);
  }
  std::string Wh() const { return "s3://" + server_->bucket() + "/wh"; }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  // A command with the S3 warehouse's catalog options.
  RunResult FloeS3(const std::string& args) { return Floe(args + " " + server_->CatalogArgs(Wh())); }

  std::string VerifyTable(const std::string& metadata_location) {
    // The reference reader reads files, not S3: a mirror of the bucket, mapped.
    const fs::path mirror = dir_ / "mirror";
    EXPECT_TRUE(server_->Mirror(mirror));
    const std::string prefix = "s3://" + server_->bucket() + "/";
    std::string local = (mirror / metadata_location.substr(prefix.size())).string();
    RunResult v = Node(dir_, "verify_table.mjs", {local, "--strict", "--map", prefix + "=" + mirror.string() + "/"});
    EXPECT_EQ(v.rc, 0) << "verify_table.mjs: " << v.err;
    return v.out;
  }

  fs::path dir_;
  std::unique_ptr<S3TestServer> server_;
};

constexpr const char* kRows = "{\"id\":1,\"name\":\"a b\"}\n{\"id\":2,\"name\":\"c\"}\n";

TEST_F(S3Cli, WriteScanRoundTripOnTheHadoopCatalog) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WriteFile(dir_ / "rows.jsonl", kRows);
  RunResult w = FloeS3("write --table db.t --schema 'id BIGINT NOT NULL, name STRING' --input rows.jsonl");
  ASSERT_EQ(w.rc, 0) << w.err;
  ASSERT_EQ(FloeS3("write --table db.t --input rows.jsonl").rc, 0);
  RunResult scan = FloeS3("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, std::string(kRows) + kRows);

  RunResult ns = FloeS3("namespaces");
  ASSERT_EQ(ns.rc, 0) << ns.err;
  EXPECT_EQ(ns.out, "db\n");
  RunResult tables = FloeS3("tables");
  ASSERT_EQ(tables.rc, 0) << tables.err;
  EXPECT_EQ(tables.out, "db.t\n");

  // The metadata names s3:// locations, and nothing of the table is on the
  // local disk: the objects are in the store's folder.
  RunResult d = FloeS3("describe --table db.t");
  ASSERT_EQ(d.rc, 0) << d.err;
  const json desc = json::parse(d.out);
  const std::string metadata = desc.at("metadata-location").get<std::string>();
  EXPECT_EQ(metadata, Wh() + "/db/t/metadata/v3.metadata.json");
  EXPECT_FALSE(fs::exists(dir_ / "warehouse"));
  EXPECT_TRUE(fs::exists(server_->dir() / server_->bucket() / "wh/db/t/metadata/v3.metadata.json._S3rver_object"));

  // The reference reader sees the same rows (it prints them sorted).
  EXPECT_EQ(VerifyTable(metadata),
            "{\"id\":1,\"name\":\"a b\"}\n{\"id\":1,\"name\":\"a b\"}\n{\"id\":2,\"name\":\"c\"}\n"
            "{\"id\":2,\"name\":\"c\"}\n");
}

TEST_F(S3Cli, SqlCatalogWithAWarehouseOnS3) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WriteFile(dir_ / "rows.jsonl", kRows);
  const std::string sql =
      "--catalog catalog-type=sql --catalog " + Shell("uri=jdbc:sqlite:file:" + (dir_ / "cat.db").string());
  RunResult w = FloeS3("write --table db.t --schema 'id BIGINT, name STRING' --input rows.jsonl " + sql);
  ASSERT_EQ(w.rc, 0) << w.err;
  RunResult scan = FloeS3("scan --table db.t " + sql);
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, kRows);
  RunResult d = FloeS3("describe --table db.t " + sql);
  ASSERT_EQ(d.rc, 0) << d.err;
  const std::string metadata = json::parse(d.out).at("metadata-location").get<std::string>();
  EXPECT_EQ(metadata.rfind(Wh() + "/db/t/metadata/00001-", 0), 0u) << metadata;
  EXPECT_EQ(VerifyTable(metadata), kRows);
}

TEST_F(S3Cli, AStoreWithoutConditionalWritesIsRefusedBeforeAnyWrite) {
  S3ServerOptions o;
  o.conditional_writes = false;
  ASSERT_NO_FATAL_FAILURE(StartServer(o));
  WriteFile(dir_ / "rows.jsonl", kRows);
  RunResult w = FloeS3("write --table db.t --schema 'id BIGINT, name STRING' --input rows.jsonl");
  EXPECT_EQ(w.rc, 1) << w.err;
  EXPECT_NE(w.err.find("does not honour conditional writes"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("If-None-Match"), std::string::npos) << w.err;
  // Nothing of the table was written (the probe object is removed again).
  EXPECT_FALSE(fs::exists(server_->dir() / server_->bucket() / "wh/db"));
  const fs::path wh = server_->dir() / server_->bucket() / "wh";
  if (fs::exists(wh)) {
    for (const auto& e : fs::recursive_directory_iterator(wh)) {
      EXPECT_EQ(e.path().string().find("probe"), std::string::npos) << e.path();
    }
  }
}

TEST_F(S3Cli, AWrongSecretIsAClear403ThatNeverShowsTheSecret) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WriteFile(dir_ / "rows.jsonl", kRows);
  const std::string secret = "wrong-secret-Zq7";
  RunResult w = Floe("write --table db.t --schema 'id BIGINT' --input rows.jsonl --catalog " +
                     Shell("warehouse=" + Wh()) + " --catalog " + Shell("s3.endpoint=" + server_->endpoint()) +
                     " --catalog s3.path-style-access=true --catalog " +
                     Shell("s3.access-key-id=" + server_->access_key()) + " --catalog " +
                     Shell("s3.secret-access-key=" + secret));
  EXPECT_EQ(w.rc, 1) << w.err;
  EXPECT_NE(w.err.find("403"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("SignatureDoesNotMatch"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("s3://" + server_->bucket() + "/wh"), std::string::npos) << w.err;
  EXPECT_EQ((w.out + w.err).find(secret), std::string::npos) << w.err;
  EXPECT_EQ((w.out + w.err).find("Signature="), std::string::npos) << w.err;
}

TEST_F(S3Cli, IoImplAndTheEnvironmentFallback) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WriteFile(dir_ / "rows.jsonl", kRows);
  // Credentials from AWS_* when the properties leave them out.
  const std::string env = "AWS_ACCESS_KEY_ID=" + Shell(server_->access_key()) +
                          " AWS_SECRET_ACCESS_KEY=" + Shell(server_->secret_key()) + " AWS_REGION=eu-west-3 ";
  const std::string props = "--catalog " + Shell("warehouse=" + Wh()) + " --catalog " +
                            Shell("s3.endpoint=" + server_->endpoint()) +
                            " --catalog s3.path-style-access=true --catalog io-impl=org.apache.iceberg.aws.s3.S3FileIO";
  RunResult w = RunIn(dir_, env + Shell(FLOE_BIN) + " write --table db.t --schema 'id BIGINT, name STRING' "
                                                    "--input rows.jsonl " + props);
  ASSERT_EQ(w.rc, 0) << w.err;
  RunResult scan = RunIn(dir_, env + Shell(FLOE_BIN) + " scan --table db.t " + props);
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, kRows);
  // S3FileIO with a local warehouse: refused, naming what it needs.
  RunResult local = Floe("write --table db.t --schema 'id BIGINT' --input rows.jsonl --catalog "
                         "io-impl=org.apache.iceberg.aws.s3.S3FileIO");
  EXPECT_NE(local.rc, 0);
  EXPECT_NE(local.err.find("needs an s3://"), std::string::npos) << local.err;
  // An unknown FileIO class names the supported ones.
  RunResult bogus = Floe("write --table db.t --schema 'id BIGINT' --input rows.jsonl --catalog io-impl=com.example.MyIO");
  EXPECT_NE(bogus.rc, 0);
  EXPECT_NE(bogus.err.find("org.apache.iceberg.aws.s3.S3FileIO"), std::string::npos) << bogus.err;
  EXPECT_FALSE(fs::exists(dir_ / "warehouse/db/t"));
}

}  // namespace s3_cli_test
