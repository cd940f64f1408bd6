/// \file
/// The SQL printer: syntax trees back to canonical Flink SQL text. Names are
/// back-quoted and keywords upper-case, as Flink prints them; parentheses
/// appear only where precedence needs them. Parsing what ToSql prints gives
/// the same tree again (positions aside: see ClearPositions).
///
/// SHOW CREATE TABLE's text follows Flink's ShowCreateUtil: columns and
/// constraints two spaces in, `CONSTRAINT `PK_a_b` PRIMARY KEY (...) NOT
/// ENFORCED`, then `) ` and `COMMENT '...'`, `PARTITIONED BY (...)` and
/// `WITH (...)` (options sorted by key), each clause ending in a newline
/// (Flink 1.20's layout; Flink 2 moved the clauses below the `)`).
#pragma once

#include <string>

#include "floe/sql/ast.h"

namespace floe::sql {

/// How a data type is spelled.
enum class TypeStyle : uint8_t {
  /// As written: parameters only where they were given, STRING, BYTES,
  /// TIMESTAMP_LTZ(p). Round-trips through the parser.
  kAsWritten,
  /// Flink's LogicalType#asSerializableString (SHOW CREATE TABLE): every
  /// parameter spelled out, VARCHAR(2147483647) for STRING,
  /// TIMESTAMP(p) WITH LOCAL TIME ZONE.
  kSerializable,
  /// Flink's LogicalType#asSummaryString (DESCRIBE): parameters spelled out,
  /// but STRING, BYTES and TIMESTAMP_LTZ(p).
  kSummary,
};

std::string TypeToSql(const DataType& type, TypeStyle style = TypeStyle::kAsWritten);
std::string ExprToSql(const Expr& expr);
std::string QueryToSql(const Query& query);
/// One statement without the ending ';'. CREATE TABLE spans several lines.
std::string ToSql(const Statement& statement);
std::string ToSql(const StatementNode& node);

/// SHOW CREATE TABLE's text for a table (Flink's ShowCreateUtil): the name as
/// given (the caller passes the full catalog.database.table), options sorted
/// by key, the primary key as a table constraint named `PK_<columns joined
/// by _>` unless named, its columns NOT NULL, IF NOT EXISTS and LIKE left
/// out, types in TypeStyle::kSerializable, a newline at the end.
std::string ShowCreateTableText(const CreateTable& table);

/// Zeroes every position in the tree, so that trees parsed from differently
/// laid-out text compare equal with ==.
void ClearPositions(Statement& statement);
void ClearPositions(Expr& expr);
void ClearPositions(DataType& type);

/// A name as SQL text: bare when it is a plain identifier that is no keyword
/// of the parser, else back-quoted (function names; columns are always quoted).
std::string NameToSql(const std::string& name);

}  // namespace floe::sql
