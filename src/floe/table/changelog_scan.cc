#include "floe/table/changelog_scan.h"

#include <deque>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "floe/iceberg/manifest.h"
#include "floe/table/delete_filter.h"
#include "floe/types/column_ops.h"
#include "floe/types/json_value.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestEntry;
using iceberg::ManifestEntryStatus;
using iceberg::ManifestFile;
using iceberg::Snapshot;

namespace {

// The files live in the snapshot and in its parent, with their deletes
// attached by the spec's rules.
struct TwoStates {
  std::vector<FileScanTask> parent_data, data;
  std::vector<DeleteFileTaskPtr> parent_deletes, deletes;
};

// A data file kept by the shape's filter (partition and metrics pruning, as
// PlanScan does); its column metrics are dropped once used.
bool Keep(const ScanPlan& shape, const iceberg::PartitionSpec& spec, DataFile* f) {
  if (!PartitionMayMatch(*shape.filter, spec, *shape.table_schema, f->partition)) return false;
  if (!MetricsMayMatch(*shape.filter, *shape.table_schema, *f)) return false;
  f->column_sizes.clear();
  f->value_counts.clear();
  f->null_value_counts.clear();
  f->nan_value_counts.clear();
  f->lower_bounds.clear();
  f->upper_bounds.clear();
  return true;
}

Status CheckEntry(const Snapshot& snapshot, const ManifestFile& manifest,
                  const ManifestEntry& entry) {
  const DataFile& f = entry.data_file;
  if (!entry.sequence_number) {
    return Corrupt("manifest {}: entry for {} has no data sequence number", manifest.manifest_path,
                   f.file_path);
  }
  if ((f.content == DataFileContent::kData) !=
      (manifest.content == iceberg::ManifestContent::kData)) {
    return Corrupt("manifest {} ({} manifest) lists {} file {}", manifest.manifest_path,
                   manifest.content == iceberg::ManifestContent::kData ? "data" : "delete",
                   f.content == DataFileContent::kData ? "data" : "delete", f.file_path);
  }
  return Ok();
}

// Reads every manifest of `snapshot` (DELETED entries included when
// `with_deleted`) into the snapshot's state and its parent's.
Result<TwoStates> ReadStates(const ScanPlan& shape, const Snapshot& snapshot,
                             ManifestSource* source, bool with_deleted, int64_t* manifests_read) {
  const iceberg::TableMetadata& metadata = *shape.metadata;
  FLOE_ASSIGN_OR_RETURN(auto manifests, source->ReadManifestList(snapshot));
  TwoStates st;
  std::unordered_set<std::string> live_paths;
  for (const ManifestFile& manifest : manifests) {
    const iceberg::PartitionSpec* spec = metadata.SpecById(manifest.partition_spec_id);
    if (!spec) {
      return Corrupt("manifest {} has partition spec id {}, which the table does not define",
                     manifest.manifest_path, manifest.partition_spec_id);
    }
    const bool data_manifest = manifest.content == iceberg::ManifestContent::kData;
    // A manifest's partition summaries may leave out its DELETED entries:
    // one that removes files is always read.
    const bool removes = with_deleted && manifest.deleted_files_count > 0;
    if (data_manifest && !removes &&
        !ManifestMayMatch(*shape.filter, *spec, *shape.table_schema, manifest)) {
      continue;
    }
    ++*manifests_read;
    auto entries =
        with_deleted ? source->ReadManifestWithDeleted(manifest) : source->ReadManifest(manifest);
    if (!entries) return Fail(entries.error());
    for (ManifestEntry& entry : *entries) {
      // A DELETED entry matters only in the snapshot that wrote it: the file
      // was live in the parent. Older ones are history.
      const bool removed_here = !entry.is_live() && entry.snapshot_id == snapshot.snapshot_id;
      if (!entry.is_live() && !removed_here) continue;
      FLOE_RETURN_IF_ERROR(CheckEntry(snapshot, manifest, entry));
      const bool added_here =
          entry.status == ManifestEntryStatus::kAdded && entry.snapshot_id == snapshot.snapshot_id;
      DataFile& f = entry.data_file;
      if (entry.is_live() && !live_paths.insert(DeleteFileKey(f)).second) {
        return Corrupt("file {} is live twice in snapshot {} (manifest {})", f.file_path,
                       snapshot.snapshot_id, manifest.manifest_path);
      }
      if (f.content == DataFileContent::kData) {
        if (!Keep(shape, *spec, &f)) continue;
        FileScanTask task;
        task.data_sequence_number = *entry.sequence_number;
        task.spec_id = manifest.partition_spec_id;
        task.data_file = std::move(f);
        if (!removed_here && !added_here) st.parent_data.push_back(task);
        (removed_here ? st.parent_data : st.data).push_back(std::move(task));
      } else {
        auto d = std::make_shared<DeleteFileTask>();
        d->data_sequence_number = *entry.sequence_number;
        d->spec_id = manifest.partition_spec_id;
        d->file = std::move(f);
        if (!removed_here && !added_here) st.parent_deletes.push_back(d);
        (removed_here ? st.parent_deletes : st.deletes).push_back(std::move(d));
      }
    }
  }
  FLOE_RETURN_IF_ERROR(AttachDeletes(metadata, st.deletes, &st.data));
  FLOE_RETURN_IF_ERROR(AttachDeletes(metadata, st.parent_deletes, &st.parent_data));
  return st;
}

// A snapshot that only appended data files: every manifest it wrote holds
// data and removes nothing (no deletes of it can reach its own files, and no
// older delete applies to a newer file).
bool OnlyAppends(const std::vector<ManifestFile>& manifests, int64_t snapshot_id) {
  for (const auto& m : manifests) {
    if (m.added_snapshot_id != snapshot_id) continue;
    if (m.content != iceberg::ManifestContent::kData || m.deleted_files_count != 0) return false;
  }
  return true;
}

std::set<std::string> Paths(const std::vector<DeleteFileTaskPtr>& deletes) {
  std::set<std::string> out;
  for (const auto& d : deletes) out.insert(DeleteFileKey(d->file));
  return out;
}

std::vector<DeleteFileTaskPtr> Minus(const std::vector<DeleteFileTaskPtr>& a,
                                     const std::set<std::string>& b) {
  std::vector<DeleteFileTaskPtr> out;
  for (const auto& d : a) {
    if (!b.contains(DeleteFileKey(d->file))) out.push_back(d);
  }
  return out;
}

}  // namespace

