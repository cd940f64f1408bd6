// RowDelta: the removal of the deletion vectors a merged one replaces, and
// the check that no other writer's vector for the same data files appeared.
#include "floe/table/row_delta.h"

#include "floe/iceberg/deletion_vector.h"
#include "floe/table/manifest_filter.h"
#include "floe/table/scan.h"

namespace floe::table {

RowDelta& RowDelta::RemoveDeleteFile(const iceberg::DataFile& file) {
  removed_.insert(DeleteFileKey(file));
  return *this;
}

Result<std::vector<iceberg::ManifestFile>> RowDelta::ParentManifests(
    const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
    SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) {
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
