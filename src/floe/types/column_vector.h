/// \file
/// Columnar batches: what flows between every stage of floe (decoders,
/// projection, routing, the CDC sorter, the Parquet writer and reader, sinks).
///
/// Physical layout of a ColumnVector by type (n = length):
///   boolean                      values: n x uint8_t (0 or 1)
///   int, date                    values: n x int32_t
///   long, time, timestamp*       values: n x int64_t
///   float / double               values: n x float / double
///   decimal                      values: n x int128_t (unscaled)
///   string, binary               offsets: n+1 x int64_t; data: bytes
///   uuid (16), fixed[L]          data: n x L bytes (big-endian uuid)
///   struct                       children: one per field, each of length n
///   list                         offsets: n+1 x int64_t; children[0]: elements
///   map                          offsets: n+1 x int64_t; children[0]: keys, [1]: values
/// `validity` is empty when no value is null; otherwise n bytes, 1 = present.
/// A null slot's value bytes are unspecified but present (fixed width) or
/// empty (offsets equal), so loops never branch on validity to find data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/types/type.h"
#include "floe/util/buffer.h"

namespace floe {

/// Change kind of a row in a change stream (Flink's RowKind).
enum class RowKind : uint8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };

/// Byte width of one value in `values` for fixed-width types, or 0.
int FixedValueWidth(const Type& type);

/// One column of one batch. See the file comment for the layout.
struct ColumnVector {
  TypePtr type;
  int64_t length = 0;
  std::vector<uint8_t> validity;  ///< empty = all valid
  Buffer values;                  ///< fixed-width values, or bytes of string/binary/uuid/fixed
  std::vector<int64_t> offsets;   ///< string, binary, list, map: length + 1 entries
  std::vector<ColumnVector> children;

  ColumnVector() = default;
  /// An empty column of this type, children included, ready for appends.
  explicit ColumnVector(TypePtr t);

  bool has_nulls() const { return !validity.empty(); }
  bool IsNull(int64_t i) const { return !validity.empty() && validity[i] == 0; }
  int64_t null_count() const;

  template <typename T>
  const T* data() const { return values.as<T>(); }
  template <typename T>
  T* mutable_data() { return values.as<T>(); }

  /// The bytes of row i of a string/binary/uuid/fixed column.
  std::string_view bytes(int64_t i) const;

  /// Marks row i null/valid, materializing `validity` on the first null.
  void SetValid(int64_t i, bool valid);

  /// Appends a null slot (any type, nested included: children get no rows,
  /// except struct children which get a null slot each).
  void AppendNull();
  /// Appends a fixed-width value.
  template <typename T>
  void Append(const T& v) {
    values.Push(v);
    if (!validity.empty()) validity.push_back(1);
    ++length;
  }
  /// Appends a string/binary value, or the bytes of a uuid/fixed value.
  void AppendBytes(std::string_view v);
  /// For list and map: closes the current row after its children were appended.
  void CloseListRow();
  /// For struct: counts a new present row (children appended separately).
  void AppendStructRow();

  /// Empties the column, keeping its type and capacity.
  void Clear();
  /// Checks the layout invariants (sizes of buffers, offsets monotonic,
  /// child lengths). Used by tests and at module boundaries.
  Status Validate() const;
};

/// A batch of rows: a schema, one column per top-level field and a length.
/// For change streams, also a row kind and a sequence number per row.
struct Batch {
  SchemaPtr schema;
  std::vector<ColumnVector> columns;
  int64_t num_rows = 0;
  std::vector<RowKind> row_kinds;          ///< empty = all inserts
  std::vector<int64_t> sequence_numbers;   ///< empty = none
  /// Where each row came from in its input (the 1-based line of a JSONL or
  /// Debezium input, the record number of a CSV input); empty = not tracked.
  /// Several rows may share a position (a Debezium update gives two).
  std::vector<int64_t> positions;

  Batch() = default;
  /// An empty batch with one empty column per field of `schema`.
  explicit Batch(SchemaPtr s);

  void Clear();
  Status Validate() const;
};

}  // namespace floe
