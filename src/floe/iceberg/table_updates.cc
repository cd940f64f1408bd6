// The names of requirement types and update actions as the REST catalog
// specification spells them (TableRequirement `type`, TableUpdate `action`).
// Diff, JSON, checks and application are in table_updates_*.cc.

#include "floe/iceberg/table_updates.h"

namespace floe::iceberg {

std::string_view RequirementTypeName(TableRequirement::Kind kind) {
  using K = TableRequirement::Kind;
  switch (kind) {
    case K::kAssertCreate: return "assert-create";
    case K::kAssertTableUuid: return "assert-table-uuid";
    case K::kAssertRefSnapshotId: return "assert-ref-snapshot-id";
    case K::kAssertLastAssignedFieldId: return "assert-last-assigned-field-id";
    case K::kAssertCurrentSchemaId: return "assert-current-schema-id";
    case K::kAssertLastAssignedPartitionId: return "assert-last-assigned-partition-id";
    case K::kAssertDefaultSpecId: return "assert-default-spec-id";
    case K::kAssertDefaultSortOrderId: return "assert-default-sort-order-id";
  }
  return "?";
}

std::string_view UpdateActionName(TableUpdate::Kind kind) {
  using K = TableUpdate::Kind;
  switch (kind) {
    case K::kAssignUuid: return "assign-uuid";
    case K::kUpgradeFormatVersion: return "upgrade-format-version";
    case K::kAddSchema: return "add-schema";
    case K::kSetCurrentSchema: return "set-current-schema";
    case K::kAddSpec: return "add-spec";
    case K::kSetDefaultSpec: return "set-default-spec";
    case K::kAddSortOrder: return "add-sort-order";
    case K::kSetDefaultSortOrder: return "set-default-sort-order";
    case K::kAddSnapshot: return "add-snapshot";
    case K::kSetSnapshotRef: return "set-snapshot-ref";
    case K::kRemoveSnapshots: return "remove-snapshots";
    case K::kRemoveSnapshotRef: return "remove-snapshot-ref";
    case K::kSetLocation: return "set-location";
    case K::kSetProperties: return "set-properties";
    case K::kRemoveProperties: return "remove-properties";
    case K::kSetStatistics: return "set-statistics";
    case K::kRemoveStatistics: return "remove-statistics";
    case K::kSetPartitionStatistics: return "set-partition-statistics";
    case K::kRemovePartitionStatistics: return "remove-partition-statistics";
    case K::kRemovePartitionSpecs: return "remove-partition-specs";
    case K::kRemoveSchemas: return "remove-schemas";
  }
  return "?";
}

Result<TableMetadata> WithNewCurrentSchema(const TableMetadata& base, std::vector<NestedField> fields,
                                           int32_t* schema_id) {
  const SchemaPtr current = base.CurrentSchema();
  if (!current) return Corrupt("the table has no current schema");
  *schema_id = 0;
  for (const SchemaPtr& sc : base.schemas) *schema_id = std::max(*schema_id, sc->schema_id() + 1);
  TableUpdate add;
  add.kind = TableUpdate::Kind::kAddSchema;
  add.schema = std::make_shared<Schema>(std::move(fields), *schema_id, current->identifier_field_ids());
  TableUpdate set;
  set.kind = TableUpdate::Kind::kSetCurrentSchema;
  set.id = -1;
  return ApplyUpdates(base, {add, set});
}

}  // namespace floe::iceberg
