/// \file
/// Values as text the way Flink prints them: what the SQL client's result
/// tables show and what CAST(x AS STRING) gives (Flink's CastRule texts since
/// 1.15): BOOLEAN TRUE / FALSE; integers in digits; FLOAT and DOUBLE as
/// Java's Float/Double.toString ("1.5", "1.0E20", "NaN"); DECIMAL with all
/// its scale digits; DATE 2024-01-31; TIME(p) 12:34:56[.fff]; TIMESTAMP(p)
/// and TIMESTAMP_LTZ(p) "2024-01-31 12:34:56.000000" with exactly p fraction
/// digits (LTZ in UTC, floe's only session time zone); ARRAY [1, 2]; MAP
/// {k=v}; ROW (1, a); a null inside a nested value NULL. Binary strings print
/// as x'0a1b' (Flink decodes them as UTF-8, which garbles arbitrary bytes).
#pragma once

#include <cstdint>
#include <string>

#include "floe/sql/ast.h"
#include "floe/types/column_vector.h"

namespace floe::sqlengine {

/// Appends the text of value `row` of `col` (of Flink type `type`). A null
/// appends nothing: callers print their own null marker.
void AppendValueText(const ColumnVector& col, const sql::DataType& type, int64_t row,
                     std::string* out);

/// Java's Double.toString / Float.toString of a value.
std::string JavaDoubleText(double v);
std::string JavaFloatText(float v);

}  // namespace floe::sqlengine
