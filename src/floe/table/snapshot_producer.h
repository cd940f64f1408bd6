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
///
/// Delete files may be of any spec the table defines, not only the default
/// one: each spec's deletes go into a manifest of their own, as a manifest
/// is written for exactly one spec (Iceberg spec: Manifests; PITFALLS 63).
/// That is how global equality deletes are committed: an equality delete
/// file of an unpartitioned spec applies to the data files of every
/// partition (Iceberg spec: Scan Planning).
///
/// Before the swap, every file the snapshot adds (data and delete files, the
/// new manifests and the manifest list) is checked to exist, one existence
/// check each (a stat locally, a HEAD request on S3): a commit never
/// publishes a file that is gone (removed by an orphan removal while the
/// commit was in flight). A missing file fails the commit with kCommitFailed,
/// not retried, nothing published.
///
/// An attempt check (SetAttemptCheck) runs on every attempt once the branch
/// head is read and before the attempt writes anything; its error ends the
/// commit as known-failed, without a retry, and is returned unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  /// The spec of the added data files (and of delete files added without a
  /// spec id): the default spec when the commit began.
  const iceberg::PartitionSpec& spec;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int attempt = 0;  ///< 0 for the first try
  /// The head of the target branch this attempt builds on (for a new branch,
  /// main's head); null for a table without snapshots. Its ancestors in
  /// `metadata` are the history the new snapshot extends.
  const iceberg::Snapshot* parent = nullptr;
  /// The branch the snapshot is committed to.
  std::string_view branch;
};

/// A check run inside every commit attempt (SnapshotProducer::SetAttemptCheck).
using AttemptCheck = std::function<Status(const SnapshotAttempt&)>;

