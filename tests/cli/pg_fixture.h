// The PostgreSQL source's CLI test fixture (pg_source_cli_test.cc,
// pg_sql_cli_test.cc): a fresh database of the tests' cluster
// (wal_level=logical, testing/postgres.h) per test, `floe write --config
// pg.yaml` in the background, waiting until floe caught up with the WAL, and
// comparisons of PostgreSQL's rows with `floe scan` and verify_table.mjs.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli_util.h"
#include "testing/postgres.h"
#include "testing/scale.h"

namespace floe_cli_test {

using nlohmann::json;

class PgSource : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("pg_source");
    auto uri = floe::test::FreshPostgresDatabase();
    ASSERT_TRUE(uri) << uri.error().message;
    db_ = uri->substr(uri->rfind('/') + 1);
    auto port = floe::test::PostgresPort();
    ASSERT_TRUE(port) << port.error().message;
    port_ = *port;
    auto bin = floe::test::PostgresBinDir();
    ASSERT_TRUE(bin) << bin.error().message;
    bin_ = *bin;
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    RemoveTestDirIfPassed(dir_);
  }

  std::string Conn() const { return fmt::format("postgresql://postgres@127.0.0.1:{}/{}", port_, db_); }

  std::string Sql(const std::string& sql) {
    auto r = floe::test::PostgresSql(db_, sql);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : std::string();
  }

  void Config(const std::string& tables, const std::string& slot, const std::string& extra = "") {
    WriteFile(dir_ / "pg.yaml", fmt::format("triggering_frequency_seconds: 1\n{}source:\n  type: postgres\n"
                                            "  connection: {}\n  tables: [{}]\n  slot: {}\n  namespace: db\n",
                                            extra, Conn(), tables, slot));
  }

  // `floe write --config pg.yaml` in the background (stdout and stderr appended to files).
  void Start() { StartFloe({"write", "--config", "pg.yaml", "--no-progress"}); }
  // `floe <args>` in the background, the same way.
  void StartFloe(const std::vector<std::string>& args) {
    ASSERT_EQ(pid_, 0);
    // A killed floe's walsender lingers a moment: gone before the next launch.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (Trim(Sql("SELECT count(*) FROM pg_replication_slots WHERE active")) != "0") {
      ASSERT_LT(std::chrono::steady_clock::now(), until) << "a replication slot stays active";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::string out = (dir_ / "floe.out").string(), err = (dir_ / "floe.err").string();
    std::fflush(nullptr);
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      if (::chdir(dir_.c_str()) != 0) ::_exit(126);
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int in = ::open("/dev/null", O_RDONLY);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::dup2(in, 0);
      std::vector<char*> argv{const_cast<char*>("floe")};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(FLOE_BIN, argv.data());
      ::_exit(127);
    }
  }
  // SIGTERM (a clean stop: a last commit) or SIGKILL; the exit status.
  int Stop(int sig = SIGTERM) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // Runs floe in the foreground until it exits by itself (an error); its exit status.
  int RunToExit() {
    Start();
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // Polls until the slot's confirmed flush position reaches the WAL position
  // of now: every change made so far is committed to Iceberg (floe advances
  // the slot only after its commits).
  // The slot must be streaming to this floe first (Start waited for the
  // walsender of a killed one to go; a slot is active once floe read its
  // snapshot and started replication; a new slot's confirmed position is its
  // consistent point, before floe committed anything): then a write to a
  // table outside the publication makes a WAL position that only a confirmed
  // flush after floe's commits reaches.
  void WaitCaughtUp(const std::string& slot, int seconds = 120) {
    // (A FAIL below returns from this function only: a later call finds no floe.)
    ASSERT_GT(pid_, 0) << "floe is not running: " << ReadFile(dir_ / "floe.err");
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (Trim(Sql("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active")) != "1") {
      int status = 0;
      if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        FAIL() << "floe exited (" << status << ") before creating its slot: " << ReadFile(dir_ / "floe.err");
      }
      ASSERT_LT(std::chrono::steady_clock::now(), until) << "no slot " << slot << ": " << ReadFile(dir_ / "floe.err");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    Sql("CREATE TABLE IF NOT EXISTS wal_marker (x int); INSERT INTO wal_marker VALUES (1)");
    const std::string lsn = Trim(Sql("SELECT pg_current_wal_lsn()"));
    for (;;) {
      const std::string ok = Trim(Sql("SELECT confirmed_flush_lsn >= '" + lsn +
                                      "' FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
      if (ok == "t") return;
      int status = 0;
      if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        FAIL() << "floe exited (" << status << ") before catching up: " << ReadFile(dir_ / "floe.err");
      }
      if (std::chrono::steady_clock::now() > until) {
        FAIL() << "floe did not catch up with " << lsn << " in " << seconds << " s: " << ReadFile(dir_ / "floe.err");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  // The rows of an Iceberg table as JSON objects.
  std::vector<json> Scan(const std::string& table, const std::vector<std::string>& set = {}) {
    std::vector<std::string> args = {"scan", "--table", table};
    for (const auto& s : set) args.insert(args.end(), {"--set", s});
    RunResult r = FloeIn(dir_, args);
    EXPECT_EQ(r.rc, 0) << r.err;
    std::vector<json> rows;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
    return rows;
  }
  // The same rows read by verify_table.mjs (the spec-only reader).
  std::vector<json> Verified(const std::string& table) {
    RunResult d = FloeIn(dir_, {"describe", "--table", table});
    EXPECT_EQ(d.rc, 0) << d.err;
    std::string metadata = json::parse(d.out).at("metadata-location").get<std::string>();
    if (metadata.starts_with("file:")) metadata = metadata.substr(5);
    RunResult v = Node(dir_, "verify_table.mjs", {metadata, "--strict"});
    EXPECT_EQ(v.rc, 0) << "verify_table.mjs: " << v.err;
    std::vector<json> rows;
    std::istringstream in(v.out);
    for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
    return rows;
  }

  // Rows as "a|b|c" lines, sorted: from psql (-A -t: null is empty) ...
  std::vector<std::string> PgLines(const std::string& select) {
    std::vector<std::string> lines;
    std::istringstream in(Sql(select));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
  }
  // ... and from JSON rows (strings bare, null empty).
  static std::vector<std::string> JsonLines(const std::vector<json>& rows, const std::vector<std::string>& cols) {
    std::vector<std::string> lines;
    for (const json& r : rows) {
      std::string line;
      for (size_t i = 0; i < cols.size(); ++i) {
        if (i) line += '|';
        const json& v = r.at(cols[i]);
        line += v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump();
      }
      lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  // pgbench's four tables equal their Iceberg tables, in floe scan and in
  // verify_table.mjs (pgbench_accounts in floe scan only unless `verify_accounts`:
  // node reads 100,000 rows a second).
  void ExpectPgbenchEqual(bool verify_accounts = false) {
    struct T {
      std::string name, pg_select;
      std::vector<std::string> cols;
    };
    const std::vector<T> tables = {
        {"pgbench_accounts", "aid, bid, abalance, filler", {"aid", "bid", "abalance", "filler"}},
        {"pgbench_tellers", "tid, bid, tbalance, filler", {"tid", "bid", "tbalance", "filler"}},
        {"pgbench_branches", "bid, bbalance, filler", {"bid", "bbalance", "filler"}},
        {"pgbench_history", "hid, tid, bid, aid, delta, to_char(mtime, 'YYYY-MM-DD\"T\"HH24:MI:SS.US'), filler",
         {"hid", "tid", "bid", "aid", "delta", "mtime", "filler"}},
    };
    for (const T& t : tables) {
      const auto pg = PgLines("SELECT " + t.pg_select + " FROM " + t.name);
      const auto ice = JsonLines(Scan("db." + t.name), t.cols);
      EXPECT_EQ(pg.size(), ice.size()) << t.name;
      EXPECT_TRUE(pg == ice) << t.name << ": PostgreSQL and floe scan differ";
      if (t.name != "pgbench_accounts" || verify_accounts) {
        const auto ver = JsonLines(Verified("db." + t.name), t.cols);
        EXPECT_TRUE(pg == ver) << t.name << ": PostgreSQL and verify_table.mjs differ";
      }
    }
  }

  void PgbenchInit(int scale = 1) {
    RunResult r = RunIn(dir_, bin_ + "/pgbench -i -s " + std::to_string(scale) + " -q -h 127.0.0.1 -p " + std::to_string(port_) +
                                  " -U postgres " + db_);
    ASSERT_EQ(r.rc, 0) << r.err;
    // pgbench_history has no key: give it one (pgbench names its columns on insert).
    Sql("ALTER TABLE pgbench_history ADD COLUMN hid bigserial PRIMARY KEY");
  }
  // A /bin/sh command in dir_, in the background; Join waits for it.
  pid_t Background(const std::string& cmd) {
    std::fflush(nullptr);
    const pid_t p = ::fork();
    if (p == 0) {
      if (::chdir(dir_.c_str()) != 0) ::_exit(126);
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return p;
  }
  static int Join(pid_t p) {
    int status = 0;
    ::waitpid(p, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string PgbenchCommand(const std::string& args) {
    return bin_ + "/pgbench -n -h 127.0.0.1 -p " + std::to_string(port_) + " -U postgres " + args + " " + db_;
  }

  fs::path dir_;
  std::string db_, bin_;
  int port_ = 0;
  pid_t pid_ = 0;
};

}  // namespace floe_cli_test
