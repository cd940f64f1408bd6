/// \file
/// The per-row pieces of the change sink: reading the control columns of
/// plain change rows (the change type and the sequence number, which may sit
/// in a struct: `meta.seq`) and stripping them before the rows are written,
/// and the key encoding that groups a key's changes (equality columns as
/// bytes, prefix-free, so that bytewise order keeps each key's changes
/// together and orders them by sequence number after the key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/sink/sink_options.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

/// The path of child indices from a batch's top-level columns to a field
/// named by a dotted path (`meta.seq`) through structs; kNotFound otherwise.
Result<std::vector<int>> NamePath(const Schema& schema, std::string_view dotted);

/// The column at `path` in `batch` (through struct children).
const ColumnVector& ColumnAt(const Batch& batch, const std::vector<int>& path);
/// Whether the value at `path` of row `row` is null (a null struct on the way counts).
bool IsNullAt(const Batch& batch, const std::vector<int>& path, int64_t row);

/// Reads and strips the control columns of plain change rows.
class ControlColumns {
 public:
  /// `input`: the input schema. `keep`: names kept by Beam's `keep` (a kept
  /// control column is read and also written).
  static Result<ControlColumns> Make(SchemaPtr input, const SinkOptions& options,
                                     const std::vector<std::string>& keep);

  /// The input schema without the stripped control columns.
  const SchemaPtr& stripped_schema() const { return stripped_; }
  bool has_sequence() const { return !seq_path_.empty(); }
  bool has_change_type() const { return !type_path_.empty(); }

  /// Row kind and sequence number of row `row`, or the reason it is invalid.
  struct RowControl {
    RowKind kind = RowKind::kInsert;
    int64_t seq = 0;
  };
  Result<RowControl> Read(const Batch& batch, int64_t row, const SinkOptions& options) const;
  /// Read for every row of `batch` at once (kinds and seqs sized to its rows;
  /// rows without a change type or sequence column keep what they hold). The
  /// rows Read refuses are appended to *invalid, in order: Read says why.
  void ReadAll(const Batch& batch, std::vector<RowKind>* kinds, std::vector<int64_t>* seqs,
               std::vector<int64_t>* invalid) const;

  /// `batch` without the stripped columns (moved out of it).
  Batch Strip(Batch&& batch) const;

 private:
  SchemaPtr input_;
  SchemaPtr stripped_;
  std::vector<int> seq_path_;
  std::vector<int> type_path_;
  /// options.change_types as a flat list: Read looks each row's value up here
  /// (a map's find was 9 % of a merge-on-read write's instructions).
  std::vector<std::pair<std::string, RowKind>> kinds_;
  /// The entry of kinds_ spelled `value`, or -1.
  ptrdiff_t KindIndex(std::string_view value) const;
  bool strip_seq_ = false, strip_type_ = false;
  std::string seq_name_, type_name_;
};

/// Encodes the equality columns of rows as bytes: fixed-width values as
/// their bytes, strings and binaries with a 4-byte length first.
class KeyEncoder {
 public:
  /// `field_ids` name primitive, non-float columns of `schema` (through structs).
  static Result<KeyEncoder> Make(const Schema& schema, const std::vector<int32_t>& field_ids);
  /// Appends row `row`'s key to `out`; false (nothing appended) when a key
  /// column is null, with the column's name in `*null_column`.
  bool Encode(const Batch& batch, int64_t row, std::string* out, std::string* null_column) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::vector<int>> paths_;
  std::vector<int> widths_;  ///< 0: length-prefixed bytes
  std::vector<std::string> names_;
};

}  // namespace floe::sink
