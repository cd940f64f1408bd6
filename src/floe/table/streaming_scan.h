/// \file
/// A streaming read of a table branch (Flink's IcebergSource in streaming
/// mode, extended to merge-on-read tables): the starting strategy gives a
/// first position, each discovery reloads the metadata and queues the
/// snapshots committed on the branch after the position (the head's ancestor
/// chain back to it), oldest first and at most `max-planning-snapshot-count`
/// at a time, and each queued snapshot's changelog (changelog_scan.h) is
/// emitted whole before the position moves to it. The position is what a
/// checkpoint keeps: a read resumed from it emits the snapshots after it,
/// with no gap and no repeat.
///
/// Starting strategies (Iceberg Flink docs: Read options, `starting-strategy`):
/// TABLE_SCAN_THEN_INCREMENTAL emits the head's rows as inserts, then the
/// changes after the head (exclusive); the INCREMENTAL_FROM_* strategies start
/// at the latest / earliest ancestor, `start-snapshot-id`, or the oldest
/// ancestor committed at or after `start-snapshot-timestamp`, each inclusive.
/// On an empty table every future snapshot is read.
///
/// Errors. A failure to load the metadata or to plan a snapshot's files is a
/// planning failure: the read goes on at the next discovery while at most
/// `max-allowed-planning-failures` happened in a row (-1: any), and fails past
/// that. A position that is no longer an ancestor of the branch head (a
/// rollback, or expired snapshots that were never read) fails at once, naming
/// the position. Reading data files fails at once (nothing of the snapshot
/// was emitted).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/table/changelog_scan.h"
#include "floe/table/scan.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::table {

/// Loads the table's current metadata (a catalog refresh, past any cache).
using MetadataLoader = std::function<Result<std::shared_ptr<const iceberg::TableMetadata>>()>;

/// Where a streaming read stands: every change up to and including
/// `after_snapshot_id` was emitted; nullopt: nothing yet, the read starts at
/// the first snapshot of the branch.
struct StreamPosition {
  std::optional<int64_t> after_snapshot_id;
  bool operator==(const StreamPosition&) const = default;
};

/// One snapshot emitted.
struct EmittedSnapshot {
  int64_t snapshot_id = 0;
  /// TABLE_SCAN_THEN_INCREMENTAL's first read: the snapshot's rows, all +I.
  bool table_scan = false;
  ChangeCounts counts;
};

class StreamingScan {
 public:
  /// Opens a streaming read of `options.branch` (default main). `options`
  /// must have `streaming` set. With `resume`, the read goes on after that
  /// position and the starting strategy is not consulted. The metadata is
  /// loaded once here to resolve the start; the rows are read with the
  /// schema current then, projected and filtered by the options.
  static Result<std::unique_ptr<StreamingScan>> Make(
      MetadataLoader load, io::FileIOPtr files, ScanOptions options,
      std::optional<StreamPosition> resume = std::nullopt);
  ~StreamingScan();

  /// One discovery: reloads the metadata and queues the branch's snapshots
  /// after the position (or after the last one queued), oldest first, at
  /// most max-planning-snapshot-count. Returns how many were queued; 0 after
  /// a tolerated planning failure (last_failure()).
  Result<int> Discover();

  /// Snapshots queued and not yet emitted.
  size_t pending() const { return queue_.size(); }

  /// Plans and reads the oldest queued snapshot, calls `emit` with its
  /// changelog batches (row kinds set) and moves the position to it. nullopt
  /// when nothing is queued or planning failed and the failure is tolerated
  /// (the snapshot stays queued).
  Result<std::optional<EmittedSnapshot>> EmitNext(const std::function<Status(Batch&&)>& emit);

  /// Discovers and emits until `on_snapshot` (called after each snapshot's
  /// rows were emitted) returns false, waiting `monitor-interval` between
  /// discoveries that leave nothing to emit.
  Status Run(const std::function<Status(Batch&&)>& emit,
             const std::function<Result<bool>(const EmittedSnapshot&)>& on_snapshot);

  /// The position after the last snapshot emitted (a checkpoint). Before
  /// the first TABLE_SCAN_THEN_INCREMENTAL scan is emitted there is none to
  /// keep: nullopt.
  std::optional<StreamPosition> position() const;

  /// The schema of the emitted batches.
  SchemaPtr schema() const { return shape_.projected_schema; }
  /// The table's uuid (for checkpoints: a position belongs to one table).
  const std::string& table_uuid() const { return table_uuid_; }
  const std::string& branch() const { return branch_; }
  const ScanOptions& options() const { return options_; }

  /// Replaces the wait between discoveries (std::this_thread::sleep_for by
  /// default), for tests that drive Run without a clock.
  void set_sleep_for(std::function<void(std::chrono::nanoseconds)> sleep_for) {
    sleep_for_ = std::move(sleep_for);
  }

  /// Planning failures in a row, and the last one.
  int consecutive_failures() const { return failures_; }
  const std::optional<Error>& last_failure() const { return last_failure_; }

 private:
  struct Queued {
    int64_t snapshot_id = 0;
    bool table_scan = false;
    std::shared_ptr<const iceberg::TableMetadata> metadata;
  };
  class ManifestCache;

  StreamingScan(MetadataLoader load, io::FileIOPtr files, ScanOptions options);
  Status Start(std::optional<StreamPosition> resume);
  /// A planning failure: tolerated (Ok) or the error to fail with.
  Status Failure(Error error);

  MetadataLoader load_;
  io::FileIOPtr files_;
  ScanOptions options_;
  std::string branch_;
  std::string table_uuid_;
  ScanPlan shape_;
  StreamPosition position_;
  /// False until the first table scan was emitted (TABLE_SCAN_THEN_INCREMENTAL).
  bool has_position_ = true;
  std::deque<Queued> queue_;
  int failures_ = 0;
  std::optional<Error> last_failure_;
  std::unique_ptr<ManifestCache> cache_;
  std::function<void(std::chrono::nanoseconds)> sleep_for_;
};

/// The head of `branch` in `metadata`: nullptr for main on an empty table;
/// kNotFound for another branch that does not exist, kInvalidArgument for a
/// tag.
Result<const iceberg::Snapshot*> BranchHead(const iceberg::TableMetadata& metadata,
                                            const std::string& branch);

/// The snapshots of `branch` after `position`, oldest first: the head's
/// ancestors back to the position. kInvalidArgument naming the position and
/// the head when the position is no longer an ancestor (rolled back, or
/// snapshots after it expired).
Result<std::vector<const iceberg::Snapshot*>> SnapshotsAfter(const iceberg::TableMetadata& metadata,
                                                             const std::string& branch,
                                                             const StreamPosition& position);

}  // namespace floe::table
