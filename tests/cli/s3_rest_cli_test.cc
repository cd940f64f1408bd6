// A REST catalog whose tables live on S3 (floe issue 10: object storage with
// every catalog): floe's REST client -> `floe serve` (hadoop catalog on the S3
// test server) -> S3. The client reaches the s3:// table locations the server
// hands out through the FileIO of their scheme, configured by its own s3.*
// catalog properties; without them it is refused naming what to set, and
// a REST catalog with local tables needs no S3 settings at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli/catalog_configs.h"
#include "cli/cli_util.h"
#include "testing/s3_server.h"

namespace s3_rest_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers
using floe::test::S3TestServer;

class S3RestCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_s3_rest_cli_");
    auto s = S3TestServer::Start({});
    ASSERT_TRUE(s) << s.error().ToString();
    s3_ = std::move(*s);
    // The server's backend: the hadoop catalog with its warehouse on S3.
    auto uri = StartServe(dir_, " " + s3_->CatalogArgs("s3://" + s3_->bucket() + "/wh"), &serve_);
    ASSERT_TRUE(uri) << uri.error().ToString();
    uri_ = *uri;
  }
  void TearDown() override {
    serve_.reset();
    RemoveTestDirIfPassed(dir_);
  }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  std::string Rest() const {
    return " --catalog catalog-type=rest --catalog " + Shell("uri=" + uri_);
  }

  fs::path dir_;
  std::unique_ptr<S3TestServer> s3_;
  std::shared_ptr<void> serve_;
  std::string uri_;
};

constexpr const char* kRows = "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n";

TEST_F(S3RestCli, TheRestClientWritesAndScansTablesOnS3WithItsS3Properties) {
  WriteFile(dir_ / "rows.jsonl", kRows);
  const std::string client = Rest() + " " + s3_->CatalogArgs();
  RunResult w = Floe(
      "write --table db.t --schema 'id BIGINT NOT NULL, name STRING' --input rows.jsonl" + client);
  ASSERT_EQ(w.rc, 0) << w.err;
  ASSERT_EQ(Floe("write --table db.t --input rows.jsonl" + client).rc, 0);
  RunResult scan = Floe("scan --table db.t" + client);
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, std::string(kRows) + kRows);
  // The table is on S3 (the server's hadoop warehouse), not on the local disk.
  RunResult d = Floe("describe --table db.t" + client);
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_NE(d.out.find("s3://" + s3_->bucket() + "/wh/db/t/metadata/"), std::string::npos) << d.out;
}

TEST_F(S3RestCli, WithoutS3PropertiesTheClientNamesWhatToSet) {
  WriteFile(dir_ / "rows.jsonl", kRows);
  // The server creates the table (its own S3 settings); the client cannot
  // write data files to s3:// without credentials, and says so.
  RunResult w = Floe(
      "write --table db.t --schema 'id BIGINT NOT NULL, name STRING' --input rows.jsonl" + Rest());
  EXPECT_NE(w.rc, 0);
  EXPECT_NE(w.err.find("s3"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("access-key"), std::string::npos) << w.err;
  // Nothing was committed: the table is gone again (a table the failed
  // write created is dropped) or has no rows.
  RunResult scan = Floe("scan --table db.t" + Rest() + " " + s3_->CatalogArgs());
  if (scan.rc == 0) {
    EXPECT_EQ(scan.out, "");
  } else {
    EXPECT_NE(scan.err.find("db.t"), std::string::npos) << scan.err;
  }
}

}  // namespace s3_rest_cli_test
