/// \file
/// The commit of one new snapshot, shared by every snapshot operation
/// (append_files.h, overwrite_files.h, row_delta.h), in the spec's order
/// (Iceberg spec: Commit Conflict Resolution; PITFALLS 94): the manifests of
/// the added files are written once; each attempt then reads the head of the
/// target branch, lets the operation choose which of the parent's manifests
/// the snapshot lists (an overwrite rewrites those whose files it removes),
/// writes the manifest list and the new metadata and swaps it in. A lost race
/// (kCommitFailed) is retried under the table's `commit.retry.*` properties,
/// from a reloaded table. Files are removed only when they are known to be
/// unreferenced: an attempt's list and rewritten manifests when that attempt
/// failed, the added files' manifests when the whole commit failed; nothing
/// when the outcome is unknown (kCommitStateUnknown).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/table/snapshot_summary.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

namespace internal {
struct WrittenFiles;
}

/// What one commit attempt builds on.
struct SnapshotAttempt {
  /// The table as this attempt read it (reloaded on every retry).
  const iceberg::TableMetadata& metadata;
  /// The spec of the added files: the default spec when the commit began.
  const iceberg::PartitionSpec& spec;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int attempt = 0;  ///< 0 for the first try
};

/// The shared commit machinery; one subclass per snapshot operation.
class SnapshotProducer {
 public:
  virtual ~SnapshotProducer() = default;
  SnapshotProducer(const SnapshotProducer&) = delete;
  SnapshotProducer& operator=(const SnapshotProducer&) = delete;

  /// Commits the snapshot (once). kInvalidArgument when a file is filed as
  /// the wrong content or breaks the content rules; kCommitFailed after the
  /// retries; kCommitStateUnknown when the outcome is unknown.
  Result<CommitResult> Commit();

 protected:
  explicit SnapshotProducer(Table* table) : table_(table) {}

  void AddData(iceberg::DataFile file) { data_files_.push_back(std::move(file)); }
  void AddDeletes(iceberg::DataFile file) { delete_files_.push_back(std::move(file)); }
  void SetProperty(const std::string& key, const std::string& value) { properties_[key] = value; }
  void SetBranch(std::string branch) { branch_ = std::move(branch); }

  const std::vector<iceberg::DataFile>& data_files() const { return data_files_; }
  const std::vector<iceberg::DataFile>& delete_files() const { return delete_files_; }
  Table* table() const { return table_; }

  /// The manifests of the parent snapshot that the new snapshot lists. The
  /// default lists them all, unchanged. An operation that removes files
  /// rewrites the manifests holding them, records each removed file in
  /// `summary` and each file it writes in `written` (removed if this attempt
  /// fails).
  virtual Result<std::vector<iceberg::ManifestFile>> ParentManifests(
      const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
      SnapshotSummaryBuilder* summary, internal::WrittenFiles* written);

  /// The snapshot's `operation` (Iceberg spec: Snapshots; PITFALLS 81).
  virtual iceberg::SnapshotOperation Operation() const = 0;

 private:
  /// Every added file is filed as its content says and follows the content rules.
  Status ValidateFiles() const;
  /// Writes the manifests of the added files (data, then deletes).
  Result<std::vector<iceberg::ManifestFile>> WriteAddedManifests(
      const Schema& schema, const iceberg::PartitionSpec& spec,
      internal::WrittenFiles* written) const;
  /// One attempt: read the head, list manifests, write the list, swap metadata.
  Status Attempt(int attempt, const iceberg::PartitionSpec& spec,
                 const std::vector<iceberg::ManifestFile>& added_manifests, bool* unknown,
                 CommitResult* result);

  Table* table_;
  std::vector<iceberg::DataFile> data_files_;
  std::vector<iceberg::DataFile> delete_files_;
  std::map<std::string, std::string> properties_;
  std::string branch_ = std::string(iceberg::kMainBranch);
};

}  // namespace floe::table
