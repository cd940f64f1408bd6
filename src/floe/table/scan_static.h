/// \file
/// Static tables: a table opened straight from a metadata file or a table
/// folder, without a catalog (as PyIceberg's StaticTable and DuckDB's
/// iceberg_scan do), for `floe scan --metadata PATH`. A folder is resolved
/// through `metadata/version-hint.text` (a version N or a file name), else the
/// highest `vN.metadata.json` / `N-uuid.metadata.json` (gzip metadata
/// included, Iceberg spec: File System Tables, Metastore Tables, Appendix F).
/// The table's stored `location` (any scheme) is mapped to the folder it is
/// read from; `--map PREFIX=DIR` rules add other prefixes. The folder and the
/// metadata file are read through a FileIO (the local file system unless
/// given).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/io/location.h"
#include "floe/util/status.h"

namespace floe::table {

/// A table read from its metadata file alone.
struct StaticTable {
  std::string metadata_path;  ///< the metadata file used
  std::string table_dir;      ///< the folder the table's location maps to
  std::shared_ptr<const iceberg::TableMetadata> metadata;
  /// The table location and the --map rules.
  LocationMapper mapper;
  /// The table's files: `mapper` over the FileIO the table was opened with.
  io::FileIOPtr io;
};

/// The metadata file of a table folder (or of its `metadata/` folder); a
/// path to a file is returned as is. kNotFound naming the folder when none.
Result<std::string> FindMetadataFile(std::string_view path, io::FileIOPtr files = io::LocalFileIO());

/// Reads a metadata file (plain or gzip) and parses it.
Result<iceberg::TableMetadata> ReadMetadataFile(const std::string& path,
                                                io::FileIOPtr files = io::LocalFileIO());

/// Opens a static table. `mappings` are `PREFIX=DIR` pairs (parsed --map).
Result<StaticTable> OpenStaticTable(std::string_view path,
                                    const std::vector<std::pair<std::string, std::string>>& mappings = {},
                                    io::FileIOPtr files = io::LocalFileIO());

}  // namespace floe::table
