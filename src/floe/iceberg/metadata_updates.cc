#include "floe/iceberg/metadata_updates.h"

#include <algorithm>
#include <chrono>
#include <charconv>

#include "floe/util/uuid.h"

namespace floe::iceberg {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<TableMetadata> NewTableMetadata(std::string location, const Schema& schema,
                                       const PartitionSpec& spec, const SortOrder& order,
                                       std::map<std::string, std::string> properties) {
  FLOE_RETURN_IF_ERROR(schema.Validate());
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  FLOE_RETURN_IF_ERROR(order.Validate(schema));
  if (auto it = properties.find("format-version"); it != properties.end()) {
    if (it->second != "2") {
      return InvalidArgument("format-version {} is not supported for new tables: floe writes version 2",
                             it->second);
    }
    properties.erase(it);
  }
  TableMetadata md;
  md.format_version = 2;
  md.table_uuid = RandomUuid();
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  md.location = std::move(location);
  md.last_sequence_number = 0;
  md.last_updated_ms = NowMillis();
  md.last_column_id = schema.HighestFieldId();
  md.schemas.push_back(std::make_shared<Schema>(schema.fields(), 0, schema.identifier_field_ids()));
  md.current_schema_id = 0;
  md.specs.push_back(PartitionSpec(0, spec.fields()));
  md.default_spec_id = 0;
  md.last_partition_id = spec.fields().empty() ? kUnpartitionedLastPartitionId : spec.LastAssignedFieldId();
  if (order.is_unsorted()) {
    md.sort_orders.push_back(SortOrder::Unsorted());
    md.default_sort_order_id = 0;
  } else {
    md.sort_orders.push_back(SortOrder::Unsorted());
    md.sort_orders.push_back(SortOrder(1, order.fields()));
    md.default_sort_order_id = 1;
  }
  md.properties = std::move(properties);
  FLOE_RETURN_IF_ERROR(md.Validate());
  return md;
}

Result<TableMetadata> AddSnapshot(const TableMetadata& base, Snapshot snapshot, std::string_view branch) {
  if (snapshot.snapshot_id <= 0) return InvalidArgument("snapshot id {} is not positive", snapshot.snapshot_id);
  if (base.SnapshotById(snapshot.snapshot_id)) {
    return CommitFailed("snapshot id {} exists already", snapshot.snapshot_id);
  }
  if (snapshot.sequence_number != base.last_sequence_number + 1) {
    return CommitFailed("snapshot sequence number {} is not the table's next ({})", snapshot.sequence_number,
                        base.last_sequence_number + 1);
  }
  std::optional<int64_t> head;
  bool new_branch = false;
  if (auto it = base.refs.find(std::string(branch)); it != base.refs.end()) {
    if (!it->second.is_branch()) return InvalidArgument("'{}' is a tag, not a branch", branch);
    head = it->second.snapshot_id;
  } else if (branch == kMainBranch) {
    head = base.current_snapshot_id;
  } else {
    new_branch = true;  // a new branch may start from any existing snapshot
    if (snapshot.parent_snapshot_id && !base.SnapshotById(*snapshot.parent_snapshot_id)) {
      return CommitFailed("the parent snapshot {} of new branch {} no longer exists", *snapshot.parent_snapshot_id,
                          branch);
    }
  }
  if (!new_branch && snapshot.parent_snapshot_id != head) {
    return CommitFailed("branch {} moved: its head is {}, the new snapshot's parent is {}", branch,
                        head ? std::to_string(*head) : "none",
                        snapshot.parent_snapshot_id ? std::to_string(*snapshot.parent_snapshot_id) : "none");
  }
  TableMetadata md = base;
  md.last_sequence_number = snapshot.sequence_number;
  md.last_updated_ms = std::max(base.last_updated_ms, snapshot.timestamp_ms);
  int64_t id = snapshot.snapshot_id;
  int64_t ts = snapshot.timestamp_ms;
  md.snapshots.push_back(std::move(snapshot));
  SnapshotRef ref;
  if (auto it = base.refs.find(std::string(branch)); it != base.refs.end()) ref = it->second;
  ref.snapshot_id = id;
  ref.type = SnapshotRefType::kBranch;
  md.refs[std::string(branch)] = ref;
  if (branch == kMainBranch) {
    md.current_snapshot_id = id;
    md.snapshot_log.push_back(SnapshotLogEntry{ts, id});
  }
  FLOE_RETURN_IF_ERROR(md.Validate());
  return md;
}

Result<TableMetadata> SetRef(const TableMetadata& base, const std::string& name, SnapshotRef ref) {
  if (name.empty()) return InvalidArgument("a branch or tag needs a name");
  if (!base.SnapshotById(ref.snapshot_id)) {
    return NotFound("snapshot {} does not exist (branch/tag '{}')", ref.snapshot_id, name);
  }
  if (auto it = base.refs.find(name); it != base.refs.end() && it->second.type != ref.type) {
    return InvalidArgument("'{}' is a {} already", name, it->second.is_branch() ? "branch" : "tag");
  }
  if (name == kMainBranch && !ref.is_branch()) return InvalidArgument("'main' must be a branch");
  if (!ref.is_branch()) {
    ref.min_snapshots_to_keep.reset();
    ref.max_snapshot_age_ms.reset();
  }
  TableMetadata md = base;
  md.refs[name] = ref;
  md.last_updated_ms = std::max(base.last_updated_ms, NowMillis());
  if (name == kMainBranch && md.current_snapshot_id != ref.snapshot_id) {
    md.current_snapshot_id = ref.snapshot_id;
    md.snapshot_log.push_back(SnapshotLogEntry{md.last_updated_ms, ref.snapshot_id});
  }
  FLOE_RETURN_IF_ERROR(md.Validate());
  return md;
}

Result<TableMetadata> RemoveRef(const TableMetadata& base, const std::string& name) {
  if (name == kMainBranch) return InvalidArgument("the main branch cannot be removed");
  if (!base.refs.contains(name)) return NotFound("no branch or tag named '{}'", name);
  TableMetadata md = base;
  md.refs.erase(name);
  md.last_updated_ms = std::max(base.last_updated_ms, NowMillis());
  return md;
}

Result<TableMetadata> RemoveSnapshots(const TableMetadata& base, const std::vector<int64_t>& ids) {
  TableMetadata md = base;
  for (int64_t id : ids) {
    for (const auto& [name, ref] : base.refs) {
      if (ref.snapshot_id == id) {
        return InvalidArgument("snapshot {} is the head of '{}' and cannot be removed", id, name);
      }
    }
  }
  auto removed = [&](int64_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  std::erase_if(md.snapshots, [&](const Snapshot& s) { return removed(s.snapshot_id); });
  // The snapshot log keeps only the newest run of entries whose snapshots still exist.
  auto& log = md.snapshot_log;
  size_t keep_from = 0;
  for (size_t i = 0; i < log.size(); ++i) {
    if (removed(log[i].snapshot_id)) keep_from = i + 1;
  }
  log.erase(log.begin(), log.begin() + static_cast<std::ptrdiff_t>(keep_from));
  md.last_updated_ms = std::max(base.last_updated_ms, NowMillis());
  FLOE_RETURN_IF_ERROR(md.Validate());
  return md;
}

Result<TableMetadata> UpdateProperties(const TableMetadata& base, const std::map<std::string, std::string>& set,
                                       const std::vector<std::string>& remove) {
  TableMetadata md = base;
  for (const auto& k : remove) md.properties.erase(k);
  for (const auto& [k, v] : set) {
    if (k == "format-version") {
      if (v != std::to_string(base.format_version)) {
        return Unsupported("changing format-version to {} is not supported", v);
      }
      continue;
    }
    md.properties[k] = v;
  }
  md.last_updated_ms = std::max(base.last_updated_ms, NowMillis());
  return md;
}

TableMetadata WithMetadataLog(TableMetadata next, const std::string& previous_metadata_file,
                              int64_t previous_last_updated_ms) {
  int64_t max_entries = 100;
  if (auto it = next.properties.find("write.metadata.previous-versions-max"); it != next.properties.end()) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    if (ec == std::errc() && v >= 1) max_entries = v;
  }
  if (!previous_metadata_file.empty()) {
    next.metadata_log.push_back(MetadataLogEntry{previous_last_updated_ms, previous_metadata_file});
  }
  while (static_cast<int64_t>(next.metadata_log.size()) > max_entries) {
    next.metadata_log.erase(next.metadata_log.begin());
  }
  next.last_updated_ms = std::max({next.last_updated_ms, NowMillis(),
                                   next.metadata_log.empty() ? 0 : next.metadata_log.back().timestamp_ms});
  return next;
}

}  // namespace floe::iceberg
