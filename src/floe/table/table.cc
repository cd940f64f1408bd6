#include "floe/table/table.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <unordered_set>

#include "floe/catalog/commit_retry.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "floe/table/table_folders.h"
#include "floe/util/uuid.h"

namespace floe::table {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestContent;
using iceberg::ManifestEntry;
using iceberg::ManifestEntryStatus;
using iceberg::ManifestFile;

Table::Table(catalog::Catalog* catalog, catalog::LoadedTable loaded)
    : catalog_(catalog), loaded_(std::move(loaded)) {}

Status Table::Refresh() {
  FLOE_ASSIGN_OR_RETURN(loaded_, catalog_->LoadTable(loaded_.id));
  return Ok();
}

namespace {

// A byte key for a partition tuple (value kinds and bytes), for set lookups.
std::string PartitionKey(int32_t spec_id, const iceberg::Values& values) {
  std::string key = std::to_string(spec_id) + ":";
  for (const auto& v : values) {
    key.push_back(static_cast<char>('0' + v.v.index()));
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::string>) {
            uint64_t n = x.size();
            key.append(reinterpret_cast<const char*>(&n), sizeof n);
            key.append(x);
          } else if constexpr (!std::is_same_v<X, std::monostate>) {
            key.append(reinterpret_cast<const char*>(&x), sizeof x);
          }
        },
        v.v);
  }
  return key;
}

int64_t ParseLongOr(const std::map<std::string, std::string>& m, const std::string& key, int64_t fallback) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return ec == std::errc() && p == it->second.data() + it->second.size() ? v : fallback;
}


// Paths of files an attempt wrote, removed when the attempt is known to have failed.
struct Written {
  std::vector<std::string> local_paths;
  void RemoveAll() {
    for (const auto& p : local_paths) {
      std::error_code ec;
      fs::remove(p, ec);
    }
    local_paths.clear();
  }
};

Result<std::vector<ManifestFile>> ReadManifests(const Table& table, const iceberg::Snapshot& snapshot) {
  if (!snapshot.manifest_list.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(snapshot.manifest_list));
    FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(local));
    return iceberg::ReadManifestList(*in);
  }
  std::vector<ManifestFile> out;
  for (const auto& m : snapshot.manifests) {
    FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(m));
    FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(local));
    FLOE_ASSIGN_OR_RETURN(auto mf, iceberg::DescribeV1Manifest(*in, table.metadata(), snapshot.snapshot_id));
    mf.manifest_path = m;
    out.push_back(std::move(mf));
  }
  return out;
}

Result<std::vector<ManifestEntry>> ReadEntries(const Table& table, const ManifestFile& m, bool with_stats) {
  FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(m.manifest_path));
  FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(local));
  iceberg::ManifestReadOptions o;
  o.include_column_stats = with_stats;
  return iceberg::ReadManifest(*in, m, table.metadata(), o);
}

// <location>/metadata/<name>, as a URI and as a local path.
Result<std::pair<std::string, std::string>> MetadataFile(const Table& table, const std::string& name) {
  std::string uri = table.metadata().location + "/metadata/" + name;
  FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(uri));
  return std::pair<std::string, std::string>(uri, local);
}

struct Totals {
  int64_t records = 0, files_size = 0, data_files = 0, delete_files = 0, position_deletes = 0,
          equality_deletes = 0;
  void Add(const DataFile& f, int sign) {
    files_size += sign * f.file_size_in_bytes;
    if (f.content == DataFileContent::kData) {
      records += sign * f.record_count;
      data_files += sign;
    } else {
      delete_files += sign;
      (f.content == DataFileContent::kPositionDeletes ? position_deletes : equality_deletes) +=
          sign * f.record_count;
    }
  }
};

