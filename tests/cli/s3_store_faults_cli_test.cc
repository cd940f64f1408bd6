// `floe` against a store that fails writes it cannot finish (floe issue 23,
// items 1 to 3), on the hadoop catalog with its warehouse on the S3 test
// server, in-process:
// - a full store (the server on a small tmpfs): `scan` and `snapshots` of an
//   intact table work (opening the catalog writes nothing, no probe); a
//   write fails saying what happened (the store failed the write, the first
//   attempt's error), and leaves no object behind (the cut-off data file and
//   the conditional-write probe are removed);
// - a newest metadata version the store kept empty (what a publish stalled
//   past the time-out left, with version-hint.text naming it, as the old
//   hint repair wrote it): `scan` and `snapshots` read the version below it
//   with a warning naming the object, a write is refused naming it and the
//   way out, and once it is removed (by another client) writes go on.
#include <gtest/gtest.h>

#include <string>

#include "cli/s3_cli_util.h"
#include "testing/small_disk.h"

namespace s3_store_faults_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using floe::test::S3ServerOptions;
using floe::test::SmallDisk;

class S3StoreFaultsCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_s3_store_faults_"); }
  void TearDown() override {
    server_.reset();
    disk_.reset();
    RemoveTestDirIfPassed(dir_);
  }
  void StartServer(S3ServerOptions o = {}) {
    auto s = S3TestServer::Start(o);
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = std::move(*s);
    catalog_ = S3CatalogArgs("hadoop", *server_, dir_) +
               " --catalog s3.retry.min-wait-ms=1 --catalog s3.retry.max-wait-ms=5";
  }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args + catalog_); }
  RunResult Append(int64_t from, int64_t to) {
    const std::string file = "in_" + std::to_string(from) + ".jsonl";
    WriteFile(dir_ / file, RowsJsonl(from, to));
    return Floe("write --table db.t --input " + file);
  }
  RunResult CurlDelete(const std::string& key) {
    return RunIn(dir_, "curl -sS --fail-with-body -X DELETE --aws-sigv4 aws:amz:us-east-1:s3 --user " +
                           Shell(server_->access_key() + ":" + server_->secret_key()) +
                           " -H 'x-amz-content-sha256: "
                           "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' " +
                           Shell(server_->endpoint() + "/" + server_->bucket() + "/" + key));
  }

  fs::path dir_;
  std::unique_ptr<SmallDisk> disk_;
  std::unique_ptr<S3TestServer> server_;
  std::string catalog_;
};

TEST_F(S3StoreFaultsCli, AFullStoreReadsAndAFailedWriteSaysWhatHappened) {
  auto disk = SmallDisk::Mount(2 << 20);
  ASSERT_TRUE(disk) << disk.error().ToString();
  disk_ = std::move(*disk);
  S3ServerOptions o;
  o.parent_dir = disk_->dir().string();
  ASSERT_NO_FATAL_FAILURE(StartServer(o));
  WriteFile(dir_ / "first.jsonl", RowsJsonl(0, 3));
  RunResult create = Floe("write --table db.t --schema 'id BIGINT NOT NULL, s STRING' --input first.jsonl");
  ASSERT_EQ(create.rc, 0) << create.err;
  const auto before = StoreKeys(*server_);
  ASSERT_TRUE(disk_->Fill());

  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(OnceEach(IdsOf(scan.out), "scan"), IdRange(0, 3));
  RunResult snapshots = Floe("snapshots --table db.t");
  ASSERT_EQ(snapshots.rc, 0) << snapshots.err;

  RunResult w = Append(3, 2000);
  EXPECT_EQ(w.rc, 1) << w.err;
  EXPECT_NE(w.err.find("the store failed the write (attempt 1: HTTP 500 InternalError"), std::string::npos)
      << w.err;
  EXPECT_NE(w.err.find("a full store"), std::string::npos) << w.err;
  EXPECT_EQ(w.err.find("precondition failed"), std::string::npos) << w.err;
  EXPECT_EQ(StoreKeys(*server_), before) << "the failed write left objects behind";

  // With room again, the table takes the write.
  disk_->Free();
  ASSERT_EQ(Append(3, 6).rc, 0);
  RunResult after = Floe("scan --table db.t");
  ASSERT_EQ(after.rc, 0) << after.err;
  EXPECT_EQ(OnceEach(IdsOf(after.out), "scan"), IdRange(0, 6));
  for (const auto& key : StoreKeys(*server_)) EXPECT_EQ(key.find("probe"), std::string::npos) << key;
}

