/// \file
/// The changelog of one snapshot relative to its parent, for merge-on-read
/// tables too (Iceberg spec: Snapshots, Manifests, Scan Planning, Position
/// and Equality Delete Files; Flink's RowKind):
///  - the files the snapshot added are read with the deletes that apply to
///    them in the snapshot: their rows are inserts (+I);
///  - the files it removed (an overwrite, a delete of whole files) are read as
///    they were live in the parent, with the parent's deletes: their rows are
///    deletes (-D);
///  - for a file live in both, the rows that the snapshot's new delete files
///    remove, read as they were in the parent (the full row image, older
///    deletes applied), are deletes (-D); rows that a removed delete file no
///    longer hides come back as inserts (+I).
/// The parent's state is derived from the snapshot's own manifests (its live
/// entries, minus the ones it added, plus the DELETED entries it wrote), so
/// the parent's manifest list is never needed. `replace` snapshots
/// (compaction) change no rows and give none. A snapshot that only appended
/// data files reads only its own manifests.
///
/// Within one snapshot, a removed row and an added row that are identical
/// (a copy-on-write rewrite carrying a row over) cancel out. When the schema
/// has identifier fields, a removed and an added row with the same key
/// become an update pair: -U immediately followed by +U. Both are decided on
/// whole rows: a snapshot that removes rows is read with every top-level
/// column and projected at the end, so an update of a column outside the
/// projection still gives its -U/+U pair (with equal projected values), as
/// Flink's changelog does. (A projection into nested fields compares the
/// projected rows.) The removed rows come first in plan order (each -U with its +U),
/// then the remaining inserts. A snapshot's changes are held in memory while
/// they are paired.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::table {

/// The planned changes of one snapshot.
struct ChangelogPlan {
  /// The schema, projection and filter (files and splits unused): PlanShape.
  ScanPlan shape;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  /// A `replace` snapshot: no rows change.
  bool no_changes = false;
  /// Read, their rows leave the table (tasks may carry changelog_deletes).
  std::vector<FileScanTask> removed;
  /// Read, their rows enter the table.
  std::vector<FileScanTask> added;
  /// Manifests read while planning.
  int64_t manifests_read = 0;
};

/// Plans the changes of `snapshot` (a snapshot of `shape.metadata`) relative
/// to its parent. `source` must return DELETED entries
/// (ManifestSource::ReadManifestWithDeleted) unless the snapshot only
/// appended data files. Data files are pruned by the shape's filter through
/// partitions and metrics, as in PlanScan.
Result<ChangelogPlan> PlanChangelog(const ScanPlan& shape, const iceberg::Snapshot& snapshot,
                                    ManifestSource* source);

/// Row counts of a changelog read, by kind.
struct ChangeCounts {
  int64_t inserts = 0;        ///< +I
  int64_t update_before = 0;  ///< -U
  int64_t update_after = 0;   ///< +U
  int64_t deletes = 0;        ///< -D
  int64_t carried_over = 0;   ///< identical removed/added row pairs dropped
  int64_t total() const { return inserts + update_before + update_after + deletes; }
};

/// Reads a planned changelog and calls `emit` with batches of the projected
/// schema whose `row_kinds` are set, at most `batch_rows` rows each, in the
/// order the file comment gives. Nothing is emitted until the whole snapshot
/// was read, so an error leaves nothing half-emitted.
Result<ChangeCounts> ReadChangelog(const ChangelogPlan& plan, io::FileIO& files, int64_t batch_rows,
                                   const std::function<Status(Batch&&)>& emit);

/// Plans the snapshot scan a TABLE_SCAN_THEN_INCREMENTAL read starts with
/// (every live row of `snapshot`, read with the shape's schema, projection
/// and filter), as a changelog whose rows are all inserts.
Result<ChangelogPlan> PlanSnapshotAsInserts(const ScanPlan& shape,
                                            const iceberg::Snapshot& snapshot,
                                            ManifestSource* source);

}  // namespace floe::table
