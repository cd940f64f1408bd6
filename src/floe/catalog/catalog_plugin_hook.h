/// \file
/// The hook through which OpenCatalog resolves a `catalog-impl` class name
/// that no one registered: the plugin module (src/floe/plugin) installs a
/// resolver that looks the name up among plugin catalog classes (loading
/// FLOE_PLUGIN_PATH). The catalog module cannot call the plugin module (it
/// sits below it), hence a function set from above.
#pragma once

#include <functional>
#include <string>

#include "floe/catalog/catalog.h"

namespace floe::catalog {

/// The factory of plugin class `class_name`, or an error saying why there
/// is none (kNotFound: no plugin registers it; its message lists the plugin
/// catalog classes).
using CatalogImplResolver = std::function<Result<CatalogFactory>(const std::string& class_name)>;

/// Installs the resolver (replacing any earlier one).
void SetCatalogImplResolver(CatalogImplResolver resolver);

}  // namespace floe::catalog
