// Script splitting: ';' ends a statement outside strings, comments, hints
// and statement sets; positions stay those of the whole file.
#include <gtest/gtest.h>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "testing/matchers.h"

namespace floe::sql {
namespace split_test {

using test::HasErrorMessage;

std::vector<std::string> Texts(const SplitResult& r) {
  std::vector<std::string> out;
  for (const auto& s : r.statements) out.emplace_back(s.text);
  return out;
}

TEST(SqlSplit, SemicolonsInStringsCommentsAndHintsDoNotSplit) {
  SplitResult r = SplitStatements(
      "SET 'a' = 'x;y';\n"
      "-- a comment; still a comment\n"
      "SELECT `c;d` /* ; */ FROM t /*+ OPTIONS('k'=';') */;  ;\n"
      "SHOW TABLES");
  EXPECT_EQ(Texts(r),
            (std::vector<std::string>{"SET 'a' = 'x;y'",
                                      "SELECT `c;d` /* ; */ FROM t /*+ OPTIONS('k'=';') */"}));
  ASSERT_TRUE(r.rest.has_value());
  EXPECT_EQ(r.rest->text, "SHOW TABLES");
  EXPECT_EQ(r.rest->pos, (Pos{4, 1}));
  EXPECT_FALSE(r.rest_incomplete);
  EXPECT_EQ(r.statements[1].pos, (Pos{3, 1}));
}

TEST(SqlSplit, StatementSetsAreOneStatement) {
  const char* script =
      "EXECUTE STATEMENT SET BEGIN\n"
      "  INSERT INTO a VALUES (1);\n"
      "  INSERT INTO b SELECT * FROM c;\n"
      "END;\n"
      "begin statement set;\n"
      "insert into a values (2);\n"
      "end;\n"
      "SELECT 1;";
  SplitResult r = SplitStatements(script);
  ASSERT_EQ(r.statements.size(), 3u);
  EXPECT_EQ(r.statements[0].pos, (Pos{1, 1}));
  EXPECT_EQ(r.statements[1].pos, (Pos{5, 1}));
  EXPECT_EQ(r.statements[2].text, "SELECT 1");
  EXPECT_FALSE(r.rest.has_value());

  ASSERT_OK_AND_ASSIGN(auto parsed, ParseScript(script));
  ASSERT_EQ(parsed.size(), 3u);
  const auto* a = std::get_if<StatementSet>(&parsed[0].node);
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->inserts.size(), 2u);
  EXPECT_EQ(a->inserts[1].table.ToString(), "b");
  EXPECT_EQ(a->insert_pos[1], (Pos{3, 3}));
  const auto* b = std::get_if<StatementSet>(&parsed[1].node);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->inserts.size(), 1u);
}

TEST(SqlSplit, IncompleteInputIsReportedForTheShell) {
  SplitResult r = SplitStatements("SELECT 1;\nSELECT 'abc");
  EXPECT_EQ(r.statements.size(), 1u);
  ASSERT_TRUE(r.rest.has_value());
  EXPECT_TRUE(r.rest_incomplete);
  r = SplitStatements("EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1);");
  EXPECT_TRUE(r.statements.empty());
  EXPECT_TRUE(r.rest_incomplete);
  r = SplitStatements("SELECT 1; /* comment still open");
  EXPECT_TRUE(r.rest_incomplete);
  r = SplitStatements("SELECT 1;  -- only a comment after");
  EXPECT_FALSE(r.rest.has_value());
  EXPECT_FALSE(r.rest_incomplete);
}

TEST(SqlSplit, ErrorPositionsAreThoseOfTheFile) {
  auto r = ParseScript("SHOW TABLES;\n\nSELECT a\n  FORM t;");
  EXPECT_THAT(r, HasErrorMessage("Encountered \"t\" at line 4, column 8."));
  r = ParseScript("SHOW TABLES;\nSELECT 'x;\n");
  EXPECT_THAT(r, HasErrorMessage("Lexical error at line 3, column 1."));
}

TEST(SqlSplit, OnlyInsertsInAStatementSet) {
  auto r = ParseScript("BEGIN STATEMENT SET;\nINSERT INTO a VALUES (1);\nSELECT 1;\nEND;");
  EXPECT_THAT(r, HasErrorMessage("From line 3, column 1 to line 3, column 6: Only INSERT "
                                 "statement is allowed in Statement Set."));
}

}  // namespace split_test
}  // namespace floe::sql
