/// \file
/// The SQL column list parser: `id BIGINT NOT NULL, name STRING, tags ARRAY<STRING>`
/// -> an Iceberg Schema with fresh field ids. This is how the `floe` command
/// (`--schema`) and later the SQL front end (CREATE TABLE) spell schemas.
///
/// Type names are those of Flink SQL and of the Iceberg spec ("Schemas and Data
/// Types"), case-insensitive:
///   BOOLEAN; TINYINT, SMALLINT, INT, INTEGER; BIGINT, LONG; FLOAT, REAL; DOUBLE
///   [PRECISION]; DECIMAL / NUMERIC [(P[, S])] (default (10, 0) as in Flink);
///   DATE; TIME [(p)]; TIMESTAMP [(p)] (p <= 6 micros, 7..9 nanos); TIMESTAMPTZ,
///   TIMESTAMP_LTZ [(p)], TIMESTAMP [(p)] WITH [LOCAL] TIME ZONE; TIMESTAMP_NS;
///   TIMESTAMPTZ_NS; STRING, VARCHAR [(n)], CHAR [(n)]; UUID; FIXED(L) (also
///   FIXED[L], BINARY(L)); BINARY, VARBINARY, BYTES; ARRAY<T>; STRUCT<name T, ...>
///   and ROW<name T, ...> (also `name: T`); MAP<K, V>.
/// `NOT NULL` may follow any type, top-level or nested (array element, struct
/// field, map value); map keys are always required (Iceberg spec: Maps).
/// Names may be backquoted (`a b`, with `` for a backquote). A column or
/// struct field may carry `COMMENT 'text'`, which becomes its doc.
///
/// A primary key, as in Flink SQL, becomes the schema's identifier fields
/// (`identifier-field-ids`, as Iceberg's Flink connector converts it): a
/// table constraint `[CONSTRAINT name] PRIMARY KEY (col[, col...]) NOT
/// ENFORCED` among the columns (a key column may be a dotted path into
/// structs: `loc.city`), or a column constraint `id BIGINT PRIMARY KEY NOT
/// ENFORCED`. `NOT ENFORCED` is required, as Flink requires it. Key columns
/// follow the Iceberg spec's rules for identifier fields — primitive, not
/// FLOAT/DOUBLE, not in an array or map, not in an optional struct — and are
/// made required (NOT NULL), as Flink makes primary key columns.
///
/// Field ids are assigned as Iceberg assigns them to a new table
/// (Java TypeUtil.assignFreshIds): the fields of a struct get consecutive ids
/// first (top level: 1..n), then each field's nested type is numbered in field
/// order, recursively; a list's element and a map's key and value get their
/// ids before their own nested types are numbered.
#pragma once

#include <string>
#include <string_view>

#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe {

/// Parses a SQL column list into a Schema (schema id 0; identifier fields
/// from a PRIMARY KEY, in key order, else none).
/// Errors are kInvalidArgument and name the 1-based character position and
/// what was expected, e.g. `SQL column list, column 12: expected '>' to close
/// ARRAY<...>, found ','`.
Result<Schema> ParseSqlColumns(std::string_view text);

/// Parses one SQL type (`DECIMAL(9,2)`, `ARRAY<STRING NOT NULL>`) with field
/// ids for its nested fields starting at `first_id`.
Result<TypePtr> ParseSqlType(std::string_view text, int32_t first_id = 1);

/// The SQL spelling of a type (for messages and FormatSqlColumns): INT,
/// BIGINT, DECIMAL(9, 2), ARRAY<STRING NOT NULL>, STRUCT<a INT>, MAP<STRING, INT>.
std::string SqlTypeName(const Type& type);

/// A schema as a SQL column list that ParseSqlColumns reads back to the same
/// types, names and nullability (ids are reassigned on parsing).
std::string FormatSqlColumns(const Schema& schema);

}  // namespace floe
