// The loader and the class registry (plugin_registry.h).

#include "floe/plugin/plugin_registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

#include "floe/plugin/plugin_internal.h"

namespace floe::plugin {

class Library {
 public:
  Library(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  ~Library() {
    if (!handle_) return;
    // Its static destructors run inside dlclose.
    internal::CallGuard guard(path_.c_str(), "dlclose (its static destructors)", false, "library");
    ::dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_;
};

namespace {

struct Loaded {
  std::shared_ptr<Library> library;
  LibraryInfo info;
};

struct Registry {
  std::mutex mu;
  std::vector<Loaded> libraries;  // load order
  std::map<std::string, SinkClass> sinks;
  std::map<std::string, CatalogClass> catalogs;
};

Registry& GetRegistry() {
  static Registry* r = new Registry;  // never destroyed: libraries outlive static destructors
  return *r;
}

// Frees a dlopen handle when the load is refused (no class was published).
struct HandleCloser {
  void* handle;
  const char* path;
  ~HandleCloser() {
    if (!handle) return;
    internal::CallGuard guard(path, "dlclose (its static destructors)", false, "library");
    ::dlclose(handle);
  }
};

std::string DlError() {
  const char* e = ::dlerror();
  return e ? e : "unknown dlopen error";
}

// The end of the 1.0 layout: a plugin's struct must cover at least that.
constexpr size_t kSinkVtableV1Size = offsetof(floe_sink_vtable, destroy) + sizeof(void (*)(void*));
constexpr size_t kCatalogVtableV1Size =
    offsetof(floe_catalog_vtable, destroy) + sizeof(void (*)(void*));

std::string CheckVtable(const floe_registrar::Entry& e) {
  if (e.is_sink) {
    const floe_sink_vtable* v = e.sink;
    if (v->struct_size < kSinkVtableV1Size) {
      return fmt::format(
          "sink class '{}': its vtable's struct_size {} is smaller than ABI 1.0's {}", e.name,
          v->struct_size, kSinkVtableV1Size);
    }
    if (!v->create || !v->destroy)
      return fmt::format("sink class '{}' has no create or no destroy", e.name);
    if (!v->invoke && !v->write_batch) {
      return fmt::format("sink class '{}' has neither invoke nor write_batch", e.name);
    }
    return "";
  }
  const floe_catalog_vtable* v = e.catalog;
  if (v->struct_size < kCatalogVtableV1Size) {
    return fmt::format(
        "catalog class '{}': its vtable's struct_size {} is smaller than ABI 1.0's {}", e.name,
        v->struct_size, kCatalogVtableV1Size);
  }
  if (!v->create || !v->destroy)
    return fmt::format("catalog class '{}' has no create or no destroy", e.name);
  return "";
}

// Where `name` is registered already ("" when free).
std::string OwnerOf(const Registry& r, const std::string& name) {
  if (auto it = r.sinks.find(name); it != r.sinks.end()) return it->second.library->path();
  if (auto it = r.catalogs.find(name); it != r.catalogs.end()) return it->second.library->path();
  return "";
}

Result<LibraryInfo> LoadLocked(Registry& r, const std::string& given) {
  if (given.empty()) return InvalidArgument("plugin: the library path is empty");
  struct stat st;
  if (::stat(given.c_str(), &st) != 0) return NotFound("plugin {}: no such file", given);
  if (S_ISDIR(st.st_mode))
    return InvalidArgument("plugin {}: is a folder, not a shared library", given);
  char resolved[PATH_MAX];
  std::string path = ::realpath(given.c_str(), resolved) ? std::string(resolved) : given;
  for (const Loaded& l : r.libraries) {
    if (l.info.path == path) return l.info;
  }

  // The library's static constructors run inside dlopen: a crash or an exit
  // there is named by the guard (the library, as no class is known yet).
  internal::InstallCrashHandlers();
  ::dlerror();
  void* handle;
  {
    internal::CallGuard guard(path.c_str(), "dlopen (its static constructors)", false, "library");
    handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle) return InvalidArgument("plugin {}: cannot load it: {}", given, DlError());
  HandleCloser closer{handle, path.c_str()};

  const auto* m = static_cast<const floe_manifest*>(::dlsym(handle, FLOE_PLUGIN_MANIFEST_SYMBOL));
  if (!m) {
    return InvalidArgument(
        "plugin {}: not a floe plugin: it exports no '{}' symbol (declare one with "
        "FLOE_PLUGIN_MANIFEST from <floe/plugin.h>)",
        given, FLOE_PLUGIN_MANIFEST_SYMBOL);
  }
  if (m->magic != FLOE_PLUGIN_MAGIC) {
    return InvalidArgument("plugin {}: not a floe plugin: its manifest's magic is {:#x}, not {:#x}",
                           given, m->magic, FLOE_PLUGIN_MAGIC);
  }
  if (m->abi_major != FLOE_PLUGIN_ABI_MAJOR) {
    return InvalidArgument(
        "plugin {}: built for floe plugin ABI {}.{}, but this floe speaks ABI {}.{} (the major "
        "versions must be equal: rebuild the plugin against this floe's <floe/plugin.h>)",
        given, m->abi_major, m->abi_minor, FLOE_PLUGIN_ABI_MAJOR, FLOE_PLUGIN_ABI_MINOR);
  }
  if (m->abi_minor > FLOE_PLUGIN_ABI_MINOR) {
    return InvalidArgument(
        "plugin {}: built for floe plugin ABI {}.{}, newer than this floe's ABI {}.{} (upgrade "
        "floe "
        "or rebuild the plugin against this floe's <floe/plugin.h>)",
        given, m->abi_major, m->abi_minor, FLOE_PLUGIN_ABI_MAJOR, FLOE_PLUGIN_ABI_MINOR);
  }
  if (m->struct_size < offsetof(floe_manifest, version) + sizeof(const char*)) {
    return InvalidArgument("plugin {}: its manifest's struct_size {} is too small", given,
                           m->struct_size);
  }
  auto init = reinterpret_cast<floe_plugin_init_fn>(::dlsym(handle, FLOE_PLUGIN_INIT_SYMBOL));
  if (!init) {
    return InvalidArgument("plugin {}: exports no '{}' function", given, FLOE_PLUGIN_INIT_SYMBOL);
  }

  LibraryInfo info;
  info.path = path;
  info.name = m->name ? m->name : "";
  info.version = m->version ? m->version : "";
  info.abi_major = m->abi_major;
  info.abi_minor = m->abi_minor;
  const std::string who = info.name.empty() ? given : info.name;

  floe_registrar reg;
  floe_error err;
  floe_status status;
  {
    internal::CallGuard guard(who.c_str(), "floe_plugin_init");
    status = init(internal::HostApi(), &reg, &err);
  }
  reg.open = false;
  if (status != FLOE_OK) {
    return InvalidArgument(
        "plugin {}: floe_plugin_init failed: {}", given,
        err.set ? err.message : fmt::format("status {} without a message", status));
  }
  if (!reg.error.empty()) return InvalidArgument("plugin {}: {}", given, reg.error);
  for (size_t i = 0; i < reg.entries.size(); ++i) {
    const auto& e = reg.entries[i];
    if (std::string bad = CheckVtable(e); !bad.empty())
      return InvalidArgument("plugin {}: {}", given, bad);
    for (size_t j = 0; j < i; ++j) {
      if (reg.entries[j].name == e.name) {
        return InvalidArgument("plugin {}: class '{}' is registered twice", given, e.name);
      }
    }
    if (std::string owner = OwnerOf(r, e.name); !owner.empty()) {
      return AlreadyExists("plugin {}: class '{}' is already registered by {}", given, e.name,
                           owner);
    }
  }

  closer.handle = nullptr;
  auto library = std::make_shared<Library>(path, handle);
  for (const auto& e : reg.entries) {
    if (e.is_sink) {
      r.sinks[e.name] = SinkClass{e.name, e.sink, library};
      info.sink_classes.push_back(e.name);
    } else {
      r.catalogs[e.name] = CatalogClass{e.name, e.catalog, library};
      info.catalog_classes.push_back(e.name);
    }
  }
  r.libraries.push_back(Loaded{library, info});
  return info;
}

// Loads what FLOE_PLUGIN_PATH lists and is not loaded yet; the failures, one
// a line, for the lookup's message.
std::string LoadPluginPathLocked(Registry& r) {
  const char* env = std::getenv(kPluginPathEnv);
  if (env == nullptr || *env == '\0') return "";
  std::string failures;
  for (const std::string& file : PluginPathFiles(env)) {
    auto loaded = LoadLocked(r, file);
    if (!loaded) failures += "\n  " + loaded.error().message;
  }
  return failures;
}

std::string Names(const std::map<std::string, SinkClass>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += k + "\n";
  return out;
}
std::string Names(const std::map<std::string, CatalogClass>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += k + "\n";
  return out;
}

template <typename Class>
Result<Class> Find(std::map<std::string, Class> Registry::*classes, const std::string& name,
                   std::string_view kind) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  auto& m = r.*classes;
  if (auto it = m.find(name); it != m.end()) return it->second;
  std::string failures = LoadPluginPathLocked(r);
  if (auto it = m.find(name); it != m.end()) return it->second;
  const char* env = std::getenv(kPluginPathEnv);
  std::string available = Names(m);
  // Flink's FactoryUtil text, with floe's plugin kinds.
  return NotFound(
      "Could not find any factory for identifier '{}' that implements 'floe {} plugin' in the "
      "loaded plugins and {}={}.\n\nAvailable factory identifiers are:\n\n{}{}",
      name, kind, kPluginPathEnv, env ? env : "", available.empty() ? "(none)\n" : available,
      failures.empty() ? "" : "\nPlugin libraries that failed to load:" + failures);
}

}  // namespace

std::vector<std::string> PluginPathFiles(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(':', start);
    if (end == std::string::npos) end = value.size();
    std::string entry = value.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    struct stat st;
    if (::stat(entry.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::vector<std::string> files;
      if (DIR* d = ::opendir(entry.c_str())) {
        while (dirent* e = ::readdir(d)) {
          std::string n = e->d_name;
          if (n.size() > 3 && n.ends_with(".so")) files.push_back(entry + "/" + n);
        }
        ::closedir(d);
      }
      std::sort(files.begin(), files.end());
      out.insert(out.end(), files.begin(), files.end());
    } else {
      out.push_back(entry);  // a file (a missing one is reported when loaded)
    }
  }
  return out;
}

Result<LibraryInfo> LoadPlugin(const std::string& path) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  return LoadLocked(r, path);
}

Status UnloadPlugin(const std::string& path) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  char resolved[PATH_MAX];
  std::string real = ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  auto it = std::find_if(r.libraries.begin(), r.libraries.end(),
                         [&](const Loaded& l) { return l.info.path == real; });
  if (it == r.libraries.end()) return NotFound("plugin {} is not loaded", path);
  for (const auto& n : it->info.sink_classes) r.sinks.erase(n);
  for (const auto& n : it->info.catalog_classes) r.catalogs.erase(n);
  r.libraries.erase(it);  // dlclose when the last instance lets go of it
  return Ok();
}

std::vector<LibraryInfo> LoadedPlugins() {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  std::vector<LibraryInfo> out;
  for (const auto& l : r.libraries) out.push_back(l.info);
  return out;
}

Result<SinkClass> FindSinkClass(const std::string& name) {
  return Find(&Registry::sinks, name, "sink");
}

Result<CatalogClass> FindCatalogClass(const std::string& name) {
  return Find(&Registry::catalogs, name, "catalog");
}

std::vector<std::string> SinkClassNames() {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [k, v] : r.sinks) out.push_back(k);
  return out;
}

std::vector<std::string> CatalogClassNames() {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [k, v] : r.catalogs) out.push_back(k);
  return out;
}

}  // namespace floe::plugin
