/// \file
/// Data file compaction with Iceberg's RewriteDataFiles semantics (the
/// bin-pack strategy of Spark's `rewrite_data_files` procedure):
///  - plan the live data files of the current snapshot of main (the starting
///    snapshot), those that may hold rows matching `where` when it is set;
///  - a file is a candidate when it is smaller than `min-file-size-bytes`,
///    larger than `max-file-size-bytes`, or has at least
///    `delete-file-threshold` delete files applying to it (any file with
///    `rewrite-all`);
///  - candidates are grouped per partition (of the spec they were written
///    with) and bin-packed into file groups of at most
///    `max-file-group-size-bytes`; a group is rewritten when it has at least
///    `min-input-files` files, or more than one file and more than the target
///    size in all, or a file over the maximum size or with too many deletes
///    (every group with `rewrite-all`);
///  - each group's rows are read with every delete of the starting snapshot
///    applied and written into files of about `target-file-size-bytes`, in
///    the group's spec and partition, by up to
///    `max-concurrent-file-group-rewrites` threads (never more than cores);
///  - the delete files that only the rewritten files needed are dropped:
///    deletion vectors and position delete files whose data files are all
///    rewritten, equality deletes with no remaining data file of a lower
///    sequence number in their partition (every partition for a global one);
///  - the result is committed as a `replace` snapshot by RewriteFiles
///    (rewrite_files.h), validated against the starting snapshot: one commit,
///    or with `partial-progress.enabled` up to `partial-progress.max-commits`
///    commits of whole groups each. A commit that fails removes the files it
///    wrote (unless its outcome is unknown).
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

/// The options of a rewrite (Spark's `rewrite_data_files` option names,
/// declared in the registry's rewrite scope).
struct RewriteDataFilesOptions {
  int64_t target_file_size_bytes = 0;
  int64_t min_file_size_bytes = 0;
  int64_t max_file_size_bytes = 0;
  int32_t min_input_files = 5;
  int32_t delete_file_threshold = INT32_MAX;
  bool rewrite_all = false;
  bool partial_progress = false;
  int32_t partial_progress_max_commits = 10;
  int32_t max_concurrent_file_group_rewrites = 5;
  int64_t max_file_group_size_bytes = int64_t{100} * 1024 * 1024 * 1024;
  /// Row filter (expr::Parse syntax) selecting the files that may hold
  /// matching rows; whole files are rewritten. Empty: every file.
  std::string where;
  /// How the new data files are written (the table's write properties, the
  /// target file size above).
  DataWriterOptions writer;

  /// Resolves the rewrite options in `options` (checked against the
  /// registry's rewrite scope: an unknown or unimplemented option is an error
  /// naming it) over the table's properties. Min > target, max < target and
  /// bad values are kInvalidArgument naming the option.
  static Result<RewriteDataFilesOptions> Resolve(const iceberg::TableMetadata& metadata,
                                                 const std::map<std::string, std::string>& options);
};

/// What a rewrite did (Spark's result columns, and the commits).
struct RewriteDataFilesResult {
  std::optional<int64_t> starting_snapshot_id;
  int64_t file_groups = 0;                ///< groups planned for rewrite
  int64_t rewritten_data_files_count = 0;  ///< committed
  int64_t added_data_files_count = 0;
  int64_t rewritten_bytes_count = 0;
  int64_t removed_delete_files_count = 0;
  int64_t failed_data_files_count = 0;  ///< in groups whose commit failed
  std::vector<int64_t> snapshot_ids;    ///< the commits, in order
  std::vector<std::string> errors;      ///< of the failed commits (partial progress)
};

/// Rewrites the table's data files (see the file comment). Without partial
/// progress, a failed commit is the error returned (kCommitFailed when a
/// concurrent commit conflicts); with it, failed commits are listed in the
/// result and the others stay committed.
Result<RewriteDataFilesResult> RewriteDataFiles(Table* table, const RewriteDataFilesOptions& options);

}  // namespace floe::table
