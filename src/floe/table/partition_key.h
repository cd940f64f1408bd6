/// \file
/// Partition keys of rows being written (Iceberg spec: Partitioning, Partition
/// Transforms): computing the partition tuple of every row of a batch with the
/// vectorized transforms (source fields may sit inside structs), grouping the
/// rows by distinct tuple, and the partition folder names Java writes
/// (`PartitionSpec.partitionToPath`: `name=value/...`, each part URL-encoded,
/// values in the transforms' human-readable form: `2024-01-02`,
/// `2024-01-02-10`, `2024-01`, `2024`, `null`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/value.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::table {

/// Hash of a partition tuple (for unordered maps keyed by iceberg::Values).
struct PartitionTupleHash {
  size_t operator()(const iceberg::Values& values) const;
};

/// Java's `URLEncoder.encode(s, UTF_8)`: ASCII letters, digits and `.-*_`
/// stay, a space becomes `+`, every other byte becomes `%XX` (upper-case hex).
std::string UrlEncode(std::string_view text);

/// The human-readable form of a partition value as Java's
/// `Transform.toHumanString` prints it: `null` for null; year/month/day/hour
/// ordinals as `2024`, `2024-01`, `2024-01-02`, `2024-01-02-10`; identity and
/// truncate values by source type (dates ISO, times and timestamps as
/// java.time prints them, timestamptz with `Z`, binary/fixed as base64, uuid
/// canonical, decimals as BigDecimal.toString, floats as Double.toString).
/// `source` is the partition field's source column type.
std::string HumanString(const iceberg::Transform& transform, const Type& source,
                        const iceberg::Value& value);

/// `name=value/name=value` for one partition tuple (no leading or trailing
/// slash; empty for an unpartitioned spec). kInvalidArgument when the tuple
/// does not fit the spec (count or types).
Result<std::string> PartitionPath(const iceberg::PartitionSpec& spec, const Schema& schema,
                                  const iceberg::Values& partition);

/// Rows of one batch that share a partition tuple.
struct PartitionGroup {
  iceberg::Values partition;
  std::vector<int64_t> rows;  ///< ascending row indices
};

/// Computes partition tuples for batches of one schema under one spec. Built
/// once per (spec, schema); `Group` is the per-batch hot path: one transform
/// call per partition field over a whole column, then rows are grouped by
/// dense per-column codes, with no per-value allocation or virtual call.
class PartitionKeyer {
 public:
  /// Resolves each partition field's source column in `schema` (through
  /// structs; not inside lists or maps) and checks that its transform applies.
  /// kNotFound / kInvalidArgument naming the partition field otherwise.
  static Result<PartitionKeyer> Make(const iceberg::PartitionSpec& spec, SchemaPtr schema);

  const iceberg::PartitionSpec& spec() const { return spec_; }
  bool unpartitioned() const { return sources_.empty(); }

  /// The partition tuple of every row, grouped: groups in order of first
  /// appearance. A batch with zero rows gives no group. A batch whose schema
  /// does not have the source columns where `Make` found them is an error.
  Result<std::vector<PartitionGroup>> Group(const Batch& batch) const;

  /// The partition tuple of one row.
  Result<iceberg::Values> TupleOf(const Batch& batch, int64_t row) const;

 private:
  struct Source {
    std::vector<int> path;  ///< child indices from the top-level column to the source
    iceberg::Transform transform;
    TypePtr source_type;
  };
  /// The source column of field `k` with ancestor nulls folded into its validity.
  Result<ColumnVector> TransformedColumn(const Batch& batch, size_t k) const;

  iceberg::PartitionSpec spec_;
  SchemaPtr schema_;
  std::vector<Source> sources_;  ///< one per spec field, in spec order
};

}  // namespace floe::table
