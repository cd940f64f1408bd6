// RewriteFiles: the removal of the replaced files and the validation against
// the snapshot the rewrite started from.
#include "floe/table/rewrite_files.h"

#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/reserved_ids.h"
#include "floe/table/manifest_filter.h"
#include "floe/table/scan.h"
#include "floe/table/table_internal.h"

namespace floe::table {

RewriteFiles::RewriteFiles(Table* table, int64_t starting_snapshot_id, int64_t starting_sequence_number)
    : SnapshotProducer(table), starting_snapshot_id_(starting_snapshot_id) {
  SetAddedDataSequenceNumber(starting_sequence_number);
}

RewriteFiles& RewriteFiles::DeleteDataFile(const iceberg::DataFile& file, int32_t spec_id) {
  data_paths_.insert(file.file_path);
  partitions_.insert(internal::PartitionKey(spec_id, file.partition));
  return *this;
}

RewriteFiles& RewriteFiles::DeleteDeleteFile(const iceberg::DataFile& file) {
  delete_keys_.insert(DeleteFileKey(file));
  return *this;
}

Status RewriteFiles::ValidateNoNewDeletes(const SnapshotAttempt& attempt) const {
  auto conflict = [&](const std::string& what) -> Status {
    Error e = CommitFailed("table {}: {} since snapshot {} the rewrite read; nothing is committed (run the rewrite "
                           "again)",
                           table()->id().ToString(), what, starting_snapshot_id_)
                  .error();
    e.retryable = false;  // the same deletes would be found again
    return Fail(std::move(e));
  };
  // Whether a position delete file (or vector) added since can name a
  // removed data file: by its referenced data file when it has one, else by
  // the bounds of its file_path column, else by its partition.
  // The data files whose deletes must not change under the rewrite: those
  // it removes, and those it writes new deletes for.
  std::set<std::string> watched = data_paths_;
  watched.insert(targets_.begin(), targets_.end());
  std::set<std::string> watched_partitions = partitions_;
  auto may_apply = [&](int32_t spec_id, const iceberg::DataFile& f) -> std::optional<std::string> {
    if (f.referenced_data_file) {
      if (watched.contains(*f.referenced_data_file)) return *f.referenced_data_file;
      return std::nullopt;
    }
    auto lo = f.lower_bounds.find(iceberg::kDeleteFilePathFieldId);
    auto hi = f.upper_bounds.find(iceberg::kDeleteFilePathFieldId);
    if (lo != f.lower_bounds.end() && hi != f.upper_bounds.end()) {
      for (auto it = watched.lower_bound(lo->second); it != watched.end() && *it <= hi->second; ++it) {
        return *it;
      }
      return std::nullopt;
    }
    if (!targets_.empty() || watched_partitions.contains(internal::PartitionKey(spec_id, f.partition))) {
      return std::string("(its partition)");
    }
    return std::nullopt;
  };
  const iceberg::TableMetadata& md = attempt.metadata;
  for (const iceberg::Snapshot* s = attempt.parent; s;) {
    if (s->snapshot_id == starting_snapshot_id_) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto manifests, internal::ReadManifests(*table(), *s));
    for (const auto& m : manifests) {
      if (m.added_snapshot_id != s->snapshot_id) continue;
      if (m.content == iceberg::ManifestContent::kData) {
        // The data files new deletes name must not have been removed since.
        if (targets_.empty() || m.deleted_files_count == 0) continue;
        FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(*table(), m, false));
        for (const auto& e : entries) {
          if (e.status == iceberg::ManifestEntryStatus::kDeleted && targets_.contains(e.data_file.file_path)) {
            return conflict(fmt::format("snapshot {} removed data file {}, whose deletes the rewrite rewrites,",
                                        s->snapshot_id, e.data_file.file_path));
          }
        }
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(*table(), m, true));
      for (const auto& e : entries) {
        if (e.status != iceberg::ManifestEntryStatus::kAdded) continue;
        // Equality deletes still apply to the rewritten files: they keep the
        // starting snapshot's sequence number.
        if (e.data_file.content != iceberg::DataFileContent::kPositionDeletes) continue;
        if (auto hit = may_apply(m.partition_spec_id, e.data_file)) {
          return conflict(fmt::format("snapshot {} added position deletes {} for data file {}, which the rewrite "
                                      "replaces,",
                                      s->snapshot_id, DeleteFileKey(e.data_file), *hit));
        }
      }
    }
    if (!s->parent_snapshot_id) break;
    s = md.SnapshotById(*s->parent_snapshot_id);
  }
  return conflict("the branch head does not descend from the snapshot the rewrite read (a rollback, or its "
                  "history expired): the commits");
}

Result<std::vector<iceberg::ManifestFile>> RewriteFiles::ParentManifests(
    const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
    SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) {
  if (attempt.branch != iceberg::kMainBranch) {
    return InvalidArgument("a rewrite commits to the main branch only");
  }
  FLOE_RETURN_IF_ERROR(ValidateNoNewDeletes(attempt));
  return ManifestFilter::Files(data_paths_, delete_keys_).Apply(*table(), attempt, parent, summary, written);
}

}  // namespace floe::table
