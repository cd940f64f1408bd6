/// \file
/// What the table commands (`floe write`, `scan`, `tables`, `describe`, ...)
/// share: `--catalog key=value` and `--set key=value` lists, opening the
/// catalog (hadoop at ./warehouse by default), `--map PREFIX=DIR` prefix
/// mappings and loading a table. Internal to the cli.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/cli/command.h"
#include "floe/io/location.h"
#include "floe/util/status.h"

namespace floe::cli {

/// Parses `key=value` items; the error names the flag and the item.
Result<std::map<std::string, std::string>> ParseKeyValues(const std::vector<std::string>& items,
                                                          std::string_view flag);

/// The catalog options of a command.
struct CatalogArgs {
  std::string name = "floe";
  std::vector<std::string> properties;  ///< --catalog key=value

  void AddTo(CLI::App* cmd);
  /// Opens the catalog; properties checked through the option registry.
  Result<std::unique_ptr<catalog::Catalog>> Open(const std::map<std::string, std::string>& extra = {}) const;
};

/// Parses `--map PREFIX=DIR` items (DIR made absolute); a usage error names a
/// bad item.
Result<LocationMapper> ParseMaps(const std::vector<std::string>& items);

/// Makes `catalog` and the tables it loads reach the locations under each
/// `--map` prefix in the mapped local folder: its FileIO becomes an
/// io::MappedFileIO over the one it had. Nothing changes when `items` is empty.
Status ApplyMaps(catalog::Catalog* catalog, const std::vector<std::string>& items);

/// Registers `floe namespaces|tables|describe|snapshots|options`.
void AddCatalogCommands(CLI::App* root, CommandContext* ctx);
/// Registers `floe create-namespace|drop-namespace|namespace-properties|
/// drop-table|rename-table|register-table`.
void AddCatalogAdminCommands(CLI::App* root, CommandContext* ctx);
/// Registers `floe write`.
void AddWriteCommand(CLI::App* root, CommandContext* ctx);
/// Registers `floe scan`.
void AddScanCommand(CLI::App* root, CommandContext* ctx);
/// Registers `floe serve` (a REST catalog server).
void AddServeCommand(CLI::App* root, CommandContext* ctx);
/// Registers `floe sql` (Flink SQL: -e, -f, or an interactive shell).
void AddSqlCommand(CLI::App* root, CommandContext* ctx);

/// Registers `floe rewrite-data-files` (table maintenance).
void AddMaintenanceCommands(CLI::App* root, CommandContext* ctx);

/// Registers `floe files|expire|remove-orphans|branch|tag`.
void AddTableCommands(CLI::App* root, CommandContext* ctx);

}  // namespace floe::cli
