// The .slt test-file parser: every record kind, substitution, and clear
// errors for malformed files.
#include "floe/sql/slt_file.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe::sql {
namespace slt_file_test {

using test::HasErrorMessage;

TEST(SltFile, EveryRecordKind) {
  const char* text =
      "# a comment\n"
      "require plugin example_sink\n"
      "\n"
      "statement ok\n"
      "CREATE TABLE t (a INT)\n"
      "WITH ('path' = '$__TEST_DIR__/t')\n"
      "\n"
      "statement error Encountered \"FORM\" at line 1\n"
      "SELECT * FORM t\n"
      "\n"
      "statement error\n"
      "SELECT x FROM t\n"
      "----\n"
      "Column 'x' not found\n"
      "in any table\n"
      "\n"
      "query IT rowsort changelog\n"
      "SELECT a, b\n"
      "FROM t\n"
      "----\n"
      "+I\t1\tx\n"
      "+I\t2\tNULL\n"
      "\n"
      "query I\n"
      "SELECT a FROM t WHERE false\n"
      "----\n"
      "\n"
      "query error not supported\n"
      "SELECT * FROM a JOIN b ON true\n"
      "\n"
      "system ok\n"
      "ls $__TEST_DIR__\n"
      "\n"
      "halt\n"
      "\n"
      "statement ok\n"
      "never read\n";
  ASSERT_OK_AND_ASSIGN(auto records, ParseSltFile(text, "t.slt", "/tmp/x"));
  ASSERT_EQ(records.size(), 8u);
  EXPECT_EQ(records[0].kind, SltKind::kRequirePlugin);
  EXPECT_EQ(records[0].plugin, "example_sink");
  EXPECT_EQ(records[0].line, 2);
  EXPECT_EQ(records[1].kind, SltKind::kStatementOk);
  EXPECT_EQ(records[1].sql, "CREATE TABLE t (a INT)\nWITH ('path' = '/tmp/x/t')");
  EXPECT_EQ(records[1].line, 4);
  EXPECT_EQ(records[1].sql_line, 5);
  EXPECT_EQ(records[2].kind, SltKind::kStatementError);
  EXPECT_EQ(records[2].expected_error, "Encountered \"FORM\" at line 1");
  EXPECT_EQ(records[3].expected_error, "Column 'x' not found\nin any table");
  EXPECT_EQ(records[4].kind, SltKind::kQuery);
  EXPECT_EQ(records[4].types, "IT");
  EXPECT_EQ(records[4].sort, SltSort::kRowSort);
  EXPECT_TRUE(records[4].changelog);
  EXPECT_EQ(records[4].expected_rows, (std::vector<std::string>{"+I\t1\tx", "+I\t2\tNULL"}));
  EXPECT_TRUE(records[5].expected_rows.empty());
  EXPECT_EQ(records[6].kind, SltKind::kQueryError);
  EXPECT_EQ(records[6].expected_error, "not supported");
  EXPECT_EQ(records[7].kind, SltKind::kSystemOk);
  EXPECT_EQ(records[7].sql, "ls /tmp/x");
}

TEST(SltFile, SystemRecordAndCrLf) {
  ASSERT_OK_AND_ASSIGN(auto r, ParseSltFile("system ok\r\necho $__TEST_DIR__\r\n", "s.slt", "/d"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, SltKind::kSystemOk);
  EXPECT_EQ(r[0].sql, "echo /d");
}

TEST(SltFile, SystemCaptureNamesAVariable) {
  ASSERT_OK_AND_ASSIGN(auto r,
                       ParseSltFile("system capture SNAP_1\necho 42\n\nquery I\nSELECT ${SNAP_1}\n"
                                    "----\n42\n",
                                    "s.slt", "/d"));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, SltKind::kSystemCapture);
  EXPECT_EQ(r[0].capture, "SNAP_1");
  EXPECT_EQ(r[0].sql, "echo 42");
  // The parser keeps ${...}: the runner replaces it when the record runs.
  EXPECT_EQ(r[1].sql, "SELECT ${SNAP_1}");
}

TEST(SltFile, MalformedFilesNameFileAndLine) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"statment ok\nSELECT 1\n",
       "bad.slt:1: unknown record 'statment' (expected statement, query, system, require, halt)"},
      {"\n\nstatement maybe\nSELECT 1\n", "bad.slt:3: 'statement maybe': expected"},
      {"statement ok\n\n", "bad.slt:1: record has no SQL after its header"},
      {"statement ok\nSELECT 1\n----\n1\n", "bad.slt:3: '----' in a record that has no expected"},
      {"query\nSELECT 1\n", "bad.slt:1: 'query' needs column types"},
      {"query IX\nSELECT 1\n----\n1\n", "bad.slt:1: column type 'X'"},
      {"query I sortof\nSELECT 1\n----\n1\n", "unknown query option 'sortof'"},
      {"query I rowsort valuesort\nSELECT 1\n----\n1\n", "more than one sort mode"},
      {"query I\nSELECT 1\n", "bad.slt:1: query without '----' and expected rows"},
      {"require sink x\n", "bad.slt:1: expected 'require plugin <name>'"},
      {"system failing\nls\n", "expected 'system ok'"},
      {"system capture a-b\nls\n", "'system capture a-b': a name is letters, digits and _"},
      {"system capture\nls\n", "expected 'system ok' or 'system capture <NAME>'"},
      {"system capture X\n\n", "record has no command after its header"},
      {"statement error boom\nSELECT 1\n----\nboom\n", "expected error given twice"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ParseSltFile(c.text, "bad.slt"), HasErrorMessage(c.error)) << c.text;
  }
}

}  // namespace slt_file_test
}  // namespace floe::sql
