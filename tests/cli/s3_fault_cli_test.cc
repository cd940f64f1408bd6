// `floe` against the S3 test server through the fault proxy
// (testing/fault_proxy.h; floe issue 10, proof 3). Dropped connections,
// 500/503 bursts, slow answers, answers cut off mid-body and lost replies,
// on the hadoop and the SQL catalog:
// - faults the retries absorb: every write commits exactly once (no
//   duplicate rows, one snapshot per write, one chain of parents);
// - faults that outlast the retries: the write fails with an error naming
//   the object and the store's answer, never the secret, and leaves the
//   table as it was (no snapshot, no new object under the table);
// - a lost reply on the hadoop catalog's metadata publish: one lost reply is
//   resolved (the retry's 412 finds our own bytes); every reply lost is
//   *commit state unknown*: the CLI says so, the files stay, and the table
//   reads afterwards with the commit (the publish landed) or without it (it
//   never reached the store), never broken;
// - a multipart upload (5 MiB parts) with its part uploads, its start and
//   its completion failing once each;
// - seeded random faults over many writes: each write that exited 0 is in
//   the table once, each that failed cleanly is not, an unknown one is
//   there whole or not at all.
// Each table is checked by floe and by verify_table.mjs from a mirror.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <set>
#include <string>

#include "cli/catalog_configs.h"
#include "cli/s3_cli_util.h"
#include "testing/fault_proxy.h"

namespace s3_fault_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using floe::test::FaultAction;
using floe::test::FaultProxy;
using floe::test::FaultRule;
using nlohmann::json;

class S3FaultCli : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_s3_fault_");
    auto s = S3TestServer::Start();
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = std::move(*s);
    auto p = FaultProxy::Start(server_->endpoint(), 20261201);
    ASSERT_TRUE(p) << p.error().ToString();
    proxy_ = std::move(*p);
    catalog_ = S3CatalogArgs(GetParam(), *server_, dir_, proxy_->endpoint());
    WriteFile(dir_ / "empty.jsonl", "");
    RunResult create =
        Floe("write --table db.t --schema 'id BIGINT NOT NULL, s STRING' --input empty.jsonl");
    ASSERT_EQ(create.rc, 0) << create.err;
  }
  void TearDown() override {
    proxy_.reset();
    server_.reset();
    RemoveTestDirIfPassed(dir_);
  }

  RunResult Floe(const std::string& args) {
    RunResult r = FloeRun(dir_, args + catalog_);
    EXPECT_EQ(r.err.find(server_->secret_key()), std::string::npos) << "the secret in: " << r.err;
    EXPECT_EQ(r.out.find(server_->secret_key()), std::string::npos) << "the secret in: " << r.out;
    return r;
  }
  /// Appends ids [from, to) in one write.
  RunResult Append(int64_t from, int64_t to, const std::string& extra = "") {
    const std::string file = "in_" + std::to_string(from) + ".jsonl";
    WriteFile(dir_ / file, RowsJsonl(from, to));
    return Floe("write --table db.t --input " + file + extra);
  }
  /// With the faults off: floe's rows and verify_table.mjs's are `ids`, each
  /// once, and the history is one chain of `snapshots` appends.
  void ExpectTable(const std::set<int64_t>& ids, size_t snapshots, const std::string& what) {
    proxy_->ClearRules();
    RunResult scan = Floe("scan --table db.t");
    ASSERT_EQ(scan.rc, 0) << what << ": " << scan.err;
    EXPECT_EQ(OnceEach(IdsOf(scan.out), what), ids) << what;
    RunResult snaps = Floe("snapshots --table db.t");
    ASSERT_EQ(snaps.rc, 0) << what << ": " << snaps.err;
    EXPECT_EQ(CheckSnapshotChain(snaps.out, what).by_sequence.size(), snapshots) << what;
    RunResult d = Floe("describe --table db.t");
    ASSERT_EQ(d.rc, 0) << d.err;
    RunResult v = VerifyFromMirror(dir_, *server_,
                                   json::parse(d.out).at("metadata-location").get<std::string>());
    ASSERT_EQ(v.rc, 0) << what << ": verify_table.mjs: " << v.err;
    EXPECT_EQ(OnceEach(IdsOf(v.out), what + " (verify_table.mjs)"), ids) << what;
  }
  std::set<std::string> TableKeys() { return StoreKeys(*server_, "wh/db/t/"); }
  static std::set<std::string> Minus(const std::set<std::string>& a,
                                     const std::set<std::string>& b) {
    std::set<std::string> out;
    for (const auto& k : a) {
      if (!b.contains(k)) out.insert(k);
    }
    return out;
  }
  void Report(const std::string& what) {
    const auto c = proxy_->counters();
    std::cout << "[ info ] " << GetParam() << " " << what << ": " << c.requests << " requests, "
              << c.forwarded << " forwarded, " << c.dropped << " dropped, " << c.errors
              << " 5xx answered, " << c.delayed << " delayed, " << c.dropped_replies
              << " replies lost, " << c.resets << " resets\n";
  }

  fs::path dir_;
  std::unique_ptr<S3TestServer> server_;
  std::unique_ptr<FaultProxy> proxy_;
  std::string catalog_;
};

