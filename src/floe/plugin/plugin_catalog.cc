// The catalog adapter (plugin_catalog.h): each Catalog call is one REST-shaped
// JSON request to the plugin's vtable, under the crash guard.

#include "floe/plugin/plugin_catalog.h"

#include <mutex>

#include <nlohmann/json.hpp>

#include "floe/catalog/catalog_plugin_hook.h"
#include "floe/catalog/metadata_cache.h"
#include "floe/config/options.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_updates.h"
#include "floe/io/location.h"
#include "floe/plugin/commit_ledger.h"
#include "floe/plugin/plugin_internal.h"
#include "floe/util/uuid.h"

namespace floe::plugin {

namespace {

using Json = nlohmann::ordered_json;
using Props = std::map<std::string, std::string>;
using catalog::LoadedTable;
using catalog::Namespace;
using catalog::TableIdentifier;

Json NamespaceJson(const Namespace& ns) {
  Json a = Json::array();
  for (const auto& l : ns.levels) a.push_back(l);
  return a;
}

Json IdentifierJson(const TableIdentifier& id) {
  Json j = Json::object();
  j["namespace"] = NamespaceJson(id.ns);
  j["name"] = id.name;
  return j;
}

// The version in a `<version>-<uuid>.metadata.json` name; -1 without one.
int64_t MetadataVersion(std::string_view location) {
  auto slash = location.rfind('/');
  std::string_view name = slash == std::string_view::npos ? location : location.substr(slash + 1);
  auto dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash > 9) return -1;
  int64_t v = 0;
  for (char c : name.substr(0, dash)) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string StripSlash(std::string s) {
  while (s.size() > 1 && s.ends_with("/") && !s.ends_with("//")) s.pop_back();
  return s;
}

// A local path as a file: URI (PITFALLS 98); other locations as given.
std::string AsUri(std::string_view location) {
  if (io::SchemeOf(location) != "file" || location.starts_with("file:"))
    return std::string(location);
  return FileUri(AbsolutePath(location));
}

class PluginCatalog final : public catalog::Catalog {
 public:
  PluginCatalog(CatalogClass c, std::string name, std::string warehouse)
      : class_(std::move(c)),
        v_(class_.vtable),
        name_(std::move(name)),
        warehouse_(std::move(warehouse)) {}

  ~PluginCatalog() override {
    if (created_) {
      internal::CallGuard guard(class_.name.c_str(), "destroy");
      v_->destroy(state_);
    }
  }

  Status Init(const Props& options) {
    std::vector<floe_kv> kv;
    for (const auto& [k, v] : options) kv.push_back({k.c_str(), v.c_str()});
    floe_error err;
    floe_status st;
    {
      internal::CallGuard guard(class_.name.c_str(), "create");
      st = v_->create(name_.c_str(), kv.empty() ? nullptr : kv.data(), kv.size(), &state_, &err);
    }
    if (st != FLOE_OK) return Fail(internal::PluginError(class_.name, "create", st, err));
    created_ = true;
    return Ok();
  }

  const std::string& name() const override { return name_; }

  Status CreateNamespace(const Namespace& ns, const Props& properties) override {
    Json r = {{"namespace", NamespaceJson(ns)}, {"properties", Json(properties)}};
    FLOE_RETURN_IF_ERROR(Call(v_->create_namespace, "create_namespace", r));
    return Ok();
  }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    FLOE_ASSIGN_OR_RETURN(
        Json j, Call(v_->list_namespaces, "list_namespaces", {{"parent", NamespaceJson(parent)}}));
    return Read<std::vector<Namespace>>("list_namespaces", [&] {
      std::vector<Namespace> out;
      const Json list = j.value("namespaces", Json::array());
      for (const auto& n : list) {
        Namespace ns;
        for (const auto& l : n) ns.levels.push_back(l.get<std::string>());
        out.push_back(std::move(ns));
      }
      return out;
    });
  }

  Result<bool> NamespaceExists(const Namespace& ns) override {
    if (ns.empty()) return true;
    auto r = LoadNamespaceProperties(ns);
    if (r) return true;
    if (r.error().kind == ErrorKind::kNotFound) return false;
    return Fail(r.error());
  }

  Status DropNamespace(const Namespace& ns) override {
    FLOE_RETURN_IF_ERROR(
        Call(v_->drop_namespace, "drop_namespace", {{"namespace", NamespaceJson(ns)}}));
    return Ok();
  }

