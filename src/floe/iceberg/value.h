/// \file
/// Single Iceberg values and their two serializations (Iceberg spec,
/// Appendix D): the binary single-value form (bounds in manifests, partition
/// summaries) and the JSON single-value form (defaults, REST, partition
/// values). A Value holds the same physical representation as a ColumnVector
/// slot (see floe/types/column_vector.h); the Iceberg type always comes from
/// context (a schema field, a partition field), never from the value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// A primitive value or null. Physical forms by type:
///   boolean -> bool; int, date -> int32_t; long, time, timestamp* -> int64_t;
///   float -> float; double -> double; decimal -> int128_t (unscaled);
///   string, binary, fixed, uuid (16 big-endian bytes) -> std::string of bytes.
struct Value {
  using Storage =
      std::variant<std::monostate, bool, int32_t, int64_t, float, double, int128_t, std::string>;
  Storage v;

  Value() = default;
  /// The null value.
  static Value Null() { return Value(); }
  static Value Boolean(bool b) { return Value(Storage(b)); }
  static Value Int(int32_t x) { return Value(Storage(x)); }
  static Value Long(int64_t x) { return Value(Storage(x)); }
  static Value Float(float x) { return Value(Storage(x)); }
  static Value Double(double x) { return Value(Storage(x)); }
  static Value Decimal(int128_t unscaled) { return Value(Storage(unscaled)); }
  /// Days since 1970-01-01.
  static Value Date(int32_t days) { return Int(days); }
  /// Microseconds since midnight, or since the epoch for timestamps
  /// (nanoseconds for the _ns types).
  static Value Time(int64_t micros) { return Long(micros); }
  static Value Timestamp(int64_t t) { return Long(t); }
  /// String (UTF-8), binary, fixed or uuid bytes.
  static Value Bytes(std::string b) { return Value(Storage(std::move(b))); }
  static Value String(std::string s) { return Bytes(std::move(s)); }
  /// A value of one of the fixed-width physical forms (bool, int32_t, int64_t,
  /// float, double, int128_t), for code generic over the type.
  template <typename T>
  static Value Of(T x) {
    return Value(Storage(x));
  }

  bool is_null() const { return std::holds_alternative<std::monostate>(v); }
  bool as_bool() const { return std::get<bool>(v); }
  int32_t as_int() const { return std::get<int32_t>(v); }
  int64_t as_long() const { return std::get<int64_t>(v); }
  float as_float() const { return std::get<float>(v); }
  double as_double() const { return std::get<double>(v); }
  int128_t as_decimal() const { return std::get<int128_t>(v); }
  const std::string& as_bytes() const { return std::get<std::string>(v); }

  /// True if the value is null or its physical form is the one of `type`
  /// (and, for fixed and uuid, has the right length).
  bool Matches(const Type& type) const;

  /// Bit-exact equality (NaN equals NaN of the same bits; -0.0 != +0.0).
  bool operator==(const Value& other) const;

 private:
  explicit Value(Storage s) : v(std::move(s)) {}
};

/// A partition tuple or any ordered list of values.
using Values = std::vector<Value>;

/// Appendix D binary form of a non-null primitive value.
/// kInvalidArgument for null, nested types or a value of the wrong physical form.
Result<std::string> ToBinary(const Type& type, const Value& value);

/// Parses the Appendix D binary form. Also reads the narrower encodings left
/// by type promotion (Iceberg spec: Schema Evolution): 4-byte bounds of a long
/// (int), of a double (float) and of timestamp/timestamp_ns (date).
/// kCorrupt when the length does not fit the type.
Result<Value> FromBinary(const Type& type, std::string_view bytes);

/// The JSON single-value text of a value ("34", "\"14.20\"", "\"2017-11-16\"",
/// "null"). Primitives only; kInvalidArgument for nested types.
Result<std::string> ToJsonText(const Type& type, const Value& value);

/// Parses a JSON single-value text for a primitive type. kInvalidArgument
/// naming the type when the text does not fit it.
Result<Value> FromJsonText(const Type& type, std::string_view json);

/// JSON single values of any type, nested included, through columns: the
/// value in row `row` of `column` as JSON text (struct: an object keyed by field
/// id; list: an array; map: {"keys": [...], "values": [...]}).
Result<std::string> ColumnValueToJsonText(const ColumnVector& column, int64_t row);
/// Parses a JSON single value of the column's type and appends it as a row.
/// Struct fields missing from the object are null.
Status AppendJsonText(ColumnVector* column, std::string_view json);

/// A readable form for messages: the JSON single-value text, unquoted.
std::string ValueToString(const Type& type, const Value& value);

/// Decimal text with exactly `scale` fraction digits ("14.20", "-0.05").
std::string DecimalToString(int128_t unscaled, int32_t scale);
/// Parses decimal text ("14.2", "-3", "2E+2") to an unscaled value at `scale`.
/// Fails when digits would be lost or the value has more than 38 digits.
Result<int128_t> DecimalFromString(std::string_view text, int32_t scale);

/// ISO-8601 forms used by the JSON serialization.
std::string FormatDate(int32_t days);
std::string FormatTime(int64_t micros);
/// `nanos` selects 9 fraction digits (timestamp_ns) instead of 6; `zone` adds "+00:00".
std::string FormatTimestamp(int64_t value, bool nanos, bool zone);
Result<int32_t> ParseDate(std::string_view text);
Result<int64_t> ParseTime(std::string_view text);
/// Parses "YYYY-MM-DDTHH:MM[:SS[.fffffffff]][Z|+HH:MM|-HH:MM]". With `zone`,
/// an offset is required and applied; without, an offset is an error.
Result<int64_t> ParseTimestamp(std::string_view text, bool nanos, bool zone);
/// Canonical lowercase uuid text of 16 big-endian bytes, and back.
std::string FormatUuid(std::string_view bytes16);
Result<std::string> ParseUuid(std::string_view text);

/// Orders two non-null values of `type` as Iceberg does (Java Comparators):
/// numbers and times numerically; float/double with -0.0 < +0.0 and NaN
/// greatest; string and binary, fixed and uuid by unsigned bytes (for UTF-8 this
/// is code point order); false < true. Returns <0, 0 or >0.
int CompareValues(const Type& type, const Value& a, const Value& b);

/// Appends `value` (which must match the column's type) to a column.
Status AppendValue(ColumnVector* column, const Value& value);
/// Row `row` of a primitive column as a Value.
Value ValueAt(const ColumnVector& column, int64_t row);

}  // namespace floe::iceberg
