// End-to-end commit safety of `floe write` on a hadoop-catalog table, driven
// as users run it (issue 3):
// - two processes append at once, 200 `floe write` runs each, into one table:
//   every row is read back exactly once (floe scan and verify_table.mjs, the
//   spec-only reference reader), metadata versions v1..v401 have no gap,
//   snapshots, sequence numbers and `total-records` agree, version-hint.text
//   names the newest version, and no temporary or orphan file is left;
// - writes that lose the race with `commit.retry.num-retries=0` fail and
//   publish nothing: no data file, no partition folder, no manifest;
// - a failed write (a bad row after several data files were rolled,
//   partitioned or not, one thread or two; an unknown option; an unknown
//   column; a failed first write) leaves the table folder exactly as it was,
//   folders included;
// - two first writes racing to create a table both append to it, and a
//   failed first write does not drop a table another writer committed to.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "testing/scale.h"

namespace concurrency_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

const char* kSchema = "id BIGINT NOT NULL, p INT, i INT, s STRING";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::string SortedLines(const std::string& text) {
  auto lines = Lines(text);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

/// Every path under `dir` (files and folders, hidden ones included), relative.
std::set<std::string> Tree(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out.insert(fs::relative(e.path(), dir).string() + (e.is_directory() ? "/" : ""));
  }
  return out;
}

