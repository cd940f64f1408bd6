// SIGINT / SIGTERM to `floe sql` (a process boundary, so real processes):
// a streaming INSERT (an unbounded source) stops as Flink's stop-with-
// savepoint does — what it read is committed, the command exits 0, and the
// statements after it do not run; a bounded INSERT is given up — nothing is
// committed, no file of it is left, and the command fails naming the table.
// The test waits for events (a checkpoint's snapshot, a data file), never on
// a wall-clock guess.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "cli/cli_util.h"

namespace floe_cli_test {
namespace sql_signal_cli_test {

class SqlSignalCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_sql_signal_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  // Polls `ready` every 20 ms for up to a minute (a bound that only catches a hang).
  bool WaitFor(const std::function<bool()>& ready) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!ready()) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  // Files under the table's data folder.
  int DataFiles() const {
    const fs::path data = dir_ / "wh" / "db" / "t" / "data";
    std::error_code ec;
    if (!fs::exists(data, ec)) return 0;
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(data, ec)) n += e.is_regular_file() ? 1 : 0;
    return n;
  }
  int64_t Rows() {
    RunResult r = FloeIn(dir_, {"scan", "--catalog", "warehouse=wh", "--table", "db.t"});
    EXPECT_EQ(r.rc, 0) << r.err;
    return static_cast<int64_t>(std::count(r.out.begin(), r.out.end(), '\n'));
  }

  static constexpr const char* kCatalog =
      "CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='wh'); ";
  // A streaming read of ice.db.t from its first snapshot (it never ends by itself).
  static constexpr const char* kStreamingSelect =
      "SELECT * FROM ice.db.t /*+ OPTIONS('streaming'='true', 'monitor-interval'='20ms', "
      "'starting-strategy'='INCREMENTAL_FROM_EARLIEST_SNAPSHOT') */";
  // Creates ice.db.t (id BIGINT, name STRING) holding `values` (a VALUES list).
  void MakeTable(const std::string& values) {
    RunResult made = FloeIn(dir_, {"sql", "-e",
                                   std::string(kCatalog) +
                                       "CREATE DATABASE ice.db; CREATE TABLE ice.db.t (id BIGINT, name STRING); "
                                       "INSERT INTO ice.db.t VALUES " + values});
    ASSERT_EQ(made.rc, 0) << made.out << made.err;
  }
  // Inserts `values` into ice.db.t.
  void Insert(const std::string& values) {
    RunResult more = FloeIn(dir_, {"sql", "-e", std::string(kCatalog) + "INSERT INTO ice.db.t VALUES " + values});
    ASSERT_EQ(more.rc, 0) << more.out << more.err;
  }

  static std::string Script(const std::string& gen_options, bool checkpoints) {
    return "CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='wh');\n"
           "CREATE DATABASE ice.db;\n"
           "CREATE TABLE ice.db.t (id BIGINT, name STRING);\n"
           "CREATE TEMPORARY TABLE gen (id BIGINT, name STRING) WITH ('connector'='datagen', "
           "'fields.name.length'='8', " +
           gen_options + ");\n" +
           (checkpoints ? "SET 'execution.checkpointing.interval' = '200ms';\n" : "") +
           "INSERT INTO ice.db.t SELECT * FROM gen;\n"
           "INSERT INTO ice.db.t VALUES (-1, 'after');\n";
  }

  fs::path dir_;
};

TEST_F(SqlSignalCli, AStreamingInsertCommitsWhatItReadAndStops) {
  WriteFile(dir_ / "job.sql", Script("'rows-per-second'='500'", /*checkpoints=*/true));
  FloeProcess floe(dir_, "sql", {"sql", "-f", "job.sql"});
  // The first checkpoint's snapshot: the job runs.
  ASSERT_TRUE(WaitFor([&] { return fs::exists(dir_ / "wh" / "db" / "t" / "metadata" / "v2.metadata.json"); }))
      << floe.err();
  floe.Signal(SIGINT);
  ASSERT_EQ(floe.Wait(), 0) << floe.err();
  EXPECT_NE(floe.err().find("stopped by a signal; the job committed what it had read"), std::string::npos)
      << floe.err();
  const int64_t rows = Rows();
  EXPECT_GT(rows, 0);
  // The statement after the stopped INSERT did not run.
  RunResult after = FloeIn(dir_, {"scan", "--catalog", "warehouse=wh", "--table", "db.t", "--where", "id = -1"});
  ASSERT_EQ(after.rc, 0) << after.err;
  EXPECT_EQ(after.out, "");
  // SIGTERM (a supervisor's stop) is the same.
  FloeProcess again(dir_, "sql2", {"sql", "-e",
                                   "CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', "
                                   "'warehouse'='wh'); CREATE TEMPORARY TABLE gen (id BIGINT, name STRING) WITH "
                                   "('connector'='datagen', 'rows-per-second'='500'); INSERT INTO ice.db.t SELECT "
                                   "* FROM gen"});
  // Without checkpoints nothing is published until the stop: wait for its data file.
  const int before = DataFiles();
  ASSERT_TRUE(WaitFor([&] { return DataFiles() > before; })) << again.err();
  again.Signal(SIGTERM);
  ASSERT_EQ(again.Wait(), 0) << again.err();
  EXPECT_GT(Rows(), rows);
}

