/// \file
/// The deletion vectors of one commit to a format version 3 table (Iceberg
/// spec: Deletion Vectors; Puffin spec: deletion-vector-v1): the caller names
/// the deleted row positions of each data file, Write() merges them with
/// what the table already deletes in that file (its live deletion vector and,
/// in a table upgraded from v2, its position delete files), writes one Puffin
/// file with one vector per data file, and returns the delete files to add
/// and the old vectors to remove; DeletionVectorUpdate::AddTo hands both to a
/// RowDelta, which commits them in one snapshot (the spec allows one live
/// vector per data file). A RowDelta that meets a vector it did not merge
/// (another writer's) fails as known-failed, not retried: write the vectors
/// again from the reloaded table.
///
/// With position_files_on_v2 set, a format version 2 table gets the same
/// merge written as Parquet position delete files instead: one per data file
/// (`referenced_data_file` set, Iceberg's write.delete.granularity=file),
/// holding the file's new positions and those its live deletes had, and the
/// live file-scoped position delete files of that data file are removed in
/// the same commit — a data file keeps one position delete file however many
/// commits change it (as Iceberg's Spark writer keeps file-scoped deletes),
/// instead of one more per commit that every scan must open.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/table/data_writer.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

class RowDelta;
struct FileScanTask;
struct ScanPlan;

/// What one DeletionVectorWriter::Write produced.
struct DeletionVectorUpdate {
  /// One new vector (or, on v2, position delete file), for the data file its
  /// referenced_data_file names.
  struct Vector {
    iceberg::DataFile file;  ///< content 1, PUFFIN, offset, size, record_count = cardinality (v2: PARQUET)
    int32_t spec_id = 0;     ///< the data file's spec (the vector shares its partition)
  };
  /// The Puffin file written (empty when nothing was deleted).
  std::string puffin_location;
  std::vector<Vector> added;
  /// The live vectors (v2: file-scoped position delete files) the added ones
  /// replace (merged into them).
  std::vector<iceberg::DataFile> removed;
  /// The snapshot the vectors were merged against (none for an empty table).
  std::optional<int64_t> base_snapshot_id;

  bool empty() const { return added.empty(); }
  /// Adds the vectors to `delta` (AddDeleteFile with their spec), removes
  /// the old ones (RemoveDeleteFile) and has it check that no snapshot since
  /// the base removed their data files (ValidateDataFilesExist).
  void AddTo(RowDelta* delta) const;
};

/// Collects deleted positions per data file and writes them as deletion
/// vectors. One writer per commit; not thread-safe.
class DeletionVectorWriter {
 public:
  /// Writes for `table` (format version 3, else Write fails with
  /// kInvalidArgument), merging with the vectors live at the head of
  /// `branch`. Files go through `factory` (shared with the commit's data
  /// writers so names never clash), else a new factory on the table's data
  /// location.
  explicit DeletionVectorWriter(Table* table, std::shared_ptr<OutputFileFactory> factory = nullptr,
                                std::string branch = std::string(iceberg::kMainBranch));
  ~DeletionVectorWriter();
  DeletionVectorWriter(const DeletionVectorWriter&) = delete;
  DeletionVectorWriter& operator=(const DeletionVectorWriter&) = delete;

  /// Deletes rows `positions` (0-based, any order, repeats allowed) of the
  /// data file whose file_path is `data_file_path`: a live data file of the
  /// table (Write fails with kNotFound otherwise), or one declared with
  /// AddedDataFile. kInvalidArgument for a negative position.
  Status Delete(std::string_view data_file_path, std::span<const int64_t> positions);
  /// Declares a data file that the same commit adds (so it is not in the
  /// table yet): its deletes need no merge; its spec and partition are taken
  /// from here.
  void AddedDataFile(const iceberg::DataFile& file, int32_t spec_id);

  /// Data files with deletes so far.
  size_t data_files() const { return deletes_.size(); }
  /// On a format version 2 table, Write writes Parquet position delete files
  /// (see the file comment) instead of refusing the table.
  void set_position_files_on_v2(bool on) { position_files_on_v2_ = on; }

  /// Merges and writes (see the file comment). Reads the manifests of the
  /// branch head once, and the existing deletes of each named data file.
  /// Call once.
  Result<DeletionVectorUpdate> Write();
  /// Removes the files written (the commit failed before publishing).
  void Abort();

 private:
  Table* table_;
  std::shared_ptr<OutputFileFactory> factory_;
  std::string branch_;
  std::map<std::string, std::vector<int64_t>, std::less<>> deletes_;  ///< by data file path
  struct Added {
    iceberg::DataFile file;
    int32_t spec_id = 0;
  };
  std::map<std::string, Added, std::less<>> added_files_;
  /// The new positions of `t`'s data file with those its live deletes have.
  Result<std::vector<int64_t>> MergedPositions(const ScanPlan& plan, const FileScanTask& t) const;
  Result<DeletionVectorUpdate> WritePositionFiles(const iceberg::TableMetadata& md, const ScanPlan& plan,
                                                  const std::vector<FileScanTask>& files,
                                                  const DataWriterOptions& options, DeletionVectorUpdate out);

  std::vector<std::string> written_;  ///< the files written (the Puffin file, or v2's position delete files)
  bool position_files_on_v2_ = false;
  bool done_ = false;
};

}  // namespace floe::table
