/// \file
/// The summary of a new snapshot (Iceberg spec: Snapshots, Appendix F
/// "Snapshot Summary"): the `added-*`, `deleted-*` / `removed-*` counts of the
/// files a commit adds and removes, `changed-partition-count`, and the
/// `total-*` counts of the table after it, carried forward from the parent's
/// summary. Values are decimal strings; a count that is zero is left out,
/// except `changed-partition-count` and the totals.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "floe/iceberg/manifest.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

/// Record, file and byte counts of a set of content files.
struct FileTotals {
  int64_t records = 0;  ///< rows of data files
  int64_t files_size = 0;
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t position_deletes = 0;  ///< rows of position delete files
  int64_t equality_deletes = 0;  ///< rows of equality delete files

  /// Counts `file` in (`sign` 1) or out (-1).
  void Add(const iceberg::DataFile& file, int sign);
};

/// The totals of the table at `head` (none: an empty table): from its
/// summary's `total-*` properties when all six are there, else counted from
/// its live entries.
Result<FileTotals> TotalsOf(const Table& table, const iceberg::Snapshot* head);

/// Collects what one commit attempt adds and removes, then renders the summary.
class SnapshotSummaryBuilder {
 public:
  /// A file the snapshot adds, of partition spec `spec_id`.
  void AddedFile(int32_t spec_id, const iceberg::DataFile& file);
  /// A live file of the parent that the snapshot removes.
  void RemovedFile(int32_t spec_id, const iceberg::DataFile& file);

  /// Whether any file was removed.
  bool removed_any() const { return removed_.data_files + removed_.delete_files > 0; }

  /// `properties` (the caller's), then the counts (which win over a property
  /// of the same name), with the totals of `parent` moved by what was added
  /// and removed.
  std::map<std::string, std::string> Build(const std::map<std::string, std::string>& properties,
                                           const FileTotals& parent) const;

 private:
  FileTotals added_, removed_;
  int64_t added_position_delete_files_ = 0;
  int64_t added_equality_delete_files_ = 0;
  int64_t removed_position_delete_files_ = 0;  ///< Java's `removed-position-delete-files` (Parquet/Avro/ORC, not vectors)
  int64_t removed_equality_delete_files_ = 0;
  int64_t added_dvs_ = 0;    ///< deletion vectors (Java's `added-dvs`)
  int64_t removed_dvs_ = 0;
  std::set<std::string>
      changed_partitions_;  ///< internal::PartitionKey of every file added or removed
};

}  // namespace floe::table
