/// \file
/// PostgreSQL values into floe columns: the Iceberg type of a PostgreSQL
/// column, and a value appended to a ColumnVector from its text output (what
/// `pgoutput` sends, with DateStyle ISO and TimeZone UTC) or from its binary
/// send form (what the snapshot's `COPY ... TO STDOUT (FORMAT binary)` sends).
///
/// | PostgreSQL | Iceberg |
/// |---|---|
/// | smallint, integer | int |
/// | bigint, oid | long |
/// | numeric(p,s), p <= 38, s >= 0 | decimal(p,s) (NaN / Infinity: an error naming the column) |
/// | numeric (unconstrained), numeric(p,s) with p > 38 or s < 0 | string: the exact text (no precision to give it) |
/// | real / double precision | float / double (NaN, Infinity kept) |
/// | boolean | boolean |
/// | text, varchar, char(n) (padded), name, "char" | string |
/// | bytea | binary |
/// | date / time / timestamp / timestamptz | date / time / timestamp / timestamptz (microseconds; infinity and BC dates: an error) |
/// | uuid | uuid |
/// | json, jsonb | string (the JSON text) |
/// | enums, inet, cidr, macaddr, interval, money, anything else | string (PostgreSQL's text form) |
/// | one-dimensional arrays of the above | list (a multi-dimensional value: an error) |
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::pgsrc {

/// One column of a PostgreSQL table, as its catalog describes it.
struct PgColumn {
  std::string name;
  uint32_t type_oid = 0;
  int32_t typmod = -1;
  uint32_t elem_oid = 0;  ///< the element type of an array type, else 0
  int32_t elem_typmod = -1;
  bool key = false;       ///< part of the primary key
  bool not_null = false;
};

/// The Iceberg type of a column (an array: a list whose element gets id
/// `*next_id`, incremented).
TypePtr IcebergTypeOf(const PgColumn& column, int32_t* next_id);

/// Appends the text form of one value of `column` (typed `type`, from
/// IcebergTypeOf) to `out`. An error names nothing: the caller adds table
/// and column.
Status AppendPgText(ColumnVector* out, const Type& type, uint32_t type_oid, std::string_view text);

/// Whether the snapshot's binary COPY (`COPY ... TO STDOUT (FORMAT binary)`)
/// selects `column` as it is, in PostgreSQL's binary send form that
/// AppendPgBinary reads: booleans, integers, oid, floats, date, time,
/// timestamp(tz), uuid, bytea, text, varchar, char(n), name, json, jsonb.
/// The others (numeric, arrays, enums, inet, interval, ... : forms whose
/// binary layout floe does not decode) are selected as `column::text`, their
/// text output, which AppendPgText reads.
bool HasPgBinaryForm(const PgColumn& column);

/// Appends one value of `column` (typed `type`) in PostgreSQL's binary send
/// form (big-endian integers and floats; dates as days and timestamps as
/// microseconds since 2000-01-01; text as its bytes). The same values as
/// AppendPgText of the value's text output, and the same refusals (infinity,
/// BC and years after 9999, a time of 24:00:00). An error names nothing: the
/// caller adds table and column.
Status AppendPgBinary(ColumnVector* out, const Type& type, uint32_t type_oid, std::string_view bytes);

}  // namespace floe::pgsrc
