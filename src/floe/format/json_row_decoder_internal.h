/// \file
/// Internal to the format module: the JSON value rules of the JSONL decoder
/// (jsonl_reader.h: value forms per column type, nulls, nesting, error
/// messages), as a decoder of one JSON object into one row of a schema's
/// columns. The JSONL reader feeds it whole lines; the Debezium reader feeds
/// it the `before` / `after` objects of a change event. One value parser for
/// both, so both accept and reject exactly the same values.
///
/// Also what the readers share to reject a single row: RowError (a failure's
/// rule and column, formatted with or without its line) and RowMark (the
/// shape of a batch before a row, to take a half-decoded row out again).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/format/decode_options.h"
#include "floe/format/value_parse.h"
#include "floe/types/column_vector.h"

namespace floe::format::internal {

/// The decoders on simdjson are compiled for its AVX2 kernel, which also
/// needs PCLMUL (on every x86-64-v3 CPU built so far, but not part of the
/// level): kUnsupported on a CPU without them.
Status CheckSimdjsonCpu();

/// "an array", "a string", ...: a JSON value's type in error messages.
const char* JsonTypeName(simdjson::ondemand::json_type t);

/// Why a row could not be decoded.
struct RowError {
  std::string column;  ///< the column path ("loc.lat"); empty: about the row as a whole
  std::string image;   ///< Debezium: the image the column was in ("before", "after"), or empty
  std::string rule;    ///< "value 3000000000 overflows INT"
  bool fatal = false;  ///< not about one row (nesting deeper than the parser allows)

  /// "column 'qty': value ... overflows INT", "column 'qty' of the after
  /// image: ...", or the rule alone: the RejectedRow reason.
  std::string Reason() const;
  /// "line 17, column 'qty': ..." or "line 4: ...": the decoder's error.
  std::string Message(int64_t line) const;
};

/// The RejectedRow of `text` at `position`, the text cut at RejectedRow::kMaxText.
RejectedRow MakeRejectedRow(int64_t position, std::string_view text, std::string reason);

/// The shape of a batch (every column, nested ones included, and the per-row
/// vectors) at one moment, so that a row that fails half way through can be
/// taken out again and the batch stays consistent. Taken before each row only
/// when rows may be rejected.
class RowMark {
 public:
  void Take(const Batch& batch);
  /// Puts `batch` back to the shape it had at Take() (the same batch).
  void Restore(Batch* batch) const;

 private:
  struct Entry {
    int64_t length;
    size_t values;
    size_t offsets;
    bool validity;  ///< a validity vector existed (otherwise it is dropped again)
  };
  void TakeColumn(const ColumnVector& c);
  void RestoreColumn(ColumnVector* c, size_t* i) const;
  std::vector<Entry> entries_;
  int64_t num_rows_ = 0;
};

/// How the values of one column of a Debezium change event are encoded
/// (Kafka Connect's JSON converter, Debezium's default modes): from the
/// event's schema, or the defaults of the column's type (see
/// debezium_reader.h).
struct DebeziumEncoding {
  enum class Strings : uint8_t {
    kAuto,    ///< the column type's default (decimal: base64 unless it holds other characters; binary: base64)
    kBase64,  ///< bytes in base64 (Connect `bytes`, Decimal, Bits)
    kText,    ///< the JSONL rules (Connect `string`: decimal text, hex bytes, ISO times)
  };
  /// An integer time value: nanoseconds per unit (days, ms, us, ns); 0: the
  /// column type's default (date: days, time and timestamp: us, timestamp_ns: ns).
  int64_t unit_ns = 0;
  /// Decimal bytes: their scale (Connect Decimal's `scale` parameter); -1: the column's.
  int32_t decimal_scale = -1;
  Strings strings = Strings::kAuto;
};

/// Decodes JSON objects into rows of a schema's columns (simdjson On-Demand).
class JsonRowDecoder {
 public:
  JsonRowDecoder(SchemaPtr schema, bool ignore_unknown_keys);
  ~JsonRowDecoder();
  JsonRowDecoder(const JsonRowDecoder&) = delete;
  JsonRowDecoder& operator=(const JsonRowDecoder&) = delete;

  /// Decodes `line`, which must hold one JSON object (and may be followed by
  /// ByteStream::kPadding readable bytes), as one row appended to `cols` (one
  /// column per top-level field). False on error (see TakeError()); the
  /// columns may then hold part of the row.
  bool DecodeLine(std::string_view line, ColumnVector* cols);

  /// Decodes `obj`, an object inside the document `line` that the caller
  /// iterates with its own parser, as one row appended to `cols`. Errors as
  /// DecodeLine.
  bool DecodeObject(simdjson::ondemand::object& obj, std::string_view line, ColumnVector* cols);

  /// Sets the line that JSON errors are located in (for Fail*() by a caller
  /// that iterates its own document).
  void SetLine(std::string_view line);
  /// Records a rule broken by the caller (always false, to return it).
  bool Fail(std::string rule);
  /// Records a simdjson error, with the grammar error located in the line
  /// when there is one (always false).
  bool FailJson(simdjson::error_code code);

  /// Records invalid UTF-8 in the line, naming the first bad byte and its
  /// offset (always false).
  bool FailBadUtf8();

  /// The error of the last failed call; clears it.
  RowError TakeError();

  /// Also takes Debezium's encodings (debezium_reader.h) where the JSONL
  /// rules take no such value: integers for date, time and timestamp
  /// columns, base64 for decimal and binary columns, ZonedTime text for time
  /// columns, {"scale","value"} objects (VariableScaleDecimal) for decimal
  /// columns; every column at its type's default encoding.
  void EnableDebezium();
  /// Sets the encoding of top-level column `column` (EnableDebezium first).
  void SetEncoding(size_t column, const DebeziumEncoding& encoding);
  /// Puts every top-level column back to its type's default encoding.
  void ResetEncodings();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::format::internal