/// Names in `dir` (not recursive).
std::set<std::string> Names(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

/// The id of row k of commit i of writer process p (unique across the test).
int64_t RowId(int p, int i, int k) { return int64_t{p} * 1000000 + int64_t{i} * 10 + k; }
/// Rows per commit: 1, 2 or 3.
int RowsOf(int i) { return 1 + i % 3; }

class ConcurrencyCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_concurrency_");
    // The writer loop: `sh writer.sh P FIRST COUNT TABLE` runs COUNT `floe
    // write` commands (commits FIRST.. FIRST+COUNT-1 of process P), each with
    // RowsOf(i) rows on stdin, and logs "ok I <summary>" or "fail I <rc>".
    WriteFile(dir_ / "writer.sh",
              "p=$1; i=$2; end=$(($2 + $3)); table=$4\n"
              "while [ $i -lt $end ]; do\n"
              "  n=$((1 + i % 3)); k=0; rows=''\n"
              "  while [ $k -lt $n ]; do\n"
              "    rows=\"$rows$(printf '{\"id\":%d,\"p\":%d,\"i\":%d,\"s\":\"p%d-i%d-k%d\"}' "
              "$((p * 1000000 + i * 10 + k)) $p $i $p $i $k)\n\"\n"
              "    k=$((k + 1))\n"
              "  done\n"
              "  if out=$(printf '%s' \"$rows\" | " + Shell(FLOE_BIN) +
                  " write --table \"$table\" --input - 2>>err.$p); then\n"
              "    echo \"ok $i $out\" >>log.$p\n"
              "  else\n"
              "    echo \"fail $i $?\" >>log.$p\n"
              "  fi\n"
              "  i=$((i + 1))\n"
              "done\n");
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Sh(const std::string& cmd) {
    return RunIn(dir_, cmd);
  }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  /// Creates `table` (no snapshot) with quick commit retries and `sets`.
  void CreateTable(const std::string& table, const std::string& sets) {
    WriteFile(dir_ / "empty.jsonl", "");
    RunResult r = Floe("write --table " + table + " --schema " + Shell(kSchema) + " --input empty.jsonl " + sets);
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_NE(r.out.find("\"snapshot-id\":null"), std::string::npos) << r.out;
  }

  /// Runs writer.sh for each process at once, commits first..first+count-1
  /// (plus p * `spread` for process p); returns the wall time in seconds.
  double RunWriters(int processes, int first, int count, const std::string& table, int spread = 0) {
    std::vector<std::string> writers;
    for (int p = 0; p < processes; ++p) {
      writers.push_back("sh writer.sh " + std::to_string(p) + " " +
                        std::to_string(first + p * spread) + " " + std::to_string(count) + " " +
                        table);
    }
    auto start = std::chrono::steady_clock::now();
    RunResult r = Sh(floe::test::ShellConcurrently(writers));
    EXPECT_EQ(r.rc, 0) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// The log lines of process p: commit number -> ("ok" summary | "fail" rc).
  std::map<int, std::pair<bool, std::string>> Log(int p) {
    std::map<int, std::pair<bool, std::string>> out;
    for (const auto& line : Lines(ReadFile(dir_ / ("log." + std::to_string(p))))) {
      std::stringstream ss(line);
      std::string word, rest;
      int i = -1;
      ss >> word >> i;
      std::getline(ss, rest);
      EXPECT_TRUE(word == "ok" || word == "fail") << line;
      EXPECT_FALSE(out.contains(i)) << "commit " << i << " logged twice: " << line;
      out[i] = {word == "ok", rest.empty() ? rest : rest.substr(1)};
    }
    return out;
  }

  /// floe scan's rows of `table` must be exactly `ids` (with the p, i, s each
  /// id was written with), and verify_table.mjs must read the same rows.
  void ExpectRows(const std::string& table, const fs::path& table_dir, const std::set<int64_t>& ids,
                  bool oracle = true) {
    RunResult s = Floe("scan --table " + table);
    ASSERT_EQ(s.rc, 0) << s.err;
    std::map<int64_t, int> seen;
    for (const auto& line : Lines(s.out)) {
      json row = json::parse(line);
      int64_t id = row.at("id").get<int64_t>();
      int p = static_cast<int>(id / 1000000), i = static_cast<int>(id % 1000000 / 10), k = static_cast<int>(id % 10);
      EXPECT_EQ(row.at("p"), p) << line;
      EXPECT_EQ(row.at("i"), i) << line;
      EXPECT_EQ(row.at("s"), "p" + std::to_string(p) + "-i" + std::to_string(i) + "-k" + std::to_string(k)) << line;
      EXPECT_TRUE(ids.contains(id)) << "row not written by a successful commit: " << line;
      ++seen[id];
    }
    for (auto [id, n] : seen) EXPECT_EQ(n, 1) << "id " << id << " read " << n << " times";
    EXPECT_EQ(seen.size(), ids.size());
    if (!oracle) return;
    RunResult v = Node(dir_, "verify_table.mjs", {table_dir.string(), "--strict"});
    ASSERT_EQ(v.rc, 0) << v.err;
    EXPECT_EQ(v.out, SortedLines(s.out)) << "verify_table.mjs and floe scan disagree";
  }

  fs::path dir_;
};

// Metadata checks shared by the concurrency tests: versions v1..v<last> with
// no gap, each version one snapshot more than the one before, the snapshot
// chain and sequence numbers, `total-records`, and the files of the metadata
// folder (no temporary file, no manifest or manifest list of a lost attempt).
void ExpectConsistentMetadata(const fs::path& table_dir, int commits, int64_t total_rows,
                              const std::set<int64_t>& reported_snapshot_ids) {
  const fs::path md = table_dir / "metadata";
  const int last = commits + 1;
  std::set<std::string> expected_names = {"version-hint.text"};
  for (int v = 1; v <= last; ++v) expected_names.insert("v" + std::to_string(v) + ".metadata.json");
  EXPECT_EQ(ReadFile(md / "version-hint.text"), std::to_string(last));
  // Each version holds one snapshot more than the one before, and time never
  // goes back (last-updated-ms, PITFALLS 56).
  int64_t updated = 0;
  for (int v = 1; v <= last; ++v) {
    json m = json::parse(ReadFile(md / ("v" + std::to_string(v) + ".metadata.json")));
    EXPECT_EQ(m.at("last-sequence-number").get<int64_t>(), v - 1) << "v" << v;
    EXPECT_EQ(m.contains("snapshots") ? m.at("snapshots").size() : 0u, static_cast<size_t>(v - 1)) << "v" << v;
    EXPECT_GE(m.at("last-updated-ms").get<int64_t>(), updated) << "v" << v;
    updated = m.at("last-updated-ms").get<int64_t>();
  }
  json m = json::parse(ReadFile(md / ("v" + std::to_string(last) + ".metadata.json")));
  std::map<int64_t, json> by_seq;
  for (const auto& s : m.at("snapshots")) {
    int64_t seq = s.at("sequence-number").get<int64_t>();
    EXPECT_FALSE(by_seq.contains(seq)) << "sequence number " << seq << " twice";
    by_seq[seq] = s;
  }
  ASSERT_EQ(by_seq.size(), static_cast<size_t>(commits));
  EXPECT_EQ(by_seq.begin()->first, 1);
  EXPECT_EQ(by_seq.rbegin()->first, commits);
  std::set<int64_t> ids;
  int64_t total = 0, prev_id = 0, prev_ts = 0;
  std::set<std::string> lists;
  for (const auto& [seq, s] : by_seq) {
    const int64_t id = s.at("snapshot-id").get<int64_t>();
    ids.insert(id);
    if (seq == 1) {
      EXPECT_FALSE(s.contains("parent-snapshot-id"));
    } else {
      EXPECT_EQ(s.at("parent-snapshot-id").get<int64_t>(), prev_id) << "snapshot of sequence " << seq;
    }
    EXPECT_GE(s.at("timestamp-ms").get<int64_t>(), prev_ts);
    const json& sum = s.at("summary");
    EXPECT_EQ(sum.at("operation"), "append");
    EXPECT_EQ(sum.at("added-data-files"), "1");
    total += std::stoll(sum.at("added-records").get<std::string>());
    EXPECT_EQ(sum.at("total-records"), std::to_string(total)) << "snapshot of sequence " << seq;
    EXPECT_EQ(sum.at("total-data-files"), std::to_string(seq));
    std::string list = s.at("manifest-list").get<std::string>();
    lists.insert(fs::path(list).filename().string());
    prev_id = id;
    prev_ts = s.at("timestamp-ms").get<int64_t>();
  }
  EXPECT_EQ(total, total_rows);
  EXPECT_EQ(ids, reported_snapshot_ids) << "the snapshots are not those the writes reported";
  EXPECT_EQ(m.at("current-snapshot-id").get<int64_t>(), prev_id);
  EXPECT_EQ(m.at("refs").at("main").at("snapshot-id").get<int64_t>(), prev_id);
  const json& snapshot_log = m.at("snapshot-log");
  ASSERT_EQ(snapshot_log.size(), static_cast<size_t>(commits));
  for (size_t j = 0; j < snapshot_log.size(); ++j) {
    // The log follows the chain: entry j is the snapshot of sequence j + 1.
    EXPECT_EQ(snapshot_log[j].at("snapshot-id"), by_seq.at(static_cast<int64_t>(j) + 1).at("snapshot-id"));
    if (j > 0) {
      EXPECT_GE(snapshot_log[j].at("timestamp-ms"), snapshot_log[j - 1].at("timestamp-ms"));
    }
  }
  EXPECT_LE(snapshot_log.back().at("timestamp-ms").get<int64_t>(), m.at("last-updated-ms").get<int64_t>());
  // metadata-log: the previous versions, ascending, newest last (up to 100 kept).
  const json& log = m.at("metadata-log");
  ASSERT_EQ(log.size(), static_cast<size_t>(std::min(commits, 100)));
  for (size_t j = 0; j < log.size(); ++j) {
    int v = last - static_cast<int>(log.size()) + static_cast<int>(j);
    EXPECT_TRUE(log[j].at("metadata-file").get<std::string>().ends_with("/v" + std::to_string(v) + ".metadata.json"))
        << log[j].dump();
  }
  // The folder: versions, the hint, one manifest list per snapshot and one
  // manifest per commit; nothing else (no temporary file, no lost attempt's list).
  int manifests = 0;
  for (const std::string& name : Names(md)) {
    if (expected_names.contains(name)) continue;
    if (name.starts_with("snap-") && name.ends_with(".avro")) {
      EXPECT_TRUE(lists.contains(name)) << "manifest list of no snapshot: " << name;
    } else if (name.ends_with("-m0.avro")) {
      ++manifests;
    } else {
      ADD_FAILURE() << "unexpected file in the metadata folder: " << name;
    }
  }
  for (const auto& n : expected_names) EXPECT_TRUE(fs::exists(md / n)) << n;
  EXPECT_EQ(manifests, commits);
  EXPECT_EQ(lists.size(), static_cast<size_t>(commits));
}

TEST_F(ConcurrencyCli, TwoProcessesAppend200CommitsEach) {
  // FLOE_TEST_SCALE (testing/scale.h): fewer commits under the sanitizers,
  // but not so few that the writers never meet (20 each did not race once in
  // the asan run, and the test insists that they race).
  const int kCommits = static_cast<int>(floe::test::Scaled(200, 100));
  CreateTable("db.t",
              "--set commit.retry.num-retries=1000 --set commit.retry.min-wait-ms=1 "
              "--set commit.retry.max-wait-ms=50");
  const double seconds = RunWriters(2, 0, kCommits, "db.t");
  std::cout << "[ timing ] 2 processes x " << kCommits << " floe write commits: " << seconds << " s\n";
  RecordProperty("seconds", std::to_string(seconds));

  std::set<int64_t> ids, snapshot_ids, seqs;
  int64_t rows = 0;
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(ReadFile(dir_ / ("err." + std::to_string(p))), "") << "stderr of writer " << p;
    auto log = Log(p);
    ASSERT_EQ(log.size(), static_cast<size_t>(kCommits)) << "writer " << p;
    for (const auto& [i, entry] : log) {
      ASSERT_TRUE(entry.first) << "writer " << p << " commit " << i << " failed: rc " << entry.second;
      json summary = json::parse(entry.second);
      EXPECT_EQ(summary.at("rows"), RowsOf(i));
      snapshot_ids.insert(summary.at("snapshot-id").get<int64_t>());
      seqs.insert(summary.at("sequence-number").get<int64_t>());
      for (int k = 0; k < RowsOf(i); ++k) ids.insert(RowId(p, i, k));
      rows += RowsOf(i);
    }
  }
  EXPECT_EQ(snapshot_ids.size(), 2u * kCommits);
  ASSERT_EQ(seqs.size(), 2u * kCommits) << "two writes reported the same sequence number";
  EXPECT_EQ(*seqs.begin(), 1);
  EXPECT_EQ(*seqs.rbegin(), 2 * kCommits);

  const fs::path table_dir = dir_ / "warehouse/db/t";
  ExpectConsistentMetadata(table_dir, 2 * kCommits, rows, snapshot_ids);
  // The writers did race: manifest lists are named snap-<id>-<attempt>-<uuid>.avro.
  int retried = 0, max_attempt = 0;
  for (const std::string& name : Names(table_dir / "metadata")) {
    if (!name.starts_with("snap-")) continue;
    size_t a = name.find('-', 5) + 1;
    int attempt = std::stoi(name.substr(a, name.find('-', a) - a));
    retried += attempt > 1 ? 1 : 0;
    max_attempt = std::max(max_attempt, attempt);
  }
  std::cout << "[ info ] " << retried << " of " << 2 * kCommits << " commits lost a race and retried (at most "
            << max_attempt << " attempts)\n";
  EXPECT_GT(retried, 0) << "the two writers never raced: the test proved nothing about concurrency";
  // One data file per commit, nothing hidden.
  auto data = Names(table_dir / "data");
  EXPECT_EQ(data.size(), 2u * kCommits);
  for (const auto& n : data) EXPECT_TRUE(!n.starts_with(".") && n.ends_with(".parquet")) << n;
  ExpectRows("db.t", table_dir, ids);
}

