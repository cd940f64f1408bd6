/// \file
/// Batch scan planning (Iceberg spec: Scan Planning, Snapshots, Snapshot
/// References, Sequence Numbers, Column Projection; Flink's read options):
///  - ScanOptions: the Flink read options (`snapshot-id`, `as-of-timestamp`,
///    `branch`, `tag`, `start-/end-snapshot-id`, `start-/end-tag`,
///    `case-sensitive`, `limit`, `include-column-stats`, `split-*`) resolved
///    through the option registry, plus a column projection and a filter;
///  - PlanScan: snapshot -> manifest list -> manifests (pruned by partition
///    summaries) -> live entries (pruned by partition values through each
///    spec's transforms and by column metrics) -> delete files attached by the
///    spec's sequence-number and partition rules -> byte-range splits.
/// Manifests are read through the ManifestSource interface, so planning is
/// testable on hand-built manifests.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/expr/expression.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/io/location.h"
#include "floe/table/split_planner.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::table {

/// Where a streaming read starts (Flink's StreamingStartingStrategy; the
/// `starting-strategy` read option).
enum class StartingStrategy : uint8_t {
  /// The rows of the current snapshot (as +I), then the changes after it.
  kTableScanThenIncremental,
  /// The changes from the current snapshot on, inclusive.
  kIncrementalFromLatestSnapshot,
  /// The changes from the oldest ancestor of the branch head on, inclusive.
  kIncrementalFromEarliestSnapshot,
  /// The changes from `start-snapshot-id` on, inclusive.
  kIncrementalFromSnapshotId,
  /// The changes from the oldest ancestor committed at or after
  /// `start-snapshot-timestamp` on, inclusive.
  kIncrementalFromSnapshotTimestamp,
};

/// The option value of a strategy (its Flink enum name).
std::string_view StartingStrategyName(StartingStrategy strategy);

/// What to read and how (Flink read options; see config/options.cc).
struct ScanOptions {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> as_of_timestamp;  ///< epoch milliseconds
  std::optional<std::string> branch;
  std::optional<std::string> tag;
  /// Incremental append scan: data files appended after the start snapshot
  /// (exclusive) up to the end snapshot (inclusive; default: current).
  std::optional<int64_t> start_snapshot_id;
  std::optional<int64_t> end_snapshot_id;
  std::optional<std::string> start_tag;
  std::optional<std::string> end_tag;
  bool case_sensitive = false;
  int64_t limit = -1;  ///< -1: no limit
  /// Keep column metrics (sizes, counts, bounds) in planned files.
  bool include_column_stats = false;
  SplitOptions split;
  /// Top-level column names to read, in this order; empty = every column.
  std::vector<std::string> columns;
  /// Row filter as text (expr::Parse syntax); empty = none.
  std::string filter_text;
  /// Row filter as an (unbound) expression; used when set, ANDed with filter_text.
  expr::ExprPtr filter;

  /// Streaming read (StreamingScan, streaming_scan.h): `streaming`,
  /// `starting-strategy` (with `start-snapshot-id`, inclusive, or
  /// `start-snapshot-timestamp`), `monitor-interval`,
  /// `max-planning-snapshot-count`, `max-allowed-planning-failures`. PlanScan
  /// refuses options with `streaming` set.
  bool streaming = false;
  StartingStrategy starting_strategy = StartingStrategy::kIncrementalFromLatestSnapshot;
  std::optional<int64_t> start_snapshot_timestamp;  ///< epoch milliseconds
  std::chrono::nanoseconds monitor_interval = std::chrono::seconds(60);
  int32_t max_planning_snapshot_count = INT32_MAX;
  int32_t max_allowed_planning_failures = 3;  ///< consecutive; -1: any

