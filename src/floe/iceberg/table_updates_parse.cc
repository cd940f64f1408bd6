// Reading a CommitTableRequest body (REST spec: CommitTableRequest,
// TableRequirement, TableUpdate) into TableChanges. Every error is
// kInvalidArgument naming the element (`requirements[2]`, `updates[0]
// (add-snapshot)`) and the member, so a REST server can answer 400 with it.
// The nested objects (schema, spec, sort order, snapshot, ref) are read by
// the same readers as table metadata files.

#include <array>
#include <utility>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/schema_json_internal.h"
#include "floe/iceberg/snapshot_json_internal.h"
#include "floe/iceberg/spec_json_internal.h"
#include "floe/iceberg/table_updates.h"

namespace floe::iceberg {

namespace ji = json_internal;

namespace {

/// The readers shared with metadata files say kCorrupt (a damaged file); in a
/// request the same fault is a bad argument. kUnsupported stays (valid but
/// not implemented, e.g. multi-argument transforms).
Error AsBadRequest(Error e, std::string_view where) {
  if (e.kind == ErrorKind::kCorrupt) e.kind = ErrorKind::kInvalidArgument;
  e.retryable = false;
  if (where.empty()) return e;
  return std::move(e).WithContext(where);
}

template <typename T>
Result<T> InRequest(Result<T> r, std::string_view where) {
  if (!r) return Fail(AsBadRequest(std::move(r).error(), where));
  return r;
}

const Json* Member(const Json& obj, std::string_view key) { return ji::Find(obj, key); }

Result<const Json*> RequiredMember(const Json& obj, std::string_view key, std::string_view where) {
  const Json* m = Member(obj, key);
  if (!m) return InvalidArgument("{}: '{}' is required but missing", where, key);
  return m;
}

template <typename Int>
Result<std::vector<Int>> IntArray(const Json& obj, std::string_view key, std::string_view where) {
  FLOE_ASSIGN_OR_RETURN(const Json* arr, RequiredMember(obj, key, where));
  if (!arr->is_array())
    return InvalidArgument("{}: '{}' must be an array, got {}", where, key, ji::KindName(*arr));
  std::vector<Int> out;
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string ctx = fmt::format("{}: {}[{}]", where, key, i);
    if constexpr (sizeof(Int) == 8) {
      FLOE_ASSIGN_OR_RETURN(Int v, InRequest(ji::AsSnapshotId((*arr)[i], ctx), ""));
      out.push_back(v);
    } else {
      FLOE_ASSIGN_OR_RETURN(Int v, InRequest(ji::AsInt((*arr)[i], ctx), ""));
      out.push_back(v);
    }
  }
  return out;
}

Result<std::vector<std::string>> StringArray(const Json& obj, std::string_view key,
                                             std::string_view where) {
  FLOE_ASSIGN_OR_RETURN(const Json* arr, RequiredMember(obj, key, where));
  if (!arr->is_array())
    return InvalidArgument("{}: '{}' must be an array, got {}", where, key, ji::KindName(*arr));
  std::vector<std::string> out;
  for (size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string()) {
      return InvalidArgument("{}: {}[{}] must be a string, got {}", where, key, i,
                             ji::KindName((*arr)[i]));
    }
    out.push_back((*arr)[i].get<std::string>());
  }
  return out;
}

/// A partition spec as the REST spec sends it: `spec-id` is read-only there
/// and may be missing (the server assigns ids anyway).
Result<PartitionSpec> SpecFromRequest(const Json& j) {
  if (j.is_object() && !Member(j, "spec-id")) {
    const Json* fields = Member(j, "fields");
    if (!fields) return InvalidArgument("partition spec: 'fields' is required but missing");
    return PartitionFieldsFromJsonValue(*fields, 0, "partition spec");
  }
  return PartitionSpecFromJsonValue(j);
}

template <typename Kind>
struct Named {
  std::string_view name;
  Kind kind;
};

