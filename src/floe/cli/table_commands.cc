// `floe files|expire|remove-orphans|branch|tag`: a table's live files,
// snapshot expiry, orphan file removal, and named references.
#include <nlohmann/json.hpp>

#include <charconv>

#include "floe/config/options.h"
#include "floe/catalog/identifier.h"
#include "floe/catalog/warnings.h"
#include "floe/cli/table_args.h"
#include "floe/sink/sink_retention.h"
#include "floe/table/orphans.h"
#include "floe/table/table.h"

namespace floe::cli {
namespace {

struct TableArgs {
  CatalogArgs catalog;
  std::string table;
  std::vector<std::string> sets;
  std::vector<std::string> maps;  ///< --map PREFIX=DIR
};

struct Opened {
  std::unique_ptr<catalog::Catalog> cat;
  std::unique_ptr<table::Table> table;
};

Result<Opened> OpenTable(const TableArgs& a) {
  Opened o;
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(a.table));
  FLOE_ASSIGN_OR_RETURN(o.cat, a.catalog.Open());
  FLOE_RETURN_IF_ERROR(ApplyMaps(o.cat.get(), a.maps));
  FLOE_ASSIGN_OR_RETURN(auto loaded, o.cat->LoadTable(id));
  o.table = std::make_unique<table::Table>(o.cat.get(), std::move(loaded));
  return o;
}

std::string_view ContentName(iceberg::DataFileContent c) {
  switch (c) {
    case iceberg::DataFileContent::kData: return "data";
    case iceberg::DataFileContent::kPositionDeletes: return "position-deletes";
    case iceberg::DataFileContent::kEqualityDeletes: return "equality-deletes";
  }
  return "?";
}

Status RunFiles(const TableArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Opened o, OpenTable(a));
  FLOE_ASSIGN_OR_RETURN(auto sets, ParseKeyValues(a.sets, "--set"));
  // Read options, resolved through the registry; `floe files` takes the ones
  // that pick a snapshot, and include-column-stats.
  namespace k = config::keys;
  if (Status st = config::CheckOptions(sets, uint32_t(config::Scope::kRead), "--set"); !st) {
    return UsageError(st.error().message);
  }
  for (const auto& [key, v] : sets) {
    if (key != k::kSnapshotId.name && key != k::kBranch.name && key != k::kTag.name &&
        key != k::kIncludeColumnStats.name) {
      return UsageError(fmt::format("--set {}: floe files takes {}, {}, {} or {}", key, k::kSnapshotId.name,
                                    k::kBranch.name, k::kTag.name, k::kIncludeColumnStats.name));
    }
  }
  const config::Resolver r(sets);
  const iceberg::TableMetadata& m = o.table->metadata();
  const iceberg::Snapshot* snapshot = m.CurrentSnapshot();
  FLOE_ASSIGN_OR_RETURN(auto snapshot_id, r.Get(k::kSnapshotId));
  FLOE_ASSIGN_OR_RETURN(auto branch, r.Get(k::kBranch));
  FLOE_ASSIGN_OR_RETURN(auto tag, r.Get(k::kTag));
  FLOE_ASSIGN_OR_RETURN(const bool stats, r.Value(k::kIncludeColumnStats));
  if (snapshot_id) {
    snapshot = m.SnapshotById(*snapshot_id);
    if (!snapshot) return Fail(NotFound("table {} has no snapshot {}", a.table, *snapshot_id).error());
  } else if (branch || tag) {
    FLOE_ASSIGN_OR_RETURN(snapshot, m.SnapshotByRef(branch ? *branch : *tag));
  }
  StdoutWriter out;
  if (snapshot == nullptr) return out.Flush();
  FLOE_ASSIGN_OR_RETURN(auto entries, table::LiveEntries(*o.table, *snapshot));
  auto counts = [](const std::map<int32_t, int64_t>& m) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [id, n] : m) j[std::to_string(id)] = n;
    return j;
  };
  auto bounds = [](const std::map<int32_t, std::string>& m) {
    static constexpr char kHex[] = "0123456789abcdef";
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [id, bytes] : m) {
      std::string hex;
      for (unsigned char c : bytes) {
        hex += kHex[c >> 4];
        hex += kHex[c & 15];
      }
      j[std::to_string(id)] = hex;
    }
    return j;
  };
  for (const auto& e : entries) {
    const iceberg::DataFile& f = e.data_file;
    nlohmann::ordered_json j;
    j["content"] = ContentName(f.content);
    j["file-path"] = f.file_path;
    j["record-count"] = f.record_count;
    j["file-size-in-bytes"] = f.file_size_in_bytes;
    j["sequence-number"] = e.sequence_number ? nlohmann::json(*e.sequence_number) : nlohmann::json();
    j["snapshot-id"] = e.snapshot_id ? nlohmann::json(*e.snapshot_id) : nlohmann::json();
    if (stats) {
      // Iceberg's data_file metrics, by field id; bounds in the spec's
      // single-value binary form, as hex.
      j["column-sizes"] = counts(f.column_sizes);
      j["value-counts"] = counts(f.value_counts);
      j["null-value-counts"] = counts(f.null_value_counts);
      j["nan-value-counts"] = counts(f.nan_value_counts);
      j["lower-bounds"] = bounds(f.lower_bounds);
      j["upper-bounds"] = bounds(f.upper_bounds);
    }
    if (!f.equality_ids.empty()) j["equality-ids"] = f.equality_ids;
    *out.buffer() += j.dump() + "\n";
  }
  return out.Flush();
}

