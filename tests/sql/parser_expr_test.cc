// Expressions and data types: precedence (Calcite's), predicates, literals,
// spans, and the type grammar.
#include <gtest/gtest.h>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "testing/matchers.h"

namespace floe::sql {
namespace parser_expr_test {

using test::HasErrorMessage;

/// The tree as fully parenthesized text, so that tests show its shape.
std::string Shape(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kBinary: {
      std::string out = "(";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += fmt::format(" {} ", OpText(e.op));
        out += Shape(e.args[i]);
      }
      return out + ")";
    }
    case ExprKind::kUnary:
      return fmt::format("({}{}{})", OpText(e.op), e.op == Op::kNot ? " " : "", Shape(e.args[0]));
    case ExprKind::kIs: return fmt::format("({} {})", Shape(e.args[0]), OpText(e.op));
    default: return ExprToSql(e);
  }
}

std::string ShapeOf(std::string_view text) {
  auto r = ParseExpression(text);
  EXPECT_TRUE(r.has_value()) << text << "\n" << r.error().ToString();
  return r.has_value() ? Shape(*r) : "";
}

TEST(SqlExpr, Precedence) {
  EXPECT_EQ(ShapeOf("a OR b AND NOT c = 1 + 2 * 3"),
            "(`a` OR (`b` AND (NOT (`c` = (1 + (2 * 3))))))");
  EXPECT_EQ(ShapeOf("a - b - c"), "((`a` - `b`) - `c`)");
  EXPECT_EQ(ShapeOf("a - (b - c)"), "(`a` - (`b` - `c`))");
  EXPECT_EQ(ShapeOf("'a' || 'b' + 1"), "(('a' || 'b') + 1)");
  EXPECT_EQ(ShapeOf("-a * b"), "((-`a`) * `b`)");
  EXPECT_EQ(ShapeOf("a = 1 IS NOT TRUE"), "((`a` = 1) IS NOT TRUE)");
  // AND / OR chains are one n-ary node.
  EXPECT_EQ(ShapeOf("a OR b OR c"), "(`a` OR `b` OR `c`)");
  EXPECT_EQ(ShapeOf("(a AND b) AND c"), "((`a` AND `b`) AND `c`)");
}

TEST(SqlExpr, Predicates) {
  ASSERT_OK_AND_ASSIGN(Expr in, ParseExpression("x NOT IN (1, 2, 3)"));
  EXPECT_EQ(in.kind, ExprKind::kIn);
  EXPECT_TRUE(in.negated);
  EXPECT_EQ(in.args.size(), 4u);
  ASSERT_OK_AND_ASSIGN(Expr between, ParseExpression("x BETWEEN 1 AND 2 AND y"));
  EXPECT_EQ(between.op, Op::kAnd);
  EXPECT_EQ(between.args[0].kind, ExprKind::kBetween);
  ASSERT_OK_AND_ASSIGN(Expr like, ParseExpression("s NOT LIKE 'a!%%' ESCAPE '!'"));
  EXPECT_EQ(like.kind, ExprKind::kLike);
  EXPECT_TRUE(like.negated);
  EXPECT_EQ(like.args.size(), 3u);
  ASSERT_OK_AND_ASSIGN(Expr isn, ParseExpression("x IS NULL"));
  EXPECT_EQ(isn.op, Op::kIsNull);
  ASSERT_OK_AND_ASSIGN(Expr ne, ParseExpression("x != 1"));
  EXPECT_EQ(ne.op, Op::kNe);
}

TEST(SqlExpr, LiteralsCastCaseCalls) {
  ASSERT_OK_AND_ASSIGN(Expr d, ParseExpression("DATE '2024-01-02'"));
  EXPECT_EQ(d.literal, LiteralKind::kDate);
  EXPECT_EQ(d.value, "2024-01-02");
  ASSERT_OK_AND_ASSIGN(Expr ts, ParseExpression("TIMESTAMP '2024-01-02 03:04:05.123'"));
  EXPECT_EQ(ts.literal, LiteralKind::kTimestamp);
  ASSERT_OK_AND_ASSIGN(Expr iv, ParseExpression("INTERVAL '1' SECONDS"));
  EXPECT_EQ(iv.interval_unit, "SECOND");
  ASSERT_OK_AND_ASSIGN(Expr iv2, ParseExpression("INTERVAL '1 02' DAY TO HOUR"));
  EXPECT_EQ(iv2.interval_unit, "DAY TO HOUR");
  ASSERT_OK_AND_ASSIGN(Expr cast, ParseExpression("TRY_CAST(a AS DECIMAL(10, 2) NOT NULL)"));
  EXPECT_TRUE(cast.try_cast);
  EXPECT_EQ(cast.cast_type->precision, 10);
  ASSERT_OK_AND_ASSIGN(Expr c, ParseExpression("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' END"));
  EXPECT_EQ(c.args.size(), 4u);
  EXPECT_FALSE(c.has_else);
  ASSERT_OK_AND_ASSIGN(Expr c2, ParseExpression("CASE a WHEN 1 THEN 'x' ELSE 'z' END"));
  EXPECT_TRUE(c2.has_operand);
  EXPECT_TRUE(c2.has_else);
  ASSERT_OK_AND_ASSIGN(Expr f, ParseExpression("COUNT(DISTINCT a) + COUNT(*) + lib.f(1, 'x')"));
  EXPECT_EQ(f.args[0].args[0].kind, ExprKind::kCall);
  EXPECT_TRUE(f.args[0].args[0].distinct);
  EXPECT_EQ(f.args[0].args[1].args[0].kind, ExprKind::kStar);
  EXPECT_EQ(f.args[1].names, (std::vector<std::string>{"lib", "f"}));
}

