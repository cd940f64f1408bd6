// The change sink's options, each shown by what it changes in the table
// `floe write` produces (tests/config/option_effects_test.cc names these
// tests as the effect tests of the options).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/metadata_updates.h"

namespace floe_cli_test {
namespace cdc_options_cli_test {

using nlohmann::json;

class CdcOptionsCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_cdc_options_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  // A shell fragment that waits until `condition` holds (polled every 50 ms,
  // at most 60 s): tests wait for the event, not for a guess at its time.
  static std::string WaitFor(const std::string& condition) {
    return "t=0; until " + condition + "; do sleep 0.05; t=$((t+1)); [ $t -ge 1200 ] && break; done; ";
  }

  // `floe write` of `input` (lines) into `table`; returns the result.
  RunResult Write(const std::string& table, const std::string& input, const std::string& args) {
    WriteFile(dir_ / "in.jsonl", input);
    return Floe("write --table " + table + " -i in.jsonl " + args);
  }
  // The accounting line of a successful write.
  json Accounting(const RunResult& r) {
    EXPECT_EQ(r.rc, 0) << r.err;
    std::string last = r.out;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    json j = json::parse(last, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    if (!j.is_discarded()) {
      EXPECT_EQ(j["read"].get<int64_t>(), j["applied"].get<int64_t>() + j["errors"].get<int64_t>() +
                                              j["dead_letter"].get<int64_t>() + j["dropped"].get<int64_t>() +
                                              j["skipped"].get<int64_t>())
          << r.out;
    }
    return j;
  }
  // `floe scan` rows, sorted.
  std::vector<std::string> Rows(const std::string& table) {
    RunResult r = Floe("scan --table " + table);
    EXPECT_EQ(r.rc, 0) << r.err;
    std::vector<std::string> rows;
    size_t start = 0;
    while (start < r.out.size()) {
      size_t end = r.out.find('\n', start);
      if (end == std::string::npos) end = r.out.size();
      if (end > start) rows.push_back(r.out.substr(start, end - start));
      start = end + 1;
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }
  // The snapshots of a table (JSON objects).
  std::vector<json> Snapshots(const std::string& table) {
    RunResult r = Floe("snapshots --table " + table);
    EXPECT_EQ(r.rc, 0) << r.err;
    std::vector<json> out;
    size_t start = 0;
    while (start < r.out.size()) {
      size_t end = r.out.find('\n', start);
      if (end == std::string::npos) end = r.out.size();
      if (end > start) out.push_back(json::parse(r.out.substr(start, end - start)));
      start = end + 1;
    }
    return out;
  }
  size_t DataFileCount(const std::string& ns, const std::string& name) {
    size_t n = 0;
    const fs::path root = dir_ / "warehouse" / ns / name / "data";
    if (!fs::exists(root)) return 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const std::string f = e.path().filename().string();
      if (e.is_regular_file() && f.ends_with(".parquet") && f.find("-deletes") == std::string::npos) ++n;
    }
    return n;
  }

  fs::path dir_;
};

const char* kMor =
    "--set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq --set equality_columns=id ";
const char* kSchema = "--schema 'id BIGINT, name STRING, op STRING, seq BIGINT' ";

TEST_F(CdcOptionsCli, ModeChangeTypeAndSequenceColumnsCollapseChanges) {
  // Shuffled arrival: the sequence numbers order each key's changes.
  const std::string in =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n"
      "{\"id\":2,\"name\":\"b2\",\"op\":\"UPDATE_AFTER\",\"seq\":5}\n"
      "{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\",\"seq\":2}\n"
      "{\"id\":3,\"name\":\"c\",\"op\":\"INSERT\",\"seq\":3}\n"
      "{\"id\":2,\"name\":\"b\",\"op\":\"UPDATE_BEFORE\",\"seq\":5}\n"
      "{\"id\":3,\"name\":\"c\",\"op\":\"DELETE\",\"seq\":6}\n";
  json acc = Accounting(Write("db.t", in, std::string(kSchema) + kMor));
  EXPECT_EQ(acc["applied"], 6);
  // The control columns are stripped; key 3 was born and died in the window.
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}", "{\"id\":2,\"name\":\"b2\"}"}));
  // In append mode the same rows would all be written, control columns and all.
  RunResult append = Write("db.a", in, kSchema);
  ASSERT_EQ(append.rc, 0) << append.err;
  EXPECT_EQ(Rows("db.a").size(), 6u);

  // A second window: updates and deletes of keys that live in the table become equality deletes.
  json acc2 = Accounting(Write("db.t",
                               "{\"id\":1,\"name\":\"a\",\"op\":\"DELETE\",\"seq\":7}\n"
                               "{\"id\":2,\"name\":\"b3\",\"op\":\"UPDATE_AFTER\",\"seq\":8}\n",
                               kMor));
  EXPECT_EQ(acc2["destinations"][0]["deletes_written"], 2);
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":2,\"name\":\"b3\"}"}));

  // keep: a kept control column is written too.
  Accounting(Write("db.k", "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n",
                   std::string(kSchema) + kMor + "--set keep=id,name,seq"));
  EXPECT_EQ(Rows("db.k"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\",\"seq\":1}"}));
}

