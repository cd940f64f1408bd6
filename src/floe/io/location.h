/// \file
/// Locations: the absolute URIs Iceberg metadata stores (PITFALLS 98) and the
/// local paths floe reads and writes. floe writes `file:/abs/path` (as Java's
/// local file system does) and reads `file:/p`, `file:///p`, plain absolute
/// paths, and any other scheme (`s3://`, `s3a://`, `gs://`, `hdfs://`...)
/// through prefix mappings, as PyIceberg's StaticTable and DuckDB's
/// iceberg_scan do for tables that were moved or copied.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/util/status.h"

namespace floe {

/// The `file:` URI of an absolute local path.
std::string FileUri(std::string_view absolute_path);

/// Makes a local path absolute (relative to the working directory) and
/// normalizes `.`/`..`/double slashes, without touching the file system.
std::string AbsolutePath(std::string_view path);

/// Maps stored locations to local paths.
class LocationMapper {
 public:
  LocationMapper() = default;

  /// Everything under `prefix` (any scheme, or a local path) is read from
  /// under `local_dir` instead. Longer prefixes win.
  void AddMapping(std::string prefix, std::string local_dir);
  /// Maps every spelling of a table location (`s3://b/t`, `s3a://b/t`,
  /// `file:/t`, `file:///t`, `/t`) to `local_dir`.
  void AddTableLocation(std::string_view stored_location, std::string local_dir);

  /// The local path for a stored location. A `file:` URI or absolute path
  /// with no mapping is used as is; any other unmapped scheme is an error
  /// naming the location and suggesting --map.
  Result<std::string> ToLocal(std::string_view location) const;

 private:
  std::vector<std::pair<std::string, std::string>> mappings_;
};

/// Parses `PREFIX=DIR` (the `--map` option).
Result<std::pair<std::string, std::string>> ParseMapping(std::string_view text);

}  // namespace floe
