// The change sink against a reference model (cdc_model.h): random CDC
// streams from a seed (colliding keys, shuffled arrival, UPDATE_BEFORE /
// UPDATE_AFTER pairs, upserts, deletes of absent keys, re-inserts, nulls,
// invalid lines, partition specs none / bucket(id, 4) / identity(region) /
// day(ts) with keys moving partition, composite keys, hash distribution),
// written by `floe write` in several windows: growing prefixes of one file
// under one sink_id (each run must skip what the last committed: the replay
// rule) and fresh files under new sink_ids. After every run the accounting
// line, `floe scan` and verify_table.mjs must all agree with the model, and
// the dead-letter and error outputs must hold exactly the late and invalid
// lines.
//
// Seeds: FLOE_CDC_SEEDS=N runs seeds 1..N (default kDefaultSeeds, sized for
// CI); FLOE_CDC_SEED=S runs only seed S (to replay a failure, which prints
// its seed and keeps its folder).
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli/cdc_model.h"
#include "testing/avro_java.h"
#include "testing/scale.h"

namespace cdc_property_test {

using namespace cdc_test;  // NOLINT: test helpers
using floe_cli_test::FreshTestDir;
using floe_cli_test::RemoveTestDirIfPassed;
using floe_cli_test::WriteFile;

constexpr int kDefaultSeeds = 40;

/// What the seeds exercised (printed, and checked at the end).
struct Coverage {
  int runs = 0, streamed_runs = 0, windows = 0, snapshots_checked = 0, late = 0, invalid = 0,
      skipped = 0;
  int v3_seeds = 0, v3_seeds_with_vectors = 0;  ///< format version 3; with a deletion vector written
} g_coverage;

Options RandomOptions(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto chance = [&](int percent) { return pick(100) < percent; };
  Options o;
  o.composite_key = chance(25);
  o.partition = static_cast<Options::Partition>(pick(4));
  o.upsert = chance(30);
  o.error_output = chance(50);
  o.lateness_zero = chance(15);
  o.flink_spelling = chance(40);
  o.hash = chance(35);
  if (o.hash) {
    static const int shards[] = {1, 3, 16};
    o.num_shards = shards[pick(3)];
    o.shards_per_partition = 1 + pick(o.num_shards);
  }
  return o;
}

/// Runs seed `seed` in `dir`; false (with failures recorded) at the first
/// disagreement with the model.
bool RunSeed(uint64_t seed, const fs::path& dir) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  Options o = RandomOptions(rng);
  o.equality_deletes = seed % 4 == 0;  // a quarter of the seeds: delete_kind=equality (the rng's draws unchanged)
  // Over a third of the seeds write a format version 3 table: deletes by
  // position are deletion vectors (and equality deletes with delete_kind
  // equality, every eighth seed).
  o.format_v3 = seed % 4 == 2 || seed % 8 == 0;
  const int keys = 2 + static_cast<int>(rng() % 9);
  Generator gen(seed, o, keys);
  Model model(o.upsert, o.composite_key);
  model.position_deletes = !o.equality_deletes;
  const int files = rng() % 100 < 40 ? 2 : 1;
  const std::string what = "seed " + std::to_string(seed) + " (" + o.Describe() +
                           " keys=" + std::to_string(keys) + "), folder " + dir.string();
  for (int file = 1; file <= files; ++file) {
    const std::string sink = "s" + std::to_string(file);
    const std::string input = "in_" + sink + ".jsonl";
    const std::vector<Change> lines = gen.Stream(20 + static_cast<int>(rng() % 60));
    // Stage ends: growing prefixes, the last the whole file; now and then a
    // stage runs twice (the second run must skip everything).
    std::vector<size_t> cuts;
    const int stages = 1 + static_cast<int>(rng() % 4);
    for (int s = 1; s < stages; ++s) cuts.push_back(1 + rng() % lines.size());
    cuts.push_back(lines.size());
    std::sort(cuts.begin(), cuts.end());
    if (rng() % 100 < 20)
      cuts.insert(cuts.begin() + static_cast<std::ptrdiff_t>(rng() % cuts.size()), 0);
    Lineage lineage;
    std::mt19937_64 srng(
        seed * 31 + static_cast<uint64_t>(file));  // streaming choices, apart from the stage plan
    size_t last_cut = 0;
    for (size_t cut : cuts) {
      cut = std::max(cut, last_cut);  // a 0 repeats the previous stage
      last_cut = cut;
      if (cut == 0) continue;
      WriteFile(dir / input, InputText(lines, cut, o.flink_spelling));
      const std::vector<Change> prefix(lines.begin(),
                                       lines.begin() + static_cast<std::ptrdiff_t>(cut));
      const int64_t token_before = lineage.committed_position;
      int64_t commits_before = 0;
      for (const SnapshotInfo& snap : Snapshots(dir)) {
        if (snap.sink_id == sink) commits_before = std::max(commits_before, snap.commit_number);
      }
      // A streaming run (standard input, a commit every second) now and then:
      // the input arrives in chunks, so one process commits several windows
      // and remembers their keys itself instead of replaying them.
      const bool streaming = cut >= 6 && srng() % 100 < 15;
      RunResult r;
      std::vector<int64_t> ends = {static_cast<int64_t>(cut)};
      if (streaming) {
        std::vector<std::string> chunks;
        std::vector<size_t> splits = {0, 1 + srng() % (cut - 1), cut};
        if (srng() % 2) splits.insert(splits.begin() + 1, 1 + srng() % splits[1]);
        for (size_t k = 0; k + 1 < splits.size(); ++k) {
          const std::vector<Change> part(
              lines.begin() + static_cast<std::ptrdiff_t>(splits[k]),
              lines.begin() + static_cast<std::ptrdiff_t>(splits[k + 1]));
          chunks.push_back(InputText(part, part.size(), o.flink_spelling));
        }
        r = RunStreaming(dir,
                         Shell(FLOE_BIN) + " write " +
                             WriteArgs(o, sink, "-", " --set triggering_frequency_seconds=1"),
                         chunks, 1300);
        // The windows are what the process committed: each accounting line
        // (one per trigger, and one at the end) has read as far as its commit.
        ends.clear();
        std::istringstream in(r.out);
        for (std::string line; std::getline(in, line);) {
          auto j = nlohmann::json::parse(line, nullptr, false);
          if (j.is_discarded() || !j.is_object()) continue;
          const int64_t read = j.value("read", int64_t{0});
          if (ends.empty() || read > ends.back()) ends.push_back(read);
        }
      } else {
        r = FloeRun(dir, "write " + WriteArgs(o, sink, input));
      }
      std::string windows;
      for (int64_t end : ends) windows += " " + std::to_string(end);
      const std::string stage = what + ", file " + input + " lines 1.." + std::to_string(cut) +
                                (streaming ? ", streamed, windows ending at" + windows : "") +
                                " (token at " + std::to_string(token_before) + ")";
      if (r.rc != 0) {
        ADD_FAILURE() << stage << ": floe write failed (rc " << r.rc << "): " << r.err;
        return false;
      }
      if (ends.empty() || ends.back() != static_cast<int64_t>(cut)) {
        ADD_FAILURE() << stage << ": the last commit did not cover the input\n" << r.out;
        return false;
      }
      std::vector<std::vector<std::string>> history;
      const RunExpect e = model.Run(prefix, ends, &lineage, &history);
      ++g_coverage.runs;
      g_coverage.streamed_runs += streaming ? 1 : 0;
      g_coverage.windows += static_cast<int>(ends.size());
      g_coverage.snapshots_checked += static_cast<int>(e.published);
      g_coverage.late += static_cast<int>(e.late);
      g_coverage.invalid += static_cast<int>(e.errors);
      g_coverage.skipped += static_cast<int>(e.skipped);
      const nlohmann::json acc = Accounting(r.out);
      if (acc.is_null()) return false;
      const int64_t late = acc.value("dead_letter", int64_t{0}) + acc.value("dropped", int64_t{0});
      bool ok = true;
      auto expect_eq = [&](const char* name, int64_t want, int64_t got) {
        if (want != got) {
          ADD_FAILURE() << stage << ": accounting " << name << ": model " << want << ", floe "
                        << got << "\n"
                        << r.out;
          ok = false;
        }
      };
      expect_eq("read", e.read, acc.value("read", int64_t{-1}));
      expect_eq("applied", e.applied, acc.value("applied", int64_t{-1}));
      expect_eq("errors", e.errors, acc.value("errors", int64_t{-1}));
      expect_eq("skipped", e.skipped, acc.value("skipped", int64_t{-1}));
      expect_eq("dead_letter + dropped", e.late, late);
      if (!o.lateness_zero) expect_eq("dropped", 0, acc.value("dropped", int64_t{-1}));
      int64_t commits = 0;
      for (const auto& d : acc["destinations"]) commits += d.value("commits", int64_t{0});
      expect_eq("snapshots committed", e.published, commits);

      // The tokens: one snapshot per published window, numbered on, each
      // carrying the input position its window ends at; and the table as of
      // each (the last is checked below).
      std::vector<SnapshotInfo> mine;
      for (const SnapshotInfo& snap : Snapshots(dir)) {
        if (snap.sink_id == sink && snap.commit_number > commits_before) mine.push_back(snap);
      }
      if (mine.size() != e.published_ends.size()) {
        ADD_FAILURE() << stage << ": " << mine.size() << " new snapshots of sink " << sink
                      << ", model " << e.published_ends.size();
        return false;
      }
      for (size_t k = 0; k < mine.size(); ++k) {
        expect_eq("commit number", commits_before + 1 + static_cast<int64_t>(k),
                  mine[k].commit_number);
        expect_eq("token position", e.published_ends[k], mine[k].position);
        if (k + 1 == mine.size()) break;
        auto at = ScanRows(dir, mine[k].id);
        auto verified_at = VerifyRows(dir, mine[k].id);
        if (!at || !verified_at) return false;
        if (*at != history[k] || *verified_at != history[k]) {
          ADD_FAILURE() << stage << ": snapshot " << mine[k].id << " (window " << k + 1
                        << ") disagrees with the model\nmodel:\n"
                        << Joined(history[k]) << "floe scan:\n"
                        << Joined(*at) << "verify_table:\n"
                        << Joined(*verified_at);
          ok = false;
        }
      }

      const std::vector<std::string> want = model.Rows();
      auto scan = ScanRows(dir);
      if (!scan) return false;
      if (*scan != want) {
        ADD_FAILURE() << stage << ": floe scan disagrees with the model\nmodel:\n"
                      << Joined(want) << "floe scan:\n"
                      << Joined(*scan);
        ok = false;
      }
      if (e.published > 0 || commits > 0) {
        auto verified = VerifyRows(dir);
        if (!verified) return false;
        if (*verified != want) {
          ADD_FAILURE() << stage << ": verify_table disagrees with the model\nmodel:\n"
                        << Joined(want) << "verify_table:\n"
                        << Joined(*verified);
          ok = false;
        }
      }
      const std::set<int64_t> dead = LogPositions(dir / ("dead_" + sink + ".jsonl"));
      if (o.lateness_zero ? !std::includes(lineage.late_positions.begin(),
                                           lineage.late_positions.end(), dead.begin(), dead.end())
                          : dead != lineage.late_positions) {
        ADD_FAILURE() << stage << ": dead-letter positions " << SetText(dead)
                      << ", model's late lines " << SetText(lineage.late_positions);
        ok = false;
      }
      if (o.error_output) {
        const std::set<int64_t> errors = LogPositions(dir / ("errors_" + sink + ".jsonl"));
        if (errors != lineage.error_positions) {
          ADD_FAILURE() << stage << ": error output positions " << SetText(errors)
                        << ", model's invalid lines " << SetText(lineage.error_positions);
          ok = false;
        }
      }
      if (!ok) return false;
    }
  }
  if (o.format_v3) {
    ++g_coverage.v3_seeds;
    bool vectors = false;
    if (fs::exists(dir / "wh" / "db" / "t" / "data")) {
      for (const auto& e : fs::recursive_directory_iterator(dir / "wh" / "db" / "t" / "data")) {
        vectors |= e.path().extension() == ".puffin";
      }
    }
    g_coverage.v3_seeds_with_vectors += vectors ? 1 : 0;
    // Apache Avro Java reads the manifests and manifest lists of the v3
    // table (when installed: Debian's libavro-java).
    if (vectors && floe::test::AvroJavaInstalled()) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(dir / "wh" / "db" / "t" / "metadata")) {
        if (e.path().extension() == ".avro") files.push_back(e.path().string());
      }
      const floe::test::AvroJavaResult avro = floe::test::AvroJava(files);
      if (avro.code != 0) {
        ADD_FAILURE() << what << ": Avro Java does not read the manifests: " << avro.command << "\n" << avro.out;
        return false;
      }
    }
  }
  return true;
}

