/// \file
/// The plugin loader and class registry (include/floe/plugin.h is the ABI).
///
/// A plugin library is loaded from a path (`ADD JAR`, `connector.library`)
/// or found on FLOE_PLUGIN_PATH when a class name is not registered:
/// dlopen(RTLD_NOW | RTLD_LOCAL), then its manifest is checked (magic, ABI
/// major equal to floe's, minor not newer) before floe calls into it, then
/// floe_plugin_init registers its classes. A class name is unique in the
/// process: a library that registers a taken name is refused whole. A
/// library stays loaded while the registry or any instance of its classes
/// holds it (never dlclose'd under a live instance).
#pragma once

#include <floe/plugin.h>

#include <memory>
#include <string>
#include <vector>

#include "floe/util/status.h"

namespace floe::plugin {

/// A loaded library (its dlopen handle is closed when the last holder lets go).
class Library;

/// What a loaded library is.
struct LibraryInfo {
  std::string path;  ///< as resolved (realpath)
  std::string name;  ///< the manifest's
  std::string version;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::vector<std::string> sink_classes;
  std::vector<std::string> catalog_classes;
};

/// A registered sink class; holding it keeps its library loaded.
struct SinkClass {
  std::string name;
  const floe_sink_vtable* vtable = nullptr;
  std::shared_ptr<Library> library;
};

/// A registered catalog class; holding it keeps its library loaded.
struct CatalogClass {
  std::string name;
  const floe_catalog_vtable* vtable = nullptr;
  std::shared_ptr<Library> library;
};

/// The environment variable that lists plugin libraries and folders of
/// them (`:`-separated; a folder contributes its `*.so` files, sorted).
inline constexpr const char* kPluginPathEnv = "FLOE_PLUGIN_PATH";

/// Loads the plugin library at `path` and registers its classes. Loading
/// the same file again returns what the first load registered. Errors name
/// the file and what is wrong: missing, not loadable (dlerror), not a floe
/// plugin (no manifest), a wrong magic, an ABI major other than floe's, an
/// ABI minor newer than floe's, no init function, init failing, a bad vtable
/// or a class name already registered (naming the library that has it).
Result<LibraryInfo> LoadPlugin(const std::string& path);

/// Unregisters the classes of the library at `path` (REMOVE JAR); its
/// handle is closed once no instance holds it. kNotFound when not loaded.
Status UnloadPlugin(const std::string& path);

/// The libraries loaded so far, in load order (SHOW JARS).
std::vector<LibraryInfo> LoadedPlugins();

/// The sink class `name`. On a miss, loads the libraries on
/// FLOE_PLUGIN_PATH not loaded yet and looks again; still missing is
/// kNotFound with Flink's text: "Could not find any factory for identifier
/// '<name>' that implements 'floe sink plugin' ... Available factory
/// identifiers are:" and the registered sink classes, one a line (plus the
/// path's libraries that failed to load, with why).
Result<SinkClass> FindSinkClass(const std::string& name);

/// The catalog class `name`, found as FindSinkClass finds sinks.
Result<CatalogClass> FindCatalogClass(const std::string& name);

/// The registered class names, sorted.
std::vector<std::string> SinkClassNames();
std::vector<std::string> CatalogClassNames();

/// The candidate library files of a FLOE_PLUGIN_PATH value.
std::vector<std::string> PluginPathFiles(const std::string& value);

}  // namespace floe::plugin
