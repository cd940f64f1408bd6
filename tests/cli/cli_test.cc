// The `floe` command, driven as a user runs it: write/cat round trips (JSONL,
// CSV, stdin), every type compared with DuckDB reading the same file through
// shared/interop (canonical.mjs forms), meta/schema, and the error contract:
// exit codes, `floe: <message>` naming line/column/rule or the bad option,
// and no output file (nor temporary debris) after a failed write.
#include <gtest/gtest.h>

#include "cli/cli_util.h"
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers

class Cli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_cli_");
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  /// Runs a shell command line; stdout/stderr captured separately.
  RunResult Sh(const std::string& cmd) {
    return RunIn(dir_, cmd);
  }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  /// Files in the test folder (debris check).
  std::vector<std::string> Listing() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

const char* kAllTypes =
    "id BIGINT NOT NULL, b BOOLEAN, i INT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), "
    "big DECIMAL(38,6), dt DATE, t TIME, ts TIMESTAMP, tz TIMESTAMPTZ, s STRING, u UUID, "
    "fx FIXED(3), bin BINARY, tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, lon DOUBLE NOT NULL>, "
    "m MAP<STRING, BIGINT>, deep ARRAY<STRUCT<k INT, v ARRAY<MAP<STRING, STRING>>>>";

// Rows already in canonical form: `floe parquet cat` must print them back unchanged.
const char* kAllTypesRows =
    R"({"id":-9223372036854775808,"b":true,"i":-2147483648,"f":0.1,"d":5e-324,"dec":"-9999999.99","big":"-99999999999999999999999999999999.999999","dt":"1900-01-01","t":"00:00:00.000000","ts":"1970-01-01T00:00:00.000000","tz":"2017-11-16T22:31:08.000001+00:00","s":"","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fx":"000102","bin":"","tags":[],"loc":{"lat":null,"lon":-0},"m":{"keys":[],"values":[]},"deep":[]})"
    "\n"
    R"({"id":9223372036854775807,"b":false,"i":2147483647,"f":3.4028235e+38,"d":1.7976931348623157e+308,"dec":"0.01","big":"12345678901234567890.123456","dt":"2262-04-11","t":"23:59:59.999999","ts":"2262-04-11T23:47:16.854775","tz":"1969-12-31T23:59:59.999999+00:00","s":"h\u00e9 \ud83c\udf89 \"q\" \\ \n\t","u":"00000000-0000-0000-0000-000000000000","fx":"ffffff","bin":"deadbeef","tags":["a",null,""],"loc":{"lat":1.5,"lon":2},"m":{"keys":["k","z"],"values":[1,null]},"deep":[{"k":1,"v":[{"keys":["x"],"values":[null]},null]},null]})"
    "\n"
    R"({"id":0,"b":null,"i":null,"f":"NaN","d":"-Infinity","dec":null,"big":null,"dt":null,"t":null,"ts":null,"tz":null,"s":null,"u":null,"fx":null,"bin":null,"tags":null,"loc":null,"m":null,"deep":null})"
    "\n"
    R"({"id":1,"b":null,"i":0,"f":"Infinity","d":"NaN","dec":"0.00","big":"0.000000","dt":"2024-02-29","t":"12:00:00.000001","ts":"2024-02-29T12:00:00.000001","tz":"2024-02-29T12:00:00.000000+00:00","s":"x","u":null,"fx":null,"bin":"00","tags":[null],"loc":{"lat":null,"lon":1},"m":{"keys":["only"],"values":[-1]},"deep":[{"k":null,"v":null}]})"
    "\n";

/// The canonical printer writes raw UTF-8 where the input had \u escapes.
std::string Unescaped(std::string s) {
  auto rep = [&](const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
      s.replace(p, from.size(), to);
    }
  };
  rep("\\u00e9", "\xc3\xa9");
  rep("\\ud83c\\udf89", "\xf0\x9f\x8e\x89");
  return s;
}

