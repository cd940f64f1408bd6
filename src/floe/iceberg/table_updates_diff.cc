// DiffMetadata: the REST commit (requirements + updates) that turns a base
// TableMetadata into an updated one (REST spec: CommitTableRequest,
// TableRequirement, TableUpdate). The updates are ordered so that each one
// applies to the result of the ones before it: schemas, specs and orders
// first (a snapshot may name a new schema), then snapshots, then refs (a
// ref may name a new snapshot; a removed ref frees its snapshot), then the
// snapshot removals, statistics and finally the removal of unused schemas
// and specs (after the defaults moved away from them).

#include <algorithm>
#include <set>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/table_updates.h"

namespace floe::iceberg {

namespace {

namespace ji = json_internal;

using Req = TableRequirement;
using Upd = TableUpdate;

Req Requirement(Req::Kind kind, int32_t id = 0) {
  Req r;
  r.kind = kind;
  r.id = id;
  return r;
}

Upd Update(Upd::Kind kind) {
  Upd u;
  u.kind = kind;
  return u;
}

// The `snapshot-id` of a statistics object (StatisticsFile and
// PartitionStatisticsFile both require it): the key by which
// set-/remove-statistics address it.
Result<int64_t> StatisticsSnapshotId(const std::string& json, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, what));
  if (!j.is_object()) return InvalidArgument("{}: an entry is not a JSON object", what);
  auto id = ji::GetSnapshotId(j, "snapshot-id", what);
  if (!id) return InvalidArgument("{}", id.error().message);
  return *id;
}

// Statistics entries by the snapshot they describe.
Result<std::map<int64_t, std::string>> StatisticsById(const std::vector<std::string>& entries,
                                                      std::string_view what) {
  std::map<int64_t, std::string> out;
  for (const auto& e : entries) {
    FLOE_ASSIGN_OR_RETURN(int64_t id, StatisticsSnapshotId(e, what));
    out[id] = e;
  }
  return out;
}

// set-/remove-(partition-)statistics for the entries that differ.
Status DiffStatistics(const std::vector<std::string>& base, const std::vector<std::string>& updated,
                      std::string_view what, Upd::Kind set_kind, Upd::Kind remove_kind,
                      std::vector<Upd>* out) {
  FLOE_ASSIGN_OR_RETURN(auto before, StatisticsById(base, what));
  FLOE_ASSIGN_OR_RETURN(auto after, StatisticsById(updated, what));
  for (const auto& [id, json] : before) {
    if (after.contains(id)) continue;
    Upd u = Update(remove_kind);
    u.snapshot_ids = {id};
    out->push_back(std::move(u));
  }
  for (const auto& [id, json] : after) {
    auto it = before.find(id);
    if (it != before.end() && it->second == json) continue;
    Upd u = Update(set_kind);
    u.json = json;
    out->push_back(std::move(u));
  }
  return Ok();
}

}  // namespace

