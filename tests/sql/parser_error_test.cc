// Broken statements: Flink's (Calcite's) error texts, with the positions of
// the offending token; unsupported constructs; nesting limits.
#include <thread>

#include <gtest/gtest.h>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "testing/matchers.h"

namespace floe::sql {
namespace parser_error_test {

using test::HasErrorMessage;
using test::IsError;
using ::testing::AllOf;

std::string ErrorOf(std::string_view sql) {
  auto r = ParseStatement(sql);
  EXPECT_FALSE(r.has_value()) << sql;
  return r.has_value() ? "" : r.error().message;
}

TEST(SqlErrors, UnknownKeywordListsWhatCouldComeNext) {
  EXPECT_EQ(ErrorOf("SELEC 1"),
            "Encountered \"SELEC\" at line 1, column 1.\n"
            "Was expecting one of:\n"
            "    \"(\" ...\n"
            "    \"ADD\" ...\n"
            "    \"ALTER\" ...\n"
            "    \"BEGIN\" ...\n"
            "    \"CREATE\" ...\n"
            "    \"DESC\" ...\n"
            "    \"DESCRIBE\" ...\n"
            "    \"DROP\" ...\n"
            "    \"EXECUTE\" ...\n"
            "    \"EXPLAIN\" ...\n"
            "    \"INSERT\" ...\n"
            "    \"REMOVE\" ...\n"
            "    \"RESET\" ...\n"
            "    \"SELECT\" ...\n"
            "    \"SET\" ...\n"
            "    \"SHOW\" ...\n"
            "    \"USE\" ...\n"
            "    \"VALUES\" ...\n"
            "    \"WITH\" ...");
}

TEST(SqlErrors, MisspelledFrom) {
  // `a FORM` reads as `a AS FORM`: the error is at the table name.
  std::string msg = ErrorOf("SELECT a FORM t");
  EXPECT_THAT(msg, ::testing::StartsWith("Encountered \"t\" at line 1, column 15.\n"
                                         "Was expecting one of:\n    <EOF> \n"));
  EXPECT_THAT(msg, ::testing::HasSubstr("\n    \"FROM\" ..."));
  EXPECT_THAT(msg, ::testing::HasSubstr("\n    \"LIMIT\" ..."));
  msg = ErrorOf("SELECT * FORM t");
  EXPECT_THAT(msg, ::testing::StartsWith("Encountered \"FORM\" at line 1, column 10."));
  EXPECT_THAT(msg, ::testing::HasSubstr("\n    \"FROM\" ..."));
}

TEST(SqlErrors, MissingParenthesis) {
  EXPECT_THAT(ErrorOf("CREATE TABLE t (a INT, b STRING"),
              ::testing::StartsWith("Encountered \"<EOF>\" at line 1, column 32.\n"
                                    "Was expecting one of:\n"
                                    "    \")\" ...\n"
                                    "    \",\" ...\n"));
  EXPECT_THAT(ErrorOf("SELECT (a + 1 FROM t"),
              ::testing::StartsWith("Encountered \"FROM\" at line 1, column 15."));
}

TEST(SqlErrors, BadType) {
  std::string msg = ErrorOf("CREATE TABLE t (a INTEGR)");
  EXPECT_THAT(msg, ::testing::StartsWith("Encountered \"INTEGR\" at line 1, column 19."));
  EXPECT_THAT(msg, ::testing::HasSubstr("\n    \"INT\" ...\n    \"INTEGER\" ...\n"));
  EXPECT_THAT(ErrorOf("CREATE TABLE t (a ARRAY<INT)"),
              ::testing::StartsWith("Encountered \")\" at line 1, column 28."));
}

TEST(SqlErrors, UnterminatedStringCommentHint) {
  EXPECT_EQ(ErrorOf("SELECT 'abc FROM t"),
            "Lexical error at line 1, column 19.  Encountered: <EOF> after : \"\\'abc FROM t\"");
  EXPECT_THAT(ErrorOf("SELECT 1 /* oops"), ::testing::StartsWith("Lexical error at line 1"));
  EXPECT_THAT(ErrorOf("SELECT * FROM t /*+ OPTIONS('a'='b') "),
              ::testing::StartsWith("Lexical error at line 1, column 38."));
}

TEST(SqlErrors, ErrorsInsideHintsHaveFilePositions) {
  EXPECT_THAT(ErrorOf("SELECT * FROM t\n  /*+ OPTIONS('a' 'b') */"),
              ::testing::StartsWith("Encountered \"\\'b\\'\" at line 2, column 19.\n"
                                    "Was expecting:\n    \"=\" ..."));
  EXPECT_THAT(ErrorOf("SELECT * /*+ OPTIONS('a'='b') */ FROM t"),
              ::testing::StartsWith("Encountered \"/*+\" at line 1, column 10."));
}

TEST(SqlErrors, EnforcedPrimaryKey) {
  const std::string flink =
      "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED "
      "controls if the constraint checks are performed on the incoming/outgoing data. Flink does "
      "not own the data therefore the only supported mode is the NOT ENFORCED mode";
  auto r = ParseStatement("CREATE TABLE t (a INT, PRIMARY KEY (a) ENFORCED)");
  EXPECT_THAT(r, AllOf(IsError(ErrorKind::kUnsupported),
                       HasErrorMessage("From line 1, column 24 to line 1, column 47: " + flink)));
  // Without NOT ENFORCED Flink assumes ENFORCED and says the same.
  EXPECT_THAT(ParseStatement("CREATE TABLE t (a INT PRIMARY KEY, b INT)"), HasErrorMessage(flink));
  EXPECT_THAT(ParseStatement("CREATE TABLE t (a INT PRIMARY KEY ENFORCED)"),
              HasErrorMessage(flink));
}

TEST(SqlErrors, UnsupportedConstructsNameTheirPosition) {
  struct Case {
    const char* sql;
    const char* what;
  };
  const Case cases[] = {
      {"SELECT * FROM a JOIN b ON a.x = b.x", "From line 1, column 17 to line 1, column 20: JOIN"},
      {"SELECT * FROM a, b", "From line 1, column 16 to line 1, column 16: JOIN"},
      {"SELECT * FROM a LEFT JOIN b ON true", "column 17 to line 1, column 20: JOIN"},
      {"SELECT a, COUNT(*) FROM t\nGROUP BY a",
       "From line 2, column 1 to line 2, column 5: GROUP BY"},
      {"SELECT a FROM t ORDER BY a", "ORDER BY"},
      {"SELECT 1 UNION SELECT 2", "From line 1, column 10 to line 1, column 14: UNION"},
      {"SELECT DISTINCT a FROM t", "SELECT DISTINCT"},
      {"SELECT * FROM (SELECT 1)", "a subquery in FROM"},
      {"SELECT * FROM t WHERE a IN (SELECT b FROM u)", "IN (subquery)"},
      {"WITH x AS (SELECT 1) SELECT * FROM x", "WITH (common table expressions)"},
      {"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
      {"SELECT * FROM t LIMIT 1 OFFSET 2", "OFFSET"},
  };
  for (const Case& c : cases) {
    auto r = ParseStatement(c.sql);
    EXPECT_THAT(r, AllOf(IsError(ErrorKind::kUnsupported), HasErrorMessage(c.what))) << c.sql;
    EXPECT_THAT(r, HasErrorMessage("is not supported by floe's SQL")) << c.sql;
  }
}

TEST(SqlErrors, MultiLinePositions) {
  EXPECT_THAT(ErrorOf("CREATE TABLE t (\n  a INT,\n  b VARCHAR(\n)"),
              ::testing::StartsWith("Encountered \")\" at line 4, column 1.\nWas expecting:\n"
                                    "    <UNSIGNED_INTEGER_LITERAL> ..."));
  EXPECT_THAT(ErrorOf("INSERT INTO t\nVALUES (1,\n  2"),
              ::testing::StartsWith("Encountered \"<EOF>\" at line 3, column 4."));
}

TEST(SqlErrors, TableNamesHaveAtMostThreeParts) {
  EXPECT_THAT(
      ParseStatement("DROP TABLE a.b.c.d"),
      HasErrorMessage("'a.b.c.d' has 4 parts; a table is named [[catalog.]database.]table"));
}

TEST(SqlErrors, EmptyStatement) {
  EXPECT_THAT(ErrorOf(""), ::testing::StartsWith("Encountered \"<EOF>\" at line 1, column 1."));
  EXPECT_THAT(ErrorOf("  -- just a comment"), ::testing::StartsWith("Encountered \"<EOF>\""));
}

// ---- nesting --------------------------------------------------------------

TEST(SqlNesting, MillionParenthesesIsAnError) {
  std::string sql = "SELECT " + std::string(1000000, '(') + "1" + std::string(1000000, ')');
  auto r = ParseStatement(sql);
  EXPECT_THAT(r, HasErrorMessage("SQL nested deeper than 128 levels at line 1, column 136"));
}

TEST(SqlNesting, DeepTypesNotChainsAndMinusChains) {
  std::string type;
  for (int i = 0; i < 100000; ++i) type += "ARRAY<";
  EXPECT_THAT(ParseDataType(type), HasErrorMessage("SQL nested deeper than 128 levels"));
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "NOT ";
  EXPECT_THAT(ParseExpression(nots + "a"), HasErrorMessage("SQL nested deeper than 128 levels"));
  std::string minus;
  for (int i = 0; i < 100000; ++i) minus += "- ";  // "--" would start a comment
  EXPECT_THAT(ParseExpression(minus + "1"), HasErrorMessage("SQL nested deeper than 128 levels"));
  std::string sum = "a";
  for (int i = 0; i < 100000; ++i) sum += " + a";
  EXPECT_THAT(ParseExpression(sum), HasErrorMessage("SQL nested deeper than 128 levels"));
}

TEST(SqlNesting, LongAndOrChainsAndInListsAreFlat) {
  std::string ors = "a = 0";
  for (int i = 1; i < 100000; ++i) ors += fmt::format(" OR a = {}", i);
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression(ors));
  EXPECT_EQ(e.args.size(), 100000u);
  std::string in = "a IN (0";
  for (int i = 1; i < 100000; ++i) in += fmt::format(", {}", i);
  ASSERT_OK_AND_ASSIGN(Expr e2, ParseExpression(in + ")"));
  EXPECT_EQ(e2.args.size(), 100001u);
}

TEST(SqlNesting, DepthLimitFitsASmallThreadStack) {
  // The deepest input the limit lets through, in the two most stack-hungry
  // forms, parses within a 2 MiB stack (a quarter of glibc's default thread
  // stack, with room for sanitizer builds' bigger frames): the parser may
  // run on a worker thread, and deeper input is an error before the stack
  // could run out.
  const int n = kMaxSqlDepth - 1;
  std::string parens = "SELECT " + std::string(n, '(') + "1" + std::string(n, ')');
  std::string casts;
  for (int i = 0; i < n; ++i) casts += "CAST(";
  casts += "1";
  for (int i = 0; i < n; ++i) casts += " AS INT)";
  bool ok1 = false, ok2 = false;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 2 << 20);
  struct Arg {
    std::string* a;
    std::string* b;
    bool* ok1;
    bool* ok2;
  } arg{&parens, &casts, &ok1, &ok2};
  pthread_t th;
  ASSERT_EQ(pthread_create(
                &th, &attr,
                [](void* p) -> void* {
                  auto* a = static_cast<Arg*>(p);
                  *a->ok1 = ParseStatement(*a->a).has_value();
                  *a->ok2 = ParseExpression(*a->b).has_value();
                  return nullptr;
                },
                &arg),
            0);
  pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

}  // namespace parser_error_test
}  // namespace floe::sql

namespace floe::sql {
namespace parser_error_test {

// Found by sql_parse_fuzz: `/*+ OPTIONS */` parsed as a hint without
// options, which printed as `OPTIONS()` and did not parse back.
TEST(SqlErrors, OptionsHintNeedsKeyValues) {
  EXPECT_THAT(ParseStatement("SELECT * FROM t /*+ OPTIONS */"),
              test::HasErrorMessage("At line 1, column 21: Hint [OPTIONS] only support non empty "
                                    "key value options"));
  EXPECT_THAT(ParseStatement("SELECT * FROM t /*+ OPTIONS() */"),
              test::HasErrorMessage("Encountered \")\" at line 1, column 29."));
}

}  // namespace parser_error_test
}  // namespace floe::sql
