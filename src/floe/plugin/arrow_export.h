/// \file
/// floe batches as Arrow C Data Interface arrays
/// (https://arrow.apache.org/docs/format/CDataInterface.html), for a sink
/// plugin's write_batch. A batch becomes a struct array ("+s"), one child per
/// column; each field's schema carries its Iceberg field id as metadata
/// `PARQUET:field_id` and ARROW_FLAG_NULLABLE when the field is optional.
///
/// Type mapping (floe ColumnVector layout -> Arrow format; "zero-copy": the
/// Arrow buffer points into the column):
///   boolean          b        converted (bytes -> bits)
///   int / long       i / l    zero-copy
///   float / double   f / g    zero-copy
///   decimal(P,S)     d:P,S    zero-copy (128-bit little-endian two's complement)
///   date             tdD      zero-copy (int32 days)
///   time             ttu      zero-copy (int64 µs)
///   timestamp        tsu:     zero-copy; timestamptz tsu:UTC
///   timestamp_ns     tsn:     zero-copy; timestamptz_ns tsn:UTC
///   string           U        zero-copy (large utf8: int64 offsets)
///   binary           Z        zero-copy (large binary)
///   uuid             w:16     zero-copy, metadata ARROW:extension:name=arrow.uuid
///   fixed[L]         w:L      zero-copy
///   struct           +s       children zero-copy as above
///   list             +L       zero-copy offsets (large list), child "element"
///   map              +m       offsets converted to int32 (Arrow maps have no
///                             large variant), child "entries" (+s, not
///                             nullable) with children "key" and "value"
/// Validity: floe keeps a byte per row, Arrow a bit: converted whenever a
/// column has nulls; no bitmap (NULL) when it has none. Offsets start at 0
/// and `offset` is 0 everywhere.
#pragma once

#include <floe/plugin.h>

#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::plugin {

/// Exports `schema` as an Arrow struct schema. The caller releases it
/// (out->release(out)).
Status ExportSchema(const Schema& schema, ArrowSchema* out);

/// Exports `batch` as an Arrow struct array of batch.num_rows rows. The
/// array borrows the batch's buffers: `batch` must outlive it and stay
/// unchanged. The caller releases it (out->release(out)).
Status ExportBatch(const Batch& batch, ArrowArray* out);

/// Releases the schema / array if not released yet (for owners on the stack).
struct ExportedSchema {
  ArrowSchema schema{};
  ~ExportedSchema() {
    if (schema.release) schema.release(&schema);
  }
};
struct ExportedArray {
  ArrowArray array{};
  ~ExportedArray() {
    if (array.release) array.release(&array);
  }
};

}  // namespace floe::plugin
