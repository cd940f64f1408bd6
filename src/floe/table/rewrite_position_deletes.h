/// \file
/// Position delete compaction (Spark's `rewrite_position_delete_files`
/// procedure): the live position delete files and deletion vectors of the
/// current snapshot of main are replaced by fewer that delete the same rows:
///  - format v2: one position delete file per partition (rolled at
///    `target-file-size-bytes`; it names its data file in
///    `referenced_data_file` when it holds one), when the table has at least
///    `min-input-files` position delete files (any with `rewrite-all`);
///  - format v3: one deletion vector per data file, for the data files that
///    still have position delete files (a table upgraded from v2) besides or
///    instead of a vector.
/// Deletes of data files that are no longer live (dangling) are dropped. The
/// commit is a `replace` snapshot (RewriteFiles, rewrite_files.h) validated
/// against the snapshot read: the replaced delete files must still be live,
/// their data files too, and no other position delete or vector for those
/// data files may have been committed meanwhile; otherwise it fails with
/// kCommitFailed and removes what it wrote.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/table/data_writer.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

struct RewritePositionDeletesOptions {
  int32_t min_input_files = 5;
  bool rewrite_all = false;
  DataWriterOptions writer;

  /// The options in `options`: rewrite-scope options, of which this command
  /// takes target-file-size-bytes, min-input-files and rewrite-all (others
  /// are kInvalidArgument naming them).
  static Result<RewritePositionDeletesOptions> Resolve(const iceberg::TableMetadata& metadata,
                                                       const std::map<std::string, std::string>& options);
};

struct RewritePositionDeletesResult {
  std::optional<int64_t> starting_snapshot_id;
  int64_t rewritten_delete_files_count = 0;  ///< position delete files and vectors replaced
  int64_t added_delete_files_count = 0;      ///< written (vectors count one each)
  int64_t rewritten_bytes_count = 0;
  int64_t added_bytes_count = 0;
  std::optional<int64_t> snapshot_id;
};

Result<RewritePositionDeletesResult> RewritePositionDeletes(Table* table,
                                                            const RewritePositionDeletesOptions& options);

}  // namespace floe::table