  /// Reads the read options (Scope::kRead) from `options` (statement options
  /// first, then `session`), with the table's `read.split.*` properties as
  /// defaults for the split options. Unknown options and conflicting ones
  /// (snapshot-id with as-of-timestamp, branch with tag, start-snapshot-id
  /// with start-tag, ...) are kInvalidArgument errors naming them; so are
  /// streaming options without `streaming=true`, and batch-only options
  /// (snapshot-id, as-of-timestamp, tag, start-tag, end-*, limit) with it.
  static Result<ScanOptions> FromOptions(const std::map<std::string, std::string>& options,
                                         const std::map<std::string, std::string>& table_properties,
                                         const std::map<std::string, std::string>& session = {});

  /// The conflict rules, for options built in code.
  Status Validate() const;

 private:
  Status ValidateStreaming() const;
};

/// Reads manifest lists and manifests for the planner.
class ManifestSource {
 public:
  virtual ~ManifestSource() = default;
  /// The manifest-list entries of a snapshot (for a v1 snapshot with a
  /// `manifests` list instead of a manifest list: one entry per manifest).
  virtual Result<std::vector<iceberg::ManifestFile>> ReadManifestList(
      const iceberg::Snapshot& snapshot) = 0;
  /// The entries of a manifest, with sequence numbers and snapshot ids
  /// inherited from `manifest` and partition tuples typed by its spec.
  virtual Result<std::vector<iceberg::ManifestEntry>> ReadManifest(
      const iceberg::ManifestFile& manifest) = 0;
  /// The same with the DELETED entries (status 2) kept: a changelog needs
  /// the files a snapshot removed. kUnsupported unless overridden.
  virtual Result<std::vector<iceberg::ManifestEntry>> ReadManifestWithDeleted(
      const iceberg::ManifestFile& manifest);
};

/// Reads manifest lists and manifests from files (iceberg/manifest_io.h),
/// opened by their stored locations through a FileIO. v1 snapshots that list
/// their manifests directly are described from the manifest files.
class FileManifestSource : public ManifestSource {
 public:
  /// `metadata` must outlive the source.
  FileManifestSource(const iceberg::TableMetadata& metadata, io::FileIOPtr files)
      : metadata_(metadata), files_(std::move(files)) {}
  /// The local file system, through the prefix mappings of `mapper`.
  FileManifestSource(const iceberg::TableMetadata& metadata, LocationMapper mapper)
      : FileManifestSource(metadata, io::MappedFileIO(std::move(mapper), io::LocalFileIO())) {}

  Result<std::vector<iceberg::ManifestFile>> ReadManifestList(const iceberg::Snapshot& snapshot) override;
  Result<std::vector<iceberg::ManifestEntry>> ReadManifest(const iceberg::ManifestFile& manifest) override;
  Result<std::vector<iceberg::ManifestEntry>> ReadManifestWithDeleted(
      const iceberg::ManifestFile& manifest) override;

 private:
  const iceberg::TableMetadata& metadata_;
  io::FileIOPtr files_;
};

/// A delete file that applies to some planned data files.
struct DeleteFileTask {
  iceberg::DataFile file;
  int64_t data_sequence_number = 0;
  int32_t spec_id = 0;
};
using DeleteFileTaskPtr = std::shared_ptr<const DeleteFileTask>;

/// A data file to read with the deletes that apply to it.
struct FileScanTask {
  iceberg::DataFile data_file;
  int64_t data_sequence_number = 0;
  int32_t spec_id = 0;
  /// Position deletes first, then equality deletes, each in manifest order.
  std::vector<DeleteFileTaskPtr> deletes;
  /// Changelog reads only (changelog_scan.h): when not empty, reading the
  /// task returns just the rows that `deletes` keep and these delete files
  /// remove (the rows a snapshot's new deletes take away from a file).
  std::vector<DeleteFileTaskPtr> changelog_deletes;
};

/// A split: byte ranges of planned files (FileRange::file indexes ScanPlan::files).
using ScanSplit = std::vector<FileRange>;

