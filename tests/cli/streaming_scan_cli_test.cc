// `floe scan --set streaming=true`: a reader process started before three
// commits (two appends and a CDC window, each by `floe write`) prints every
// change exactly once, in commit order, with its row kind in `op`; applying
// the printed changelog to the table as it was gives the table as it is. A
// reader killed with SIGKILL (anywhere: the kill lands after a commit it may
// be printing) and relaunched with the same --checkpoint prints the rest: its
// first run's output up to the checkpoint plus the second run's output is
// the whole changelog, with no gap and no repeat; a restart from a snapshot
// id (INCREMENTAL_FROM_SNAPSHOT_ID) prints the same. Nothing waits on a
// wall-clock guess: readers poll every 20 ms and stop by --max-snapshots;
// the test polls the checkpoint file (a bound of minutes only catches a hang).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_util.h"

namespace streaming_scan_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers
using json = nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

using Reader = FloeProcess;

class StreamingScanCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_streaming_cli_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  // `floe write` of `lines` into db.t (extra args: the mode); its snapshot id.
  int64_t Write(const std::string& lines, const std::string& args) {
    WriteFile(dir_ / "in.jsonl", lines);
    RunResult r = Floe("write --table db.t -i in.jsonl " + args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return CurrentSnapshot();
  }
  int64_t CurrentSnapshot() {
    RunResult r = Floe("snapshots --table db.t");
    EXPECT_EQ(r.rc, 0) << r.err;
    for (const auto& line : Lines(r.out)) {
      json j = json::parse(line);
      for (const auto& ref : j["refs"]) {
        if (ref == "main") return j["snapshot-id"].get<int64_t>();
      }
    }
    ADD_FAILURE() << "no current snapshot: " << r.out;
    return 0;
  }
  // The table's rows now, sorted JSON lines.
  std::vector<std::string> Rows() {
    RunResult r = Floe("scan --table db.t");
    EXPECT_EQ(r.rc, 0) << r.err;
    auto rows = Lines(r.out);
    std::sort(rows.begin(), rows.end());
    return rows;
  }
  // The snapshot id in the checkpoint file, once it is there.
  std::optional<int64_t> CheckpointAt(const std::string& name) {
    std::string text = ReadFile(dir_ / name);
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.contains("after-snapshot-id") || j["after-snapshot-id"].is_null())
      return std::nullopt;
    return j["after-snapshot-id"].get<int64_t>();
  }
  // Polls until the checkpoint shows `snapshot_id` (the reader must live).
  void AwaitCheckpoint(Reader& reader, const std::string& name, int64_t snapshot_id) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (CheckpointAt(name) != snapshot_id) {
      ASSERT_TRUE(reader.running()) << "the reader stopped: " << reader.err();
      ASSERT_LT(std::chrono::steady_clock::now(), give_up)
          << "checkpoint never reached " << snapshot_id;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // Creates db.t (keyed by id) with two rows; its snapshot id.
  int64_t CreateTable() {
    return Write("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n",
                 "--schema 'id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED'");
  }
  // The three commits: two appends, then a CDC window (update 1, delete 2,
  // insert 10). Their snapshot ids.
  int64_t Append1() { return Write("{\"id\":3,\"name\":\"c\"}\n", ""); }
  int64_t Append2() { return Write("{\"id\":4,\"name\":\"d\"}\n{\"id\":5,\"name\":\"e\"}\n", ""); }
  int64_t CdcWindow() {
    return Write(
        "{\"id\":1,\"name\":\"a2\",\"op\":\"UPDATE_AFTER\",\"seq\":1}\n"
        "{\"id\":2,\"op\":\"DELETE\",\"seq\":2}\n"
        "{\"id\":10,\"name\":\"j\",\"op\":\"INSERT\",\"seq\":3}\n",
        "--set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq");
  }
  // What each snapshot prints, in order: the table scan of the first, then
  // the three commits.
  static std::vector<std::vector<std::string>> Expected() {
    return {{R"({"op":"+I","id":1,"name":"a"})", R"({"op":"+I","id":2,"name":"b"})"},
            {R"({"op":"+I","id":3,"name":"c"})"},
            {R"({"op":"+I","id":4,"name":"d"})", R"({"op":"+I","id":5,"name":"e"})"},
            {R"({"op":"-U","id":1,"name":"a"})", R"({"op":"+U","id":1,"name":"a2"})",
             R"({"op":"-D","id":2,"name":"b"})", R"({"op":"+I","id":10,"name":"j"})"}};
  }
  static std::vector<std::string> Flatten(const std::vector<std::vector<std::string>>& blocks,
                                          size_t from, size_t to) {
    std::vector<std::string> out;
    for (size_t i = from; i < to; ++i) out.insert(out.end(), blocks[i].begin(), blocks[i].end());
    return out;
  }

  fs::path dir_;
};

