// floe sql's `postgres-cdc` connector (sqlengine/postgres_cdc_connector.h):
// INSERT INTO an Iceberg table SELECT * FROM a postgres-cdc table runs the
// PostgreSQL source of floe write. A fresh database per test (pg_fixture.h),
// `floe sql -f` in the background.
#include "pg_fixture.h"

namespace floe_cli_test {
namespace pg_sql_cli_test {

class PgSql : public PgSource {
 protected:
  // The script: an Iceberg catalog `ice` (./warehouse, as floe scan reads
  // it), the Iceberg table ice.db.<iceberg>, the postgres-cdc table `src` of
  // PostgreSQL table `pg_table`, then `tail` (default: the INSERT).
  std::string Script(const std::string& columns, const std::string& pg_table, const std::string& slot,
                     const std::string& options = "", const std::string& iceberg = "t",
                     const std::string& checkpoint = "1s", const std::string& iceberg_columns = "",
                     const std::string& tail = "") {
    return "SET 'execution.checkpointing.interval' = '" + checkpoint + "';\n" +
           "CREATE CATALOG ice WITH ('type'='iceberg','catalog-type'='hadoop','warehouse'='warehouse');\n"
           "CREATE DATABASE IF NOT EXISTS ice.db;\n"
           "CREATE TABLE IF NOT EXISTS ice.db." + iceberg + " (" +
           (iceberg_columns.empty() ? columns : iceberg_columns) + ");\n" +
           "CREATE TEMPORARY TABLE src (" + columns + ") WITH ('connector' = 'postgres-cdc', 'hostname' = "
           "'127.0.0.1', 'port' = '" + std::to_string(port_) + "', 'username' = 'postgres', 'password' = '', "
           "'database-name' = '" + db_ + "', 'schema-name' = 'public', 'table-name' = '" + pg_table +
           "', 'slot.name' = '" + slot + "', 'decoding.plugin.name' = 'pgoutput'" + options + ");\n" +
           (tail.empty() ? "INSERT INTO ice.db." + iceberg + " SELECT * FROM src;\n" : tail);
  }

  // `floe sql -f q.sql` in the background (as Start runs floe write).
  void StartSql(const std::string& script) {
    WriteFile(dir_ / "q.sql", script);
    StartFloe({"sql", "-f", "q.sql"});
  }
  // Waits for the background floe to exit by itself; its exit status.
  int WaitExit(int seconds = 60) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (std::chrono::steady_clock::now() > until) return -2;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::string Out() { return ReadFile(dir_ / "floe.out") + ReadFile(dir_ / "floe.err"); }