TEST_F(CdcOptionsCli, SequenceColumnMayBeADottedPath) {
  json acc = Accounting(Write("db.t",
                              "{\"id\":1,\"name\":\"new\",\"meta\":{\"seq\":9,\"src\":\"x\"}}\n"
                              "{\"id\":1,\"name\":\"old\",\"meta\":{\"seq\":3,\"src\":\"x\"}}\n",
                              "--schema 'id BIGINT, name STRING, meta STRUCT<seq BIGINT, src STRING>' "
                              "--set mode=merge-on-read --set upsert=true --set sequence_number_column=meta.seq "
                              "--set equality_columns=id"));
  EXPECT_EQ(acc["applied"], 2);
  // The later sequence number wins; meta.seq is stripped from the struct, meta.src stays.
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"new\",\"meta\":{\"src\":\"x\"}}"}));
  // Without the column: a clear error naming Beam's default name.
  RunResult r = Write("db.u", "{\"id\":1}\n", "--schema 'id BIGINT' --set mode=merge-on-read --set equality_columns=id");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("_commit_snapshot_sequence_number"), std::string::npos) << r.err;
}

// Issue 28's papercut: Flink's upsert-enabled asked for Beam's sequence
// column ('_commit_snapshot_sequence_number' is not an input column). An
// upsert without sequence_number_column applies a key's changes in the
// order they arrive, the last one winning, as Flink's upsert mode does.
TEST_F(CdcOptionsCli, UpsertWithoutASequenceColumnAppliesChangesInArrivalOrder) {
  const std::string flink = "--set upsert-enabled=true --set equality-field-columns=id ";
  json acc = Accounting(Write("db.f", "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n{\"id\":1,\"v\":\"c\"}\n",
                              "--schema 'id BIGINT, v STRING' " + flink));
  EXPECT_EQ(acc["applied"], 3);
  EXPECT_EQ(Rows("db.f"), (std::vector<std::string>{"{\"id\":1,\"v\":\"c\"}", "{\"id\":2,\"v\":\"b\"}"}));
  // A second run numbers its changes from 1 again: nothing of it is late
  // against the first run's, and the last arrival of each key wins.
  Accounting(Write("db.f", "{\"id\":2,\"v\":\"x\"}\n{\"id\":1,\"v\":\"d\"}\n{\"id\":2,\"v\":\"y\"}\n", flink));
  EXPECT_EQ(Rows("db.f"), (std::vector<std::string>{"{\"id\":1,\"v\":\"d\"}", "{\"id\":2,\"v\":\"y\"}"}));
  // With a change type column, a DELETE that arrives last removes the key.
  Accounting(Write("db.o",
                   "{\"id\":1,\"v\":\"a\",\"op\":\"+I\"}\n{\"id\":1,\"v\":\"a\",\"op\":\"-D\"}\n"
                   "{\"id\":2,\"v\":\"b\",\"op\":\"-D\"}\n{\"id\":2,\"v\":\"b2\",\"op\":\"+I\"}\n",
                   "--schema 'id BIGINT, v STRING, op STRING' --set change_type_column=op " + flink));
  EXPECT_EQ(Rows("db.o"), (std::vector<std::string>{"{\"id\":2,\"v\":\"b2\"}"}));
  // Beam's spelling (upsert with mode merge-on-read) takes the same rule.
  Accounting(Write("db.b", "{\"id\":7,\"v\":\"p\"}\n{\"id\":7,\"v\":\"q\"}\n",
                   "--schema 'id BIGINT, v STRING' --set mode=merge-on-read --set upsert=true --set equality_columns=id"));
  EXPECT_EQ(Rows("db.b"), (std::vector<std::string>{"{\"id\":7,\"v\":\"q\"}"}));
  // Beam's upsert without a mode stays refused: it is a merge-on-read option.
  RunResult r = Write("db.n", "{\"id\":1,\"v\":\"a\"}\n", "--schema 'id BIGINT, v STRING' --set upsert=true");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("merge-on-read"), std::string::npos) << r.err;
}

TEST_F(CdcOptionsCli, ChangeTypeMapTranslatesValues) {
  const std::string in =
      "{\"id\":1,\"name\":\"a\",\"op\":\"c\",\"seq\":1}\n"
      "{\"id\":2,\"name\":\"b\",\"op\":\"c\",\"seq\":2}\n"
      "{\"id\":2,\"name\":\"B\",\"op\":\"u\",\"seq\":3}\n"
      "{\"id\":1,\"name\":\"a\",\"op\":\"d\",\"seq\":4}\n";
  Accounting(Write("db.t", in,
                   std::string(kSchema) + kMor + "--set change_type_map=c:INSERT,u:UPDATE_AFTER,d:DELETE"));
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":2,\"name\":\"B\"}"}));
  // The inverse form works too; an unmapped value is an invalid row.
  RunResult r = Write("db.u", in + "{\"id\":3,\"name\":\"x\",\"op\":\"zz\",\"seq\":5}\n",
                      std::string(kSchema) + kMor + "--set change_type_map=INSERT:c,UPDATE_AFTER:u,DELETE:d");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("unknown change type 'zz'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("position 5"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "db" / "u" / "metadata" / "v2.metadata.json"));
}

