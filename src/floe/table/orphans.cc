#include "floe/table/orphans.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "floe/catalog/table_locations.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file_io.h"

namespace floe::table {

namespace {

bool AllOf(std::string_view s, bool (*pred)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }

// Hidden as Iceberg's listing sees it: `.name`, or `_name` unless it is a
// partition folder (`_col=value`).
bool IsHidden(std::string_view name) {
  return name.starts_with(".") ||
         (name.starts_with("_") && name.find('=') == std::string_view::npos);
}

// Whether a file `rel` (its path below the listed folder) is one the
// listing leaves alone: below a hidden folder, or hidden itself and not a
// writer's temporary.
bool SkippedByListing(std::string_view rel) {
  size_t i = 0;
  while (true) {
    const size_t j = rel.find('/', i);
    const std::string_view part = rel.substr(i, j == std::string_view::npos ? rel.npos : j - i);
    if (j == std::string_view::npos) return IsHidden(part) && !IsLocalOutputTempName(part);
    if (IsHidden(part)) return true;
    i = j + 1;
  }
}

// The manifests of a snapshot: its manifest list, or a v1 `manifests` array.
Result<std::vector<iceberg::ManifestFile>> SnapshotManifests(const Table& table,
                                                             const iceberg::Snapshot& s) {
  if (!s.manifest_list.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto in, table.io()->NewInput(s.manifest_list));
    return iceberg::ReadManifestList(*in);
  }
  std::vector<iceberg::ManifestFile> out;
  for (const auto& m : s.manifests) {
    FLOE_ASSIGN_OR_RETURN(auto in, table.io()->NewInput(m));
    FLOE_ASSIGN_OR_RETURN(auto mf,
                          iceberg::DescribeV1Manifest(*in, table.metadata(), s.snapshot_id));
    mf.manifest_path = m;
    out.push_back(std::move(mf));
  }
  return out;
}

// `statistics-path` of a statistics or partition-statistics entry (Iceberg
// spec: Table Statistics), kept as JSON text in the metadata.
Result<std::string> StatisticsPath(const std::string& json) {
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("statistics-path") ||
      !j["statistics-path"].is_string()) {
    return Corrupt("statistics entry without a statistics-path string: {}", json.substr(0, 200));
  }
  return j["statistics-path"].get<std::string>();
}

}  // namespace

bool IsLocalOutputTempName(std::string_view name) {
  // `.<base>.<pid>-<hex>-<hex>.tmp` (TempNameFor in floe/io/file.cc).
  if (!name.starts_with(".") || !name.ends_with(".tmp")) return false;
  std::string_view inner = name.substr(1, name.size() - 5);
  size_t dot = inner.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;  // no base name
  std::string_view suffix = inner.substr(dot + 1);
  size_t d1 = suffix.find('-');
  if (d1 == std::string_view::npos) return false;
  size_t d2 = suffix.find('-', d1 + 1);
  if (d2 == std::string_view::npos) return false;
  return AllOf(suffix.substr(0, d1), IsDigit) && AllOf(suffix.substr(d1 + 1, d2 - d1 - 1), IsHex) &&
         AllOf(suffix.substr(d2 + 1), IsHex);
}

Result<std::set<std::string>> ReachableFiles(const Table& table) {
  const iceberg::TableMetadata& md = table.metadata();
  std::set<std::string> out;
  auto add = [&](const std::string& location) {
    if (location.empty()) return;
    if (auto canonical = table.io()->Canonical(location)) out.insert(*canonical);
  };
  add(table.loaded().metadata_location);
  for (const auto& e : md.metadata_log) add(e.metadata_file);
  if (!md.location.empty()) add(md.location + "/metadata/version-hint.text");
  for (const auto& stats : {md.statistics, md.partition_statistics}) {
    for (const auto& s : stats) {
      FLOE_ASSIGN_OR_RETURN(std::string path, StatisticsPath(s));
      add(path);
    }
  }
  // Every snapshot: those of branches and tags are among them.
  std::set<std::string> manifests_read;
  iceberg::ManifestReadOptions ro;
  ro.include_column_stats = false;
  ro.skip_deleted = true;  // a file only a DELETED entry names is live in no snapshot
  for (const auto& s : md.snapshots) {
    add(s.manifest_list);
    FLOE_ASSIGN_OR_RETURN(auto manifests, SnapshotManifests(table, s));
    for (const auto& m : manifests) {
      add(m.manifest_path);
      if (!manifests_read.insert(m.manifest_path).second) continue;
      FLOE_ASSIGN_OR_RETURN(auto in, table.io()->NewInput(m.manifest_path));
      FLOE_ASSIGN_OR_RETURN(auto entries, iceberg::ReadManifest(*in, m, md, ro));
      for (const auto& e : entries) {
        if (e.is_live()) add(e.data_file.file_path);
      }
    }
  }
  return out;
}

