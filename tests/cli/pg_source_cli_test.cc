// The PostgreSQL source (pgsrc/pg_source.h) through `floe write --config`
// with a `source:` block, against the tests' PostgreSQL cluster
// (wal_level=logical): a consistent snapshot then logical replication, every
// type of the mapping with nulls and extremes, updates (a primary key that
// changes moves the row), deletes, REPLICA IDENTITY DEFAULT and FULL,
// unchanged TOAST values, TRUNCATE, DDL (added, dropped, widened columns),
// a chunked snapshot on several connections, a dropped slot refused, and
// pgbench (PostgreSQL's own load generator) as the independent client: every
// pgbench table equals its Iceberg table row for row (psql vs `floe scan` and
// verify_table.mjs), also after kill -9 trials of floe (PgSourceCrash, label
// release) in which no PostgreSQL transaction is split across Iceberg
// snapshots or applied twice.
#include "pg_fixture.h"

namespace floe_cli_test {
namespace {

// Every type of the mapping (pg_value.h), with nulls and extremes, through
// the snapshot and through the stream.
TEST_F(PgSource, TypesThroughSnapshotAndStream) {
  Sql("CREATE TYPE mood AS ENUM ('sad', 'happy')");
  Sql("CREATE TABLE types (id bigint PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, n numeric(12,3), "
      "nu numeric, r real, d double precision, b boolean, t text, v varchar(10), c char(3), by bytea, dt date, "
      "tm time, ts timestamp, tz timestamptz, u uuid, j json, jb jsonb, e mood, a integer[], ta text[], ip inet, "
      "m macaddr)");
  const std::string row1 =
      "(1, -32768, -2147483648, -9223372036854775808, -999999999.999, 123456789012345678901234567890.5, "
      "'-Infinity', 1.5e308, true, 'naïve \"q\" \\ tab\t', 'abc', 'x', '\\x00ff10', '0001-01-01', '00:00:00', "
      "'1970-01-01 00:00:00', '2024-02-29 23:59:59.999999+05', '00000000-0000-0000-0000-000000000000', "
      "'{\"a\": [1, 2]}', '{\"b\": null}', 'sad', '{1,NULL,-3}', '{\"a,b\",NULL,\"\",\"x\\\"y\"}', "
      "'192.168.0.1/24', '08:00:2b:01:02:03')";
  const std::string row2 =
      "(2, 32767, 2147483647, 9223372036854775807, 999999999.999, 'NaN', 'NaN', -0.1, false, '', '', '', '\\x', "
      "'9999-12-31', '23:59:59.999999', '9999-12-31 23:59:59.999999', '1970-01-01 00:00:00+00', "
      "'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', '{}', 'happy', '{}', '{}', '::1', 'ff:ff:ff:ff:ff:ff')";
  const std::string row_nulls = "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                                "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";
  Sql("INSERT INTO types VALUES " + row1 + ", " + row_nulls);  // in the snapshot
  Config("types", "types_slot");
  Start();
  WaitCaughtUp("types_slot");
  Sql("INSERT INTO types VALUES " + row2);  // streamed
  Sql("INSERT INTO types (id, t) VALUES (4, 'streamed null row')");
  WaitCaughtUp("types_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");

  std::map<int64_t, json> got;
  for (json& r : Scan("db.types")) got[r.at("id").get<int64_t>()] = r;
  ASSERT_EQ(got.size(), 4u);
  const json& a = got[1];
  EXPECT_EQ(a["i2"], -32768);
  EXPECT_EQ(a["i4"], -2147483648LL);
  EXPECT_EQ(a["i8"], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(a["n"], "-999999999.999");
  EXPECT_EQ(a["nu"], "123456789012345678901234567890.5");  // unconstrained numeric: its exact text
  EXPECT_EQ(a["r"], "-Infinity");
  EXPECT_EQ(a["d"], 1.5e308);
  EXPECT_EQ(a["b"], true);
  EXPECT_EQ(a["t"], "naïve \"q\" \\ tab\t");
  EXPECT_EQ(a["v"], "abc");
  EXPECT_EQ(a["c"], "x  ");  // char(3) keeps its padding
  EXPECT_EQ(a["by"], "00ff10");
  EXPECT_EQ(a["dt"], "0001-01-01");
  EXPECT_EQ(a["tm"], "00:00:00.000000");
  EXPECT_EQ(a["ts"], "1970-01-01T00:00:00.000000");
  EXPECT_EQ(a["tz"], "2024-02-29T18:59:59.999999+00:00");
  EXPECT_EQ(a["u"], "00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(a["j"], "{\"a\": [1, 2]}");
  EXPECT_EQ(a["jb"], "{\"b\": null}");
  EXPECT_EQ(a["e"], "sad");
  EXPECT_EQ(a["a"], json::parse("[1, null, -3]"));
  EXPECT_EQ(a["ta"], json::parse("[\"a,b\", null, \"\", \"x\\\"y\"]"));
  EXPECT_EQ(a["ip"], "192.168.0.1/24");
  EXPECT_EQ(a["m"], "08:00:2b:01:02:03");
  const json& b = got[2];
  EXPECT_EQ(b["i2"], 32767);
  EXPECT_EQ(b["i8"], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(b["n"], "999999999.999");
  EXPECT_EQ(b["nu"], "NaN");
  EXPECT_EQ(b["r"], "NaN");
  EXPECT_EQ(b["b"], false);
  EXPECT_EQ(b["t"], "");
  EXPECT_EQ(b["c"], "   ");
  EXPECT_EQ(b["by"], "");
  EXPECT_EQ(b["dt"], "9999-12-31");
  EXPECT_EQ(b["tm"], "23:59:59.999999");
  EXPECT_EQ(b["ts"], "9999-12-31T23:59:59.999999");
  EXPECT_EQ(b["tz"], "1970-01-01T00:00:00.000000+00:00");
  EXPECT_EQ(b["u"], "ffffffff-ffff-ffff-ffff-ffffffffffff");
  EXPECT_EQ(b["e"], "happy");
  EXPECT_EQ(b["a"], json::array());
  for (auto& [k, v] : got[3].items()) {
    if (k != "id") {
      EXPECT_TRUE(v.is_null()) << k << " = " << v;
    }
  }
  EXPECT_EQ(got[4]["t"], "streamed null row");
  EXPECT_TRUE(got[4]["a"].is_null());
  // The table's key is the PostgreSQL primary key.
  RunResult d = FloeIn(dir_, {"describe", "--table", "db.types"});
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_EQ(json::parse(d.out).at("schema").at("identifier-field-ids"), json::parse("[1]")) << d.out;
}

// The snapshot reads binary COPY (pg_value.h: AppendPgBinary, and the text
// of the types without a binary form floe decodes), the stream pgoutput's
// text: the same values must give the same rows. 3,000 rows of generated
// values of every type (extremes, nulls, NaN and infinities, -0, padded
// char, text with tabs, newlines, backslashes and non-ASCII, every byte of
// bytea) into table `snap` before floe starts, and the same rows into
// `strm` once it streams.
TEST_F(PgSource, BinarySnapshotAndTextStreamGiveTheSameRows) {
  Sql("CREATE TYPE hue AS ENUM ('red', 'green')");
  const std::string cols =
      "(id int PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, o oid, f4 real, f8 double precision, b boolean, "
      "d date, tm time, ts timestamp, tz timestamptz, u uuid, by bytea, tx text, vc varchar(20), bp char(5), "
      "nm name, js json, jb jsonb, n numeric(12,3), nu numeric, ar int[], e hue, iv interval)";
  Sql("CREATE TABLE snap " + cols);
  Sql("CREATE TABLE strm " + cols);
  // Column k of row g is null when (g + k) % 11 == 0; rows 1 to 4 hold the extremes.
  const std::string gen =
      "SELECT g, "
      "CASE WHEN (g+1)%11=0 THEN NULL WHEN g=1 THEN -32768 WHEN g=2 THEN 32767 ELSE (hashint4(g) % 32768) END, "
      "CASE WHEN (g+2)%11=0 THEN NULL WHEN g=1 THEN -2147483648 WHEN g=2 THEN 2147483647 ELSE hashint4(g*3) END, "
      "CASE WHEN (g+3)%11=0 THEN NULL WHEN g=1 THEN -9223372036854775808 WHEN g=2 THEN 9223372036854775807 "
      "  ELSE hashint8(g) END, "
      "CASE WHEN (g+4)%11=0 THEN NULL WHEN g=2 THEN 4294967295 ELSE abs(hashint4(g*5))::bigint END::oid, "
      "CASE WHEN (g+5)%11=0 THEN NULL WHEN g=1 THEN 'NaN' WHEN g=2 THEN 'Infinity' WHEN g=3 THEN '-Infinity' "
      "  WHEN g=4 THEN '-0' ELSE (hashint4(g*7)::float8 / 7919)::real END, "
      "CASE WHEN (g+6)%11=0 THEN NULL WHEN g=1 THEN 'NaN' WHEN g=2 THEN '-Infinity' WHEN g=3 THEN 1.7976931348623157e308 "
      "  WHEN g=4 THEN 5e-324 ELSE hashint8(g*11)::float8 / 104729.0 END, "
      "CASE WHEN (g+7)%11=0 THEN NULL ELSE g % 2 = 0 END, "
      "CASE WHEN (g+8)%11=0 THEN NULL WHEN g=1 THEN '0001-01-01' WHEN g=2 THEN '9999-12-31' "
      "  ELSE date '1970-01-01' + (hashint4(g*13) % 700000) END, "
      "CASE WHEN (g+9)%11=0 THEN NULL WHEN g=1 THEN '00:00:00' WHEN g=2 THEN '23:59:59.999999' "
      "  ELSE time '00:00' + (abs(hashint8(g*17)) % 86400000000) * interval '1 microsecond' END, "
      "CASE WHEN (g+10)%11=0 THEN NULL WHEN g=1 THEN '0001-01-01 00:00:00' WHEN g=2 THEN '9999-12-31 23:59:59.999999' "
      "  ELSE timestamp '2000-01-01' + (hashint8(g*19) % 3000000000000000) * interval '1 microsecond' END, "
      "CASE WHEN (g)%11=0 THEN NULL WHEN g=1 THEN '0001-01-01 00:00:00+00' WHEN g=2 THEN '9999-12-31 23:59:59.999999+00' "
      "  ELSE timestamptz '2000-01-01 00:00+00' + (hashint8(g*23) % 3000000000000000) * interval '1 microsecond' END, "
      "CASE WHEN (g+1)%11=0 THEN NULL ELSE md5(g::text)::uuid END, "
      "CASE WHEN (g+2)%11=0 THEN NULL WHEN g=1 THEN '\\x' WHEN g=2 THEN (SELECT string_agg(set_byte('\\x00', 0, x), '') "
      "  FROM generate_series(0, 255) x) ELSE decode(md5(g::text), 'hex') END, "
      "CASE WHEN (g+3)%11=0 THEN NULL WHEN g=1 THEN '' WHEN g=2 THEN E'tab\\there\\nnew line \\\\ back ½ €' "
      "  ELSE repeat(md5(g::text), 1 + g % 5) END, "
      "CASE WHEN (g+4)%11=0 THEN NULL ELSE left(md5((g*2)::text), g % 21) END, "
      "CASE WHEN (g+5)%11=0 THEN NULL ELSE left(md5((g*3)::text), g % 6) END, "
      "CASE WHEN (g+6)%11=0 THEN NULL ELSE 'n' || g END, "
      "CASE WHEN (g+7)%11=0 THEN NULL ELSE json_build_object('g', g, 's', md5(g::text)) END, "
      "CASE WHEN (g+8)%11=0 THEN NULL ELSE jsonb_build_object('g', g, 'a', jsonb_build_array(g, 'x', NULL)) END, "
      "CASE WHEN (g+9)%11=0 THEN NULL WHEN g=1 THEN -999999999.999 ELSE (hashint4(g*29) % 1000000000)::numeric / 1000 END, "
      "CASE WHEN (g+10)%11=0 THEN NULL WHEN g=1 THEN 'NaN' ELSE hashint8(g*31)::numeric / 7 END, "
      "CASE WHEN g%11=0 THEN NULL WHEN g=1 THEN '{}' ELSE ARRAY[g, NULL, -g] END, "
      "CASE WHEN (g+1)%11=0 THEN NULL WHEN g%2=0 THEN 'red'::hue ELSE 'green'::hue END, "
      "CASE WHEN (g+2)%11=0 THEN NULL ELSE make_interval(0, 0, 0, g % 40, g % 24, 0, g / 1000.0) END "
      "FROM generate_series(1, 3000) g";
  Sql("INSERT INTO snap " + gen);
  Config("snap, strm", "bin_slot");
  WriteFile(dir_ / "pg.yaml", ReadFile(dir_ / "pg.yaml") + "  snapshot_chunk_size: 700\n");
  Start();
  WaitCaughtUp("bin_slot");
  Sql("INSERT INTO strm SELECT * FROM snap");
  WaitCaughtUp("bin_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  auto by_id = [](std::vector<json> rows) {
    std::sort(rows.begin(), rows.end(), [](const json& a, const json& b) { return a.at("id") < b.at("id"); });
    return rows;
  };
  const std::vector<json> snap = by_id(Scan("db.snap")), strm = by_id(Scan("db.strm"));
  ASSERT_EQ(snap.size(), 3000u);
  ASSERT_EQ(strm.size(), 3000u);
  for (size_t i = 0; i < snap.size(); ++i) {
    ASSERT_EQ(snap[i], strm[i]) << "row " << i + 1 << ": the binary snapshot and the text stream differ";
  }
  EXPECT_EQ(snap[1].at("by").get<std::string>().size(), 512u);  // every byte, in hex
  EXPECT_EQ(snap[3].at("f4"), -0.0);
}

// A value with no Iceberg form is an error naming the table and column, nothing committed.
TEST_F(PgSource, ValueWithoutIcebergFormIsAnErrorNamingTheColumn) {
  Sql("CREATE TABLE odd (id int PRIMARY KEY, n numeric(5,2))");
  Sql("INSERT INTO odd VALUES (1, 'NaN')");
  Config("odd", "odd_slot");
  EXPECT_NE(RunToExit(), 0);
  const std::string err = ReadFile(dir_ / "floe.err");
  EXPECT_NE(err.find("public.odd column n"), std::string::npos) << err;
  EXPECT_NE(err.find("NaN"), std::string::npos) << err;
}

// Updates, a primary key that changes (the row moves), deletes, with
// REPLICA IDENTITY DEFAULT and FULL; a composite key.
TEST_F(PgSource, UpdatesDeletesAndKeyChanges) {
  Sql("CREATE TABLE kd (a int, b text, v text, PRIMARY KEY (a, b))");
  Sql("CREATE TABLE kf (id int PRIMARY KEY, v text)");
  Sql("ALTER TABLE kf REPLICA IDENTITY FULL");
  Sql("INSERT INTO kd SELECT g, 'k' || g, 'v' || g FROM generate_series(1, 100) g");
  Sql("INSERT INTO kf SELECT g, 'v' || g FROM generate_series(1, 100) g");
  Config("kd, kf", "upd_slot");
  Start();
  WaitCaughtUp("upd_slot");
  for (const char* t : {"kd", "kf"}) {
    const std::string key = std::string(t) == "kd" ? "a" : "id";
    Sql(fmt::format("UPDATE {} SET v = 'updated' WHERE {} <= 10", t, key));
    Sql(fmt::format("UPDATE {} SET {} = {} + 1000 WHERE {} BETWEEN 11 AND 20", t, key, key, key));  // the key moves
    Sql(fmt::format("DELETE FROM {} WHERE {} BETWEEN 21 AND 30", t, key));
    Sql(fmt::format("BEGIN; UPDATE {0} SET v = 'twice' WHERE {1} = 31; UPDATE {0} SET v = 'thrice' WHERE {1} = 31; "
                    "DELETE FROM {0} WHERE {1} = 32; INSERT INTO {0} SELECT * FROM {0} WHERE {1} = 33 AND false; "
                    "COMMIT",
                    t, key));
  }
  Sql("UPDATE kd SET b = 'moved' WHERE a = 40");  // half of a composite key
  // Several changes of one key in one transaction apply in their order, whatever their kinds.
  Sql("BEGIN; INSERT INTO kd VALUES (500, 'k500', 'x'); DELETE FROM kd WHERE a = 500; "
      "UPDATE kd SET v = 'gone' WHERE a = 33; DELETE FROM kd WHERE a = 33; "
      "UPDATE kd SET v = 'then' WHERE a = 34; UPDATE kd SET a = 1034 WHERE a = 34; COMMIT");
  Sql("BEGIN; INSERT INTO kf VALUES (500, 'x'); DELETE FROM kf WHERE id = 500; "
      "UPDATE kf SET v = 'gone' WHERE id = 33; DELETE FROM kf WHERE id = 33; "
      "UPDATE kf SET v = 'then' WHERE id = 34; UPDATE kf SET id = 1034 WHERE id = 34; COMMIT");
  WaitCaughtUp("upd_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.kd"), {"a", "b", "v"}), PgLines("SELECT a, b, v FROM kd"));
  EXPECT_EQ(JsonLines(Scan("db.kf"), {"id", "v"}), PgLines("SELECT id, v FROM kf"));
  EXPECT_EQ(JsonLines(Verified("db.kf"), {"id", "v"}), PgLines("SELECT id, v FROM kf"));
}

// An unchanged TOASTed value (pgoutput sends none): with REPLICA IDENTITY
// FULL the old row carries it; with DEFAULT it is read back — from the rows
// of its own transaction, or from the Iceberg table through the sink's key
// index (committed first when an earlier transaction of the window changed
// the key) — never a placeholder; also when the update moves the key.
TEST_F(PgSource, UnchangedToastValues) {
  Sql("CREATE TABLE big (id int PRIMARY KEY, n int, doc text)");
  Sql("ALTER TABLE big ALTER COLUMN doc SET STORAGE EXTERNAL");  // out of line, uncompressed: TOASTed
  Sql("ALTER TABLE big REPLICA IDENTITY FULL");
  Sql("INSERT INTO big SELECT g, 0, repeat(md5(g::text), 400) FROM generate_series(1, 10) g");
  Config("big", "toast_slot");
  Start();
  WaitCaughtUp("toast_slot");
  Sql("UPDATE big SET n = n + 1 WHERE id <= 3");
  WaitCaughtUp("toast_slot");
  const std::vector<std::string> cols = {"id", "n", "doc"};
  const std::string select = "SELECT id, n, doc FROM big";
  // Lines id|n|doc with doc as its size and hash (a failure prints short lines).
  auto digest = [](std::vector<std::string> lines) {
    for (std::string& l : lines) {
      const size_t bar = l.find('|', l.find('|') + 1);
      const std::string doc = l.substr(bar + 1);
      l = l.substr(0, bar + 1) + std::to_string(doc.size()) + ":" + std::to_string(std::hash<std::string>()(doc));
    }
    return lines;
  };
  EXPECT_EQ(digest(JsonLines(Scan("db.big"), cols)), digest(PgLines(select)));

  Sql("ALTER TABLE big REPLICA IDENTITY DEFAULT");
  Sql("UPDATE big SET n = n + 1 WHERE id = 4");   // from the committed table
  Sql("INSERT INTO big VALUES (11, 0, repeat('x', 9000))");
  Sql("UPDATE big SET n = 5 WHERE id = 11");      // an earlier transaction of the window: committed, read back
  Sql("BEGIN; INSERT INTO big VALUES (12, 0, repeat('y', 9000)); UPDATE big SET n = 6 WHERE id = 12; "
      "UPDATE big SET n = 7 WHERE id = 12; COMMIT");  // its own transaction's row
  Sql("UPDATE big SET id = 105, n = 8 WHERE id = 5");  // the key moves, the value comes along
  Sql("BEGIN; UPDATE big SET n = 9 WHERE id = 6; UPDATE big SET id = 106 WHERE id = 6; COMMIT");
  WaitCaughtUp("toast_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(digest(JsonLines(Scan("db.big"), cols)), digest(PgLines(select)));
  EXPECT_EQ(digest(JsonLines(Verified("db.big"), cols)), digest(PgLines(select)));
  // A relaunch reads the index from the table.
  Sql("UPDATE big SET n = n + 100 WHERE id IN (1, 7, 105, 106)");
  Start();
  WaitCaughtUp("toast_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(digest(JsonLines(Scan("db.big"), cols)), digest(PgLines(select)));
  for (const json& r : Scan("db.big")) {
    EXPECT_GE(r.at("doc").get<std::string>().size(), 9000u) << r.at("id");
  }
}

// TRUNCATE empties the Iceberg table (a snapshot that removes every file),
// the transactions before it committed first; rows after it arrive as usual.
// With `truncate: refuse` it stops the replication naming the table and the
// option.
TEST_F(PgSource, TruncateEmptiesTheTable) {
  Sql("CREATE TABLE tr (id int PRIMARY KEY, v text)");
  Sql("INSERT INTO tr SELECT g, 'a' FROM generate_series(1, 10) g");
  Config("tr", "trunc_slot");
  Start();
  WaitCaughtUp("trunc_slot");
  Sql("UPDATE tr SET v = 'b' WHERE id <= 5");
  Sql("TRUNCATE tr");
  Sql("INSERT INTO tr VALUES (100, 'after')");
  Sql("BEGIN; TRUNCATE tr; INSERT INTO tr VALUES (200, 'same transaction'); COMMIT");
  Sql("INSERT INTO tr VALUES (201, 'next')");
  WaitCaughtUp("trunc_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.tr"), {"id", "v"}), PgLines("SELECT id, v FROM tr"));
  EXPECT_EQ(JsonLines(Verified("db.tr"), {"id", "v"}), PgLines("SELECT id, v FROM tr"));
  EXPECT_NE(ReadFile(dir_ / "floe.err").find("public.tr truncated"), std::string::npos) << ReadFile(dir_ / "floe.err");

  WriteFile(dir_ / "pg.yaml", ReadFile(dir_ / "pg.yaml") + "  truncate: refuse\n");
  Sql("TRUNCATE tr");
  EXPECT_NE(RunToExit(), 0);
  const std::string err = ReadFile(dir_ / "floe.err");
  EXPECT_NE(err.find("public.tr was truncated"), std::string::npos) << err;
  EXPECT_NE(err.find("truncate: refuse"), std::string::npos) << err;
  EXPECT_EQ(Scan("db.tr").size(), 2u);
}

// DDL mid-stream: an added column evolves the Iceberg schema (null in the
// rows before it), a dropped one stays in the Iceberg table (null from then
// on), a column widened by one of Iceberg's promotions (integer to bigint,
// real to double precision, numeric(6,2) to numeric(10,2)) is widened, and
// a type change without a promotion stops the replication naming the column.
TEST_F(PgSource, SchemaChangesMidStream) {
  Sql("CREATE TABLE dd (id int PRIMARY KEY, v text, n integer, r real, d numeric(6,2), gone text)");
  Sql("INSERT INTO dd VALUES (1, 'snap', 1, 1.5, 1.25, 'x')");
  Config("dd", "ddl_slot");
  Start();
  WaitCaughtUp("ddl_slot");
  Sql("INSERT INTO dd VALUES (2, 'before', 2, 2.5, 2.25, 'y')");
  Sql("ALTER TABLE dd ADD COLUMN extra int");
  Sql("INSERT INTO dd VALUES (3, 'added', 3, 3.5, 3.25, 'z', 33)");
  Sql("UPDATE dd SET extra = 11 WHERE id = 1");
  Sql("ALTER TABLE dd DROP COLUMN gone");
  Sql("INSERT INTO dd VALUES (4, 'dropped', 4, 4.5, 4.25, 44)");
  Sql("UPDATE dd SET v = 'updated' WHERE id = 2");
  Sql("ALTER TABLE dd ALTER COLUMN n TYPE bigint, ALTER COLUMN r TYPE double precision, "
      "ALTER COLUMN d TYPE numeric(10,2)");
  Sql("INSERT INTO dd VALUES (5, 'widened', 9000000000, 0.1, 12345678.25, 55)");
  WaitCaughtUp("ddl_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  const std::string notes = ReadFile(dir_ / "floe.err");
  EXPECT_NE(notes.find("column extra added"), std::string::npos) << notes;
  EXPECT_NE(notes.find("column n widened from int to long"), std::string::npos) << notes;
  const std::vector<std::string> cols = {"id", "v", "n", "d", "extra"};
  const std::string select = "SELECT id, v, n, d, extra FROM dd";
  EXPECT_EQ(JsonLines(Scan("db.dd"), cols), PgLines(select));
  EXPECT_EQ(JsonLines(Verified("db.dd"), cols), PgLines(select));
  std::map<int64_t, json> got;
  for (json& r : Scan("db.dd")) got[r.at("id").get<int64_t>()] = r;
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[1]["gone"], "x");  // the dropped column keeps what it held ...
  EXPECT_EQ(got[3]["gone"], "z");
  EXPECT_TRUE(got[4]["gone"].is_null());  // ... and is null in rows written since
  EXPECT_TRUE(got[2]["gone"].is_null());  // (updated since: the new row has none)
  EXPECT_EQ(got[5]["r"], 0.1);
  EXPECT_EQ(got[1]["r"], 1.5);
  RunResult d = FloeIn(dir_, {"describe", "--table", "db.dd"});
  ASSERT_EQ(d.rc, 0) << d.err;
  const json schema = json::parse(d.out).at("schema");
  std::map<std::string, json> types;
  for (const json& f : schema.at("fields")) types[f.at("name").get<std::string>()] = f.at("type");
  EXPECT_EQ(types["n"], "long");
  EXPECT_EQ(types["r"], "double");
  EXPECT_EQ(types["d"], "decimal(10, 2)");
  EXPECT_EQ(types["extra"], "int");
  EXPECT_TRUE(types.contains("gone"));

  // A relaunch reads the evolved table as it is.
  Start();
  WaitCaughtUp("ddl_slot");
  Sql("INSERT INTO dd VALUES (6, 'relaunched', 6, 6.5, 6.25, 66)");
  WaitCaughtUp("ddl_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.dd"), cols), PgLines(select));

