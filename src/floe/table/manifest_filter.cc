// ManifestFilter: rewrites the parent manifests that hold removed files.
#include "floe/table/manifest_filter.h"

#include <algorithm>

#include "floe/iceberg/manifest_io.h"
#include "floe/table/table_internal.h"
#include "floe/util/uuid.h"

namespace floe::table {

using iceberg::ManifestEntry;
using iceberg::ManifestFile;

ManifestFilter ManifestFilter::All() {
  ManifestFilter f;
  f.all_ = true;
  return f;
}

ManifestFilter ManifestFilter::Partitions(std::set<std::string> partitions) {
  ManifestFilter f;
  f.partitions_ = std::move(partitions);
  return f;
}

bool ManifestFilter::Removes(int32_t spec_id, const ManifestEntry& e) const {
  if (!e.is_live()) return false;
  return all_ || partitions_.contains(internal::PartitionKey(spec_id, e.data_file.partition));
}

Result<std::vector<ManifestFile>> ManifestFilter::Apply(const Table& table,
                                                        const SnapshotAttempt& attempt,
                                                        const std::vector<ManifestFile>& parent,
                                                        SnapshotSummaryBuilder* summary,
                                                        internal::WrittenFiles* written) const {
  const iceberg::TableMetadata& md = attempt.metadata;
  std::vector<ManifestFile> carried;
  for (const auto& m : parent) {
    FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(table, m, true));
    auto removes = [&](const ManifestEntry& e) { return Removes(m.partition_spec_id, e); };
    if (std::none_of(entries.begin(), entries.end(), removes)) {
      carried.push_back(m);
      continue;
    }
    const iceberg::PartitionSpec* mspec = md.SpecById(m.partition_spec_id);
    if (!mspec)
      return Corrupt("manifest {} names unknown spec {}", m.manifest_path, m.partition_spec_id);
    const std::string location =
        internal::MetadataFile(table, fmt::format("{}-m{}.avro", RandomUuid(), carried.size()));
    FLOE_ASSIGN_OR_RETURN(auto out, table.io()->NewOutput(location));
    written->locations.push_back(location);
    FLOE_ASSIGN_OR_RETURN(auto w,
                          iceberg::ManifestWriter::Open(std::move(out), *md.CurrentSchema(), *mspec,
                                                        m.content, attempt.snapshot_id));
    for (const auto& e : entries) {
      if (!e.is_live()) continue;  // deletions of earlier snapshots are not carried
      const bool removed = removes(e);
      FLOE_ASSIGN_OR_RETURN(ManifestEntry next, removed
                                                    ? iceberg::DeletedEntry(e, attempt.snapshot_id)
                                                    : iceberg::ExistingEntry(e));
      if (removed) summary->RemovedFile(m.partition_spec_id, e.data_file);
      FLOE_RETURN_IF_ERROR(w->Add(next));
    }
    FLOE_ASSIGN_OR_RETURN(auto mf, w->Close());
    mf.manifest_path = location;
    carried.push_back(std::move(mf));
  }
  return carried;
}

}  // namespace floe::table