TEST_F(CdcOptionsCli, UpsertReplacesRowsAndIgnoresUpdateBefore) {
  Accounting(Write("db.t", "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n", std::string(kSchema) + kMor));
  // A second INSERT of a live key replaces its row without upsert too (a key
  // never has two rows; Flink's sink would add a second).
  Accounting(Write("db.t", "{\"id\":1,\"name\":\"a2\",\"op\":\"INSERT\",\"seq\":2}\n", kMor));
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a2\"}"}));
  // With upsert every insert replaces the key's row; UPDATE_BEFORE rows are dropped.
  Accounting(Write("db.t",
                   "{\"id\":1,\"name\":\"a3\",\"op\":\"INSERT\",\"seq\":3}\n"
                   "{\"id\":1,\"name\":\"a3\",\"op\":\"UPDATE_BEFORE\",\"seq\":4}\n",
                   std::string(kMor) + "--set upsert=true"));
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a3\"}"}));
  // Flink's spelling: upsert-enabled (merge-on-read implied), and rows without a change type are upserts.
  Accounting(Write("db.f", "{\"id\":1,\"name\":\"x\",\"seq\":1}\n",
                   "--schema 'id BIGINT, name STRING, seq BIGINT' --set upsert-enabled=true "
                   "--set sequence_number_column=seq --set equality-field-columns=id"));
  Accounting(Write("db.f", "{\"id\":1,\"name\":\"y\",\"seq\":2}\n",
                   "--set upsert-enabled=true --set sequence_number_column=seq --set equality-field-columns=id"));
  EXPECT_EQ(Rows("db.f"), (std::vector<std::string>{"{\"id\":1,\"name\":\"y\"}"}));
  // The table property write.upsert.enabled makes merge-on-read writes upserts.
  Accounting(Write("db.p", "{\"id\":1,\"name\":\"x\",\"seq\":1}\n",
                   "--schema 'id BIGINT, name STRING, seq BIGINT' --set write.upsert.enabled=true "
                   "--set mode=merge-on-read --set sequence_number_column=seq --set equality_columns=id"));
  Accounting(Write("db.p", "{\"id\":1,\"name\":\"z\",\"seq\":2}\n",
                   "--set mode=merge-on-read --set sequence_number_column=seq --set equality_columns=id"));
  EXPECT_EQ(Rows("db.p"), (std::vector<std::string>{"{\"id\":1,\"name\":\"z\"}"}));
  // ... and refuses plain appends, which would duplicate keys.
  RunResult r = Write("db.p", "{\"id\":1,\"name\":\"w\",\"seq\":3}\n", "--set sink_id=x");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("write.upsert.enabled"), std::string::npos) << r.err;
}

TEST_F(CdcOptionsCli, MergeOnReadOptionsAreRefusedInAppendMode) {
  for (const std::string opt : {"change_type_column=op", "sequence_number_column=seq", "upsert=true",
                                "equality_columns=id", "allowed_lateness_seconds=5", "change_type_map=c:INSERT"}) {
    RunResult r = Write("db.t", "{\"id\":1}\n", std::string(kSchema) + "--set " + opt);
    EXPECT_EQ(r.rc, 2) << opt;
    EXPECT_NE(r.err.find("merge-on-read only"), std::string::npos) << opt << ": " << r.err;
  }
  RunResult r = Write("db.t", "{\"id\":1}\n", std::string(kSchema) + "--set num_shards=4");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("distribution_mode hash only"), std::string::npos) << r.err;
  r = Write("db.t", "{\"id\":1}\n",
            std::string(kSchema) + "--set distribution_mode=hash --set num_shards=2 --set shards_per_partition=3");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("shards_per_partition"), std::string::npos) << r.err;
}

TEST_F(CdcOptionsCli, SnapshotPropertiesReachTheSummaryAndTheFloePrefixIsReserved) {
  Accounting(Write("db.t", "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n",
                   std::string(kSchema) + kMor + "--set snapshot_properties=team:cdc,job:nightly"));
  auto snaps = Snapshots("db.t");
  ASSERT_FALSE(snaps.empty());
  EXPECT_EQ(snaps.back()["summary"]["team"], "cdc");
  EXPECT_EQ(snaps.back()["summary"]["job"], "nightly");
  RunResult r = Write("db.t", "{\"id\":1}\n", std::string(kMor) + "--set snapshot_properties=floe.sink-id:x");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("reserves"), std::string::npos) << r.err;
}