  Result<Props> LoadNamespaceProperties(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(
        Json j, Call(v_->load_namespace, "load_namespace", {{"namespace", NamespaceJson(ns)}}));
    return Read<Props>("load_namespace", [&] {
      Props out;
      const Json props = j.value("properties", Json::object());
      for (const auto& [k, v] : props.items()) out[k] = v.get<std::string>();
      return out;
    });
  }

  Result<catalog::NamespacePropertyChanges> UpdateNamespaceProperties(
      const Namespace& ns, const Props& set, const std::vector<std::string>& remove) override {
    for (const auto& k : remove) {
      if (set.contains(k)) {
        return InvalidArgument("namespace {}: property '{}' is both set and removed", ns.ToString(),
                               k);
      }
    }
    Json r = {{"namespace", NamespaceJson(ns)}, {"removals", Json(remove)}, {"updates", Json(set)}};
    FLOE_ASSIGN_OR_RETURN(Json j,
                          Call(v_->update_namespace_properties, "update_namespace_properties", r));
    return Read<catalog::NamespacePropertyChanges>("update_namespace_properties", [&] {
      catalog::NamespacePropertyChanges c;
      c.updated = j.value("updated", std::vector<std::string>());
      c.removed = j.value("removed", std::vector<std::string>());
      c.missing = j.value("missing", std::vector<std::string>());
      return c;
    });
  }

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(Json j,
                          Call(v_->list_tables, "list_tables", {{"namespace", NamespaceJson(ns)}}));
    return Read<std::vector<TableIdentifier>>("list_tables", [&] {
      std::vector<TableIdentifier> out;
      const Json ids = j.value("identifiers", Json::array());
      for (const auto& t : ids) {
        TableIdentifier id;
        for (const auto& l : t.at("namespace")) id.ns.levels.push_back(l.get<std::string>());
        id.name = t.at("name").get<std::string>();
        out.push_back(std::move(id));
      }
      return out;
    });
  }