TEST_P(S3FaultCli, FaultsTheRetriesAbsorbLeaveEachWriteCommittedOnce) {
  // The first data file PUT never arrives, the next arrives but its answer
  // is lost (the retry's 412 must find our own bytes); bursts of 5xx on
  // PUT, GET and HEAD; reads cut off mid-body; some answers slow.
  proxy_->AddRule({.method = "PUT", .path = "/data/", .action = FaultAction::kDrop, .times = 1});
  proxy_->AddRule(
      {.method = "PUT", .path = "/data/", .action = FaultAction::kDropReply, .times = 1});
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kError, .status = 503, .times = 2});
  proxy_->AddRule({.method = "GET", .action = FaultAction::kResetMidBody, .times = 2});
  proxy_->AddRule({.method = "GET", .action = FaultAction::kError, .status = 500, .times = 2});
  proxy_->AddRule({.method = "HEAD", .action = FaultAction::kError, .status = 503, .times = 1});
  proxy_->AddRule({.method = "DELETE", .action = FaultAction::kError, .status = 500, .times = 1});
  proxy_->AddRule({.action = FaultAction::kDelay, .delay_ms = 200, .probability = 0.1});
  for (int w = 0; w < 3; ++w) {
    RunResult r = Append(w * 10, w * 10 + 3);
    ASSERT_EQ(r.rc, 0) << "write " << w << ": " << r.err;
  }
  const auto c = proxy_->counters();
  EXPECT_EQ(c.dropped, 1);
  EXPECT_EQ(c.dropped_replies, 1);
  EXPECT_EQ(c.resets, 2);
  EXPECT_GE(c.errors, 5);
  Report("absorbed faults");
  ExpectTable({0, 1, 2, 10, 11, 12, 20, 21, 22}, 3, "after absorbed faults");
}

TEST_P(S3FaultCli, FaultsThatOutlastTheRetriesFailTheWriteCleanly) {
  ASSERT_EQ(Append(1, 4).rc, 0);
  const std::set<std::string> before = TableKeys();

  // Every data file upload answered 503: nothing is committed or left.
  proxy_->AddRule(
      {.method = "PUT", .path = "/data/", .action = FaultAction::kError, .status = 503});
  RunResult data = Append(100, 103);
  EXPECT_NE(data.rc, 0);
  EXPECT_NE(data.err.find("s3://" + server_->bucket() + "/wh/db/t/data/"), std::string::npos)
      << data.err;
  EXPECT_NE(data.err.find("503"), std::string::npos) << data.err;
  EXPECT_NE(data.err.find("SlowDown"), std::string::npos) << data.err;
  EXPECT_EQ(TableKeys(), before) << "a failed write left objects";

  // Every manifest upload dropped: the data file already written is removed.
  proxy_->ClearRules();
  proxy_->AddRule({.method = "PUT", .path = ".avro", .action = FaultAction::kDrop});
  RunResult manifest = Append(100, 103);
  EXPECT_NE(manifest.rc, 0);
  EXPECT_NE(manifest.err.find(".avro"), std::string::npos) << manifest.err;
  EXPECT_GE(proxy_->ForwardedCount("PUT", "/data/"), 1) << "no data file was written";
  EXPECT_EQ(Minus(TableKeys(), before), std::set<std::string>{}) << "a failed write left objects";
  Report("failed writes");
  ExpectTable({1, 2, 3}, 1, "after failed writes");

  // The same write goes through once the store answers again.
  proxy_->ClearRules();
  ASSERT_EQ(Append(100, 103).rc, 0);
  ExpectTable({1, 2, 3, 100, 101, 102}, 2, "after the retried write");
}