TEST(SqlExpr, SpansCoverTheWrittenText) {
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression("1 + (a\n  * 2)"));
  EXPECT_EQ(e.span.begin, (Pos{1, 1}));
  EXPECT_EQ(e.span.end, (Pos{2, 6}));
  EXPECT_EQ(e.args[1].span.begin, (Pos{1, 5}));
  ASSERT_OK_AND_ASSIGN(Expr c, ParseExpression("CAST(x AS INT)"));
  EXPECT_EQ(c.span.end, (Pos{1, 14}));
}

TEST(SqlExpr, ReservedWordsNeedBackquotes) {
  EXPECT_FALSE(ParseExpression("timestamp + 1").has_value());
  EXPECT_TRUE(ParseExpression("`timestamp` + 1").has_value());
  EXPECT_TRUE(ParseExpression("`user`").has_value());
}

TEST(SqlTypes, EveryTypeParses) {
  struct Case {
    const char* text;
    TypeName name;
  };
  const Case cases[] = {
      {"BOOLEAN", TypeName::kBoolean},
      {"TINYINT", TypeName::kTinyInt},
      {"SMALLINT", TypeName::kSmallInt},
      {"INT", TypeName::kInt},
      {"INTEGER", TypeName::kInt},
      {"BIGINT", TypeName::kBigInt},
      {"FLOAT", TypeName::kFloat},
      {"DOUBLE", TypeName::kDouble},
      {"DOUBLE PRECISION", TypeName::kDouble},
      {"DECIMAL(38, 10)", TypeName::kDecimal},
      {"DEC(5)", TypeName::kDecimal},
      {"NUMERIC", TypeName::kDecimal},
      {"CHAR(3)", TypeName::kChar},
      {"VARCHAR(10)", TypeName::kVarChar},
      {"STRING", TypeName::kString},
      {"BINARY(16)", TypeName::kBinary},
      {"VARBINARY(4)", TypeName::kVarBinary},
      {"BYTES", TypeName::kBytes},
      {"DATE", TypeName::kDate},
      {"TIME(3)", TypeName::kTime},
      {"TIME WITHOUT TIME ZONE", TypeName::kTime},
      {"TIMESTAMP", TypeName::kTimestamp},
      {"TIMESTAMP(9) WITHOUT TIME ZONE", TypeName::kTimestamp},
      {"TIMESTAMP_LTZ(3)", TypeName::kTimestampLtz},
      {"TIMESTAMP WITH LOCAL TIME ZONE", TypeName::kTimestampLtz},
      {"ARRAY<INT>", TypeName::kArray},
      {"MAP<STRING, ARRAY<INT NOT NULL>>", TypeName::kMap},
      {"MULTISET<STRING>", TypeName::kMultiset},
      {"ROW<a INT, b STRING 'doc'>", TypeName::kRow},
      {"ROW(a INT, `b c` ROW<d INT>)", TypeName::kRow},
      {"ROW<>", TypeName::kRow},
  };
  for (const Case& c : cases) {
    auto r = ParseDataType(c.text);
    ASSERT_TRUE(r.has_value()) << c.text << ": " << r.error().ToString();
    EXPECT_EQ(r->name, c.name) << c.text;
    EXPECT_TRUE(r->nullable);
    auto nn = ParseDataType(std::string(c.text) + " NOT NULL");
    ASSERT_TRUE(nn.has_value()) << c.text;
    EXPECT_FALSE(nn->nullable);
  }
}

TEST(SqlTypes, ParameterRangesAreFlinksMessages) {
  EXPECT_THAT(ParseDataType("DECIMAL(39, 2)"),
              HasErrorMessage("Decimal precision must be between 1 and 38 (both inclusive)."));
  EXPECT_THAT(ParseDataType("DECIMAL(5, 6)"),
              HasErrorMessage("Decimal scale must be between 0 and the precision 5"));
  EXPECT_THAT(ParseDataType("TIMESTAMP(10)"),
              HasErrorMessage("From line 1, column 1 to line 1, column 13: Timestamp precision "
                              "must be between 0 and 9 (both inclusive)."));
  EXPECT_THAT(ParseDataType("VARCHAR(0)"),
              HasErrorMessage("Variable character string length must be between 1 and"));
  EXPECT_THAT(ParseDataType("CHAR(99999999999)"), HasErrorMessage("out of range"));
  EXPECT_THAT(ParseDataType("TIMESTAMP WITH TIME ZONE"), test::IsError(ErrorKind::kUnsupported));
}

}  // namespace parser_expr_test
}  // namespace floe::sql
