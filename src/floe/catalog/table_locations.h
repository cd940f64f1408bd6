/// \file
/// Where a table may be created: never inside another table's folder, never
/// around one, never where another table's metadata already is. A table
/// folder is recognized on storage, whichever engine or catalog made it, by
/// Iceberg's layout: a `metadata/` folder holding a `*.metadata.json` file or
/// `version-hint.text`. Nested tables break every operation that deletes by
/// folder (orphan removal, purge, the hadoop catalog's drop): the outer
/// table's folder would hold the inner table's files. Every built-in catalog
/// checks a new table's and a new namespace's location here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/identifier.h"
#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe::catalog {

/// Whether the folder `folder` holds table metadata (`folder/metadata/` has a
/// `*.metadata.json` file or `version-hint.text`). A missing folder holds none.
Result<bool> HoldsTableMetadata(io::FileIO& io, std::string_view folder);

/// For a file at `rel` (its path below a listed folder, `/`-separated): the
/// folder of the table whose metadata it is (`x/y` for
/// `x/y/metadata/v1.metadata.json`), when that folder is below the listed one
/// (not the listed folder itself); nullopt otherwise.
std::optional<std::string> NestedTableFolderOf(std::string_view rel);

/// The folders strictly below `folder` that hold table metadata (spelled as
/// `folder` + `/` + the relative path), found with one recursive listing;
/// with `first_only`, the listing stops at the first one.
Result<std::vector<std::string>> TableFoldersBelow(io::FileIO& io, std::string_view folder,
                                                   bool first_only = false);

/// Refuses (kInvalidArgument, naming both) a new table `id` at `location`
/// when a folder above it holds another table (`ns.t.sub.x` or `ns.t.data.y`
/// while `ns.t` is a table at `<ns>/t`), when `location` already holds table
/// metadata, or when a folder below it holds a table (a table `ns.t` around
/// an existing `ns.t.sub.x`). Costs a folder listing per folder above the
/// location and one listing below it (which is empty for a new location). A
/// folder above that the FileIO cannot reach or read is passed over.
Status CheckNewTableLocation(io::FileIO& io, std::string_view location, const TableIdentifier& id);

/// Refuses (kInvalidArgument) a new namespace `ns` whose folder `location`
/// lies inside a table's folder or is one.
Status CheckNewNamespaceLocation(io::FileIO& io, std::string_view location, const Namespace& ns);

}  // namespace floe::catalog
