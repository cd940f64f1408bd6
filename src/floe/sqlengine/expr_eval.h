/// \file
/// The engine's expressions: a binder from the parser's trees (sql/ast.h) to
/// typed expressions over one relation's columns, and an evaluator that
/// computes an expression over a whole Batch at a time, column by column
/// (columnar kernels per physical type; no row objects).
///
/// Binding resolves column names (Flink is case-sensitive; `a`, `t.a`,
/// `db.t.a`, `c.db.t.a` and the table's alias), types literals as Calcite
/// does (an integer literal is INT, or BIGINT when it does not fit; `1.5` is
/// DECIMAL(2, 1); `'abc'` is CHAR(3) NOT NULL), brings the operands of
/// comparisons, arithmetic, IN, BETWEEN and CASE to their common type with
/// implicit casts (engine_types.h), and refuses what has no meaning with
/// Calcite's texts and the expression's position:
/// `SQL validation failed. From line 1, column 8 to line 1, column 15:
/// Column 'x' not found in any table`.
///
/// Supported: literals (not INTERVAL), columns, + - * / % (MOD), unary -,
/// ||, = <> < <= > >=, AND / OR / NOT (three-valued), IS [NOT] NULL / TRUE /
/// FALSE / UNKNOWN, [NOT] IN (list), [NOT] BETWEEN, [NOT] LIKE [ESCAPE],
/// CAST / TRY_CAST, CASE, IS [NOT] DISTINCT FROM, DATE / TIMESTAMP ± INTERVAL
/// literal, and the functions UPPER, LOWER, CHAR_LENGTH / CHARACTER_LENGTH,
/// CONCAT, COALESCE, ABS, MOD, NULLIF, IF and those of scalar_functions.h.
/// Anything else is Calcite's "No match found for function signature" error,
/// followed by the signatures the function has when it is one of floe's.
///
/// Runtime semantics follow Flink's: integer arithmetic wraps as Java's does,
/// integer division by zero is an error, DECIMAL results that overflow their
/// type are null, CAST of a bad string is an error and TRY_CAST null.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "floe/sql/ast.h"
#include "floe/sqlengine/engine_types.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sqlengine {

/// The relation expressions of a query see.
struct Scope {
  RelSchema schema;
  /// The qualifiers a column reference may carry for this relation, each a
  /// list of names: {"t"}, {"db", "t"}, {"c", "db", "t"}, or {"alias"}.
  std::vector<std::vector<std::string>> qualifiers;
  /// The name of the relation in messages ("t").
  std::string name;
};

enum class BoundKind : uint8_t { kColumn, kLiteral, kCast, kCall };

enum class Fn : uint8_t {
  kNone,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kNeg,
  kConcat,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kIsTrue,
  kIsNotTrue,
  kIsFalse,
  kIsNotFalse,
  kIn,
  kLike,
  kCase,
  kCoalesce,
  kCharLength,
  kAbs,
  kIsDistinct,  ///< IS [NOT] DISTINCT FROM (negated: NOT DISTINCT)
  kScalar,      ///< a built-in scalar function of scalar_functions.h (BoundExpr::scalar)
};

/// A typed expression over the columns of a Scope.
struct BoundExpr {
  BoundKind kind = BoundKind::kLiteral;
  Fn fn = Fn::kNone;
  sql::DataType type;         ///< the Flink type (nullability included)
  TypePtr physical;           ///< its physical type
  int column = -1;            ///< kColumn: index in the scope
  ColumnVector literal;       ///< kLiteral: one row
  bool null_literal = false;  ///< kLiteral NULL (takes its type from context)
  bool try_cast = false;      ///< kCast: TRY_CAST
  bool negated = false;       ///< kIn, kLike: NOT IN / NOT LIKE
  bool has_else = false;      ///< kCase: args are (cond, value)* [else]
  uint8_t scalar = 0;         ///< kScalar: a ScalarFn (scalar_functions.h)
  std::string unit;           ///< kScalar: TRIM mode, EXTRACT / TIMESTAMPADD / TIMESTAMPDIFF unit
  int64_t months = 0;         ///< kScalar kAddInterval: the interval's months
  int64_t micros = 0;         ///<   and microseconds
  std::vector<BoundExpr> args;
  sql::Span span;

  /// True for a literal, or a cast of one.
  bool IsConstant() const;
};

/// Binds an expression against a scope.
Result<BoundExpr> Bind(const sql::Expr& expr, const Scope& scope);

/// `expr` converted to `to` (a cast node unless it already has that type).
/// A NULL literal just takes the type.
Result<BoundExpr> CastTo(BoundExpr expr, const sql::DataType& to, bool try_cast = false);

/// Evaluates `expr` over the rows of `batch` (whose columns are the scope's).
Result<ColumnVector> Evaluate(const BoundExpr& expr, const Batch& batch);

/// Evaluates an expression bound without columns (a VALUES row's item, a
/// static partition value, an ESCAPE): its one value, as a column of one row.
/// Any expression the binder takes works, not only literals and casts of
/// them (`-5`, `1 + 1`, `ABS(5)`, `UPPER('abc')`).
Result<ColumnVector> EvaluateConstant(const BoundExpr& expr);

/// Evaluates a boolean expression and returns the indices of the rows where
/// it is TRUE (not FALSE, not NULL).
Result<std::vector<int64_t>> EvaluateFilter(const BoundExpr& expr, const Batch& batch);

/// Casts a column of Flink type `from` to `to` (physical `to_physical`).
/// Bad values are an error naming the value, or null with `try_cast`.
Result<ColumnVector> CastColumn(const ColumnVector& in, const sql::DataType& from,
                                const sql::DataType& to, const TypePtr& to_physical, bool try_cast);

/// "SQL validation failed. From line L, column C to line L2, column C2: <message>".
Error ValidationError(const sql::Span& span, std::string_view message);

/// The name Flink gives an unnamed expression in a SELECT list: EXPR$<index>.
std::string ExprName(int index);

}  // namespace floe::sqlengine
