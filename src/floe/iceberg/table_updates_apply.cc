// Checking a commit's requirements against a table and applying its updates
// (REST spec: TableRequirement, TableUpdate; the semantics follow the
// Iceberg table metadata rules: Table Metadata, Snapshots, Snapshot
// References, Sequence Numbers). The operations that exist as metadata
// changes of their own (SetRef, RemoveSnapshots, AddPartitionSpec,
// UpdateProperties) are reused; this file adds the REST conventions: the -1
// "last added in this commit" ids, reuse of an identical schema, spec or
// order, and the timestamps a commit may claim.

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/table_updates.h"

namespace floe::iceberg {

namespace ji = json_internal;

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) {
             return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
           };
           return lower(x) == lower(y);
         });
}

std::string OptionalId(const std::optional<int64_t>& id) {
  return id ? std::to_string(*id) : "none";
}

Status Mismatch(TableRequirement::Kind kind, const std::string& expected,
                const std::string& actual) {
  return CommitFailed("requirement {} failed: expected {}, found {}", RequirementTypeName(kind),
                      expected, actual);
}

/// The snapshot-id of an opaque statistics object (checked when parsed).
int64_t StatisticsSnapshotId(const std::string& json) {
  auto j = ji::Parse(json, "statistics");
  if (!j) return 0;
  auto id = ji::GetSnapshotId(*j, "snapshot-id", "statistics");
  return id ? *id : 0;
}

/// Same columns and identifier fields, whatever the schema id.
bool SameSchema(const Schema& a, const Schema& b) {
  return Schema(a.fields(), 0, a.identifier_field_ids()) ==
         Schema(b.fields(), 0, b.identifier_field_ids());
}

/// Applies one commit's updates in order, remembering what "last added"
/// means for the -1 ids and which snapshots this commit added.
class Applier {
 public:
  explicit Applier(const TableMetadata& base) : md_(base), last_updated_ms_(base.last_updated_ms) {}

  Status Apply(const TableUpdate& u);

  Result<TableMetadata> Finish() && {
    md_.last_updated_ms = last_updated_ms_;
    if (auto st = md_.Validate(); !st) {
      return InvalidArgument("the updates make invalid table metadata: {}", st.error().message);
    }
    return std::move(md_);
  }

 private:
  Result<int32_t> LastAdded(int32_t id, const std::optional<int32_t>& last,
                            std::string_view what) const {
    if (id != -1) return id;
    if (!last)
      return InvalidArgument("-1 names the {} added last in this commit, but none was added", what);
    return *last;
  }

  Status AddSchema(const TableUpdate& u);
  Status AddSpec(const TableUpdate& u);
  Status AddSortOrder(const TableUpdate& u);
  Status AddSnapshot(const Snapshot& s);
  Status SetSnapshotRef(const std::string& name, const SnapshotRef& ref);
  Status RemoveSnapshotRef(const std::string& name);
  void SetStatistics(std::vector<std::string>* list, const std::string& json);
  void RemoveStatistics(std::vector<std::string>* list, int64_t snapshot_id);

  TableMetadata md_;
  int64_t last_updated_ms_;
  std::optional<int32_t> last_schema_;
  std::optional<int32_t> last_spec_;
  std::optional<int32_t> last_order_;
  std::set<int64_t> added_snapshots_;
};

Status Applier::AddSchema(const TableUpdate& u) {
  if (!u.schema) return InvalidArgument("no schema given");
  for (const auto& s : md_.schemas) {
    if (SameSchema(*s, *u.schema)) {
      // Java reuses the id of an identical schema instead of adding a copy.
      last_schema_ = s->schema_id();
      return Ok();
    }
  }
  const int32_t id = u.schema->schema_id();
  if (md_.SchemaById(id))
    return InvalidArgument("schema id {} is already used by another schema", id);
  FLOE_RETURN_IF_ERROR(u.schema->Validate());
  md_.schemas.push_back(u.schema);
  if (!u.schema_defaults.empty()) md_.field_defaults[id] = u.schema_defaults;
  md_.last_column_id = std::max(md_.last_column_id, u.schema->HighestFieldId());
  last_schema_ = id;
  return Ok();
}

Status Applier::AddSpec(const TableUpdate& u) {
  for (const auto& s : md_.specs) {
    if (s.fields() == u.spec.fields()) {
      last_spec_ = s.spec_id();
      return Ok();
    }
  }
  FLOE_ASSIGN_OR_RETURN(md_, AddPartitionSpec(md_, u.spec));
  last_spec_ = md_.specs.back().spec_id();
  return Ok();
}

