// OverwriteFiles: the removal set of a partition or full overwrite.
#include "floe/table/overwrite_files.h"

#include <set>

#include "floe/table/manifest_filter.h"
#include "floe/table/table_internal.h"

namespace floe::table {

Result<std::vector<iceberg::ManifestFile>> OverwriteFiles::ParentManifests(
    const SnapshotAttempt& attempt, std::vector<iceberg::ManifestFile> parent,
    SnapshotSummaryBuilder* summary, internal::WrittenFiles* written) {
  ManifestFilter filter = ManifestFilter::All();
  if (mode_ == OverwriteMode::kPartitions && !attempt.spec.is_unpartitioned()) {
    // The partitions the added data files fall in, as tuples of the spec they
    // were written with.
    std::set<std::string> touched;
    for (const auto& f : data_files())
      touched.insert(internal::PartitionKey(attempt.spec.spec_id(), f.partition));
    filter = ManifestFilter::Partitions(std::move(touched));
  }
  return filter.Apply(*table(), attempt, parent, summary, written);
}

iceberg::SnapshotOperation OverwriteFiles::Operation() const {
  // Files are (logically) removed: `delete` when nothing is added.
  return data_files().empty() && delete_files().empty() ? iceberg::SnapshotOperation::kDelete
                                                        : iceberg::SnapshotOperation::kOverwrite;
}

}  // namespace floe::table
