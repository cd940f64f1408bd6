/// \file
/// An append: a snapshot that adds data files and removes nothing (Iceberg
/// spec: Snapshots, operation `append`; Java's AppendFiles). The parent's
/// manifests are listed again unchanged.
#pragma once

#include <string>

#include "floe/iceberg/manifest.h"
#include "floe/table/snapshot_producer.h"

namespace floe::table {

/// Adds data files. Build it, then Commit() once.
class AppendFiles final : public SnapshotProducer {
 public:
  explicit AppendFiles(Table* table) : SnapshotProducer(table) {}

  /// A data file of the table's default spec (partition tuple filled in).
  AppendFiles& AddDataFile(iceberg::DataFile file) {
    AddData(std::move(file));
    return *this;
  }
  /// Adds a property to the snapshot summary (values are strings).
  AppendFiles& Set(const std::string& key, const std::string& value) {
    SetProperty(key, value);
    return *this;
  }
  /// Runs `check` inside every commit attempt (SetAttemptCheck).
  AppendFiles& Check(AttemptCheck check) {
    SetAttemptCheck(std::move(check));
    return *this;
  }
  /// Commits to this branch instead of main (created from main's head when missing).
  AppendFiles& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }

 protected:
  iceberg::SnapshotOperation Operation() const override {
    return iceberg::SnapshotOperation::kAppend;
  }
};

}  // namespace floe::table
