/// \file
/// Internal: schema JSON as nlohmann values, for the table metadata and
/// manifest code that embeds schemas in larger documents.
#pragma once

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/schema_json.h"

namespace floe::iceberg {

Result<Schema> SchemaFromJsonValue(const Json& j, FieldDefaults* defaults);
Json SchemaToJsonValue(const Schema& schema, const FieldDefaults* defaults);
Json TypeToJsonValue(const Type& type, const FieldDefaults* defaults);

}  // namespace floe::iceberg
