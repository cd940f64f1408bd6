/// \file
/// The CSV decoder (RFC 4180): fields separated by commas (or another
/// delimiter), records by LF or CRLF; a field in double quotes may hold the
/// delimiter, line breaks and doubled quotes (""). A header record maps names
/// to the schema's columns (columns absent from the header read as null). An
/// empty unquoted field is null; a quoted empty field "" is the empty string
/// for STRING (and an error for other types). Primitive values use the text
/// forms of floe/format/value_parse.h; binary and fixed are hex. A column of
/// a nested type (ARRAY, STRUCT, MAP) named in the header is an error naming
/// the column. Streaming with bounded memory, batch by batch.
///
/// Errors (kInvalidArgument) name the line where the record starts, the
/// column and the rule:
///   line 4, column 'qty': value 3000000000 overflows INT
///   line 7: expected 3 fields (as in the header), found 2
///   line 9: malformed CSV (unterminated quoted field)
///
/// With DecodeOptions::reject set, a record with the wrong number of fields or
/// a field its column rejects is passed to it and skipped; malformed quoting
/// still stops the reader (the record boundaries after it are unknown). With
/// DecodeOptions::with_positions, Batch::positions holds the line where each
/// row's record starts (the header is line 1), so a record spanning lines
/// (a quoted line break) is found where it begins.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "floe/format/byte_stream.h"
#include "floe/format/decode_options.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::format {

/// Decodes CSV records into batches of `schema`.
class CsvReader {
 public:
  /// Reads a local file, or standard input for "-". Reads the header record.
  static Result<std::unique_ptr<CsvReader>> Open(SchemaPtr schema, const std::string& path,
                                                 DecodeOptions options = {});
  /// Reads an in-memory string.
  static Result<std::unique_ptr<CsvReader>> FromString(SchemaPtr schema, std::string data,
                                                       DecodeOptions options = {});
  ~CsvReader();

  /// Clears `batch` and fills it with up to batch_rows rows; false at the end.
  Result<bool> Next(Batch* batch);
  /// Rows decoded so far.
  int64_t rows_read() const;
  /// Records passed to DecodeOptions::reject so far.
  int64_t rows_rejected() const;

  class Impl;

 private:
  explicit CsvReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::format
