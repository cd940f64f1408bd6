#include "floe/table/drop_table.h"

#include "floe/table/orphans.h"
#include "floe/table/table_folders.h"
#include "floe/table/table.h"

namespace floe::table {

Result<DropResult> DropTable(catalog::Catalog* catalog, const catalog::TableIdentifier& id, bool purge) {
  DropResult result;
  if (!purge) {
    FLOE_RETURN_IF_ERROR(catalog->DropTable(id, /*purge=*/false));
    return result;
  }
  FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable loaded, catalog->RefreshTable(id));
  FLOE_RETURN_IF_ERROR(catalog->CheckLocation(loaded));
  Table table(catalog, std::move(loaded), catalog->io());
  // Every reference is read before the drop: a file that cannot be read
  // fails the purge while the table still exists.
  FLOE_ASSIGN_OR_RETURN(std::set<std::string> files, ReachableFiles(table));
  TableFolders folders = TableFolders::Of(table);
  FLOE_RETURN_IF_ERROR(folders.ExcludeNestedTables());
  std::vector<std::string> confined;
  for (const std::string& file : files) {
    auto entry = catalog->io()->Stat(file);  // a folder (not a link to one) is never a file of the table
    if (!folders.Contains(file) || (entry && entry->kind == io::EntryKind::kFolder)) {
      result.refused.push_back(file);
    } else {
      confined.push_back(file);
    }
  }
  FLOE_RETURN_IF_ERROR(catalog->DropTable(id, /*purge=*/true));
  for (const std::string& file : confined) {
    Status st = catalog->io()->Delete(file);
    if (st) {
      ++result.files_deleted;
    } else if (st.error().kind != ErrorKind::kNotFound) {
      result.not_deleted.push_back(file);
    }
  }
  return result;
}

}  // namespace floe::table
