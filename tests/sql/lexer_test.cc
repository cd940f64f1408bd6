// The Flink SQL lexer: token kinds, values, positions and lexical errors.
#include "floe/sql/lexer.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe::sql {
namespace lexer_test {

using test::HasErrorMessage;

std::vector<Token> Lex(std::string_view text) {
  auto r = Tokenize(text);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : std::vector<Token>{};
}

TEST(SqlLexer, KindsAndValues) {
  auto t = Lex("SELECT `a ``b`, 'it''s', X'0aff', 42, 4.2, .5, 1e3, 1.5E-3 <> != <= >= || ;");
  ASSERT_EQ(t.size(), 23u);
  EXPECT_EQ(t[0].kind, TokenKind::kIdentifier);
  EXPECT_TRUE(t[0].Is("select"));
  EXPECT_EQ(t[1].kind, TokenKind::kQuotedIdentifier);
  EXPECT_EQ(t[1].value, "a `b");
  EXPECT_EQ(t[3].kind, TokenKind::kString);
  EXPECT_EQ(t[3].value, "it's");
  EXPECT_EQ(t[5].kind, TokenKind::kBinaryString);
  EXPECT_EQ(t[5].value, "0aff");
  EXPECT_EQ(t[7].kind, TokenKind::kInteger);
  EXPECT_EQ(t[9].kind, TokenKind::kDecimal);
  EXPECT_EQ(t[11].kind, TokenKind::kDecimal);
  EXPECT_EQ(t[11].value, ".5");
  EXPECT_EQ(t[13].kind, TokenKind::kApprox);
  EXPECT_EQ(t[15].kind, TokenKind::kApprox);
  EXPECT_EQ(t[15].value, "1.5E-3");
  for (int i : {16, 17, 18, 19, 20, 21}) EXPECT_EQ(t[i].kind, TokenKind::kSymbol) << i;
  EXPECT_EQ(t[17].value, "!=");
  EXPECT_EQ(t[20].value, "||");
  EXPECT_EQ(t[22].kind, TokenKind::kEof);
}

TEST(SqlLexer, IdentifiersKeepTheirCase) {
  auto t = Lex("myTable x$1");  // '$' may follow the first character
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].value, "myTable");
  EXPECT_EQ(t[1].value, "x$1");
  EXPECT_FALSE(Tokenize("a $x").has_value());
}

TEST(SqlLexer, CommentsAreSkippedHintsAreTokens) {
  auto t = Lex("a -- line comment ; 'x'\n/* block ; */ b /*+ OPTIONS('k'='v') */ c");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].value, "a");
  EXPECT_EQ(t[1].value, "b");
  EXPECT_EQ(t[2].kind, TokenKind::kHint);
  EXPECT_EQ(t[2].value, " OPTIONS('k'='v') ");
  EXPECT_EQ(t[3].value, "c");
}

TEST(SqlLexer, PositionsAreLinesAndCharacters) {
  // A tab counts as one column; a two-byte UTF-8 letter as one.
  auto t = Lex("SELECT\n\tcafé, x\n  FROM 'a\nb' y");
  ASSERT_GE(t.size(), 7u);
  EXPECT_EQ(t[1].value, "café");
  EXPECT_EQ(t[1].pos, (Pos{2, 2}));
  EXPECT_EQ(t[1].end, (Pos{2, 5}));
  EXPECT_EQ(t[2].pos, (Pos{2, 6}));  // the comma after the 4-character name
  EXPECT_EQ(t[3].pos, (Pos{2, 8}));
  EXPECT_EQ(t[4].pos, (Pos{3, 3}));
  EXPECT_EQ(t[5].pos, (Pos{3, 8}));  // a string spanning two lines
  EXPECT_EQ(t[5].end, (Pos{4, 2}));
  EXPECT_EQ(t[6].pos, (Pos{4, 4}));
}

TEST(SqlLexer, StartPositionOffsetsEverything) {
  auto r = Tokenize("a\n b", LexOptions{Pos{10, 5}, false});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[0].pos, (Pos{10, 5}));
  EXPECT_EQ((*r)[1].pos, (Pos{11, 2}));
}

TEST(SqlLexer, UnterminatedTokensAreLexicalErrors) {
  EXPECT_THAT(Tokenize("SELECT 'abc"),
              HasErrorMessage("Lexical error at line 1, column 12.  Encountered: <EOF> after : "
                              "\"\\'abc\""));
  EXPECT_THAT(Tokenize("SELECT `abc"), HasErrorMessage("Encountered: <EOF> after : \"`abc\""));
  EXPECT_THAT(Tokenize("SELECT 1 /* never\nclosed"),
              HasErrorMessage("Lexical error at line 2, column 7."));
  EXPECT_THAT(Tokenize("SELECT * FROM t /*+ OPTIONS("),
              HasErrorMessage("Encountered: <EOF> after : \"/*+ OPTIONS(\""));
  EXPECT_THAT(Tokenize("SELECT 1 # 2"),
              HasErrorMessage("Lexical error at line 1, column 10.  Encountered: \"#\" (35)"));
}

TEST(SqlLexer, HugeUnterminatedStringGivesAShortMessage) {
  std::string text = "SELECT '" + std::string(1 << 20, 'x');
  auto r = Tokenize(text);
  ASSERT_FALSE(r.has_value());
  EXPECT_LT(r.error().message.size(), 200u);
}

TEST(SqlLexer, LenientModeMarksUnterminatedAndUnknown) {
  auto r = Tokenize("a 'open", LexOptions{Pos{}, true});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[1].kind, TokenKind::kUnterminated);
  r = Tokenize("a /* open", LexOptions{Pos{}, true});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[1].kind, TokenKind::kUnterminated);
  r = Tokenize("a # b", LexOptions{Pos{}, true});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[1].kind, TokenKind::kUnknown);
}

TEST(SqlLexer, Quoting) {
  EXPECT_EQ(QuoteIdentifier("a`b"), "`a``b`");
  EXPECT_EQ(QuoteString("it's"), "'it''s'");
}

}  // namespace lexer_test
}  // namespace floe::sql
