/// \file
/// Parquet schema -> floe schema, for the reader: turns the footer's flat list
/// of SchemaElements into a floe Schema (Iceberg types with field ids) plus,
/// for every floe field, the definition / repetition levels that locate its
/// values in the leaf columns.
///
/// Follows parquet-format LogicalTypes.md, including its backward-compatibility
/// rules for lists and maps (2-level lists, `array` / `<name>_tuple` element
/// groups, unannotated repeated fields, MAP_KEY_VALUE), and the Iceberg spec's
/// Appendix A / Column Projection for ids (fields without an id get fresh ids
/// above the highest id in the file, in pre-order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::parquet {

namespace format {
class SchemaElement;
}

/// Unit of a stored time or timestamp column.
enum class TimeUnit : uint8_t { kNone, kMillis, kMicros, kNanos };

/// One leaf (primitive) column of the file, in column-chunk order.
struct LeafInfo {
  PhysicalType physical = PhysicalType::kInt32;
  int32_t type_length = 0;          ///< FIXED_LEN_BYTE_ARRAY length
  TypePtr type;                     ///< the floe type the column reads as
  TimeUnit unit = TimeUnit::kNone;  ///< time / timestamp storage unit
  bool is_unsigned = false;         ///< UINT_32 / INT(32, false): read as long
  bool is_int96 = false;            ///< legacy INT96 timestamp
  bool is_float16 = false;          ///< FLOAT16 in FIXED_LEN_BYTE_ARRAY(2)
  bool legacy_timestamp = false;  ///< INT96 or converted-type-only timestamp (no reliable UTC flag)
  int16_t max_def = 0;
  int16_t max_rep = 0;
  std::vector<std::string> path;  ///< path_in_schema
  std::string annotation;         ///< e.g. "INT32 (DATE)", for messages
  std::string unsupported;        ///< non-empty: why the column cannot be read
};

/// A floe field as stored in the file, with the levels that locate it.
/// A "slot" of a field is one place where a value (or null) of the field
/// goes: one per row for a top-level field, one per element for a list
/// element. In a leaf's levels, an entry starts a slot of this field when
/// rep <= slot_rep and def >= slot_def; the slot's value is non-null when
/// def >= def_present.
struct FileField {
  NestedField field;
  bool has_id = false;  ///< the file carried this field id
  int16_t def_present = 0;
  int16_t slot_def = 0;
  int16_t slot_rep = 0;
  int leaf = -1;                    ///< leaf column (primitives)
  int first_leaf = -1;              ///< first leaf column under this field
  std::string path;                 ///< dotted path, for messages
  std::vector<FileField> children;  ///< struct fields; list element; map key, value
};

/// The file's schema in floe terms.
struct FileSchema {
  SchemaPtr schema;
  std::vector<FileField> fields;  ///< one per top-level field of `schema`
  std::vector<LeafInfo> leaves;
  bool has_field_ids = false;  ///< at least one field carried an id
};

/// Limits on untrusted schemas.
inline constexpr int kMaxSchemaDepth = 64;

/// Builds the floe view of a Parquet schema (elements in footer order, the
/// root first). Malformed trees give kCorrupt.
Result<FileSchema> BuildFileSchema(const std::vector<format::SchemaElement>& elements);

}  // namespace floe::parquet
