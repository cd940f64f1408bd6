/// \file
/// PostgreSQL values into floe columns: the Iceberg type of a PostgreSQL
/// column, and its text output (what `pgoutput` sends and `COPY ... TO`
/// writes, with DateStyle ISO and TimeZone UTC) appended to a ColumnVector.
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

/// One field of a `COPY ... TO STDOUT` text-format row, unescaped; false for \N (null).
bool UnescapeCopyField(std::string_view field, std::string* out);

}  // namespace floe::pgsrc