TEST_F(ConcurrencyCli, LostRacesWithoutRetriesPublishNothing) {
  // Partitioned by the commit number, so every write makes its own partition
  // folder (process 1 numbers its commits from 1000); with no retries a write
  // that loses the race fails and must take its data file, its folder and its
  // manifest with it.
  CreateTable("db.r", "--set commit.retry.num-retries=0 --set partition_fields=i");
  constexpr int kPerRound = 30;
  // Rounds until some write lost a race (nearly always the first).
  int failures = 0, round = 0;
  auto lost = [&] {
    int n = 0;
    for (int p = 0; p < 2; ++p) {
      for (const auto& [i, entry] : Log(p)) n += entry.first ? 0 : 1;
    }
    return n;
  };
  for (; round < 6 && lost() == 0; ++round) RunWriters(2, round * kPerRound, kPerRound, "db.r", 1000);
  std::set<int64_t> ids, snapshot_ids;
  std::set<std::string> ok_folders;
  int64_t rows = 0;
  int commits = 0;
  for (int p = 0; p < 2; ++p) {
    auto log = Log(p);
    ASSERT_EQ(log.size(), static_cast<size_t>(round * kPerRound));
    for (const auto& [i, entry] : log) {
      if (!entry.first) {
        ++failures;
        continue;
      }
      json summary = json::parse(entry.second);
      snapshot_ids.insert(summary.at("snapshot-id").get<int64_t>());
      for (int k = 0; k < RowsOf(i); ++k) ids.insert(RowId(p, i, k));
      rows += RowsOf(i);
      ++commits;
    }
  }
  for (int p = 0; p < 2; ++p) {
    for (const auto& [i, entry] : Log(p)) {
      if (entry.first) ok_folders.insert("i=" + std::to_string(i));
    }
  }
  std::cout << "[ info ] " << failures << " of " << 2 * round * kPerRound << " writes lost the race\n";
  // Every failure is a lost race, reported as such.
  const std::string err = ReadFile(dir_ / "err.0") + ReadFile(dir_ / "err.1");
  for (const auto& line : Lines(err)) {
    EXPECT_TRUE(line.find("was committed by another writer") != std::string::npos ||
                line.find("changed: version") != std::string::npos)
        << line;
  }
  EXPECT_EQ(static_cast<int>(Lines(err).size()), failures);
  EXPECT_GT(failures, 0) << "no write lost a race in " << round << " rounds: the test proved nothing about them";

  const fs::path table_dir = dir_ / "warehouse/db/r";
  ExpectConsistentMetadata(table_dir, commits, rows, snapshot_ids);
  // data/: one folder per partition some write committed, no empty folder,
  // one data file per successful commit, nothing hidden.
  EXPECT_EQ(Names(table_dir / "data"), ok_folders);
  size_t files = 0;
  for (const auto& folder : ok_folders) {
    for (const auto& n : Names(table_dir / "data" / folder)) {
      EXPECT_TRUE(!n.starts_with(".") && n.ends_with(".parquet")) << folder << "/" << n;
      ++files;
    }
  }
  EXPECT_EQ(files, static_cast<size_t>(commits));
  ExpectRows("db.r", table_dir, ids);
}

