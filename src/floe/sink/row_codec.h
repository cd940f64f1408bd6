/// \file
/// RowCodec: rows of a columnar Batch to a compact, self-delimiting byte form
/// and back. The CDC sink keeps each buffered change as one such row in its
/// SpillSorter (spill_sorter.h), so rows must be cheap to encode a batch at a
/// time and cheap to decode one at a time into the batches it writes.
///
/// The form (little-endian; a "bitmap" has one bit per value, LSB first,
/// 1 = present, ceil(n/8) bytes):
///   row     = bitmap(top-level fields) value(field)...   (present fields only)
///   value   = boolean: 1 byte (0 or 1)
///             int, date, float: 4 bytes; long, time, timestamps, double: 8 bytes
///             decimal: 16 bytes (the unscaled int128)
///             uuid: 16 bytes; fixed[L]: L bytes
///             string, binary: varint length, bytes
///             struct: bitmap(fields) value(field)...   (present fields only)
///             list: varint n, bitmap(n elements), value(element)...   (present only)
///             map: varint n, bitmap(n keys), bitmap(n values), then per entry
///                  its key and its value (each when present)
/// Every field carries a presence bit whether the schema calls it required or
/// not: a null that slipped into a required column comes back a null, never a
/// made-up value (the writer downstream rejects it by name).
/// Row kinds, sequence numbers and input positions are not encoded: the sink
/// keeps them in its sort key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::sink {

/// Encodes rows of batches of one schema (every Iceberg type, nested
/// struct/list/map included, nulls anywhere) into the form above, and decodes
/// them back by appending to a Batch.
class RowCodec {
 public:
  explicit RowCodec(SchemaPtr schema);

  const SchemaPtr& schema() const { return schema_; }

  /// Appends the encoding of row `row` of `batch` (of this schema) to `out`.
  void Encode(const Batch& batch, int64_t row, std::string* out) const;

  /// Encodes rows [0, batch.num_rows) at once, appending each row's bytes to
  /// `arena` and its end offset (in `arena`) to `ends`. Sizes every row
  /// first, then writes column by column into the rows' slots, so the loop
  /// over a primitive column dispatches on its type once.
  void EncodeAll(const Batch& batch, std::string* arena, std::vector<uint64_t>* ends) const;

  /// Decodes one row at the start of `data`, appending it to `batch` (columns
  /// of this schema; num_rows incremented; row kinds, sequence numbers and
  /// positions left to the caller). Returns the bytes consumed. Damaged or
  /// truncated bytes are kCorrupt naming the column and byte offset, and
  /// leave `batch` as it was.
  Result<size_t> Decode(std::string_view data, Batch* batch) const;

 private:
  SchemaPtr schema_;
  size_t top_bitmap_bytes_ = 0;
};

}  // namespace floe::sink
