/// \file
/// Options shared by the row decoders (JSONL, CSV, Debezium JSON), and the
/// record of a row a decoder rejected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "floe/util/status.h"

namespace floe::format {

/// A row the decoder could not decode (kept out of the batch).
struct RejectedRow {
  int64_t position = 0;  ///< its line (JSONL, Debezium) or record line (CSV), 1-based
  std::string text;      ///< the raw line / record (at most kMaxText bytes kept; longer is cut, with "..." appended)
  std::string reason;    ///< the error message as it would have been raised, without the
                         ///< "line N" prefix ("column 'qty': value 3000000000 overflows INT")

  /// Bytes of the raw text kept: an error output must not grow with a
  /// runaway line.
  static constexpr size_t kMaxText = size_t{64} << 10;
};

/// The default limit of one line or record (DecodeOptions::max_line_bytes).
inline constexpr size_t kDefaultMaxLineBytes = size_t{256} << 20;
/// The largest limit the decoders take (ByteStream::kMaxUnit).
inline constexpr size_t kMaxLineBytes = size_t{1} << 30;

/// Options of the row decoders.
struct DecodeOptions {
  /// Rows per batch. (Debezium: an update's two images stay in one batch, so a
  /// batch may hold one row more.)
  int64_t batch_rows = 65536;
  /// JSONL, Debezium: skip object keys that name no column (default: an error).
  /// CSV: skip header columns that name no schema column.
  bool ignore_unknown_keys = false;
  /// Bytes read from the input at a time.
  size_t chunk_bytes = size_t{4} << 20;
  /// A line (JSONL, Debezium) or record (CSV) longer than this is an error
  /// naming its line number and the limit, that stops the decoder (it is not
  /// passed to `reject`): memory stays bounded. `floe write --max-line-bytes`;
  /// at most kMaxLineBytes (what the input buffer grows to).
  size_t max_line_bytes = kDefaultMaxLineBytes;
  /// CSV: the field separator.
  char csv_delimiter = ',';
  /// CSV: the first record names the columns (otherwise fields map to the
  /// schema's columns by position).
  bool csv_header = true;
  /// Fill Batch::positions with each row's input position: the 1-based line
  /// number (JSONL), the line where the record starts (CSV; the header is
  /// line 1, so the first data record of a file is usually line 2). Off by
  /// default: the plain append path does not pay for it. The Debezium decoder
  /// always fills them.
  bool with_positions = false;
  /// When set, a row-level error (a value that does not fit its column, invalid
  /// JSON on one line, a null in a NOT NULL column, an unknown key, a CSV
  /// record with the wrong number of fields, a bad Debezium envelope) is
  /// passed here and the row skipped; decoding goes on. An error returned by
  /// the callback fails the decoder. Errors that are not about one row (I/O,
  /// a line over max_line_bytes, JSON nested deeper than the parser's limit,
  /// malformed CSV quoting, which loses the record boundaries) still fail the
  /// decoder.
  std::function<Status(RejectedRow&&)> reject;
  /// Debezium: the dotted path, inside the change event (the payload, when
  /// wrapped), of the integer that orders the events: `source.lsn`
  /// (PostgreSQL), `source.ts_ms` or `ts_ms` (any connector, at millisecond
  /// resolution), `source.pos` (MySQL, within one binlog file).
  std::string sequence_path = "source.lsn";
  /// The descriptor read for the path "-" (standard input; a front end
  /// running a command in-process passes its own).
  int stdin_fd = 0;
};

}  // namespace floe::format