TEST_F(ConcurrencyCli, FailedWritesLeaveTheTableFolderAsItWas) {
  const fs::path wh = dir_ / "warehouse";
  // 300,000 rows: a bad row (k overflows INT) at line 250,001, after many
  // files of ~15 kB were rolled in every partition (each partition's good
  // rows take ~44 kB compressed).
  std::string big;
  big.reserve(300000 * 48);
  for (int i = 0; i < 300000; ++i) {
    if (i == 250000) {
      big += "{\"id\":" + std::to_string(i) + ",\"p\":3000000000,\"i\":1,\"s\":\"bad\"}\n";
    } else {
      big += "{\"id\":" + std::to_string(i) + ",\"p\":" + std::to_string(i % 8) + ",\"i\":" + std::to_string(i % 5) +
             ",\"s\":\"row " + std::to_string(i) + "\"}\n";
    }
  }
  WriteFile(dir_ / "big.jsonl", big);
  WriteFile(dir_ / "good.jsonl", big.substr(0, big.find("{\"id\":250000,")));
  const std::string rolled = " --batch-rows 1000 --set target-file-size-bytes=15000";

  // The same good prefix rolls several files per partition (so the failed
  // writes below did have finished files to take back).
  WriteFile(dir_ / "one.jsonl", "{\"id\":1000010,\"p\":1,\"i\":1,\"s\":\"p1-i1-k0\"}\n");
  ASSERT_EQ(Floe("write --table db.probe --schema " + Shell(kSchema) + " --set partition_fields=p --input good.jsonl" +
                 rolled).rc, 0);
  RunResult files = Floe("files --table db.probe");
  EXPECT_GT(Lines(files.out).size(), 16u) << files.out;

  for (const std::string& spec : {std::string(), std::string("p"), std::string("p,i")}) {
    SCOPED_TRACE("partition_fields=" + spec);
    const std::string table = "db.t" + std::to_string(spec.size());
    const fs::path table_dir = wh / "db" / ("t" + std::to_string(spec.size()));
    ASSERT_EQ(Floe("write --table " + table + " --schema " + Shell(kSchema) +
                   (spec.empty() ? "" : " --set partition_fields=" + spec) + " --input one.jsonl").rc, 0);
    const auto before = Tree(table_dir);
    const std::string snaps = Floe("snapshots --table " + table).out;
    auto unchanged = [&](const std::string& what) {
      EXPECT_EQ(Tree(table_dir), before) << what << " changed the table folder";
      EXPECT_EQ(Floe("snapshots --table " + table).out, snaps) << what;
    };
    for (const std::string threads : {"2", "1"}) {
      RunResult w = Floe("write --table " + table + " --input big.jsonl --set write-parallelism=" + threads + rolled);
      EXPECT_EQ(w.rc, 1) << w.err;
      EXPECT_NE(w.err.find("line 250001"), std::string::npos) << w.err;
      EXPECT_NE(w.err.find("'p'"), std::string::npos) << w.err;
      unchanged("a bad row at line 250001, write-parallelism=" + threads);
    }
    // A bad row in the second batch of one row (folders made and a file
    // open, none finished).
    WriteFile(dir_ / "early.jsonl", "{\"id\":1,\"p\":6,\"i\":4,\"s\":\"a\"}\n{\"id\":2,\"p\":\"x\",\"i\":4,\"s\":\"b\"}\n");
    RunResult e = Floe("write --table " + table + " --input early.jsonl --batch-rows 1");
    EXPECT_EQ(e.rc, 1);
    EXPECT_NE(e.err.find("line 2"), std::string::npos) << e.err;
    unchanged("a bad row at line 2");
    // An unknown option, an unknown column.
    RunResult o = Floe("write --table " + table + " --input one.jsonl --set no-such-option=1");
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("no-such-option"), std::string::npos) << o.err;
    unchanged("an unknown option");
    WriteFile(dir_ / "unknown.jsonl", "{\"id\":1,\"p\":6,\"i\":4,\"s\":\"a\",\"zz\":1}\n");
    RunResult u = Floe("write --table " + table + " --input unknown.jsonl");
    EXPECT_NE(u.rc, 0);
    EXPECT_NE(u.err.find("zz"), std::string::npos) << u.err;
    unchanged("an unknown column");
    ExpectRows(table, table_dir, {RowId(1, 1, 0)});
  }

  // A failed first write leaves no table and no folder behind.
  const auto ns_before = Tree(wh / "db");
  RunResult f = Floe("write --table db.fresh --schema " + Shell(kSchema) + " --set partition_fields=p --input big.jsonl" +
                     rolled);
  EXPECT_EQ(f.rc, 1);
  EXPECT_FALSE(fs::exists(wh / "db/fresh"));
  EXPECT_EQ(Tree(wh / "db"), ns_before);
}