TEST_P(S3FaultCli, LostRepliesOnTheMetadataWrite) {
  // The metadata file of a commit (hadoop: the version it publishes with
  // If-None-Match; sql: the file the UPDATE will name).
  const std::string metadata = ".metadata.json";
  ASSERT_EQ(Append(1, 3).rc, 0);

  // One lost reply: the retry finds the object holding our bytes.
  proxy_->AddRule(
      {.method = "PUT", .path = metadata, .action = FaultAction::kDropReply, .times = 1});
  RunResult once = Append(10, 12);
  ASSERT_EQ(once.rc, 0) << once.err;
  EXPECT_EQ(proxy_->counters().dropped_replies, 1);
  ExpectTable({1, 2, 10, 11}, 2, "after one lost reply");

  // Every reply lost: the metadata landed, the writer cannot know.
  std::set<std::string> before = TableKeys();
  proxy_->AddRule({.method = "PUT", .path = metadata, .action = FaultAction::kDropReply});
  RunResult lost = Append(20, 22);
  EXPECT_NE(lost.rc, 0);
  std::set<std::string> left = Minus(TableKeys(), before);
  if (GetParam() == "hadoop") {
    // The version file may now be the table's current one: the CLI says the
    // state is unknown and removes nothing.
    EXPECT_NE(lost.err.find("commit state unknown"), std::string::npos) << lost.err;
    bool data_left = false;
    for (const auto& k : left) data_left = data_left || k.starts_with("wh/db/t/data/");
    EXPECT_TRUE(data_left) << "the files of an unknown commit were removed";
    ExpectTable({1, 2, 10, 11, 20, 21}, 3, "after every reply of a landed publish was lost");
  } else {
    // The SQL catalog commits by its UPDATE, which never ran: the table is
    // without the write.
    ExpectTable({1, 2, 10, 11}, 2, "after every reply of a metadata file was lost");
  }

  // Every publish dropped before it reaches the store: nothing landed, but
  // a dropped connection cannot tell the writer that.
  before = TableKeys();
  proxy_->AddRule({.method = "PUT", .path = metadata, .action = FaultAction::kDrop});
  RunResult dropped = Append(30, 32);
  EXPECT_NE(dropped.rc, 0);
  if (GetParam() == "hadoop") {
    EXPECT_NE(dropped.err.find("commit state unknown"), std::string::npos) << dropped.err;
  }
  left = Minus(TableKeys(), before);
  const std::set<int64_t> rows = GetParam() == "hadoop" ? std::set<int64_t>{1, 2, 10, 11, 20, 21}
                                                        : std::set<int64_t>{1, 2, 10, 11};
  const size_t snapshots = GetParam() == "hadoop" ? 3 : 2;
  ExpectTable(rows, snapshots, "after every publish was dropped");
  Report("lost metadata replies");

  // What the unknown commits left is an orphan: remove-orphans takes it, and
  // the table reads the same.
  const int64_t future = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count() +
                         3600 * 1000;
  RunResult orphans = Floe("remove-orphans --table db.t --older-than " + std::to_string(future));
  ASSERT_EQ(orphans.rc, 0) << orphans.err;
  std::set<std::string> removed;
  const json removed_json = json::parse(orphans.out);
  for (const auto& f : removed_json.at("orphan-files")) removed.insert(KeyOf(*server_, f));
  for (const auto& k : left) EXPECT_TRUE(removed.contains(k)) << k << " was not removed";
  ExpectTable(rows, snapshots, "after remove-orphans");
  ASSERT_EQ(Append(40, 41).rc, 0);
  std::set<int64_t> more = rows;
  more.insert(40);
  ExpectTable(more, snapshots + 1, "after a later write");
}

TEST_P(S3FaultCli, ReadsSurviveResetsErrorsAndSlowAnswers) {
  ASSERT_EQ(Append(0, 500).rc, 0);
  ASSERT_EQ(Append(500, 600).rc, 0);
  // At most 4 failures in a row: the FileIO makes 5 attempts.
  proxy_->AddRule({.method = "GET", .action = FaultAction::kResetMidBody, .times = 2});
  proxy_->AddRule({.method = "GET", .action = FaultAction::kError, .status = 503, .times = 2});
  proxy_->AddRule({.method = "HEAD", .action = FaultAction::kDrop, .times = 2});
  proxy_->AddRule({.action = FaultAction::kDelay, .delay_ms = 300, .times = 3});
  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(OnceEach(IdsOf(scan.out), "scan under faults"), IdRange(0, 600));
  const auto c = proxy_->counters();
  EXPECT_EQ(c.resets, 2);
  EXPECT_EQ(c.delayed, 3);
  Report("reads under faults");

  // A store that answers no read: an error naming the object, no rows.
  proxy_->ClearRules();
  proxy_->AddRule(
      {.method = "GET", .path = "/data/", .action = FaultAction::kError, .status = 500});
  RunResult failed = Floe("scan --table db.t");
  EXPECT_NE(failed.rc, 0);
  EXPECT_NE(failed.err.find("s3://" + server_->bucket() + "/wh/db/t/data/"), std::string::npos)
      << failed.err;
  EXPECT_NE(failed.err.find("500"), std::string::npos) << failed.err;
}

