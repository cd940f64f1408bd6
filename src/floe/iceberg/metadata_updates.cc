#include "floe/iceberg/metadata_updates.h"

#include <algorithm>
#include <chrono>
#include <charconv>


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

}  // namespace floe::iceberg
