/// \file
/// An overwrite: a snapshot that removes the live files of the partitions it
/// writes (Flink's `overwrite-enabled`, Java's ReplacePartitions) or of the
/// whole table (a full overwrite or truncate), and adds data files (Iceberg
/// spec: Snapshots, operation `overwrite`, or `delete` when nothing is
/// added). The removal is done by a ManifestFilter on every attempt, against
/// the parent that attempt commits on.
#pragma once

#include <string>

#include "floe/iceberg/manifest.h"
#include "floe/table/snapshot_producer.h"

namespace floe::table {

/// What an overwrite removes.
enum class OverwriteMode : uint8_t {
  /// The live data and delete files in the partitions of the added data
  /// files (of the default spec); for an unpartitioned table, every live file.
  kPartitions,
  /// Every live file.
  kAll,
};

/// Replaces partitions or the whole table. Build it, then Commit() once.
class OverwriteFiles final : public SnapshotProducer {
 public:
  OverwriteFiles(Table* table, OverwriteMode mode) : SnapshotProducer(table), mode_(mode) {}

  /// A data file of the table's default spec (partition tuple filled in).
  OverwriteFiles& AddDataFile(iceberg::DataFile file) {
    AddData(std::move(file));
    return *this;
  }
  /// A position or equality delete file added in the same snapshot (it is not
  /// filtered: it applies from this snapshot on). SnapshotUpdate allows the
  /// combination, so it is kept here.
  OverwriteFiles& AddDeleteFile(iceberg::DataFile file) {
    AddDeletes(std::move(file));
    return *this;
  }
  /// Adds a property to the snapshot summary (values are strings).
  OverwriteFiles& Set(const std::string& key, const std::string& value) {
    SetProperty(key, value);
    return *this;
  }
  /// Commits to this branch instead of main (created from main's head when missing).
  OverwriteFiles& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }

 protected:
  Result<std::vector<iceberg::ManifestFile>> ParentManifests(
      const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
      SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) override;
  iceberg::SnapshotOperation Operation() const override;

 private:
  OverwriteMode mode_;
};

}  // namespace floe::table