  Result<bool> TableExists(const TableIdentifier& id) override {
    auto r = LoadTable(id);
    if (r) return true;
    if (r.error().kind == ErrorKind::kNotFound) return false;
    return Fail(r.error());
  }

  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    FLOE_ASSIGN_OR_RETURN(Json j,
                          Call(v_->load_table, "load_table", {{"identifier", IdentifierJson(id)}}));
    return Loaded(id, j, "load_table");
  }

  Result<LoadedTable> CreateTable(const TableIdentifier& id,
                                  const catalog::TableDefinition& def) override {
    iceberg::NewTableOptions o;
    if (!def.location.empty()) {
      o.location = StripSlash(AsUri(def.location));
    } else if (!warehouse_.empty()) {
      o.location = StripSlash(AsUri(warehouse_));
      for (const auto& l : id.ns.levels) o.location += "/" + l;
      o.location += "/" + id.name;
    } else {
      return InvalidArgument(
          "catalog {}: table {} needs a location: set the catalog option warehouse", name_,
          id.ToString());
    }
    o.schema = def.schema;
    o.spec = def.spec;
    o.sort_order = def.sort_order;
    o.properties = def.properties;
    // A reserved property, recorded as the metadata's format-version.
    FLOE_ASSIGN_OR_RETURN(auto format_version, config::Resolver(o.properties).Value(config::keys::kFormatVersion));
    o.format_version = static_cast<int32_t>(format_version);
    o.properties.erase(std::string(config::keys::kFormatVersion.name));
    o.now_ms = iceberg::NowMillis();
    FLOE_ASSIGN_OR_RETURN(auto metadata, iceberg::NewTableMetadata(o));
    FLOE_ASSIGN_OR_RETURN(std::string path, WriteMetadata(metadata, 0));

    Json r = Json::object();
    r["namespace"] = NamespaceJson(id.ns);
    r["name"] = id.name;
    r["location"] = metadata.location;
    FLOE_ASSIGN_OR_RETURN(std::string schema, iceberg::SchemaToJson(def.schema));
    FLOE_ASSIGN_OR_RETURN(std::string spec, iceberg::PartitionSpecToJson(def.spec));
    FLOE_ASSIGN_OR_RETURN(std::string order, iceberg::SortOrderToJson(def.sort_order));
    r["schema"] = Json::parse(schema);
    r["partition-spec"] = Json::parse(spec);
    r["write-order"] = Json::parse(order);
    r["stage-create"] = false;
    r["properties"] = Json(def.properties);
    r["metadata-location"] = path;
    auto j = Call(v_->create_table, "create_table", r);
    if (!j) {
      if (j.error().kind != ErrorKind::kCommitStateUnknown)
        (void)io_->Delete(path);  // nothing points at it
      return Fail(j.error());
    }
    return Published(id, *j, path, std::move(metadata), "create_table");
  }

  Result<LoadedTable> CommitTable(const LoadedTable& base,
                                  iceberg::TableMetadata updated) override {
    FLOE_RETURN_IF_ERROR(CheckLocation(base));
    auto changes = iceberg::DiffMetadata(base.metadata, updated);
    if (!changes) return Fail(changes.error().WithContext("commit to table " + base.id.ToString()));
    FLOE_ASSIGN_OR_RETURN(std::string text, iceberg::TableChangesToJson(*changes));
    FLOE_ASSIGN_OR_RETURN(
        const int32_t keep_versions,
        config::Resolver(updated.properties).Value(config::keys::kMetadataPreviousVersionsMax));
    iceberg::AddMetadataLogEntry(&updated, base.metadata_location, base.metadata.last_updated_ms,
                                 static_cast<size_t>(keep_versions));
    updated.last_updated_ms = std::max(updated.last_updated_ms, iceberg::NowMillis());
    FLOE_ASSIGN_OR_RETURN(std::string path,
                          WriteMetadata(updated, MetadataVersion(base.metadata_location) + 1));

    Json body = Json::parse(text);
    Json r = Json::object();
    r["identifier"] = IdentifierJson(base.id);
    r["requirements"] = std::move(body["requirements"]);
    r["updates"] = std::move(body["updates"]);
    r["base-metadata-location"] = base.metadata_location;
    r["metadata-location"] = path;
    auto j = Call(v_->commit_table, "commit_table", r, /*commits=*/true);
    if (!j) {
      // Only a commit known not to have landed may lose its file.
      if (j.error().kind != ErrorKind::kCommitStateUnknown) (void)io_->Delete(path);
      return Fail(j.error());
    }
    NoteCommitted(fmt::format("table {} of catalog {} (commit_table of {})", base.id.ToString(), name_,
                              class_.name));
    return Published(base.id, *j, path, std::move(updated), "commit_table");
  }

  Status DropTable(const TableIdentifier& id, bool purge) override {
    FLOE_RETURN_IF_ERROR(
        Call(v_->drop_table, "drop_table", {{"identifier", IdentifierJson(id)}, {"purge", purge}}));
    return Ok();
  }

  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    FLOE_RETURN_IF_ERROR(
        Call(v_->rename_table, "rename_table",
             {{"source", IdentifierJson(from)}, {"destination", IdentifierJson(to)}}));
    return Ok();
  }

  Result<LoadedTable> RegisterTable(const TableIdentifier& id,
                                    const std::string& metadata_location) override {
    Json r = {{"namespace", NamespaceJson(id.ns)},
              {"name", id.name},
              {"metadata-location", metadata_location}};
    FLOE_ASSIGN_OR_RETURN(Json j, Call(v_->register_table, "register_table", r));
    return Loaded(id, j, "register_table");
  }

 private:
  // Reads a response with nlohmann's checked accessors; what they throw
  // for a malformed response becomes an error (nothing throws past here).
  template <typename T, typename F>
  Result<T> Read(const char* what, F read) {
    try {
      return read();
    } catch (const std::exception& e) {
      return Corrupt("floe.PluginException: {}: {}: a malformed response: {}", class_.name, what,
                     e.what());
    }
  }

  // One request: the plugin's answer parsed (an empty answer is {}), or the
  // plugin's error as `floe.PluginException: <class>: <op>: <message>`.
  Result<Json> Call(floe_catalog_op op, const char* what, const Json& request, bool commits = false) {
    if (op == nullptr) {
      return Unsupported("floe.PluginException: {}: {}: the catalog class does not implement it",
                         class_.name, what);
    }
    std::string text;
    try {
      text = request.dump();  // throws on a name that is not UTF-8
    } catch (const std::exception& e) {
      return InvalidArgument("catalog {}: {}: cannot encode the request: {}", name_, what,
                             e.what());
    }
    floe_error err;
    floe_bytes_out out;
    floe_status st;
    {
      std::lock_guard lock(mu_);  // an instance serves one thread at a time
      internal::CallGuard guard(class_.name.c_str(), what, commits);
      st = op(state_, text.data(), text.size(), &out, &err);
    }
    if (st != FLOE_OK) return Fail(internal::PluginError(class_.name, what, st, err));
    if (!out.set || out.data.empty()) return Json::object();
    Json j = Json::parse(out.data, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return Corrupt("floe.PluginException: {}: {}: the response is not a JSON object: {}",
                     class_.name, what, out.data.substr(0, 200));
    }
    return j;
  }

  // A LoadTableResult: the metadata given, or read from its location.
  Result<LoadedTable> Loaded(const TableIdentifier& id, const Json& j, const char* what) {
    auto loc = j.find("metadata-location");
    if (loc == j.end() || !loc->is_string()) {
      return Corrupt("floe.PluginException: {}: {}: the response has no metadata-location",
                     class_.name, what);
    }
    std::string location = loc->get<std::string>();
    if (auto m = j.find("metadata"); m != j.end() && m->is_object()) {
      auto parsed = iceberg::TableMetadataFromJson(m->dump());
      if (!parsed)
        return Fail(parsed.error().WithContext(fmt::format("{}: {}", class_.name, what)));
      return LoadedTable{id, location, std::move(*parsed)};
    }
    auto text = io::ReadFile(*io_, location);
    if (!text) return Fail(text.error().WithContext(fmt::format("table {}", id.ToString())));
    auto md = catalog::ParseMetadataFile(location, *text);
    if (!md) return Fail(md.error().WithContext(location));
    return LoadedTable{id, location, std::move(*md)};
  }

  // After create / commit: the plugin took floe's file, or published its own.
  Result<LoadedTable> Published(const TableIdentifier& id, const Json& j,
                                const std::string& proposed, iceberg::TableMetadata metadata,
                                const char* what) {
    auto loc = j.find("metadata-location");
    if (loc == j.end() || (loc->is_string() && loc->get<std::string>() == proposed)) {
      return LoadedTable{id, proposed, std::move(metadata)};
    }
    (void)io_->Delete(proposed);  // the plugin published a file of its own
    auto loaded = Loaded(id, j, what);
    if (!loaded) {
      return CommitStateUnknown("{}: {} succeeded but its answer is unreadable: {}", class_.name,
                                what, loaded.error().message);
    }
    return loaded;
  }

  // `<location>/metadata/<version>-<uuid>.metadata.json`, never over a file.
  Result<std::string> WriteMetadata(const iceberg::TableMetadata& metadata, int64_t version) {
    FLOE_ASSIGN_OR_RETURN(std::string json, iceberg::TableMetadataToJson(metadata));
    const std::string path =
        fmt::format("{}/metadata/{:05d}-{}.metadata.json", StripSlash(metadata.location),
                    std::max<int64_t>(version, 0), RandomUuid());
    io::OutputOptions o;
    o.overwrite = false;
    o.create_parents = true;
    o.sync = true;  // durable before the plugin points at it
    auto out = io_->NewOutput(path, o);
    if (!out)
      return Fail(out.error().WithContext(fmt::format("cannot write table metadata {}", path)));
    FLOE_RETURN_IF_ERROR((*out)->Write(json.data(), json.size()));
    FLOE_RETURN_IF_ERROR((*out)->Commit());
    catalog::RememberMetadataFile(path, json, metadata);
    return path;
  }

  CatalogClass class_;
  const floe_catalog_vtable* v_;
  std::string name_;
  std::string warehouse_;
  void* state_ = nullptr;
  bool created_ = false;
  std::mutex mu_;
};

}  // namespace