Result<TableChanges> DiffMetadata(const TableMetadata& base, const TableMetadata& updated) {
  TableChanges c;
  auto& reqs = c.requirements;
  auto& ups = c.updates;

  // ---- what no update expresses
  if (updated.table_uuid != base.table_uuid) {
    return InvalidArgument("table-uuid changed from {} to {}: no table update re-assigns a uuid",
                           base.table_uuid, updated.table_uuid);
  }
  if (updated.format_version < base.format_version) {
    return InvalidArgument(
        "format-version lowered from {} to {}: a table's format version only goes up",
        base.format_version, updated.format_version);
  }
  for (const auto& s : base.snapshots) {
    const Snapshot* now = updated.SnapshotById(s.snapshot_id);
    if (now && !(*now == s)) {
      return InvalidArgument("snapshot {} was rewritten: a committed snapshot never changes",
                             s.snapshot_id);
    }
  }
  for (const auto& s : base.schemas) {
    SchemaPtr now = updated.SchemaById(s->schema_id());
    if (now && !(*now == *s)) {
      return InvalidArgument("schema {} was rewritten: a schema change adds a new schema id",
                             s->schema_id());
    }
    if (now) {
      auto b = base.field_defaults.find(s->schema_id());
      auto u = updated.field_defaults.find(s->schema_id());
      bool same = (b == base.field_defaults.end()) == (u == updated.field_defaults.end()) &&
                  (b == base.field_defaults.end() || b->second == u->second);
      if (!same)
        return InvalidArgument("schema {}: its field defaults were rewritten", s->schema_id());
    }
  }
  for (const auto& s : base.specs) {
    const PartitionSpec* now = updated.SpecById(s.spec_id());
    if (now && !(*now == s)) {
      return InvalidArgument("partition spec {} was rewritten: a spec change adds a new spec id",
                             s.spec_id());
    }
  }
  for (const auto& o : base.sort_orders) {
    const SortOrder* now = updated.SortOrderById(o.order_id());
    if (now && !(*now == o)) {
      return InvalidArgument("sort order {} was rewritten: an order change adds a new order id",
                             o.order_id());
    }
  }
  if (updated.current_snapshot_id != base.current_snapshot_id) {
    auto main = updated.refs.find(std::string(kMainBranch));
    std::optional<int64_t> head;
    if (main != updated.refs.end()) head = main->second.snapshot_id;
    if (head != updated.current_snapshot_id) {
      return InvalidArgument(
          "current-snapshot-id {} is not the head of branch main: only a main update moves it",
          updated.current_snapshot_id ? std::to_string(*updated.current_snapshot_id) : "none");
    }
  }

  reqs.push_back([&] {
    Req r = Requirement(Req::Kind::kAssertTableUuid);
    r.uuid = base.table_uuid;
    return r;
  }());

  // ---- format version
  if (updated.format_version > base.format_version) {
    Upd u = Update(Upd::Kind::kUpgradeFormatVersion);
    u.id = updated.format_version;
    ups.push_back(std::move(u));
  }

  // ---- schemas
  std::vector<SchemaPtr> new_schemas;
  for (const auto& s : updated.schemas) {
    if (!base.SchemaById(s->schema_id())) new_schemas.push_back(s);
  }
  if (new_schemas.empty() && updated.last_column_id != base.last_column_id) {
    return InvalidArgument("last-column-id changed from {} to {} without a new schema",
                           base.last_column_id, updated.last_column_id);
  }
  if (!new_schemas.empty() || updated.current_schema_id != base.current_schema_id) {
    reqs.push_back(Requirement(Req::Kind::kAssertCurrentSchemaId, base.current_schema_id));
    reqs.push_back(Requirement(Req::Kind::kAssertLastAssignedFieldId, base.last_column_id));
  }
  for (const auto& s : new_schemas) {
    Upd u = Update(Upd::Kind::kAddSchema);
    u.schema = s;
    if (auto d = updated.field_defaults.find(s->schema_id()); d != updated.field_defaults.end()) {
      u.schema_defaults = d->second;
    }
    ups.push_back(std::move(u));
  }
  if (updated.current_schema_id != base.current_schema_id) {
    Upd u = Update(Upd::Kind::kSetCurrentSchema);
    u.id = updated.current_schema_id;
    ups.push_back(std::move(u));
  }

  // ---- partition specs
  std::vector<const PartitionSpec*> new_specs;
  for (const auto& s : updated.specs) {
    if (!base.SpecById(s.spec_id())) new_specs.push_back(&s);
  }
  if (new_specs.empty() && updated.last_partition_id != base.last_partition_id) {
    return InvalidArgument("last-partition-id changed from {} to {} without a new partition spec",
                           base.last_partition_id, updated.last_partition_id);
  }
  if (!new_specs.empty() || updated.default_spec_id != base.default_spec_id) {
    reqs.push_back(Requirement(Req::Kind::kAssertLastAssignedPartitionId, base.last_partition_id));
    reqs.push_back(Requirement(Req::Kind::kAssertDefaultSpecId, base.default_spec_id));
  }
  for (const PartitionSpec* s : new_specs) {
    Upd u = Update(Upd::Kind::kAddSpec);
    u.spec = *s;
    ups.push_back(std::move(u));
  }
  if (updated.default_spec_id != base.default_spec_id) {
    Upd u = Update(Upd::Kind::kSetDefaultSpec);
    u.id = updated.default_spec_id;
    ups.push_back(std::move(u));
  }

  // ---- sort orders
  std::vector<const SortOrder*> new_orders;
  for (const auto& o : updated.sort_orders) {
    if (!base.SortOrderById(o.order_id())) new_orders.push_back(&o);
  }
  if (!new_orders.empty() || updated.default_sort_order_id != base.default_sort_order_id) {
    reqs.push_back(Requirement(Req::Kind::kAssertDefaultSortOrderId, base.default_sort_order_id));
  }
  for (const SortOrder* o : new_orders) {
    Upd u = Update(Upd::Kind::kAddSortOrder);
    u.sort_order = *o;
    ups.push_back(std::move(u));
  }
  if (updated.default_sort_order_id != base.default_sort_order_id) {
    Upd u = Update(Upd::Kind::kSetDefaultSortOrder);
    u.id = updated.default_sort_order_id;
    ups.push_back(std::move(u));
  }

  // ---- location and properties
  if (updated.location != base.location) {
    Upd u = Update(Upd::Kind::kSetLocation);
    u.location = updated.location;
    ups.push_back(std::move(u));
  }
  {
    Upd set = Update(Upd::Kind::kSetProperties);
    for (const auto& [k, v] : updated.properties) {
      auto it = base.properties.find(k);
      if (it == base.properties.end() || it->second != v) set.set[k] = v;
    }
    if (!set.set.empty()) ups.push_back(std::move(set));
    Upd remove = Update(Upd::Kind::kRemoveProperties);
    for (const auto& [k, v] : base.properties) {
      if (!updated.properties.contains(k)) remove.remove.push_back(k);
    }
    if (!remove.remove.empty()) ups.push_back(std::move(remove));
  }

  // ---- snapshots: new ones in commit order (a parent before its child)
  std::vector<const Snapshot*> added;
  for (const auto& s : updated.snapshots) {
    if (base.SnapshotById(s.snapshot_id)) continue;
    if (!s.operation) {
      return InvalidArgument("snapshot {} has no operation: its summary must carry one",
                             s.snapshot_id);
    }
    added.push_back(&s);
  }
  std::stable_sort(added.begin(), added.end(), [](const Snapshot* a, const Snapshot* b) {
    return a->sequence_number < b->sequence_number;
  });
  for (const Snapshot* s : added) {
    Upd u = Update(Upd::Kind::kAddSnapshot);
    u.snapshot = *s;
    ups.push_back(std::move(u));
  }

  // ---- refs: removals first (they may free a snapshot removed below), then
  // new and moved refs. Every ref whose snapshot changes is asserted at its
  // base snapshot, so a concurrent move of the same branch fails the commit.
  for (const auto& [name, ref] : base.refs) {
    if (updated.refs.contains(name)) continue;
    Req r = Requirement(Req::Kind::kAssertRefSnapshotId);
    r.ref = name;
    r.snapshot_id = ref.snapshot_id;
    reqs.push_back(std::move(r));
    Upd u = Update(Upd::Kind::kRemoveSnapshotRef);
    u.ref_name = name;
    ups.push_back(std::move(u));
  }
  for (const auto& [name, ref] : updated.refs) {
    auto it = base.refs.find(name);
    if (it != base.refs.end() && it->second == ref) continue;
    if (it == base.refs.end() || it->second.snapshot_id != ref.snapshot_id) {
      Req r = Requirement(Req::Kind::kAssertRefSnapshotId);
      r.ref = name;
      if (it != base.refs.end()) r.snapshot_id = it->second.snapshot_id;
      reqs.push_back(std::move(r));
    }
    Upd u = Update(Upd::Kind::kSetSnapshotRef);
    u.ref_name = name;
    u.ref = ref;
    ups.push_back(std::move(u));
  }

  // ---- expired snapshots
  {
    Upd u = Update(Upd::Kind::kRemoveSnapshots);
    for (const auto& s : base.snapshots) {
      if (!updated.SnapshotById(s.snapshot_id)) u.snapshot_ids.push_back(s.snapshot_id);
    }
    if (!u.snapshot_ids.empty()) ups.push_back(std::move(u));
  }

  // ---- statistics
  FLOE_RETURN_IF_ERROR(DiffStatistics(base.statistics, updated.statistics, "statistics",
                                      Upd::Kind::kSetStatistics, Upd::Kind::kRemoveStatistics,
                                      &ups));
  FLOE_RETURN_IF_ERROR(DiffStatistics(base.partition_statistics, updated.partition_statistics,
                                      "partition-statistics", Upd::Kind::kSetPartitionStatistics,
                                      Upd::Kind::kRemovePartitionStatistics, &ups));

  // ---- unused specs and schemas removed
  {
    Upd u = Update(Upd::Kind::kRemovePartitionSpecs);
    for (const auto& s : base.specs) {
      if (!updated.SpecById(s.spec_id())) u.ids.push_back(s.spec_id());
    }
    if (!u.ids.empty()) ups.push_back(std::move(u));
  }
  {
    Upd u = Update(Upd::Kind::kRemoveSchemas);
    for (const auto& s : base.schemas) {
      if (!updated.SchemaById(s->schema_id())) u.ids.push_back(s->schema_id());
    }
    if (!u.ids.empty()) ups.push_back(std::move(u));
  }
  for (const auto& o : base.sort_orders) {
    if (!updated.SortOrderById(o.order_id())) {
      return InvalidArgument("sort order {} was removed: no table update removes a sort order",
                             o.order_id());
    }
  }
  return c;
}

}  // namespace floe::iceberg