// `--older-than`: a time in epoch milliseconds (Iceberg's `older_than`).
Status CheckOlderThan(const std::optional<int64_t>& older_than) {
  if (older_than && *older_than < 0) {
    return UsageError(fmt::format("--older-than {}: a time in epoch milliseconds must be 0 or more",
                                  *older_than));
  }
  return Ok();
}

struct ExpireArgs {
  TableArgs t;
  std::optional<int64_t> older_than;
  std::optional<int64_t> retain_last;
  std::vector<int64_t> snapshot_ids;
  std::vector<std::string> release_sinks;  ///< --release-sink ID
  bool dry_run = false;
};

Status RunExpire(const ExpireArgs& a) {
  FLOE_RETURN_IF_ERROR(CheckOlderThan(a.older_than));
  if (a.retain_last && *a.retain_last < 1) {
    // As Iceberg's ExpireSnapshots.retainLast: the head of each branch stays.
    return UsageError(
        fmt::format("--retain-last {}: must be 1 or more (the newest snapshot of each branch "
                    "is always kept)",
                    *a.retain_last));
  }
  if (a.retain_last && *a.retain_last > INT32_MAX) {
    return UsageError(
        fmt::format("--retain-last {}: must be at most {}", *a.retain_last, INT32_MAX));
  }
  FLOE_ASSIGN_OR_RETURN(Opened o, OpenTable(a.t));
  table::ExpireOptions opt;
  opt.older_than_ms = a.older_than;
  if (a.retain_last) opt.retain_last = static_cast<int32_t>(*a.retain_last);
  opt.snapshot_ids = a.snapshot_ids;
  opt.dry_run = a.dry_run;
  // The snapshots registered CDC sinks need (their newest tokens) stay,
  // except for the sinks released by name, whose position is recorded.
  const std::set<std::string> released(a.release_sinks.begin(), a.release_sinks.end());
  for (const auto& id : released) {
    if (!o.table->metadata().properties.contains(sink::SinkPropertyKey(id))) {
      return UsageError(fmt::format("--release-sink {}: no sink of that id is registered on table {} (no "
                                    "table property {})",
                                    id, a.t.table, sink::SinkPropertyKey(id)));
    }
  }
  opt.retained = [released](const iceberg::TableMetadata& md) { return sink::SnapshotsSinksNeed(md, released); };
  opt.properties = [released](const iceberg::TableMetadata& md, const std::set<int64_t>& expiring) {
    return sink::ReleasedSinkRecords(md, released, expiring);
  };
  FLOE_ASSIGN_OR_RETURN(auto r, table::ExpireSnapshots(o.table.get(), opt));
  for (const auto& [holder, ids] : r.retained) {
    catalog::Warn(fmt::format(
        "expire: kept {} {} of table {} that {} needs (its relaunch finds its newest commit through them); "
        "--release-sink {} lets them expire and records the sink's position in the table",
        ids.size(), ids.size() == 1 ? "snapshot" : "snapshots", a.t.table, holder,
        holder.starts_with("sink ") ? holder.substr(5) : holder));
  }
  if (!r.refused_files.empty()) {
    std::string list;
    for (size_t i = 0; i < r.refused_files.size() && i < 5; ++i)
      list += (i ? ", " : "") + r.refused_files[i];
    if (r.refused_files.size() > 5) list += fmt::format(" and {} more", r.refused_files.size() - 5);
    catalog::Warn(fmt::format(
        "expire: {} {} named by the expired snapshots {} outside the folders of table {} "
        "and {} not deleted (see refused-files): {}",
        r.refused_files.size(), r.refused_files.size() == 1 ? "file" : "files",
        r.refused_files.size() == 1 ? "lies" : "lie", a.t.table,
        r.refused_files.size() == 1 ? "was" : "were", list));
  }
  nlohmann::ordered_json j;
  j["dry-run"] = a.dry_run;
  j["expired-snapshot-ids"] = r.expired_snapshot_ids;
  j["deleted-files"] = r.deleted_files;
  j["refused-files"] = r.refused_files;
  nlohmann::ordered_json retained = nlohmann::ordered_json::object();
  for (const auto& [holder, ids] : r.retained) retained[holder] = ids;
  j["retained"] = retained;
  j["properties-set"] = r.properties_set;
  StdoutWriter out;
  *out.buffer() = j.dump() + "\n";
  return out.Flush();
}

struct OrphanArgs {
  TableArgs t;
  std::optional<int64_t> older_than;
  bool dry_run = false;
};