Result<OrphanResult> RemoveOrphanFiles(Table* table, const OrphanOptions& options) {
  // A copied table folder names the original's files: every file of the
  // copy would look unreferenced.
  FLOE_RETURN_IF_ERROR(table->catalog()->CheckLocation(table->loaded()));
  OrphanResult result;
  result.older_than_ms = options.older_than_ms.value_or(iceberg::NowMillis() - kDefaultOrphanAgeMs);
  const std::string& location = table->metadata().location;
  if (location.empty()) return InvalidArgument("table {} has no location", table->id().ToString());
  io::FileIO& io = *table->io();
  FLOE_ASSIGN_OR_RETURN(std::string root, io.Canonical(location));
  if (root == "/")
    return InvalidArgument("table {}: refusing to list the whole file system",
                           table->id().ToString());

  // 1. The candidates: files old enough, listed before the references are
  // read, so that a commit landing meanwhile is in the references. The
  // listing reports regular files only and enters no folder through a link.
  std::string listed = location;
  while (listed.size() > 1 && listed.back() == '/') listed.pop_back();
  std::vector<std::string> candidates;
  // The folders of other tables below this one (made by another engine, or
  // before floe refused tables inside tables): their files are theirs.
  std::set<std::string> nested;
  FLOE_RETURN_IF_ERROR(io.ListFiles(location, [&](const io::FileInfo& f) -> Status {
    std::string_view rel = f.location;
    if (!rel.starts_with(listed)) return Ok();  // not below the folder as listed (never expected)
    rel.remove_prefix(listed.size());
    while (rel.starts_with("/")) rel.remove_prefix(1);
    if (auto folder = catalog::NestedTableFolderOf(rel)) nested.insert(*folder);
    if (SkippedByListing(rel)) return Ok();
    if (f.modified_ms >= result.older_than_ms) return Ok();
    candidates.push_back(f.location);
    return Ok();
  }));

  // Candidates inside a nested table's folder are never orphans of this one.
  // A table inside a nested one is inside it too (outermost folders kept).
  for (auto it = nested.begin(); it != nested.end();) {
    bool inside = false;
    for (const auto& o : nested) inside |= it->size() > o.size() && it->starts_with(o) && (*it)[o.size()] == '/';
    it = inside ? nested.erase(it) : std::next(it);
  }
  if (!nested.empty()) {
    std::erase_if(candidates, [&](const std::string& c) {
      std::string_view rel = c;
      rel.remove_prefix(listed.size());
      while (rel.starts_with("/")) rel.remove_prefix(1);
      for (const auto& n : nested) {
        if (rel.size() > n.size() && rel.starts_with(n) && rel[n.size()] == '/') return true;
      }
      return false;
    });
    for (const auto& n : nested) result.skipped_table_folders.push_back(listed + "/" + n);
  }

  // 2. The references, from the table as it is now.
  FLOE_RETURN_IF_ERROR(table->Refresh());
  FLOE_RETURN_IF_ERROR(table->catalog()->CheckLocation(table->loaded()));
  FLOE_ASSIGN_OR_RETURN(auto reachable, ReachableFiles(*table));
  std::sort(candidates.begin(), candidates.end());
  std::vector<std::string> orphans;
  for (auto& c : candidates) {
    auto canonical = io.Canonical(c);
    if (canonical && !reachable.contains(*canonical)) orphans.push_back(std::move(c));
  }

  // 3. Remove them.
  int failed = 0;
  std::string first_failure;
  for (const auto& o : orphans) {
    result.orphan_files.push_back(o);
    if (options.dry_run) continue;
    if (Status st = io.Delete(o); !st) {
      if (failed++ == 0) first_failure = st.error().message;
    }
  }
  if (failed > 0) {
    return IoError("table {}: {} of {} orphan files could not be removed (first: {})",
                   table->id().ToString(), failed, orphans.size(), first_failure);
  }
  return result;
}

}  // namespace floe::table
