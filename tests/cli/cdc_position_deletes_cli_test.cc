// Deletes by position (issue 24, sections 2 and 3): a merge-on-read sink
// indexes the keys of the table it opens (key_index.h) and turns an update or
// delete of a committed key into a position delete file scoped to its data
// file; `delete_kind: equality` keeps equality deletes. A second process's
// change older than the committed row (the sequence column kept in the
// table) is late; a data file another writer removed under the sink fails
// the commit instead of deleting from a file that is gone.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/cdc_model.h"
#include "testing/avro_java.h"

namespace cdc_position_deletes_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using cdc_test::LogPositions;
using cdc_test::ScanRows;
using cdc_test::SmallWrite;
using cdc_test::VerifyRows;

// Waits (up to a minute) until sink `sink` has committed `number` times.
void WaitForCommit(const fs::path& dir, const std::string& sink, int64_t number) {
  for (int i = 0; i < 600; ++i) {
    if (fs::exists(dir / "wh" / "db" / "t" / "metadata" / "version-hint.text")) {
      for (const cdc_test::SnapshotInfo& s : cdc_test::Snapshots(dir)) {
        if (s.sink_id == sink && s.commit_number >= number) return;
      }
    }
    ::usleep(100 * 1000);
  }
  ADD_FAILURE() << "sink " << sink << " did not commit " << number << " times within a minute";
}

