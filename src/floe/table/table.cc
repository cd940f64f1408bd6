#include "floe/table/table.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_set>

#include "floe/catalog/commit_retry.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/table/table_folders.h"
#include "floe/table/table_internal.h"
#include "floe/util/uuid.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestContent;
using iceberg::ManifestEntry;
using iceberg::ManifestEntryStatus;
using iceberg::ManifestFile;

Table::Table(catalog::Catalog* catalog, catalog::LoadedTable loaded)
    : Table(catalog, std::move(loaded), catalog ? catalog->io() : io::LocalFileIO()) {}

Table::Table(catalog::Catalog* catalog, catalog::LoadedTable loaded, io::FileIOPtr io)
    : catalog_(catalog), loaded_(std::move(loaded)), io_(io ? std::move(io) : io::LocalFileIO()) {}

Result<catalog::RetryPolicy> Table::CommitRetryPolicy() const {
  return catalog::RetryPolicy::From(config::Resolver({&overrides_, &loaded_.metadata.properties}));
}

Status Table::Refresh() {
  FLOE_ASSIGN_OR_RETURN(loaded_, catalog_->RefreshTable(loaded_.id));
  return Ok();
}

// The helpers that the snapshot producer shares live in table_internal.h.
using internal::ReadEntries;
using internal::ReadManifests;

Result<std::vector<ManifestEntry>> LiveEntries(const Table& table, const iceberg::Snapshot& snapshot) {
  FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifests(table, snapshot));
  std::vector<ManifestEntry> out;
  for (const auto& m : manifests) {
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(table, m, true));
    for (auto& e : entries) {
      if (e.is_live()) out.push_back(std::move(e));
    }
  }
  return out;
}

Result<catalog::LoadedTable> SetRef(Table* table, const std::string& name, bool is_tag,
                                    std::optional<int64_t> snapshot_id, std::optional<int64_t> max_ref_age_ms) {
  FLOE_ASSIGN_OR_RETURN(auto policy, table->CommitRetryPolicy());
  Status st = catalog::RunWithRetries(policy, [&](int attempt) -> Status {
    if (attempt > 0) FLOE_RETURN_IF_ERROR(table->Refresh());
    const auto& md = table->metadata();
    iceberg::SnapshotRef ref;
    ref.type = is_tag ? iceberg::SnapshotRefType::kTag : iceberg::SnapshotRefType::kBranch;
    if (snapshot_id) {
      ref.snapshot_id = *snapshot_id;
    } else if (md.current_snapshot_id) {
      ref.snapshot_id = *md.current_snapshot_id;
    } else {
      return InvalidArgument("table {} has no snapshot yet to point '{}' at", table->id().ToString(), name);
    }
    ref.max_ref_age_ms = max_ref_age_ms;
    FLOE_ASSIGN_OR_RETURN(auto next, iceberg::SetRef(md, name, ref));
    FLOE_ASSIGN_OR_RETURN(auto committed, table->catalog()->CommitTable(table->loaded(), std::move(next)));
    table->Reset(std::move(committed));
    return Ok();
  });
  if (!st) return Fail(st.error());
  return table->loaded();
}

Result<int32_t> EnsureUnpartitionedSpec(Table* table) {
  if (auto id = iceberg::UnpartitionedSpecId(table->metadata())) return *id;
  FLOE_ASSIGN_OR_RETURN(auto policy, table->CommitRetryPolicy());
  int32_t spec_id = 0;
  Status st = catalog::RunWithRetries(policy, [&](int attempt) -> Status {
    if (attempt > 0) FLOE_RETURN_IF_ERROR(table->Refresh());
    // Another writer may have added one since (the reason for the retry).
    if (auto id = iceberg::UnpartitionedSpecId(table->metadata())) {
      spec_id = *id;
      return Ok();
    }
    FLOE_ASSIGN_OR_RETURN(
        auto next,
        iceberg::AddPartitionSpec(table->metadata(), iceberg::PartitionSpec::Unpartitioned()));
    spec_id = next.specs.back().spec_id();
    FLOE_ASSIGN_OR_RETURN(auto committed,
                          table->catalog()->CommitTable(table->loaded(), std::move(next)));
    table->Reset(std::move(committed));
    return Ok();
  });
  if (!st) return Fail(st.error());
  return spec_id;
}

