// kill -9 trials of commits through every catalog configuration
// (catalog_configs.h). In each trial two `floe write` processes append to the
// same table at once: a victim run with FLOE_CRASH_AT=<point>[:2] (a random
// crash point of its catalog's commit path, util/crash_point.h; ":2" dies on
// the second pass, i.e. in a retry after a lost race, and is not always
// reached) and a companion with no crash point. After each trial:
//   - the companion exited 0, the victim exited 0 or was killed by SIGKILL;
//   - the table loads (`floe describe`) and `floe scan` reads exactly the rows
//     of the writes that exited 0 so far, each once, plus a killed write's
//     rows, all of them once, when it died after the publish (AfterPublish),
//     none of them when it died before: all or nothing, never twice;
// and after each batch of trials on one table, `floe snapshots` is one line
// of parents with no gap, one snapshot per landed write, and `floe
// remove-orphans` takes away the killed writes' debris without changing the
// history or the rows (the last table is also read by verify_table.mjs, the
// spec-only reference reader, from the metadata file the catalog names). Trials run until at
// least kKills victims were killed per configuration; the totals are printed.
// FLOE_CATALOG_CRASH_SEED=N replays another random sequence.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/catalog_configs.h"
#include "testing/scale.h"

namespace catalog_crash_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

// Kills per configuration, at least: 100, or fewer under FLOE_TEST_SCALE (the
// sanitizer runs of ./scripts/test), but at least 10.
const int kKills = static_cast<int>(floe::test::Scaled(100, 10));
constexpr int kMaxTrials = 250;  // a bound, should the points stop being reached
constexpr int kTrialsPerTable = 25;

class CatalogCrashCli : public testing::TestWithParam<CatalogConfig> {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_catalog_crash_");
    auto started = GetParam().start(dir_);
    ASSERT_TRUE(started) << started.error().message;
    catalog_ = *started;
  }
  void TearDown() override {
    catalog_ = {};
    RemoveTestDirIfPassed(dir_);
  }

  std::string FloeCmd(const std::string& args) {
    return Shell(FLOE_BIN) + " " + args + catalog_.args;
  }
  RunResult Floe(const std::string& args) { return RunIn(dir_, FloeCmd(args)); }
  /// A command that only reads or tidies the table (scan, snapshots,
  /// describe, remove-orphans): in-process (cli_util.h FloeIn), no process
  /// start. The writes that are killed stay processes.
  RunResult FloeRead(const std::string& args) { return FloeIn(dir_, ShellWords(args + catalog_.args)); }

  /// The ids `floe scan` reads from `table`, with how often each was read.
  std::map<int64_t, int> ScanIds(const std::string& table, const std::string& what) {
    std::map<int64_t, int> seen;
    RunResult scan = FloeRead("scan --table " + table);
    EXPECT_EQ(scan.rc, 0) << what << ": floe scan failed: " << scan.err;
    std::istringstream in(scan.out);
    for (std::string line; std::getline(in, line);) {
      auto row = json::parse(line, nullptr, false);
      if (row.is_discarded() || !row.contains("id")) {
        ADD_FAILURE() << what << ": floe scan printed " << line;
        continue;
      }
      ++seen[row["id"].get<int64_t>()];
    }
    return seen;
  }

  fs::path dir_;
  StartedCatalog catalog_;
};

struct Totals {
  int trials = 0, kills = 0, kills_after_publish = 0, not_reached = 0, tables = 0, snapshots = 0;
  int orphans = 0;  ///< files remove-orphans took away (the killed writes' debris)
  std::map<std::string, int> kills_by_point;
};

