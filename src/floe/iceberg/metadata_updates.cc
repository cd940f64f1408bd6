#include "floe/iceberg/metadata_updates.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>

namespace floe::iceberg {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
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

Result<TableMetadata> AddPartitionSpec(const TableMetadata& base, const PartitionSpec& spec) {
  SchemaPtr schema = base.CurrentSchema();
  if (!schema) return InvalidArgument("the table has no current schema to add a partition spec to");
  int32_t next_id = 0;
  for (const auto& s : base.specs) next_id = std::max(next_id, s.spec_id() + 1);
  for (const auto& f : spec.fields()) {
    if (f.field_id <= base.last_partition_id) {
      return InvalidArgument(
          "partition field '{}' has id {}, which is not above the table's last-partition-id {}",
          f.name, f.field_id, base.last_partition_id);
    }
  }
  PartitionSpec added(next_id, spec.fields());
  FLOE_RETURN_IF_ERROR(added.Validate(*schema));
  TableMetadata md = base;
  md.last_partition_id = std::max(base.last_partition_id, added.LastAssignedFieldId());
  md.specs.push_back(std::move(added));
  md.last_updated_ms = std::max(base.last_updated_ms, NowMillis());
  FLOE_RETURN_IF_ERROR(md.Validate());
  return md;
}

std::optional<int32_t> UnpartitionedSpecId(const TableMetadata& metadata) {
  if (const PartitionSpec* d = metadata.DefaultSpec(); d && d->is_unpartitioned())
    return d->spec_id();
  std::optional<int32_t> found;
  for (const auto& s : metadata.specs) {
    if (s.is_unpartitioned() && (!found || s.spec_id() < *found)) found = s.spec_id();
  }
  return found;
}

Result<TableMetadata> UpdateProperties(const TableMetadata& base, const std::map<std::string, std::string>& set,
                                       const std::vector<std::string>& remove) {
  TableMetadata md = base;
  for (const auto& k : remove) md.properties.erase(k);
  for (const auto& [k, v] : set) {
    if (k == "format-version") {
      // Raised, never lowered (Iceberg spec: Format Versioning); 2 -> 3 starts
      // row lineage at next-row-id 0 (Row Lineage for Upgraded Tables).
      if (v == std::to_string(base.format_version)) continue;
      if (v == "3" && base.format_version == 2) {
        md.format_version = 3;
        md.next_row_id = 0;
        continue;
      }
      if (v == "1" || v == "2") {
        return Unsupported("format-version cannot be lowered from {} to {}", base.format_version, v);
      }
      return Unsupported("changing format-version from {} to '{}' is not supported (floe writes 2 and 3)",
                         base.format_version, v);
    }
    md.properties[k] = v;
  }
  md.last_updated_ms = std::max(base.last_updated_ms, NowMillis());
  return md;
}

}  // namespace floe::iceberg
