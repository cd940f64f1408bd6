/// \file
/// A row delta: a snapshot that adds position and equality delete files and,
/// with them, data files (merge-on-read updates and deletes; Java's
/// RowDelta). Nothing is removed but the delete files named by
/// RemoveDeleteFile (the deletion vectors a merged one replaces: the spec
/// allows one live vector per data file); the parent's other manifests are
/// listed again unchanged. Operation `delete` when only deletes are added, `overwrite`
/// when data too, `append` when only data (Iceberg spec: Snapshots; PITFALLS 81).
/// Delete files may be of any spec of the table: an equality delete file of
/// an unpartitioned spec (Table's EnsureUnpartitionedSpec) is global, it
/// applies to the data files of every partition (Iceberg spec: Scan Planning).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "floe/iceberg/manifest.h"
#include "floe/table/snapshot_producer.h"

namespace floe::table {

/// Adds delete files and data files. Build it, then Commit() once.
class RowDelta final : public SnapshotProducer {
 public:
  explicit RowDelta(Table* table) : SnapshotProducer(table) {}

  /// A data file of the table's default spec (partition tuple filled in).
  RowDelta& AddDataFile(iceberg::DataFile file) {
    AddData(std::move(file));
    return *this;
  }
  /// A position or equality delete file of the table's default spec.
  RowDelta& AddDeleteFile(iceberg::DataFile file) {
    AddDeletes(std::move(file));
    return *this;
  }
  /// A delete file of the table's spec `spec_id` (its partition tuple of that
  /// spec's type; empty for an unpartitioned spec). Commit fails with
  /// kInvalidArgument when the table has no such spec.
  RowDelta& AddDeleteFile(iceberg::DataFile file, int32_t spec_id) {
    AddDeletes(std::move(file), spec_id);
    return *this;
  }
  /// Removes a live delete file of the table in the same snapshot (marked
  /// DELETED in a rewritten delete manifest): the old deletion vector a merged
  /// one replaces (table/deletion_vector_writer.h). A file is named by its
  /// path and, for a deletion vector, its content_offset. The commit fails
  /// with kCommitFailed, not retried, when the file is no longer live in the
  /// snapshot it builds on, or when a deletion vector this delta adds meets a
  /// live vector for the same data file that it does not remove (another
  /// writer's): the vectors must then be merged again.
  RowDelta& RemoveDeleteFile(const iceberg::DataFile& file);

  /// Fails the commit (kCommitFailed, not retried) when a snapshot committed
  /// after `base_snapshot_id` (on the branch this delta builds on) removed one
  /// of the data files its position deletes name (a compaction meanwhile):
  /// a delete must not point at a file that is gone (Java's RowDelta
  /// validateDataFilesExist). Empty `base_snapshot_id`: the table was empty.
  RowDelta& ValidateDataFilesExist(std::optional<int64_t> base_snapshot_id);

  /// Runs `check` inside every commit attempt (SetAttemptCheck).
  RowDelta& Check(AttemptCheck check) {
    SetAttemptCheck(std::move(check));
    return *this;
  }
  /// Adds a property to the snapshot summary (values are strings).
  RowDelta& Set(const std::string& key, const std::string& value) {
    SetProperty(key, value);
    return *this;
  }
  /// Commits to this branch instead of main (created from main's head when missing).
  RowDelta& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }

 protected:
  iceberg::SnapshotOperation Operation() const override {
    if (!has_deletes()) return iceberg::SnapshotOperation::kAppend;
    return data_files().empty() ? iceberg::SnapshotOperation::kDelete
                                : iceberg::SnapshotOperation::kOverwrite;
  }
  Result<std::vector<iceberg::ManifestFile>> ParentManifests(
      const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
      SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) override;

 private:
  /// The data files the added position deletes name, removed since the base.
  Status CheckDataFilesExist(const SnapshotAttempt& attempt) const;

  std::set<std::string> removed_;  ///< DeleteFileKey of the delete files removed
  bool validate_data_files_ = false;
  std::optional<int64_t> validate_from_;
};

}  // namespace floe::table