TEST_P(CatalogCrashCli, KilledCommitsLandAllOrNothing) {
  const CatalogConfig& config = GetParam();
  uint64_t seed = 20261201;
  if (const char* s = std::getenv("FLOE_CATALOG_CRASH_SEED"); s && *s)
    seed = std::strtoull(s, nullptr, 10);
  std::mt19937_64 rng(seed + std::hash<std::string>{}(config.name));
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const auto start = std::chrono::steady_clock::now();

  Totals totals;
  std::string table;
  std::set<int64_t> landed;  // ids the current table must hold
  int landed_writes = 0;     // writes that landed on the current table
  // After a table's batch: the chain; then what the killed writes left
  // (files no snapshot references) is removed by `floe remove-orphans`, and
  // the table reads the same afterwards, in floe and (for the last table) in
  // the spec-only reference reader.
  auto check_table = [&](bool last) {
    const std::string what = config.name + " " + table;
    RunResult snaps = FloeRead("snapshots --table " + table);
    ASSERT_EQ(snaps.rc, 0) << snaps.err;
    const SnapshotChain chain = CheckSnapshotChain(snaps.out, what);
    EXPECT_EQ(chain.by_sequence.size(), static_cast<size_t>(landed_writes))
        << what << ": one snapshot per write that landed";
    totals.snapshots += static_cast<int>(chain.by_sequence.size());

    const int64_t future_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count() +
                              3600 * 1000;
    RunResult orphans =
        FloeRead("remove-orphans --table " + table + " --older-than " + std::to_string(future_ms));
    ASSERT_EQ(orphans.rc, 0) << what << ": " << orphans.err;
    auto removed = json::parse(orphans.out, nullptr, false);
    ASSERT_FALSE(removed.is_discarded()) << orphans.out;
    totals.orphans += static_cast<int>(removed.at("orphan-files").size());
    EXPECT_EQ(FloeRead("snapshots --table " + table).out, snaps.out)
        << what << ": remove-orphans changed the history";
    std::set<int64_t> read;
    for (const auto& [id, n] : ScanIds(table, what + " after remove-orphans")) {
      EXPECT_EQ(n, 1) << what << ": id " << id << " read " << n << " times after remove-orphans";
      read.insert(id);
    }
    EXPECT_EQ(read, landed) << what << ": remove-orphans changed the rows";
    if (!last) return;
    RunResult d = FloeRead("describe --table " + table);
    ASSERT_EQ(d.rc, 0) << d.err;
    std::string metadata = json::parse(d.out).at("metadata-location").get<std::string>();
    if (metadata.starts_with("file:")) metadata = metadata.substr(5);
    RunResult v = Node(dir_, "verify_table.mjs", {metadata, "--strict"});
    ASSERT_EQ(v.rc, 0) << what << ": verify_table.mjs: " << v.err;
    std::set<int64_t> verified;
    std::istringstream in(v.out);
    for (std::string line; std::getline(in, line);) {
      EXPECT_TRUE(verified.insert(json::parse(line).at("id").get<int64_t>()).second) << line;
    }
    EXPECT_EQ(verified, landed) << what << ": verify_table.mjs reads other rows";
  };
  WriteFile(dir_ / "empty.jsonl", "");
  int64_t next_id = 1;
  // Ids of one write: 1..3 rows.
  auto rows_of = [&](const std::string& file) {
    std::vector<int64_t> ids;
    std::string text;
    for (size_t k = 0, n = 1 + pick(3); k < n; ++k) {
      ids.push_back(next_id);
      text += json{{"id", next_id}, {"s", "row " + std::to_string(next_id)}}.dump() + "\n";
      ++next_id;
    }
    WriteFile(dir_ / file, text);
    return ids;
  };

  for (int t = 0; totals.kills < kKills && t < kMaxTrials; ++t) {
    if (t % kTrialsPerTable == 0) {
      if (!table.empty()) check_table(false);
      table = "db.t" + std::to_string(totals.tables++);
      RunResult create = Floe("write --table " + table +
                              " --schema 'id BIGINT NOT NULL, s STRING' --input empty.jsonl "
                              "--set commit.retry.num-retries=100 --set commit.retry.min-wait-ms=1 "
                              "--set commit.retry.max-wait-ms=20");
      ASSERT_EQ(create.rc, 0) << create.err;
      landed.clear();
      landed_writes = 0;
    }
    // The first trials kill each point once, on the first pass (always
    // reached), so that every point is tried however few trials run; then
    // random points, a quarter of them on the second pass.
    const bool in_order = static_cast<size_t>(t) < config.crash_points.size();
    const std::string point = in_order ? config.crash_points[static_cast<size_t>(t)]
                                       : config.crash_points[pick(config.crash_points.size())];
    const int nth = !in_order && pick(4) == 0 ? 2 : 1;
    const std::string crash_at = point + (nth > 1 ? ":" + std::to_string(nth) : "");
    const std::string what = config.name + " trial " + std::to_string(t) + " (" + table +
                             ", FLOE_CRASH_AT=" + crash_at + ", seed " + std::to_string(seed) + ")";
    const std::vector<int64_t> victim = rows_of("victim.jsonl");
    const std::vector<int64_t> companion = rows_of("companion.jsonl");
    RunResult run =
        RunIn(dir_, floe::test::ShellConcurrently(
                        {"FLOE_CRASH_AT=" + crash_at + " " +
                             FloeCmd("write --table " + table + " --input victim.jsonl") +
                             " >victim.out 2>victim.err; echo $? >victim.rc",
                         "unset FLOE_CRASH_AT; " +
                             FloeCmd("write --table " + table + " --input companion.jsonl") +
                             " >companion.out 2>companion.err; echo $? >companion.rc"}));
    ASSERT_EQ(run.rc, 0) << what << ": " << run.err;
    ++totals.trials;
    const int victim_rc = std::atoi(ReadFile(dir_ / "victim.rc").c_str());
    const int companion_rc = std::atoi(ReadFile(dir_ / "companion.rc").c_str());
    ASSERT_EQ(companion_rc, 0) << what << ": the companion write failed: "
                               << ReadFile(dir_ / "companion.err");
    landed.insert(companion.begin(), companion.end());
    ++landed_writes;
    bool victim_landed = false;
    if (victim_rc == 128 + 9) {
      ++totals.kills;
      ++totals.kills_by_point[point];
      victim_landed = AfterPublish(point);
      totals.kills_after_publish += victim_landed ? 1 : 0;
    } else {
      ASSERT_EQ(victim_rc, 0) << what << ": the victim neither committed nor was killed: "
                              << ReadFile(dir_ / "victim.err");
      ++totals.not_reached;
      victim_landed = true;
    }
    if (victim_landed) {
      landed.insert(victim.begin(), victim.end());
      ++landed_writes;
    }

    RunResult describe = FloeRead("describe --table " + table);
    ASSERT_EQ(describe.rc, 0) << what << ": the table does not load: " << describe.err;
    const std::map<int64_t, int> seen = ScanIds(table, what);
    std::set<int64_t> read;
    for (const auto& [id, n] : seen) {
      EXPECT_EQ(n, 1) << what << ": id " << id << " read " << n << " times";
      read.insert(id);
    }
    if (read != landed) {
      std::string victim_ids;
      for (int64_t id : victim)
        victim_ids += " " + std::to_string(id) + (read.contains(id) ? "(read)" : "");
      ADD_FAILURE() << what << ": the table holds " << read.size() << " rows, expected "
                    << landed.size() << "; the victim "
                    << (victim_rc == 0 ? "exited 0" : "was killed") << ", its ids:" << victim_ids;
      return;  // the rest of the trials would only repeat the difference
    }
  }
  check_table(true);

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string by_point;
  for (const auto& [p, n] : totals.kills_by_point) by_point += " " + p + "=" + std::to_string(n);
  std::cout << "[ info ] catalog " << config.name << ": " << totals.trials << " trials on "
            << totals.tables << " tables in " << seconds << " s, " << totals.kills << " kill -9 ("
            << totals.kills_after_publish << " after the publish), " << totals.not_reached
            << " crash points not reached (the victim committed), " << totals.snapshots
            << " snapshots, " << totals.orphans
            << " orphan files removed; kills by point:" << by_point << "\n";
  RecordProperty("kills", totals.kills);
  EXPECT_GE(totals.kills, kKills) << "too few crash points were reached";
  // Kills before the publish leave files behind (a data file at least).
  EXPECT_GT(totals.orphans, 0) << "remove-orphans found nothing the killed writes left";
  // Every point of the commit path was tried.
  for (const auto& p : config.crash_points)
    EXPECT_TRUE(totals.kills_by_point.contains(p)) << "no kill at " << p;
}

INSTANTIATE_TEST_SUITE_P(Catalogs, CatalogCrashCli, testing::ValuesIn(CatalogConfigs()),
                         [](const testing::TestParamInfo<CatalogConfig>& info) {
                           return info.param.name;
                         });

}  // namespace catalog_crash_cli_test
