/// \file
/// Orphan file removal, as Iceberg's DeleteOrphanFiles action: files under
/// the table location that nothing in the table references, left by a
/// killed write (data files, hidden `.tmp` temporaries of OpenLocalOutput) or
/// a killed expire (files of snapshots already removed from the metadata).
///
/// A file is removed only when it is older than the age window (its
/// modification time before `older_than_ms`, default now minus 3 days as
/// Iceberg's `older_than`) and no snapshot (so no branch or tag), no metadata
/// file in the metadata log, the current metadata file, `version-hint.text`
/// nor a statistics file references it. The window is what protects a
/// concurrent writer: the data files and manifests of a commit still in
/// flight are not referenced by any metadata yet, and only their age keeps
/// them. A window shorter than the longest write can delete the files of a
/// write that is still running; the references are read after the folder is
/// listed, from the table reloaded, so that commits landing meanwhile count.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

/// Iceberg's default `older_than` for orphan removal: 3 days before now.
inline constexpr int64_t kDefaultOrphanAgeMs = int64_t{3} * 24 * 60 * 60 * 1000;

/// What RemoveOrphanFiles removes.
struct OrphanOptions {
  /// Only files last modified before this time (epoch ms) are removed;
  /// default now minus kDefaultOrphanAgeMs.
  std::optional<int64_t> older_than_ms;
  /// Only report what would be removed.
  bool dry_run = false;
};

struct OrphanResult {
  int64_t older_than_ms = 0;              ///< the window's end that applied
  /// Locations as listed below the table location (`file:` URIs for a local
  /// table), sorted; removed unless a dry run.
  std::vector<std::string> orphan_files;
  /// Folders below the table location that hold another table's metadata
  /// (a table inside this one, made by another engine or before floe
  /// refused that): nothing under them is taken for an orphan.
  std::vector<std::string> skipped_table_folders;
};

/// Lists every regular file under the table location (FileIO::ListFiles) and
/// removes (or, on a dry run, reports) those old enough that nothing references. Symbolic
/// links are never removed (a link may be how the table reaches its data
/// folder) nor followed into other folders. Hidden files and
/// folders (a name starting with `.`, or `_` without `=`, as Iceberg's listing
/// skips them) are left alone, except the temporaries OpenLocalOutput names
/// (IsLocalOutputTempName). A folder below the location that holds another
/// table's metadata (`x/metadata/*.metadata.json`) is another table's:
/// skipped whole, and reported. Refused for a table the catalog finds somewhere
/// other than its metadata `location` (Catalog::CheckLocation). Any file of
/// the table that cannot be read (a manifest list, a manifest) is an error
/// and nothing is removed.
Result<OrphanResult> RemoveOrphanFiles(Table* table, const OrphanOptions& options);

/// Every file the table's current metadata references, in the canonical form
/// of the table's FileIO (absolute local paths for a local table): the current and logged metadata files, `version-hint.text`, each
/// snapshot's manifest list, its manifests and their live data and delete
/// files, and statistics files. Locations the FileIO cannot reach are left out.
Result<std::set<std::string>> ReachableFiles(const Table& table);

/// Whether `file_name` is a temporary file OpenLocalOutput writes before
/// publishing (`.<name>.<pid>-<hex>-<hex>.tmp`, see floe/io/file.cc).
bool IsLocalOutputTempName(std::string_view file_name);

}  // namespace floe::table
