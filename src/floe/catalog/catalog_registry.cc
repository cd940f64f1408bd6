// Opening a catalog from Flink's catalog options: `catalog-type` or
// `catalog-impl` picks the implementation (Java class names of the
// built-in catalogs select them), the options of the other built-in types
// are refused (an option that does nothing is an error), and
// `cache-enabled` wraps the catalog in the caching catalog.

#include <mutex>
#include <set>

#include "floe/catalog/caching_catalog.h"
#include "floe/catalog/catalog.h"
#include "floe/catalog/catalog_plugin_hook.h"
#include "floe/catalog/rest_catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/config/options.h"

namespace floe::catalog {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, CatalogFactory> factories;
  CatalogImplResolver resolver;  // plugin catalogs (catalog_plugin_hook.h)
};

Registry& GetRegistry() {
  static Registry* r = [] {
    auto* reg = new Registry;
    reg->factories["hadoop"] = [](const std::string& name,
                                  const std::map<std::string, std::string>& o) -> Result<std::unique_ptr<Catalog>> {
      FLOE_ASSIGN_OR_RETURN(std::string warehouse, config::Resolver(o).Value(config::keys::kWarehouse));
      return OpenHadoopCatalog(name, warehouse, o);
    };
    reg->factories["sql"] = OpenSqlCatalog;
    reg->factories["rest"] = OpenRestCatalog;
    return reg;
  }();
  return *r;
}

// The Java class names that select a built-in catalog type (Iceberg's
// CatalogUtil maps catalog-type to these names).
struct JavaName {
  std::string_view class_name;
  std::string_view type;
};
constexpr JavaName kJavaNames[] = {
    {"org.apache.iceberg.hadoop.HadoopCatalog", "hadoop"},
    {"org.apache.iceberg.rest.RESTCatalog", "rest"},
    {"org.apache.iceberg.jdbc.JdbcCatalog", "sql"},
    {"org.apache.iceberg.hive.HiveCatalog", "hive"},
};

// Catalog options each built-in type acts on; every built-in type also
// takes the common ones.
const std::set<std::string_view>& OptionsOf(std::string_view type) {
  namespace k = config::keys;
  static const std::set<std::string_view> kNone;
  static const std::set<std::string_view> kRest = {
      k::kUri.name,   k::kCredential.name,       k::kToken.name,       k::kOauth2ServerUri.name,
      k::kScope.name, k::kTokenRefreshEnabled.name, k::kHeaderPrefix.name, k::kRestPageSize.name,
      k::kRestConnectionTimeoutMs.name, k::kRestSocketTimeoutMs.name};
  static const std::set<std::string_view> kSql = {k::kUri.name, k::kJdbcUser.name, k::kJdbcPassword.name,
                                                  k::kJdbcSchemaVersion.name, k::kJdbcInitCatalogTables.name,
                                                  k::kJdbcBusyTimeout.name};
  if (type == "rest") return kRest;
  if (type == "sql") return kSql;
  return kNone;
}

bool IsCommonOption(std::string_view key) {
  namespace k = config::keys;
  for (std::string_view c : {k::kType.name, k::kCatalogType.name, k::kCatalogImpl.name, k::kPropertyVersion.name,
                             k::kCacheEnabled.name, k::kCacheExpirationIntervalMs.name, k::kIoImpl.name,
                             k::kWarehouse.name, k::kS3Endpoint.name, k::kS3AccessKeyId.name,
                             k::kS3SecretAccessKey.name, k::kS3SessionToken.name, k::kS3PathStyleAccess.name,
                             k::kS3MultipartPartSizeBytes.name, k::kS3RetryNumRetries.name,
                             k::kS3RetryMinWaitMs.name, k::kS3RetryMaxWaitMs.name,
                             k::kS3ConnectionTimeoutMs.name, k::kS3SocketTimeoutMs.name,
                             k::kClientRegion.name}) {
    if (key == c) return true;  // the FileIO's options (s3.*) go with every catalog type
  }
  return false;
}

// The types other than `type` whose options include `key`.
std::string TypesTaking(std::string_view key) {
  std::string out;
  for (std::string_view t : {"rest", "sql"}) {
    for (std::string_view o : OptionsOf(t)) {
      if (o == key || (o.ends_with(".") && key.starts_with(o))) out += (out.empty() ? "" : ", ") + std::string(t);
    }
  }
  return out;
}

// Refuses catalog options that the built-in `type` does not act on.
Status CheckOptionsOfType(const std::string& name, std::string_view type,
                          const std::map<std::string, std::string>& options) {
  const auto& own = OptionsOf(type);
  for (const auto& [key, value] : options) {
    if (IsCommonOption(key)) continue;
    const config::OptionDef* def = config::FindOption(key, uint32_t(config::Scope::kCatalog));
    if (!def) continue;  // not a catalog option: checked by whoever gathered the options
    bool taken = false;
    for (std::string_view o : own) taken = taken || o == key || (o.ends_with(".") && key.starts_with(o));
    if (taken) continue;
    std::string others = TypesTaking(key);
    return InvalidArgument("catalog {}: option {} does nothing with catalog-type={}{}", name, key, type,
                           others.empty() ? std::string() : fmt::format(" (it is an option of catalog-type={})", others));
  }
  return Ok();
}

}  // namespace