std::vector<std::string> StreamArgs(std::vector<std::string> extra) {
  std::vector<std::string> a = {
      "scan", "--table", "db.t", "--set", "streaming=true", "--set", "monitor-interval=20ms"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Applies printed changelog lines to sorted table rows.
std::vector<std::string> Apply(std::vector<std::string> rows,
                               const std::vector<std::string>& changes) {
  for (const auto& line : changes) {
    json j = json::parse(line);
    const std::string op = j["op"];
    j.erase("op");
    const std::string row = j.dump();
    if (op == "-D" || op == "-U") {
      auto it = std::find(rows.begin(), rows.end(), row);
      EXPECT_NE(it, rows.end()) << "a removed row that is not in the table: " << line;
      if (it != rows.end()) rows.erase(it);
    } else {
      rows.push_back(row);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST_F(StreamingScanCli, AReaderStartedBeforeThreeCommitsSeesEveryChangeOnceInOrder) {
  const int64_t s0 = CreateTable();
  const std::vector<std::string> before = Rows();
  Reader reader(dir_, "reader",
                StreamArgs({"--set", "starting-strategy=TABLE_SCAN_THEN_INCREMENTAL",
                            "--max-snapshots", "4", "--checkpoint", "cp.json"}));
  // Started: the table scan of s0 is out (and checkpointed).
  AwaitCheckpoint(reader, "cp.json", s0);
  if (HasFatalFailure()) return;
  // Three commits back to back: one discovery may find several.
  Append1();
  Append2();
  const int64_t s3 = CdcWindow();
  ASSERT_EQ(reader.Wait(), 0) << reader.err();
  EXPECT_EQ(CheckpointAt("cp.json"), s3);

  const auto expected = Expected();
  const std::vector<std::string> printed = Lines(reader.out());
  EXPECT_EQ(printed, Flatten(expected, 0, 4));
  // The changelog after the table scan turns the table as it was into the
  // table as it is.
  EXPECT_EQ(Apply(before, Flatten(expected, 1, 4)), Rows());
  EXPECT_EQ(Apply({}, printed), Rows());
}

TEST_F(StreamingScanCli, KilledAndRestartedFromTheCheckpointResumesWithoutGapsOrRepeats) {
  const int64_t s0 = CreateTable();
  const auto expected = Expected();
  std::vector<int64_t> ids = {s0};
  auto first =
      std::make_unique<Reader>(dir_, "first",
                               StreamArgs({"--set", "starting-strategy=TABLE_SCAN_THEN_INCREMENTAL",
                                           "--checkpoint", "cp.json"}));
  AwaitCheckpoint(*first, "cp.json", s0);
  if (HasFatalFailure()) return;
  ids.push_back(Append1());
  AwaitCheckpoint(*first, "cp.json", ids.back());
  if (HasFatalFailure()) return;
  // Killed right after the next commit: it may be printing that snapshot.
  ids.push_back(Append2());
  first->Kill();
  const std::optional<int64_t> at = CheckpointAt("cp.json");
  ASSERT_TRUE(at);
  const size_t done = static_cast<size_t>(std::find(ids.begin(), ids.end(), *at) - ids.begin()) + 1;
  ASSERT_TRUE(done == 2 || done == 3) << "checkpoint " << *at;
  // Its output: every snapshot up to the checkpoint, then at most a part of
  // the next one (printed, not yet checkpointed).
  const std::vector<std::string> first_out = Lines(first->out());
  const std::vector<std::string> committed = Flatten(expected, 0, done);
  ASSERT_GE(first_out.size(), committed.size()) << first->out();
  EXPECT_EQ(std::vector<std::string>(first_out.begin(), first_out.begin() + committed.size()),
            committed);
  if (done < expected.size()) {
    std::vector<std::string> partial(first_out.begin() + committed.size(), first_out.end());
    ASSERT_LE(partial.size(), expected[done].size());
    EXPECT_TRUE(std::equal(partial.begin(), partial.end(), expected[done].begin()));
  }
  first.reset();

  ids.push_back(CdcWindow());
  // The same command (the strategy is not consulted: the checkpoint is),
  // bounded by the snapshots left.
  Reader second(
      dir_, "second",
      StreamArgs({"--set", "starting-strategy=TABLE_SCAN_THEN_INCREMENTAL", "--checkpoint",
                  "cp.json", "--max-snapshots", std::to_string(4 - done)}));
  ASSERT_EQ(second.Wait(), 0) << second.err();
  EXPECT_EQ(Lines(second.out()), Flatten(expected, done, 4));
  EXPECT_EQ(CheckpointAt("cp.json"), ids.back());
  // Up to the checkpoint from the first run, the rest from the second: the
  // whole changelog once.
  std::vector<std::string> all = committed;
  for (const auto& l : Lines(second.out())) all.push_back(l);
  EXPECT_EQ(all, Flatten(expected, 0, 4));
  EXPECT_EQ(Apply({}, all), Rows());

  // Restarted from a snapshot id instead: the same rows from there on.
  Reader by_id(dir_, "by_id",
               StreamArgs({"--set", "starting-strategy=INCREMENTAL_FROM_SNAPSHOT_ID", "--set",
                           "start-snapshot-id=" + std::to_string(ids[done]), "--max-snapshots",
                           std::to_string(4 - done)}));
  ASSERT_EQ(by_id.Wait(), 0) << by_id.err();
  EXPECT_EQ(Lines(by_id.out()), Flatten(expected, done, 4));
}

TEST_F(StreamingScanCli, UsageErrorsNameTheOptionOrFlag) {
  const int64_t s0 = CreateTable();
  RunResult r = Floe("scan --table db.t --set monitor-interval=1s");
  EXPECT_NE(r.rc, 0);
  EXPECT_THAT(r.err, ::testing::HasSubstr("needs 'streaming=true'"));
  r = Floe("scan --table db.t --max-snapshots 1");
  EXPECT_NE(r.rc, 0);
  EXPECT_THAT(r.err, ::testing::HasSubstr("--max-snapshots needs --set streaming=true"));
  r = Floe("scan --table db.t --set streaming=true --limit 3");
  EXPECT_NE(r.rc, 0);
  EXPECT_THAT(r.err, ::testing::HasSubstr("--limit is for batch reads"));
  r = Floe("scan --table db.t --set streaming=true --set monitor-interval=often");
  EXPECT_NE(r.rc, 0);
  EXPECT_THAT(r.err, ::testing::HasSubstr("monitor-interval"));
  WriteFile(dir_ / "bad.json",
            "{\"table-uuid\":\"x\",\"branch\":\"main\",\"after-snapshot-id\":1}\n");
  r = Floe("scan --table db.t --set streaming=true --checkpoint bad.json --max-snapshots 1");
  EXPECT_NE(r.rc, 0);
  EXPECT_THAT(r.err, ::testing::HasSubstr("belongs to table x"));
  // A batch read of a range with a CDC window is still refused by the
  // incremental (append-only) batch read, which says why; the streaming
  // read bounded by --max-snapshots is the changelog of such a range.
  CdcWindow();
  r = Floe("scan --table db.t --set start-snapshot-id=" + std::to_string(s0));
  EXPECT_NE(r.rc, 0);
  EXPECT_THAT(r.err, ::testing::HasSubstr("only append snapshots"));
}

}  // namespace streaming_scan_cli_test