Status Applier::AddSortOrder(const TableUpdate& u) {
  for (const auto& o : md_.sort_orders) {
    if (o.fields() == u.sort_order.fields()) {
      last_order_ = o.order_id();
      return Ok();
    }
  }
  int32_t id = 0;
  if (!u.sort_order.is_unsorted()) {
    // The client's id when it is free (so a diff applies back to the same
    // metadata), else the next one; 0 is the unsorted order's.
    id = u.sort_order.order_id();
    if (id <= 0 || md_.SortOrderById(id)) {
      id = 1;
      for (const auto& o : md_.sort_orders) id = std::max(id, o.order_id() + 1);
    }
  }
  SortOrder order(id, u.sort_order.fields());
  SchemaPtr schema = md_.CurrentSchema();
  if (!schema) return InvalidArgument("the table has no current schema");
  FLOE_RETURN_IF_ERROR(order.Validate(*schema));
  md_.sort_orders.push_back(std::move(order));
  last_order_ = id;
  return Ok();
}

Status Applier::AddSnapshot(const Snapshot& s) {
  if (s.snapshot_id <= 0) return InvalidArgument("snapshot id {} is not positive", s.snapshot_id);
  if (md_.SnapshotById(s.snapshot_id))
    return InvalidArgument("snapshot {} already exists", s.snapshot_id);
  if (s.parent_snapshot_id && !md_.SnapshotById(*s.parent_snapshot_id)) {
    return InvalidArgument("snapshot {}: parent snapshot {} does not exist", s.snapshot_id,
                           *s.parent_snapshot_id);
  }
  if (s.schema_id && !md_.SchemaById(*s.schema_id)) {
    return InvalidArgument("snapshot {}: schema {} does not exist", s.snapshot_id, *s.schema_id);
  }
  if (!s.operation)
    return InvalidArgument("snapshot {}: the summary has no operation", s.snapshot_id);
  // Iceberg spec, Sequence Numbers: each commit takes a number above every
  // earlier one, and last-sequence-number follows it.
  if (md_.format_version >= 2 && s.sequence_number <= md_.last_sequence_number) {
    return InvalidArgument(
        "snapshot {}: sequence number {} is not above the table's last-sequence-number {}",
        s.snapshot_id, s.sequence_number, md_.last_sequence_number);
  }
  md_.last_sequence_number = std::max(md_.last_sequence_number, s.sequence_number);
  if (md_.format_version >= 3 && s.first_row_id && s.added_rows) {
    // Iceberg spec: Snapshot Row IDs (next-row-id moves past the snapshot's range).
    if (*s.first_row_id < md_.next_row_id.value_or(0)) {
      return InvalidArgument("snapshot {}: first-row-id {} is below the table's next-row-id {}", s.snapshot_id,
                             *s.first_row_id, md_.next_row_id.value_or(0));
    }
    md_.next_row_id = *s.first_row_id + *s.added_rows;
  }
  md_.snapshots.push_back(s);
  added_snapshots_.insert(s.snapshot_id);
  last_updated_ms_ = std::max(last_updated_ms_, s.timestamp_ms);
  return Ok();
}

Status Applier::SetSnapshotRef(const std::string& name, const SnapshotRef& ref) {
  const size_t log_size = md_.snapshot_log.size();
  FLOE_ASSIGN_OR_RETURN(md_, SetRef(md_, name, ref));
  if (md_.snapshot_log.size() > log_size) {
    // main moved: the snapshot log records when. A snapshot this commit
    // added became current at its own timestamp (as a local commit records
    // it); moving back to an older one (a rollback) happens now.
    int64_t at = added_snapshots_.contains(ref.snapshot_id)
                     ? md_.SnapshotById(ref.snapshot_id)->timestamp_ms
                     : NowMillis();
    if (log_size > 0) at = std::max(at, md_.snapshot_log[log_size - 1].timestamp_ms);
    md_.snapshot_log.back().timestamp_ms = at;
    last_updated_ms_ = std::max(last_updated_ms_, at);
  }
  return Ok();
}

