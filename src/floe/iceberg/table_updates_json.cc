// TableChangesToJson: requirements and updates as the REST spec's JSON
// (TableRequirement by `type`, TableUpdate by `action`, each with the member
// names its schema in rest-catalog-open-api.yaml declares). Schemas, specs,
// orders, snapshots and refs use the same writers as metadata files.

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/schema_json_internal.h"
#include "floe/iceberg/snapshot_json_internal.h"
#include "floe/iceberg/spec_json_internal.h"
#include "floe/iceberg/table_updates.h"

namespace floe::iceberg {

namespace {

namespace ji = json_internal;

Json RequirementToJson(const TableRequirement& r) {
  using K = TableRequirement::Kind;
  Json j = Json::object();
  j["type"] = RequirementTypeName(r.kind);
  switch (r.kind) {
    case K::kAssertCreate: break;
    case K::kAssertTableUuid: j["uuid"] = r.uuid; break;
    case K::kAssertRefSnapshotId:
      j["ref"] = r.ref;
      // Required and nullable: null asserts that the ref does not exist.
      j["snapshot-id"] = r.snapshot_id ? Json(*r.snapshot_id) : Json(nullptr);
      break;
    case K::kAssertLastAssignedFieldId: j["last-assigned-field-id"] = r.id; break;
    case K::kAssertCurrentSchemaId: j["current-schema-id"] = r.id; break;
    case K::kAssertLastAssignedPartitionId: j["last-assigned-partition-id"] = r.id; break;
    case K::kAssertDefaultSpecId: j["default-spec-id"] = r.id; break;
    case K::kAssertDefaultSortOrderId: j["default-sort-order-id"] = r.id; break;
  }
  return j;
}

Result<Json> OpaqueObject(const std::string& text, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(text, what));
  if (!j.is_object()) return InvalidArgument("{}: not a JSON object", what);
  return j;
}

Result<Json> UpdateToJson(const TableUpdate& u) {
  using K = TableUpdate::Kind;
  Json j = Json::object();
  j["action"] = UpdateActionName(u.kind);
  switch (u.kind) {
    case K::kAssignUuid: j["uuid"] = u.uuid; break;
    case K::kUpgradeFormatVersion: j["format-version"] = u.id; break;
    case K::kAddSchema:
      if (!u.schema) return InvalidArgument("add-schema without a schema");
      j["schema"] =
          SchemaToJsonValue(*u.schema, u.schema_defaults.empty() ? nullptr : &u.schema_defaults);
      break;
    case K::kSetCurrentSchema: j["schema-id"] = u.id; break;
    case K::kAddSpec: j["spec"] = PartitionSpecToJsonValue(u.spec); break;
    case K::kSetDefaultSpec: j["spec-id"] = u.id; break;
    case K::kAddSortOrder: j["sort-order"] = SortOrderToJsonValue(u.sort_order); break;
    case K::kSetDefaultSortOrder: j["sort-order-id"] = u.id; break;
    case K::kAddSnapshot:
      if (!u.snapshot.operation) {
        return InvalidArgument("add-snapshot: snapshot {} has no operation",
                               u.snapshot.snapshot_id);
      }
      j["snapshot"] = SnapshotToJson(u.snapshot);
      break;
    case K::kSetSnapshotRef: {
      // SetSnapshotRefUpdate is a SnapshotReference with `ref-name` beside it.
      j["ref-name"] = u.ref_name;
      Json ref = RefToJson(u.ref);
      for (auto& [k, v] : ref.items()) j[k] = std::move(v);
      break;
    }
    case K::kRemoveSnapshots: j["snapshot-ids"] = u.snapshot_ids; break;
    case K::kRemoveSnapshotRef: j["ref-name"] = u.ref_name; break;
    case K::kSetLocation: j["location"] = u.location; break;
    case K::kSetProperties: {
      Json m = Json::object();
      for (const auto& [k, v] : u.set) m[k] = v;
      j["updates"] = std::move(m);
      break;
    }
    case K::kRemoveProperties: j["removals"] = u.remove; break;
    case K::kSetStatistics: {
      FLOE_ASSIGN_OR_RETURN(j["statistics"], OpaqueObject(u.json, "set-statistics"));
      break;
    }
    case K::kSetPartitionStatistics: {
      FLOE_ASSIGN_OR_RETURN(j["partition-statistics"],
                            OpaqueObject(u.json, "set-partition-statistics"));
      break;
    }
    case K::kRemoveStatistics:
    case K::kRemovePartitionStatistics:
      if (u.snapshot_ids.size() != 1) {
        return InvalidArgument("{}: needs exactly one snapshot id, got {}",
                               UpdateActionName(u.kind), u.snapshot_ids.size());
      }
      j["snapshot-id"] = u.snapshot_ids[0];
      break;
    case K::kRemovePartitionSpecs: j["spec-ids"] = u.ids; break;
    case K::kRemoveSchemas: j["schema-ids"] = u.ids; break;
  }
  return j;
}

}  // namespace

Result<std::string> TableChangesToJson(const TableChanges& changes) {
  Json j = Json::object();
  Json reqs = Json::array();
  for (const auto& r : changes.requirements) reqs.push_back(RequirementToJson(r));
  Json ups = Json::array();
  for (const auto& u : changes.updates) {
    FLOE_ASSIGN_OR_RETURN(Json uj, UpdateToJson(u));
    ups.push_back(std::move(uj));
  }
  j["requirements"] = std::move(reqs);
  j["updates"] = std::move(ups);
  return ji::Dump(j);
}

}  // namespace floe::iceberg