  // No promotion from int to text: refused, naming the column; nothing of it written.
  Sql("ALTER TABLE dd ALTER COLUMN extra TYPE text");
  Sql("INSERT INTO dd VALUES (7, 'retyped', 7, 7.5, 7.25, 'seven')");
  EXPECT_NE(RunToExit(), 0);
  const std::string err = ReadFile(dir_ / "floe.err");
  EXPECT_NE(err.find("public.dd column extra"), std::string::npos) << err;
  EXPECT_NE(err.find("promotions"), std::string::npos) << err;
  EXPECT_EQ(Scan("db.dd").size(), 6u);
}

// The snapshot reads a table in chunks of its primary key's first column on
// several connections under the slot's exported snapshot: an integer key
// (gaps, negative values, one far outlier), a text key (chunks found by
// walking the key) and a composite key whose first column repeats across
// chunk edges; every row once, nothing else, one commit per table.
TEST_F(PgSource, ChunkedSnapshotOnSeveralConnections) {
  Sql("CREATE TABLE ci (id bigint PRIMARY KEY, v text)");
  Sql("INSERT INTO ci SELECT g * 7 - 500, 'v' || g FROM generate_series(1, 1000) g");
  Sql("INSERT INTO ci VALUES (9000000000, 'far')");
  Sql("CREATE TABLE ct (k text PRIMARY KEY, n int)");
  Sql("INSERT INTO ct SELECT md5(g::text), g FROM generate_series(1, 500) g");
  Sql("CREATE TABLE cc (a int, b int, PRIMARY KEY (a, b))");
  Sql("INSERT INTO cc SELECT g / 10, g FROM generate_series(1, 600) g");
  Sql("CREATE TABLE ce (id int PRIMARY KEY)");  // empty
  Sql("ANALYZE");
  Config("ci, ct, cc, ce", "chunk_slot");
  WriteFile(dir_ / "pg.yaml", ReadFile(dir_ / "pg.yaml") + "  snapshot_chunk_size: 37\n  snapshot_connections: 3\n");
  Start();
  WaitCaughtUp("chunk_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.ci"), {"id", "v"}), PgLines("SELECT id, v FROM ci"));
  EXPECT_EQ(JsonLines(Scan("db.ct"), {"k", "n"}), PgLines("SELECT k, n FROM ct"));
  EXPECT_EQ(JsonLines(Verified("db.cc"), {"a", "b"}), PgLines("SELECT a, b FROM cc"));
  EXPECT_EQ(Scan("db.ce").size(), 0u);
  RunResult snaps = FloeIn(dir_, {"snapshots", "--table", "db.ci"});
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  EXPECT_EQ(std::count(snaps.out.begin(), snaps.out.end(), '\n'), 1) << snaps.out;
}

