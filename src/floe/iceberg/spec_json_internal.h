/// \file
/// Internal: partition spec, sort order and field index helpers shared by the
/// iceberg module's JSON and validation code.
#pragma once

#include <map>
#include <string>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {

Json PartitionFieldsToJsonValue(const PartitionSpec& spec);
Json PartitionSpecToJsonValue(const PartitionSpec& spec);
Result<PartitionSpec> PartitionSpecFromJsonValue(const Json& j);
/// `next_field_id` numbers fields without a `field-id` (v1).
Result<PartitionSpec> PartitionFieldsFromJsonValue(const Json& arr, int32_t spec_id,
                                                   std::string_view ctx);
Json SortOrderToJsonValue(const SortOrder& order);
Result<SortOrder> SortOrderFromJsonValue(const Json& j);

/// Where a field sits in a schema: its dotted path and whether a list or map
/// encloses it.
struct IndexedField {
  const NestedField* field = nullptr;
  std::string path;
  bool in_collection = false;
};
/// Every field of a schema by id.
std::map<int32_t, IndexedField> IndexFields(const Schema& schema);

}  // namespace floe::iceberg
