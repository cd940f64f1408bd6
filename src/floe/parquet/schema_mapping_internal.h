/// \file
/// Thrift side of the schema mapping: SchemaElements with LogicalType and ConvertedType
/// (PITFALLS 6-10). Internal to the parquet module.
#pragma once

#include <vector>

#include "floe/parquet/schema_mapping.h"
#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

/// The SchemaElements of `schema`, root first, depth-first.
std::vector<format::SchemaElement> ToSchemaElements(const ParquetSchema& schema);

}  // namespace floe::parquet
