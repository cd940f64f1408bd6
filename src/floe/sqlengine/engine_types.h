/// \file
/// The SQL engine's view of columns and types. Every column the engine
/// handles has two types: the Flink SQL type (sql::DataType: what DESCRIBE
/// prints, what the type checks of Flink's planner reason about) and the
/// physical floe type (floe::Type: how its values sit in a ColumnVector,
/// column_vector.h). The physical type follows Iceberg's Flink connector
/// mapping (sql/sql_types.h): TINYINT and SMALLINT live in 32-bit ints, CHAR
/// and VARCHAR in strings, BINARY(n) in fixed[n], TIMESTAMP(p) in
/// microseconds whatever p.
///
/// Also the type rules of Flink's planner the engine needs: the common type
/// of two operands (Calcite's leastRestrictive over the numeric family
/// TINYINT < SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE), which
/// casts are implicit (Flink's LogicalTypeCasts.supportsImplicitCast: widening
/// within a family, never narrowing, never across families), and the result
/// types of arithmetic (Calcite's ReturnTypes: INT / INT is INT, decimal
/// precision and scale rules).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "floe/sql/ast.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::sqlengine {

/// A column of a relation: name, Flink type and physical type.
struct ColumnInfo {
  std::string name;
  sql::DataType type;
  TypePtr physical;
};

/// The columns of a relation (a table, a query result) in order.
struct RelSchema {
  std::vector<ColumnInfo> columns;

  int size() const { return static_cast<int>(columns.size()); }
  /// The physical schema (field ids 1..n at the top level; nested ids as
  /// the physical types carry them).
  SchemaPtr Physical() const;
  /// `[a: INT, b: STRING]`: Flink's summary of a schema in type mismatch messages.
  std::string Summary() const;
};

/// A simple Flink type of a name (precision as given).
sql::DataType MakeType(sql::TypeName name, bool nullable = true,
                       std::optional<int32_t> precision = std::nullopt,
                       std::optional<int32_t> scale = std::nullopt);

/// The physical type of a Flink type (nested ids numbered from 1; the
/// engine matches nested fields by position, never by id).
Result<TypePtr> PhysicalOf(const sql::DataType& type);

/// The Flink type of a physical column (Iceberg's TypeToFlinkType).
sql::DataType LogicalOf(const Type& type, bool nullable);

/// Flink's summary string of a type (`INT NOT NULL`, `STRING`, `DECIMAL(10, 2)`).
std::string TypeSummary(const sql::DataType& type);

bool IsIntegral(sql::TypeName name);      ///< TINYINT, SMALLINT, INT, BIGINT
bool IsNumeric(sql::TypeName name);       ///< integral, DECIMAL, FLOAT, DOUBLE
bool IsCharacter(sql::TypeName name);     ///< CHAR, VARCHAR, STRING
bool IsBinaryString(sql::TypeName name);  ///< BINARY, VARBINARY, BYTES
bool IsTemporal(sql::TypeName name);      ///< DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ
/// Decimal precision that holds every value of an integral type (TINYINT 3, INT 10, BIGINT 19).
int32_t IntegralDigits(sql::TypeName name);

/// The type two operands of a comparison, CASE branches, VALUES rows or
/// IN lists are brought to; nullopt when they have none (a STRING and an
/// INT). Nullable when either is.
std::optional<sql::DataType> CommonType(const sql::DataType& a, const sql::DataType& b);

/// Whether Flink casts `from` to `to` without being asked (INSERT into a
/// wider column, a function argument): same family and not narrowing.
bool ImplicitCastAllowed(const sql::DataType& from, const sql::DataType& to);

/// Whether CAST(from AS to) is defined at all.
bool ExplicitCastAllowed(const sql::DataType& from, const sql::DataType& to);

/// Whether two physical types have the same layout: the same type ids and
/// parameters at every level, field ids, names and nullability aside.
bool SameShape(const Type& a, const Type& b);

/// Gives `col` (and its children, at every level) the types of `type`,
/// which must have the same shape: values are kept, field ids follow `type`.
void Retype(ColumnVector* col, const TypePtr& type);

/// Whether two types are the same ignoring nullability and, for the
/// character and binary strings, length (their physical forms are equal).
bool SameLogical(const sql::DataType& a, const sql::DataType& b);

}  // namespace floe::sqlengine
