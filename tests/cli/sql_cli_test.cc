// `floe sql` from the command line: -e, -f and standard input print what
// Flink's SQL client prints ([INFO], tableau results, [ERROR] frames), a
// script stops at its first error with exit 1, positions in errors are those
// of the file, the print connector writes to standard output, and a plugin
// that crashes in close ends the process before an Iceberg table of the same
// statement set is committed; the seed job end to end, and a streaming
// statement set publishing at checkpoints.

#include <chrono>
#include <functional>
#include <thread>

#include "cli/cli_util.h"
#include "testing/matchers.h"
#include "testing/postgres.h"

namespace floe_cli_test {
namespace sql_cli_test {

class SqlCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("sql_cli"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Sql(const std::string& args, const std::string& env = "") {
    return RunIn(dir_, env + Shell(FLOE_BIN) + " sql " + args);
  }

  fs::path dir_;
};

TEST_F(SqlCli, ExecutePrintsFlinkClientOutput) {
  RunResult r = Sql(
      "-e " +
      Shell("SHOW CATALOGS; CREATE TABLE t (a INT) WITH ('connector'='blackhole'); SHOW TABLES"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "+-----------------+\n"
            "|    catalog name |\n"
            "+-----------------+\n"
            "| default_catalog |\n"
            "+-----------------+\n"
            "1 row in set\n"
            "\n"
            "[INFO] Execute statement succeed.\n"
            "\n"
            "+------------+\n"
            "| table name |\n"
            "+------------+\n"
            "|          t |\n"
            "+------------+\n"
            "1 row in set\n");
}

TEST_F(SqlCli, FileStopsAtFirstErrorWithFilePositions) {
  WriteFile(dir_ / "s.sql",
            "-- a script\n"
            "SELECT 1 AS one;\n"
            "\n"
            "SELECT\n"
            "  nope;\n"
            "SELECT 2;\n");
  RunResult r = Sql("-f s.sql");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out,
            "+-----+\n"
            "| one |\n"
            "+-----+\n"
            "|   1 |\n"
            "+-----+\n"
            "1 row in set\n"
            "\n"
            "[ERROR] Could not execute SQL statement. Reason:\n"
            "floe.ValidationException: SQL validation failed. From line 5, column 3 to line 5, "
            "column 6: Column "
            "'nope' not found in any table\n");
  EXPECT_NE(r.err.find("a statement of s.sql failed"), std::string::npos) << r.err;
}

TEST_F(SqlCli, StandardInputAndEmptySet) {
  WriteFile(dir_ / "in.sql",
            "CREATE TABLE g (x INT) WITH ('connector'='datagen','number-of-rows'='0');\nSELECT * "
            "FROM g;\n");
  RunResult r = RunIn(dir_, Shell(FLOE_BIN) + " sql < in.sql");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "[INFO] Execute statement succeed.\n\nEmpty set\n");
}

TEST_F(SqlCli, VerboseAddsTheErrorKind) {
  RunResult r = Sql("-e " + Shell("SET 'sql-client.verbose' = 'true'; SELECT x"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("Column 'x' not found in any table\nError kind: "), std::string::npos)
      << r.out;
  RunResult quiet = Sql("-e " + Shell("SELECT x"));
  EXPECT_EQ(quiet.out.find("Error kind"), std::string::npos) << quiet.out;
}

TEST_F(SqlCli, ParseErrorIsFramed) {
  RunResult r = Sql("-e " + Shell("SELECT 1 FROM"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("[ERROR] Could not execute SQL statement. Reason:\nfloe.ParseException: "
                        "Encountered \"<EOF>\" at line 1, column ",
                        0),
            0u)
      << r.out;
}

TEST_F(SqlCli, PrintConnectorWritesRowsToStandardOutput) {
  RunResult r = Sql(
      "-e " +
      Shell(
          "CREATE TABLE p (a INT, b STRING) WITH ('connector'='print', 'print-identifier'='out'); "
          "INSERT INTO p VALUES (1, 'x'), (2, CAST(NULL AS STRING))"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "[INFO] Execute statement succeed.\n"
            "\n"
            "out> +I[1, x]\n"
            "out> +I[2, null]\n"
            "[INFO] Complete execution of the SQL update statement.\n");
}

TEST_F(SqlCli, UnknownIcebergOptionsWarn) {
  RunResult r = Sql(
      "-e " +
      Shell("CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='wh'); "
            "CREATE DATABASE c.db; CREATE TABLE c.db.t (a INT) WITH ('my.key'='v')"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("[WARNING] table c.db.t: 'my.key' is not an Iceberg table property floe "
                       "knows; kept as a table "
                       "property"),
            std::string::npos)
      << r.out;
}

// A plugin crashing in close ends floe before the Iceberg sink of the same
// statement set commits: the table has no snapshot afterwards.
TEST_F(SqlCli, PluginCrashInCloseCommitsNothingToIceberg) {
  // The library by name: the plugins folder also holds a test library that
  // registers test.RecordingSink again (the duplicate-name test).
  const std::string plugins = std::string(FLOE_BINARY_DIR) + "/plugins/libfloe_test_sink.so";
  const std::string setup =
      "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='wh'); CREATE "
      "DATABASE c.db; "
      "CREATE TABLE c.db.t (id BIGINT); ";
  ASSERT_EQ(Sql("-e " + Shell(setup)).rc, 0);
  RunResult r = Sql(
      "-e " +
          Shell(
              "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='wh'); "
              "CREATE TABLE ud (id BIGINT) WITH ('connector.type'='user-defined', "
              "'connector.class-name'='test.RecordingSink', "
              "'connector.class-parameter'='crash=close'); "
              "EXECUTE STATEMENT SET BEGIN INSERT INTO c.db.t VALUES (1); INSERT INTO ud VALUES "
              "(1); END"),
      "FLOE_PLUGIN_PATH=" + Shell(plugins) + " ");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("test.RecordingSink"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("close"), std::string::npos) << r.err;
  // The plugin's own commit (before its close) landed, the Iceberg one did not.
  EXPECT_EQ(r.rc, 71) << r.err;
  EXPECT_NE(r.err.find("this process had committed before: plugin sink test.RecordingSink checkpoint 1;"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Iceberg table"), std::string::npos) << r.err;
  RunResult q = Sql(
      "-e " +
      Shell("CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='wh'); "
            "SELECT * FROM c.db.t"));
  ASSERT_EQ(q.rc, 0) << q.out << q.err;
  EXPECT_NE(q.out.find("Empty set"), std::string::npos) << q.out;
  RunResult snaps = RunIn(dir_, Shell(FLOE_BIN) + " snapshots --table db.t --catalog warehouse=wh");
  EXPECT_EQ(snaps.out.find("snapshot-id"), std::string::npos) << snaps.out;
}

// A plugin that calls exit(0) in invoke used to end floe with exit 0, nothing
// committed and no message: the guard reports it and fails (70: nothing was
// committed, a rerun is safe). The process boundary is what is tested.
TEST_F(SqlCli, PluginExitInInvokeFailsTheStatement) {
  const std::string plugins = std::string(FLOE_BINARY_DIR) + "/plugins/libfloe_test_sink.so";
  RunResult r = Sql("-e " + Shell("CREATE TABLE ud (id BIGINT) WITH ('connector.type'='user-defined', "
                                  "'connector.class-name'='test.RecordingSink', "
                                  "'connector.class-parameter'='exit=invoke'); "
                                  "INSERT INTO ud VALUES (1)"),
                    // exit() inside the plugin ends floe with its reading thread
                    // unjoined, on purpose: under TSan that is a thread leak
                    // report, which says nothing of floe's threads.
                    "TSAN_OPTIONS=\"${TSAN_OPTIONS:-}:report_thread_leaks=0\" FLOE_PLUGIN_PATH=" + Shell(plugins) +
                        " ");
  EXPECT_EQ(r.rc, 70) << r.out << r.err;
  EXPECT_NE(r.err.find("plugin class test.RecordingSink ended the process in invoke (exit(0)): the statement "
                       "failed; nothing was committed (exit 70)"),
            std::string::npos)
      << r.err;
}

// A crash in the plugin's destroy comes after the Iceberg sink of the same
// statement set committed: the message says that snapshot landed (it used to
// say nothing was committed) and the exit code is 71, not the 70 after which
// a rerun is safe (a rerun would add the row again).
TEST_F(SqlCli, PluginCrashInDestroyAfterTheIcebergCommitSaysItLanded) {
  const std::string plugins = std::string(FLOE_BINARY_DIR) + "/plugins/libfloe_test_sink.so";
  const std::string catalog = "CREATE CATALOG c WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='wh'); ";
  ASSERT_EQ(Sql("-e " + Shell(catalog + "CREATE DATABASE c.db; CREATE TABLE c.db.t (id BIGINT)")).rc, 0);
  RunResult r = Sql("-e " + Shell(catalog +
                                  "CREATE TABLE ud (id BIGINT) WITH ('connector.type'='user-defined', "
                                  "'connector.class-name'='test.RecordingSink', "
                                  "'connector.class-parameter'='crash=destroy'); "
                                  "EXECUTE STATEMENT SET BEGIN INSERT INTO c.db.t VALUES (1); INSERT INTO ud VALUES "
                                  "(1); END"),
                    "FLOE_PLUGIN_PATH=" + Shell(plugins) + " ");
  EXPECT_EQ(r.rc, 71) << r.out << r.err;
  EXPECT_NE(r.err.find("plugin class test.RecordingSink crashed in destroy (SIGSEGV); this process had committed "
                       "before: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("plugin sink test.RecordingSink checkpoint 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Iceberg table db.t snapshot "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("nothing was committed"), std::string::npos) << r.err;
  RunResult q = Sql("-e " + Shell(catalog + "SELECT * FROM c.db.t"));
  ASSERT_EQ(q.rc, 0) << q.out << q.err;
  EXPECT_NE(q.out.find("1 row in set"), std::string::npos) << q.out;
}

// The issue's seed job, end to end through `floe sql`: rows from a JSON
// folder go into an Iceberg table by upsert (twice), a CDC window deletes a
// key, and a streaming read of the table feeds two user-defined sinks
// created from SQL with connector.type / class-name / class-parameter:
// test.RetractSink (a retract stream: Flink's Tuple2<Boolean, Row>) logs
// open(parameter), each row with its flag and close; the PostgreSQL example
// plugin ends with the upsert state of the Iceberg table.
TEST_F(SqlCli, SeedJobFeedsUserDefinedSinksTheRetractStream) {
  const std::string plugins = std::string(FLOE_BINARY_DIR) + "/plugins/libfloe_test_sink.so:" +
                              FLOE_BINARY_DIR + "/plugins/libfloe_pg_upsert_sink.so";
  const std::string env = "FLOE_PLUGIN_PATH=" + Shell(plugins) + " ";
  const std::string catalog =
      "CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='wh'); ";
  const std::string load =
      catalog +
      "CREATE TABLE src (id BIGINT, name STRING, amount DOUBLE, PRIMARY KEY (id) NOT ENFORCED) "
      "WITH ('connector'='filesystem', 'path'='in/', 'format'='json'); "
      "INSERT INTO ice.db.orders /*+ OPTIONS('upsert-enabled'='true', 'write-parallelism'='2') */ "
      "SELECT id, name, amount FROM src";
  fs::create_directories(dir_ / "in");
  WriteFile(dir_ / "in" / "part-1.json",
            "{\"id\":1,\"name\":\"a\",\"amount\":1.5}\n{\"id\":2,\"name\":\"b\",\"amount\":2.5}\n"
            "{\"id\":3,\"name\":\"c\",\"amount\":3.5}\n");
  RunResult r = Sql("-e " + Shell(catalog +
                                  "CREATE DATABASE ice.db; CREATE TABLE ice.db.orders (id BIGINT, "
                                  "name STRING, amount DOUBLE, PRIMARY KEY (id) NOT ENFORCED) "
                                  "WITH ('format-version'='2'); " +
                                  load.substr(catalog.size())));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  // The second load updates key 2 and inserts key 4.
  WriteFile(dir_ / "in" / "part-1.json",
            "{\"id\":2,\"name\":\"b2\",\"amount\":2.75}\n{\"id\":4,\"name\":\"d\",\"amount\":4.5}\n");
  r = Sql("-e " + Shell(load));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  // A CDC window deletes key 3.
  WriteFile(dir_ / "cdc.jsonl", "{\"id\":3,\"op\":\"DELETE\",\"seq\":1}\n");
  r = RunIn(dir_, Shell(FLOE_BIN) +
                      " write --catalog warehouse=wh --table db.orders -i cdc.jsonl --set "
                      "mode=merge-on-read --set change_type_column=op --set "
                      "sequence_number_column=seq");
  ASSERT_EQ(r.rc, 0) << r.err;

  ASSERT_OK_AND_ASSIGN(std::string uri, floe::test::FreshPostgresDatabase());
  const std::string port = uri.substr(uri.rfind(':') + 1, uri.rfind('/') - uri.rfind(':') - 1);
  const std::string db = uri.substr(uri.rfind('/') + 1);
  ASSERT_OK(floe::test::PostgresSql(db, "CREATE TABLE users (id bigint PRIMARY KEY, name text)"));

  // The streaming read's changelog: 3 inserts, the update of 2 as a retract
  // pair and the insert of 4, the delete of 3 — 7 rows, then LIMIT ends it.
  const std::string stream =
      " /*+ OPTIONS('streaming'='true', 'monitor-interval'='10ms', "
      "'starting-strategy'='INCREMENTAL_FROM_EARLIEST_SNAPSHOT') */ LIMIT 7";
  const std::string log = (dir_ / "audit.log").string();
  r = Sql("-e " +
              Shell(catalog +
                    "CREATE TABLE audit (id BIGINT, name STRING) WITH ("
                    "'connector.type'='user-defined', 'connector.class-name'='test.RetractSink', "
                    "'connector.class-parameter'='log=" +
                    log +
                    "'); "
                    "CREATE TABLE pg (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                    "'connector.type'='user-defined', "
                    "'connector.class-name'='com.example.PgUpsertSink', "
                    "'connector.class-parameter'='host=127.0.0.1 port=" +
                    port + " dbname=" + db +
                    " user=postgres table=users key=id'); "
                    "INSERT INTO audit SELECT id, name FROM ice.db.orders" +
                    stream + "; INSERT INTO pg SELECT id, name FROM ice.db.orders" + stream),
          env);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;

  std::vector<std::string> calls;
  {
    std::istringstream in(ReadFile(dir_ / "audit.log"));
    std::string line;
    while (std::getline(in, line)) calls.push_back(line);
  }
  std::vector<std::string> invokes;
  for (const auto& c : calls) {
    if (c.starts_with("invoke ")) invokes.push_back(c);
  }
  ASSERT_FALSE(calls.empty());
  EXPECT_TRUE(calls[0].starts_with("create test.RetractSink ")) << calls[0];
  EXPECT_EQ(calls[1], "open log=" + log + " (NUL-terminated: yes)");
  EXPECT_EQ(invokes, (std::vector<std::string>{
                         "invoke true id=1 name=\"a\"", "invoke true id=2 name=\"b\"",
                         "invoke true id=3 name=\"c\"", "invoke false id=2 name=\"b\"",
                         "invoke true id=2 name=\"b2\"", "invoke true id=4 name=\"d\"",
                         "invoke false id=3 name=\"c\""}));
  EXPECT_EQ(calls.back(), "destroy");
  EXPECT_EQ(calls[calls.size() - 2], "close");

  // PostgreSQL ends with the Iceberg table's rows.
  auto users = floe::test::PostgresSql(db, "SELECT id, name FROM users ORDER BY id");
  ASSERT_TRUE(users.has_value()) << users.error().ToString();
  EXPECT_EQ(*users, "1|a\n2|b2\n4|d\n");
  r = RunIn(dir_, Shell(FLOE_BIN) + " scan --catalog warehouse=wh --table db.orders");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(R"({"id":1,"name":"a","amount":1.5})"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"({"id":2,"name":"b2","amount":2.75})"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"({"id":4,"name":"d","amount":4.5})"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(R"("id":3)"), std::string::npos) << r.out;
}

// A streaming statement set (execution.checkpointing.interval): its three
// unbounded INSERTs run side by side, and each sink publishes at the
// checkpoints while the job runs — the append of an endless datagen into
// Iceberg, the changelog of a streaming read into another Iceberg table
// (merge-on-read), and the same changelog into a plugin class (flush,
// prepare_commit and commit with growing ids). The job never ends by
// itself: the test kills it once everything it waits for is there.
TEST_F(SqlCli, StreamingStatementSetPublishesAtCheckpoints) {
  const std::string plugins = std::string(FLOE_BINARY_DIR) + "/plugins/libfloe_test_sink.so";
  const std::string catalog =
      "CREATE CATALOG ice WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='wh');\n";
  RunResult r = Sql(
      "-e " + Shell(catalog +
                    "CREATE DATABASE ice.db; "
                    "CREATE TABLE ice.db.src (id BIGINT, name STRING, PRIMARY KEY (id) NOT "
                    "ENFORCED) WITH ('format-version'='2'); "
                    "CREATE TABLE ice.db.copy (id BIGINT, name STRING, PRIMARY KEY (id) NOT "
                    "ENFORCED) WITH ('format-version'='2'); "
                    "CREATE TABLE ice.db.ticks (id BIGINT)"));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const std::string stream =
      " /*+ OPTIONS('streaming'='true', 'monitor-interval'='20ms', "
      "'starting-strategy'='INCREMENTAL_FROM_EARLIEST_SNAPSHOT') */";
  const std::string log = (dir_ / "audit.log").string();
  WriteFile(dir_ / "job.sql",
            "SET 'execution.checkpointing.interval' = '200ms';\n" + catalog +
                "CREATE TABLE gen (id BIGINT) WITH ('connector'='datagen', "
                "'rows-per-second'='200', 'fields.id.kind'='sequence', 'fields.id.start'='1', "
                "'fields.id.end'='100000000');\n"
                "CREATE TABLE audit (id BIGINT, name STRING) WITH ('connector.type'='user-defined', "
                "'connector.class-name'='test.RecordingSink', 'connector.class-parameter'='log=" +
                log +
                "');\n"
                "EXECUTE STATEMENT SET BEGIN\n"
                "INSERT INTO ice.db.ticks SELECT id FROM gen;\n"
                "INSERT INTO ice.db.copy SELECT * FROM ice.db.src" +
                stream +
                ";\n"
                "INSERT INTO audit SELECT * FROM ice.db.src" +
                stream + ";\nEND;\n");
  ASSERT_EQ(std::system(("cd " + Shell(dir_.string()) + " && (FLOE_PLUGIN_PATH=" + Shell(plugins) +
                         " " + Shell(FLOE_BIN) +
                         " sql -f job.sql > job.out 2> job.err & echo $! > job.pid)")
                            .c_str()),
            0);
  const std::string pid = ReadFile(dir_ / "job.pid");
  ASSERT_FALSE(pid.empty());
  struct Killer {
    std::string pid;
    ~Killer() { (void)std::system(("kill -9 " + pid + " 2>/dev/null").c_str()); }
  } killer{pid.substr(0, pid.find('\n'))};
  auto floe = [&](const std::string& args) {
    return FloeRun(dir_, args + " --catalog warehouse=wh");
  };
  auto running = [&] {
    return std::system(("kill -0 " + killer.pid + " 2>/dev/null").c_str()) == 0;
  };
  // Polls `done` until it holds; the job must live meanwhile.
  auto await = [&](const char* what, const std::function<bool()>& done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!done()) {
      ASSERT_TRUE(running()) << "the job ended while waiting for " << what << ": "
                             << ReadFile(dir_ / "job.out") << ReadFile(dir_ / "job.err");
      ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "never saw " << what;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  };
  auto count = [](const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
      ++n;
    return n;
  };
  // The endless append commits at checkpoints.
  await("two snapshots of ticks",
        [&] { return count(floe("snapshots --table db.ticks").out, "\"snapshot-id\"") >= 2; });
  // Rows committed to src reach copy and the plugin while the job runs.
  WriteFile(dir_ / "rows.jsonl", "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n");
  ASSERT_EQ(floe("write --table db.src -i rows.jsonl").rc, 0);
  await("the rows in copy", [&] {
    std::string out = floe("scan --table db.copy").out;
    return count(out, "\"id\":") == 2;
  });
  WriteFile(dir_ / "rows.jsonl", "{\"id\":1,\"name\":\"a2\",\"op\":\"UPDATE_AFTER\",\"seq\":1}\n");
  ASSERT_EQ(floe("write --table db.src -i rows.jsonl --set mode=merge-on-read --set "
                 "change_type_column=op --set sequence_number_column=seq")
                .rc,
            0);
  await("the update in copy", [&] {
    std::string out = floe("scan --table db.copy").out;
    return out.find("\"a2\"") != std::string::npos && count(out, "\"id\":") == 2;
  });
  await("the plugin's commits", [&] {
    std::string text = ReadFile(dir_ / "audit.log");
    return text.find("invoke true id=1 name=\"a2\"") != std::string::npos &&
           text.find("\ncommit 2 ") != std::string::npos;
  });
  std::string text = ReadFile(dir_ / "audit.log");
  EXPECT_NE(text.find("invoke true id=1 name=\"a\""), std::string::npos) << text;
  EXPECT_NE(text.find("invoke true id=2 name=\"b\""), std::string::npos) << text;
  EXPECT_NE(text.find("flush end_of_input=false"), std::string::npos) << text;
  EXPECT_NE(text.find("prepare_commit 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("close"), std::string::npos) << "the job has not ended: " << text;
  // Still running: the statement set is unbounded.
  EXPECT_TRUE(running());
}

// The shell, under a terminal (script(1) gives it one): statements over
// several lines, results after each, history written to $HOME.
TEST_F(SqlCli, InteractiveShellUnderATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "script(1) is not installed";
  WriteFile(dir_ / "keys.txt", "SELECT 1\n  AS x;\nSELECT y;\nquit;\n");
  RunResult r = RunIn(dir_, "HOME=" + Shell(dir_.string()) + " script -qec " +
                                Shell(std::string(FLOE_BIN) + " sql") + " /dev/null < keys.txt");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  std::string out = r.out;
  std::erase(out, '\r');
  EXPECT_NE(
      out.find("floe SQL> SELECT 1\n>   AS x;\n+---+\n| x |\n+---+\n| 1 |\n+---+\n1 row in set\n"),
      std::string::npos)
      << out;
  // An error does not end the shell.
  EXPECT_NE(out.find("[ERROR] Could not execute SQL statement. Reason:\nfloe.ValidationException"),
            std::string::npos)
      << out;
  EXPECT_NE(ReadFile(dir_ / ".floe_sql_history").find("AS\\040x;"), std::string::npos);
}

}  // namespace sql_cli_test
}  // namespace floe_cli_test