TEST_F(S3StoreFaultsCli, AnEmptyNewestVersionIsReadPastAndRefusedForWrites) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WriteFile(dir_ / "first.jsonl", RowsJsonl(0, 3));
  ASSERT_EQ(Floe("write --table db.t --schema 'id BIGINT NOT NULL, s STRING' --input first.jsonl").rc, 0);
  ASSERT_EQ(Append(3, 5).rc, 0);  // versions 1 (create), 2 (first rows), 3
  const std::string v4 = "wh/db/t/metadata/v4.metadata.json";
  ASSERT_EQ(CurlPut(dir_, *server_, v4, "").rc, 0);
  ASSERT_EQ(CurlPut(dir_, *server_, "wh/db/t/metadata/version-hint.text", "4").rc, 0);

  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(OnceEach(IdsOf(scan.out), "scan"), IdRange(0, 5));
  EXPECT_NE(scan.err.find("warning"), std::string::npos) << scan.err;
  EXPECT_NE(scan.err.find(S3Warehouse(*server_) + "/db/t/metadata/v4.metadata.json"), std::string::npos)
      << scan.err;
  EXPECT_NE(scan.err.find("empty (0 bytes)"), std::string::npos) << scan.err;
  RunResult snapshots = Floe("snapshots --table db.t");
  ASSERT_EQ(snapshots.rc, 0) << snapshots.err;

  const auto before = StoreKeys(*server_);
  RunResult w = Append(5, 7);
  EXPECT_EQ(w.rc, 1) << w.err;
  EXPECT_EQ(StoreKeys(*server_), before) << "the refused write left files behind";
  EXPECT_NE(w.err.find("v4.metadata.json"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("remove"), std::string::npos) << w.err;
  EXPECT_EQ(w.err.find("not valid JSON"), std::string::npos) << w.err;

  ASSERT_EQ(CurlDelete(v4).rc, 0);
  RunResult again = Append(5, 7);
  ASSERT_EQ(again.rc, 0) << again.err;
  RunResult after = Floe("scan --table db.t");
  ASSERT_EQ(after.rc, 0) << after.err;
  EXPECT_EQ(after.err.find("warning"), std::string::npos) << after.err;
  EXPECT_EQ(OnceEach(IdsOf(after.out), "scan"), IdRange(0, 7));
}

TEST_F(S3StoreFaultsCli, TheRetryAndTimeoutOptionsReachTheClientAndUnknownOnesAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WriteFile(dir_ / "first.jsonl", RowsJsonl(0, 2));
  const std::string options =
      " --catalog s3.retry.num-retries=1 --catalog s3.socket-timeout-ms=5000 --catalog s3.connection-timeout-ms=2000";
  RunResult w = Floe("write --table db.t --schema 'id BIGINT NOT NULL, s STRING' --input first.jsonl" + options);
  ASSERT_EQ(w.rc, 0) << w.err;
  RunResult sql = Floe("scan --table db.t --catalog catalog-type=sql --catalog " +
                       Shell("uri=jdbc:sqlite:file:" + (dir_ / "cat.db").string()) + options);
  EXPECT_EQ(sql.err.find("does nothing"), std::string::npos) << sql.err;  // every catalog type takes them
  RunResult bad = Floe("scan --table db.t --catalog s3.socket-timeout-ms=10");
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("s3.socket-timeout-ms"), std::string::npos) << bad.err;
  RunResult unknown = Floe("scan --table db.t --catalog s3.retry.attempts=3");
  EXPECT_NE(unknown.rc, 0);
  EXPECT_NE(unknown.err.find("unknown option 's3.retry.attempts'"), std::string::npos) << unknown.err;
}

}  // namespace s3_store_faults_cli_test
