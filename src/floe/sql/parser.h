/// \file
/// The Flink SQL parser: a hand-written recursive descent over lexer.h's
/// tokens into ast.h's tree, and the script splitter that cuts a file into
/// statements at `;`.
///
/// Errors (kInvalidArgument unless said otherwise) carry Flink's texts, with
/// positions of the whole file:
///  - syntax: `Encountered "FORM" at line 1, column 10.\nWas expecting one
///    of:\n    "FROM" ...` — the tokens that could have come next there, as
///    Calcite lists them (`<EOF> ` first, then the rest sorted);
///  - lexical: `Lexical error at line 1, column 20.  Encountered: <EOF> after : "'abc"`;
///  - valid Flink SQL outside floe's subset (JOIN, GROUP BY, ORDER BY, UNION,
///    subqueries, DISTINCT, ...): kUnsupported, `From line 1, column 17 to
///    line 1, column 20: JOIN is not supported by floe's SQL (...)` — decided
///    once for all of them: the parser knows the construct and says so,
///    rather than claiming a syntax error;
///  - rule violations the parser can see (ranges of type parameters, a
///    primary key without NOT ENFORCED, OVERWRITING ALL in LIKE): Flink's
///    message after Calcite's validation prefix `From line L, column C to
///    line L, column C: `, e.g. `...: Flink doesn't support ENFORCED mode for
///    PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls if the constraint
///    checks are performed on the incoming/outgoing data. Flink does not own
///    the data therefore the only supported mode is the NOT ENFORCED mode`
///    (kUnsupported);
///  - nesting deeper than kMaxSqlDepth (parentheses, types, NOT chains):
///    `SQL nested deeper than 128 levels at line 1, column 136`, before the
///    stack could run out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/sql/ast.h"
#include "floe/util/status.h"

namespace floe::sql {

/// How deep expressions, types and queries may nest. Each parenthesis, each
/// nested type, each unary operator, each CASE / CAST / function call and
/// each operator of a left-deep chain (`a + b + c`) opens a level. At this
/// limit a parse needs about 0.6 MB of stack in a release build (the frames on
/// the recursive path are kept small on purpose, see parser.cc).
inline constexpr int kMaxSqlDepth = 128;

/// Parses exactly one statement (an ending ';' is allowed). `start` is where
/// `text` begins in its file, so that positions in the tree and in errors are
/// those of the file.
Result<Statement> ParseStatement(std::string_view text, Pos start = {});

/// Parses every statement of a script (SplitStatements, then ParseStatement
/// on each). The last statement may lack its ';'. The first error stops.
Result<std::vector<Statement>> ParseScript(std::string_view text);

/// Parses one data type (`DECIMAL(9, 2) NOT NULL`, `ROW<a INT, b ARRAY<STRING>>`).
Result<DataType> ParseDataType(std::string_view text, Pos start = {});

/// Parses one expression (`a + 1 > 2 AND b IS NOT NULL`).
Result<Expr> ParseExpression(std::string_view text, Pos start = {});

/// True for the words that cannot be a bare (unquoted) name: SELECT, FROM,
/// TIMESTAMP, USER, VALUE, ... (back-quote them: `user`).
bool IsReservedWord(std::string_view word);

/// A statement's text inside a script: a view of the script (without the
/// ending ';') and where it starts.
struct StatementSource {
  std::string_view text;
  Pos pos;
  size_t offset = 0;  ///< byte offset in the script
};

/// A script cut into statements.
struct SplitResult {
  /// Statements ended by ';', in order. Statement sets (`EXECUTE STATEMENT
  /// SET BEGIN ... END` and `BEGIN STATEMENT SET; ... END`) are one statement
  /// each, their inner ';' included.
  std::vector<StatementSource> statements;
  /// What follows the last ';' if it holds more than space and comments: a
  /// statement not yet ended (the shell asks for more lines).
  std::optional<StatementSource> rest;
  /// True when the script ends inside a string, quoted name, comment or hint,
  /// or inside a statement set (the shell keeps reading).
  bool rest_incomplete = false;
};

/// Cuts a script at each ';' outside strings, quoted names, comments, hints
/// and statement sets. Never fails: bad tokens are left for the parser.
SplitResult SplitStatements(std::string_view script);

}  // namespace floe::sql