// Three merge-on-read first writes race to create each of 20 new tables:
// every write commits (one creates the table, the others open it, also when
// the catalog's location check meets the metadata another had just written
// into the folder, which refused the write before).
TEST_F(ConcurrencyCli, FirstMergeOnReadWritesRacingToCreateATableAllCommit) {
  constexpr int kTables = 20;
  WriteFile(dir_ / "first.sh",
            "p=$1; t=0\n"
            "while [ $t -lt " + std::to_string(kTables) + " ]; do\n"
            "  printf '{\"id\":%d,\"k\":%d,\"seq\":1}\\n' $((p * 1000 + t)) $((p * 1000 + t)) | " +
                Shell(FLOE_BIN) + " write --table db.m$t --schema 'id BIGINT, k BIGINT, seq BIGINT' --set " +
                "mode=merge-on-read --set upsert=true --set equality_columns=k --set sequence_number_column=seq " +
                "--set sink_id=s$p --input - >/dev/null 2>>err.$p || echo \"fail $t $?\" >>log.$p\n"
            "  t=$((t + 1))\n"
            "done\n");
  RunResult r = Sh(floe::test::ShellConcurrently({"sh first.sh 0", "sh first.sh 1", "sh first.sh 2"}));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_ / "log.0") + ReadFile(dir_ / "log.1") + ReadFile(dir_ / "log.2"), "")
      << ReadFile(dir_ / "err.0") << ReadFile(dir_ / "err.1") << ReadFile(dir_ / "err.2");
  for (int t = 0; t < kTables; ++t) {
    RunResult scan = Floe("scan --table db.m" + std::to_string(t));
    EXPECT_EQ(std::count(scan.out.begin(), scan.out.end(), '\n'), 3) << "table db.m" << t << ": " << scan.out;
  }
}