TEST_F(Cli, WriteCatRoundTripEveryTypeMatchesDuckDb) {
  WriteFile(dir_ / "in.jsonl", kAllTypesRows);
  RunResult w = Floe("parquet write --schema " + Shell(kAllTypes) + " --input in.jsonl out.parquet");
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(w.err, "");
  EXPECT_NE(w.out.find("\"rows\":4"), std::string::npos) << w.out;
  RunResult c = Floe("parquet cat out.parquet");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(c.out, Unescaped(kAllTypesRows));
  // DuckDB reads floe's file, printed in canonical.mjs forms: identical lines.
  RunResult d = Node(dir_, "parquet_rows.mjs", {"out.parquet", "--rows"});
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_EQ(d.out, c.out);
}

TEST_F(Cli, SampleFileRoundTripAndDuckDb) {
  std::string schema = ReadFile(FLOE_SOURCE_DIR "/examples/sample.schema.sql");
  for (char& ch : schema) {
    if (ch == '\n') ch = ' ';
  }
  RunResult w = Floe("parquet write --schema " + Shell(schema) + " --input " +
               Shell(FLOE_SOURCE_DIR "/examples/sample.jsonl") +
               " --set write.parquet.compression-codec=snappy --set write.parquet.page-row-limit=50"
               " --batch-rows 64 sample.parquet");
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_NE(w.out.find("\"rows\":300"), std::string::npos) << w.out;
  RunResult c = Floe("parquet cat sample.parquet");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 300);
  RunResult d = Node(dir_, "parquet_rows.mjs", {"sample.parquet", "--rows"});
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_EQ(d.out, c.out);
  // The output of cat is itself valid input: writing it again gives the same rows.
  WriteFile(dir_ / "again.jsonl", c.out);
  RunResult w2 = Floe("parquet write --schema " + Shell(schema) + " --input again.jsonl again.parquet");
  ASSERT_EQ(w2.rc, 0) << w2.err;
  EXPECT_EQ(Floe("parquet cat again.parquet").out, c.out);
  // The codec asked for is the one DuckDB sees.
  RunResult meta = Node(dir_, "parquet_rows.mjs", {"sample.parquet", "--meta"});
  ASSERT_EQ(meta.rc, 0) << meta.err;
  EXPECT_NE(meta.out.find("SNAPPY"), std::string::npos);
}

TEST_F(Cli, CsvAndStdinInput) {
  WriteFile(dir_ / "in.csv", "name,id,when\r\n\"a, b\",1,2024-01-02 03:04:05\r\n,2,\r\n");
  RunResult w = Floe("parquet write --schema 'id INT NOT NULL, name STRING, when TIMESTAMP' --input in.csv out.parquet");
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(Floe("parquet cat out.parquet").out,
            "{\"id\":1,\"name\":\"a, b\",\"when\":\"2024-01-02T03:04:05.000000\"}\n"
            "{\"id\":2,\"name\":null,\"when\":null}\n");
  RunResult s = Sh("printf '{\"x\":1}\\n{\"x\":2}\\n' | " + Shell(FLOE_BIN) +
             " parquet write --schema 'x BIGINT' --input - s.parquet");
  ASSERT_EQ(s.rc, 0) << s.err;
  RunResult s2 = Sh("printf 'x\\n7\\n' | " + Shell(FLOE_BIN) +
              " parquet write --schema 'x BIGINT' --input-format csv s2.parquet");
  ASSERT_EQ(s2.rc, 0) << s2.err;
  EXPECT_EQ(Floe("parquet cat s.parquet").out, "{\"x\":1}\n{\"x\":2}\n");
  EXPECT_EQ(Floe("parquet cat s2.parquet").out, "{\"x\":7}\n");
}

