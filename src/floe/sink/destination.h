/// \file
/// One destination table of the change sink (change_sink.h) and the table
/// cache: what the sink keeps per destination, grouped by concern — the
/// table and its write settings, the key (merge-on-read), the open window
/// (append_window.h or change_window.h), lateness (late_tracker.h), where
/// the exactly-once token stands, and the accounting. Internal to the sink
/// module.
#pragma once

#include <functional>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/sink/append_window.h"
#include "floe/sink/change_rows.h"
#include "floe/sink/change_sink.h"
#include "floe/sink/change_window.h"
#include "floe/sink/key_index.h"
#include "floe/sink/late_tracker.h"
#include "floe/sink/projection.h"
#include "floe/sink/sink_options.h"
#include "floe/sink/write_config.h"
#include "floe/table/data_writer.h"
#include "floe/table/deletion_vector_writer.h"
#include "floe/table/partition_key.h"
#include "floe/table/table.h"

namespace floe::sink {

/// The table a destination writes, as the table cache holds it.
struct DestinationTable {
  std::unique_ptr<table::Table> table;  ///< null while the cache has it unloaded
  /// Set while this sink created the table and has not committed to it.
  std::optional<catalog::LoadedTable> created;
  int32_t schema_id = 0, spec_id = 0;  ///< the layout the sink writes
  int64_t loaded_ms = 0;               ///< when it was last loaded
  int64_t loaded_window = -1;          ///< the window it was last loaded for
  int64_t last_used = 0;               ///< use counter, for the cache's LRU
};

/// The key of a merge-on-read destination and where its deletes go.
struct DestinationKey {
  std::vector<int32_t> eq_ids;
  std::optional<KeyEncoder> encoder;
  /// Deletes are scoped to the key's partition (every partition source is a
  /// key column); otherwise they go to `global_spec_id`, unpartitioned.
  bool partition_scoped = true;
  std::optional<int32_t> global_spec_id;
  /// The key columns in the rows as they arrive (the stripped input schema).
  std::vector<std::vector<int>> input_paths;
  std::vector<std::string> input_names;
};

/// Where this sink's token stands in the destination.
struct DestinationToken {
  int64_t commit_number = 0;
  int64_t committed_position = 0;  ///< input at or before it is in the table
  int64_t last_commit_ms = 0;
  /// Set by a source whose positions are ordinals of one run only (Kafka:
  /// per topic-partition offsets; ChangeSinkOptions::resume_destination):
  /// whether the row at a position is one this destination already holds.
  /// Replaces the comparison with committed_position.
  std::function<bool(int64_t position)> held;
  bool Holds(int64_t position) const { return held ? held(position) : position <= committed_position; }
};

class Destination {
 public:
  std::string name;
  DestinationTable table;
  std::optional<Projector> projector;
  table::DataWriterOptions writer_options;
  std::string branch;
  bool upsert = false;
  DestinationKey key;  ///< merge-on-read
  std::optional<table::PartitionKeyer> keyer;  ///< shards_per_partition < num_shards
  /// The open window: the CDC window (merge-on-read, for the sink's life) or
  /// an append window (append; null while none is open).
  std::unique_ptr<ChangeWindow> changes;
  std::unique_ptr<AppendWindow> append;
  /// The window's files between the two phases of a commit.
  std::optional<WindowFiles> prepared;
  LateTracker late;
  /// The key index (deletes by position, key_index.h); unused (not built)
  /// for delete_kind equality.
  KeyIndex index;
  /// Data files this sink committed whose rows the index has not read yet
  /// (read before the next window resolves: a sink's last commit costs no
  /// read-back).
  std::vector<iceberg::DataFile> index_pending;
  bool position_deletes = false;
  /// The deletion vectors of the window being committed (format version 3):
  /// written at the commit, removed by AbortWindow.
  std::unique_ptr<table::DeletionVectorWriter> vectors;
  bool delete_per_file = true;  ///< write.delete.granularity: file (else partition)
  std::string seq_column;  ///< read into the index when the table holds it
  DestinationToken token;
  DestinationStats stats;
  int64_t pending = 0;       ///< rows buffered this window
  int64_t arrival = 0;       ///< changes seen (the order of equal sequence numbers)
  int64_t window_bytes = 0;  ///< bytes buffered this window (autosharding, direct_write_byte_limit)
  /// Per-batch scratch of the CDC window's AddChanges, kept across batches:
  /// the rows encoded, their ends, the keys (freeing ~MBs a batch made the
  /// allocator give pages back and fault them in again).
  std::string scratch_key, scratch_rows;
  std::vector<uint64_t> scratch_ends;

  table::Table* t() const { return table.table.get(); }
  /// Nothing buffered and no window open: the cache may unload or reload it.
  bool idle() const { return pending == 0 && !append; }
  /// Removes the window's files (open or prepared).
  void AbortWindow();
  /// Forgets the window, keeping its files (committed, or maybe).
  void ReleaseWindow();
};

/// What opening a destination needs from the sink.
struct DestinationContext {
  const WriteConfig* config = nullptr;
  const SinkOptions* options = nullptr;
  const ChangeSinkOptions* sink_options = nullptr;
  catalog::Catalog* catalog = nullptr;
  SchemaPtr row_schema;  ///< the rows as they reach the destination (control columns stripped)
};

/// Makes `d`'s key index reflect its table as loaded (rebuilt when the
/// branch head is not the snapshot the index was built or kept at).
Status RefreshKeyIndex(Destination* d);

/// Format version 3, after a commit of `files` met another writer's
/// changes (a deletion vector for one of its data files, a data file
/// removed, rows of its keys added): rebuilds `d`'s key index from the table
/// as reloaded and resolves the window's deletes again from its applied keys
/// (`files->vector_deletes`, `referenced`, `unindexed`). kCommitFailed when
/// the window cannot be committed as resolved: another writer committed a
/// change of one of its keys at or above its sequence number (the sequence
/// column kept), or left a key's hash ambiguous.
Status ReplanVectorDeletes(Destination* d, WindowFiles* files);

/// Opens (creating when missing) the destination `name`: the table, its
/// projection and write settings, the key, the window and, with a sink_id,
/// where an earlier run left off (a refused input sets `*fatal`: the sink
/// stops, whatever the destination).
Result<std::unique_ptr<Destination>> OpenDestination(const std::string& name, const DestinationContext& ctx,
                                                     bool* fatal);

/// The destination table cache (Beam's side-input table cache): keeps,
/// refreshes or unloads the destinations' tables between windows.
class TableCache {
 public:
  /// `write_properties`: this write's options, which override the tables'
  /// own for its commits (commit.retry.*; table::Table::SetOptionOverrides).
  TableCache(catalog::Catalog* catalog, const SinkOptions* options,
             const std::map<std::string, std::string>* write_properties)
      : catalog_(catalog), options_(options), write_properties_(write_properties) {}

  /// Loads `d`'s table, or refreshes it; refuses a table whose schema or
  /// spec changed while the sink writes it. `window` is the sink's window count.
  Status Load(Destination* d, int64_t window);
  /// Before `d`'s rows are buffered: loads, refreshes or keeps its table,
  /// and unloads the least recently used idle tables of `all` past the
  /// cache size.
  Status Ensure(Destination* d, const std::map<std::string, std::unique_ptr<Destination>>& all, int64_t window);
  /// Marks a new destination used (its table was loaded as it opened).
  void Opened(Destination* d, int64_t window);

 private:
  catalog::Catalog* catalog_;
  const SinkOptions* options_;
  const std::map<std::string, std::string>* write_properties_;
  int64_t use_counter_ = 0;
};

}  // namespace floe::sink
