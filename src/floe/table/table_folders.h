/// \file
/// The folders a table's files may be deleted from. Metadata names files by
/// absolute location, and nothing stops a damaged or hostile manifest from
/// naming a file anywhere; expiry and orphan removal delete only what lies
/// inside these folders and refuse the rest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

/// A table's local folders: its `location`, and `write.data.path` /
/// `write.metadata.path` when set (Iceberg table properties that move new
/// data or metadata files elsewhere). A location this machine cannot map
/// (an unmapped `s3://` prefix) adds no folder: nothing under it is deleted.
class TableFolders {
 public:
  static TableFolders Of(const Table& table);

  /// Whether `local_path` lies strictly inside one of the folders: compared
  /// after `.`/`..` are resolved lexically, and again with symbolic links
  /// resolved in its parent folders (a link inside the table to a folder
  /// elsewhere does not make that folder part of the table). The folder
  /// itself is not inside.
  bool Contains(std::string_view local_path) const;

  /// The folders, absolute and normalized.
  const std::vector<std::string>& folders() const { return folders_; }

 private:
  std::vector<std::string> folders_;
  std::vector<std::string> resolved_;  ///< the same folders with symbolic links resolved
};

/// The local path of a stored location, absolute and normalized, for
/// comparing files named in different spellings (`file:/p`, `file:///p`,
/// `/p`, `/a/../p`). kNotFound / kInvalidArgument as LocationMapper::ToLocal.
Result<std::string> NormalizedLocalPath(const Table& table, std::string_view location);

}  // namespace floe::table
