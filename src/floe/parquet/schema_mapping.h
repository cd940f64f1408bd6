/// \file
/// Mapping of floe (Iceberg) schemas to Parquet schemas, as Iceberg Java writes them
/// (Iceberg spec Appendix A "Parquet"; Parquet LogicalTypes.md; PITFALLS 4-10, 31, 44).
/// The model here has no Thrift in it: the writer turns it into SchemaElements, and a
/// reader can use `MapSchema` to compare what it finds with what floe would write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::parquet {

/// Parquet physical types; the values are those of parquet.thrift `Type`.
enum class PhysicalType : uint8_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

/// Parquet repetition; the values are those of parquet.thrift `FieldRepetitionType`.
enum class Repetition : uint8_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

/// What a schema node stands for.
enum class NodeRole : uint8_t {
  kRoot,             ///< the unnamed root ("schema"), no field id
  kField,            ///< an Iceberg field: struct field, list element, map key or value
  kListWrapper,      ///< the `repeated group list` of a 3-level list, no field id
  kKeyValueWrapper,  ///< the `repeated group key_value` of a map, no field id
};

/// One Parquet schema element, in depth-first order.
struct SchemaNode {
  std::string name;  ///< sanitized (PITFALLS 44)
  NodeRole role = NodeRole::kField;
  Repetition repetition = Repetition::kRequired;
  int32_t num_children = 0;          ///< groups only
  std::optional<int32_t> field_id;   ///< set on kField nodes
  TypePtr type;                      ///< the Iceberg type (kField nodes), null otherwise
  PhysicalType physical = PhysicalType::kBoolean;  ///< leaves only
  int32_t type_length = 0;                         ///< FIXED_LEN_BYTE_ARRAY leaves
  bool is_leaf() const { return role == NodeRole::kField && type && !type->is_nested(); }
};

/// One step of the path from a top-level column vector to a leaf vector.
struct PathStep {
  enum class Kind : uint8_t { kStruct, kList, kMap, kPrimitive };
  Kind kind = Kind::kPrimitive;
  bool optional = false;  ///< the field at this step may be null
  int child = 0;          ///< child vector to descend into (struct field, 0 element, 0/1 key/value)
  int16_t rep_level = 0;  ///< list/map: the repetition level of its entries
};

/// One leaf column of the Parquet schema.
struct LeafColumn {
  std::vector<std::string> path;  ///< path_in_schema (sanitized names, root excluded)
  std::vector<std::string> iceberg_path;  ///< the Iceberg names on the way (for messages)
  int32_t field_id = 0;
  TypePtr type;
  PhysicalType physical = PhysicalType::kBoolean;
  int32_t type_length = 0;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  int top_level_index = 0;       ///< which column of a Batch holds it
  int node_index = 0;            ///< index into ParquetSchema::nodes
  std::vector<PathStep> steps;   ///< steps[0] is the top-level column
  /// The dotted Parquet path, e.g. "tags.list.element".
  std::string DottedPath() const;
};

/// A whole Parquet schema: elements depth-first (root first) and the leaves in order.
struct ParquetSchema {
  std::vector<SchemaNode> nodes;
  std::vector<LeafColumn> leaves;
};

/// A Parquet leaf's type annotation (its LogicalType, or the ConvertedType of older
/// files), without Thrift: what the writer puts in a SchemaElement and what a reader
/// finds there.
struct LeafAnnotation {
  enum class Kind : uint8_t { kNone, kString, kEnum, kJson, kDate, kTime, kTimestamp, kDecimal, kUuid, kInteger };
  enum class Unit : uint8_t { kMillis, kMicros, kNanos };
  Kind kind = Kind::kNone;
  Unit unit = Unit::kMicros;  ///< time, timestamp
  bool utc = false;           ///< time, timestamp: isAdjustedToUTC
  int32_t precision = 0;      ///< decimal
  int32_t scale = 0;          ///< decimal
  int32_t bit_width = 0;      ///< integer: 8, 16, 32 or 64
  bool is_signed = true;      ///< integer
};

/// The annotation floe writes for a primitive Iceberg type (kNone for boolean, int,
/// long, float, double, fixed and binary).
LeafAnnotation AnnotationFor(const Type& type);

/// The opposite direction, for readers: the Iceberg type of a Parquet leaf from its
/// physical type, length and annotation. Besides what floe writes it accepts the usual
/// forms of other writers (INTEGER(8/16/32) as int, unsigned 32 as long, ENUM/JSON as
/// string, TIMESTAMP(MILLIS) and INT96 as timestamp — the reader converts the values).
/// Fails with kUnsupported for what Iceberg cannot hold (e.g. unsigned 64-bit).
Result<TypePtr> IcebergTypeFor(PhysicalType physical, int32_t type_length,
                               const LeafAnnotation& annotation);

/// Iceberg Java's name sanitizing (AvroSchemaUtil.makeCompatibleName): a leading digit
/// d becomes `_d`; any other character outside [A-Za-z0-9_] becomes `_x` + upper-case hex
/// of its code (bytes of non-ASCII UTF-8 are escaped one by one).
std::string SanitizeName(std::string_view name);

/// The Parquet physical type of a primitive Iceberg type (decimal by precision).
PhysicalType PhysicalTypeFor(const Type& type);

/// Maps a schema. Fails on types Parquet cannot hold (e.g. decimal precision > 38).
Result<ParquetSchema> MapSchema(const Schema& schema);

}  // namespace floe::parquet
