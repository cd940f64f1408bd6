/// \file
/// The change sink: Beam's Iceberg write (append and merge-on-read) as one
/// library object, for `floe write` and the other front ends. Rows arrive in
/// batches; the sink classifies them (change type, sequence number), routes
/// them to their destination table (a fixed name or a template such as
/// `db.events_{region}`, each destination created on first use), strips the
/// control columns and applies keep / drop / only, and buffers them until
/// Commit, which publishes one snapshot per destination.
///
/// Merge-on-read. Each destination's changes are buffered sorted by (shard,
/// key, sequence number, arrival) within `sorter_memory_mb` (shared by all
/// destinations; past it the largest buffer spills a sorted run to disk).
/// At Commit each key's changes are collapsed, in sequence order (equal
/// sequence numbers keep their arrival order):
///   - the key's row is the last change's image when that change is an
///     INSERT or UPDATE_AFTER, and there is none after a DELETE or a lone
///     UPDATE_BEFORE;
///   - a key live in the table gets a delete: with `delete_kind: position`
///     (the default; format version 2) a position delete of its row, which
///     the key index (key_index.h) finds, and none for a key the table does
///     not hold; with `delete_kind: equality` an equality delete unless the
///     key is new to the sink: its first change in the window is an INSERT,
///     and the key was neither in the table when the sink opened the
///     destination (it reads the table's key columns then) nor applied by the
///     sink since (the late tracker knows both; with `upsert` every key gets
///     one). So at most one delete and one row per key, and a key never has
///     two rows whatever the arrival order; with `upsert` UPDATE_BEFORE rows
///     are dropped (counted as applied).
/// The data files and delete files of a window go into one row-delta
/// snapshot, so the deletes (same data sequence number) never remove the
/// rows written with them and remove every older row of the key. When every
/// partition source column is a key column, deletes are scoped to the key's
/// partition; otherwise they are global (an unpartitioned spec), so an update
/// that moves a key to another partition still removes its old row.
///
/// Late changes. A change whose sequence number is at or below the last
/// committed sequence number of its key is late: applying it would reorder
/// history. Its lateness is the time since that newer change was committed;
/// up to `allowed_lateness_seconds` it goes to the dead-letter output, beyond
/// it is dropped and counted. (Keys are remembered by a 64-bit hash of their
/// bytes: about 24 bytes per key committed by this process. With deletes by
/// position and the sequence column kept in the table, the key index also
/// holds each live row's sequence number, whoever committed it.)
///
/// Exactly-once (sink_token.h). With a `sink_id`, each destination commit
/// carries the id, a commit number and the input position the window ends
/// at. A destination opened by a relaunch finds its newest token and skips
/// input at or before that position. A commit whose outcome is unknown is
/// settled by looking for its token; files are removed only when a commit is
/// known to have failed.
///
/// Invalid rows (missing or null sequence number, unknown change type, null
/// key, unresolvable destination, a value that does not fit its column) go
/// to the error output (`error_handling`), or fail the job before anything of
/// their window is committed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/sink/sink_options.h"
#include "floe/sink/write_config.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

/// What a front end adds to the WriteConfig.
struct ChangeSinkOptions {
  /// Commit to this branch (created from main's head when missing).
  std::string branch;
  std::string missing_table_hint = "give an input schema to create it";
  /// Batches carry row kinds and sequence numbers themselves (a Debezium
  /// input); the input has no control columns.
  bool changes_in_batch = false;
  /// Folder of spill files (default $TMPDIR, else /tmp).
  std::string spill_dir;
  /// Summary properties added to every commit (e.g. `floe.input`).
  std::map<std::string, std::string> summary;
  /// With a sink_id: a destination whose table holds a token of this sink
  /// hands the token's stored source position (`floe.source-position`;
  /// empty in a token written before floe stored one), its `floe.input` and
  /// its position here; an error stops the sink before anything is written
  /// (source.h, Source::Resume). Unset: the input is not checked.
  std::function<Status(std::string_view stored, std::string_view stored_input, int64_t position)> resume;
  /// With a sink_id: the source position (JSON) a commit covering the input
  /// up to `position` stores as `floe.source-position` (source.h,
  /// Source::Describe). Unset: none is stored.
  std::function<Result<std::string>(int64_t position)> describe_position;
  /// Per destination, instead of `resume` / `describe_position` when set (a
  /// source whose positions are ordinals of one run, not of the input:
  /// Source::ResumeDestination / DescribeDestination). resume_destination
  /// returns the filter of the rows the destination `table` already holds
  /// (null: the rows at or before `position`, as with `resume`).
  std::function<Result<std::function<bool(int64_t)>>(std::string_view table, std::string_view stored,
                                                     std::string_view stored_input, int64_t position)>
      resume_destination;
  std::function<Result<std::string>(std::string_view table, int64_t position)> describe_destination;
  /// Several processes share the sink_id, each with its own part of the
  /// input (Kafka partitions of a consumer group): instead of
  /// describe_destination, every commit attempt stores
  /// `describe_shared(table, position, the source position of the newest
  /// token in the table as the attempt read it)` — this process's part merged
  /// into the others', or an error when another process committed this
  /// process's part meanwhile — and takes the commit number after that
  /// token's (window_commit.h, WindowToken::shared).
  std::function<Result<std::string>(std::string_view table, int64_t position, std::string_view newest_stored)>
      describe_shared;
};

