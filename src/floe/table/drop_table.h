/// \file
/// Dropping a table, with or without its files (Iceberg's dropTable(purge)).
#pragma once

#include "floe/catalog/catalog.h"
#include "floe/util/status.h"

namespace floe::table {

/// What DropTable removed.
struct DropResult {
  int64_t files_deleted = 0;
  /// Files that could not be deleted (the drop stands; they are orphans now).
  std::vector<std::string> not_deleted;  /// Files the metadata names outside the table's folders (its location,
  /// write.data.path, write.metadata.path) or inside another table's folder
  /// below them: never deleted, as expire refuses them (TableFolders).
  std::vector<std::string> refused;
};

/// Drops `id` from `catalog`. With `purge`, every file the table's metadata
/// references (ReachableFiles: metadata files, manifest lists, manifests,
/// data, delete and statistics files, including those outside the table
/// folder under write.data.path) is deleted after the catalog has dropped
/// the table, as Iceberg's CatalogUtil.dropTableData: a failed drop deletes
/// nothing, and a reader that still holds the old metadata may fail. Only
/// files inside the table's folders are deleted, the same confinement as
/// expire: metadata can name any file (a commit pointing the table at
/// another table's manifest list), and a folder of another table below the
/// table's (a nested table) is not the table's either; such files are
/// reported in `refused`. A
/// table whose metadata names another folder as its location (a copy; see
/// Catalog::CheckLocation) is refused with purge.
Result<DropResult> DropTable(catalog::Catalog* catalog, const catalog::TableIdentifier& id, bool purge);

}  // namespace floe::table