TEST(CdcProperty, RandomStreamsMatchTheModelAfterEveryCommit) {
  const fs::path dir = FreshTestDir("floe_cdc_property_");
  std::vector<uint64_t> seeds;
  if (const char* one = std::getenv("FLOE_CDC_SEED"); one && *one) {
    seeds.push_back(std::strtoull(one, nullptr, 10));
  } else {
    // FLOE_TEST_SCALE (testing/scale.h): fewer seeds under the sanitizers.
    int n = static_cast<int>(floe::test::Scaled(kDefaultSeeds, 4));
    if (const char* s = std::getenv("FLOE_CDC_SEEDS"); s && *s) n = std::max(1, std::atoi(s));
    for (int i = 1; i <= n; ++i) seeds.push_back(static_cast<uint64_t>(i));
  }
  std::vector<uint64_t> failed;
  for (uint64_t seed : seeds) {
    const fs::path sub = dir / ("seed_" + std::to_string(seed));
    fs::create_directories(sub);
    if (RunSeed(seed, sub)) {
      fs::remove_all(sub);
    } else {
      failed.push_back(seed);
    }
  }
  std::cout << "[ cdc      ] seeds " << seeds.size() << ": floe write runs " << g_coverage.runs
            << " (" << g_coverage.streamed_runs << " streamed), windows " << g_coverage.windows
            << ", snapshots checked " << g_coverage.snapshots_checked << ", late changes "
            << g_coverage.late << ", invalid lines " << g_coverage.invalid
            << ", replayed lines skipped " << g_coverage.skipped << ", format v3 seeds " << g_coverage.v3_seeds
            << " (" << g_coverage.v3_seeds_with_vectors << " wrote deletion vectors)\n";
  // What the seeds must have exercised, or the comparison proves little: the
  // fixed seeds 1..kDefaultSeeds reach every kind; fewer (the sanitizer
  // runs, one replayed seed) are only required to have checked something.
  EXPECT_GT(g_coverage.runs, 0);
  EXPECT_GT(g_coverage.snapshots_checked, 0);
  if (seeds.size() >= static_cast<size_t>(kDefaultSeeds)) {
    EXPECT_GT(g_coverage.streamed_runs, 0) << "no streamed run (standard input, several windows)";
    EXPECT_GT(g_coverage.late, 0) << "no late change";
    EXPECT_GT(g_coverage.invalid, 0) << "no invalid line";
    EXPECT_GT(g_coverage.skipped, 0) << "no replayed line skipped";
    EXPECT_GT(g_coverage.windows, g_coverage.runs) << "no run committed more than one window";
    EXPECT_GT(g_coverage.v3_seeds_with_vectors, 0) << "no format version 3 seed wrote a deletion vector";
  }
  std::string list;
  for (uint64_t s : failed) list += " " + std::to_string(s);
  EXPECT_TRUE(failed.empty()) << failed.size() << " of " << seeds.size()
                              << " seeds disagree with the model (replay one with FLOE_CDC_SEED=S):"
                              << list;
  RemoveTestDirIfPassed(dir);
}

