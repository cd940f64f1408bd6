/// \file
/// Partition and sort transforms (Iceberg spec: Partition Transforms, Bucket
/// and Truncate Transform Details, Appendix B): parsing and printing their
/// names, which source types each accepts, their result types, and applying
/// them to whole columns (the hot path of partitioned writes) or single values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/iceberg/value.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// The kinds of transform. kUnknown keeps a transform this version does not
/// know, so tables using one can still be read (Iceberg spec: Partitioning);
/// it cannot be applied or used to write.
enum class TransformKind : uint8_t {
  kIdentity,
  kBucket,
  kTruncate,
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  kUnknown,
};

/// A transform with its parameter (bucket count N, truncate width W).
class Transform {
 public:
  Transform() = default;

  static Transform Identity() { return Transform(TransformKind::kIdentity, 0); }
  static Transform Bucket(int32_t n) { return Transform(TransformKind::kBucket, n); }
  static Transform Truncate(int32_t width) { return Transform(TransformKind::kTruncate, width); }
  static Transform Year() { return Transform(TransformKind::kYear, 0); }
  static Transform Month() { return Transform(TransformKind::kMonth, 0); }
  static Transform Day() { return Transform(TransformKind::kDay, 0); }
  static Transform Hour() { return Transform(TransformKind::kHour, 0); }
  static Transform Void() { return Transform(TransformKind::kVoid, 0); }

  /// Parses "identity", "bucket[16]", "truncate[4]", "year", "month", "day",
  /// "hour", "void" (case-insensitive, as Java). With `allow_unknown`, other
  /// names give a kUnknown transform that keeps its text; otherwise they are a
  /// kInvalidArgument error. A bad parameter ("bucket[0]", "bucket[x]") is
  /// always an error.
  static Result<Transform> Parse(std::string_view text, bool allow_unknown = false);

  TransformKind kind() const { return kind_; }
  /// N for bucket, W for truncate, 0 otherwise.
  int32_t param() const { return param_; }
  bool is_unknown() const { return kind_ == TransformKind::kUnknown; }
  /// True for year, month, day and hour.
  bool is_time() const;

  /// The spec spelling: "bucket[16]", "day", or an unknown transform's text.
  std::string ToString() const;

  /// True if this transform accepts the source type (see the spec's table).
  bool CanTransform(const Type& source) const;
  /// The result type for a source type: identity/truncate/void keep it, bucket,
  /// year, month and hour give int, day gives date (as Java writes it).
  /// kInvalidArgument naming the transform and type when not accepted.
  Result<TypePtr> ResultType(const TypePtr& source) const;

  /// Applies the transform to every row of a column; nulls stay null.
  /// The result has ResultType(source.type). No per-value allocation.
  Result<ColumnVector> Apply(const ColumnVector& source) const;
  /// Applies the transform to one value of type `source`.
  Result<Value> Apply(const TypePtr& source, const Value& value) const;

  /// The Java default partition field name for a source column: the source name
  /// for identity, otherwise `<source>_bucket`, `_trunc`, `_year`, `_month`,
  /// `_day`, `_hour`, `_null` (void). (Iceberg Java PartitionSpec.Builder)
  std::string DefaultPartitionName(std::string_view source_name) const;

  bool operator==(const Transform& other) const {
    return kind_ == other.kind_ && param_ == other.param_ && unknown_text_ == other.unknown_text_;
  }

 private:
  Transform(TransformKind kind, int32_t param) : kind_(kind), param_(param) {}

  TransformKind kind_ = TransformKind::kIdentity;
  int32_t param_ = 0;
  std::string unknown_text_;
};

/// bucket[N] of one hash: (hash & INT_MAX) % N (Iceberg spec: Bucket Transform Details).
inline int32_t BucketOfHash(int32_t hash, int32_t n) { return (hash & 0x7FFFFFFF) % n; }

/// The Appendix B hash of one non-null value of a bucketable type.
Result<int32_t> HashValue(const Type& type, const Value& value);

/// Byte length of the first `max_code_points` UTF-8 code points of `s`.
size_t Utf8PrefixBytes(std::string_view s, int64_t max_code_points);

}  // namespace floe::iceberg