/// Summary properties made for one attempt from the table it read
/// (SnapshotProducer::SetAttemptSummary).
using AttemptSummary = std::function<Result<std::map<std::string, std::string>>(const SnapshotAttempt&)>;

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

  /// Runs `check` on every attempt, after the head of the target branch is
  /// read and before anything of the attempt is written (the CDC sink looks
  /// for its exactly-once token in the history the attempt builds on). An
  /// error from it ends the commit as known to have failed: no retry, the
  /// attempt's files and the added manifests are removed (as after
  /// kCommitFailed; the data and delete files themselves stay the caller's),
  /// and the error is returned exactly as the check made it — kind, message
  /// and retryable flag — so the caller can tell it from a lost race.
  void SetAttemptCheck(AttemptCheck check) { check_ = std::move(check); }

  /// Runs `summary` on every attempt, after the attempt check: the
  /// properties it returns are set on that attempt's snapshot summary over
  /// the ones set before (a token whose commit number and source position
  /// follow the newest token in the table: several processes sharing one
  /// sink_id). Its error ends the commit as the check's does.
  void SetAttemptSummary(AttemptSummary summary) { attempt_summary_ = std::move(summary); }

 protected:
  explicit SnapshotProducer(Table* table) : table_(table) {}

  void AddData(iceberg::DataFile file) { data_files_.push_back(std::move(file)); }
  /// A data file of the table's spec `spec_id`, which need not be the default
  /// (a compaction writes files back in the spec they were read from). Commit
  /// fails with kInvalidArgument when the table has no such spec.
  void AddData(iceberg::DataFile file, int32_t spec_id) {
    spec_data_.push_back(SpecDelete{spec_id, std::move(file)});
  }
  /// The data sequence number of every added data file, written explicitly in
  /// its ADDED manifest entry instead of inherited from the new snapshot: a
  /// rewrite gives its files the sequence number of the snapshot it read, so
  /// that equality deletes committed since still apply to them (Iceberg spec:
  /// Sequence Numbers; Java's RewriteFiles.dataSequenceNumber).
  void SetAddedDataSequenceNumber(int64_t sequence_number) { added_data_sequence_number_ = sequence_number; }
  /// A delete file of the default spec (as the commit begins).
  void AddDeletes(iceberg::DataFile file) { delete_files_.push_back(std::move(file)); }
  /// A delete file of the table's spec `spec_id`, which need not be the
  /// default (an unpartitioned one makes equality deletes global). Commit
  /// fails with kInvalidArgument when the table has no such spec.
  void AddDeletes(iceberg::DataFile file, int32_t spec_id) {
    spec_deletes_.push_back(SpecDelete{spec_id, std::move(file)});
  }
  void SetProperty(const std::string& key, const std::string& value) { properties_[key] = value; }
  void SetBranch(std::string branch) { branch_ = std::move(branch); }

  const std::vector<iceberg::DataFile>& data_files() const { return data_files_; }
  /// Whether any data file was added, of any spec.
  bool has_data() const { return !data_files_.empty() || !spec_data_.empty(); }
  /// The delete files added without a spec id (of the default spec).
  const std::vector<iceberg::DataFile>& delete_files() const { return delete_files_; }
  /// Every delete file added, of any spec.
  std::vector<const iceberg::DataFile*> all_delete_files() const {
    std::vector<const iceberg::DataFile*> out;
    for (const auto& f : delete_files_) out.push_back(&f);
    for (const auto& d : spec_deletes_) out.push_back(&d.file);
    return out;
  }
  /// Whether any delete file was added, of any spec.
  bool has_deletes() const { return !delete_files_.empty() || !spec_deletes_.empty(); }
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
  /// Every added file is filed as its content says and follows the content
  /// rules; position deletes are deletion vectors in a format version 3
  /// table, and files in a v2 table (Iceberg spec: Deletion Vectors).
  Status ValidateFiles(const iceberg::TableMetadata& metadata) const;
  /// The added files grouped by the spec they are written with: the data
  /// files and the deletes added without a spec id under `default_spec`,
  /// the others under their own spec (kInvalidArgument naming the file when
  /// `metadata` has no such spec). Default spec first, then by spec id.
  struct SpecFiles {
    iceberg::PartitionSpec spec;
    std::vector<const iceberg::DataFile*> data;
    std::vector<const iceberg::DataFile*> deletes;
  };
  Result<std::vector<SpecFiles>> GroupBySpec(const iceberg::TableMetadata& metadata,
                                             const iceberg::PartitionSpec& default_spec) const;
  /// Writes the manifests of the added files: per spec, data then deletes.
  Result<std::vector<iceberg::ManifestFile>> WriteAddedManifests(
      const Schema& schema, const std::vector<SpecFiles>& groups,
      internal::WrittenFiles* written) const;
  /// Whether every file the snapshot adds is still there: the data and
  /// delete files, the added manifests and the attempt's own files
  /// (rewritten manifests, the manifest list). kCommitFailed (not retryable)
  /// naming the first missing one.
  Status CheckAddedFilesExist(const std::vector<iceberg::ManifestFile>& added_manifests,
                              const std::vector<std::string>& attempt_files) const;
  /// One attempt: read the head, run the check, list manifests, write the
  /// list, swap metadata. A failed check is stored in `check_error`.
  Status Attempt(int attempt, const iceberg::PartitionSpec& spec,
                 const std::vector<SpecFiles>& groups,
                 const std::vector<iceberg::ManifestFile>& added_manifests, bool* unknown,
                 std::optional<Error>* check_error, CommitResult* result);

  /// A delete file added with an explicit spec id.
  struct SpecDelete {
    int32_t spec_id = 0;
    iceberg::DataFile file;
  };

  Table* table_;
  std::vector<iceberg::DataFile> data_files_;
  std::vector<iceberg::DataFile> delete_files_;  ///< of the default spec
  std::vector<SpecDelete> spec_deletes_;         ///< of the spec each names
  std::vector<SpecDelete> spec_data_;            ///< data files of the spec each names
  std::optional<int64_t> added_data_sequence_number_;
  AttemptCheck check_;
  AttemptSummary attempt_summary_;
  std::map<std::string, std::string> properties_;
  std::string branch_ = std::string(iceberg::kMainBranch);
};

}  // namespace floe::table