Status RunRemoveOrphans(const OrphanArgs& a) {
  FLOE_RETURN_IF_ERROR(CheckOlderThan(a.older_than));
  FLOE_ASSIGN_OR_RETURN(Opened o, OpenTable(a.t));
  table::OrphanOptions opt;
  opt.older_than_ms = a.older_than;
  opt.dry_run = a.dry_run;
  FLOE_ASSIGN_OR_RETURN(auto r, table::RemoveOrphanFiles(o.table.get(), opt));
  nlohmann::ordered_json j;
  j["dry-run"] = a.dry_run;
  j["older-than"] = r.older_than_ms;
  j["orphan-files"] = r.orphan_files;
  j["skipped-table-folders"] = r.skipped_table_folders;
  StdoutWriter out;
  *out.buffer() = j.dump() + "\n";
  return out.Flush();
}

struct RefArgs {
  TableArgs t;
  std::string name;
  int64_t snapshot_id = -1;
};

Status RunRef(const RefArgs& a, bool is_tag) {
  FLOE_ASSIGN_OR_RETURN(Opened o, OpenTable(a.t));
  std::optional<int64_t> sid;
  if (a.snapshot_id >= 0) sid = a.snapshot_id;
  FLOE_ASSIGN_OR_RETURN(auto loaded, table::SetRef(o.table.get(), a.name, is_tag, sid));
  auto it = loaded.metadata.refs.find(a.name);
  nlohmann::ordered_json j;
  j["table"] = a.t.table;
  j[is_tag ? "tag" : "branch"] = a.name;
  j["snapshot-id"] = it == loaded.metadata.refs.end() ? nlohmann::json() : nlohmann::json(it->second.snapshot_id);
  StdoutWriter out;
  *out.buffer() = j.dump() + "\n";
  return out.Flush();
}

void AddTableOptions(CLI::App* cmd, TableArgs* t) {
  t->catalog.AddTo(cmd);
  cmd->add_option("--table", t->table, "NS.TABLE")->required();
  cmd->add_option("--map", t->maps,
                  "PREFIX=DIR: the table's locations under PREFIX are the files under DIR")
      ->allow_extra_args(false);
}

}  // namespace

void AddTableCommands(CLI::App* root, CommandContext* ctx) {
  {
    auto* cmd = root->add_subcommand("files", "Live data and delete files of a snapshot (JSON lines)");
    auto a = std::make_shared<TableArgs>();
    AddTableOptions(cmd, a.get());
    cmd->add_option("--set", a->sets, "snapshot-id=ID, branch=NAME, tag=NAME, include-column-stats=true")
        ->allow_extra_args(false);
    cmd->callback([=] { ctx->action = [=] { return RunFiles(*a); }; });
  }
  {
    auto* cmd = root->add_subcommand("expire", "Expire snapshots and delete the files only they reference");
    auto a = std::make_shared<ExpireArgs>();
    AddTableOptions(cmd, &a->t);
    cmd->add_option("--older-than", a->older_than, "Expire snapshots older than this (epoch ms)");
    cmd->add_option("--retain-last", a->retain_last,
                    "Always keep this many newest snapshots (1 or more)");
    cmd->add_option("--snapshot-id", a->snapshot_ids, "Expire this snapshot (repeatable)")->allow_extra_args(false);
    cmd->add_option("--release-sink", a->release_sinks,
                    "Let the snapshots that the CDC sink ID needs expire (repeatable); its position is "
                    "recorded in the table property floe.sink-token.ID")
        ->allow_extra_args(false);
    cmd->add_flag("--dry-run", a->dry_run, "Only report what would be deleted");
    cmd->callback([=] { ctx->action = [=] { return RunExpire(*a); }; });
  }
  {
    auto* cmd = root->add_subcommand("remove-orphans",
                                     "Remove files under the table location that nothing "
                                     "references (Iceberg's DeleteOrphanFiles)");
    auto a = std::make_shared<OrphanArgs>();
    AddTableOptions(cmd, &a->t);
    cmd->add_option("--older-than", a->older_than,
                    "Only files last modified before this time (epoch ms; default: 3 days ago)");
    cmd->add_flag("--dry-run", a->dry_run, "Only report what would be removed");
    cmd->callback([=] { ctx->action = [=] { return RunRemoveOrphans(*a); }; });
  }
  for (bool is_tag : {false, true}) {
    auto* cmd = root->add_subcommand(is_tag ? "tag" : "branch",
                                     is_tag ? "Create or move a tag" : "Create or move a branch");
    auto a = std::make_shared<RefArgs>();
    AddTableOptions(cmd, &a->t);
    cmd->add_option("--name,name", a->name, "Name of the reference")->required();
    cmd->add_option("--snapshot-id", a->snapshot_id, "Snapshot (default: the current one)");
    cmd->callback([=] { ctx->action = [=] { return RunRef(*a, is_tag); }; });
  }
}

}  // namespace floe::cli