// Found by seed 5: with distribution_mode=hash and shards_per_partition below
// num_shards, rows are placed in shards by their partition. When the
// partition is not a function of the key (day(ts), with key id), one key's
// changes of a window land in different shards, each shard collapses its part
// alone, and the key ends with one row per shard (the INSERT's row survives
// the UPDATE_AFTER).
TEST(CdcProperty, HashShardsPerPartitionKeepAKeysChangesTogether) {
  const fs::path dir = FreshTestDir("floe_cdc_shards_");
  for (const char* partition : {"day(ts)", "identity(region)"}) {
    SCOPED_TRACE(partition);
    fs::remove_all(dir / "wh");
    WriteFile(
        dir / "in.jsonl",
        R"({"id":1,"region":"eu","ts":"2024-01-01T10:00:00","name":"a","n":1,"op":"INSERT","seq":1})"
        "\n"
        R"({"id":1,"region":"us","ts":"2024-01-02T10:00:00","name":"b","n":2,"op":"UPDATE_AFTER","seq":2})"
        "\n");
    RunResult w = RunIn(
        dir,
        Shell(FLOE_BIN) + " write --catalog warehouse=./wh --table db.t --schema " +
            Shell(kInputSchema) +
            " --set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq"
            " --set equality_columns=id --set " +
            Shell(std::string("partition_fields=") + partition) +
            " --set distribution_mode=hash --set num_shards=16 --set shards_per_partition=1"
            " --no-progress -i in.jsonl");
    ASSERT_EQ(w.rc, 0) << w.err;
    const std::vector<std::string> want = {
        R"({"id":1,"region":"us","ts":"2024-01-02T10:00:00.000000","name":"b","n":2})"};
    EXPECT_EQ(ScanRows(dir), want);
    EXPECT_EQ(VerifyRows(dir), want);
  }
  RemoveTestDirIfPassed(dir);
}

