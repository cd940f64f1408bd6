/// \file
/// The JSONL (newline-delimited JSON) decoder: one JSON object per line,
/// parsed with simdjson On-Demand straight into the ColumnVectors of a target
/// Schema, batch by batch, streaming from a file or standard input with
/// bounded memory (a read chunk plus the rows of one batch).
///
/// Value forms per column type: those of floe/format/value_parse.h, as JSON:
///   boolean: true/false; int, long: JSON integers (range-checked);
///   float, double: JSON numbers, or the strings "NaN", "Infinity", "-Infinity";
///   decimal: a JSON number or string, parsed exactly from its text;
///   date, time, timestamp*: ISO-8601 strings; string: a JSON string;
///   uuid: a string; fixed, binary: a hex string (the Iceberg spec's JSON
///   single-value form; base64 is not accepted);
///   struct: an object; list: an array; map: {"keys":[...],"values":[...]}
///   (the Iceberg form) or, for string keys, a plain object {"k": v}.
/// A missing key or JSON null is a null; blank lines are skipped.
///
/// Errors (kInvalidArgument) name the line, the column path and the rule:
///   line 17, column 'qty': value 3000000000 overflows INT
///   line 3, column 'loc.lat': expected a number for DOUBLE, found a string "x"
///   line 9, column 'id': null in NOT NULL column
///   line 4: not valid JSON at column 12: trailing content after the JSON value
///   line 6, column 'n': not valid JSON at column 7: invalid number '01' (leading zero)
///   line 5, column 'name': invalid UTF-8 (...)
///   line 2: unknown column 'foo'   (unless ignore_unknown_keys)
///
/// With DecodeOptions::reject set, a line that breaks one of these rules is
/// passed to it (its reason is the message without "line N, ") and skipped.
/// With DecodeOptions::with_positions, Batch::positions holds each row's line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "floe/format/byte_stream.h"
#include "floe/format/decode_options.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::format {

/// Decodes JSON lines into batches of `schema`.
class JsonlReader {
 public:
  /// Reads a local file, or standard input for "-".
  static Result<std::unique_ptr<JsonlReader>> Open(SchemaPtr schema, const std::string& path,
                                                   DecodeOptions options = {});
  /// Reads an in-memory string.
  static Result<std::unique_ptr<JsonlReader>> FromString(SchemaPtr schema, std::string data,
                                                         DecodeOptions options = {});
  ~JsonlReader();

  /// Clears `batch` and fills it with up to batch_rows rows. Returns false
  /// (with an empty batch) when the input is exhausted. After an error the
  /// reader stays failed.
  Result<bool> Next(Batch* batch);

  /// Rows decoded so far.
  int64_t rows_read() const;
  /// Lines passed to DecodeOptions::reject so far.
  int64_t rows_rejected() const;
  /// The number of the last line read (1-based).
  int64_t line_number() const;

  class Impl;

 private:
  explicit JsonlReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::format