/// The result of planning.
struct ScanPlan {
  std::shared_ptr<const iceberg::TableMetadata> metadata;
  /// The snapshot read; nullopt for a table without snapshots.
  std::optional<int64_t> snapshot_id;
  /// The schema rows are read with (current schema for the current snapshot,
  /// the snapshot's schema for time travel).
  SchemaPtr table_schema;
  /// The columns returned (a projection of table_schema).
  SchemaPtr projected_schema;
  /// The bound row filter (True when none).
  expr::ExprPtr filter;
  int64_t limit = -1;
  std::vector<FileScanTask> files;
  std::vector<ScanSplit> splits;
  /// Fill each returned batch's `positions` with its rows' 0-based positions
  /// in their data file (the change sink's key index: sink/key_index.h).
  bool row_positions = false;

  /// Planning counters (for tests and `--explain`-like output).
  struct Counters {
    int64_t manifests = 0;
    int64_t manifests_skipped = 0;
    int64_t data_files = 0;
    int64_t data_files_skipped_by_partition = 0;
    int64_t data_files_skipped_by_metrics = 0;
    int64_t delete_files = 0;
  } counters;
};

/// Resolves the snapshot the options select: snapshot-id, as-of-timestamp,
/// branch, tag, or the current snapshot (nullptr for an empty table).
/// Errors name the option and the value.
Result<const iceberg::Snapshot*> SelectSnapshot(const iceberg::TableMetadata& metadata,
                                                const ScanOptions& options);

/// Plans a scan. The metadata is shared with the plan (the reader needs its
/// specs and defaults).
Result<ScanPlan> PlanScan(std::shared_ptr<const iceberg::TableMetadata> metadata,
                          const ScanOptions& options, ManifestSource* source);

/// A plan without files: the table's current schema, the options' column
/// projection and bound row filter, no limit. What a snapshot-by-snapshot
/// reader (changelog_scan.h) reads every snapshot with.
Result<ScanPlan> PlanShape(std::shared_ptr<const iceberg::TableMetadata> metadata,
                           const ScanOptions& options);

/// True when a data file with this partition tuple (of `spec`, over
/// `schema`) may hold rows matching the bound filter `filter`: inclusive
/// projection through identity, bucket (= and IN only), truncate, year,
/// month, day and hour; void and unknown transforms never prune.
bool PartitionMayMatch(const expr::Expr& filter, const iceberg::PartitionSpec& spec,
                       const Schema& schema, const iceberg::Values& partition);

/// True when a data file's column metrics (bounds decoded with the field
/// types of `schema`) do not rule out the bound filter.
bool MetricsMayMatch(const expr::Expr& filter, const Schema& schema, const iceberg::DataFile& file);

/// True when a manifest's partition summaries do not rule out the filter.
bool ManifestMayMatch(const expr::Expr& filter, const iceberg::PartitionSpec& spec,
                      const Schema& schema, const iceberg::ManifestFile& manifest);

/// Attaches delete files to data files by the spec's rules (Scan Planning):
/// a position delete applies when data seq <= delete seq, same spec id and
/// partition, and its referenced_data_file (when set) is the data file; an
/// equality delete when data seq < delete seq and its spec is unpartitioned
/// (global) or has the same spec id and partition. `specs` resolves spec ids.
/// A deletion vector (a Puffin blob, iceberg/deletion_vector.h) applies as a
/// position delete of its referenced_data_file, which it must name; two live
/// vectors naming one data file are kCorrupt (the spec allows one).
Status AttachDeletes(const iceberg::TableMetadata& metadata,
                     const std::vector<DeleteFileTaskPtr>& deletes, std::vector<FileScanTask>* files);

/// The identity of a live file in a snapshot: its path, and for a deletion
/// vector also its offset (the vectors of one commit share one Puffin file).
std::string DeleteFileKey(const iceberg::DataFile& file);

}  // namespace floe::table