// Waits (up to a minute) until sink `sink` has committed `number` times.
void WaitForCommit(const fs::path& dir, const std::string& sink, int64_t number) {
  for (int i = 0; i < 600; ++i) {
    if (!fs::exists(dir / "wh" / "db" / "t" / "metadata" / "version-hint.text")) {
      ::usleep(100 * 1000);  // the writer has not created the table yet
      continue;
    }
    for (const SnapshotInfo& s : Snapshots(dir)) {
      if (s.sink_id == sink && s.commit_number >= number) return;
    }
    ::usleep(100 * 1000);
  }
  ADD_FAILURE() << "sink " << sink << " did not commit " << number << " times within a minute";
}

// With upsert, an UPDATE_BEFORE is applied (counted) but writes nothing. When
// it is a key's newest change of a window, a relaunch that replays the input
// remembers its sequence number (every skipped line counts), so a later
// change with a lower sequence number is late. The process that committed the
// window must remember the same, or the table depends on whether the sink was
// restarted between the windows: here the streamed run applied the UPDATE_AFTER
// (seq 4) that the replayed run dead-letters.
TEST(CdcProperty, UpsertUpdateBeforeIsRememberedAlikeInProcessAndOnReplay) {
  const fs::path dir = FreshTestDir("floe_cdc_upsert_ub_");
  const std::string window1 = R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                              "\n"
                              R"({"id":1,"name":"a","op":"UPDATE_BEFORE","seq":5})"
                              "\n";
  const std::string window2 = R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":4})"
                              "\n";
  // One process, two windows (the second fed after the first is committed).
  const fs::path streamed = dir / "streamed";
  fs::create_directories(streamed);
  RunResult r = RunStreaming(
      streamed,
      SmallWrite(" --set sink_id=s1 --set upsert=true --set triggering_frequency_seconds=1", "-"),
      {window1, window2}, 0, [&] { WaitForCommit(streamed, "s1", 1); });
  ASSERT_EQ(r.rc, 0) << r.err;
  // Two processes: the first window, then the whole input replayed.
  const fs::path replayed = dir / "replayed";
  fs::create_directories(replayed);
  WriteFile(replayed / "in.jsonl", window1);
  ASSERT_EQ(RunIn(replayed, SmallWrite(" --set sink_id=s1 --set upsert=true", "in.jsonl")).rc, 0);
  WriteFile(replayed / "in.jsonl", window1 + window2);
  ASSERT_EQ(RunIn(replayed, SmallWrite(" --set sink_id=s1 --set upsert=true", "in.jsonl")).rc, 0);

  const std::vector<std::string> want = {R"({"id":1,"name":"a"})"};
  EXPECT_EQ(ScanRows(replayed), want);
  EXPECT_EQ(LogPositions(replayed / "dead.jsonl"), std::set<int64_t>{3});
  EXPECT_EQ(ScanRows(streamed), want) << "the streamed run applied a change the replay finds late";
  EXPECT_EQ(LogPositions(streamed / "dead.jsonl"), std::set<int64_t>{3});
  RemoveTestDirIfPassed(dir);
}