TEST_F(CdcOptionsCli, HashDistributionShardsTheFiles) {
  std::string in;
  for (int i = 0; i < 400; ++i) {
    in += "{\"id\":" + std::to_string(i) + ",\"name\":\"n\",\"op\":\"INSERT\",\"seq\":" + std::to_string(i) + "}\n";
  }
  const std::string base = std::string(kSchema) + kMor;
  Accounting(Write("db.none", in, base));
  EXPECT_EQ(DataFileCount("db", "none"), 1u);
  Accounting(Write("db.hash", in, base + "--set distribution_mode=hash --set num_shards=4"));
  EXPECT_EQ(DataFileCount("db", "hash"), 4u);
  Accounting(Write("db.flink", in, base + "--set distribution-mode=hash --set num_shards=3"));
  EXPECT_EQ(DataFileCount("db", "flink"), 3u);
  // direct_write_byte_limit: a window under the limit is written by one writer.
  Accounting(Write("db.direct", in, base + "--set distribution_mode=hash --set num_shards=4 "
                                          "--set direct_write_byte_limit=100000000"));
  EXPECT_EQ(DataFileCount("db", "direct"), 1u);
  Accounting(Write("db.direct_small", in, base + "--set distribution_mode=hash --set num_shards=4 "
                                                "--set direct_write_byte_limit=10"));
  EXPECT_EQ(DataFileCount("db", "direct_small"), 4u);
  RunResult ra = Write("db.direct_app", in, std::string(kSchema) + "--set distribution_mode=hash --set num_shards=4 "
                                                                  "--set direct_write_byte_limit=100000000");
  ASSERT_EQ(ra.rc, 0) << ra.err;
  EXPECT_EQ(DataFileCount("db", "direct_app"), 1u);
  // Autosharding: as many writers as the bytes need (one here), at most num_shards.
  Accounting(Write("db.auto", in, base + "--set distribution_mode=hash --set num_shards=4 --set autosharding=true"));
  EXPECT_EQ(DataFileCount("db", "auto"), 1u);
  // shards_per_partition: each partition's keys over at most that many shards.
  std::string pin;
  for (int i = 0; i < 400; ++i) {
    pin += "{\"id\":" + std::to_string(i) + ",\"region\":\"r" + std::to_string(i % 2) +
           "\",\"op\":\"INSERT\",\"seq\":" + std::to_string(i) + "}\n";
  }
  const std::string pschema = "--schema 'id BIGINT, region STRING, op STRING, seq BIGINT' ";
  Accounting(Write("db.p8", pin,
                   pschema + kMor + "--set equality_columns=id,region --set partition_fields=region "
                                    "--set distribution_mode=hash --set num_shards=8 --set shards_per_partition=8"));
  EXPECT_EQ(DataFileCount("db", "p8"), 16u);  // 2 partitions x 8 shards
  Accounting(Write("db.p1", pin,
                   pschema + kMor + "--set equality_columns=id,region --set partition_fields=region "
                                    "--set distribution_mode=hash --set num_shards=8 --set shards_per_partition=1"));
  EXPECT_EQ(DataFileCount("db", "p1"), 2u);
  EXPECT_EQ(Rows("db.p1").size(), 400u);
}

TEST_F(CdcOptionsCli, SorterMemorySpillsAndGivesTheSameTable) {
  std::string in;
  for (int i = 0; i < 60000; ++i) {
    const int key = (i * 7919) % 20000;
    in += "{\"id\":" + std::to_string(key) + ",\"name\":\"name-" + std::to_string(i) +
          "-padding-padding-padding\",\"op\":\"" + (i < 20000 ? "INSERT" : "UPDATE_AFTER") +
          "\",\"seq\":" + std::to_string(i) + "}\n";
  }
  json small = Accounting(Write("db.small", in, std::string(kSchema) + kMor + "--set sorter_memory_mb=1"));
  json big = Accounting(Write("db.big", in, std::string(kSchema) + kMor));
  EXPECT_GT(small["destinations"][0]["spilled_runs"].get<int64_t>(), 1);
  EXPECT_EQ(big["destinations"][0]["spilled_runs"].get<int64_t>(), 0);
  EXPECT_EQ(Rows("db.small"), Rows("db.big"));
  EXPECT_EQ(Rows("db.small").size(), 20000u);
}

TEST_F(CdcOptionsCli, SinkIdSkipsCommittedInputOnRelaunch) {
  const std::string first =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n"
      "{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\",\"seq\":2}\n";
  const std::string more = first + "{\"id\":1,\"name\":\"a2\",\"op\":\"UPDATE_AFTER\",\"seq\":3}\n";
  const std::string opts = std::string(kMor) + "--set sink_id=job-1 ";
  Accounting(Write("db.t", first, std::string(kSchema) + opts));
  // The same input again: all skipped, no new snapshot (Beam's rule for a repeated load).
  json again = Accounting(Write("db.t", first, opts));
  EXPECT_EQ(again["skipped"], 2);
  EXPECT_EQ(Snapshots("db.t").size(), 1u);
  // The input replayed from its start with more: only the rest is applied.
  json rest = Accounting(Write("db.t", more, opts));
  EXPECT_EQ(rest["skipped"], 2);
  EXPECT_EQ(rest["applied"], 1);
  auto snaps = Snapshots("db.t");
  ASSERT_EQ(snaps.size(), 2u);
  EXPECT_EQ(snaps.back()["summary"]["floe.sink-id"], "job-1");
  EXPECT_EQ(snaps.back()["summary"]["floe.commit-number"], "2");
  EXPECT_EQ(snaps.back()["summary"]["floe.input-position"], "3");
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a2\"}", "{\"id\":2,\"name\":\"b\"}"}));
  // Without a sink_id the same input is applied again (a plain write has no memory).
  Accounting(Write("db.t", first, kMor));
  EXPECT_EQ(Snapshots("db.t").size(), 3u);
}