TEST_F(ConcurrencyCli, FirstWritesRacingToCreateATableBothAppend) {
  // Two processes each write one row into 20 new tables, in the same order:
  // each table is created by one of them, and the other appends to it.
  constexpr int kTables = 20;
  WriteFile(dir_ / "first.sh",
            "p=$1; t=0\n"
            "while [ $t -lt " + std::to_string(kTables) + " ]; do\n"
            "  printf '{\"id\":%d,\"p\":%d,\"i\":%d,\"s\":\"p%d-i%d-k0\"}\\n' $((p * 1000000 + t * 10)) $p $t $p $t | " +
                Shell(FLOE_BIN) + " write --table db.n$t --schema " + Shell(kSchema) +
                " --input - >/dev/null 2>>err.$p || echo \"fail $t $?\" >>log.$p\n"
            "  t=$((t + 1))\n"
            "done\n");
  RunResult r = Sh(floe::test::ShellConcurrently({"sh first.sh 0", "sh first.sh 1"}));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_ / "log.0") + ReadFile(dir_ / "log.1"), "") << ReadFile(dir_ / "err.0") << ReadFile(dir_ / "err.1");
  for (int t = 0; t < kTables; ++t) {
    SCOPED_TRACE("table db.n" + std::to_string(t));
    const fs::path table_dir = dir_ / "warehouse/db" / ("n" + std::to_string(t));
    EXPECT_EQ(ReadFile(table_dir / "metadata/version-hint.text"), "3");
    // verify_table.mjs (about 1 s a run) on the first tables, where the race is closest.
    ExpectRows("db.n" + std::to_string(t), table_dir, {RowId(0, t, 0), RowId(1, t, 0)}, t < 3);
  }
}

