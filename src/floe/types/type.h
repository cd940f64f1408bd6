/// \file
/// floe's logical type system: the Iceberg types (Iceberg spec: Schemas and
/// Data Types) with field ids. Every layer speaks these types: the Parquet and
/// Avro mappings, the columnar batches, the catalogs and the SQL front end.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe {

/// Every Iceberg v2 type, plus the v3 nanosecond timestamps.
enum class TypeId : uint8_t {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,           ///< days since 1970-01-01, int32
  kTime,           ///< microseconds since midnight, int64
  kTimestamp,      ///< microseconds since epoch, no zone, int64
  kTimestampTz,    ///< microseconds since epoch, UTC, int64
  kTimestampNs,    ///< nanoseconds since epoch, no zone, int64 (v3)
  kTimestampTzNs,  ///< nanoseconds since epoch, UTC, int64 (v3)
  kString,
  kUuid,
  kFixed,
  kBinary,
  kStruct,
  kList,
  kMap,
};

/// True for struct, list and map.
constexpr bool IsNested(TypeId id) {
  return id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap;
}

/// True for the timestamps counted in nanoseconds (timestamp_ns, timestamptz_ns).
constexpr bool IsNanosTimestamp(TypeId id) {
  return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
}

/// True for the timestamps adjusted to UTC (timestamptz, timestamptz_ns).
constexpr bool IsZonedTimestamp(TypeId id) {
  return id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs;
}

struct Type;
using TypePtr = std::shared_ptr<const Type>;

/// A named, numbered field of a struct, or the element of a list, or the key
/// or value of a map (Iceberg spec: Nested Types).
struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  TypePtr type;
  std::string doc;

  bool operator==(const NestedField& other) const;
};

/// A type. Primitive types carry their parameters (decimal precision/scale,
/// fixed length); nested types carry their fields: a struct its fields, a list
/// one field named "element", a map two fields named "key" and "value".
struct Type {
  TypeId id = TypeId::kBoolean;
  int32_t precision = 0;  ///< decimal
  int32_t scale = 0;      ///< decimal
  int32_t length = 0;     ///< fixed
  std::vector<NestedField> fields;

  bool is_nested() const { return IsNested(id); }
  const NestedField& element() const { return fields[0]; }  ///< list
  const NestedField& key() const { return fields[0]; }      ///< map
  const NestedField& value() const { return fields[1]; }    ///< map

  /// The Iceberg JSON spelling for primitives ("decimal(9,2)", "fixed[16]"),
  /// and a readable form for nested types ("list<string>", "struct<a: int>").
  std::string ToString() const;

  bool operator==(const Type& other) const;
};

// Factories for the shared primitive instances and for parameterized types.
TypePtr Primitive(TypeId id);
TypePtr BooleanType();
TypePtr IntType();
TypePtr LongType();
TypePtr FloatType();
TypePtr DoubleType();
TypePtr DateType();
TypePtr TimeType();
TypePtr TimestampType();
TypePtr TimestampTzType();
TypePtr StringType();
TypePtr UuidType();
TypePtr BinaryType();
TypePtr DecimalType(int32_t precision, int32_t scale);
TypePtr FixedType(int32_t length);
TypePtr StructType(std::vector<NestedField> fields);
TypePtr ListType(int32_t element_id, bool element_required, TypePtr element);
TypePtr MapType(int32_t key_id, TypePtr key, int32_t value_id, bool value_required, TypePtr value);

/// Parses an Iceberg primitive type name ("long", "decimal(10, 2)", "fixed[4]").
Result<TypePtr> ParsePrimitiveType(std::string_view text);

/// A table schema: the top-level struct, its id and its identifier fields.
class Schema {
 public:
  Schema() = default;
  Schema(std::vector<NestedField> fields, int32_t schema_id = 0,
         std::vector<int32_t> identifier_field_ids = {});

  const std::vector<NestedField>& fields() const { return fields_; }
  int32_t schema_id() const { return schema_id_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }

  /// The whole schema as a struct type.
  TypePtr AsStruct() const;

  /// Any field at any depth (struct fields, list elements, map keys/values).
  const NestedField* FindField(int32_t field_id) const;
  /// A top-level field by name (case-sensitive or not).
  const NestedField* FindTopLevel(std::string_view name, bool case_sensitive = true) const;
  /// Index of a top-level field by name, or -1.
  int IndexOf(std::string_view name, bool case_sensitive = true) const;
  /// The highest field id used anywhere in the schema.
  int32_t HighestFieldId() const;

  /// Checks the spec's rules: ids unique and positive, names unique per struct,
  /// decimal precision 1..38, identifier fields primitive, required, not float/double.
  Status Validate() const;

  std::string ToString() const;
  bool operator==(const Schema& other) const;

 private:
  std::vector<NestedField> fields_;
  int32_t schema_id_ = 0;
  std::vector<int32_t> identifier_field_ids_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

/// Decimal values are held as 128-bit unscaled integers.
using int128_t = __int128;

/// Minimum number of bytes for a two's complement decimal of this precision
/// (Iceberg spec: Appendix A/D; Parquet FIXED_LEN_BYTE_ARRAY decimals).
int32_t DecimalRequiredBytes(int32_t precision);

}  // namespace floe
