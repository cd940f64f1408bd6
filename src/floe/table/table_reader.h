/// \file
/// Reading planned scans into Batches (Iceberg spec: Column Projection,
/// Scan Planning, Position Delete Files, Equality Delete Files):
///  - each data file range is read with the Parquet reader projected by field
///    id (type promotion included); a column absent from a file reads as the
///    identity-partition value when the field is an identity source, else its
///    `initial-default`, else null; files without field ids are read through
///    the table's `schema.name-mapping.default`;
///  - position deletes (rows whose `file_path` equals the data file's path),
///    v3 deletion vectors (a Puffin blob per data file: iceberg/puffin.h,
///    iceberg/deletion_vector.h) and equality deletes (null-safe, on
///    `equality_ids` only) are applied, then the row filter (exact), then the
///    limit. Each delete file is read once per scan (DeleteCache): position
///    lists by data file, decoded vectors, and one key index per set of
///    equality ids shared by every data file (EqualityDeleteIndex), so a data
///    file costs one hash probe per row whatever the number of delete files;
///  - splits are read by a small pool of threads, in plan order by default.
/// Every file is opened by its stored location through a FileIO (a table's,
/// or the local file system with prefix mappings: io::MappedFileIO).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "floe/io/file_io.h"
#include "floe/io/location.h"
#include "floe/table/scan.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::table {

/// Options of a TableReader.
struct TableReaderOptions {
  /// Splits read at once (1 = on the caller's thread). Like write-parallelism.
  int threads = 1;
  /// Batches come out in plan order (split by split) when true; in the order
  /// splits finish otherwise.
  bool preserve_order = true;
  /// Rows per batch at most.
  int64_t batch_rows = 65536;
};

class TableReaderImpl;

/// Reads every split of a plan.
class TableReader {
 public:
  /// The plan is copied (shared metadata); files are opened through `files`.
  static Result<std::unique_ptr<TableReader>> Make(ScanPlan plan, io::FileIOPtr files,
                                                   TableReaderOptions options = {});
  /// The same on the local file system, through the prefix mappings of `mapper`.
  static Result<std::unique_ptr<TableReader>> Make(ScanPlan plan, LocationMapper mapper,
                                                   TableReaderOptions options = {});
  ~TableReader();

  /// The schema of the batches (the plan's projected schema).
  SchemaPtr schema() const;

  /// The next non-empty batch into `out`; false at the end (or once `limit`
  /// rows were returned). The first error stops the read.
  Result<bool> Next(Batch* out);

 private:
  explicit TableReader(std::unique_ptr<TableReaderImpl> impl);
  std::unique_ptr<TableReaderImpl> impl_;
};

/// Delete files already read, shared by the ranges of one scan (a position
/// delete file usually covers many data files, an equality delete file every
/// older data file, a Puffin file the vectors of many). Thread-safe; grows for
/// the life of the scan.
class DeleteCache;
/// A new, empty cache.
std::shared_ptr<DeleteCache> MakeDeleteCache();

/// Reads one range of one planned file, calling `emit` with each non-empty
/// batch of the projected schema (deletes and filter applied; no limit).
/// `cache` (optional) keeps delete files read for later ranges.
Status ReadFileRange(const ScanPlan& plan, const FileScanTask& task, const FileRange& range,
                     io::FileIO& files, int64_t batch_rows,
                     const std::function<Status(Batch&&)>& emit, DeleteCache* cache = nullptr);
/// The same on the local file system, through the prefix mappings of `mapper`.
Status ReadFileRange(const ScanPlan& plan, const FileScanTask& task, const FileRange& range,
                     const LocationMapper& mapper, int64_t batch_rows,
                     const std::function<Status(Batch&&)>& emit, DeleteCache* cache = nullptr);

/// The row positions of `task`'s data file deleted by its position delete
/// files and deletion vector (not its equality deletes), ascending and
/// distinct: what a new deletion vector for the file must carry over (Iceberg
/// spec: Deletion Vectors). `plan` gives the table (PlanShape is enough).
Result<std::vector<int64_t>> DeletedPositions(const ScanPlan& plan, const FileScanTask& task, io::FileIO& files);

/// Convenience: plans nothing, reads the whole plan into a vector of batches.
Result<std::vector<Batch>> ReadAll(const ScanPlan& plan, io::FileIOPtr files,
                                   TableReaderOptions options = {});
/// The same on the local file system, through the prefix mappings of `mapper`.
Result<std::vector<Batch>> ReadAll(const ScanPlan& plan, const LocationMapper& mapper,
                                   TableReaderOptions options = {});

}  // namespace floe::table