Result<ExpireResult> ExpireSnapshots(Table* table, const ExpireOptions& options) {
  ExpireResult result;
  // A copied table folder names the original's files: expiring it would
  // delete them (and a dry run would list them).
  FLOE_RETURN_IF_ERROR(table->catalog()->CheckLocation(table->loaded()));
  FLOE_ASSIGN_OR_RETURN(auto policy, table->CommitRetryPolicy());
  std::vector<iceberg::Snapshot> expired;
  Status st = catalog::RunWithRetries(policy, [&](int attempt) -> Status {
    if (attempt > 0) FLOE_RETURN_IF_ERROR(table->Refresh());
    const auto& md = table->metadata();
    const int64_t now = iceberg::NowMillis();
    const config::Resolver props(md.properties);
    FLOE_ASSIGN_OR_RETURN(const int64_t max_age, props.Value(config::keys::kMaxSnapshotAgeMs));
    FLOE_ASSIGN_OR_RETURN(const int32_t min_keep, props.Value(config::keys::kMinSnapshotsToKeep));
    const int64_t older_than = options.older_than_ms.value_or(now - max_age);
    const int64_t retain = options.retain_last.value_or(min_keep);
    std::set<int64_t> keep;
    for (const auto& [name, ref] : md.refs) {
      if (!ref.is_branch()) {
        keep.insert(ref.snapshot_id);
        continue;
      }
      int64_t branch_retain = ref.min_snapshots_to_keep.value_or(retain);
      int64_t branch_older = ref.max_snapshot_age_ms ? now - *ref.max_snapshot_age_ms : older_than;
      int64_t n = 0;
      for (const auto* s : md.Ancestors(ref.snapshot_id)) {
        if (n < std::max<int64_t>(branch_retain, 1) || s->timestamp_ms >= branch_older) keep.insert(s->snapshot_id);
        ++n;
      }
    }
    if (md.current_snapshot_id) keep.insert(*md.current_snapshot_id);
    for (const auto& s : md.snapshots) {
      bool in_branch = false;
      for (const auto& [name, ref] : md.refs) {
        for (const auto* a : md.Ancestors(ref.snapshot_id)) in_branch |= a->snapshot_id == s.snapshot_id;
      }
      if (!in_branch && s.timestamp_ms >= older_than) keep.insert(s.snapshot_id);
    }
    std::map<std::string, std::set<int64_t>> retained;
    if (options.retained) retained = options.retained(md);
    for (int64_t id : options.snapshot_ids) {
      if (!md.SnapshotById(id)) return NotFound("snapshot {} does not exist", id);
      for (const auto& [name, ref] : md.refs) {
        if (ref.snapshot_id == id) return InvalidArgument("snapshot {} is the head of '{}': it cannot expire", id, name);
      }
      for (const auto& [holder, ids] : retained) {
        if (ids.contains(id)) {
          return InvalidArgument(
              "snapshot {} is needed by {}: its relaunch finds its newest commit through it (release it "
              "explicitly with --release-sink to let it expire; its position is then recorded in the table)",
              id, holder);
        }
      }
      keep.erase(id);
    }
    result.retained.clear();
    for (const auto& [holder, ids] : retained) {
      for (int64_t id : ids) {
        if (!keep.contains(id) && md.SnapshotById(id)) result.retained[holder].push_back(id);
      }
      keep.insert(ids.begin(), ids.end());
    }
    expired.clear();
    std::vector<int64_t> ids;
    for (const auto& s : md.snapshots) {
      if (!keep.contains(s.snapshot_id)) {
        expired.push_back(s);
        ids.push_back(s.snapshot_id);
      }
    }
    result.expired_snapshot_ids = ids;
    result.properties_set.clear();
    if (options.properties && !ids.empty()) {
      FLOE_ASSIGN_OR_RETURN(result.properties_set,
                            options.properties(md, std::set<int64_t>(ids.begin(), ids.end())));
    }
    if (ids.empty() || options.dry_run) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto next, iceberg::RemoveSnapshots(md, ids));
    if (!result.properties_set.empty()) {
      FLOE_ASSIGN_OR_RETURN(next, iceberg::UpdateProperties(next, result.properties_set, {}));
    }
    FLOE_ASSIGN_OR_RETURN(auto committed, table->catalog()->CommitTable(table->loaded(), std::move(next)));
    table->Reset(std::move(committed));
    return Ok();
  });
  if (!st) return Fail(st.error());
  if (expired.empty()) return result;

  // Files still referenced by the snapshots that remain (after commit, or
  // for a dry run: the ones that would remain), by canonical location: the
  // same file may be spelled file:/p in one manifest and file:///p in another.
  io::FileIO& io = *table->io();
  auto key = [&](const std::string& location) {
    auto canonical = io.Canonical(location);
    return canonical ? *canonical : location;
  };
  std::unordered_set<std::string> live;
  std::set<int64_t> expired_ids(result.expired_snapshot_ids.begin(), result.expired_snapshot_ids.end());
  for (const auto& s : table->metadata().snapshots) {
    if (expired_ids.contains(s.snapshot_id)) continue;
    live.insert(key(s.manifest_list));
    FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifests(*table, s));
    for (const auto& m : manifests) {
      if (live.insert(key(m.manifest_path)).second) {
        FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(*table, m, false));
        for (const auto& e : entries) {
          if (e.is_live()) live.insert(key(e.data_file.file_path));
        }
      }
    }
  }
  std::set<std::string> candidates;
  for (const auto& s : expired) {
    if (!s.manifest_list.empty()) candidates.insert(s.manifest_list);
    FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifests(*table, s));
    for (const auto& m : manifests) {
      if (live.contains(key(m.manifest_path))) continue;
      candidates.insert(m.manifest_path);
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(*table, m, false));
      for (const auto& e : entries) candidates.insert(e.data_file.file_path);
    }
  }
  // Only files inside the table's folders are deleted: metadata names files
  // by absolute location, and a damaged or tampered manifest could name any
  // file on the machine. The rest is refused and reported.
  const TableFolders folders = TableFolders::Of(*table);
  for (const auto& c : candidates) {
    if (live.contains(key(c))) continue;
    auto entry = io.Stat(c);  // a folder (not a link to one) is never a file of the table
    if (!folders.Contains(c) || (entry && entry->kind == io::EntryKind::kFolder)) {
      result.refused_files.push_back(c);
      continue;
    }
    result.deleted_files.push_back(c);
    if (options.dry_run) continue;
    (void)io.Delete(c);  // already gone is fine
  }
  return result;
}

}  // namespace floe::table