TEST_F(SqlSignalCli, ABoundedInsertIsGivenUpWithNothingCommitted) {
  WriteFile(dir_ / "job.sql", Script("'number-of-rows'='100000000', 'rows-per-second'='2000'", false));
  FloeProcess floe(dir_, "sql", {"sql", "-f", "job.sql"});
  // Its first data file: the INSERT is writing.
  ASSERT_TRUE(WaitFor([&] { return DataFiles() > 0; })) << floe.err();
  floe.Signal(SIGINT);
  EXPECT_EQ(floe.Wait(), 1);
  const std::string out = floe.out() + floe.err();
  EXPECT_NE(out.find("INSERT INTO ice.db.t was stopped (a signal) before the end of its input; nothing was "
                     "committed"),
            std::string::npos)
      << out;
  EXPECT_EQ(Rows(), 0);
  EXPECT_EQ(DataFiles(), 0) << "the given-up INSERT left files behind";
  EXPECT_FALSE(fs::exists(dir_ / "wh" / "db" / "t" / "metadata" / "v2.metadata.json"));
}

// A streaming SELECT (an Iceberg streaming read) prints its rows as they
// are read — with standard output a file, one changelog line per row,
// `+I[1, a]` — while it runs: the rows of the first snapshot, then a row
// committed while it waits. SIGINT then ends it with the count, and what was
// read stays printed.
TEST_F(SqlSignalCli, AStreamingSelectPrintsRowsAsTheyComeAndKeepsThemOnSigint) {
  ASSERT_NO_FATAL_FAILURE(MakeTable("(1, 'a'), (2, CAST(NULL AS STRING)), (3, 'c')"));
  FloeProcess floe(dir_, "select", {"sql", "-e", std::string(kCatalog) + kStreamingSelect});
  auto lines = [&] {
    const std::string out = floe.out();
    return std::count(out.begin(), out.end(), '\n');
  };
  // The first snapshot's rows print while the query runs (it never ends by itself).
  ASSERT_TRUE(WaitFor([&] { return floe.out().find("+I[3, c]") != std::string::npos; })) << floe.out()
                                                                                       << floe.err();
  EXPECT_TRUE(floe.running());
  ASSERT_NO_FATAL_FAILURE(Insert("(4, 'd')"));
  ASSERT_TRUE(WaitFor([&] { return floe.out().find("+I[4, d]") != std::string::npos; })) << floe.out();
  EXPECT_GE(lines(), 5);
  floe.Signal(SIGINT);
  ASSERT_EQ(floe.Wait(), 0) << floe.err();
  EXPECT_EQ(floe.out(),
            "[INFO] Execute statement succeed.\n"
            "\n"
            "+I[1, a]\n"
            "+I[2, null]\n"
            "+I[3, c]\n"
            "+I[4, d]\n"
            "Received a total of 4 rows\n");
  EXPECT_NE(floe.err().find("stopped by a signal; the query printed what it had read"), std::string::npos)
      << floe.err();
}

// The same on a terminal (a pseudo-terminal: standard input, output and
// error of `floe sql`): the rows print as they are read as the lines of a
// tableau with an `op` column, the header first (its widths come from the
// types: the rows are not known yet), the closing rule and the count after
// SIGINT. Flink's SQL client shows a streaming result the same way.
TEST_F(SqlSignalCli, OnATerminalAStreamingSelectPrintsTableauRowsAsTheyCome) {
  ASSERT_NO_FATAL_FAILURE(MakeTable("(1, 'a'), (3, 'c')"));
  const std::string select = std::string(kCatalog) + kStreamingSelect;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::chdir(dir_.c_str()) != 0) ::_exit(126);
    ::execl(FLOE_BIN, FLOE_BIN, "sql", "-e", select.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // What the terminal showed so far ("\r\n" as "\n").
  std::string screen;
  auto read_some = [&] {
    pollfd p{master, POLLIN, 0};
    while (::poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
      char buf[4096];
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t i = 0; i < n; ++i) {
        if (buf[i] != '\r') screen += buf[i];
      }
    }
    return screen;
  };
  auto shows = [&](const std::string& text) { return read_some().find(text) != std::string::npos; };
  // BIGINT: 20 characters wide, STRING: 30 (Flink's tableau widths by type).
  const std::string rule = "+----+" + std::string(22, '-') + "+" + std::string(32, '-') + "+\n";
  const std::string header =
      rule + "| op | " + std::string(18, ' ') + "id | " + std::string(26, ' ') + "name |\n" + rule;
  auto row = [](const std::string& id, const std::string& name) {
    return "| +I | " + std::string(20 - id.size(), ' ') + id + " | " + std::string(30 - name.size(), ' ') + name +
           " |\n";
  };
  EXPECT_TRUE(WaitFor([&] { return shows(row("3", "c")); })) << screen;
  ASSERT_NO_FATAL_FAILURE(Insert("(4, 'd')"));
  EXPECT_TRUE(WaitFor([&] { return shows(row("4", "d")); })) << screen;
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), 0) << "the query ended by itself";
  ::kill(pid, SIGINT);
  int status = 0;
  EXPECT_TRUE(WaitFor([&] {
    read_some();
    return ::waitpid(pid, &status, WNOHANG) == pid;
  })) << screen;
  read_some();
  ::close(master);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << screen;
  const size_t at = screen.find(header);
  ASSERT_NE(at, std::string::npos) << screen;
  EXPECT_EQ(screen.substr(at, header.size() + 3 * row("1", "a").size() + rule.size()),
            header + row("1", "a") + row("3", "c") + row("4", "d") + rule)
      << screen;
  EXPECT_NE(screen.find("Received a total of 3 rows\n"), std::string::npos) << screen;
}

}  // namespace sql_signal_cli_test
}  // namespace floe_cli_test