Status Applier::RemoveSnapshotRef(const std::string& name) {
  // As Java's metadata builder: removing a ref that is not there changes
  // nothing, and removing main leaves the table without a current snapshot
  // (a replace transaction starts that way).
  if (!md_.refs.contains(name)) return Ok();
  if (name == kMainBranch) {
    md_.refs.erase(name);
    md_.current_snapshot_id.reset();
    return Ok();
  }
  FLOE_ASSIGN_OR_RETURN(md_, RemoveRef(md_, name));
  return Ok();
}

void Applier::SetStatistics(std::vector<std::string>* list, const std::string& json) {
  // One statistics file per snapshot: a new one replaces the old.
  RemoveStatistics(list, StatisticsSnapshotId(json));
  list->push_back(json);
}

void Applier::RemoveStatistics(std::vector<std::string>* list, int64_t snapshot_id) {
  std::erase_if(*list,
                [&](const std::string& s) { return StatisticsSnapshotId(s) == snapshot_id; });
}

Status Applier::Apply(const TableUpdate& u) {
  using K = TableUpdate::Kind;
  switch (u.kind) {
    case K::kAssignUuid:
      if (!md_.table_uuid.empty() && !EqualsIgnoreCase(md_.table_uuid, u.uuid)) {
        return InvalidArgument("the table's uuid is {}; it cannot be reassigned to {}",
                               md_.table_uuid, u.uuid);
      }
      if (u.uuid.empty()) return InvalidArgument("the uuid is empty");
      md_.table_uuid = u.uuid;
      return Ok();
    case K::kUpgradeFormatVersion:
      if (u.id < md_.format_version) {
        return InvalidArgument("cannot downgrade the format version from {} to {}",
                               md_.format_version, u.id);
      }
      if (u.id > 3) return InvalidArgument("floe writes format versions 2 and 3, not {}", u.id);
      if (u.id >= 3 && md_.format_version < 3 && !md_.next_row_id) md_.next_row_id = 0;
      md_.format_version = u.id;
      return Ok();
    case K::kAddSchema: return AddSchema(u);
    case K::kSetCurrentSchema: {
      FLOE_ASSIGN_OR_RETURN(int32_t id, LastAdded(u.id, last_schema_, "schema"));
      if (!md_.SchemaById(id)) return InvalidArgument("schema {} does not exist", id);
      md_.current_schema_id = id;
      return Ok();
    }
    case K::kAddSpec: return AddSpec(u);
    case K::kSetDefaultSpec: {
      FLOE_ASSIGN_OR_RETURN(int32_t id, LastAdded(u.id, last_spec_, "partition spec"));
      if (!md_.SpecById(id)) return InvalidArgument("partition spec {} does not exist", id);
      md_.default_spec_id = id;
      return Ok();
    }
    case K::kAddSortOrder: return AddSortOrder(u);
    case K::kSetDefaultSortOrder: {
      FLOE_ASSIGN_OR_RETURN(int32_t id, LastAdded(u.id, last_order_, "sort order"));
      if (!md_.SortOrderById(id)) return InvalidArgument("sort order {} does not exist", id);
      md_.default_sort_order_id = id;
      return Ok();
    }
    case K::kAddSnapshot: return AddSnapshot(u.snapshot);
    case K::kSetSnapshotRef: return SetSnapshotRef(u.ref_name, u.ref);
    case K::kRemoveSnapshots: {
      FLOE_ASSIGN_OR_RETURN(md_, RemoveSnapshots(md_, u.snapshot_ids));
      // Statistics describe a snapshot; they go with it.
      for (int64_t id : u.snapshot_ids) {
        RemoveStatistics(&md_.statistics, id);
        RemoveStatistics(&md_.partition_statistics, id);
      }
      return Ok();
    }
    case K::kRemoveSnapshotRef: return RemoveSnapshotRef(u.ref_name);
    case K::kSetLocation:
      if (u.location.empty()) return InvalidArgument("the location is empty");
      md_.location = u.location;
      return Ok();
    case K::kSetProperties: {
      FLOE_ASSIGN_OR_RETURN(md_, UpdateProperties(md_, u.set, {}));
      return Ok();
    }
    case K::kRemoveProperties: {
      FLOE_ASSIGN_OR_RETURN(md_, UpdateProperties(md_, {}, u.remove));
      return Ok();
    }
    case K::kSetStatistics: SetStatistics(&md_.statistics, u.json); return Ok();
    case K::kRemoveStatistics:
      if (u.snapshot_ids.empty()) return InvalidArgument("no snapshot id given");
      RemoveStatistics(&md_.statistics, u.snapshot_ids[0]);
      return Ok();
    case K::kSetPartitionStatistics: SetStatistics(&md_.partition_statistics, u.json); return Ok();
    case K::kRemovePartitionStatistics:
      if (u.snapshot_ids.empty()) return InvalidArgument("no snapshot id given");
      RemoveStatistics(&md_.partition_statistics, u.snapshot_ids[0]);
      return Ok();
    case K::kRemovePartitionSpecs:
      for (int32_t id : u.ids) {
        if (id == md_.default_spec_id)
          return InvalidArgument("partition spec {} is the default and cannot be removed", id);
      }
      std::erase_if(md_.specs, [&](const PartitionSpec& s) {
        return std::find(u.ids.begin(), u.ids.end(), s.spec_id()) != u.ids.end();
      });
      return Ok();
    case K::kRemoveSchemas:
      for (int32_t id : u.ids) {
        if (id == md_.current_schema_id)
          return InvalidArgument("schema {} is current and cannot be removed", id);
      }
      std::erase_if(md_.schemas, [&](const SchemaPtr& s) {
        return std::find(u.ids.begin(), u.ids.end(), s->schema_id()) != u.ids.end();
      });
      for (int32_t id : u.ids) md_.field_defaults.erase(id);
      return Ok();
  }
  return Internal("unhandled update action {}", static_cast<int>(u.kind));
}

}  // namespace

