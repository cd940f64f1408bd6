// floe write / scan / snapshots through `--catalog catalog-type=rest` against
// tests/catalog/rest_test_server.mjs behind the validating proxy (the table
// files are local): the table is created through the REST catalog, the
// commit goes out as a CommitTableRequest, an injected 409 is retried by the
// table layer (reload and re-apply), and a 500 after the commit landed is
// commit state unknown with every written file kept.
#include <gtest/gtest.h>

#include "catalog/rest_fixture.h"
#include "cli/cli_util.h"

namespace floe_cli_test {
namespace rest_client_cli_test {

class RestClientCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("rest_client_cli");
    server_ = std::make_unique<floe::test::RestServer>(dir_ / "wh");
    ASSERT_TRUE(server_->ok()) << "the test REST server or the validating proxy did not start";
    WriteFile(dir_ / "rows.jsonl", "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n");
  }
  void TearDown() override {
    if (server_) {
      auto v = server_->Violations();
      EXPECT_EQ(v["violations"].size(), 0u) << v.dump(1);
    }
    server_.reset();
    RemoveTestDirIfPassed(dir_);
  }
  std::string Catalog() const {
    return " --catalog catalog-type=rest --catalog uri=" + server_->uri();
  }
  RunResult Floe(const std::string& args) {
    return RunIn(dir_, std::string(FLOE_BIN) + " " + args + Catalog());
  }

  size_t DataFiles() const {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "wh"))
      n += e.path().extension() == ".parquet";
    return n;
  }

  fs::path dir_;
  std::unique_ptr<floe::test::RestServer> server_;
};

TEST_F(RestClientCli, WriteThenScanThroughTheRestCatalog) {
  auto w = Floe("write --table db.t --schema 'id BIGINT, name STRING' -i rows.jsonl");
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_NE(w.out.find("\"rows\":2"), std::string::npos) << w.out;
  auto again = Floe("write --table db.t -i rows.jsonl");
  ASSERT_EQ(again.rc, 0) << again.err;
  auto s = Floe("scan --table db.t");
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 4) << s.out;
  EXPECT_NE(s.out.find("\"name\":\"b\""), std::string::npos) << s.out;
  auto t = Floe("tables db");
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("db.t"), std::string::npos) << t.out;
  EXPECT_EQ(server_->State()["commits"], 2);
}

TEST_F(RestClientCli, ConflictIsRetriedByTheTableLayer) {
  ASSERT_EQ(Floe("write --table db.t --schema 'id BIGINT, name STRING' -i rows.jsonl").rc, 0);
  server_->Control({{"commitFault", "409"}, {"faultCount", 1}});
  auto w = Floe("write --table db.t -i rows.jsonl");
  ASSERT_EQ(w.rc, 0) << w.err;
  auto s = Floe("scan --table db.t");
  EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 4) << s.out << s.err;
  EXPECT_EQ(server_->State()["commits"], 2);
}

TEST_F(RestClientCli, CommitStateUnknownKeepsTheFiles) {
  ASSERT_EQ(Floe("write --table db.t --schema 'id BIGINT, name STRING' -i rows.jsonl").rc, 0);
  size_t before = DataFiles();
  server_->Control({{"commitFault", "500"}, {"faultCount", 1}});
  auto w = Floe("write --table db.t -i rows.jsonl");
  EXPECT_NE(w.rc, 0);
  EXPECT_NE(w.err.find("commit"), std::string::npos) << w.err;
  EXPECT_EQ(DataFiles(), before + 1);  // the landed commit's data file is still there
  auto s = Floe("scan --table db.t");
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 4) << s.out;
}

}  // namespace rest_client_cli_test
}  // namespace floe_cli_test
