/// \file
/// Split planning for parallel scans (Flink's `split-size`, `split-lookback`,
/// `split-file-open-cost`; Iceberg's read.split.* table properties): data
/// files are cut into byte ranges at their split offsets (row-group starts),
/// then ranges are bin-packed into splits of about `split-size` bytes, each
/// range weighing at least the file-open cost, with at most `lookback` bins
/// open at once.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "floe/config/options.h"
#include "floe/util/status.h"

namespace floe::table {

/// A byte range of one planned file (its index in the planner's input).
struct FileRange {
  int64_t file = 0;
  int64_t start = 0;
  int64_t length = 0;
  int64_t weight = 0;  ///< bytes this range costs in a split (length + deletes, >= open cost)
};

struct SplitOptions {
  int64_t split_size = config::DefaultOf(config::keys::kReadSplitTargetSize);     ///< / split-size
  int32_t lookback = config::DefaultOf(config::keys::kReadSplitPlanningLookback);  ///< / split-lookback
  int64_t open_file_cost = config::DefaultOf(config::keys::kReadSplitOpenFileCost);  ///< / split-file-open-cost

  Status Validate() const;
};

/// Cuts one file into ranges no longer than `split_size`, at `split_offsets`
/// when the file has valid ones (ascending, inside the file), otherwise at
/// fixed `split_size` steps. `extra_weight` (delete files to apply) is spread
/// over the ranges; each range weighs at least `open_file_cost`.
std::vector<FileRange> SplitFile(int64_t file, int64_t file_size, std::span<const int64_t> split_offsets,
                                 int64_t extra_weight, const SplitOptions& options);

/// Packs ranges into splits: each range goes to the first open bin where it
/// fits; when none does a bin is opened, and past `lookback` open bins the
/// oldest is closed. Order within and across splits follows the input.
std::vector<std::vector<FileRange>> PackSplits(std::span<const FileRange> ranges,
                                               const SplitOptions& options);

}  // namespace floe::table