TEST_F(Cli, CatColumnsLimitMetaAndSchema) {
  WriteFile(dir_ / "in.jsonl", kAllTypesRows);
  ASSERT_EQ(Floe("parquet write --schema " + Shell(kAllTypes) + " --input in.jsonl out.parquet").rc, 0);
  RunResult c = Floe("parquet cat out.parquet --columns 's,id' --limit 2");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(c.out, Unescaped("{\"s\":\"\",\"id\":-9223372036854775808}\n"
                             "{\"s\":\"h\\u00e9 \\ud83c\\udf89 \\\"q\\\" \\\\ \\n\\t\",\"id\":9223372036854775807}\n"));
  RunResult bad = Floe("parquet cat out.parquet --columns nope");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("floe: --columns: no column 'nope' in out.parquet"), std::string::npos) << bad.err;

  RunResult m = Floe("parquet meta out.parquet");
  ASSERT_EQ(m.rc, 0) << m.err;
  EXPECT_NE(m.out.find("\"num_rows\": 4"), std::string::npos) << m.out.substr(0, 500);
  EXPECT_NE(m.out.find("ZSTD"), std::string::npos);

  RunResult s = Floe("parquet schema --sql out.parquet");
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_EQ(s.out,
            "id BIGINT NOT NULL, b BOOLEAN, i INT, f FLOAT, d DOUBLE, dec DECIMAL(9, 2), "
            "big DECIMAL(38, 6), dt DATE, t TIME, ts TIMESTAMP, tz TIMESTAMPTZ, s STRING, u UUID, "
            "fx FIXED(3), bin BINARY, tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, lon DOUBLE NOT "
            "NULL>, m MAP<STRING, BIGINT>, deep ARRAY<STRUCT<k INT, v ARRAY<MAP<STRING, STRING>>>>\n");
  RunResult j = Floe("parquet schema out.parquet");
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_NE(j.out.find("\"element-id\": 20"), std::string::npos) << j.out;
}

TEST_F(Cli, BadRowFailsAndLeavesNoFile) {
  std::string rows;
  for (int i = 0; i < 100000; ++i) rows += "{\"qty\": " + std::to_string(i) + "}\n";
  rows += "{\"qty\": 3000000000}\n";
  WriteFile(dir_ / "in.jsonl", rows);
  RunResult w = Floe("parquet write --schema 'qty INT' --batch-rows 1000 --input in.jsonl out.parquet");
  EXPECT_EQ(w.rc, 1);
  EXPECT_EQ(w.err, "floe: in.jsonl: line 100001, column 'qty': value 3000000000 overflows INT\n");
  EXPECT_EQ(w.out, "");
  EXPECT_EQ(Listing(), std::vector<std::string>{"in.jsonl"});

  WriteFile(dir_ / "in.jsonl", "{\"id\": 1}\n{\"id\": null}\n");
  w = Floe("parquet write --schema 'id BIGINT NOT NULL' --input in.jsonl out.parquet");
  EXPECT_EQ(w.rc, 1);
  EXPECT_EQ(w.err, "floe: in.jsonl: line 2, column 'id': null in NOT NULL column\n");
  EXPECT_EQ(Listing(), std::vector<std::string>{"in.jsonl"});

  w = Floe("parquet write --schema 'id BIGINT' --input missing.jsonl out.parquet");
  EXPECT_EQ(w.rc, 1);
  EXPECT_EQ(w.err, "floe: missing.jsonl: input file 'missing.jsonl' does not exist\n");
  EXPECT_EQ(Listing(), std::vector<std::string>{"in.jsonl"});

  // An existing output is not replaced without --overwrite, and stays intact.
  WriteFile(dir_ / "out.parquet", "precious");
  WriteFile(dir_ / "ok.jsonl", "{\"id\": 1}\n");
  w = Floe("parquet write --schema 'id BIGINT' --input ok.jsonl out.parquet");
  EXPECT_EQ(w.rc, 1);
  EXPECT_NE(w.err.find("out.parquet"), std::string::npos) << w.err;
  EXPECT_EQ(ReadFile(dir_ / "out.parquet"), "precious");
  EXPECT_EQ(Floe("parquet write --schema 'id BIGINT' --input ok.jsonl --overwrite out.parquet").rc, 0);
  EXPECT_EQ(Floe("parquet cat out.parquet").out, "{\"id\":1}\n");
}