void SetCatalogImplResolver(CatalogImplResolver resolver) {
  auto& r = GetRegistry();
  std::lock_guard lock(r.mu);
  r.resolver = std::move(resolver);
}

void RegisterCatalog(const std::string& type, CatalogFactory factory) {
  auto& r = GetRegistry();
  std::lock_guard lock(r.mu);
  r.factories[type] = std::move(factory);
}

namespace {

// The catalog type `options` select (catalog-type, or the built-in type a
// catalog-impl Java name stands for, or the catalog-impl name itself), and
// whether it is built in.
struct Selected {
  std::string type;
  bool builtin = true;
};

// The factory of the selected type; for an unknown catalog-impl, an error
// listing the built-in class names and what plugins registered.
Result<CatalogFactory> FindFactory(const std::string& name, const Selected& selected) {
  const std::string& type = selected.type;
  auto& r = GetRegistry();
  CatalogFactory factory;
  CatalogImplResolver resolver;
  std::vector<std::string> plugins;
  {
    std::lock_guard lock(r.mu);
    if (auto it = r.factories.find(type); it != r.factories.end()) factory = it->second;
    for (const auto& [k, v] : r.factories) {
      if (k != "hadoop" && k != "rest" && k != "sql") plugins.push_back(k);
    }
    resolver = r.resolver;
  }
  std::string plugin_miss;
  if (!factory && !selected.builtin && resolver) {
    auto resolved = resolver(type);  // a plugin catalog class (FLOE_PLUGIN_PATH)
    if (resolved) return *resolved;
    if (resolved.error().kind != ErrorKind::kNotFound)
      return Fail(resolved.error().WithContext("catalog " + name));
    plugin_miss = resolved.error().message;
  }
  if (!factory) {
    std::string known;
    for (const JavaName& j : kJavaNames) {
      if (j.type != "hive") known += (known.empty() ? "" : ", ") + std::string(j.class_name);
    }
    std::string registered;
    for (const auto& p : plugins) registered += (registered.empty() ? "" : ", ") + p;
    if (!selected.builtin) {
      return InvalidArgument(
          "catalog {}: catalog-impl '{}' is not a catalog floe knows: the built-in ones are {}; {}",
          name, type, known,
          !plugin_miss.empty() ? plugin_miss
          : registered.empty() ? "no plugin has registered a catalog"
                               : "catalogs registered by plugins: " + registered);
    }
    return InvalidArgument("catalog {}: catalog-type '{}' is not available in this build", name, type);
  }
  return factory;
}

Result<Selected> Select(const std::string& name, const std::map<std::string, std::string>& options) {
  const config::Resolver props(options);
  FLOE_ASSIGN_OR_RETURN(int32_t property_version, props.Value(config::keys::kPropertyVersion));
  if (property_version != 1) return InvalidArgument("catalog {}: property-version {} is not 1", name, property_version);
  FLOE_ASSIGN_OR_RETURN(auto impl, props.Get(config::keys::kCatalogImpl));
  Selected out;
  FLOE_ASSIGN_OR_RETURN(out.type, props.Value(config::keys::kCatalogType));
  if (impl) {
    if (props.IsSet(config::keys::kCatalogType)) {
      return InvalidArgument("catalog {}: catalog-type and catalog-impl cannot both be set", name);
    }
    out.builtin = false;
    out.type = *impl;
    for (const JavaName& j : kJavaNames) {
      if (*impl == j.class_name) {
        out.type = std::string(j.type);
        out.builtin = true;
      }
    }
  }
  if (out.type == "hive") {
    return Unsupported(
        "catalog {}: {} is not available in floe: no Hive Metastore client (use catalog-type=rest, any REST "
        "catalog or floe serve, or catalog-type=sql, SQLite or PostgreSQL)",
        name, impl ? "catalog-impl=" + *impl : std::string("catalog-type=hive"));
  }
  if (out.builtin) {
    FLOE_RETURN_IF_ERROR(CheckOptionsOfType(name, out.type, options));
  } else {
    FLOE_RETURN_IF_ERROR(FindFactory(name, out));  // an unknown class is a bad option, found before any I/O
  }
  FLOE_ASSIGN_OR_RETURN(bool cache, props.Value(config::keys::kCacheEnabled));
  if (!cache && props.IsSet(config::keys::kCacheExpirationIntervalMs)) {
    return InvalidArgument("catalog {}: cache.expiration-interval-ms does nothing with cache-enabled=false", name);
  }
  return out;
}

}  // namespace

Status CheckCatalogOptions(const std::string& name, const std::map<std::string, std::string>& options) {
  FLOE_RETURN_IF_ERROR(Select(name, options));
  return Ok();
}

Result<std::unique_ptr<Catalog>> OpenCatalog(const std::string& name,
                                             const std::map<std::string, std::string>& options) {
  FLOE_ASSIGN_OR_RETURN(Selected selected, Select(name, options));
  FLOE_ASSIGN_OR_RETURN(CatalogFactory factory, FindFactory(name, selected));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, factory(name, options));
  const config::Resolver props(options);
  FLOE_ASSIGN_OR_RETURN(bool cache, props.Value(config::keys::kCacheEnabled));
  FLOE_ASSIGN_OR_RETURN(int64_t expiration_ms, props.Value(config::keys::kCacheExpirationIntervalMs));
  if (!cache) return catalog;
  return NewCachingCatalog(std::move(catalog), expiration_ms);
}

}  // namespace floe::catalog