class CdcPositionDeletes : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_cdc_posdel_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  // The delete files of the current snapshot, by verify_table.mjs --explain:
  // {position, equality}.
  std::pair<int64_t, int64_t> DeleteFiles() {
    RunResult r = Node(dir_, "verify_table.mjs", {"wh/db/t", "--explain"});
    EXPECT_EQ(r.rc, 0) << r.err;
    std::istringstream in(r.out);
    std::string last;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) last = line;
    }
    auto j = nlohmann::json::parse(last, nullptr, false);
    if (j.is_discarded() || !j.contains("summary")) {
      ADD_FAILURE() << "verify_table --explain: " << r.out;
      return {-1, -1};
    }
    return {j["summary"].value("position_delete_files", int64_t{-1}),
            j["summary"].value("equality_delete_files", int64_t{-1})};
  }
  // Every delete entry of the table's manifests names its data file.
  void ExpectReferencedDataFiles() {
    RunResult r = Node(dir_, "verify_table.mjs", {"wh/db/t", "--info"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    int position_entries = 0;
    for (const auto& m : j["manifests"]) {
      for (const auto& e : m["entries"]) {
        if (e.value("content", std::string()) != "POSITION_DELETES") continue;
        ++position_entries;
        EXPECT_TRUE(e.contains("referenced_data_file") && e["referenced_data_file"].is_string()) << e.dump();
      }
    }
    EXPECT_GT(position_entries, 0);
  }

  fs::path dir_;
};

TEST_F(CdcPositionDeletes, RestartOnAnExistingTableDeletesByPosition) {
  WriteFile(dir_ / "one.jsonl", R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                                "\n"
                                R"({"id":2,"name":"a","op":"INSERT","seq":2})"
                                "\n"
                                R"({"id":3,"name":"a","op":"INSERT","seq":3})"
                                "\n");
  ASSERT_EQ(RunIn(dir_, SmallWrite(" --set sink_id=s1", "one.jsonl")).rc, 0);
  // A new process (another sink): an update, a delete and an insert of a
  // new key.
  WriteFile(dir_ / "two.jsonl", R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":10})"
                                "\n"
                                R"({"id":2,"name":"a","op":"DELETE","seq":11})"
                                "\n"
                                R"({"id":4,"name":"b","op":"INSERT","seq":12})"
                                "\n");
  RunResult r = RunIn(dir_, SmallWrite(" --set sink_id=s2", "two.jsonl"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::vector<std::string> want = {R"({"id":1,"name":"b"})", R"({"id":3,"name":"a"})",
                                         R"({"id":4,"name":"b"})"};
  EXPECT_EQ(ScanRows(dir_), want);
  EXPECT_EQ(VerifyRows(dir_), want);
  const auto [position, equality] = DeleteFiles();
  EXPECT_EQ(position, 1);  // one data file, one delete file
  EXPECT_EQ(equality, 0);
  ExpectReferencedDataFiles();
  // A third run changes rows of both earlier data files (id 3 in the first,
  // 1 in the second; the INSERT of the live key 3 replaces its row): one
  // delete file each — the first data file's new one holds its earlier
  // positions too and replaces its live one, so two are live, not three.
  WriteFile(dir_ / "three.jsonl", R"({"id":1,"name":"c","op":"UPDATE_AFTER","seq":20})"
                                  "\n"
                                  R"({"id":3,"name":"c","op":"INSERT","seq":21})"
                                  "\n");
  r = RunIn(dir_, SmallWrite(" --set sink_id=s3", "three.jsonl"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::vector<std::string> want3 = {R"({"id":1,"name":"c"})", R"({"id":3,"name":"c"})",
                                          R"({"id":4,"name":"b"})"};
  EXPECT_EQ(ScanRows(dir_), want3);
  EXPECT_EQ(VerifyRows(dir_), want3);
  EXPECT_EQ(DeleteFiles(), (std::pair<int64_t, int64_t>{2, 0}));
  // Apache Avro Java reads the manifests (when installed: Debian's
  // libavro-java; shared/interop/avro_java.sh).
  if (floe::test::AvroJavaInstalled()) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir_ / "wh" / "db" / "t" / "metadata")) {
      if (e.path().extension() == ".avro") files.push_back(e.path().string());
    }
    const floe::test::AvroJavaResult avro = floe::test::AvroJava(files);
    EXPECT_EQ(avro.code, 0) << avro.command << "\n" << avro.out;
  } else {
    std::printf("note: Avro Java is not installed (libavro-java): the manifests were not read by it\n");
  }
}

TEST_F(CdcPositionDeletes, OneProcessDeletesByPositionWhatItCommittedItself) {
  // Streamed: the second window updates keys the first committed, in the same
  // process (the index is kept current by the sink's own commits).
  const std::string w1 = R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                         "\n"
                         R"({"id":2,"name":"a","op":"INSERT","seq":2})"
                         "\n";
  const std::string w2 = R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":3})"
                         "\n"
                         R"({"id":2,"name":"a","op":"DELETE","seq":4})"
                         "\n";
  RunResult r = cdc_test::RunStreaming(
      dir_, SmallWrite(" --set sink_id=s1 --set triggering_frequency_seconds=1", "-"), {w1, w2}, 0,
      [&] { WaitForCommit(dir_, "s1", 1); });
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::vector<std::string> want = {R"({"id":1,"name":"b"})"};
  EXPECT_EQ(ScanRows(dir_), want);
  EXPECT_EQ(VerifyRows(dir_), want);
  EXPECT_EQ(DeleteFiles(), (std::pair<int64_t, int64_t>{1, 0}));
}

TEST_F(CdcPositionDeletes, DeleteKindChoosesPositionOrEqualityDeletes) {
  WriteFile(dir_ / "one.jsonl", R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                                "\n");
  WriteFile(dir_ / "two.jsonl", R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":2})"
                                "\n");
  ASSERT_EQ(RunIn(dir_, SmallWrite(" --set sink_id=s1", "one.jsonl")).rc, 0);
  RunResult r = RunIn(dir_, SmallWrite(" --set sink_id=s2 --set delete_kind=equality", "two.jsonl"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ScanRows(dir_), std::vector<std::string>{R"({"id":1,"name":"b"})"});
  EXPECT_EQ(DeleteFiles(), (std::pair<int64_t, int64_t>{0, 1}));
  r = RunIn(dir_, SmallWrite(" --set sink_id=s3 --set delete_kind=vector", "two.jsonl"));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("delete_kind"), std::string::npos) << r.err;
}

TEST_F(CdcPositionDeletes, GranularityPartitionWritesOneDeleteFilePerPartition) {
  WriteFile(dir_ / "one.jsonl", R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                                "\n");
  WriteFile(dir_ / "two.jsonl", R"({"id":2,"name":"a","op":"INSERT","seq":2})"
                                "\n");
  WriteFile(dir_ / "three.jsonl", R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":3})"
                                  "\n"
                                  R"({"id":2,"name":"a","op":"DELETE","seq":4})"
                                  "\n");
  ASSERT_EQ(RunIn(dir_, SmallWrite(" --set sink_id=s1", "one.jsonl")).rc, 0);
  ASSERT_EQ(RunIn(dir_, SmallWrite(" --set sink_id=s2", "two.jsonl")).rc, 0);
  // Rows of two data files changed: one position delete file for both.
  RunResult r = RunIn(dir_, SmallWrite(" --set sink_id=s3 --set write.delete.granularity=partition", "three.jsonl"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ScanRows(dir_), std::vector<std::string>{R"({"id":1,"name":"b"})"});
  EXPECT_EQ(VerifyRows(dir_), std::vector<std::string>{R"({"id":1,"name":"b"})"});
  EXPECT_EQ(DeleteFiles(), (std::pair<int64_t, int64_t>{1, 0}));
  r = RunIn(dir_, SmallWrite(" --set sink_id=s4 --set write.delete.granularity=row", "three.jsonl"));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("write.delete.granularity"), std::string::npos) << r.err;
}

TEST_F(CdcPositionDeletes, ASecondProcessLateChangeIsRefusedBySequence) {
  // The sequence column kept in the table: a new process reads each key's
  // sequence number with its position.
  WriteFile(dir_ / "one.jsonl", R"({"id":1,"name":"new","op":"INSERT","seq":11})"
                                "\n");
  ASSERT_EQ(RunIn(dir_, SmallWrite(" --set sink_id=a --set keep=id,name,seq", "one.jsonl")).rc, 0);
  WriteFile(dir_ / "two.jsonl", R"({"id":1,"name":"old","op":"UPDATE_AFTER","seq":3})"
                                "\n"
                                R"({"id":2,"name":"x","op":"INSERT","seq":4})"
                                "\n");
  RunResult r = RunIn(dir_, SmallWrite(" --set sink_id=b --set keep=id,name,seq", "two.jsonl"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ScanRows(dir_), (std::vector<std::string>{R"({"id":1,"name":"new","seq":11})",
                                                      R"({"id":2,"name":"x","seq":4})"}));
  EXPECT_EQ(LogPositions(dir_ / "dead.jsonl"), std::set<int64_t>{1});
}

TEST_F(CdcPositionDeletes, ThreeWritersTheHighestSequenceWins) {
  // Three processes on overlapping keys, committing one after another in
  // an order unrelated to their sequence numbers: each key keeps its change
  // of the highest sequence number.
  WriteFile(dir_ / "a.jsonl", R"({"id":1,"name":"a","op":"INSERT","seq":20})"
                              "\n"
                              R"({"id":2,"name":"a","op":"INSERT","seq":5})"
                              "\n");
  WriteFile(dir_ / "b.jsonl", R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":10})"
                              "\n"
                              R"({"id":2,"name":"b","op":"UPDATE_AFTER","seq":30})"
                              "\n"
                              R"({"id":3,"name":"b","op":"INSERT","seq":40})"
                              "\n");
  WriteFile(dir_ / "c.jsonl", R"({"id":2,"name":"c","op":"UPDATE_AFTER","seq":25})"
                              "\n"
                              R"({"id":3,"name":"c","op":"DELETE","seq":35})"
                              "\n");
  for (const char* s : {"a", "b", "c"}) {
    RunResult r = RunIn(dir_, SmallWrite(std::string(" --set sink_id=") + s + " --set keep=id,name,seq",
                                         std::string(s) + ".jsonl"));
    ASSERT_EQ(r.rc, 0) << s << ": " << r.err;
  }
  const std::vector<std::string> want = {R"({"id":1,"name":"a","seq":20})", R"({"id":2,"name":"b","seq":30})",
                                         R"({"id":3,"name":"b","seq":40})"};
  EXPECT_EQ(ScanRows(dir_), want);
  EXPECT_EQ(VerifyRows(dir_), want);
}

// The sink opens the table (indexing key 1 in the first data file), then
// another writer overwrites the table (the file is removed) before the
// sink's window commits. With write.delete.granularity=file the window's
// deletes are written at the commit: it resolves them again against the
// overwritten table (key 1 now lives in the overwrite's file) and commits —
// the table is the two commits folded in order. With partition granularity
// (delete files written in the flush) the commit fails, naming the file, and
// publishes nothing.
TEST_F(CdcPositionDeletes, ADataFileRemovedUnderTheSinkIsReplannedOrFailsTheCommit) {
  for (const std::string granularity : {"file", "partition"}) {
    SCOPED_TRACE(granularity);
    fs::remove_all(dir_ / "wh");
    WriteFile(dir_ / "one.jsonl", R"({"id":1,"name":"a","op":"INSERT","seq":1})"
                                  "\n");
    ASSERT_EQ(RunIn(dir_, SmallWrite(" --set sink_id=s1", "one.jsonl")).rc, 0);
    const std::string update = R"({"id":1,"name":"b","op":"UPDATE_AFTER","seq":2})"
                               "\n";
    bool overwritten = false;
    WriteFile(dir_ / "rows.jsonl", R"({"id":1,"name":"z"})"
                                   "\n");
    RunResult r = cdc_test::RunStreaming(
        dir_,
        SmallWrite(" --set sink_id=s2 --set triggering_frequency_seconds=1 --set use_side_input_table_cache=true "
                   "--set write.delete.granularity=" +
                       granularity,
                   "-"),
        {R"({"id":9,"name":"a","op":"INSERT","seq":1})"
         "\n",
         update},
        0, [&] {
          WaitForCommit(dir_, "s2", 1);
          if (overwritten) return;
          overwritten = true;
          RunResult o = FloeIn(dir_, {"write", "--catalog", "warehouse=./wh", "--table", "db.t", "--set",
                                      "overwrite-enabled=true", "--input", "rows.jsonl"});
          EXPECT_EQ(o.rc, 0) << o.err;
        });
    if (granularity == "file") {
      EXPECT_EQ(r.rc, 0) << r.err;
      EXPECT_NE(r.out.find("\"vector_replans\":1"), std::string::npos) << r.out;
      const std::vector<std::string> want = {R"({"id":1,"name":"b"})"};
      EXPECT_EQ(ScanRows(dir_), want);
      EXPECT_EQ(VerifyRows(dir_), want);
    } else {
      EXPECT_NE(r.rc, 0);
      EXPECT_NE(r.err.find("was removed by another writer"), std::string::npos) << r.err;
      // Nothing of the failed window is published: the overwrite's row stays.
      EXPECT_EQ(ScanRows(dir_), std::vector<std::string>{R"({"id":1,"name":"z"})"});
    }
  }
}

}  // namespace cdc_position_deletes_cli_test