// A table added to the source later (the slot exists, the table holds no
// commit of the sink) gets a snapshot of its own under a temporary slot; its
// commit must record that snapshot's position (its rows' position: the sink
// commits the largest it saw), not the stream's, which is 0 on a relaunch
// until a transaction streams: else a relaunch before the slot's confirmed
// position passed the changes the snapshot holds would apply them again.
TEST_F(PgSource, ATableAddedLaterRecordsItsOwnSnapshotPosition) {
  Sql("CREATE TABLE la (id int PRIMARY KEY)");
  Sql("CREATE TABLE lb (id int PRIMARY KEY)");
  Sql("INSERT INTO la VALUES (1)");
  Config("la", "later_slot");
  Start();
  WaitCaughtUp("later_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  Sql("INSERT INTO lb SELECT generate_series(1, 10)");  // while floe is down: in lb's snapshot
  const std::string before = Trim(Sql("SELECT pg_current_wal_lsn()"));
  const std::string lb_lsn = Trim(Sql("SELECT ('" + before + "'::pg_lsn - '0/0'::pg_lsn)::bigint"));
  Sql("ALTER PUBLICATION floe_later_slot ADD TABLE lb");
  Config("la, lb", "later_slot");
  Start();
  WaitCaughtUp("later_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.lb"), {"id"}), PgLines("SELECT id FROM lb"));
  RunResult snaps = FloeIn(dir_, {"snapshots", "--table", "db.lb"});
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  std::istringstream in(snaps.out);
  std::string first;
  ASSERT_TRUE(std::getline(in, first)) << snaps.out;
  const json pos = json::parse(json::parse(first).at("summary").at("floe.source-position").get<std::string>());
  EXPECT_GT(pos.at("position").get<int64_t>(), std::stoll(lb_lsn))
      << "lb's snapshot commit records " << pos << ", before the changes its snapshot holds (" << before << ")";
}

