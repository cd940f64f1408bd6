/// \file
/// A table handle and the changes committed to it: snapshots that add data
/// and delete files (append, row delta), overwrite partitions or the whole
/// table, branches and tags, and snapshot expiry (Iceberg spec: Snapshots,
/// Manifests, Commit Conflict Resolution). Commits follow the spec's order —
/// data files, manifests, manifest list, metadata, atomic swap — and retry a
/// lost race under the table's `commit.retry.*` properties. Files written by
/// an attempt are removed when the commit is known to have failed, never when
/// its outcome is unknown.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/commit_retry.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe::table {

/// A loaded table, the catalog that commits it and the FileIO through which
/// every file of the table is read, written, listed and deleted.
class Table {
 public:
  /// The table reaches its files through the catalog's FileIO.
  Table(catalog::Catalog* catalog, catalog::LoadedTable loaded);
  /// The same, through `io` instead (a decorator of the catalog's).
  Table(catalog::Catalog* catalog, catalog::LoadedTable loaded, io::FileIOPtr io);

  const iceberg::TableMetadata& metadata() const { return loaded_.metadata; }
  const catalog::LoadedTable& loaded() const { return loaded_; }
  const catalog::TableIdentifier& id() const { return loaded_.id; }
  catalog::Catalog* catalog() const { return catalog_; }
  /// Where the locations stored in this table's metadata are read and written.
  const io::FileIOPtr& io() const { return io_; }

  /// Reloads the current metadata from the catalog, past its cache
  /// (Catalog::RefreshTable), as Iceberg's Table.refresh().
  Status Refresh();
  /// Replaces the loaded state (after a commit).
  void Reset(catalog::LoadedTable loaded) { loaded_ = std::move(loaded); }

  /// Options of the job that writes through this handle (a write's
  /// `--set` / write options) that override the table's properties for its
  /// commits: the `commit.retry.*` keys (Iceberg's table properties) are read
  /// here first, then from the table's properties. Other keys are ignored
  /// here (the writers resolve their own).
  void SetOptionOverrides(std::map<std::string, std::string> overrides) { overrides_ = std::move(overrides); }
  /// The retry policy of this handle's commits: `commit.retry.num-retries`,
  /// `min-wait-ms`, `max-wait-ms`, `total-timeout-ms` from the overrides,
  /// then the current metadata's properties, then Iceberg's defaults. A
  /// malformed value is an error naming the property.
  Result<catalog::RetryPolicy> CommitRetryPolicy() const;

  /// The local path of a location stored in the metadata, for tools and
  /// tests (kUnsupported when the FileIO keeps it elsewhere). The table code
  /// itself only passes locations to io().
  Result<std::string> LocalPath(std::string_view location) const { return io_->LocalPath(location); }

 private:
  catalog::Catalog* catalog_;
  catalog::LoadedTable loaded_;
  io::FileIOPtr io_;
  std::map<std::string, std::string> overrides_;
};

/// What a commit produced.
struct CommitResult {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  std::string metadata_location;
  int attempts = 0;
  std::string operation;
  std::map<std::string, std::string> summary;
};

/// One snapshot: files added, files removed, summary properties, target
/// branch. Build it, then Commit() once. A facade over the per-operation
/// classes: an overwrite mode commits an OverwriteFiles (overwrite_files.h),
/// delete files a RowDelta (row_delta.h), anything else an AppendFiles
/// (append_files.h); their shared commit is SnapshotProducer
/// (snapshot_producer.h).
class SnapshotUpdate {
 public:
  explicit SnapshotUpdate(Table* table) : table_(table) {}

  /// A data file of the table's default spec (partition tuple filled in).
  SnapshotUpdate& AddDataFile(iceberg::DataFile file);
  /// A position or equality delete file (row delta).
  SnapshotUpdate& AddDeleteFile(iceberg::DataFile file);
  /// Dynamic overwrite (Flink's overwrite-enabled): live data and delete
  /// files in the partitions of the added data files are removed; for an
  /// unpartitioned table, every live file.
  SnapshotUpdate& OverwritePartitions();
  /// Removes every live file (a full-table overwrite or truncate).
  SnapshotUpdate& OverwriteAll();
  /// Adds a property to the snapshot summary (values are strings).
  SnapshotUpdate& Set(const std::string& key, const std::string& value);
  /// Commits to this branch instead of main (created when missing, from the
  /// current snapshot of main).
  SnapshotUpdate& ToBranch(std::string branch);

