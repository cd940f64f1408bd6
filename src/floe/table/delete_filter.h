/// \file
/// Row-level deletes applied while reading a data file (Iceberg spec: Scan
/// Planning, Position Delete Files, Equality Delete Files). Which delete
/// files apply to which data file (sequence numbers, partitions) is decided
/// by the planner; this file owns the row matching: positions of the data
/// file, and null-safe equality on the `equality_ids` columns only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::table {

/// The child indices that lead from a batch's top-level columns to the field
/// `field_id` through structs; kNotFound when the id is absent, kInvalidArgument
/// when it sits inside a list or map (not addressable by equality deletes).
Result<std::vector<int>> FieldPath(const Schema& schema, int32_t field_id);

/// Deleted row positions of one data file.
class PositionDeletes {
 public:
  void Add(int64_t position) { positions_.push_back(position); sorted_ = false; }
  void AddAll(std::span<const int64_t> positions);
  size_t size() const { return positions_.size(); }
  bool empty() const { return positions_.empty(); }
  /// Clears `keep[i]` for every row i of a batch whose file position
  /// (first_row + i) is deleted.
  void Apply(int64_t first_row, std::span<uint8_t> keep);

 private:
  void Sort();
  std::vector<int64_t> positions_;
  bool sorted_ = true;
};

/// The key tuples of one or more equality delete files sharing the same
/// equality field ids. Keys compare null-safely (null equals null).
class EqualityDeletes {
 public:
  /// `field_ids`: the delete files' equality_ids; `schema`: the schema that
  /// batches passed to AddDeletes and Apply are read with (the table schema).
  static Result<EqualityDeletes> Make(std::vector<int32_t> field_ids, const Schema& schema);

  const std::vector<int32_t>& field_ids() const { return field_ids_; }
  size_t size() const { return keys_.size(); }

  /// Adds every row of a batch read from an equality delete file.
  Status AddDeletes(const Batch& deletes);
  /// Clears `keep[i]` for every data row whose key is deleted.
  Status Apply(const Batch& data, std::span<uint8_t> keep) const;
  /// The key of every row of `batch` as the byte string the deletes compare
  /// (null-safe), e.g. to pair a changelog's removed and added rows.
  Status Keys(const Batch& batch, std::vector<std::string>* keys) const {
    return EncodeKeys(batch, keys);
  }

 private:
  Status EncodeKeys(const Batch& batch, std::vector<std::string>* keys) const;

  std::vector<int32_t> field_ids_;
  std::vector<std::vector<int>> paths_;
  std::unordered_set<std::string> keys_;
};

}  // namespace floe::table