Result<ChangelogPlan> PlanChangelog(const ScanPlan& shape, const Snapshot& snapshot,
                                    ManifestSource* source) {
  ChangelogPlan plan;
  plan.shape = shape;
  plan.snapshot_id = snapshot.snapshot_id;
  plan.parent_snapshot_id = snapshot.parent_snapshot_id;
  if (snapshot.operation == iceberg::SnapshotOperation::kReplace) {
    // Iceberg spec: Snapshots — `replace` rewrites files without changing
    // the table's data.
    plan.no_changes = true;
    return plan;
  }
  FLOE_ASSIGN_OR_RETURN(auto manifests, source->ReadManifestList(snapshot));
  if (OnlyAppends(manifests, snapshot.snapshot_id)) {
    const iceberg::TableMetadata& metadata = *shape.metadata;
    for (const ManifestFile& manifest : manifests) {
      if (manifest.added_snapshot_id != snapshot.snapshot_id) continue;
      const iceberg::PartitionSpec* spec = metadata.SpecById(manifest.partition_spec_id);
      if (!spec) {
        return Corrupt("manifest {} has partition spec id {}, which the table does not define",
                       manifest.manifest_path, manifest.partition_spec_id);
      }
      if (!ManifestMayMatch(*shape.filter, *spec, *shape.table_schema, manifest)) continue;
      ++plan.manifests_read;
      FLOE_ASSIGN_OR_RETURN(auto entries, source->ReadManifest(manifest));
      for (ManifestEntry& entry : entries) {
        if (entry.status != ManifestEntryStatus::kAdded ||
            entry.snapshot_id != snapshot.snapshot_id)
          continue;
        FLOE_RETURN_IF_ERROR(CheckEntry(snapshot, manifest, entry));
        if (!Keep(shape, *spec, &entry.data_file)) continue;
        FileScanTask task;
        task.data_sequence_number = *entry.sequence_number;
        task.spec_id = manifest.partition_spec_id;
        task.data_file = std::move(entry.data_file);
        plan.added.push_back(std::move(task));
      }
    }
    return plan;
  }

  FLOE_ASSIGN_OR_RETURN(TwoStates st,
                        ReadStates(shape, snapshot, source, true, &plan.manifests_read));
  std::unordered_map<std::string, const FileScanTask*> in_parent, in_snapshot;
  for (const auto& t : st.parent_data) in_parent.emplace(t.data_file.file_path, &t);
  for (const auto& t : st.data) in_snapshot.emplace(t.data_file.file_path, &t);
  for (const FileScanTask& p : st.parent_data) {
    auto it = in_snapshot.find(p.data_file.file_path);
    if (it == in_snapshot.end()) {
      plan.removed.push_back(p);  // removed with the snapshot: every row it had
      continue;
    }
    const std::set<std::string> old_paths = Paths(p.deletes);
    std::vector<DeleteFileTaskPtr> added = Minus(it->second->deletes, old_paths);
    if (added.empty()) continue;
    const bool some_dropped = Minus(p.deletes, Paths(it->second->deletes)).size() > 0;
    FileScanTask t = p;
    // Rows the parent's deletes keep and the snapshot's remove. When no
    // delete file went away the new ones alone decide (cheaper).
    t.changelog_deletes = some_dropped ? it->second->deletes : std::move(added);
    plan.removed.push_back(std::move(t));
  }
  for (const FileScanTask& s : st.data) {
    auto it = in_parent.find(s.data_file.file_path);
    if (it == in_parent.end()) {
      plan.added.push_back(s);
      continue;
    }
    // Rows that a delete file the snapshot dropped hid come back, unless
    // the snapshot's deletes hide them too.
    if (Minus(it->second->deletes, Paths(s.deletes)).empty()) continue;
    FileScanTask t = s;
    t.changelog_deletes = it->second->deletes;
    plan.added.push_back(std::move(t));
  }
  return plan;
}

