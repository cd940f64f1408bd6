/// \file
/// A light, typed summary of a Parquet footer for readers and planners:
/// per row group and column, the sizes, codecs, encodings and statistics, with
/// min/max decoded into Iceberg's single-value binary form (Iceberg spec
/// Appendix D), so that row-group skipping can compare them with Iceberg
/// bounds. No Thrift types here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/types/type.h"

namespace floe::parquet {

/// Statistics of one column chunk, keyed by the floe field id of its leaf.
struct ColumnStats {
  int32_t field_id = 0;
  std::string path;        ///< dotted path_in_schema
  TypePtr type;            ///< floe type of the leaf as stored
  int64_t num_values = 0;  ///< entries (nulls included)
  std::optional<int64_t> null_count;
  std::optional<int64_t> nan_count;
  std::optional<std::string> lower;  ///< Iceberg single-value binary of the min
  std::optional<std::string> upper;  ///< Iceberg single-value binary of the max
  int64_t compressed_size = 0;
  int64_t uncompressed_size = 0;
};

/// What a row-group predicate sees.
struct RowGroupStats {
  int index = 0;
  int64_t num_rows = 0;
  int64_t first_row = 0;             ///< file position of the row group's first row
  std::vector<ColumnStats> columns;  ///< one per leaf column, in file order

  /// The column with this field id, or null.
  const ColumnStats* Find(int32_t field_id) const {
    for (const auto& c : columns) {
      if (c.field_id == field_id) return &c;
    }
    return nullptr;
  }
};

}  // namespace floe::parquet
