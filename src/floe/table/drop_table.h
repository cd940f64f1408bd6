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
  std::vector<std::string> not_deleted;
};

/// Drops `id` from `catalog`. With `purge`, every file the table's metadata
/// references (ReachableFiles: metadata files, manifest lists, manifests,
/// data, delete and statistics files, including those outside the table
/// folder under write.data.path) is deleted after the catalog has dropped
/// the table, as Iceberg's CatalogUtil.dropTableData: a failed drop deletes
/// nothing, and a reader that still holds the old metadata may fail. A
/// table whose metadata names another folder as its location (a copy; see
/// Catalog::CheckLocation) is refused with purge.
Result<DropResult> DropTable(catalog::Catalog* catalog, const catalog::TableIdentifier& id, bool purge);

}  // namespace floe::table
