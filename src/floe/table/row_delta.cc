// RowDelta: the removal of the deletion vectors a merged one replaces, and
// the check that no other writer's vector for the same data files appeared.
#include "floe/table/row_delta.h"

#include "floe/iceberg/deletion_vector.h"
#include "floe/table/manifest_filter.h"
#include "floe/table/scan.h"
#include "floe/table/table_internal.h"

namespace floe::table {

RowDelta& RowDelta::RemoveDeleteFile(const iceberg::DataFile& file) {
  removed_.insert(DeleteFileKey(file));
  return *this;
}

RowDelta& RowDelta::ValidateDataFilesExist(std::optional<int64_t> base_snapshot_id) {
  validate_data_files_ = true;
  validate_from_ = base_snapshot_id;
  return *this;
}

Status RowDelta::CheckDataFilesExist(const SnapshotAttempt& attempt) const {
  std::set<std::string> referenced;
  for (const iceberg::DataFile* f : all_delete_files()) {
    if (f->content == iceberg::DataFileContent::kPositionDeletes && f->referenced_data_file) {
      referenced.insert(*f->referenced_data_file);
    }
  }
  if (referenced.empty()) return Ok();
  auto gone = [&](const std::string& what) -> Status {
    Error e = CommitFailed("table {}: {}; its position deletes are not committed (write them again from the "
                           "table as it is now)",
                           table()->id().ToString(), what)
                  .error();
    e.retryable = false;
    return Fail(std::move(e));
  };
  // The snapshots between the base and the head this attempt builds on.
  const iceberg::TableMetadata& md = attempt.metadata;
  for (const iceberg::Snapshot* s = attempt.parent; s;) {
    if (validate_from_ && s->snapshot_id == *validate_from_) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto manifests, internal::ReadManifests(*table(), *s));
    for (const auto& m : manifests) {
      if (m.content != iceberg::ManifestContent::kData || m.added_snapshot_id != s->snapshot_id ||
          m.deleted_files_count == 0) {
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(*table(), m, false));
      for (const auto& e : entries) {
        if (e.status == iceberg::ManifestEntryStatus::kDeleted && referenced.contains(e.data_file.file_path)) {
          return gone(fmt::format("data file {} was removed by snapshot {}", e.data_file.file_path,
                                  s->snapshot_id));
        }
      }
    }
    if (!s->parent_snapshot_id) break;
    s = md.SnapshotById(*s->parent_snapshot_id);
    if (!s) break;  // history expired: nothing older to check
  }
  if (validate_from_) {
    // The base is not an ancestor of the head (a rollback, or expired): the
    // files cannot be checked against it.
    if (!md.SnapshotById(*validate_from_)) return Ok();
    return gone(fmt::format("snapshot {} the deletes were written against is no longer an ancestor of the "
                            "branch head",
                            *validate_from_));
  }
  return Ok();
}

Result<std::vector<iceberg::ManifestFile>> RowDelta::ParentManifests(
    const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
    SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) {
  if (validate_data_files_) FLOE_RETURN_IF_ERROR(CheckDataFilesExist(attempt));
  // The data files this delta adds deletion vectors for: at most one vector
  // per data file may be live after the commit.
  std::set<std::string> vectors_of;
  for (const iceberg::DataFile* f : all_delete_files()) {
    if (iceberg::IsDeletionVector(*f) && f->referenced_data_file) vectors_of.insert(*f->referenced_data_file);
  }
  if (removed_.empty() && vectors_of.empty()) return parent;
  return ManifestFilter::DeleteFiles(removed_, std::move(vectors_of))
      .Apply(*table(), attempt, parent, summary, written);
}

}  // namespace floe::table
