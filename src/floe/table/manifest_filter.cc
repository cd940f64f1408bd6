// ManifestFilter: rewrites the parent manifests that hold removed files.
#include "floe/table/manifest_filter.h"

#include <algorithm>

#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/table/scan.h"
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

ManifestFilter ManifestFilter::DeleteFiles(std::set<std::string> keys, std::set<std::string> vectors_of) {
  ManifestFilter f;
  f.delete_files_ = true;
  f.delete_keys_ = std::move(keys);
  f.vectors_of_ = std::move(vectors_of);
  return f;
}

ManifestFilter ManifestFilter::Files(std::set<std::string> data_paths, std::set<std::string> delete_keys) {
  ManifestFilter f;
  f.files_ = true;
  f.data_paths_ = std::move(data_paths);
  f.delete_keys_ = std::move(delete_keys);
  return f;
}

bool ManifestFilter::Removes(int32_t spec_id, const ManifestEntry& e) const {
  if (!e.is_live()) return false;
  if (files_) {
    return e.data_file.content == iceberg::DataFileContent::kData
               ? data_paths_.contains(e.data_file.file_path)
               : delete_keys_.contains(DeleteFileKey(e.data_file));
  }
  if (delete_files_) {
    return e.data_file.content != iceberg::DataFileContent::kData && delete_keys_.contains(DeleteFileKey(e.data_file));
  }
  return all_ || partitions_.contains(internal::PartitionKey(spec_id, e.data_file.partition));
}

Result<std::vector<ManifestFile>> ManifestFilter::Apply(const Table& table,
                                                        const SnapshotAttempt& attempt,
                                                        const std::vector<ManifestFile>& parent,
                                                        SnapshotSummaryBuilder* summary,
                                                        internal::WrittenFiles* written) const {
  const iceberg::TableMetadata& md = attempt.metadata;
  std::vector<ManifestFile> carried;
  std::set<std::string> found;  // delete_files_: the keys seen live
  std::set<std::string> found_files;  // files_: data paths and delete keys seen live
  auto conflict = [&](std::string what) -> Error {
    Error e = CommitFailed("table {}: {}; the deletes were merged without it, so this commit is not "
                           "published (write them again from the table as it is now)",
                           table.id().ToString(), what)
                  .error();
    e.retryable = false;  // a retry would list the same stale deletes
    return e;
  };
  for (const auto& m : parent) {
    if (delete_files_ && m.content == iceberg::ManifestContent::kData) {
      carried.push_back(m);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(table, m, true));
    auto removes = [&](const ManifestEntry& e) { return Removes(m.partition_spec_id, e); };
    if (files_) {
      for (const auto& e : entries) {
        if (!removes(e)) continue;
        found_files.insert(e.data_file.content == iceberg::DataFileContent::kData ? e.data_file.file_path
                                                                                 : DeleteFileKey(e.data_file));
      }
    }
    if (delete_files_) {
      for (const auto& e : entries) {
        if (!e.is_live()) continue;
        if (removes(e)) {
          found.insert(DeleteFileKey(e.data_file));
        } else if (iceberg::IsDeletionVector(e.data_file) && e.data_file.referenced_data_file &&
                   vectors_of_.contains(*e.data_file.referenced_data_file)) {
          return Fail(conflict(fmt::format("another commit added {} for data file {}",
                                           iceberg::DeletionVectorName(e.data_file),
                                           *e.data_file.referenced_data_file)));
        }
      }
    }
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
    iceberg::ManifestWriteOptions options;
    options.format_version = md.format_version;
    FLOE_ASSIGN_OR_RETURN(auto w,
                          iceberg::ManifestWriter::Open(std::move(out), *md.CurrentSchema(), *mspec,
                                                        m.content, attempt.snapshot_id, options));
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
  if (files_ && found_files.size() != data_paths_.size() + delete_keys_.size()) {
    for (const auto* set : {&data_paths_, &delete_keys_}) {
      for (const auto& k : *set) {
        if (found_files.contains(k)) continue;
        Error e = CommitFailed("table {}: file {} the rewrite replaces is no longer live (another commit removed "
                               "it since the rewrite began); nothing is committed (run the rewrite again)",
                               table.id().ToString(), k)
                      .error();
        e.retryable = false;
        return Fail(std::move(e));
      }
    }
  }
  if (delete_files_ && found.size() != delete_keys_.size()) {
    for (const auto& k : delete_keys_) {
      if (!found.contains(k)) return Fail(conflict(fmt::format("delete file {} is no longer live", k)));
    }
  }
  return carried;
}

}  // namespace floe::table