Result<Totals> TotalsOf(const Table& table, const iceberg::Snapshot* head) {
  Totals t;
  if (!head) return t;
  const auto& s = head->summary;
  static const char* kKeys[] = {"total-records", "total-files-size", "total-data-files", "total-delete-files",
                                "total-position-deletes", "total-equality-deletes"};
  bool complete = true;
  for (const char* k : kKeys) complete &= s.contains(k);
  if (complete) {
    t.records = ParseLongOr(s, "total-records", 0);
    t.files_size = ParseLongOr(s, "total-files-size", 0);
    t.data_files = ParseLongOr(s, "total-data-files", 0);
    t.delete_files = ParseLongOr(s, "total-delete-files", 0);
    t.position_deletes = ParseLongOr(s, "total-position-deletes", 0);
    t.equality_deletes = ParseLongOr(s, "total-equality-deletes", 0);
    return t;
  }
  FLOE_ASSIGN_OR_RETURN(auto entries, LiveEntries(table, *head));
  for (const auto& e : entries) t.Add(e.data_file, 1);
  return t;
}

}  // namespace

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

SnapshotUpdate& SnapshotUpdate::AddDataFile(DataFile file) {
  data_files_.push_back(std::move(file));
  return *this;
}
SnapshotUpdate& SnapshotUpdate::AddDeleteFile(DataFile file) {
  delete_files_.push_back(std::move(file));
  return *this;
}
SnapshotUpdate& SnapshotUpdate::OverwritePartitions() {
  overwrite_ = Overwrite::kPartitions;
  return *this;
}
SnapshotUpdate& SnapshotUpdate::OverwriteAll() {
  overwrite_ = Overwrite::kAll;
  return *this;
}
SnapshotUpdate& SnapshotUpdate::Set(const std::string& key, const std::string& value) {
  properties_[key] = value;
  return *this;
}
SnapshotUpdate& SnapshotUpdate::ToBranch(std::string branch) {
  branch_ = std::move(branch);
  return *this;
}

