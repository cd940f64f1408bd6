/// \file
/// Flink SQL types <-> floe's Iceberg types, as Iceberg's Flink connector
/// maps them (apache/iceberg flink/v1.20: FlinkSchemaUtil, FlinkTypeToType
/// for Flink -> Iceberg, TypeToFlinkType for Iceberg -> Flink). CREATE TABLE
/// in an Iceberg catalog goes one way; DESCRIBE and SHOW CREATE TABLE of an
/// Iceberg table go back.
///
/// Flink -> Iceberg (FlinkTypeToType):
///   BOOLEAN -> boolean; TINYINT, SMALLINT, INT -> int; BIGINT -> long;
///   FLOAT -> float; DOUBLE -> double; DECIMAL(p, s) -> decimal(p, s);
///   CHAR(n), VARCHAR(n), STRING -> string; BINARY(n) -> fixed[n];
///   VARBINARY(n), BYTES -> binary; DATE -> date; TIME(p) -> time;
///   TIMESTAMP(p) -> timestamp and TIMESTAMP_LTZ(p) -> timestamptz, whatever
///   p (FlinkTypeToType ignores the precision: TIMESTAMP(9) is a microsecond
///   timestamp in Iceberg 1.x's Flink connector, not timestamp_ns);
///   ARRAY<T> -> list; MAP<K, V> -> map (key required); ROW<...> -> struct.
///   MULTISET<T>: Iceberg maps it to map<T, int>, which reads back as a MAP,
///   not a MULTISET; floe refuses it instead of changing the column's type.
/// Nullability: NOT NULL -> required. Comments -> docs.
///
/// Iceberg -> Flink (TypeToFlinkType): int -> INT, long -> BIGINT, string ->
/// VARCHAR(2147483647) (STRING), binary -> VARBINARY(2147483647) (BYTES),
/// fixed[n] -> BINARY(n), uuid -> BINARY(16), time -> TIME (precision 0, Flink's
/// only TIME precision), timestamp -> TIMESTAMP(6), timestamptz ->
/// TIMESTAMP_LTZ(6), timestamp_ns -> TIMESTAMP(9), timestamptz_ns ->
/// TIMESTAMP_LTZ(9), decimal -> DECIMAL(p, s), list -> ARRAY, map -> MAP
/// (key NOT NULL), struct -> ROW (field docs as descriptions).
#pragma once

#include <string>
#include <vector>

#include "floe/sql/ast.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::sql {

/// The length or precision a type has when none was written (Flink's
/// defaults: CHAR/VARCHAR/BINARY/VARBINARY 1, DECIMAL 10 (scale 0), TIME 0,
/// TIMESTAMP and TIMESTAMP_LTZ 6; STRING and BYTES 2147483647).
int32_t EffectivePrecision(const DataType& type);

/// One Flink type as an Iceberg type; nested fields numbered from *next_id
/// on, as Iceberg numbers a new table's fields (TypeUtil.assignFreshIds: a
/// struct's fields first, then their nested types; a list's element and a
/// map's key and value before their own nested types). Errors name the type
/// and its position (MULTISET: kUnsupported).
Result<TypePtr> ToIcebergType(const DataType& type, int32_t* next_id);

/// The Iceberg schema of CREATE TABLE's columns (FlinkSchemaUtil.convert):
/// physical columns in order with ids 1..n at the top level (then nested ids,
/// as ToIcebergType), COMMENT as doc, and the primary key (table or column
/// constraint) as the identifier fields, its columns made required as Flink
/// makes primary key columns NOT NULL. Computed and metadata columns and
/// watermarks are refused with their positions (kUnsupported): an Iceberg
/// table stores physical columns only (Iceberg's FlinkCatalog refuses them
/// too). A key column that does not exist is Flink's text: `Invalid primary
/// key 'PK_id'. Column 'id' does not exist.`
Result<Schema> ToIcebergSchema(const CreateTable& table);

/// An Iceberg type as the Flink type TypeToFlinkType gives, with
/// `required` as NOT NULL.
DataType FromIcebergType(const Type& type, bool required);

/// An Iceberg schema as CREATE TABLE columns (physical, with docs as
/// COMMENT) and its identifier fields as the primary key (unnamed; the
/// printer names it PK_<columns>). Only the columns, key and name are set.
CreateTable FromIcebergSchema(const Schema& schema, Identifier name);

}  // namespace floe::sql