// change_sink.h: "Invalid rows (... null key ...) go to the error output".
// A null key column fails the whole job instead ("row 2, column 'id': null in
// NOT NULL column", from the projection to the table schema, whose key
// columns are required) even with an error output configured, whether the
// write creates the table or not. A regression test: fixed.
TEST(CdcProperty, NullKeyGoesToTheErrorOutput) {
  const fs::path dir = FreshTestDir("floe_cdc_null_key_");
  const std::string input = R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                            "\n"
                            R"({"id":null,"name":"b","op":"INSERT","seq":2})"
                            "\n"
                            R"({"id":2,"name":"c","op":"INSERT","seq":3})"
                            "\n";
  for (const bool exists : {false, true}) {
    SCOPED_TRACE(exists ? "the table exists" : "the write creates the table");
    fs::remove_all(dir / "wh");
    fs::remove(dir / "errors.jsonl");
    if (exists) {
      WriteFile(dir / "first.jsonl", R"({"id":9,"name":"z","op":"INSERT","seq":1})"
                                     "\n");
      ASSERT_EQ(RunIn(dir, SmallWrite("", "first.jsonl")).rc, 0);
    }
    WriteFile(dir / "in.jsonl", input);
    RunResult r = RunIn(dir, SmallWrite("", "in.jsonl"));
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(LogPositions(dir / "errors.jsonl"), std::set<int64_t>{2});
    std::vector<std::string> want = {R"({"id":1,"name":"a"})", R"({"id":2,"name":"c"})"};
    if (exists) want.push_back(R"({"id":9,"name":"z"})");
    EXPECT_EQ(ScanRows(dir), want);
  }
  RemoveTestDirIfPassed(dir);
}