Result<CommitResult> SnapshotUpdate::Commit() {
  for (const auto& f : delete_files_) {
    if (f.content == DataFileContent::kData) {
      return InvalidArgument("{} is a data file, not a delete file", f.file_path);
    }
  }
  for (const auto& f : data_files_) {
    if (f.content != DataFileContent::kData) return InvalidArgument("{} is a delete file", f.file_path);
    FLOE_RETURN_IF_ERROR(f.Validate());
  }
  const auto& md0 = table_->metadata();
  FLOE_ASSIGN_OR_RETURN(auto policy, catalog::RetryPolicy::FromProperties(md0.properties));
  SchemaPtr schema = md0.CurrentSchema();
  const iceberg::PartitionSpec* spec = md0.DefaultSpec();
  if (!schema || !spec) return Corrupt("table {} has no current schema or default spec", table_->id().ToString());

  // The new files' manifests are written once and listed again by retries
  // (their entries inherit the snapshot id and sequence number).
  Written kept;  // files all attempts share
  std::vector<ManifestFile> new_manifests;
  auto write_new = [&](const std::vector<DataFile>& files, ManifestContent content) -> Status {
    if (files.empty()) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto path, MetadataFile(*table_, fmt::format("{}-m{}.avro", RandomUuid(), new_manifests.size())));
    FLOE_ASSIGN_OR_RETURN(auto out, OpenLocalOutput(path.second));
    kept.local_paths.push_back(path.second);
    FLOE_ASSIGN_OR_RETURN(auto w, iceberg::ManifestWriter::Open(std::move(out), *schema, *spec, content));
    for (const auto& f : files) FLOE_RETURN_IF_ERROR(w->AddFile(f));
    FLOE_ASSIGN_OR_RETURN(auto mf, w->Close());
    mf.manifest_path = path.first;
    new_manifests.push_back(std::move(mf));
    return Ok();
  };
  if (Status st = write_new(data_files_, ManifestContent::kData); !st) {
    kept.RemoveAll();
    return Fail(st.error());
  }
  if (Status st = write_new(delete_files_, ManifestContent::kDeletes); !st) {
    kept.RemoveAll();
    return Fail(st.error());
  }

  std::set<std::string> touched;
  for (const auto& f : data_files_) touched.insert(PartitionKey(spec->spec_id(), f.partition));

  CommitResult result;
  bool unknown = false;
  Status outcome = catalog::RunWithRetries(policy, [&](int attempt) -> Status {
    Written written;
    auto fail = [&](Error e) -> Status {
      if (e.kind == ErrorKind::kCommitStateUnknown) {
        unknown = true;
      } else {
        written.RemoveAll();
      }
      return Fail(std::move(e));
    };
    if (attempt > 0) {
      if (Status st = table_->Refresh(); !st) return fail(st.error());
    }
    const auto& base = table_->loaded();
    const auto& md = base.metadata;
    // The head of the target branch; a new branch starts from main's head.
    const iceberg::Snapshot* head = nullptr;
    if (auto it = md.refs.find(branch_); it != md.refs.end()) {
      head = md.SnapshotById(it->second.snapshot_id);
    } else {
      head = md.CurrentSnapshot();
    }
    const int64_t snapshot_id = iceberg::NewSnapshotId();
    const int64_t sequence_number = md.last_sequence_number + 1;

    std::vector<ManifestFile> parent;
    if (head) {
      auto r = ReadManifests(*table_, *head);
      if (!r) return fail(r.error());
      parent = std::move(*r);
    }
    Totals removed;
    std::set<std::string> removed_partitions;
    std::vector<ManifestFile> carried;
    for (const auto& m : parent) {
      if (overwrite_ == Overwrite::kNone) {
        carried.push_back(m);
        continue;
      }
      auto entries = ReadEntries(*table_, m, true);
      if (!entries) return fail(entries.error());
      auto matches = [&](const ManifestEntry& e) {
        if (!e.is_live()) return false;
        if (overwrite_ == Overwrite::kAll || spec->is_unpartitioned()) return true;
        return touched.contains(PartitionKey(m.partition_spec_id, e.data_file.partition));
      };
      if (std::none_of(entries->begin(), entries->end(), matches)) {
        carried.push_back(m);
        continue;
      }
      const iceberg::PartitionSpec* mspec = md.SpecById(m.partition_spec_id);
      if (!mspec) return fail(Corrupt("manifest {} names unknown spec {}", m.manifest_path, m.partition_spec_id).error());
      auto path = MetadataFile(*table_, fmt::format("{}-m{}.avro", RandomUuid(), carried.size()));
      if (!path) return fail(path.error());
      auto out = OpenLocalOutput(path->second);
      if (!out) return fail(out.error());
      written.local_paths.push_back(path->second);
      auto w = iceberg::ManifestWriter::Open(std::move(*out), *md.CurrentSchema(), *mspec, m.content, snapshot_id);
      if (!w) return fail(w.error());
      for (const auto& e : *entries) {
        if (!e.is_live()) continue;  // deletions of earlier snapshots are not carried
        Result<ManifestEntry> next = matches(e) ? iceberg::DeletedEntry(e, snapshot_id) : iceberg::ExistingEntry(e);
        if (!next) return fail(next.error());
        if (matches(e)) {
          removed.Add(e.data_file, 1);
          removed_partitions.insert(PartitionKey(m.partition_spec_id, e.data_file.partition));
        }
        if (Status st = (*w)->Add(*next); !st) return fail(st.error());
      }
      auto mf = (*w)->Close();
      if (!mf) return fail(mf.error());
      mf->manifest_path = path->first;
      carried.push_back(std::move(*mf));
    }

    // Manifest list: this commit's manifests first, then the carried ones.
    auto list_path = MetadataFile(*table_, fmt::format("snap-{}-{}-{}.avro", snapshot_id, attempt + 1, RandomUuid()));
    if (!list_path) return fail(list_path.error());
    auto list_out = OpenLocalOutput(list_path->second);
    if (!list_out) return fail(list_out.error());
    written.local_paths.push_back(list_path->second);
    std::optional<int64_t> parent_id;
    if (head) parent_id = head->snapshot_id;
    auto lw = iceberg::ManifestListWriter::Open(std::move(*list_out), snapshot_id, parent_id, sequence_number);
    if (!lw) return fail(lw.error());
    for (const auto& m : new_manifests) {
      if (auto r = (*lw)->Add(m); !r) return fail(r.error());
    }
    for (const auto& m : carried) {
      if (auto r = (*lw)->Add(m); !r) return fail(r.error());
    }
    if (auto r = (*lw)->Close(); !r) return fail(r.error());

    // Summary (Iceberg spec Appendix F; values are strings).
    auto totals = TotalsOf(*table_, head);
    if (!totals) return fail(totals.error());
    Totals added;
    std::set<std::string> changed = removed_partitions;
    int64_t pos_files = 0, eq_files = 0;
    for (const auto& f : data_files_) added.Add(f, 1);
    for (const auto& f : delete_files_) {
      added.Add(f, 1);
      (f.content == DataFileContent::kPositionDeletes ? pos_files : eq_files) += 1;
    }
    for (const auto& f : data_files_) changed.insert(PartitionKey(spec->spec_id(), f.partition));
    for (const auto& f : delete_files_) changed.insert(PartitionKey(spec->spec_id(), f.partition));
    std::map<std::string, std::string> summary = properties_;
    auto put = [&](const char* k, int64_t v, bool always = false) {
      if (v != 0 || always) summary[k] = std::to_string(v);
    };
    put("added-data-files", added.data_files);
    put("deleted-data-files", removed.data_files);
    put("added-records", added.records);
    put("deleted-records", removed.records);
    put("added-delete-files", added.delete_files);
    put("removed-delete-files", removed.delete_files);
    put("added-position-delete-files", pos_files);
    put("added-equality-delete-files", eq_files);
    put("added-position-deletes", added.position_deletes);
    put("added-equality-deletes", added.equality_deletes);
    put("removed-position-deletes", removed.position_deletes);
    put("removed-equality-deletes", removed.equality_deletes);
    put("added-files-size", added.files_size);
    put("removed-files-size", removed.files_size);
    put("changed-partition-count", static_cast<int64_t>(changed.size()), true);
    Totals total = *totals;
    total.records += added.records - removed.records;
    total.files_size += added.files_size - removed.files_size;
    total.data_files += added.data_files - removed.data_files;
    total.delete_files += added.delete_files - removed.delete_files;
    total.position_deletes += added.position_deletes - removed.position_deletes;
    total.equality_deletes += added.equality_deletes - removed.equality_deletes;
    put("total-records", total.records, true);
    put("total-files-size", total.files_size, true);
    put("total-data-files", total.data_files, true);
    put("total-delete-files", total.delete_files, true);
    put("total-position-deletes", total.position_deletes, true);
    put("total-equality-deletes", total.equality_deletes, true);

    iceberg::SnapshotOperation op;
    bool removes = removed.data_files + removed.delete_files > 0 || overwrite_ != Overwrite::kNone;
    if (!delete_files_.empty()) {
      op = data_files_.empty() && !removes ? iceberg::SnapshotOperation::kDelete : iceberg::SnapshotOperation::kOverwrite;
    } else if (removes) {
      op = data_files_.empty() ? iceberg::SnapshotOperation::kDelete : iceberg::SnapshotOperation::kOverwrite;
    } else {
      op = iceberg::SnapshotOperation::kAppend;
    }
    iceberg::Snapshot snap;
    snap.snapshot_id = snapshot_id;
    snap.parent_snapshot_id = parent_id;
    snap.sequence_number = sequence_number;
    snap.timestamp_ms = std::max(iceberg::NowMillis(), md.last_updated_ms);
    snap.manifest_list = list_path->first;
    snap.operation = op;
    snap.summary = summary;
    snap.schema_id = md.current_schema_id;
    iceberg::TableMetadata next = md;
    if (Status st = iceberg::AddSnapshot(&next, snap, iceberg::NowMillis(), branch_); !st) return fail(st.error());
    auto committed = table_->catalog()->CommitTable(base, std::move(next));
    if (!committed) return fail(committed.error());
    table_->Reset(std::move(*committed));
    result.snapshot_id = snapshot_id;
    result.sequence_number = sequence_number;
    result.metadata_location = table_->loaded().metadata_location;
    result.attempts = attempt + 1;
    result.operation = std::string(iceberg::SnapshotOperationName(op));
    result.summary = std::move(summary);
    return Ok();
  });
  if (!outcome) {
    if (!unknown) kept.RemoveAll();
    return Fail(outcome.error());
  }
  return result;
}