TEST_P(S3FaultCli, MultipartUploadsSurviveFailedPartsStartsAndCompletions) {
  // About 8 MB of random hex (32 bytes of entropy a row) in one data file:
  // at least two 5 MiB parts.
  std::string rows;
  uint64_t x = 88172645463325252ull;
  auto next = [&] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return static_cast<unsigned long long>(x);
  };
  const int64_t n = 250000;
  for (int64_t i = 0; i < n; ++i) {
    char hex[80];
    std::snprintf(hex, sizeof hex, "%016llx%016llx%016llx%016llx", next(), next(), next(), next());
    rows += "{\"id\":" + std::to_string(i) + ",\"s\":\"" + hex + "\"}\n";
  }
  WriteFile(dir_ / "big.jsonl", rows);
  const std::string part_size = " --catalog s3.multipart.part-size-bytes=5242880";
  proxy_->AddRule({.method = "POST",
                   .query = "uploads",
                   .action = FaultAction::kError,
                   .status = 500,
                   .times = 1});
  proxy_->AddRule(
      {.method = "PUT", .query = "partNumber=1", .action = FaultAction::kDropReply, .times = 1});
  proxy_->AddRule({.method = "PUT",
                   .query = "partNumber=2",
                   .action = FaultAction::kError,
                   .status = 503,
                   .times = 2});
  proxy_->AddRule(
      {.method = "POST", .query = "uploadId", .action = FaultAction::kDropReply, .times = 1});
  RunResult w = Floe("write --table db.t --input big.jsonl" + part_size);
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_GE(proxy_->ForwardedCount("PUT", "partNumber=2"), 1) << "no multipart upload happened";
  const auto c = proxy_->counters();
  EXPECT_EQ(c.dropped_replies, 2);
  EXPECT_EQ(c.errors, 3);
  Report("multipart faults");
  ExpectTable(IdRange(0, n), 1, "after a multipart upload under faults");
}

TEST_P(S3FaultCli, RandomFaultsNeverDuplicateRowsOrBreakTheTable) {
  // Every request may be dropped, answered 5xx, cut off, have its reply
  // lost or be slow (seeded: the run repeats for a given order of requests).
  // Rates high enough that some requests fail all their attempts: writes
  // then fail, some with an unknown outcome.
  proxy_->AddRule({.action = FaultAction::kDrop, .probability = 0.1});
  proxy_->AddRule({.action = FaultAction::kError, .status = 503, .probability = 0.1});
  proxy_->AddRule({.action = FaultAction::kError, .status = 500, .probability = 0.05});
  proxy_->AddRule({.method = "GET", .action = FaultAction::kResetMidBody, .probability = 0.1});
  proxy_->AddRule({.action = FaultAction::kDropReply, .probability = 0.12});
  proxy_->AddRule({.action = FaultAction::kDelay, .delay_ms = 50, .probability = 0.05});
  constexpr int kWrites = 16;
  std::set<int64_t> committed, unknown_ids;
  int ok = 0, failed = 0, unknown = 0;
  std::vector<std::set<int64_t>> unknown_writes;
  for (int w = 0; w < kWrites; ++w) {
    const int64_t from = 1000 * (w + 1), to = from + 1 + w % 3;
    RunResult r = Append(from, to);
    if (r.rc == 0) {
      ++ok;
      for (int64_t i = from; i < to; ++i) committed.insert(i);
    } else if (r.err.find("commit state unknown") != std::string::npos) {
      ++unknown;
      unknown_writes.push_back(IdRange(from, to));
    } else {
      ++failed;
    }
  }
  Report("random faults");
  std::cout << "[ info ] " << GetParam() << " random faults: " << ok << " writes committed, "
            << failed << " failed, " << unknown << " unknown\n";
  // Each committed write once; each unknown one whole or absent; nothing else.
  proxy_->ClearRules();
  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  std::set<int64_t> read = OnceEach(IdsOf(scan.out), "scan after random faults");
  std::set<int64_t> expected = committed;
  size_t landed_unknown = 0;
  for (const auto& ids : unknown_writes) {
    size_t present = 0;
    for (int64_t id : ids) present += read.contains(id);
    EXPECT_TRUE(present == 0 || present == ids.size()) << "an unknown write landed in part";
    if (present == ids.size()) {
      expected.insert(ids.begin(), ids.end());
      ++landed_unknown;
    }
  }
  EXPECT_EQ(read, expected);
  ExpectTable(expected, static_cast<size_t>(ok) + landed_unknown, "after random faults");
  EXPECT_GT(ok, 0) << "no write got through: the fault rate proves nothing";
}

INSTANTIATE_TEST_SUITE_P(Catalogs, S3FaultCli, testing::ValuesIn(kS3Catalogs),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace s3_fault_cli_test
