/// \file
/// Row filters: the expression tree behind `floe scan --where`, SQL WHERE
/// clauses and Iceberg scan filters. An expression is parsed from text,
/// bound to a schema (names resolved to field ids, literals coerced to the
/// column types), then evaluated three ways: on rows of a Batch (exact), on
/// a data file's column metrics and on partition values (both "may match",
/// used to prune files before reading them; Iceberg spec: Scan Planning).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::expr {

/// A typed constant. Integers of every width (int, long, date, time,
/// timestamps) live in `i`, floats in `d`, decimals in `dec` (unscaled, with
/// `scale`), strings/binary/uuid/fixed bytes in `s`.
struct Literal {
  TypeId type = TypeId::kLong;
  bool is_null = false;
  int64_t i = 0;
  double d = 0;
  int128_t dec = 0;
  int32_t scale = 0;
  std::string s;

  static Literal Long(int64_t v) { Literal l; l.type = TypeId::kLong; l.i = v; return l; }
  static Literal Double(double v) { Literal l; l.type = TypeId::kDouble; l.d = v; return l; }
  static Literal String(std::string v) { Literal l; l.type = TypeId::kString; l.s = std::move(v); return l; }
  static Literal Boolean(bool v) { Literal l; l.type = TypeId::kBoolean; l.i = v; return l; }
  static Literal Decimal(int128_t unscaled, int32_t scale) {
    Literal l; l.type = TypeId::kDecimal; l.dec = unscaled; l.scale = scale; return l;
  }

  std::string ToString() const;
};

/// Compares two literals of the same (bound) type: <0, 0, >0. Strings and
/// binary compare as unsigned bytes; floats by value (NaN handled by callers).
int Compare(const Literal& a, const Literal& b);

enum class Op : uint8_t {
  kTrue, kFalse, kAnd, kOr, kNot,
  kLt, kLe, kGt, kGe, kEq, kNe,
  kIsNull, kNotNull, kIsNan, kNotNan,
  kIn, kNotIn, kStartsWith, kNotStartsWith,
};

std::string_view OpName(Op op);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// An expression node. Predicates name a column (`column`, dotted for nested
/// struct fields) and, once bound, its field id and type.
struct Expr {
  Op op = Op::kTrue;
  std::vector<ExprPtr> children;     ///< and / or / not
  std::string column;                ///< predicates
  std::vector<Literal> literals;     ///< comparison value(s)
  int32_t field_id = 0;              ///< set by Bind
  TypePtr field_type;                ///< set by Bind
  std::vector<int> path;             ///< set by Bind: child index at each struct level

  bool is_predicate() const { return op >= Op::kLt; }
  bool is_bound() const { return field_type != nullptr || !is_predicate(); }
  std::string ToString() const;
};

ExprPtr True();
ExprPtr False();
ExprPtr And(ExprPtr a, ExprPtr b);
ExprPtr Or(ExprPtr a, ExprPtr b);
ExprPtr Not(ExprPtr a);
ExprPtr Predicate(Op op, std::string column, std::vector<Literal> literals = {});

/// How deep `Parse` lets a filter nest: each '(' and each NOT opens a level.
/// Deeper text is an error naming this limit and the position, before the
/// recursive descent (and every later walk of the tree) could exhaust the
/// stack. Flat AND / OR chains do not nest: they may be of any length.
inline constexpr int kMaxFilterDepth = 256;

/// Parses a SQL-style filter: comparisons (`= == != <> < <= > >=`), `IS [NOT]
/// NULL`, `IS [NOT] NAN`, `[NOT] IN (...)`, `[NOT] LIKE 'prefix%'`, `BETWEEN a
/// AND b`, AND / OR / NOT, parentheses, `column op value` or `value op
/// column`. Literals: integers, decimals (123.45), floats (1e3), 'strings'
/// (with '' escapes), TRUE/FALSE, and typed forms DATE '...', TIME '...',
/// TIMESTAMP '...', TIMESTAMPTZ '...', UUID '...', X'hex'. Columns: names,
/// dotted paths, `back quoted`. Errors name the position in the text. A chain
/// `a AND b AND c ...` becomes a balanced tree of binary nodes, so its height
/// grows with the logarithm of its length.
Result<ExprPtr> Parse(std::string_view text);

/// Resolves columns against `schema` and coerces literals to the column types
/// (a string literal for a date/time/timestamp/uuid column is parsed as one;
/// integers widen to decimal/float; a literal that cannot be represented is an
/// error naming the column, e.g. comparing an INT column with 3000000000 folds
/// to true/false as the comparison demands). AND / OR chains, however they
/// were built, are walked without recursion per term and come out balanced.
Result<ExprPtr> Bind(const ExprPtr& e, const Schema& schema, bool case_sensitive = false);

/// Evaluates a bound expression on every row of `batch`; `selected` gets one
/// byte per row, 1 = the row matches. SQL semantics: a comparison with a null
/// value is not a match, and NOT of it is not a match either.
Status Evaluate(const Expr& e, const Batch& batch, std::vector<uint8_t>* selected);

/// Negation normal form: NOT pushed down to the predicates (NOT a < 5 is
/// a >= 5, NOT (x AND y) is NOT x OR NOT y), as metric and partition pruning need.
ExprPtr RewriteNot(const ExprPtr& e);

/// Column metrics of one data file, by field id (Iceberg spec: Manifests,
/// data_file fields 108-110, 125, 128, 137). Bounds are decoded literals.
struct FileMetrics {
  int64_t record_count = -1;
  std::function<std::optional<int64_t>(int32_t)> value_count;
  std::function<std::optional<int64_t>(int32_t)> null_count;
  std::function<std::optional<int64_t>(int32_t)> nan_count;
  std::function<std::optional<Literal>(int32_t)> lower_bound;
  std::function<std::optional<Literal>(int32_t)> upper_bound;
};

/// True when a file with these metrics may hold a matching row (false only
/// when the metrics prove that none can match).
bool MayMatch(const Expr& e, const FileMetrics& metrics);

/// Parses a literal written as text in the forms `Parse` accepts for a typed
/// literal and coerces it to `type`.
Result<Literal> LiteralFromText(std::string_view text, const Type& type);

}  // namespace floe::expr
