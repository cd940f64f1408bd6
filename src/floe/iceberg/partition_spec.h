/// \file
/// Partition specs (Iceberg spec: Partitioning, Appendix C Partition Specs):
/// fields with source id, partition field id, name and transform; the
/// partition tuple type; validation against a schema; a builder that assigns
/// field ids from `last-partition-id` + 1 (1000 for a new table) and Java's
/// default names (`x_bucket`, `x_trunc`, `x_day`...); JSON both ways.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/transform.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// The first partition field id of a table; last-partition-id of an
/// unpartitioned table is one less (Iceberg Java PartitionSpec).
inline constexpr int32_t kFirstPartitionFieldId = 1000;
inline constexpr int32_t kUnpartitionedLastPartitionId = 999;

/// One field of a partition spec.
struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  Transform transform;
  bool operator==(const PartitionField&) const = default;
};

/// A partition spec: its id and fields.
class PartitionSpec {
 public:
  /// The unpartitioned spec with id 0.
  PartitionSpec() = default;
  PartitionSpec(int32_t spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}

  static PartitionSpec Unpartitioned(int32_t spec_id = 0) { return PartitionSpec(spec_id, {}); }

  int32_t spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }
  /// True with no fields or only void fields.
  bool is_unpartitioned() const;
  /// The highest field id, or 999 when there are none.
  int32_t LastAssignedFieldId() const;

  /// The partition tuple type: a struct with one optional field per partition
  /// field (id = partition field id, name, transform result type). Fails when
  /// a source id is not in the schema or the transform does not accept it.
  Result<TypePtr> PartitionType(const Schema& schema) const;

  /// The spec's rules against a schema (for writing): sources exist, are
  /// primitive and not inside a list or map, transforms accept them and are
  /// known, names are non-empty and unique and do not clash with a schema
  /// column unless identity of that column, field ids unique, no two time
  /// transforms or equal transforms of the same source.
  Status Validate(const Schema& schema) const;

  /// Same fields (source, transform, name), ignoring ids (Iceberg spec:
  /// "equivalent" specs).
  bool CompatibleWith(const PartitionSpec& other) const;

  bool operator==(const PartitionSpec&) const = default;

 private:
  int32_t spec_id_ = 0;
  std::vector<PartitionField> fields_;
};

/// Builds a spec against a schema by column name (dotted names reach into
/// structs). Errors are kept and returned by Build.
class PartitionSpecBuilder {
 public:
  /// Field ids are assigned from `last_partition_id` + 1.
  explicit PartitionSpecBuilder(const Schema& schema,
                                int32_t last_partition_id = kUnpartitionedLastPartitionId);

  /// Adds a field; an empty `name` takes Java's default for the transform.
  PartitionSpecBuilder& Add(std::string_view source_name, const Transform& transform,
                            std::string_view name = {});
  PartitionSpecBuilder& Identity(std::string_view source, std::string_view name = {}) {
    return Add(source, Transform::Identity(), name);
  }
  PartitionSpecBuilder& Bucket(std::string_view source, int32_t n, std::string_view name = {}) {
    return Add(source, Transform::Bucket(n), name);
  }
  PartitionSpecBuilder& Truncate(std::string_view source, int32_t w, std::string_view name = {}) {
    return Add(source, Transform::Truncate(w), name);
  }
  PartitionSpecBuilder& Year(std::string_view source, std::string_view name = {}) {
    return Add(source, Transform::Year(), name);
  }
  PartitionSpecBuilder& Month(std::string_view source, std::string_view name = {}) {
    return Add(source, Transform::Month(), name);
  }
  PartitionSpecBuilder& Day(std::string_view source, std::string_view name = {}) {
    return Add(source, Transform::Day(), name);
  }
  PartitionSpecBuilder& Hour(std::string_view source, std::string_view name = {}) {
    return Add(source, Transform::Hour(), name);
  }
  PartitionSpecBuilder& Void(std::string_view source, std::string_view name = {}) {
    return Add(source, Transform::Void(), name);
  }

  /// The validated spec, or the first error (naming the column and rule).
  Result<PartitionSpec> Build(int32_t spec_id = 0) const;

 private:
  const Schema& schema_;
  int32_t next_id_;
  std::vector<PartitionField> fields_;
  std::optional<Error> error_;
};

/// The partition values of every row of a batch: one column per spec field,
/// the field's transform applied to its source column (found by field id at the
/// top level or inside structs; a value under a null struct is null). This is
/// the vectorized path of partitioned writes.
Result<std::vector<ColumnVector>> PartitionColumns(const PartitionSpec& spec, const Batch& batch);

/// The partition tuple of one row of PartitionColumns' result.
Values PartitionTupleAt(const std::vector<ColumnVector>& columns, int64_t row);

/// Java's human-readable form of a partition value (Transform.toHumanString):
/// "null"; year "2017", month "2017-11", day "2017-11-16", hour "2017-11-16-22";
/// dates, times and timestamps in ISO form (timestamptz with "Z"); binary and
/// fixed in base64; others as their plain text. `result_type` is the partition
/// field's type.
std::string PartitionHumanString(const Transform& transform, const Type& result_type,
                                 const Value& value);

/// The partition's folder under data/, as Java names it:
/// `name=value/name=value` with names and values URL-encoded (form encoding).
Result<std::string> PartitionPath(const PartitionSpec& spec, const Type& partition_type,
                                  const Values& partition);

/// Appendix C spec object `{"spec-id":N,"fields":[...]}`.
Result<std::string> PartitionSpecToJson(const PartitionSpec& spec);
/// Parses a spec object. Unknown transforms are kept (readers must accept them).
Result<PartitionSpec> PartitionSpecFromJson(std::string_view json);
/// Only the fields array (manifest metadata `partition-spec`, v1 metadata).
Result<std::string> PartitionFieldsToJson(const PartitionSpec& spec);
/// Parses a fields array; missing field ids are assigned 1000, 1001, ... (v1).
Result<PartitionSpec> PartitionFieldsFromJson(std::string_view json, int32_t spec_id);

}  // namespace floe::iceberg