// A `publication` without `tables`: the tables are the publication's
// (schema-qualified and quoted names included); a publication that does not
// exist is an error naming it.
TEST_F(PgSource, TablesOfAnExistingPublication) {
  Sql("CREATE SCHEMA \"Sales\"");
  Sql("CREATE TABLE \"Sales\".\"Orders\" (id int PRIMARY KEY, v text)");
  Sql("CREATE TABLE items (id int PRIMARY KEY)");
  Sql("CREATE TABLE other (id int PRIMARY KEY)");
  Sql("INSERT INTO \"Sales\".\"Orders\" VALUES (1, 'a'); INSERT INTO items VALUES (7); INSERT INTO other VALUES (9)");
  WriteFile(dir_ / "pg.yaml", fmt::format("triggering_frequency_seconds: 1\nsource:\n  type: postgres\n"
                                          "  connection: {}\n  publication: shop\n  slot: pub_slot\n  namespace: db\n",
                                          Conn()));
  EXPECT_EQ(RunToExit(), 2);
  EXPECT_NE(ReadFile(dir_ / "floe.err").find("publication shop does not exist"), std::string::npos)
      << ReadFile(dir_ / "floe.err");
  Sql("CREATE PUBLICATION shop FOR TABLE \"Sales\".\"Orders\", items");
  Start();
  WaitCaughtUp("pub_slot");
  Sql("INSERT INTO \"Sales\".\"Orders\" VALUES (2, 'b'); INSERT INTO items VALUES (8); INSERT INTO other VALUES (10)");
  WaitCaughtUp("pub_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.Orders"), {"id", "v"}), (std::vector<std::string>{"1|a", "2|b"}));
  EXPECT_EQ(JsonLines(Scan("db.items"), {"id"}), (std::vector<std::string>{"7", "8"}));
  RunResult other = FloeIn(dir_, {"describe", "--table", "db.other"});
  EXPECT_NE(other.rc, 0) << "a table outside the publication was replicated";
}

