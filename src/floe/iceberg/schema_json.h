/// \file
/// Schema and type JSON (Iceberg spec: Appendix C, Schemas) in both
/// directions for floe's Schema (floe/types/type.h): nested struct, list and
/// map, `schema-id`, `identifier-field-ids`, `doc`, and the v3 field defaults
/// `initial-default` / `write-default`, which are kept as raw JSON text for now
/// (FieldDefaults) because Schema has no slot for them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// A field's v3 default values as raw JSON single-value text (Appendix D).
struct FieldDefault {
  std::optional<std::string> initial_default;
  std::optional<std::string> write_default;
  bool operator==(const FieldDefault&) const = default;
};

/// Defaults by field id (any depth).
using FieldDefaults = std::map<int32_t, FieldDefault>;

/// Parses a schema object (`{"type":"struct","schema-id":0,"fields":[...]}`).
/// Types this version does not support (unknown, variant, geometry,
/// geography) give kUnsupported naming the field; malformed JSON kCorrupt.
/// Field defaults are stored in `defaults` when it is not null.
Result<Schema> SchemaFromJson(std::string_view json, FieldDefaults* defaults = nullptr);

/// Serializes a schema, with `schema-id`, `identifier-field-ids` (when not
/// empty), docs and the given defaults.
Result<std::string> SchemaToJson(const Schema& schema, const FieldDefaults* defaults = nullptr);

/// A type alone: `"long"` or a nested type object.
Result<TypePtr> TypeFromJson(std::string_view json);
std::string TypeToJson(const Type& type);

}  // namespace floe::iceberg