  void ExpectEqual(const std::string& iceberg = "db.t", bool verify = true) {
    const auto pg = PgLines("SELECT id, v, n FROM t");
    const auto ice = JsonLines(Scan(iceberg), {"id", "v", "n"});
    EXPECT_EQ(pg.size(), ice.size());
    EXPECT_TRUE(pg == ice) << "PostgreSQL and floe scan differ";
    if (verify) EXPECT_TRUE(pg == JsonLines(Verified(iceberg), {"id", "v", "n"})) << "verify_table.mjs differs";
  }
  std::string SlotLsn(const std::string& slot) {
    return Trim(Sql("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
  }

  const std::string kCols = "id INT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED";
  void MakeTable(int rows) {
    Sql("CREATE TABLE t (id int PRIMARY KEY, v text, n bigint); INSERT INTO t SELECT g, 'v' || g, g * 10 FROM "
        "generate_series(1, " + std::to_string(rows) + ") g");
  }
};

// A chunked snapshot, then inserts, updates, deletes and a key-changing
// update streamed; a SIGKILL and a relaunch of the same INSERT resume from
// the stored LSN (no row twice); SIGTERM ends it cleanly.
TEST_F(PgSql, SnapshotThenChangesAndResumeAfterKill) {
  MakeTable(3000);
  const std::string script =
      Script(kCols, "t", "sqlslot", ", 'scan.incremental.snapshot.chunk.size' = '700', 'heartbeat.interval.ms' = '500ms'");
  StartSql(script);
  WaitCaughtUp("sqlslot");
  ExpectEqual("db.t", false);
  Sql("INSERT INTO t VALUES (5001, 'new', 1), (5002, NULL, NULL); UPDATE t SET v = 'upd', n = n + 1 WHERE id % 100 = 0; "
      "DELETE FROM t WHERE id BETWEEN 10 AND 19; UPDATE t SET id = 9000 WHERE id = 42");
  WaitCaughtUp("sqlslot");
  ExpectEqual();
  const std::string snapshots = FloeIn(dir_, {"snapshots", "--table", "db.t"}).out;
  EXPECT_NE(snapshots.find("sql:default_catalog.default_database.src"), std::string::npos) << snapshots;

  // Killed with changes in flight; relaunched: exactly once.
  Sql("BEGIN; INSERT INTO t VALUES (6001, 'k', 6); UPDATE t SET n = -1 WHERE id = 1; COMMIT");
  EXPECT_EQ(Stop(SIGKILL), 128 + SIGKILL);
  Sql("INSERT INTO t VALUES (6002, 'after', 7); DELETE FROM t WHERE id = 2; UPDATE t SET id = 9001 WHERE id = 3");
  StartSql(script);
  WaitCaughtUp("sqlslot");
  ExpectEqual();
  EXPECT_EQ(Stop(SIGTERM), 0) << Out();
}

// scan.startup.mode = snapshot: the snapshot is committed and the INSERT
// ends by itself; no replication slot is left (a temporary one gave the
// snapshot), and the slot named by slot.name is never made. Again: nothing
// read twice (the table holds the sink's commit).
TEST_F(PgSql, SnapshotModeEndsAndLeavesNoSlot) {
  MakeTable(1500);
  const std::string script = Script(kCols, "t", "snaponly", ", 'scan.startup.mode' = 'snapshot'");
  StartSql(script);
  ASSERT_EQ(WaitExit(), 0) << Out();
  ExpectEqual();
  EXPECT_EQ(Trim(Sql("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")), "0");
  EXPECT_EQ(Trim(Sql("SELECT count(*) FROM pg_publication")), "0");
  const std::string before = FloeIn(dir_, {"snapshots", "--table", "db.t"}).out;
  Sql("INSERT INTO t VALUES (7000, 'later', 0)");
  // The INSERT with the Iceberg table's column list runs the same job.
  StartSql(Script(kCols, "t", "snaponly", ", 'scan.startup.mode' = 'snapshot'", "t", "1s", "",
                  "INSERT INTO ice.db.t (id, v, n) SELECT id, v, n FROM src;\n"));
  ASSERT_EQ(WaitExit(), 0) << Out();
  EXPECT_EQ(FloeIn(dir_, {"snapshots", "--table", "db.t"}).out, before);
  EXPECT_EQ(Trim(Sql("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")), "0");
}

// floe write's source block: `startup: snapshot` (and heartbeat_interval_ms
// read): the run ends by itself with the snapshot committed, no slot left.
TEST_F(PgSql, WriteSourceBlockStartupSnapshot) {
  MakeTable(800);
  WriteFile(dir_ / "pg.yaml", fmt::format("triggering_frequency_seconds: 1\nsource:\n  type: postgres\n  connection: "
                                          "{}\n  tables: [t]\n  slot: wsnap\n  namespace: db\n  startup: snapshot\n"
                                          "  heartbeat_interval_ms: 250\n",
                                          Conn()));
  EXPECT_EQ(RunToExit(), 0) << ReadFile(dir_ / "floe.err");
  ExpectEqual();
  EXPECT_EQ(Trim(Sql("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")), "0");
  WriteFile(dir_ / "bad.yaml", fmt::format("source:\n  type: postgres\n  connection: {}\n  tables: [t]\n  slot: w\n"
                                           "  namespace: db\n  heartbeat_interval_ms: -1\n",
                                           Conn()));
  RunResult r = FloeIn(dir_, {"write", "--config", "bad.yaml"});
  EXPECT_NE(r.err.find("source heartbeat_interval_ms '-1': give a whole number from 0"), std::string::npos) << r.err;
}

// scan.startup.mode = latest-offset: no snapshot, the changes from the slot's creation on.
TEST_F(PgSql, LatestOffsetStreamsOnlyNewChanges) {
  MakeTable(100);
  StartSql(Script(kCols, "t", "latest", ", 'scan.startup.mode' = 'latest-offset'"));
  WaitCaughtUp("latest");
  Sql("INSERT INTO t VALUES (501, 'a', 1), (502, 'b', 2); DELETE FROM t WHERE id = 502; UPDATE t SET v = 'c' WHERE "
      "id = 501");
  WaitCaughtUp("latest");
  EXPECT_EQ(JsonLines(Scan("db.t"), {"id", "v", "n"}), std::vector<std::string>{"501|c|1"});
  EXPECT_EQ(Stop(SIGTERM), 0) << Out();
}

// heartbeat.interval.ms: with a checkpoint a minute away, the slot of an
// idle table still follows the WAL of a table outside the publication —
// but not past a change of the table that is not committed yet.
TEST_F(PgSql, HeartbeatAdvancesAnIdleSlot) {
  MakeTable(10);
  StartSql(Script(kCols, "t", "beat", ", 'heartbeat.interval.ms' = '200'", "t", "60s"));
  // The snapshot is committed at once; then only heartbeats move the slot.
  WaitCaughtUp("beat", 15);
  WaitCaughtUp("beat", 5);
  // A change of the table: held until its commit (a minute away).
  Sql("INSERT INTO t VALUES (11, 'pending', 0)");
  Sql("INSERT INTO wal_marker VALUES (2)");
  const std::string lsn = Trim(Sql("SELECT pg_current_wal_lsn()"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(Trim(Sql("SELECT confirmed_flush_lsn >= '" + lsn + "' FROM pg_replication_slots WHERE slot_name = 'beat'")),
            "f")
      << "the slot moved past a change that is not committed";
  EXPECT_EQ(Stop(SIGTERM), 0) << Out();  // the last commit
  ExpectEqual("db.t", false);
}

// Every refusal names what it refuses; none leaves a slot.
TEST_F(PgSql, RefusedOptionsShapesAndMismatches) {
  MakeTable(3);
  Sql("CREATE TABLE t_a (id int PRIMARY KEY); CREATE TABLE t_b (id int PRIMARY KEY)");
  struct Case {
    std::string script, want;
  };
  auto opt = [&](const std::string& o) { return Script(kCols, "t", "refused", o); };
  const std::vector<Case> cases = {
      {opt(", 'foo' = 'bar'"), "Unsupported options found for 'postgres-cdc'"},
      {opt(", 'decoding.plugin.name' = 'decoderbufs'"), "'decoding.plugin.name' = 'decoderbufs'"},
      {opt(", 'decoding.plugin.name' = 'wal2json'"), "'decoding.plugin.name' = 'wal2json'"},
      {opt(", 'decoding.plugin.name' = 'nope'"), "Invalid value for option 'decoding.plugin.name'"},
      {opt(", 'scan.startup.mode' = 'timestamp'"), "'scan.startup.mode' = 'timestamp' (table"},
      {opt(", 'scan.startup.mode' = 'earliest'"), "Invalid value for option 'scan.startup.mode'"},
      {opt(", 'changelog-mode' = 'retract'"), "Invalid value for option 'changelog-mode'"},
      {opt(", 'scan.snapshot.fetch.size' = '1024'"), "Option 'scan.snapshot.fetch.size'"},
      {opt(", 'connect.max-retries' = '3'"), "Option 'connect.max-retries'"},
      {opt(", 'connection.pool.size' = '20'"), "Option 'connection.pool.size'"},
      {opt(", 'chunk-meta.group.size' = '1000'"), "Option 'chunk-meta.group.size'"},
      {opt(", 'scan.newly-added-table.enabled' = 'true'"), "Option 'scan.newly-added-table.enabled'"},
      {opt(", 'debezium.snapshot.mode' = 'never'"), "Option 'debezium.snapshot.mode'"},
      {opt(", 'scan.incremental.snapshot.chunk.size' = '0'"), "Option 'scan.incremental.snapshot.chunk.size': 0"},
      {opt(", 'heartbeat.interval.ms' = 'soon'"), "Option 'heartbeat.interval.ms': 'soon' is not a duration"},
      {opt(", 'slot.name' = 'Bad-Slot'"), "a replication slot's name has lower-case letters"},
      {Script(kCols, "t", "", ""), "Option 'slot.name' is empty"},
      {Script("id INT, v STRING, n BIGINT", "t", "refused"), "needs a PRIMARY KEY"},
      {Script("id INT, v STRING, n BIGINT, PRIMARY KEY (v) NOT ENFORCED", "t", "refused"),
       "The PRIMARY KEY of default_catalog.default_database.src (v) is not the primary key of PostgreSQL table "
       "public.t (id)"},
      {Script(kCols, "nothing_here", "refused"), "no PostgreSQL table matches 'schema-name' = 'public' and "
                                                  "'table-name' = 'nothing_here'"},
      {Script("id INT, PRIMARY KEY (id) NOT ENFORCED", "t_.*", "refused"),
       "Reading several PostgreSQL tables into one table (default_catalog.default_database.src matches public.t_a, "
       "public.t_b"},
      {Script("id INT, v STRING, n BIGINT, w INT, PRIMARY KEY (id) NOT ENFORCED", "t", "refused"),
       "Column 'w' of default_catalog.default_database.src is not a column of PostgreSQL table public.t"},
      {Script("id INT, v INT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED", "t", "refused"),
       "Column 'v' of default_catalog.default_database.src is INT, but PostgreSQL table public.t column v maps to "
       "STRING"},
      {Script("id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED", "t", "refused"),
       "lacks n of public.t: the source reads whole rows"},
      {Script("id INT, v STRING, n BIGINT, op_ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL, PRIMARY KEY (id) NOT "
              "ENFORCED",
              "t", "refused", "", "t", "1s", kCols),
       "Metadata column 'op_ts'"},
      {Script(kCols, "t", "refused", "", "t", "1s", "", "SELECT * FROM src;\n"),
       "Reading the 'postgres-cdc' table default_catalog.default_database.src other than by INSERT INTO"},
      {Script(kCols, "t", "refused", "", "t", "1s", "", "INSERT INTO ice.db.t SELECT * FROM src WHERE id > 1;\n"),
       "INSERT INTO ice.db.t from the postgres-cdc table default_catalog.default_database.src with a query other "
       "than SELECT *"},
      {Script(kCols, "t", "refused", "", "t", "1s", "", "INSERT INTO src SELECT * FROM ice.db.t;\n"),
       "Writing to a 'postgres-cdc' table (INSERT INTO default_catalog.default_database.src)"},
      {Script(kCols, "t", "refused", "", "t", "1s", "",
              "CREATE TEMPORARY TABLE p (id INT, v STRING, n BIGINT) WITH ('connector' = 'print');\n"
              "INSERT INTO p SELECT * FROM src;\n"),
       "Reading the 'postgres-cdc' table"},
      {Script(kCols, "t", "refused", "", "t", "1s", "",
              "CREATE TABLE IF NOT EXISTS ice.db.t2 (" + kCols + ");\n"
              "EXECUTE STATEMENT SET BEGIN INSERT INTO ice.db.t SELECT * FROM src; INSERT INTO ice.db.t2 SELECT * "
              "FROM src; END;\n"),
       "in a statement set"},
      {Script(kCols, "t", "refused", "", "nokey", "1s", "id INT, v STRING, n BIGINT",
              "INSERT INTO ice.db.nokey SELECT * FROM src;\n"),
       "the Iceberg table's PRIMARY KEY (identifier fields: none) must be the source's (id)"},
  };
  for (const Case& c : cases) {
    fs::remove_all(dir_ / "warehouse");  // each case declares its Iceberg table anew
    WriteFile(dir_ / "x.sql", c.script);
    RunResult r = FloeIn(dir_, {"sql", "-f", "x.sql"});
    EXPECT_EQ(r.rc, 1) << c.script << r.out << r.err;
    EXPECT_NE((r.out + r.err).find(c.want), std::string::npos) << c.want << "\n" << c.script << r.out << r.err;
  }
  EXPECT_EQ(Trim(Sql("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")), "0");
}

// A column added in PostgreSQL while streaming: the Iceberg table (declared
// in SQL) is not evolved; the job stops naming the column.
TEST_F(PgSql, AddedColumnStopsTheJob) {
  MakeTable(5);
  StartSql(Script(kCols, "t", "ddl"));
  WaitCaughtUp("ddl");
  Sql("ALTER TABLE t ADD COLUMN extra int; INSERT INTO t VALUES (100, 'x', 1, 7)");
  EXPECT_EQ(WaitExit(), 1) << Out();
  EXPECT_NE(Out().find("has column extra, which the Iceberg table db.t does not"), std::string::npos) << Out();
  RunResult d = FloeIn(dir_, {"describe", "--table", "db.t"});
  EXPECT_EQ(d.out.find("extra"), std::string::npos) << d.out;
}

}  // namespace pg_sql_cli_test
}  // namespace floe_cli_test
