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
  /// The same keys, row after row in `bytes`; row i's key ends at ends[i]
  /// (and starts at ends[i - 1], or 0). No allocation per row.
  Status FlatKeys(const Batch& batch, std::string* bytes, std::vector<size_t>* ends) const;

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
  size_t size() const { return entries_.size(); }
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
  // The keys, in the order added: hash, files, bytes (inline up to kInline,
  // a long key takes 9, else in arena_).
  struct Entry {
    uint64_t hash = 0;
    uint32_t key_length = 0;
    uint32_t first = 0;        ///< the first file holding the key
    uint32_t more = kNone;     ///< index into more_, or none
    union {
      char inline_key[16];
      uint64_t key_offset;
    };
    Entry() : inline_key{} {}
  };
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kInline = 16;
  // An open-addressing table (linear probing, at most half full) of 8-byte
  // slots: the high 32 bits of a key's hash and its entry number + 1 (0: a
  // free slot). A probe of a key that is not there (most data rows) touches
  // these slots only; Apply prefetches them a few rows ahead.
  size_t FindSlot(std::string_view key, uint64_t hash) const;
  bool Matches(const Entry& e, std::string_view key) const;
  void Grow();

  EqualityDeletes encoder_;
  std::vector<uint64_t> slots_;
  std::vector<Entry> entries_;
  std::string arena_;
  std::vector<std::vector<uint32_t>> more_;  ///< further files of a key, ascending
  uint32_t files_ = 0;
};

}  // namespace floe::table
