// A merge-on-read table with a key never holds two rows of one key, whatever
// the arrival order (issue 24, section 1): an INSERT of a key that may be live
// — the table held it when the sink opened it, or the sink applied it since —
// replaces its row instead of adding a second. The smallest out-of-order case
// (one key, three lines a commit apart, the last a late DELETE of the first
// row), a second sink_id inserting keys the first committed, and rows another
// writer appended. Each ended with two rows of the key before.
#include <gtest/gtest.h>

#include <string>

#include "cli/cdc_model.h"

namespace cdc_key_unique_cli_test {

using namespace floe_cli_test;  // NOLINT: test helpers

class CdcKeyUniqueCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_cdc_key_unique_");
    WriteFile(dir_ / "cdc.yaml",
              "table: db.t\n"
              "sequence_number_column: seq\n"
              "change_type_column: op\n"
              "equality_columns: [id]\n"
              "error_handling:\n  dead_letter: dead.jsonl\n");
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }
  std::string Rows() {
    RunResult r = FloeIn(dir_, {"scan", "--table", "db.t"});
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.out;
  }
  static constexpr const char* kSchema = "--schema 'id BIGINT, v STRING, seq BIGINT, op STRING' ";
  fs::path dir_;
};

TEST_F(CdcKeyUniqueCli, ALateDeleteAfterAReInsertLeavesOneRow) {
  const std::vector<std::string> chunks = {
      "{\"id\":1,\"v\":\"a\",\"seq\":1,\"op\":\"INSERT\"}\n",
      "{\"id\":1,\"v\":\"b\",\"seq\":10,\"op\":\"INSERT\"}\n",
      "{\"id\":1,\"v\":\"a\",\"seq\":5,\"op\":\"DELETE\"}\n",
  };
  // Each chunk is sent once the one before it was committed (an accounting
  // line per commit on stdout).
  size_t sent = 1;
  auto committed = [&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    auto lines = [&] {
      const std::string out = ReadFile(dir_ / ".stdout");
      return static_cast<size_t>(std::count(out.begin(), out.end(), '\n'));
    };
    while (lines() < sent) {
      if (std::chrono::steady_clock::now() > give_up) {
        ADD_FAILURE() << "no commit of chunk " << sent;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ++sent;
  };
  RunResult r = cdc_test::RunStreaming(
      dir_,
      Shell(FLOE_BIN) + " write " + kSchema +
          "--input - --config cdc.yaml --set mode=merge-on-read --set triggering_frequency_seconds=1",
      chunks, 0, committed);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Rows(), "{\"id\":1,\"v\":\"b\"}\n");
  EXPECT_EQ(cdc_test::LogPositions(dir_ / "dead.jsonl"), (std::set<int64_t>{3}));
}

TEST_F(CdcKeyUniqueCli, ASecondSinkReplacesTheKeysTheFirstCommitted) {
  WriteFile(dir_ / "one.jsonl", "{\"id\":1,\"v\":\"a\",\"seq\":1,\"op\":\"INSERT\"}\n"
                                "{\"id\":2,\"v\":\"a\",\"seq\":2,\"op\":\"INSERT\"}\n");
  WriteFile(dir_ / "two.jsonl", "{\"id\":1,\"v\":\"b\",\"seq\":10,\"op\":\"INSERT\"}\n"
                                "{\"id\":3,\"v\":\"b\",\"seq\":11,\"op\":\"INSERT\"}\n");
  RunResult r = Floe(std::string("write ") + kSchema +
                     "--input one.jsonl --config cdc.yaml --set mode=merge-on-read --set sink_id=s1");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = Floe("write --input two.jsonl --config cdc.yaml --set mode=merge-on-read --set sink_id=s2");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(cdc_test::SortedLines(Rows()),
            (std::vector<std::string>{"{\"id\":1,\"v\":\"b\"}", "{\"id\":2,\"v\":\"a\"}", "{\"id\":3,\"v\":\"b\"}"}));
}

TEST_F(CdcKeyUniqueCli, AnInsertReplacesARowAnotherWriterAppended) {
  WriteFile(dir_ / "rows.jsonl", "{\"id\":1,\"v\":\"x\"}\n{\"id\":2,\"v\":\"y\"}\n");
  RunResult r = Floe("write --table db.t --schema 'id BIGINT, v STRING' --input rows.jsonl");
  ASSERT_EQ(r.rc, 0) << r.err;
  WriteFile(dir_ / "changes.jsonl", "{\"id\":1,\"v\":\"b\",\"seq\":10,\"op\":\"INSERT\"}\n");
  r = Floe(std::string("write ") + kSchema +
           "--input changes.jsonl --config cdc.yaml --set mode=merge-on-read");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(cdc_test::SortedLines(Rows()),
            (std::vector<std::string>{"{\"id\":1,\"v\":\"b\"}", "{\"id\":2,\"v\":\"y\"}"}));
}

}  // namespace cdc_key_unique_cli_test