// A relaunch under the same sink_id resumes only the same input: one that
// begins with the lines committed (sink/text_source.h). Another file (the
// defect: two new events were "skipped" and lost, exit 0), the same path
// whose committed part changed, or a stream on standard input that does not
// replay the committed lines, is refused whole with exit 2 naming both inputs,
// and nothing is written; the same file grown since resumes after the
// committed part, read from its path or replayed on standard input.
TEST_F(CdcOptionsCli, SinkIdRefusesAnotherInputWhole) {
  const std::string opts = std::string(kMor) + "--set sink_id=customers ";
  const std::string first =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n"
      "{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\",\"seq\":2}\n";
  WriteFile(dir_ / "day1.jsonl", first);
  Accounting(Floe("write --table db.t -i day1.jsonl " + std::string(kSchema) + opts));
  const std::vector<std::string> rows = Rows("db.t");
  ASSERT_EQ(rows.size(), 2u);
  // A new file of two events under the same sink_id.
  WriteFile(dir_ / "day2.jsonl",
            "{\"id\":3,\"name\":\"c\",\"op\":\"INSERT\",\"seq\":3}\n"
            "{\"id\":1,\"name\":\"a2\",\"op\":\"UPDATE_AFTER\",\"seq\":4}\n");
  RunResult other = Floe("write --table db.t -i day2.jsonl " + opts);
  EXPECT_EQ(other.rc, 2) << other.err << other.out;
  EXPECT_NE(other.err.find("day1.jsonl"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("day2.jsonl"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("new sink_id"), std::string::npos) << other.err;
  EXPECT_EQ(other.out, "");
  // What the token recorded of the input.
  auto snaps = Snapshots("db.t");
  ASSERT_EQ(snaps.size(), 1u);
  const json position =
      json::parse(snaps.back()["summary"].value("floe.source-position", std::string("null")));
  ASSERT_TRUE(position.is_object()) << snaps.back().dump();
  EXPECT_EQ(position["source"], "file");
  EXPECT_TRUE(position["path"].get<std::string>().ends_with("/day1.jsonl")) << position;
  EXPECT_EQ(position["line"], 2);
  EXPECT_EQ(position["bytes"], static_cast<int64_t>(first.size()));

  // Standard input after a file.
  RunResult piped = RunIn(dir_, Shell(FLOE_BIN) + " write --table db.t -i - " + opts + " < day2.jsonl");
  EXPECT_EQ(piped.rc, 2) << piped.err;
  EXPECT_NE(piped.err.find("<stdin>"), std::string::npos) << piped.err;
  EXPECT_NE(piped.err.find("day1.jsonl"), std::string::npos) << piped.err;

  // The same path, its committed part rewritten (same length, other values).
  WriteFile(dir_ / "day1.jsonl",
            "{\"id\":1,\"name\":\"x\",\"op\":\"INSERT\",\"seq\":1}\n"
            "{\"id\":2,\"name\":\"y\",\"op\":\"INSERT\",\"seq\":2}\n");
  RunResult changed = Floe("write --table db.t -i day1.jsonl " + opts);
  EXPECT_EQ(changed.rc, 2) << changed.err;
  EXPECT_NE(changed.err.find("does not begin with the lines committed"), std::string::npos) << changed.err;
  EXPECT_EQ(Snapshots("db.t").size(), 1u);
  EXPECT_EQ(Rows("db.t"), rows);

  // The same file, grown: only what follows the committed part is applied.
  WriteFile(dir_ / "day1.jsonl", first + "{\"id\":2,\"name\":\"b2\",\"op\":\"UPDATE_AFTER\",\"seq\":5}\n");
  json grown = Accounting(Floe("write --table db.t -i ./day1.jsonl " + opts));
  EXPECT_EQ(grown["skipped"], 2);
  EXPECT_EQ(grown["applied"], 1);
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}", "{\"id\":2,\"name\":\"b2\"}"}));
  // The same lines replayed on standard input (from another path, a copy)
  // are the same input: all skipped, nothing committed.
  fs::copy_file(dir_ / "day1.jsonl", dir_ / "copy.jsonl");
  RunResult replay = RunIn(dir_, Shell(FLOE_BIN) + " write --table db.t -i - " + opts + " < copy.jsonl");
  EXPECT_EQ(Accounting(replay)["skipped"], 3) << replay.err;
  EXPECT_EQ(Snapshots("db.t").size(), 2u);
}