TEST_F(Cli, BadOptionsNameTheOption) {
  WriteFile(dir_ / "in.jsonl", "{\"id\": 1}\n");
  RunResult r = Floe("parquet write --schema 'id BIGINT' --set foo=bar --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err,
            "floe: --set 'foo=bar': unknown option 'foo' (floe parquet write takes "
            "write.parquet.* properties)\n");
  r = Floe("parquet write --schema 'id BIGINT' --set write.parquet.nope=1 --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("write.parquet.nope"), std::string::npos) << r.err;
  r = Floe("parquet write --schema 'id BIGINT' --set write.parquet.compression-codec=lzx --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("write.parquet.compression-codec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lzx"), std::string::npos) << r.err;
  r = Floe("parquet write --schema 'id BIGINT' --set novalue --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err, "floe: --set 'novalue': expected key=value\n");
  r = Floe("parquet write --schema 'id BIGNUM' --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("floe: --schema: SQL column list, column 4: expected a type name"),
            std::string::npos)
      << r.err;
  r = Floe("parquet write --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--schema"), std::string::npos) << r.err;
  r = Floe("parquet write --schema 'id BIGINT' --input-format xml --input in.jsonl out.parquet");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--input-format"), std::string::npos) << r.err;
  EXPECT_EQ(Listing(), std::vector<std::string>{"in.jsonl"});
  r = Floe("parquet cat not-there.parquet");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("floe: "), std::string::npos);
  EXPECT_NE(r.err.find("not-there.parquet"), std::string::npos) << r.err;
}

TEST_F(Cli, UsageAndHelp) {
  RunResult r = Floe("");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("floe: "), std::string::npos);
  r = Floe("--help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("Usage"), std::string::npos);
  r = Floe("nonsense");
  EXPECT_EQ(r.rc, 2);
}

TEST_F(Cli, CorruptParquetIsAnError) {
  WriteFile(dir_ / "junk.parquet", "PAR1 this is not a parquet file PAR1");
  RunResult r = Floe("parquet cat junk.parquet");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("floe: junk.parquet"), std::string::npos) << r.err;
}

}  // namespace cli_test

namespace floe {
namespace cli_test {

using namespace ::cli_test;  // NOLINT: the helpers above

// Files written by DuckDB (every codec, V1 and V2 pages, its encodings, nested
// values and nulls) are printed by `floe parquet cat` exactly as DuckDB reads them.
TEST_F(Cli, CatReadsDuckDbFilesLikeDuckDb) {
  const std::string select =
      "SELECT i::BIGINT AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 3 = 0) END AS b, (i * 7)::INT AS n, "
      "i / 3.0::DOUBLE AS d, (i * 1.25)::DECIMAL(9,2) AS dec9, (i * 12345678901)::DECIMAL(18,3) AS dec18, "
      "(i::HUGEINT * 1234567890123456789)::DECIMAL(38,4) AS dec38, DATE '2024-01-01' + i::INT AS dt, "
      "TIMESTAMP '2024-01-01 00:00:00' + to_microseconds(i * 1000003) AS ts, "
      "CASE WHEN i % 11 = 0 THEN NULL ELSE 'name' || (i % 50) || ' \u00e9' END AS s, "
      "CASE WHEN i % 5 = 0 THEN NULL ELSE [i, NULL, i + 1] END AS l, "
      "{'a': i, 'b': CASE WHEN i % 4 = 0 THEN NULL ELSE 'x' || i END} AS st, "
      "MAP {'k' || (i % 3): i} AS m FROM range(3000) t(i)";
  std::string sql;
  std::vector<std::string> files;
  for (const char* codec : {"uncompressed", "snappy", "gzip", "zstd", "lz4_raw", "brotli"}) {
    for (const char* version : {"V1", "V2"}) {
      std::string f = std::string(codec) + "_" + version + ".parquet";
      files.push_back(f);
      sql += "COPY (" + select + ") TO '" + f + "' (FORMAT parquet, COMPRESSION " + codec +
             ", PARQUET_VERSION " + version + ", ROW_GROUP_SIZE 2048); ";
    }
  }
  RunResult gen = Node(dir_, "duckdb_sql.mjs", {sql});
  ASSERT_EQ(gen.rc, 0) << gen.err;
  for (const auto& f : files) {
    RunResult c = Floe("parquet cat " + f);
    ASSERT_EQ(c.rc, 0) << f << ": " << c.err;
    RunResult d = Node(dir_, "parquet_rows.mjs", {f, "--rows"});
    ASSERT_EQ(d.rc, 0) << d.err;
    EXPECT_EQ(c.out, d.out) << f;
    EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 3000) << f;
  }
}

}  // namespace cli_test
}  // namespace floe
