/// \file
/// The folders a table's files may be deleted from. Metadata names files by
/// absolute location, and nothing stops a damaged or hostile manifest from
/// naming a file anywhere; expiry and orphan removal delete only what lies
/// inside these folders and refuse the rest. Locations are compared in the
/// canonical form of the table's FileIO (io::FileIO::Canonical / Resolve).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

/// A table's folders: its `location`, and `write.data.path` /
/// `write.metadata.path` when set (Iceberg table properties that move new
/// data or metadata files elsewhere). A location the table's FileIO cannot
/// reach (an unmapped `s3://` prefix) adds no folder: nothing under it is
/// deleted.
class TableFolders {
 public:
  static TableFolders Of(const Table& table);

  /// Whether the file at `location` lies strictly inside one of the
  /// folders: compared after `.`/`..` are resolved lexically, and again with
  /// symbolic links resolved in its parent folders (a link inside the table
  /// to a folder elsewhere does not make that folder part of the table). The
  /// folder itself is not inside, nor any location with a `.` or `..`
  /// component (the system would resolve `link/..` through the link).
  bool Contains(std::string_view location) const;

  /// The folders, canonical (for local tables: absolute, normalized paths).
  const std::vector<std::string>& folders() const { return folders_; }

  /// Lists each folder once and leaves out of Contains() every folder below
  /// it that holds another table's metadata (a table inside this one:
  /// catalog::TableFoldersBelow). Costs one recursive listing per folder.
  Status ExcludeNestedTables();
  /// The folders ExcludeNestedTables() left out, canonical.
  const std::vector<std::string>& nested_tables() const { return nested_; }

 private:
  io::FileIOPtr io_;
  std::vector<std::string> folders_;
  std::vector<std::string> resolved_;  ///< the same folders with symbolic links resolved
  std::vector<std::string> nested_;    ///< other tables' folders inside these, canonical
};

}  // namespace floe::table
