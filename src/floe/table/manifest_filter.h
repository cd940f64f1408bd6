/// \file
/// The manifest filtering of an overwrite: which live files of the parent
/// snapshot it removes, and the rewrite of the manifests that hold them.
/// A manifest with no such file is listed again unchanged; one with some is
/// rewritten under the new snapshot with those files DELETED and the rest
/// EXISTING (sequence numbers explicit: PITFALLS 71), and deletions of earlier
/// snapshots are not carried (Iceberg spec: Manifest Entry Fields; PITFALLS 74).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/snapshot_summary.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

/// Which live files an overwrite removes.
class ManifestFilter {
 public:
  /// Every live file (a full-table overwrite).
  static ManifestFilter All();
  /// The live files whose partition is one of `partitions`
  /// (internal::PartitionKey of spec id and tuple).
  static ManifestFilter Partitions(std::set<std::string> partitions);
  /// The live delete files whose DeleteFileKey (path, and offset for a
  /// deletion vector) is one of `keys`; data manifests are carried unread.
  /// Apply fails with kCommitFailed (not retryable) when one of them is not
  /// live in the parent (another commit removed or replaced it). With
  /// `vectors_of`, Apply also fails so when a live deletion vector that is
  /// not removed names one of these data files: the spec allows one vector
  /// per data file, and the new one was merged without it.
  static ManifestFilter DeleteFiles(std::set<std::string> keys, std::set<std::string> vectors_of = {});
  /// The live data files whose path is one of `data_paths` and the live
  /// delete files whose DeleteFileKey is one of `delete_keys` (a rewrite).
  /// Apply fails with kCommitFailed (not retryable) when one of them is not
  /// live in the parent: another commit removed it meanwhile.
  static ManifestFilter Files(std::set<std::string> data_paths, std::set<std::string> delete_keys);

  /// Whether the live entry `e` of a manifest of spec `spec_id` is removed.
  bool Removes(int32_t spec_id, const iceberg::ManifestEntry& e) const;

  /// The parent's manifests after the removal, in order; each removed file is
  /// recorded in `summary`, each manifest written in `written`.
  Result<std::vector<iceberg::ManifestFile>> Apply(const Table& table,
                                                   const SnapshotAttempt& attempt,
                                                   const std::vector<iceberg::ManifestFile>& parent,
                                                   SnapshotSummaryBuilder* summary,
                                                   internal::WrittenFiles* written) const;

 private:
  bool all_ = false;
  std::set<std::string> partitions_;
  bool delete_files_ = false;
  std::set<std::string> delete_keys_;
  std::set<std::string> vectors_of_;
  bool files_ = false;
  std::set<std::string> data_paths_;
};

}  // namespace floe::table
