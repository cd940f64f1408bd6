// The real `floe` on the hostile probe inputs of issue 7: filters nested
// past the limit and metadata with deep schemas or deep JSON give a clear
// error and exit 1 or 2 (never a signal); flat AND / OR chains of thousands
// of terms simply work.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_util.h"

namespace deep_input_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers

class DeepInputCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_deep_");
    WriteFile(dir_ / "in.jsonl",
              "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n{\"id\":3,\"s\":null}\n");
    RunResult w = Floe("write --table db.t --schema 'id BIGINT, s STRING' --input in.jsonl");
    ASSERT_EQ(w.rc, 0) << w.err;
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  // `floe scan --where` with the filter read from a file (some probes are
  // long; the shell passes them as one argument).
  RunResult ScanWhere(const std::string& filter) {
    WriteFile(dir_ / "where.txt", filter);
    return Floe("scan --table db.t --where \"$(cat where.txt)\"");
  }

  // A table folder whose only metadata file is `metadata` (hadoop layout).
  void MakeTable(const std::string& name, const std::string& metadata) {
    fs::path md = dir_ / "warehouse" / "db" / name / "metadata";
    fs::create_directories(md);
    WriteFile(md / "v1.metadata.json", metadata);
    WriteFile(md / "version-hint.text", "1");
  }

  static void ExpectCleanError(const RunResult& r, const std::string& needle,
                               const std::string& what) {
    EXPECT_TRUE(r.rc == 1 || r.rc == 2) << what << ": exit " << r.rc << " (a signal is 128+N)\n"
                                        << r.err;
    EXPECT_NE(r.err.find("floe: "), std::string::npos) << what << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": " << r.err;
  }

  fs::path dir_;
};

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST_F(DeepInputCli, DeepParenthesesAndChainedNotAreAnErrorNamingLimitAndPosition) {
  RunResult parens = ScanWhere(Repeat("(", 5000) + "id = 1" + Repeat(")", 5000));
  ExpectCleanError(parens, "nested deeper than 256 levels", "5000 parentheses");
  EXPECT_NE(parens.err.find("position 257"), std::string::npos) << parens.err;
  RunResult nots = ScanWhere(Repeat("NOT ", 15000) + "id = 1");
  ExpectCleanError(nots, "nested deeper than 256 levels", "15000 NOT");
  EXPECT_EQ(nots.out, "");
}

TEST_F(DeepInputCli, FlatOrAndAndChainsOfThousandsOfTermsWork) {
  std::string ors;
  for (int i = 0; i < 8000; ++i) ors += (i ? " OR id = " : "id = ") + std::to_string(i + 2);
  RunResult r = ScanWhere(ors);
  ASSERT_EQ(r.rc, 0) << r.err.substr(0, 500);
  EXPECT_EQ(r.out, "{\"id\":2,\"s\":\"b\"}\n{\"id\":3,\"s\":null}\n");
  std::string ands = Repeat("id>0 AND ", 9999) + "s IS NOT NULL";
  r = ScanWhere(ands);
  ASSERT_EQ(r.rc, 0) << r.err.substr(0, 500);
  EXPECT_EQ(r.out, "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n");
}

// Table metadata with `schema` as its only schema.
std::string Metadata(const std::string& schema, const std::string& extra = "") {
  return "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
         "\"location\":\"file:/nowhere\","
         "\"last-sequence-number\":0,\"last-updated-ms\":1,\"last-column-id\":200000,\"current-"
         "schema-id\":0,"
         "\"schemas\":[" +
         schema +
         "],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
         "\"last-partition-id\":999,\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
         "\"fields\":[]}],"
         "\"properties\":{}" +
         extra + ",\"refs\":{},\"snapshots\":[]}";
}

std::string DeepStructSchema(int depth) {
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    open += "{\"type\":\"struct\",\"fields\":[{\"id\":" + std::to_string(i + 3) +
            ",\"name\":\"f\",\"required\":false,\"type\":";
    close += "}]}";
  }
  return "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":"
         "false,\"type\":"
         "\"long\"},{\"id\":2,\"name\":\"d\",\"required\":false,\"type\":" +
         open + "\"long\"" + close + "}]}";
}

TEST_F(DeepInputCli, MetadataWithDeepSchemasOrDeepJsonIsAnErrorForEveryCommand) {
  MakeTable("s201", Metadata(DeepStructSchema(201)));
  MakeTable("s5000", Metadata(DeepStructSchema(5000)));
  MakeTable("junk", Metadata(DeepStructSchema(1),
                             ",\"x-extra\":" + Repeat("[", 100000) + Repeat("]", 100000)));
  MakeTable("ok", Metadata(DeepStructSchema(150)));
  for (const std::string table : {"s201", "s5000", "junk"}) {
    for (const std::string cmd : {"describe", "scan", "files", "snapshots"}) {
      RunResult r = Floe(cmd + " --table db." + table);
      ExpectCleanError(r, "nested deeper than", cmd + " " + table);
    }
    RunResult meta = Floe("scan --metadata warehouse/db/" + table);
    ExpectCleanError(meta, "nested deeper than", "scan --metadata " + table);
  }
  RunResult ok = Floe("describe --table db.ok");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  RunResult scan = Floe("scan --table db.ok");
  EXPECT_EQ(scan.rc, 0) << scan.err;
}

}  // namespace deep_input_cli_test

namespace deep_input_cli_test {

// `floe scan --format table` pads by terminal display width: CJK and emoji
// take two columns, a combining accent none, so the '|' of every row lines up
// on screen (bytes or code points would shift it).
TEST(TableFormatCli, CjkEmojiAndCombiningAccentsAlign) {
  fs::path dir = FreshTestDir("floe_width_");
  WriteFile(dir / "in.jsonl",
            "{\"id\":1,\"s\":\"\xe4\xb8\xad\xe6\x96\x87\"}\n"   // 中文: 2 characters, 4 columns, 6 bytes
            "{\"id\":2,\"s\":\"e\xcc\x81\"}\n"                   // e + combining acute: 1 column, 3 bytes
            "{\"id\":3,\"s\":\"\xf0\x9f\x8e\x89x\"}\n"           // 🎉x: 3 columns, 5 bytes
            "{\"id\":4,\"s\":\"abcde\"}\n");                     // 5 columns
  RunResult w = RunIn(dir, Shell(FLOE_BIN) + " write --table db.w --schema 'id BIGINT, s STRING' --input in.jsonl");
  ASSERT_EQ(w.rc, 0) << w.err;
  RunResult r = RunIn(dir, Shell(FLOE_BIN) + " scan --table db.w --columns s,id --format table");
  ASSERT_EQ(r.rc, 0) << r.err;
  // The widest cell is "abcde" with its quotes: 7 columns.
  EXPECT_EQ(r.out,
            "s       | id\n"
            "--------+---\n"
            "\"\xe4\xb8\xad\xe6\x96\x87\"  | 1\n"
            "\"e\xcc\x81\"     | 2\n"
            "\"\xf0\x9f\x8e\x89x\"   | 3\n"
            "\"abcde\" | 4\n"
            "(4 rows)\n");
  RemoveTestDirIfPassed(dir);
}

}  // namespace deep_input_cli_test
