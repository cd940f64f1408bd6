/// \file
/// The CDC window of one merge-on-read destination, the top of the change
/// sink's writer stack (files -> rolling -> data / equality-delete writers
/// -> partitioned, table/data_writer.h and table/delete_writer.h -> this
/// window): changes are collapsed per key as they arrive (key_table.h),
/// spilled as sorted runs past the memory budget (spill_sorter.h), and at a
/// commit resolved, key by key, into at most one delete and one row (the
/// collapse rule of change_sink.h), written to data and equality delete
/// files, writer by writer (shards).
///
/// A window's life: Add changes -> Prepare (the files are closed, nothing is
/// published) -> the commit -> Release (committed, or its outcome unknown:
/// the files stay) or Abort (known to have failed: the files are removed).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/sink/key_index.h"
#include "floe/sink/key_table.h"
#include "floe/sink/late_tracker.h"
#include "floe/sink/row_codec.h"
#include "floe/sink/spill_sorter.h"
#include "floe/table/data_writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::sink {

/// A window's files, between Prepare and the commit.
struct WindowFiles {
  std::vector<iceberg::DataFile> data, deletes;
  /// Position delete files (each of one data file, `referenced_data_file`
  /// set) with the spec of the data file they delete from.
  std::vector<std::pair<iceberg::DataFile, int32_t>> position_deletes;
  /// Format version 3: the rows deleted by position, per data file, written
  /// as deletion vectors at the commit (table/deletion_vector_writer.h merges
  /// them with the file's live vector against the head the commit lands on).
  struct VectorDeletes {
    std::string data_file;           ///< its file_path
    std::vector<int64_t> positions;  ///< sorted, distinct
  };
  std::vector<VectorDeletes> vector_deletes;
  /// Format version 3: every key whose change the window applies (its hash,
  /// the sequence number of its newest change, its encoded key), so that a
  /// commit that meets another writer's changes can resolve the window's
  /// deletes again against the reloaded table (ReplanVectorDeletes).
  /// The keys the window applied, for resolving its deletes again after
  /// another writer's commit (ReplanVectorDeletes): their encoded bytes one
  /// after another, where each ends, and, when the key index has sequence
  /// numbers, each one's. (Their hashes are the bytes' XXH3.) 16 bytes a key
  /// beside its bytes: with a hash, a sequence number and a std::string each,
  /// a window of 1,000,000 keys kept 48 MB.
  std::string applied_keys;
  std::vector<uint64_t> applied_ends;
  std::vector<int64_t> applied_seqs;
  size_t applied_count() const { return applied_ends.size(); }
  std::string_view AppliedKey(size_t i) const {
    const uint64_t begin = i == 0 ? 0 : applied_ends[i - 1];
    return std::string_view(applied_keys).substr(begin, applied_ends[i] - begin);
  }
  bool deletion_vectors = false;  ///< resolved for deletion vectors (ChangeFlush::deletion_vectors)
  /// The data files the position deletes refer to (the commit validates that
  /// they are still live).
  std::vector<std::string> referenced;
  /// Keys whose indexed row this window deletes (by position or equality):
  /// forgotten by the key index once the commit lands.
  std::vector<uint64_t> unindexed;
  /// Deletes by position: the hashes of every key the window changed,
  /// sorted (the commit checks that no other writer added rows of them since
  /// the index was read).
  std::vector<uint64_t> keys;
};

/// What resolving a window needs from its destination.
struct ChangeFlush {
  const table::Table* table = nullptr;
  const table::DataWriterOptions* writer_options = nullptr;
  const std::vector<int32_t>* eq_ids = nullptr;
  /// Deletes go to this unpartitioned spec (a key may move between
  /// partitions); unset: the table's default spec, scoped like the rows.
  std::optional<int32_t> delete_spec_id;
  bool upsert = false;  ///< every key gets a delete
  int num_shards = 1;   ///< the shards keys were placed in
  int writers = 1;      ///< the writers the shards are spread over (<= num_shards)
  /// Remembers every resolved key's newest change, committed at `flush_ms`.
  LateTracker* late = nullptr;
  int64_t flush_ms = 0;
  /// Deletes by position (the key index of the table, current): a key live
  /// in a committed data file gets a position delete; null: equality
  /// deletes for every key that may be live (`delete_kind: equality`).
  const KeyIndex* index = nullptr;
  /// write.delete.granularity: one position delete file per data file
  /// (true), or per partition of the data files' spec.
  bool delete_per_file = true;
  /// Format version 3: the positions go to WindowFiles::vector_deletes (the
  /// commit writes them as deletion vectors), not to position delete files.
  bool deletion_vectors = false;
};

/// What a flush wrote (accounting).
struct ChangeFlushStats {
  int64_t rows_written = 0, deletes_written = 0, spilled_runs = 0;
};

class ChangeWindow {
 public:
  /// A window of rows of `table_schema`; the key states hold at most
  /// `state_limit` bytes before they spill (runs of at most `spill_chunk`
  /// bytes) to files under `spill_dir`.
  static Result<std::unique_ptr<ChangeWindow>> Make(SchemaPtr table_schema, size_t state_limit,
                                                    size_t spill_chunk, std::string spill_dir);
  ~ChangeWindow();

  const RowCodec& codec() const { return codec_; }
  /// Records one change of a key (key_table.h); a full table spills first
  /// (counted in `spilled_runs`).
  Status Add(uint64_t hash, uint16_t shard, std::string_view key, const ChangeOrder& order, RowKind kind, bool kept,
             std::string_view row, int64_t position, int64_t* spilled_runs);
  void PrefetchSlot(uint64_t hash) const { states_.PrefetchSlot(hash); }
  void PrefetchState(uint64_t hash) const { states_.PrefetchState(hash); }

  /// Bytes the key states hold in memory, and whether they hold any.
  size_t memory_used() const { return states_.memory_used(); }
  bool empty_in_memory() const { return states_.empty(); }
  /// Spills every key state as sorted runs, freeing their memory.
  Status Spill(int64_t* spilled_runs) { return SpillStates(false, spilled_runs); }

  /// Resolves every key and closes the window's data and delete files;
  /// nothing is published. On error every file is removed.
  Result<WindowFiles> Prepare(const ChangeFlush& flush, ChangeFlushStats* stats);
  /// The commit failed: removes the window's files.
  void Abort();
  /// The commit landed (or may have): the files stay; the window is empty
  /// again.
  void Release();

 private:
  ChangeWindow(SchemaPtr schema, size_t spill_chunk);
  Status SpillStates(bool keep_memory, int64_t* spilled_runs);

  RowCodec codec_;
  KeyTable states_;  ///< this window's keys, collapsed as changes arrive
  std::unique_ptr<SpillSorter> sorter_;
  size_t spill_chunk_;
  int64_t spills_ = 0;  ///< times this window spilled
  std::vector<std::unique_ptr<table::PartitionedWriter>> writers_;
  std::vector<std::unique_ptr<table::EqualityDeleteWriter>> delete_writers_;
  std::vector<std::unique_ptr<table::PositionDeleteWriter>> position_writers_;
  std::vector<int32_t> position_specs_;  ///< of each position writer's data file
};

}  // namespace floe::sink