Status CheckRequirements(const std::vector<TableRequirement>& requirements,
                         const TableMetadata* current) {
  using K = TableRequirement::Kind;
  for (const auto& r : requirements) {
    if (r.kind == K::kAssertCreate) {
      if (current)
        return CommitFailed("requirement assert-create failed: the table already exists");
      continue;
    }
    if (!current) {
      return CommitFailed("requirement {} failed: the table does not exist",
                          RequirementTypeName(r.kind));
    }
    const TableMetadata& m = *current;
    auto ints = [&](int32_t actual) -> Status {
      if (r.id != actual) return Mismatch(r.kind, std::to_string(r.id), std::to_string(actual));
      return Ok();
    };
    switch (r.kind) {
      case K::kAssertCreate: break;
      case K::kAssertTableUuid:
        if (!EqualsIgnoreCase(r.uuid, m.table_uuid)) return Mismatch(r.kind, r.uuid, m.table_uuid);
        break;
      case K::kAssertRefSnapshotId: {
        std::optional<int64_t> actual;
        if (auto it = m.refs.find(r.ref); it != m.refs.end()) actual = it->second.snapshot_id;
        if (actual != r.snapshot_id) {
          return CommitFailed(
              "requirement assert-ref-snapshot-id failed: expected ref '{}' at snapshot {}, found "
              "{}",
              r.ref, OptionalId(r.snapshot_id), actual ? std::to_string(*actual) : "no such ref");
        }
        break;
      }
      case K::kAssertLastAssignedFieldId: FLOE_RETURN_IF_ERROR(ints(m.last_column_id)); break;
      case K::kAssertCurrentSchemaId: FLOE_RETURN_IF_ERROR(ints(m.current_schema_id)); break;
      case K::kAssertLastAssignedPartitionId:
        FLOE_RETURN_IF_ERROR(ints(m.last_partition_id));
        break;
      case K::kAssertDefaultSpecId: FLOE_RETURN_IF_ERROR(ints(m.default_spec_id)); break;
      case K::kAssertDefaultSortOrderId: FLOE_RETURN_IF_ERROR(ints(m.default_sort_order_id)); break;
    }
  }
  return Ok();
}

Result<TableMetadata> ApplyUpdates(const TableMetadata& base,
                                   const std::vector<TableUpdate>& updates) {
  Applier applier(base);
  for (size_t i = 0; i < updates.size(); ++i) {
    if (auto st = applier.Apply(updates[i]); !st) {
      Error e = std::move(st).error();
      // What the helpers call not found or corrupt is, in a request, an
      // update that cannot apply; kUnsupported (e.g. changing format-version
      // through a property) keeps its kind.
      if (e.kind != ErrorKind::kUnsupported) e.kind = ErrorKind::kInvalidArgument;
      e.retryable = false;
      return Fail(std::move(e).WithContext(
          fmt::format("updates[{}] ({})", i, UpdateActionName(updates[i].kind))));
    }
  }
  return std::move(applier).Finish();
}

}  // namespace floe::iceberg
