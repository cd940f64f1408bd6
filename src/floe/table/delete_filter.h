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
#include <string_view>
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

/// The keys of many equality delete files that share equality ids, built once
/// per scan and shared by every data file they apply to: each key maps to the
/// files that hold it, by an ordinal given when the file is added. A data file
/// is then checked with one hash probe per row against the set of files that
/// apply to it (a mask by ordinal), however many delete files there are,
/// instead of a hash set rebuilt per data file from every applicable file.
/// Not thread-safe: Add must not run while Apply does (the reader's delete
/// cache holds a shared lock to Apply, an exclusive one to Add).
class EqualityDeleteIndex {
 public:
  /// As EqualityDeletes::Make.
  static Result<EqualityDeleteIndex> Make(std::vector<int32_t> field_ids, const Schema& schema);

  const std::vector<int32_t>& field_ids() const { return encoder_.field_ids(); }
  /// Distinct keys held.
  size_t size() const { return used_; }
  /// Files added.
  uint32_t files() const { return files_; }

  /// Adds the rows of the next delete file; returns its ordinal (0, 1, ...).
  /// `batches` are read with the schema the index was made with.
  Result<uint32_t> Add(const std::vector<Batch>& batches);
  /// Clears `keep[i]` for every data row whose key one of the files in
  /// `applies` holds (`applies[ordinal] != 0`; ordinals past its end do not
  /// apply). Rows already cleared are not looked up.
  Status Apply(const Batch& data, std::span<const uint8_t> applies, std::span<uint8_t> keep) const;

 private:
  // An open-addressing table (linear probing, at most 1/2 full) of the keys'
  // 64-bit hashes; the key bytes live in one arena. One cache line per probe
  // of a key that is not there, instead of a node chain per bucket.
  struct Slot {
    uint64_t hash = 0;
    uint64_t key_offset = 0;   ///< into arena_
    uint32_t key_length = 0;
    uint32_t first = kEmpty;   ///< the first file holding the key; kEmpty: a free slot
    uint32_t more = kEmpty;    ///< index into more_, or none
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  /// The slot holding `key`, or the free slot where it would go.
  size_t FindSlot(std::string_view key, uint64_t hash) const;
  void Grow();

  EqualityDeletes encoder_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::string arena_;
  std::vector<std::vector<uint32_t>> more_;  ///< further files of a key, ascending
  uint32_t files_ = 0;
};

}  // namespace floe::table