// Issue 23 item 3: a routine `floe expire` broke a sink for good (its
// relaunch stopped: history expired), and the advice it gave (a new sink_id
// on the whole input) wrote keys 1 and 2 twice. Expire now keeps the
// snapshots a registered sink needs, and says so on stderr.
TEST_F(CdcOptionsCli, ExpireKeepsTheSnapshotsARegisteredSinkNeeds) {
  const std::string opts = std::string(kMor) + "--set sink_id=s1 ";
  const std::string day1 =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\",\"seq\":2}\n";
  Accounting(Write("db.t", day1, std::string(kSchema) + opts));
  Accounting(Write("db.t", "{\"id\":3,\"name\":\"c\",\"op\":\"INSERT\",\"seq\":3}\n", kMor));
  RunResult ex = Floe("expire --table db.t --retain-last 1 --older-than 99999999999999");
  ASSERT_EQ(ex.rc, 0) << ex.err;
  EXPECT_NE(ex.err.find("sink s1 needs"), std::string::npos) << ex.err;
  EXPECT_NE(ex.err.find("--release-sink s1"), std::string::npos) << ex.err;
  json r = json::parse(ex.out);
  EXPECT_FALSE(r["retained"]["sink s1"].empty()) << ex.out;
  // The relaunch on the grown input resumes after the committed part.
  json acc = Accounting(Write("db.t", day1 + "{\"id\":4,\"name\":\"d\",\"op\":\"INSERT\",\"seq\":4}\n", opts));
  EXPECT_EQ(acc["skipped"], 2);
  EXPECT_EQ(acc["applied"], 1);
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}", "{\"id\":2,\"name\":\"b\"}",
                                                     "{\"id\":3,\"name\":\"c\"}", "{\"id\":4,\"name\":\"d\"}"}));
  // Naming a sink that is not registered is a usage error.
  RunResult bad = Floe("expire --table db.t --release-sink nope");
  EXPECT_EQ(bad.rc, 2) << bad.err;
  EXPECT_NE(bad.err.find("--release-sink nope"), std::string::npos) << bad.err;
}

// Released by name, the sink's snapshots expire and its position is recorded
// in the table: the relaunch still continues exactly where it stopped.
TEST_F(CdcOptionsCli, AReleasedSinkResumesFromItsRecordedPosition) {
  const std::string opts = std::string(kMor) + "--set sink_id=s1 ";
  const std::string day1 =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\",\"seq\":2}\n";
  Accounting(Write("db.t", day1, std::string(kSchema) + opts));
  Accounting(Write("db.t", "{\"id\":3,\"name\":\"c\",\"op\":\"INSERT\",\"seq\":3}\n", kMor));
  Accounting(Write("db.t", "{\"id\":5,\"name\":\"e\",\"op\":\"INSERT\",\"seq\":5}\n", kMor));
  RunResult ex = Floe("expire --table db.t --retain-last 1 --older-than 99999999999999 --release-sink s1");
  ASSERT_EQ(ex.rc, 0) << ex.err;
  json r = json::parse(ex.out);
  EXPECT_TRUE(r["retained"].empty()) << ex.out;
  EXPECT_TRUE(r["properties-set"].contains("floe.sink-token.s1")) << ex.out;
  EXPECT_EQ(Snapshots("db.t").size(), 1u);
  json acc = Accounting(Write("db.t", day1 + "{\"id\":4,\"name\":\"d\",\"op\":\"INSERT\",\"seq\":4}\n", opts));
  EXPECT_EQ(acc["skipped"], 2);
  EXPECT_EQ(acc["applied"], 1);
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}", "{\"id\":2,\"name\":\"b\"}",
                                                     "{\"id\":3,\"name\":\"c\"}", "{\"id\":4,\"name\":\"d\"}",
                                                     "{\"id\":5,\"name\":\"e\"}"}));
}

// A sink whose token lay in history expired by someone else (another engine:
// here the snapshots are removed through the library) stops rather than risk
// applying the same changes twice, and its advice, followed, writes each key
// once; a sink that never committed to the table starts normally.
TEST_F(CdcOptionsCli, ExpiredTokenHistoryStopsTheSinkWithAdviceThatWritesNothingTwice) {
  const std::string opts = std::string(kMor) + "--set sink_id=old ";
  const std::string day1 =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\",\"seq\":2}\n";
  Accounting(Write("db.t", day1, std::string(kSchema) + opts));
  Accounting(Write("db.t", "{\"id\":3,\"name\":\"c\",\"op\":\"INSERT\",\"seq\":3}\n", kMor));
  {
    auto cat = floe::catalog::OpenHadoopCatalog("other-engine", (dir_ / "warehouse").string());
    ASSERT_TRUE(cat) << cat.error().ToString();
    auto loaded = (*cat)->LoadTable(*floe::catalog::ParseTableIdentifier("db.t"));
    ASSERT_TRUE(loaded) << loaded.error().ToString();
    std::vector<int64_t> old;
    for (const auto& s : loaded->metadata.snapshots) {
      if (s.snapshot_id != *loaded->metadata.current_snapshot_id) old.push_back(s.snapshot_id);
    }
    auto next = floe::iceberg::RemoveSnapshots(loaded->metadata, old);
    ASSERT_TRUE(next) << next.error().ToString();
    ASSERT_TRUE((*cat)->CommitTable(*loaded, std::move(*next)));
  }
  WriteFile(dir_ / "day1.jsonl", day1);
  RunResult r = Floe("write --table db.t -i day1.jsonl " + opts);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("expired"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("upsert=true"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("would add them a second time"), std::string::npos) << r.err;
  // The advice, followed: the whole input, a new sink_id, upsert=true.
  Accounting(Floe("write --table db.t -i day1.jsonl " + std::string(kMor) + "--set sink_id=again --set upsert=true"));
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}", "{\"id\":2,\"name\":\"b\"}",
                                                     "{\"id\":3,\"name\":\"c\"}"}));
  // A sink that never committed here is not stopped by the expired history.
  Accounting(Write("db.t", "{\"id\":4,\"name\":\"d\",\"op\":\"INSERT\",\"seq\":4}\n", std::string(kMor) + "--set sink_id=new"));
}

