#include "floe/table/drop_table.h"

#include "floe/table/orphans.h"
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
  FLOE_RETURN_IF_ERROR(catalog->DropTable(id, /*purge=*/true));
  for (const std::string& file : files) {
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
