/// \file
/// Options shared by the row decoders (JSONL, CSV).
#pragma once

#include <cstddef>
#include <cstdint>

namespace floe::format {

/// Options of the row decoders (JSONL and CSV).
struct DecodeOptions {
  /// Rows per batch.
  int64_t batch_rows = 65536;
  /// JSONL: skip object keys that name no column (default: an error).
  /// CSV: skip header columns that name no schema column.
  bool ignore_unknown_keys = false;
  /// Bytes read from the input at a time.
  size_t chunk_bytes = size_t{4} << 20;
  /// CSV: the field separator.
  char csv_delimiter = ',';
  /// CSV: the first record names the columns (otherwise fields map to the
  /// schema's columns by position).
  bool csv_header = true;
};

}  // namespace floe::format
