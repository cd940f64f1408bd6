/// \file
/// A commit as the REST catalog specification expresses it: requirements
/// that must hold on the table's current metadata, and updates that turn it
/// into the next version (`../shared/specs/rest-catalog-open-api.yaml`:
/// TableRequirement, TableUpdate, CommitTableRequest). The REST client
/// derives them from a base and an updated TableMetadata (DiffMetadata) and
/// sends them as JSON; a REST server parses them (TableChangesFromJson),
/// checks the requirements against the table it holds (CheckRequirements)
/// and applies the updates (ApplyUpdates). The round trip
/// ApplyUpdates(base, DiffMetadata(base, updated)) reproduces `updated`
/// (but for last-updated-ms and the metadata log, which the catalog that
/// publishes the version owns).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// One requirement (the spec's TableRequirement, by its `type`).
struct TableRequirement {
  enum class Kind : uint8_t {
    kAssertCreate,                  ///< assert-create: the table does not exist
    kAssertTableUuid,               ///< assert-table-uuid: `uuid`
    kAssertRefSnapshotId,           ///< assert-ref-snapshot-id: `ref` at `snapshot_id` (nullopt: no such ref)
    kAssertLastAssignedFieldId,     ///< assert-last-assigned-field-id: `id`
    kAssertCurrentSchemaId,         ///< assert-current-schema-id: `id`
    kAssertLastAssignedPartitionId, ///< assert-last-assigned-partition-id: `id`
    kAssertDefaultSpecId,           ///< assert-default-spec-id: `id`
    kAssertDefaultSortOrderId,      ///< assert-default-sort-order-id: `id`
  };
  Kind kind = Kind::kAssertCreate;
  std::string uuid;
  std::string ref;
  std::optional<int64_t> snapshot_id;
  int32_t id = 0;

  bool operator==(const TableRequirement&) const = default;
};

/// The requirement's `type` text (assert-table-uuid, ...).
std::string_view RequirementTypeName(TableRequirement::Kind kind);

/// One update (the spec's TableUpdate, by its `action`). Only the members
/// the action names are meaningful.
struct TableUpdate {
  enum class Kind : uint8_t {
    kAssignUuid,            ///< assign-uuid: `uuid`
    kUpgradeFormatVersion,  ///< upgrade-format-version: `id` is the version
    kAddSchema,             ///< add-schema: `schema` (its schema id as given)
    kSetCurrentSchema,      ///< set-current-schema: `id` (-1: the schema added last in this commit)
    kAddSpec,               ///< add-spec: `spec`
    kSetDefaultSpec,        ///< set-default-spec: `id` (-1: the spec added last)
    kAddSortOrder,          ///< add-sort-order: `sort_order`
    kSetDefaultSortOrder,   ///< set-default-sort-order: `id` (-1: the order added last)
    kAddSnapshot,           ///< add-snapshot: `snapshot`
    kSetSnapshotRef,        ///< set-snapshot-ref: `ref_name`, `ref`
    kRemoveSnapshots,       ///< remove-snapshots: `snapshot_ids`
    kRemoveSnapshotRef,     ///< remove-snapshot-ref: `ref_name`
    kSetLocation,           ///< set-location: `location`
    kSetProperties,         ///< set-properties: `set` (the spec's `updates`)
    kRemoveProperties,      ///< remove-properties: `remove` (the spec's `removals`)
    kSetStatistics,         ///< set-statistics: `json` (a StatisticsFile object)
    kRemoveStatistics,      ///< remove-statistics: `snapshot_ids[0]`
    kSetPartitionStatistics,     ///< set-partition-statistics: `json`
    kRemovePartitionStatistics,  ///< remove-partition-statistics: `snapshot_ids[0]`
    kRemovePartitionSpecs,  ///< remove-partition-specs: `ids`
    kRemoveSchemas,         ///< remove-schemas: `ids`
  };
  Kind kind = Kind::kSetProperties;
  std::string uuid;
  int32_t id = 0;
  SchemaPtr schema;
  FieldDefaults schema_defaults;  ///< v3 defaults of `schema`'s fields
  PartitionSpec spec;
  SortOrder sort_order;
  Snapshot snapshot;
  std::string ref_name;
  SnapshotRef ref;
  std::vector<int64_t> snapshot_ids;
  std::vector<int32_t> ids;
  std::string location;
  std::map<std::string, std::string> set;
  std::vector<std::string> remove;
  std::string json;  ///< opaque statistics objects, as JSON text
};

/// The update's `action` text (add-snapshot, ...).
std::string_view UpdateActionName(TableUpdate::Kind kind);

/// A commit: requirements first, then updates in order.
struct TableChanges {
  std::vector<TableRequirement> requirements;
  std::vector<TableUpdate> updates;
};

/// The changes that turn `base` into `updated`, with the requirements that
/// make applying them elsewhere safe: always assert-table-uuid; for every
/// ref whose snapshot changed, assert-ref-snapshot-id with its base snapshot
/// (nullopt for a new ref); assert-current-schema-id and
/// assert-last-assigned-field-id when schemas change; the partition and
/// sort-order counterparts when specs or orders change. Differences that no
/// update expresses (a changed table uuid, a rewritten existing snapshot,
/// a lowered format version) are kInvalidArgument naming the field.
Result<TableChanges> DiffMetadata(const TableMetadata& base, const TableMetadata& updated);

/// `{"requirements":[...],"updates":[...]}` as the spec's JSON (the body of
/// a CommitTableRequest, less its optional identifier).
Result<std::string> TableChangesToJson(const TableChanges& changes);

/// Parses a CommitTableRequest body (an `identifier` member is ignored; the
/// caller reads it when it needs it). An unknown requirement `type` or
/// update `action`, or a malformed member, is kInvalidArgument naming it
/// (a REST server answers 400).
Result<TableChanges> TableChangesFromJson(std::string_view json);

/// Checks `requirements` against the table's current metadata (`current` is
/// nullptr when the table does not exist). The first that fails is
/// kCommitFailed naming it, the expected and the actual value (a REST
/// server answers 409).
Status CheckRequirements(const std::vector<TableRequirement>& requirements, const TableMetadata* current);

/// Applies `updates` in order to `base` (which CheckRequirements accepted).
/// An update that cannot apply (a snapshot whose parent or schema is
/// missing, a ref to an unknown snapshot, a duplicate schema id, removing
/// `main`'s snapshot) is kInvalidArgument naming the update and why. The
/// result is validated (TableMetadata::Validate). last-updated-ms becomes
/// the newest of base's and the added snapshots' timestamps; the metadata
/// log is left to the catalog that publishes the version.
Result<TableMetadata> ApplyUpdates(const TableMetadata& base, const std::vector<TableUpdate>& updates);

/// `base` with a new current schema of `fields` (the current schema's
/// identifier fields kept), under the next schema id (`*schema_id`): a
/// schema evolution's add-schema and set-current-schema.
Result<TableMetadata> WithNewCurrentSchema(const TableMetadata& base, std::vector<NestedField> fields,
                                           int32_t* schema_id);

}  // namespace floe::iceberg