// A late change is one at or below a committed change of its key (issue 8:
// "It is never applied out of order"). The sink knows the committed sequence
// numbers of its own process and of the input it replays, not those in the
// table: a second sink (another sink_id, or another process on new input)
// applies a change older than the committed row, which replaces it. Disabled:
// change_sink.h documents the limit ("committed by this process"). The key
// index lifts it when the sequence column is kept in the table (keep: [...,
// seq]; CdcPositionDeletes.ASecondProcessLateChangeIsRefusedBySequence); this
// table does not keep it, so the table holds no sequence numbers to compare.
TEST(CdcProperty, DISABLED_LateChangeOfAnotherSinksCommitIsNotApplied) {
  const fs::path dir = FreshTestDir("floe_cdc_cross_late_");
  WriteFile(dir / "a.jsonl", R"({"id":1,"name":"new","op":"INSERT","seq":10})"
                             "\n");
  ASSERT_EQ(RunIn(dir, SmallWrite(" --set sink_id=a", "a.jsonl")).rc, 0);
  WriteFile(dir / "b.jsonl", R"({"id":1,"name":"old","op":"UPDATE_AFTER","seq":5})"
                             "\n");
  RunResult r = RunIn(dir, SmallWrite(" --set sink_id=b", "b.jsonl"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ScanRows(dir), std::vector<std::string>{R"({"id":1,"name":"new"})"});
  EXPECT_EQ(LogPositions(dir / "dead.jsonl"), std::set<int64_t>{1});
  RemoveTestDirIfPassed(dir);
}

// An update's two halves often share a sequence number (one source
// transaction, one LSN: Debezium, Flink's -U/+U). When a window boundary (a
// trigger, a relaunch) falls between them, the UPDATE_BEFORE is committed with
// the key's row deleted, and the UPDATE_AFTER is "at or below" the committed
// sequence number: late, so dead-lettered, and the key has no row at all.
// Within one window the same pair is applied in arrival order. Found by the
// crash trials (trial 84 of the first run, upsert: the after-image lost). The
// brief's and change_sink.h's rule ("at or below") says late; the table then
// depends on where the windows fall. A regression test: decided and fixed (at
// an equal sequence number, before-images and deletes come first, so the
// after-image of a split pair still applies; README "Collapse").
TEST(CdcProperty, AnUpdatePairSplitByAWindowKeepsItsAfterImage) {
  const fs::path dir = FreshTestDir("floe_cdc_split_pair_");
  const std::string insert = R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                             "\n";
  const std::string before = R"({"id":1,"name":"a","op":"UPDATE_BEFORE","seq":2})"
                             "\n";
  const std::string after = R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":2})"
                            "\n";
  // Three windows (three runs of one sink on a growing file); the pair is split.
  for (const std::string& input : {insert, insert + before, insert + before + after}) {
    WriteFile(dir / "in.jsonl", input);
    RunResult r = RunIn(dir, SmallWrite(" --set sink_id=s1", "in.jsonl"));
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  // As one window would have it.
  EXPECT_EQ(ScanRows(dir), std::vector<std::string>{R"({"id":1,"name":"b"})"});
  EXPECT_EQ(LogPositions(dir / "dead.jsonl"), std::set<int64_t>{});
  RemoveTestDirIfPassed(dir);
}

}  // namespace cdc_property_test