Result<TableRequirement> RequirementFromJson(const Json& j, size_t index) {
  std::string where = fmt::format("requirements[{}]", index);
  if (!j.is_object())
    return InvalidArgument("{} must be an object, got {}", where, ji::KindName(j));
  FLOE_ASSIGN_OR_RETURN(std::string type, InRequest(ji::GetString(j, "type", where), ""));
  using K = TableRequirement::Kind;
  static constexpr std::array<K, 8> kAll = {
      K::kAssertCreate,          K::kAssertTableUuid,
      K::kAssertRefSnapshotId,   K::kAssertLastAssignedFieldId,
      K::kAssertCurrentSchemaId, K::kAssertLastAssignedPartitionId,
      K::kAssertDefaultSpecId,   K::kAssertDefaultSortOrderId};
  TableRequirement r;
  bool known = false;
  for (K k : kAll) {
    if (RequirementTypeName(k) == type) {
      r.kind = k;
      known = true;
    }
  }
  if (!known) return InvalidArgument("{}: unknown requirement type '{}'", where, type);
  where = fmt::format("{} ({})", where, type);
  auto int_member = [&](std::string_view key) -> Status {
    FLOE_ASSIGN_OR_RETURN(r.id, InRequest(ji::GetInt(j, key, where), ""));
    return Ok();
  };
  switch (r.kind) {
    case K::kAssertCreate: break;
    case K::kAssertTableUuid: {
      FLOE_ASSIGN_OR_RETURN(r.uuid, InRequest(ji::GetString(j, "uuid", where), ""));
      break;
    }
    case K::kAssertRefSnapshotId: {
      FLOE_ASSIGN_OR_RETURN(r.ref, InRequest(ji::GetString(j, "ref", where), ""));
      // Required, but null means "the ref must not exist yet".
      FLOE_ASSIGN_OR_RETURN(const Json* id, RequiredMember(j, "snapshot-id", where));
      if (!id->is_null()) {
        FLOE_ASSIGN_OR_RETURN(r.snapshot_id,
                              InRequest(ji::AsSnapshotId(*id, where + ": 'snapshot-id'"), ""));
      }
      break;
    }
    case K::kAssertLastAssignedFieldId:
      FLOE_RETURN_IF_ERROR(int_member("last-assigned-field-id"));
      break;
    case K::kAssertCurrentSchemaId: FLOE_RETURN_IF_ERROR(int_member("current-schema-id")); break;
    case K::kAssertLastAssignedPartitionId:
      FLOE_RETURN_IF_ERROR(int_member("last-assigned-partition-id"));
      break;
    case K::kAssertDefaultSpecId: FLOE_RETURN_IF_ERROR(int_member("default-spec-id")); break;
    case K::kAssertDefaultSortOrderId:
      FLOE_RETURN_IF_ERROR(int_member("default-sort-order-id"));
      break;
  }
  return r;
}

