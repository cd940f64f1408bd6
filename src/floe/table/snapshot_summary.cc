// SnapshotSummaryBuilder and the totals of a snapshot.
#include "floe/table/snapshot_summary.h"

#include "floe/table/table_internal.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;

void FileTotals::Add(const DataFile& f, int sign) {
  // A deletion vector's size is its blob's: the vectors of one commit share
  // a Puffin file (Java counts them so too).
  const bool vector = f.file_format == iceberg::FileFormat::kPuffin && f.content_size_in_bytes;
  files_size += sign * (vector ? *f.content_size_in_bytes : f.file_size_in_bytes);
  if (f.content == DataFileContent::kData) {
    records += sign * f.record_count;
    data_files += sign;
  } else {
    delete_files += sign;
    (f.content == DataFileContent::kPositionDeletes ? position_deletes : equality_deletes) +=
        sign * f.record_count;
  }
}

Result<FileTotals> TotalsOf(const Table& table, const iceberg::Snapshot* head) {
  FileTotals t;
  if (!head) return t;
  const auto& s = head->summary;
  static const char* kKeys[] = {"total-records",          "total-files-size",
                                "total-data-files",       "total-delete-files",
                                "total-position-deletes", "total-equality-deletes"};
  bool complete = true;
  for (const char* k : kKeys) complete &= s.contains(k);
  if (complete) {
    t.records = internal::ParseLongOr(s, "total-records", 0);
    t.files_size = internal::ParseLongOr(s, "total-files-size", 0);
    t.data_files = internal::ParseLongOr(s, "total-data-files", 0);
    t.delete_files = internal::ParseLongOr(s, "total-delete-files", 0);
    t.position_deletes = internal::ParseLongOr(s, "total-position-deletes", 0);
    t.equality_deletes = internal::ParseLongOr(s, "total-equality-deletes", 0);
    return t;
  }
  // A parent written by a tool that leaves totals out: count its live files.
  FLOE_ASSIGN_OR_RETURN(auto entries, LiveEntries(table, *head));
  for (const auto& e : entries) t.Add(e.data_file, 1);
  return t;
}

void SnapshotSummaryBuilder::AddedFile(int32_t spec_id, const DataFile& file) {
  added_.Add(file, 1);
  if (file.file_format == iceberg::FileFormat::kPuffin) {
    ++added_dvs_;
  } else if (file.content == DataFileContent::kPositionDeletes) {
    ++added_position_delete_files_;
  }
  if (file.content == DataFileContent::kEqualityDeletes) ++added_equality_delete_files_;
  changed_partitions_.insert(internal::PartitionKey(spec_id, file.partition));
}

void SnapshotSummaryBuilder::RemovedFile(int32_t spec_id, const DataFile& file) {
  removed_.Add(file, 1);
  if (file.file_format == iceberg::FileFormat::kPuffin) {
    ++removed_dvs_;
  } else if (file.content == DataFileContent::kPositionDeletes) {
    ++removed_position_delete_files_;
  }
  if (file.content == DataFileContent::kEqualityDeletes) ++removed_equality_delete_files_;
  changed_partitions_.insert(internal::PartitionKey(spec_id, file.partition));
}

std::map<std::string, std::string> SnapshotSummaryBuilder::Build(
    const std::map<std::string, std::string>& properties, const FileTotals& parent) const {
  std::map<std::string, std::string> summary = properties;
  auto put = [&](const char* k, int64_t v, bool always = false) {
    if (v != 0 || always) summary[k] = std::to_string(v);
  };
  put("added-data-files", added_.data_files);
  put("deleted-data-files", removed_.data_files);
  put("added-records", added_.records);
  put("deleted-records", removed_.records);
  put("added-delete-files", added_.delete_files);
  put("removed-delete-files", removed_.delete_files);
  put("added-position-delete-files", added_position_delete_files_);
  put("added-equality-delete-files", added_equality_delete_files_);
  put("removed-position-delete-files", removed_position_delete_files_);
  put("removed-equality-delete-files", removed_equality_delete_files_);
  put("added-dvs", added_dvs_);
  put("removed-dvs", removed_dvs_);
  put("added-position-deletes", added_.position_deletes);
  put("added-equality-deletes", added_.equality_deletes);
  put("removed-position-deletes", removed_.position_deletes);
  put("removed-equality-deletes", removed_.equality_deletes);
  put("added-files-size", added_.files_size);
  put("removed-files-size", removed_.files_size);
  put("changed-partition-count", static_cast<int64_t>(changed_partitions_.size()), true);
  FileTotals total = parent;
  total.records += added_.records - removed_.records;
  total.files_size += added_.files_size - removed_.files_size;
  total.data_files += added_.data_files - removed_.data_files;
  total.delete_files += added_.delete_files - removed_.delete_files;
  total.position_deletes += added_.position_deletes - removed_.position_deletes;
  total.equality_deletes += added_.equality_deletes - removed_.equality_deletes;
  put("total-records", total.records, true);
  put("total-files-size", total.files_size, true);
  put("total-data-files", total.data_files, true);
  put("total-delete-files", total.delete_files, true);
  put("total-position-deletes", total.position_deletes, true);
  put("total-equality-deletes", total.equality_deletes, true);
  return summary;
}

}  // namespace floe::table