Result<std::unique_ptr<catalog::Catalog>> OpenPluginCatalog(const std::string& class_name,
                                                            const std::string& name,
                                                            const Props& options) {
  FLOE_ASSIGN_OR_RETURN(CatalogClass c, FindCatalogClass(class_name));
  internal::InstallCrashHandlers();
  std::string warehouse;
  if (auto it = options.find(std::string(config::keys::kWarehouse.name)); it != options.end()) {
    warehouse = it->second;
  }
  auto catalog = std::make_unique<PluginCatalog>(std::move(c), name, warehouse);
  if (!warehouse.empty()) {
    auto io = io::OpenFileIO(warehouse, options);
    if (!io)
      return Fail(io.error().WithContext(fmt::format("catalog {}: warehouse {}", name, warehouse)));
    catalog->SetFileIO(std::move(*io));
  }
  FLOE_RETURN_IF_ERROR(catalog->Init(options));
  return std::unique_ptr<catalog::Catalog>(std::move(catalog));
}

void InstallCatalogPlugins() {
  catalog::SetCatalogImplResolver(
      [](const std::string& class_name) -> Result<catalog::CatalogFactory> {
        FLOE_RETURN_IF_ERROR(FindCatalogClass(class_name));
        return catalog::CatalogFactory([class_name](const std::string& name, const Props& options) {
          return OpenPluginCatalog(class_name, name, options);
        });
      });
}

}  // namespace floe::plugin