Result<TableUpdate> UpdateFromJson(const Json& j, size_t index) {
  std::string where = fmt::format("updates[{}]", index);
  if (!j.is_object())
    return InvalidArgument("{} must be an object, got {}", where, ji::KindName(j));
  FLOE_ASSIGN_OR_RETURN(std::string action, InRequest(ji::GetString(j, "action", where), ""));
  using K = TableUpdate::Kind;
  TableUpdate u;
  bool known = false;
  for (int k = 0; k <= static_cast<int>(K::kRemoveSchemas); ++k) {
    if (UpdateActionName(static_cast<K>(k)) == action) {
      u.kind = static_cast<K>(k);
      known = true;
    }
  }
  if (!known) return InvalidArgument("{}: unknown update action '{}'", where, action);
  where = fmt::format("{} ({})", where, action);
  auto int_member = [&](std::string_view key) -> Status {
    FLOE_ASSIGN_OR_RETURN(u.id, InRequest(ji::GetInt(j, key, where), ""));
    return Ok();
  };
  auto one_snapshot_id = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(int64_t id, InRequest(ji::GetSnapshotId(j, "snapshot-id", where), ""));
    u.snapshot_ids = {id};
    return Ok();
  };
  auto opaque = [&](std::string_view key) -> Status {
    FLOE_ASSIGN_OR_RETURN(const Json* obj, RequiredMember(j, key, where));
    if (!obj->is_object())
      return InvalidArgument("{}: '{}' must be an object, got {}", where, key, ji::KindName(*obj));
    // Its snapshot-id decides which entry it replaces (ApplyUpdates).
    FLOE_RETURN_IF_ERROR(
        InRequest(ji::GetSnapshotId(*obj, "snapshot-id", fmt::format("{}: '{}'", where, key)), ""));
    FLOE_ASSIGN_OR_RETURN(u.json, InRequest(ji::Dump(*obj), where));
    return Ok();
  };
  switch (u.kind) {
    case K::kAssignUuid: {
      FLOE_ASSIGN_OR_RETURN(u.uuid, InRequest(ji::GetString(j, "uuid", where), ""));
      break;
    }
    case K::kUpgradeFormatVersion: FLOE_RETURN_IF_ERROR(int_member("format-version")); break;
    case K::kAddSchema: {
      FLOE_ASSIGN_OR_RETURN(const Json* s, RequiredMember(j, "schema", where));
      FLOE_ASSIGN_OR_RETURN(Schema schema,
                            InRequest(SchemaFromJsonValue(*s, &u.schema_defaults), where));
      u.schema = std::make_shared<const Schema>(std::move(schema));
      break;
    }
    case K::kSetCurrentSchema: FLOE_RETURN_IF_ERROR(int_member("schema-id")); break;
    case K::kAddSpec: {
      FLOE_ASSIGN_OR_RETURN(const Json* s, RequiredMember(j, "spec", where));
      FLOE_ASSIGN_OR_RETURN(u.spec, InRequest(SpecFromRequest(*s), where));
      break;
    }
    case K::kSetDefaultSpec: FLOE_RETURN_IF_ERROR(int_member("spec-id")); break;
    case K::kAddSortOrder: {
      FLOE_ASSIGN_OR_RETURN(const Json* s, RequiredMember(j, "sort-order", where));
      FLOE_ASSIGN_OR_RETURN(u.sort_order, InRequest(SortOrderFromJsonValue(*s), where));
      break;
    }
    case K::kSetDefaultSortOrder: FLOE_RETURN_IF_ERROR(int_member("sort-order-id")); break;
    case K::kAddSnapshot: {
      FLOE_ASSIGN_OR_RETURN(const Json* s, RequiredMember(j, "snapshot", where));
      // Read as a v2 snapshot: floe tables are v2, and a v2 snapshot needs
      // its sequence number and operation.
      FLOE_ASSIGN_OR_RETURN(u.snapshot, InRequest(SnapshotFromJson(*s, 2, 0), where));
      break;
    }
    case K::kSetSnapshotRef: {
      FLOE_ASSIGN_OR_RETURN(u.ref_name, InRequest(ji::GetString(j, "ref-name", where), ""));
      if (u.ref_name.empty()) return InvalidArgument("{}: 'ref-name' is empty", where);
      // The ref's own members sit beside `action` and `ref-name`.
      FLOE_ASSIGN_OR_RETURN(u.ref, InRequest(RefFromJson(j, u.ref_name), where));
      break;
    }
    case K::kRemoveSnapshots: {
      FLOE_ASSIGN_OR_RETURN(u.snapshot_ids, (IntArray<int64_t>(j, "snapshot-ids", where)));
      break;
    }
    case K::kRemoveSnapshotRef: {
      FLOE_ASSIGN_OR_RETURN(u.ref_name, InRequest(ji::GetString(j, "ref-name", where), ""));
      break;
    }
    case K::kSetLocation: {
      FLOE_ASSIGN_OR_RETURN(u.location, InRequest(ji::GetString(j, "location", where), ""));
      if (u.location.empty()) return InvalidArgument("{}: 'location' is empty", where);
      break;
    }
    case K::kSetProperties: {
      FLOE_RETURN_IF_ERROR(RequiredMember(j, "updates", where));
      FLOE_ASSIGN_OR_RETURN(u.set, InRequest(ji::GetStringMap(j, "updates", where), ""));
      break;
    }
    case K::kRemoveProperties: {
      FLOE_ASSIGN_OR_RETURN(u.remove, StringArray(j, "removals", where));
      break;
    }
    case K::kSetStatistics: FLOE_RETURN_IF_ERROR(opaque("statistics")); break;
    case K::kRemoveStatistics: FLOE_RETURN_IF_ERROR(one_snapshot_id()); break;
    case K::kSetPartitionStatistics: FLOE_RETURN_IF_ERROR(opaque("partition-statistics")); break;
    case K::kRemovePartitionStatistics: FLOE_RETURN_IF_ERROR(one_snapshot_id()); break;
    case K::kRemovePartitionSpecs: {
      FLOE_ASSIGN_OR_RETURN(u.ids, IntArray<int32_t>(j, "spec-ids", where));
      break;
    }
    case K::kRemoveSchemas: {
      FLOE_ASSIGN_OR_RETURN(u.ids, IntArray<int32_t>(j, "schema-ids", where));
      break;
    }
  }
  return u;
}

}  // namespace

Result<TableChanges> TableChangesFromJson(std::string_view json) {
  FLOE_ASSIGN_OR_RETURN(Json root, InRequest(ji::Parse(json, "commit request"), ""));
  if (!root.is_object())
    return InvalidArgument("commit request must be a JSON object, got {}", ji::KindName(root));
  TableChanges changes;
  for (std::string_view key : {"requirements", "updates"}) {
    const Json* arr = Member(root, key);
    if (!arr) return InvalidArgument("commit request: '{}' is required but missing", key);
    if (!arr->is_array()) {
      return InvalidArgument("commit request: '{}' must be an array, got {}", key,
                             ji::KindName(*arr));
    }
  }
  const Json& reqs = *Member(root, "requirements");
  for (size_t i = 0; i < reqs.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(TableRequirement r, RequirementFromJson(reqs[i], i));
    changes.requirements.push_back(std::move(r));
  }
  const Json& ups = *Member(root, "updates");
  for (size_t i = 0; i < ups.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(TableUpdate u, UpdateFromJson(ups[i], i));
    changes.updates.push_back(std::move(u));
  }
  return changes;
}

}  // namespace floe::iceberg