Result<catalog::LoadedTable> SetRef(Table* table, const std::string& name, bool is_tag,
                                    std::optional<int64_t> snapshot_id, std::optional<int64_t> max_ref_age_ms) {
  FLOE_ASSIGN_OR_RETURN(auto policy, catalog::RetryPolicy::FromProperties(table->metadata().properties));
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

Result<ExpireResult> ExpireSnapshots(Table* table, const ExpireOptions& options) {
  ExpireResult result;
  // A copied table folder names the original's files: expiring it would
  // delete them (and a dry run would list them).
  FLOE_RETURN_IF_ERROR(table->catalog()->CheckLocation(table->loaded()));
  FLOE_ASSIGN_OR_RETURN(auto policy, catalog::RetryPolicy::FromProperties(table->metadata().properties));
  std::vector<iceberg::Snapshot> expired;
  Status st = catalog::RunWithRetries(policy, [&](int attempt) -> Status {
    if (attempt > 0) FLOE_RETURN_IF_ERROR(table->Refresh());
    const auto& md = table->metadata();
    const int64_t now = iceberg::NowMillis();
    const int64_t max_age = ParseLongOr(md.properties, "history.expire.max-snapshot-age-ms", 432000000);
    const int64_t older_than = options.older_than_ms.value_or(now - max_age);
    const int64_t retain = options.retain_last.value_or(
        static_cast<int32_t>(ParseLongOr(md.properties, "history.expire.min-snapshots-to-keep", 1)));
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
    for (int64_t id : options.snapshot_ids) {
      if (!md.SnapshotById(id)) return NotFound("snapshot {} does not exist", id);
      for (const auto& [name, ref] : md.refs) {
        if (ref.snapshot_id == id) return InvalidArgument("snapshot {} is the head of '{}': it cannot expire", id, name);
      }
      keep.erase(id);
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
    if (ids.empty() || options.dry_run) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto next, iceberg::RemoveSnapshots(md, ids));
    FLOE_ASSIGN_OR_RETURN(auto committed, table->catalog()->CommitTable(table->loaded(), std::move(next)));
    table->Reset(std::move(committed));
    return Ok();
  });
  if (!st) return Fail(st.error());
  if (expired.empty()) return result;

  // Files still referenced by the snapshots that remain (after commit, or
  // for a dry run: the ones that would remain), by local path: the same
  // file may be spelled file:/p in one manifest and file:///p in another.
  auto key = [&](const std::string& location) {
    auto local = NormalizedLocalPath(*table, location);
    return local ? *local : location;
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
    auto local = table->LocalPath(c);
    std::error_code ec;
    if (!local || !folders.Contains(*local) || fs::is_directory(fs::symlink_status(*local, ec))) {
      result.refused_files.push_back(c);
      continue;
    }
    result.deleted_files.push_back(c);
    if (options.dry_run) continue;
    fs::remove(*local, ec);  // already gone is fine
  }
  return result;
}

}  // namespace floe::table