TEST_F(ConcurrencyCli, AFailedFirstWriteKeepsATableAnotherWriterCommittedTo) {
  // A creates db.n and streams 80,000 rows into 8 new partition folders
  // (10,000 each: written to open files); B finds the new table and commits
  // one row; then A's input ends with a bad row. A must
  // take back only its own files and folders: the table, B's row and B's
  // partition folder (made by A, holding B's file) stay.
  std::string rows;
  for (int i = 0; i < 80000; ++i) {
    rows += "{\"id\":" + std::to_string(i) + ",\"p\":" + std::to_string(i % 8) + ",\"i\":0,\"s\":\"a\"}\n";
  }
  WriteFile(dir_ / "a_rows.jsonl", rows);
  WriteFile(dir_ / "b_row.jsonl", "{\"id\":1000010,\"p\":1,\"i\":1,\"s\":\"p1-i1-k0\"}\n");
  const std::string floe = Shell(FLOE_BIN);
  const std::string a =
      "{ cat a_rows.jsonl; while [ ! -f b.done ]; do sleep 0.05; done; echo '{\"id\":\"bad\"}'; } | " + floe +
      " write --table db.n --schema " + Shell(kSchema) + " --set partition_fields=p --batch-rows 100 --input - " +
      ">a.out 2>a.err; echo $? >a.rc";
  const std::string b =
      // B starts once A has made the table and its partition folder p=1
      // (polled, not slept on: the folder is the event B must follow).
      "while [ ! -f warehouse/db/n/metadata/v1.metadata.json ] || [ ! -d warehouse/db/n/data/p=1 ]; do sleep 0.05; "
      "done; " + floe +
      " write --table db.n --input b_row.jsonl >b.out 2>b.err; echo $? >b.rc; touch b.done";
  RunResult r = Sh(floe::test::ShellConcurrently({a, b}));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_ / "b.rc"), "0\n") << ReadFile(dir_ / "b.err");
  EXPECT_EQ(ReadFile(dir_ / "a.rc"), "1\n") << ReadFile(dir_ / "a.err");
  EXPECT_NE(ReadFile(dir_ / "a.err").find("line 80001"), std::string::npos) << ReadFile(dir_ / "a.err");
  const fs::path table_dir = dir_ / "warehouse/db/n";
  ExpectRows("db.n", table_dir, {RowId(1, 1, 0)});
  EXPECT_EQ(Names(table_dir / "data"), (std::set<std::string>{"p=1"}));
  EXPECT_EQ(Names(table_dir / "data/p=1").size(), 1u);
  auto md = Names(table_dir / "metadata");
  EXPECT_EQ(md.size(), 5u);  // v1, v2, hint, B's manifest and manifest list
  EXPECT_TRUE(md.contains("v1.metadata.json") && md.contains("v2.metadata.json"));
  for (const auto& n : md) EXPECT_FALSE(n.starts_with(".")) << n;
}

}  // namespace concurrency_cli_test