Result<ChangelogPlan> PlanSnapshotAsInserts(const ScanPlan& shape, const Snapshot& snapshot,
                                            ManifestSource* source) {
  ChangelogPlan plan;
  plan.shape = shape;
  plan.snapshot_id = snapshot.snapshot_id;
  plan.parent_snapshot_id = snapshot.parent_snapshot_id;
  // Live entries only: the snapshot's state is all that is read.
  FLOE_ASSIGN_OR_RETURN(TwoStates st,
                        ReadStates(shape, snapshot, source, false, &plan.manifests_read));
  plan.added = std::move(st.data);
  return plan;
}

Result<ChangeCounts> ReadChangelog(const ChangelogPlan& plan, io::FileIO& files, int64_t batch_rows,
                                   const std::function<Status(Batch&&)>& emit) {
  if (batch_rows <= 0) return InvalidArgument("ReadChangelog: batch_rows must be positive");
  ChangeCounts counts;
  if (plan.no_changes) return counts;
  // Whether a removed and an added row are the same row, or an update of
  // one key, is decided on whole rows: a change in a column the projection
  // leaves out is still a change (-U/+U with equal projected values, as
  // Flink's changelog keeps it), and the key pairs the rows even when the
  // projection leaves the key out. So a snapshot that removes rows is read
  // with every top-level column and projected at the end. (A projection into
  // nested fields keeps the projected comparison.)
  ScanPlan shape = plan.shape;
  std::vector<int> out_columns;
  if (!plan.removed.empty() && shape.projected_schema && shape.table_schema &&
      !(*shape.projected_schema == *shape.table_schema)) {
    const auto& all_fields = shape.table_schema->fields();
    bool whole = true;
    for (const NestedField& f : shape.projected_schema->fields()) {
      int at = -1;
      for (size_t j = 0; j < all_fields.size(); ++j) {
        if (all_fields[j].id == f.id) at = static_cast<int>(j);
      }
      if (at < 0 || !all_fields[static_cast<size_t>(at)].type || !f.type ||
          !(*all_fields[static_cast<size_t>(at)].type == *f.type)) {
        whole = false;
        break;
      }
      out_columns.push_back(at);
    }
    if (whole) {
      shape.projected_schema = shape.table_schema;
    } else {
      out_columns.clear();
    }
  }
  const bool widened = shape.projected_schema != plan.shape.projected_schema;
  auto cache = MakeDeleteCache();
  // Every row of the snapshot's change: the removed rows, then the added ones.
  Batch all(shape.projected_schema);
  auto read = [&](const std::vector<FileScanTask>& tasks) -> Status {
    for (size_t i = 0; i < tasks.size(); ++i) {
      FileRange whole{static_cast<int64_t>(i), 0, tasks[i].data_file.file_size_in_bytes, 0};
      FLOE_RETURN_IF_ERROR(ReadFileRange(
          shape, tasks[i], whole, files, batch_rows,
          [&](Batch&& b) {
            AppendRange(b, 0, b.num_rows, &all);
            return Ok();
          },
          cache.get()));
    }
    return Ok();
  };
  FLOE_RETURN_IF_ERROR(read(plan.removed));
  const int64_t num_removed = all.num_rows;
  FLOE_RETURN_IF_ERROR(read(plan.added));
  const int64_t n = all.num_rows;
  if (n == 0) return counts;

  std::vector<uint8_t> dropped(static_cast<size_t>(n), 0);
  if (num_removed > 0 && num_removed < n) {
    // Carried-over rows: an identical row removed and added again.
    std::unordered_map<std::string, std::deque<int64_t>> removed_rows;
    std::string text;
    for (int64_t i = 0; i < num_removed; ++i) {
      text.clear();
      AppendJsonRow(all, i, &text);
      removed_rows[text].push_back(i);
    }
    for (int64_t i = num_removed; i < n; ++i) {
      text.clear();
      AppendJsonRow(all, i, &text);
      auto it = removed_rows.find(text);
      if (it == removed_rows.end() || it->second.empty()) continue;
      dropped[static_cast<size_t>(it->second.front())] = 1;
      dropped[static_cast<size_t>(i)] = 1;
      it->second.pop_front();
      ++counts.carried_over;
    }
  }

  // Update pairs: a removed and an added row with the same identifier key.
  std::vector<int64_t> partner(static_cast<size_t>(n), -1);
  const auto& ids = shape.table_schema->identifier_field_ids();
  if (!ids.empty() && num_removed > 0 && num_removed < n) {
    auto keys_of = EqualityDeletes::Make(ids, *shape.projected_schema);
    if (keys_of) {  // else the projection lacks a key column: no pairs
      std::vector<std::string> keys;
      FLOE_RETURN_IF_ERROR(keys_of->Keys(all, &keys));
      std::unordered_map<std::string, std::deque<int64_t>> added_rows;
      for (int64_t i = num_removed; i < n; ++i) {
        if (!dropped[i]) added_rows[keys[i]].push_back(i);
      }
      for (int64_t i = 0; i < num_removed; ++i) {
        if (dropped[i]) continue;
        auto it = added_rows.find(keys[i]);
        if (it == added_rows.end() || it->second.empty()) continue;
        partner[i] = it->second.front();
        partner[it->second.front()] = i;
        it->second.pop_front();
      }
    }
  }

  std::vector<int64_t> order;
  std::vector<RowKind> kinds;
  order.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < num_removed; ++i) {
    if (dropped[i]) continue;
    if (partner[i] >= 0) {
      order.push_back(i);
      kinds.push_back(RowKind::kUpdateBefore);
      order.push_back(partner[i]);
      kinds.push_back(RowKind::kUpdateAfter);
      ++counts.update_before;
      ++counts.update_after;
    } else {
      order.push_back(i);
      kinds.push_back(RowKind::kDelete);
      ++counts.deletes;
    }
  }
  for (int64_t i = num_removed; i < n; ++i) {
    if (dropped[i] || partner[i] >= 0) continue;
    order.push_back(i);
    kinds.push_back(RowKind::kInsert);
    ++counts.inserts;
  }
  for (size_t begin = 0; begin < order.size(); begin += static_cast<size_t>(batch_rows)) {
    const size_t end = std::min(order.size(), begin + static_cast<size_t>(batch_rows));
    Batch out = Take(all, std::span<const int64_t>(order.data() + begin, end - begin));
    if (widened) {
      std::vector<ColumnVector> columns;
      columns.reserve(out_columns.size());
      for (int c : out_columns) columns.push_back(std::move(out.columns[static_cast<size_t>(c)]));
      out.columns = std::move(columns);
    }
    out.schema = plan.shape.projected_schema;
    out.row_kinds.assign(kinds.begin() + static_cast<std::ptrdiff_t>(begin),
                         kinds.begin() + static_cast<std::ptrdiff_t>(end));
    FLOE_RETURN_IF_ERROR(emit(std::move(out)));
  }
  return counts;
}

}  // namespace floe::table
