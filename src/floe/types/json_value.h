/// \file
/// The canonical JSON printer for values of a ColumnVector and rows of a Batch.
///
/// The forms are the Iceberg spec's "JSON single-value serialization"
/// (Appendix D) exactly as `shared/interop/lib/canonical.mjs` prints them, so
/// floe's output can be compared byte for byte with what the independent
/// readers (DuckDB, hyparquet, icebird) print for the same file:
///   boolean true/false; int, long exact digits;
///   float: the shortest text that reads back to the same float32, double: the
///     shortest round-trip text, both spelled as JavaScript's Number#toString
///     (1e+21, 1e-7, 0.000001, -0); NaN, Infinity, -Infinity as strings;
///   decimal(P,S): a string with exactly S fraction digits ("-0.50");
///   date "YYYY-MM-DD"; time "HH:MM:SS.ffffff";
///   timestamp "YYYY-MM-DDTHH:MM:SS.ffffff", timestamptz the same + "+00:00",
///     the _ns types with 9 fraction digits; years outside 0..9999 as
///     JavaScript's Date#toISOString spells them ("+010000", "-000001");
///   string: a JSON string (escapes as JSON.stringify: \" \\ \b \f \n \r \t,
///     other control characters \u00xx, everything else raw); a string whose
///     bytes are not valid UTF-8 prints as its lower-case hex, as canonical.mjs does;
///   uuid "f79c3e09-677c-4bbd-a479-3f349cb785e7"; fixed, binary: lower-case hex;
///   struct: an object with the fields in schema order; list: an array;
///   map: {"keys":[...],"values":[...]}; null: null.
/// No iostreams, no allocation per value beyond the growth of the output string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/types/column_vector.h"

namespace floe {

/// Appends the canonical JSON of value `row` of `col` (null included).
void AppendJsonValue(const ColumnVector& col, int64_t row, std::string* out);

/// Appends row `row` of `batch` as a JSON object, keys in schema order, no
/// trailing newline.
void AppendJsonRow(const Batch& batch, int64_t row, std::string* out);

/// AppendJsonRow for many rows of one schema: the keys (`"name":`) are
/// escaped once, when it is made, not for every row.
class JsonRowWriter {
 public:
  explicit JsonRowWriter(const Schema& schema);
  /// Row `row` of `batch` (whose schema has the fields of the one given).
  void Append(const Batch& batch, int64_t row, std::string* out) const;

 private:
  std::vector<std::string> keys_;  ///< `{"a":`, `,"b":`, ... (the separator first)
};

/// The text of a fixed-size scalar (boolean, int, long, double, the four
/// timestamps) of row `row` of `col`, written at `p` (room for 96 bytes), as
/// AppendJsonValue writes it — with `json` false without the quotes of a
/// timestamp or of NaN / Infinity. Returns the end, or nullptr for a value of
/// another type (and writes nothing). The value must not be null.
char* PutFixedScalarText(const ColumnVector& col, int64_t row, char* p, bool json);

/// Appends a JSON string literal of `text` (quotes and escapes as JSON.stringify).
void AppendJsonString(std::string_view text, std::string* out);

/// Appends JavaScript's Number#toString of a double (shortest round trip),
/// or "NaN"/"Infinity"/"-Infinity" with quotes, as canonical.mjs prints doubles.
void AppendJsonDouble(double v, std::string* out);
/// The same for a float: shortest text that reads back to the same float32.
void AppendJsonFloat(float v, std::string* out);

/// Text forms shared with the decoders and error messages (no quotes):
/// "YYYY-MM-DD" for days since 1970-01-01.
void AppendDateText(int32_t days, std::string* out);
/// "HH:MM:SS.ffffff" for microseconds since midnight.
void AppendTimeText(int64_t micros, std::string* out);
/// "YYYY-MM-DDTHH:MM:SS.f" with `digits` (6 or 9) fraction digits for epoch
/// units of 10^-digits seconds.
void AppendTimestampText(int64_t units, int digits, std::string* out);
/// The unscaled decimal `v` with `scale` fraction digits ("-12.30").
void AppendDecimalText(int128_t v, int32_t scale, std::string* out);
/// Lower-case hex of `bytes`.
void AppendHex(std::string_view bytes, std::string* out);

/// True when `bytes` is well-formed UTF-8 (no surrogates, no overlongs).
bool IsValidUtf8(std::string_view bytes);

}  // namespace floe