TEST_F(CdcOptionsCli, ErrorHandlingCollectsInvalidRows) {
  const std::string in =
      "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":1}\n"
      "{\"id\":2,\"name\":\"b\",\"op\":\"INSERT\"}\n"                 // no sequence number
      "{\"id\":null,\"name\":\"c\",\"op\":\"INSERT\",\"seq\":3}\n"    // null key
      "{\"id\":4,\"name\":\"d\",\"op\":\"MERGE\",\"seq\":4}\n"        // unknown change type
      "{\"id\":\"five\",\"name\":\"e\",\"op\":\"INSERT\",\"seq\":5}\n"  // does not fit BIGINT
      "{\"id\":6,\"name\":\"f\",\"op\":\"INSERT\",\"seq\":6}\n";
  // Without an error output the job fails on the first invalid row and commits nothing.
  RunResult r = Write("db.t", in, std::string(kSchema) + kMor);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("input position"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error_handling"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "db" / "t" / "metadata"));
  // With one, the invalid rows go there with their position and reason; the rest commits.
  json acc = Accounting(Write("db.t", in, std::string(kSchema) + kMor + "--set error_handling=output:errors.jsonl"));
  EXPECT_EQ(acc["errors"], 4);
  EXPECT_EQ(acc["applied"], 2);
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}", "{\"id\":6,\"name\":\"f\"}"}));
  const std::string errors = ReadFile(dir_ / "errors.jsonl");
  std::vector<int64_t> positions;
  size_t start = 0;
  while (start < errors.size()) {
    size_t end = errors.find('\n', start);
    json j = json::parse(errors.substr(start, end - start));
    positions.push_back(j["position"].get<int64_t>());
    EXPECT_FALSE(j["reason"].get<std::string>().empty());
    start = end + 1;
  }
  EXPECT_EQ(positions, (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_NE(errors.find("column 'id'"), std::string::npos) << errors;  // the decoder's message

  // An Iceberg table as the error output, written once per position across relaunches.
  const std::string to_table = std::string(kSchema) + kMor + "--set sink_id=e --set error_handling=table:db.errors ";
  Accounting(Write("db.t2", in, to_table));
  Accounting(Write("db.t2", in, to_table));  // the same input again: nothing new
  std::vector<std::string> rows = Rows("db.errors");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_NE(rows[0].find("\"position\":2"), std::string::npos) << rows[0];
  EXPECT_NE(rows[0].find("sequence number is missing"), std::string::npos) << rows[0];
  EXPECT_NE(errors.find("\"input\":\"{\\\"id\\\":\\\"five\\\""), std::string::npos) << errors;
}

TEST_F(CdcOptionsCli, AllowedLatenessSplitsDeadLetterAndDropped) {
  const std::string opts = std::string(kMor) + "--set sink_id=s --set error_handling=dead_letter:late.jsonl ";
  Accounting(Write("db.t", "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":10}\n", std::string(kSchema) + opts));
  // A change older than the committed one of its key is late: to the dead-letter output.
  json acc = Accounting(Write("db.t",
                              "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":10}\n"
                              "{\"id\":1,\"name\":\"old\",\"op\":\"UPDATE_AFTER\",\"seq\":5}\n",
                              opts));
  EXPECT_EQ(acc["dead_letter"], 1);
  EXPECT_NE(ReadFile(dir_ / "late.jsonl").find("\"sequence_number\":5"), std::string::npos);
  // Beyond allowed_lateness_seconds it is dropped and counted.
  ::sleep(2);
  json acc2 = Accounting(Write("db.t",
                               "{\"id\":1,\"name\":\"a\",\"op\":\"INSERT\",\"seq\":10}\n"
                               "{\"id\":1,\"name\":\"old\",\"op\":\"UPDATE_AFTER\",\"seq\":5}\n"
                               "{\"id\":1,\"name\":\"older\",\"op\":\"UPDATE_AFTER\",\"seq\":6}\n",
                               opts + "--set allowed_lateness_seconds=1"));
  EXPECT_EQ(acc2["dropped"], 2);
  EXPECT_EQ(Rows("db.t"), (std::vector<std::string>{"{\"id\":1,\"name\":\"a\"}"}));
}

TEST_F(CdcOptionsCli, TriggeringFrequencyCommitsStreamingInputAndSigtermFlushes) {
  // Lines arrive over ~3 s; commits every second. Once all four are
  // committed (the accounting line says so) and an idle heartbeat has
  // committed once more (a new metadata version), SIGTERM flushes, commits
  // once more and exits 0. Each wait polls for its event (bounded at 60 s).
  const std::string cmd =
      "(mkfifo in.fifo; "
      "(for i in 1 2 3 4; do echo \"{\\\"id\\\":$i,\\\"name\\\":\\\"n\\\",\\\"op\\\":\\\"INSERT\\\",\\\"seq\\\":$i}\"; "
      "sleep 0.8; done; exec sleep 60) > in.fifo & P=$!; " +
      Shell(FLOE_BIN) + " write --table db.s -i - " + kSchema + kMor +
      "--set sink_id=st --set triggering_frequency_seconds=1 --set token_heartbeat_seconds=1 < in.fifo > out.jsonl "
      "& F=$!; " + WaitFor("grep -q '\"applied\":4' out.jsonl") +
      "v=$(ls warehouse/db/s/metadata | grep -c metadata.json); " +
      WaitFor("[ $(ls warehouse/db/s/metadata | grep -c metadata.json) -gt $v ]") +
      "kill -TERM $F; wait $F; rc=$?; kill $P; cat out.jsonl; exit $rc)";
  RunResult r = RunIn(dir_, cmd);
  EXPECT_EQ(r.rc, 0) << r.err;
  auto snaps = Snapshots("db.s");
  EXPECT_GE(snaps.size(), 3u);  // several windows and at least one heartbeat
  int64_t last = 0;
  bool heartbeat = false;
  for (const auto& s : snaps) {
    const int64_t n = std::stoll(s["summary"]["floe.commit-number"].get<std::string>());
    EXPECT_EQ(n, last + 1);
    last = n;
    // value(), not operator[]: a heartbeat's summary has no added-records, and
    // const operator[] on a missing key is undefined (nlohmann asserts on it in
    // builds without NDEBUG: the asan run aborted here).
    heartbeat = heartbeat || s["summary"].value("added-records", "0") == "0";
  }
  EXPECT_TRUE(heartbeat) << "an idle sink with token_heartbeat_seconds commits empty token refreshes";
  EXPECT_EQ(Rows("db.s").size(), 4u);
  // Each commit printed its accounting line.
  EXPECT_GE(std::count(r.out.begin(), r.out.end(), '\n'), 2);
}

// The table cache: with it off every window reloads its tables from the
// catalog; on, a table is loaded once (refreshed every
// table_cache_refresh_interval_seconds, staggered over
// table_cache_polling_buckets), and maximum_table_cache_size unloads the least
// recently used idle tables.
TEST_F(CdcOptionsCli, TableCacheOptionsDecideWhenTablesAreLoaded) {
  auto run = [&](const std::string& name, const std::string& opts) -> json {
    const std::string cmd =
        "(mkfifo " + name + ".fifo; "
        "(for i in 1 2 3 4 5 6 7 8; do echo \"{\\\"id\\\":$i,\\\"r\\\":\\\"r$((i % 2))\\\",\\\"seq\\\":$i}\"; "
        "sleep 0.5; done; exec sleep 60) > " + name + ".fifo & P=$!; " +
        Shell(FLOE_BIN) + " write --table 'db." + name + "_{r}' -i - --schema 'id BIGINT, r STRING, seq BIGINT' "
        "--set mode=merge-on-read --set upsert=true --set sequence_number_column=seq --set equality_columns=id "
        "--set triggering_frequency_seconds=1 " + opts + " < " + name + ".fifo > " + name + ".out & F=$!; " +
        WaitFor("grep -q '\"applied\":8' " + name + ".out") +
        "kill -TERM $F; wait $F; rc=$?; kill $P; cat " + name + ".out; exit $rc)";
    RunResult r = RunIn(dir_, cmd);
    EXPECT_EQ(r.rc, 0) << r.err;
    std::string last = r.out;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    return json::parse(last, nullptr, false);
  };
  auto loads = [](const json& acc) {
    std::map<std::string, int64_t> out;
    for (const auto& d : acc["destinations"]) out[d["table"].get<std::string>()] = d["table_loads"].get<int64_t>();
    return out;
  };
  // Off (the default): one load per window that has rows for the table (~4 windows).
  auto off = loads(run("off", ""));
  ASSERT_EQ(off.size(), 2u);
  for (const auto& [t, n] : off) EXPECT_GE(n, 3) << t;
  // On: loaded once.
  auto on = loads(run("on", "--set use_side_input_table_cache=true"));
  for (const auto& [t, n] : on) EXPECT_EQ(n, 1) << t;
  // On with one table at most: the other is unloaded and loaded again.
  auto one = loads(run("one", "--set use_side_input_table_cache=true --set maximum_table_cache_size=1"));
  int64_t total = 0;
  for (const auto& [t, n] : one) total += n;
  EXPECT_GE(total, 4);
  // On with a refresh every second: reloaded as time passes; over many
  // polling buckets the refreshes are staggered (no more loads, usually fewer).
  auto refresh = loads(run("ref", "--set use_side_input_table_cache=true --set table_cache_refresh_interval_seconds=1"));
  int64_t refreshed = 0;
  for (const auto& [t, n] : refresh) {
    EXPECT_GE(n, 2) << t;
    refreshed += n;
  }
  auto staggered = loads(run("stg", "--set use_side_input_table_cache=true --set table_cache_refresh_interval_seconds=1 "
                                    "--set table_cache_polling_buckets=1000"));
  int64_t stagger_total = 0;
  for (const auto& [t, n] : staggered) stagger_total += n;
  EXPECT_LE(stagger_total, refreshed + 1);
  // The cache options need the cache.
  WriteFile(dir_ / "in.jsonl", "{\"id\":1}\n");
  RunResult r = Floe("write --table db.x -i in.jsonl --schema 'id BIGINT' --set maximum_table_cache_size=2");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("use_side_input_table_cache"), std::string::npos) << r.err;
}

}  // namespace cdc_options_cli_test
}  // namespace floe_cli_test