// A slot that disappeared under committed tables is an error, never a new snapshot.
TEST_F(PgSource, DroppedSlotIsAnError) {
  Sql("CREATE TABLE ds (id int PRIMARY KEY)");
  Sql("INSERT INTO ds SELECT generate_series(1, 10)");
  Config("ds", "drop_slot");
  Start();
  WaitCaughtUp("drop_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  Sql("SELECT pg_drop_replication_slot('drop_slot')");
  Sql("INSERT INTO ds VALUES (11)");
  EXPECT_EQ(RunToExit(), 2);
  const std::string err = ReadFile(dir_ / "floe.err");
  EXPECT_NE(err.find("replication slot drop_slot does not exist"), std::string::npos) << err;
  EXPECT_NE(err.find("db.ds"), std::string::npos) << err;
  EXPECT_EQ(Scan("db.ds").size(), 10u);
}

// startup: latest-offset: no snapshot; changes made while floe is down
// (before it ever committed) still arrive: the slot is kept.
TEST_F(PgSource, LatestOffsetStreamsWithoutSnapshot) {
  Sql("CREATE TABLE lo (id int PRIMARY KEY)");
  Sql("INSERT INTO lo SELECT generate_series(1, 5)");
  Config("lo", "lo_slot", "");
  WriteFile(dir_ / "pg.yaml", ReadFile(dir_ / "pg.yaml") + "  startup: latest-offset\n");
  Start();
  WaitCaughtUp("lo_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  Sql("INSERT INTO lo VALUES (6)");  // while floe is down, nothing committed yet
  Start();
  WaitCaughtUp("lo_slot");
  Sql("INSERT INTO lo VALUES (7)");
  WaitCaughtUp("lo_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  EXPECT_EQ(JsonLines(Scan("db.lo"), {"id"}), (std::vector<std::string>{"6", "7"}));
}

// The run: `pgbench -i -s 10` (1 M accounts), then a 60-second
// `pgbench -c 4` during which floe starts (its snapshot read under the load)
// and replicates; after it, every pgbench table equals its Iceberg table row
// for row. Its own suite (ctest case cli_pg_source_load, label release: the
// asan part runs it at FLOE_TEST_SCALE, scale 1 for 6 seconds).
class PgSourceLoad : public PgSource {};

TEST_F(PgSourceLoad, PgbenchScale10For60Seconds) {
  const int scale = static_cast<int>(floe::test::Scaled(10, 1));
  const int seconds = static_cast<int>(floe::test::Scaled(60, 6));
  PgbenchInit(scale);
  Config("pgbench_accounts, pgbench_tellers, pgbench_branches, pgbench_history", "load_slot");
  // At 1,000 transactions a second (60,000 in all, each three updates and an
  // insert): a steady load that leaves the cores to the rest of CI (the
  // highest rate floe keeps up with is bench/pg_stream.sh's figure).
  const pid_t load =
      Background(PgbenchCommand("-c 4 -j 2 -R 1000 -T " + std::to_string(seconds)) + " > pgbench.out 2>&1");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the snapshot is taken under the load
  Start();
  ASSERT_EQ(Join(load), 0) << ReadFile(dir_ / "pgbench.out");
  WaitCaughtUp("load_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  const int64_t history = std::stoll(Trim(Sql("SELECT count(*) FROM pgbench_history")));
  EXPECT_GT(history, 0);
  EXPECT_EQ(std::stoll(Trim(Sql("SELECT count(*) FROM pgbench_accounts"))), scale * 100000LL);
  ExpectPgbenchEqual(/*verify_accounts=*/true);
  RunResult snaps = FloeIn(dir_, {"snapshots", "--table", "db.pgbench_accounts"});
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  std::cout << "[ info ] scale " << scale << ", " << seconds << " s of pgbench -c 4: " << history
            << " transactions, " << std::count(snaps.out.begin(), snaps.out.end(), '\n')
            << " snapshots of pgbench_accounts\n";
}

// `pgbench -i -s 10`, then kill -9 of floe at random moments (the
// snapshot of 1 M accounts included) while pgbench runs without a pause (one
// run for all the trials, about a minute); relaunches resume from the
// tables' LSN. At the end every table equals PostgreSQL's; transactions
// of 50 rows each (one batch per transaction) are never split across the
// Iceberg table's snapshots.
// Its own suite: a ctest case of its own, labelled release (CMakeLists.txt).
class PgSourceCrash : public PgSource {};

TEST_F(PgSourceCrash, PgbenchKillTrials) {
  PgbenchInit(static_cast<int>(floe::test::Scaled(10, 1)));  // 1 M accounts: the snapshot takes a while
  Sql("CREATE TABLE batches (batch int, i int, PRIMARY KEY (batch, i))");
  WriteFile(dir_ / "batch.sql",
            "\\set b random(1, 1000000000)\n"
            "INSERT INTO batches SELECT :b, g FROM generate_series(1, 50) g ON CONFLICT DO NOTHING;\n");
  Config("pgbench_accounts, pgbench_tellers, pgbench_branches, pgbench_history, batches", "kill_slot");
  const int trials = static_cast<int>(floe::test::Scaled(50, 3));
  std::mt19937 rng(20261206);
  int killed_in_snapshot = 0;
  // The load runs until the trials are done (then stopped by a signal), at
  // 400 transactions a second (a fifth of them 50-row batches).
  const pid_t load = Background("exec " + PgbenchCommand("-c 2 -R 400 -T 3600 -f " + (dir_ / "batch.sql").string() +
                                                          "@1 -b tpcb-like@4") +
                                " > pgbench.out 2>&1");
  for (int trial = 0; trial < trials; ++trial) {
    Start();
    auto committed = [&] { return fs::exists(dir_ / "floe.out") && !ReadFile(dir_ / "floe.out").empty(); };
    // The first three trials are killed during the snapshot (each run takes
    // it again: nothing of it was committed); the others once the snapshot
    // was committed (by this run or an earlier one, whatever the machine's
    // speed), at a random moment from start-up on.
    const bool snapshot_trial = trial < 3;
    if (!snapshot_trial) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
      while (!committed()) {
        ASSERT_LT(std::chrono::steady_clock::now(), until) << "no commit: " << ReadFile(dir_ / "floe.err");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    const int ms = snapshot_trial ? std::uniform_int_distribution<int>(20, 1200)(rng)
                              : std::uniform_int_distribution<int>(0, 1500)(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    if (!committed()) ++killed_in_snapshot;
    ASSERT_EQ(Stop(SIGKILL), 128 + SIGKILL) << ReadFile(dir_ / "floe.err");
  }
  int status = 0;
  ASSERT_EQ(::waitpid(load, &status, WNOHANG), 0) << "pgbench ended early: " << ReadFile(dir_ / "pgbench.out");
  ::kill(load, SIGINT);
  ::waitpid(load, &status, 0);
  Start();
  WaitCaughtUp("kill_slot");
  ASSERT_EQ(Stop(), 0) << ReadFile(dir_ / "floe.err");
  ExpectPgbenchEqual(/*verify_accounts=*/true);
  EXPECT_EQ(JsonLines(Scan("db.batches"), {"batch", "i"}), PgLines("SELECT batch, i FROM batches"));
  // Every snapshot of the batches table holds whole transactions (50 rows of a batch, or none).
  RunResult snaps = FloeIn(dir_, {"snapshots", "--table", "db.batches"});
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  int checked = 0;
  std::istringstream in(snaps.out);
  for (std::string line; std::getline(in, line);) {
    const json s = json::parse(line);
    std::map<int64_t, int> per_batch;
    for (const json& r : Scan("db.batches", {"snapshot-id=" + std::to_string(s.at("snapshot-id").get<int64_t>())})) {
      ++per_batch[r.at("batch").get<int64_t>()];
    }
    for (const auto& [batch, n] : per_batch) {
      EXPECT_EQ(n, 50) << "snapshot " << s.at("snapshot-id") << " holds " << n << " rows of batch " << batch;
    }
    ++checked;
  }
  EXPECT_GT(checked, 1);
  // Nothing applied twice: a row of an insert-only table written again (a
  // transaction replayed after a kill) would either be a second row of its
  // key or replace the first with a delete of it (a position delete or
  // deletion vector by the key index, the default delete_kind, or an
  // equality delete). So: no delete of any kind in these tables' snapshots,
  // and their data files hold exactly the rows a scan returns.
  for (const char* t : {"db.batches", "db.pgbench_history"}) {
    RunResult sn = FloeIn(dir_, {"snapshots", "--table", t});
    ASSERT_EQ(sn.rc, 0) << sn.err;
    std::istringstream lines(sn.out);
    int64_t deletes = 0, newest = -1, total_records = -1;
    for (std::string line; std::getline(lines, line);) {
      const json snap = json::parse(line);
      const json summary = snap.value("summary", json::object());
      for (const char* k : {"added-equality-deletes", "added-position-deletes", "added-dvs"}) {
        deletes += std::stoll(summary.value(k, std::string("0")));
      }
      if (snap.at("sequence-number").get<int64_t>() > newest) {
        newest = snap.at("sequence-number").get<int64_t>();
        total_records = std::stoll(summary.value("total-records", std::string("-1")));
      }
    }
    EXPECT_EQ(deletes, 0) << t << ": rows applied twice (deletes in an insert-only table)";
    EXPECT_EQ(total_records, static_cast<int64_t>(Scan(t).size())) << t << ": rows written twice";
  }
  std::cout << "[ info ] " << trials << " kill -9 trials, " << killed_in_snapshot
            << " before the first commit, " << checked << " snapshots of db.batches checked\n";
}

}  // namespace
}  // namespace floe_cli_test