  /// Writes manifests and the manifest list and swaps the metadata, retrying
  /// lost races. kCommitFailed after the retries; kCommitStateUnknown when
  /// the outcome is unknown (nothing is cleaned up then).
  Result<CommitResult> Commit();

 private:
  Table* table_;
  std::vector<iceberg::DataFile> data_files_;
  std::vector<iceberg::DataFile> delete_files_;
  enum class Overwrite { kNone, kPartitions, kAll } overwrite_ = Overwrite::kNone;
  std::map<std::string, std::string> properties_;
  std::string branch_ = std::string(iceberg::kMainBranch);
};

/// Creates or moves a branch or tag to `snapshot_id` (default: the current
/// snapshot). Retention fields as in the spec's refs.
Result<catalog::LoadedTable> SetRef(Table* table, const std::string& name, bool is_tag,
                                    std::optional<int64_t> snapshot_id = std::nullopt,
                                    std::optional<int64_t> max_ref_age_ms = std::nullopt);

/// The id of a partition spec of the table with no fields (or only void
/// ones), for delete files that reach every partition: an equality delete
/// file of an unpartitioned spec applies to the data files of all specs and
/// partitions (Iceberg spec: Scan Planning). When the table has none, one is
/// added under the next free spec id — not as the default: data keeps being
/// written with the default spec — by a metadata-only commit, retried under
/// `commit.retry.*` like every commit. Writers racing to add it end up with
/// one spec: the loser of the swap reloads, finds the winner's and returns
/// its id. `table` is left loaded at the metadata that holds the spec.
Result<int32_t> EnsureUnpartitionedSpec(Table* table);

/// What `floe expire` removes.
struct ExpireOptions {
  /// Snapshots older than this (epoch ms) expire; default now minus
  /// `history.expire.max-snapshot-age-ms`.
  std::optional<int64_t> older_than_ms;
  /// Newest snapshots of each branch always kept; default
  /// `history.expire.min-snapshots-to-keep`.
  std::optional<int32_t> retain_last;
  /// Expire exactly these snapshots as well.
  std::vector<int64_t> snapshot_ids;
  /// Only report what would be deleted.
  bool dry_run = false;
  /// Snapshots that must stay whatever the other options say, by holder
  /// ("sink s1"), computed from each attempt's metadata: the CDC sinks'
  /// newest tokens (sink::SnapshotsSinksNeed). A snapshot named in
  /// `snapshot_ids` that a holder needs is an error naming the holder.
  std::function<std::map<std::string, std::set<int64_t>>(const iceberg::TableMetadata&)> retained;
  /// Table properties set in the same commit as the expiry, computed from
  /// each attempt's metadata and the snapshot ids that expire (the records of
  /// released sinks' positions, sink::ReleasedSinkRecords).
  std::function<Result<std::map<std::string, std::string>>(const iceberg::TableMetadata&,
                                                           const std::set<int64_t>& expiring)>
      properties;
};

struct ExpireResult {
  std::vector<int64_t> expired_snapshot_ids;
  std::vector<std::string> deleted_files;  ///< manifest lists, manifests, data and delete files
  /// Files the expired snapshots name outside the table's folders (its
  /// `location`, `write.data.path`, `write.metadata.path`): never deleted.
  std::vector<std::string> refused_files;
  /// Snapshots that would have expired but were kept for a holder of
  /// ExpireOptions::retained, by holder.
  std::map<std::string, std::vector<int64_t>> retained;
  /// The table properties the expiry set (ExpireOptions::properties).
  std::map<std::string, std::string> properties_set;
};

/// Expires snapshots no branch or tag needs, commits the metadata, then
/// deletes only the files that no remaining snapshot references.
Result<ExpireResult> ExpireSnapshots(Table* table, const ExpireOptions& options);

/// Every live entry of a snapshot (manifests read with inheritance applied).
Result<std::vector<iceberg::ManifestEntry>> LiveEntries(const Table& table, const iceberg::Snapshot& snapshot);

}  // namespace floe::table
