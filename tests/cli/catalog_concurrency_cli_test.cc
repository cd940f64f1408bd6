// Concurrent commits through every catalog configuration (catalog_configs.h):
// 8 `floe write` processes, started together, append 25 times each (one tiny
// JSONL file per append, distinct ids) to ONE table. Afterwards every write
// exited 0, `floe scan` (and verify_table.mjs, the spec-only reference
// reader) reads every written row exactly once, and `floe
// snapshots` is one line of parents with no gap: 200 snapshots, the ids the
// writes reported. The lost races are counted from the manifest lists' names
// (a commit's winning list carries its attempt number: SnapshotChain) and
// printed per catalog.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/catalog_configs.h"
#include "testing/scale.h"

namespace catalog_concurrency_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

constexpr int kWriters = 8;
/// Appends per writer: 25, or fewer under FLOE_TEST_SCALE (the sanitizer runs
/// of ./scripts/test), but at least 10: 8 writers x 10 appends still race.
const int kAppends = static_cast<int>(floe::test::Scaled(25, 10));

/// The id of row k of append i of writer p (unique across the test).
int64_t RowId(int p, int i, int k) { return int64_t{p} * 100000 + int64_t{i} * 10 + k; }
/// Rows per append: 1, 2 or 3.
int RowsOf(int i) { return 1 + i % 3; }

class CatalogConcurrencyCli : public testing::TestWithParam<CatalogConfig> {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_catalog_concurrency_");
    auto started = GetParam().start(dir_);
    ASSERT_TRUE(started) << started.error().message;
    catalog_ = *started;
  }
  void TearDown() override {
    catalog_ = {};
    RemoveTestDirIfPassed(dir_);
  }

  RunResult Floe(const std::string& args) {
    return FloeRun(dir_, args + catalog_.args);
  }

  fs::path dir_;
  StartedCatalog catalog_;
};

TEST_P(CatalogConcurrencyCli, EightWritersAppend25TimesEachToOneTable) {
  // The table, with no snapshot yet, and retries enough for 8 writers: every
  // lost race retries after 1..50 ms, so 1000 retries always get through.
  WriteFile(dir_ / "empty.jsonl", "");
  RunResult create = Floe(
      "write --table db.t --schema 'id BIGINT NOT NULL, p INT, i INT' --input empty.jsonl "
      "--set commit.retry.num-retries=1000 --set commit.retry.min-wait-ms=1 "
      "--set commit.retry.max-wait-ms=50");
  ASSERT_EQ(create.rc, 0) << create.err;

  // One input file per append; writer p's script appends them in order and
  // logs "ok I <summary>" or "fail I <rc>".
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
                Shell(FLOE_BIN) + " write --table db.t --input in/$p.$i.jsonl" + catalog_.args +
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

  // Every row exactly once.
  RunResult scan = Floe("scan --table db.t");
  ASSERT_EQ(scan.rc, 0) << scan.err;
  std::map<int64_t, int> seen;
  std::istringstream rows(scan.out);
  for (std::string line; std::getline(rows, line);) {
    json row = json::parse(line);
    const int64_t id = row.at("id").get<int64_t>();
    EXPECT_EQ(row.at("p"), id / 100000) << line;
    EXPECT_EQ(row.at("i"), id % 100000 / 10) << line;
    ++seen[id];
  }
  std::set<int64_t> read;
  for (const auto& [id, n] : seen) {
    EXPECT_EQ(n, 1) << "id " << id << " read " << n << " times";
    read.insert(id);
  }
  EXPECT_EQ(read, ids);
  // The same rows in the spec-only reference reader, from the metadata file
  // the catalog names.
  RunResult d = Floe("describe --table db.t");
  ASSERT_EQ(d.rc, 0) << d.err;
  std::string metadata = json::parse(d.out).at("metadata-location").get<std::string>();
  if (metadata.starts_with("file:")) metadata = metadata.substr(5);
  RunResult v = Node(dir_, "verify_table.mjs", {metadata, "--strict"});
  ASSERT_EQ(v.rc, 0) << "verify_table.mjs: " << v.err;
  std::set<int64_t> verified;
  std::istringstream vrows(v.out);
  for (std::string line; std::getline(vrows, line);) {
    EXPECT_TRUE(verified.insert(json::parse(line).at("id").get<int64_t>()).second) << line;
  }
  EXPECT_EQ(verified, ids) << "verify_table.mjs reads other rows";

  // One line of parents, 200 snapshots, those the writes reported.
  RunResult snaps = Floe("snapshots --table db.t");
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  const SnapshotChain chain = CheckSnapshotChain(snaps.out, GetParam().name);
  ASSERT_EQ(chain.by_sequence.size(), static_cast<size_t>(kWriters * kAppends));
  std::set<int64_t> chained;
  for (const auto& s : chain.by_sequence) chained.insert(s.at("snapshot-id").get<int64_t>());
  EXPECT_EQ(chained, reported) << "the snapshots are not those the writes reported";
  EXPECT_EQ(chain.by_sequence.back().at("summary").at("total-records"), std::to_string(ids.size()));

  std::cout << "[ info ] catalog " << GetParam().name << ": " << kWriters << " writers x "
            << kAppends << " appends in " << seconds << " s: " << chain.attempts
            << " commit attempts, " << chain.retries() << " retries (lost races), at most "
            << chain.max_attempts << " attempts for one commit\n";
  RecordProperty("attempts", chain.attempts);
  RecordProperty("retries", chain.retries());
  // 8 writers on one table must have raced; otherwise the test proved nothing.
  EXPECT_GT(chain.retries(), 0) << "no commit lost a race";
}

INSTANTIATE_TEST_SUITE_P(Catalogs, CatalogConcurrencyCli, testing::ValuesIn(CatalogConfigs()),
                         [](const testing::TestParamInfo<CatalogConfig>& info) {
                           return info.param.name;
                         });

}  // namespace catalog_concurrency_cli_test
