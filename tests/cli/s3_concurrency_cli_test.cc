// Concurrent commits on object storage (floe issue 10, proof 4): 4 `floe
// write` processes, started together, append 8 times each to ONE table
// whose warehouse is on the S3 test server, through the hadoop catalog
// (each metadata version published with If-None-Match: *, so two writers
// never both win a version) and the SQL catalog (SQLite; the warehouse on
// the store). Afterwards every write exited 0, `floe scan` and
// verify_table.mjs (from a mirror of the store) read every row exactly
// once, and `floe snapshots` is one line of parents: 32 snapshots, the ids
// the writes reported. The lost races are counted from the manifest lists'
// names (catalog_configs.h: SnapshotChain) and printed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/catalog_configs.h"
#include "cli/s3_cli_util.h"

namespace s3_concurrency_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

constexpr int kWriters = 4;
constexpr int kAppends = 8;

/// The id of row k of append i of writer p (unique across the test).
int64_t RowId(int p, int i, int k) { return int64_t{p} * 100000 + int64_t{i} * 10 + k; }
int RowsOf(int i) { return 1 + i % 3; }

class S3ConcurrencyCli : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_s3_concurrency_");
    auto s = S3TestServer::Start();
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = std::move(*s);
    catalog_ = S3CatalogArgs(GetParam(), *server_, dir_);
  }
  void TearDown() override {
    server_.reset();
    RemoveTestDirIfPassed(dir_);
  }
  RunResult Floe(const std::string& args) {
    return FloeRun(dir_, args + catalog_);
  }

  fs::path dir_;
  std::unique_ptr<S3TestServer> server_;
  std::string catalog_;
};

TEST_P(S3ConcurrencyCli, FourWritersAppendToOneTable) {
  WriteFile(dir_ / "empty.jsonl", "");
  RunResult create = Floe(
      "write --table db.t --schema 'id BIGINT NOT NULL, p INT, i INT' --input "
      "empty.jsonl --set commit.retry.num-retries=1000 "
      "--set commit.retry.min-wait-ms=1 --set commit.retry.max-wait-ms=50");
  ASSERT_EQ(create.rc, 0) << create.err;

  fs::create_directories(dir_ / "in");
  std::set<int64_t> ids;
  for (int p = 0; p < kWriters; ++p) {
    for (int i = 0; i < kAppends; ++i) {
      std::string rows;
      for (int k = 0; k < RowsOf(i); ++k) {
        rows += json{{"id", RowId(p, i, k)}, {"p", p}, {"i", i}}.dump() + "\n";
        ids.insert(RowId(p, i, k));
      }
      WriteFile(dir_ / "in" / (std::to_string(p) + "." + std::to_string(i) + ".jsonl"), rows);
    }
  }
  WriteFile(dir_ / "writer.sh",
            "p=$1; i=0\n"
            "while [ $i -lt " +
                std::to_string(kAppends) +
                " ]; do\n"
                "  if out=$(" +
                Shell(FLOE_BIN) + " write --table db.t --input in/$p.$i.jsonl" + catalog_ +
                " 2>>err.$p); then\n"
                "    echo \"ok $i $out\" >>log.$p\n"
                "  else\n"
                "    echo \"fail $i $?\" >>log.$p\n"
                "  fi\n"
                "  i=$((i + 1))\n"
                "done\n");
  std::vector<std::string> writers;
  for (int p = 0; p < kWriters; ++p) writers.push_back("sh writer.sh " + std::to_string(p));
  const auto start = std::chrono::steady_clock::now();
  RunResult run = RunIn(dir_, floe::test::ShellConcurrently(writers));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(run.rc, 0) << run.err;

  // Every write exited 0 and reported its snapshot.
  std::set<int64_t> reported;
  for (int p = 0; p < kWriters; ++p) {
    EXPECT_EQ(ReadFile(dir_ / ("err." + std::to_string(p))), "") << "stderr of writer " << p;
    std::istringstream log(ReadFile(dir_ / ("log." + std::to_string(p))));
    int lines = 0;
    for (std::string line; std::getline(log, line); ++lines) {
      std::istringstream ls(line);
      std::string word, rest;
      int i = -1;
      ls >> word >> i;
      std::getline(ls, rest);
      ASSERT_EQ(word, "ok") << "writer " << p << ": " << line;
      json summary = json::parse(rest);
      EXPECT_EQ(summary.at("rows"), RowsOf(i)) << line;
      reported.insert(summary.at("snapshot-id").get<int64_t>());
    }
    EXPECT_EQ(lines, kAppends) << "writer " << p;
  }
  EXPECT_EQ(reported.size(), static_cast<size_t>(kWriters * kAppends));

  // Every row exactly once, in floe and in the reference reader.
  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(OnceEach(IdsOf(scan.out), "scan"), ids);
  RunResult d = Floe("describe --table db.t");
  ASSERT_EQ(d.rc, 0) << d.err;
  RunResult v = VerifyFromMirror(dir_, *server_,
                                 json::parse(d.out).at("metadata-location").get<std::string>());
  ASSERT_EQ(v.rc, 0) << "verify_table.mjs: " << v.err;
  EXPECT_EQ(OnceEach(IdsOf(v.out), "verify_table.mjs"), ids);

  // One line of parents, one snapshot per write, those the writes reported.
  RunResult snaps = Floe("snapshots --table db.t");
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  const SnapshotChain chain = CheckSnapshotChain(snaps.out, GetParam());
  ASSERT_EQ(chain.by_sequence.size(), static_cast<size_t>(kWriters * kAppends));
  std::set<int64_t> chained;
  for (const auto& s : chain.by_sequence) chained.insert(s.at("snapshot-id").get<int64_t>());
  EXPECT_EQ(chained, reported) << "the snapshots are not those the writes reported";
  if (GetParam() == "hadoop") {
    // One version file per commit (and the first): no version was written
    // twice, none skipped.
    std::set<std::string> versions;
    for (const auto& k : StoreKeys(*server_, "wh/db/t/metadata/v")) {
      if (k.ends_with(".metadata.json")) versions.insert(k);
    }
    EXPECT_EQ(versions.size(), static_cast<size_t>(kWriters * kAppends + 1));
  }
  std::cout << "[ info ] s3 " << GetParam() << ": " << kWriters << " writers x " << kAppends
            << " appends in " << seconds << " s: " << chain.attempts << " commit attempts, "
            << chain.retries() << " retries (lost races), at most " << chain.max_attempts
            << " attempts for one commit\n";
  RecordProperty("retries", chain.retries());
  // 4 writers on one table must have raced; otherwise the test proved nothing.
  EXPECT_GT(chain.retries(), 0) << "no commit lost a race";
}

INSTANTIATE_TEST_SUITE_P(Catalogs, S3ConcurrencyCli, testing::ValuesIn(kS3Catalogs),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace s3_concurrency_cli_test
