/// \file
/// A rewrite: a snapshot that replaces live data files (and the delete files
/// that only they needed) with new data files holding the same rows, the
/// deletes already applied (Iceberg spec: Snapshots, operation `replace`;
/// Java's RewriteFiles). The commit is validated against the snapshot the
/// rewrite read, on every attempt, as Java's `validateFromSnapshot` does:
///  - every file it removes must still be live in the snapshot it commits on
///    (a concurrent commit that removed one, e.g. another compaction, fails it);
///  - no snapshot committed since the starting one may have added position
///    deletes or deletion vectors that can apply to a removed data file (those
///    rows were read as live: the new files would resurrect them);
///  - the starting snapshot must still be an ancestor of the branch head.
/// The added data files carry the starting snapshot's sequence number as
/// their data sequence number, so equality deletes committed after the
/// starting snapshot still apply to them (Java's
/// `dataSequenceNumber(startingSnapshot.sequenceNumber())`), and the ones
/// before it, already applied, do not. A failed validation ends the commit
/// with kCommitFailed, not retried: the rewrite must be planned again from
/// the table as it is now.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/table/snapshot_producer.h"

namespace floe::table {

/// Replaces data (and delete) files. Build it, then Commit() once.
class RewriteFiles final : public SnapshotProducer {
 public:
  /// `starting_snapshot_id` is the snapshot whose files were read (on the
  /// main branch); `starting_sequence_number` its sequence number.
  RewriteFiles(Table* table, int64_t starting_snapshot_id, int64_t starting_sequence_number);

  /// Removes a live data file (by path) of the table's spec `spec_id`.
  RewriteFiles& DeleteDataFile(const iceberg::DataFile& file, int32_t spec_id);
  /// Removes a live delete file (by path, and offset for a deletion vector).
  RewriteFiles& DeleteDeleteFile(const iceberg::DataFile& file);
  /// A data file of the table's spec `spec_id` holding rewritten rows.
  RewriteFiles& AddDataFile(iceberg::DataFile file, int32_t spec_id) {
    AddData(std::move(file), spec_id);
    return *this;
  }
  /// A position delete file or deletion vector of the table's spec `spec_id`
  /// that replaces removed delete files (a delete compaction). Its data files
  /// (referenced_data_file, or `data_paths` for one that names several) must
  /// still be live when the commit lands, and no other position delete or
  /// vector for them may have been committed since the starting snapshot.
  RewriteFiles& AddDeleteFile(iceberg::DataFile file, int32_t spec_id, const std::vector<std::string>& data_paths) {
    for (const auto& p : data_paths) targets_.insert(p);
    if (file.referenced_data_file) targets_.insert(*file.referenced_data_file);
    AddDeletes(std::move(file), spec_id);
    return *this;
  }
  /// Adds a property to the snapshot summary (values are strings).
  RewriteFiles& Set(const std::string& key, const std::string& value) {
    SetProperty(key, value);
    return *this;
  }

 protected:
  iceberg::SnapshotOperation Operation() const override { return iceberg::SnapshotOperation::kReplace; }
  Result<std::vector<iceberg::ManifestFile>> ParentManifests(
      const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
      SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) override;

 private:
  /// The snapshots after the starting one added no delete that can apply
  /// to a removed data file, and the starting one is an ancestor.
  Status ValidateNoNewDeletes(const SnapshotAttempt& attempt) const;

  int64_t starting_snapshot_id_;
  std::set<std::string> data_paths_;   ///< data files removed
  std::set<std::string> partitions_;   ///< internal::PartitionKey of the data files removed
  std::set<std::string> delete_keys_;  ///< DeleteFileKey of the delete files removed
  std::set<std::string> targets_;      ///< data files the added delete files name
};

}  // namespace floe::table