/// Accounting of one destination: read = applied + errors + dead_letter +
/// dropped + skipped (skipped: committed by an earlier run of the sink).
struct DestinationStats {
  std::string table;
  int64_t read = 0, applied = 0, errors = 0, dead_letter = 0, dropped = 0, skipped = 0;
  int64_t commits = 0, data_files = 0, delete_files = 0, rows_written = 0, deletes_written = 0;
  int64_t spilled_runs = 0;   ///< sorted runs spilled to disk (sorter_memory_mb exceeded)
  int64_t table_loads = 0;    ///< times the table was loaded from the catalog (the table cache)
  int64_t commit_number = 0;  ///< the last commit number (with sink_id)
  std::optional<int64_t> snapshot_id;  ///< the last snapshot committed
  /// The key index (delete_kind position): keys, bytes in memory, and the
  /// milliseconds its last full build took (reading the table's keys).
  int64_t index_keys = 0, index_bytes = 0, index_build_ms = 0;
  /// Full builds of the key index (on open, and when it could not catch up)
  /// and catch-ups after other writers' commits (only the files that changed
  /// read: CatchUpKeyIndex), with the milliseconds the last one took.
  int64_t index_builds = 0, index_catch_ups = 0, index_catch_up_ms = 0;
  /// Format version 3: times a window's deletion vectors were written again
  /// because another writer's vector for one of its data files landed first.
  int64_t vector_replans = 0;
};

/// Accounting of the sink: read = applied + errors + dead_letter + dropped +
/// skipped, summed over destinations plus `unrouted_errors` (rows that never
/// reached a destination: undecodable, no change type, no destination).
struct SinkStats {
  int64_t read = 0, applied = 0, errors = 0, dead_letter = 0, dropped = 0, skipped = 0;
  int64_t unrouted_errors = 0;
  int64_t commits = 0;  ///< windows committed (triggers with nothing to commit not counted)
  std::vector<DestinationStats> destinations;
};

class ChangeSink {
 public:
  /// Opens the sink. `input_schema` types the rows of Write; null means the
  /// table's schema (plus the control columns: change type STRING, sequence
  /// number BIGINT) and needs a fixed, existing table.
  static Result<std::unique_ptr<ChangeSink>> Open(const WriteConfig& config, catalog::Catalog* catalog,
                                                  SchemaPtr input_schema, ChangeSinkOptions options = {});
  ~ChangeSink();
  ChangeSink(const ChangeSink&) = delete;
  ChangeSink& operator=(const ChangeSink&) = delete;

  const SchemaPtr& input_schema() const;
  const SinkOptions& options() const;

  /// Buffers a batch of the input schema. Rows without `positions` are
  /// numbered on from the last position seen. An invalid row goes to the
  /// error output, or fails the sink (nothing of the window is committed).
  Status Write(Batch&& batch);
  /// Buffers INSERT rows whose keys the caller vouches are new to the
  /// destination and distinct (a snapshot of a keyed source into a table
  /// that holds none of its keys): written straight to data files, as in
  /// mode append (no per-key state, no sort, no delete), and published by
  /// the next Commit with the window's token. Merge-on-read, one fixed
  /// table, change batches only; a window holds either such rows or changes
  /// (commit between them). The key index reads the files' keys after the
  /// commit, before the next window of changes resolves.
  Status WriteInserts(Batch&& batch);
  /// The committed row of the key of row `row` of `rows` (a batch of the
  /// input schema; its key columns are read), in the one fixed table of a
  /// merge-on-read sink with deletes by position: the key index gives its
  /// data file and position, the row is read back (the table's columns
  /// `cols`, by name, in the table's types) and checked to hold the key.
  /// nullopt: no live row holds the key. Changes buffered in the open
  /// window are not looked at (the caller commits first when the key has
  /// some).
  Result<std::optional<Batch>> ReadCommitted(const Batch& rows, int64_t row, const std::vector<std::string>& cols);
  /// A row that could not be decoded: to the error output, or an error.
  Status Reject(int64_t position, std::string_view reason, std::string text);

  /// Commits the window: one snapshot per destination with changes. The
  /// window covers the input up to `position` (at least the last row seen).
  Status Commit(int64_t position = 0);
  /// With token_heartbeat_seconds: commits an empty token refresh to every
  /// destination that has not committed for that long.
  Status Heartbeat();
  /// Rows buffered and not yet committed.
  int64_t pending_rows() const;
  /// With a sink_id and resume_destination: every open destination's newest
  /// token is read again from the catalog (what other processes sharing the
  /// sink_id committed since) and handed to resume_destination, whose filter
  /// replaces the destination's. A source calls it when it takes over part
  /// of the input (a Kafka partition assigned to this process).
  Status ResumeAgain();

  SinkStats stats() const;
  /// stats() as a JSON object.
  std::string StatsJson() const;

  class Impl;

 private:
  explicit ChangeSink(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::sink
