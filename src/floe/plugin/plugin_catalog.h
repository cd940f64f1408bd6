/// \file
/// Catalog plugins: a catalog::Catalog over a plugin's floe_catalog_vtable
/// (REST-shaped JSON requests and responses, <floe/plugin.h>), and the hook
/// through which `catalog-impl=<class>` finds plugin catalogs.
///
/// floe writes every metadata file itself (`<location>/metadata/
/// <version>-<uuid>.metadata.json`, as the SQL catalog does) and hands the
/// plugin its location with the REST request, so a plugin can be a pointer
/// store (compare-and-swap of the metadata location) without an Iceberg
/// library of its own.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "floe/catalog/catalog.h"
#include "floe/plugin/plugin_registry.h"

namespace floe::plugin {

/// Opens catalog `name` of the plugin class `class_name` (FindCatalogClass)
/// with the catalog options; `warehouse` (optional) is the root of new
/// tables' default locations, `<warehouse>/<namespace levels>/<table>`.
Result<std::unique_ptr<catalog::Catalog>> OpenPluginCatalog(
    const std::string& class_name, const std::string& name,
    const std::map<std::string, std::string>& options);

/// Lets catalog::OpenCatalog resolve an unknown `catalog-impl` through the
/// plugin registry (loading FLOE_PLUGIN_PATH on a miss). Called once by the
/// floe command at start-up; idempotent.
void InstallCatalogPlugins();

}  // namespace floe::plugin
