#include "floe/table/orphans.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file.h"
#include "floe/io/location.h"
#include "floe/table/table_folders.h"

namespace floe::table {

namespace fs = std::filesystem;

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

// Modification time in epoch ms, of the entry itself (not a link's target).
Result<int64_t> ModifiedMs(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return IoError("cannot stat {}: {}", path, std::strerror(errno));
  return int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// The manifests of a snapshot: its manifest list, or a v1 `manifests` array.
Result<std::vector<iceberg::ManifestFile>> SnapshotManifests(const Table& table,
                                                             const iceberg::Snapshot& s) {
  if (!s.manifest_list.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(s.manifest_list));
    FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(local));
    return iceberg::ReadManifestList(*in);
  }
  std::vector<iceberg::ManifestFile> out;
  for (const auto& m : s.manifests) {
    FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(m));
    FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(local));
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
    if (auto local = NormalizedLocalPath(table, location)) out.insert(*local);
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
      FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(m.manifest_path));
      FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(local));
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
  FLOE_ASSIGN_OR_RETURN(std::string root, NormalizedLocalPath(*table, location));
  if (root == "/")
    return InvalidArgument("table {}: refusing to list the whole file system",
                           table->id().ToString());

  // 1. The candidates: files old enough, listed before the references are
  // read, so that a commit landing meanwhile is in the references.
  std::vector<std::string> candidates;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return result;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
  if (ec) return IoError("cannot list {}: {}", root, ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return IoError("cannot list {}: {}", root, ec.message());
    const fs::directory_entry& e = *it;
    const std::string name = e.path().filename().string();
    std::error_code sec;
    const fs::file_type type = e.symlink_status(sec).type();
    if (type == fs::file_type::directory) {
      if (IsHidden(name)) it.disable_recursion_pending();
      continue;
    }
    // Regular files only: a symbolic link may be how the table reaches its
    // data (data -> another disk), and nothing names links in the metadata.
    if (type != fs::file_type::regular) continue;
    if (IsHidden(name) && !IsLocalOutputTempName(name)) continue;
    std::string path = AbsolutePath(e.path().string());
    auto mtime = ModifiedMs(path);
    if (!mtime) continue;  // gone meanwhile
    if (*mtime >= result.older_than_ms) continue;
    candidates.push_back(std::move(path));
  }

  // 2. The references, from the table as it is now.
  FLOE_RETURN_IF_ERROR(table->Refresh());
  FLOE_RETURN_IF_ERROR(table->catalog()->CheckLocation(table->loaded()));
  FLOE_ASSIGN_OR_RETURN(auto reachable, ReachableFiles(*table));
  std::sort(candidates.begin(), candidates.end());
  std::vector<std::string> orphans;
  for (auto& c : candidates) {
    if (!reachable.contains(c)) orphans.push_back(std::move(c));
  }

  // 3. Remove them.
  int failed = 0;
  std::string first_failure;
  for (const auto& o : orphans) {
    result.orphan_files.push_back(FileUri(o));
    if (options.dry_run) continue;
    std::error_code rec;
    if (!fs::remove(o, rec) && rec) {
      if (failed++ == 0) first_failure = fmt::format("{}: {}", o, rec.message());
    }
  }
  if (failed > 0) {
    return IoError("table {}: {} of {} orphan files could not be removed (first: {})",
                   table->id().ToString(), failed, orphans.size(), first_failure);
  }
  return result;
}

}  // namespace floe::table
