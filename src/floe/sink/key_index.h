/// \file
/// The key index of a merge-on-read destination (issue 24, section 2): for
/// each live key of the table, where its row is (data file, row position)
/// and, when the table holds the sink's sequence number column, the
/// sequence number of the key's last applied change. With it an update or
/// delete of a committed key becomes a delete by position (change_window.h),
/// and a change older than the committed row is late in any process.
///
/// Memory: one 24-byte slot per key (64-bit key hash, file ordinal << 40 |
/// position, sequence number) in an open-addressing table sized for a load
/// of 0.8 when the table's row count is known: about 30 bytes per key
/// (measured by bench/key_index.sh). File paths are kept once per file.
///
/// Hash collisions never delete the wrong row: the index holds hashes, not
/// keys, so every position a flush would delete is verified by reading the
/// key at that position from the data file (VerifyKeys) and falls back to an
/// equality delete when the key differs; two live rows of one hash (a
/// collision, or a table that holds a key twice) make the slot ambiguous, and
/// an ambiguous key is always deleted by equality.
///
/// Past RAM: the index is rebuilt from the table on open (projected reads of
/// the key columns), so it can be partitioned by key hash — the sink's shards
/// already split keys by hash — and a partition not in memory rebuilt or
/// read back when its keys arrive. Not implemented yet: the index lives in
/// memory (docs/architecture.md, "The key index").
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/table/table.h"
#include "floe/util/huge_pages.h"
#include "floe/util/status.h"

namespace floe::sink {

class KeyIndex {
 public:
  static constexpr int64_t kNoSeq = std::numeric_limits<int64_t>::min();
  static constexpr int kPosBits = 40;
  static constexpr uint64_t kPosMask = (uint64_t{1} << kPosBits) - 1;
  static constexpr uint64_t kAmbiguous = ~uint64_t{0};

  /// A data file the index points into.
  struct FileRef {
    iceberg::DataFile file;  ///< as its manifest lists it (metrics dropped)
    int32_t spec_id = 0;
    /// The delete files its rows were read with (DeleteFingerprint; 0:
    /// none), and whether it was live then: CatchUpKeyIndex re-reads a
    /// file only when these differ at the new head.
    uint64_t deletes = 0;
    uint64_t equality_deletes = 0;  ///< the same, of its equality deletes only
    bool live = true;
  };
  /// Where a key's row is.
  struct Hit {
    uint32_t file = 0;
    int64_t pos = 0;
    int64_t seq = kNoSeq;  ///< kNoSeq: unknown (the table has no sequence column)
    bool ambiguous = false;  ///< two rows of this hash: delete by equality
  };

  /// The key's row, or nullopt when no live row has its hash.
  std::optional<Hit> Find(uint64_t hash) const;
  /// Records a live row of a key. A second location for a hash already
  /// present makes the slot ambiguous.
  void Put(uint64_t hash, uint32_t file, int64_t pos, int64_t seq);
  /// Prefetches the home slot of a key about to be Put or found.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Home(hash ? hash : 1)]);
  }
  /// Forgets the key (its row was deleted).
  void Remove(uint64_t hash);
  /// Room for `keys` keys without growing (at a load of 0.8).
  void Reserve(size_t keys);

  /// The ordinal of a data file (added when new).
  uint32_t AddFile(const iceberg::DataFile& file, int32_t spec_id);
  void SetFileState(uint32_t ordinal, uint64_t deletes, uint64_t equality_deletes, bool live) {
    files_[ordinal].deletes = deletes;
    files_[ordinal].equality_deletes = equality_deletes;
    files_[ordinal].live = live;
  }
  size_t file_count() const { return files_.size(); }
  /// Forgets every key whose row is in a file not marked in `keep` (by
  /// ordinal; files past its end are not kept) or at a position set in its
  /// file's bitmap in `deleted` (by ordinal; bit p of word p / 64; empty or
  /// missing: none): one pass over the slots. False, and nothing forgotten,
  /// when a slot is ambiguous (its rows' files are not known).
  bool Drop(const std::vector<char>& keep, const std::vector<std::vector<uint64_t>>& deleted);
  const FileRef& file(uint32_t ordinal) const { return files_[ordinal]; }
  std::optional<uint32_t> FindFile(const std::string& path) const {
    auto it = file_ordinals_.find(path);
    if (it == file_ordinals_.end()) return std::nullopt;
    return it->second;
  }

  size_t size() const { return size_; }
  /// Bytes the slots take (capacity * 24) plus the file table.
  size_t memory_bytes() const;
  void Clear();

  /// The snapshot of the destination's branch the index reflects (nullopt:
  /// an empty table, or not built).
  std::optional<int64_t> snapshot_id;
  bool built = false;
  /// Whether the table holds the sequence column (the slots' seq are known).
  bool has_sequence() const { return has_sequence_; }
  void set_has_sequence(bool v) { has_sequence_ = v; }

 private:
  struct Slot {
    uint64_t hash = 0;  ///< 0: empty (a key hash of 0 is stored as 1)
    uint64_t loc = 0;   ///< file << 40 | pos, or kAmbiguous
    int64_t seq = kNoSeq;
  };
  size_t Home(uint64_t hash) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * slots_.size()) >> 64);
  }
  size_t Next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
  void Grow(size_t capacity);

  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  size_t size_ = 0;
  bool has_sequence_ = false;
  std::vector<FileRef> files_;
  std::unordered_map<std::string, uint32_t> file_ordinals_;
};

/// Builds `index` from the live rows of `table` (branch `branch`, or main):
/// projected reads of the key columns `eq_ids` (and of the column
/// `seq_column`, when the table has it at the top level) of every live data
/// file, the table's deletes applied.
Status BuildKeyIndex(const table::Table& table, const std::string& branch, const std::vector<int32_t>& eq_ids,
                     const std::string& seq_column, KeyIndex* index);

/// Brings `index` (built from the same table at an earlier snapshot, kept
/// current by the sink's own commits) to the head of `branch` as the table
/// is loaded now, reading only what changed: the key columns of the data
/// files that are new or whose delete files differ (another writer's
/// deletes, a compaction's rewritten files); the keys of files no longer
/// live or re-read are forgotten first. The result is what BuildKeyIndex
/// would build. False when it cannot (an ambiguous slot, the sequence
/// column appeared): the caller builds the index anew.
Result<bool> CatchUpKeyIndex(const table::Table& table, const std::string& branch, const std::vector<int32_t>& eq_ids,
                             const std::string& seq_column, KeyIndex* index);

/// Adds the rows of data files just committed (no deletes apply to them yet).
Status IndexDataFiles(const table::Table& table, const std::vector<iceberg::DataFile>& files, int32_t spec_id,
                      const std::vector<int32_t>& eq_ids, const std::string& seq_column, KeyIndex* index);

/// The encoded keys (sink/change_rows.h KeyEncoder) of every row of a data
/// file, in position order (an empty string for a null key).
Result<std::vector<std::string>> ReadFileKeys(const table::Table& table, const iceberg::DataFile& file,
                                              int32_t spec_id, const std::vector<int32_t>& eq_ids);

/// Row `pos` of a data file: the top-level columns `cols` of the table's
/// current schema, as a one-row batch (no deletes applied: the caller knows
/// the row is live, from the index). kNotFound when the file has no such row.
Result<Batch> ReadFileRow(const table::Table& table, const iceberg::DataFile& file, int32_t spec_id,
                          const std::vector<std::string>& cols, int64_t pos);

}  // namespace floe::sink
