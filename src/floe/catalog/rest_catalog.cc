// The REST catalog client (rest_catalog.h). Every call goes through
// Exchange(): endpoint check against the config's `endpoints`, a fresh
// bearer token when a credential is set (refreshed before it expires), the
// extra `header.*` headers, one retry on 401 with a new token, and retries
// with backoff on 503 for reads. Answer() turns a non-2xx response into an
// Error of the kind the Catalog interface promises (REST spec: the error
// responses of each route; IcebergErrorResponse / ErrorModel).

#include "floe/catalog/rest_catalog.h"
#include "floe/catalog/table_locations.h"

#include "floe/catalog/catalog_file_io.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "floe/catalog/rest_http.h"
#include "floe/config/options.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_updates.h"

namespace floe::catalog {

namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using Props = std::map<std::string, std::string>;
namespace keys = config::keys;
using rest::HttpOutcome;
using rest::HttpRequest;
using rest::HttpResponse;
using rest::UrlEncode;

// A route as the spec and the config's `endpoints` name it.
struct Route {
  std::string_view method;
  std::string_view path;  // "/v1/{prefix}/namespaces/{namespace}"
  std::string Endpoint() const { return fmt::format("{} {}", method, path); }
};

constexpr Route kListNamespaces{"GET", "/v1/{prefix}/namespaces"};
constexpr Route kCreateNamespace{"POST", "/v1/{prefix}/namespaces"};
constexpr Route kLoadNamespace{"GET", "/v1/{prefix}/namespaces/{namespace}"};
constexpr Route kNamespaceExists{"HEAD", "/v1/{prefix}/namespaces/{namespace}"};
constexpr Route kDropNamespace{"DELETE", "/v1/{prefix}/namespaces/{namespace}"};
constexpr Route kUpdateNamespace{"POST", "/v1/{prefix}/namespaces/{namespace}/properties"};
constexpr Route kListTables{"GET", "/v1/{prefix}/namespaces/{namespace}/tables"};
constexpr Route kCreateTable{"POST", "/v1/{prefix}/namespaces/{namespace}/tables"};
constexpr Route kLoadTable{"GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"};
constexpr Route kTableExists{"HEAD", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"};
constexpr Route kUpdateTable{"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"};
constexpr Route kDropTable{"DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"};
constexpr Route kRegisterTable{"POST", "/v1/{prefix}/namespaces/{namespace}/register"};
constexpr Route kRenameTable{"POST", "/v1/{prefix}/tables/rename"};

// The endpoints a server offers when its config names none (REST spec:
// getConfig).
const std::set<std::string>& DefaultEndpoints() {
  static const std::set<std::string> kSet = {
      kListNamespaces.Endpoint(),
      kCreateNamespace.Endpoint(),
      kLoadNamespace.Endpoint(),
      kDropNamespace.Endpoint(),
      kUpdateNamespace.Endpoint(),
      kListTables.Endpoint(),
      kCreateTable.Endpoint(),
      kLoadTable.Endpoint(),
      kUpdateTable.Endpoint(),
      kDropTable.Endpoint(),
      kRegisterTable.Endpoint(),
      kRenameTable.Endpoint(),
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
      "POST /v1/{prefix}/transactions/commit",
  };
  return kSet;
}

// How a route's 409 and 5xx answers read (REST spec, per route).
enum class Kind : uint8_t {
  kRead,    // 409 does not occur; 503 is retried
  kCreate,  // 409: already exists
  kWrite,   // 409: a conflict (a namespace not empty, ...)
  kCommit,  // 409: commit failed; 5xx and lost replies: state unknown
};

// Multi-level namespaces in a path are joined by the unit separator (REST
// spec: parameter `namespace`), then percent-encoded.
std::string EncodeNamespace(const Namespace& ns) {
  std::string joined;
  for (size_t i = 0; i < ns.levels.size(); ++i) {
    if (i) joined.push_back('\x1f');
    joined += ns.levels[i];
  }
  return UrlEncode(joined);
}

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

Result<Json> ParseBody(const std::string& body, std::string_view what) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) return Corrupt("{}: the answer is not JSON", what);
  if (!j.is_object()) return Corrupt("{}: the answer is not a JSON object", what);
  return j;
}

Result<Props> StringMap(const Json& j, std::string_view key, std::string_view what) {
  Props out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_object()) return Corrupt("{}: '{}' is not an object", what, key);
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return Corrupt("{}: '{}.{}' is not a string", what, key, k);
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<std::vector<std::string>> StringList(const Json& j, std::string_view key,
                                            std::string_view what) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) return Corrupt("{}: '{}' is not an array", what, key);
  for (const auto& v : *it) {
    if (!v.is_string()) return Corrupt("{}: '{}' holds a non-string", what, key);
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<Namespace> NamespaceFrom(const Json& j, std::string_view what) {
  if (!j.is_array() || j.empty())
    return Corrupt("{}: a namespace is not a non-empty array of strings", what);
  Namespace ns;
  for (const auto& l : j) {
    if (!l.is_string()) return Corrupt("{}: a namespace level is not a string", what);
    ns.levels.push_back(l.get<std::string>());
  }
  return ns;
}

// The `next-page-token` of a list answer; nullopt (null or missing) ends
// the listing (REST spec: PageToken).
Result<std::optional<std::string>> NextPageToken(const Json& j, std::string_view what) {
  auto it = j.find("next-page-token");
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Corrupt("{}: 'next-page-token' is not a string", what);
  return std::optional<std::string>(it->get<std::string>());
}

std::string StripSlash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

class RestCatalog final : public Catalog {
 public:
  RestCatalog(std::string name, Props given) : name_(std::move(name)), given_(std::move(given)) {}

  const std::string& name() const override { return name_; }
  const Props& properties() const { return props_; }
  Props TableConfig(const TableIdentifier& id) const {
    std::lock_guard lock(config_mu_);
    auto it = table_config_.find(id);
    return it == table_config_.end() ? Props{} : it->second;
  }

  // The handshake: client options, a token if asked for, then GET
  // /v1/config and the merge (REST spec: getConfig).
  Status Init() {
    FLOE_RETURN_IF_ERROR(Configure(given_));
    if (uri_.empty())
      return InvalidArgument("REST catalog {}: 'uri' is required (http://host:port)", name_);
    const config::Resolver r(given_);
    std::string query;
    if (r.IsSet(keys::kWarehouse)) {
      FLOE_ASSIGN_OR_RETURN(std::string wh, r.Value(keys::kWarehouse));
      query = "warehouse=" + UrlEncode(wh);
    }
    FLOE_ASSIGN_OR_RETURN(HttpResponse resp,
                          Exchange(Route{"GET", "/v1/config"}, "/v1/config", query, "", Kind::kRead,
                                   /*check_endpoint=*/false));
    const std::string what = "config handshake (GET /v1/config)";
    if (resp.status != 200)
      return Fail(Answer(Route{"GET", "/v1/config"}, "/v1/config", resp, Kind::kRead, what));
    FLOE_ASSIGN_OR_RETURN(Json j, ParseBody(resp.body, what));
    FLOE_ASSIGN_OR_RETURN(Props defaults, StringMap(j, "defaults", what));
    FLOE_ASSIGN_OR_RETURN(Props overrides, StringMap(j, "overrides", what));
    Props merged = defaults;
    for (const auto& [k, v] : given_) merged[k] = v;
    for (const auto& [k, v] : overrides) merged[k] = v;
    if (auto it = j.find("endpoints"); it != j.end() && !it->is_null()) {
      FLOE_ASSIGN_OR_RETURN(auto list, StringList(j, "endpoints", what));
      endpoints_ = std::set<std::string>(list.begin(), list.end());
    }
    // The merged options decide the rest (an override may move `uri`).
    FLOE_RETURN_IF_ERROR(Configure(merged));
    if (auto p = merged.find("prefix"); p != merged.end()) prefix_ = p->second;
    props_ = std::move(merged);
    // The server decides where tables live: each location reaches the
    // FileIO of its scheme, configured by the merged properties (so `s3.*`
    // from the options or the server's config response reach S3 tables).
    SetFileIO(OpenResolvingCatalogFileIO(props_));
    return Ok();
  }

  // ---- namespaces

  Status CreateNamespace(const Namespace& ns, const Props& properties) override {
    if (ns.empty()) return InvalidArgument("cannot create the empty namespace");
    // A location given here is checked here; the server places the others
    // (floe serve's backends check their own).
    if (auto loc = properties.find("location"); loc != properties.end()) {
      FLOE_RETURN_IF_ERROR(CheckNewNamespaceLocation(*io_, loc->second, ns));
    }
    Json body = Json::object();
    body["namespace"] = NamespaceJson(ns);
    Json props = Json::object();
    for (const auto& [k, v] : properties) props[k] = v;
    body["properties"] = std::move(props);
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kCreateNamespace, NamespacesPath(), "", body.dump(),
                                          Kind::kCreate, "create namespace " + ns.ToString()));
    (void)resp;
    return Ok();
  }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    std::vector<Namespace> out;
    std::string base_query = parent.empty() ? "" : "parent=" + EncodeNamespace(parent);
    std::string what =
        "list namespaces" + (parent.empty() ? std::string() : " in " + parent.ToString());
    FLOE_RETURN_IF_ERROR(
        Paged(kListNamespaces, NamespacesPath(), base_query, what, [&](const Json& j) -> Status {
          auto it = j.find("namespaces");
          if (it == j.end() || it->is_null()) return Ok();
          if (!it->is_array()) return Corrupt("{}: 'namespaces' is not an array", what);
          for (const auto& n : *it) {
            FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceFrom(n, what));
            out.push_back(std::move(ns));
          }
          return Ok();
        }));
    return out;
  }

  Result<bool> NamespaceExists(const Namespace& ns) override {
    if (ns.empty()) return true;
    // A server without the HEAD route answers the same through GET (REST
    // spec: the default endpoints have no HEAD).
    const Route& route = Offers(kNamespaceExists) ? kNamespaceExists : kLoadNamespace;
    FLOE_ASSIGN_OR_RETURN(auto resp, Exchange(route, NamespacePath(ns), "", "", Kind::kRead));
    if (resp.status == 404) return false;
    if (resp.status / 100 != 2) {
      return Fail(
          Answer(route, NamespacePath(ns), resp, Kind::kRead, "namespace " + ns.ToString()));
    }
    return true;
  }

  Status DropNamespace(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kDropNamespace, NamespacePath(ns), "", "", Kind::kWrite,
                                          "drop namespace " + ns.ToString()));
    (void)resp;
    return Ok();
  }

  Result<Props> LoadNamespaceProperties(const Namespace& ns) override {
    std::string what = "load namespace " + ns.ToString();
    FLOE_ASSIGN_OR_RETURN(auto resp,
                          Call(kLoadNamespace, NamespacePath(ns), "", "", Kind::kRead, what));
    FLOE_ASSIGN_OR_RETURN(Json j, ParseBody(resp.body, what));
    return StringMap(j, "properties", what);
  }

  Result<NamespacePropertyChanges> UpdateNamespaceProperties(
      const Namespace& ns, const Props& set, const std::vector<std::string>& remove) override {
    for (const auto& k : remove) {
      if (set.contains(k)) {
        return InvalidArgument("namespace {}: property '{}' is both set and removed", ns.ToString(),
                               k);
      }
    }
    Json body = Json::object();
    body["removals"] = remove;
    Json updates = Json::object();
    for (const auto& [k, v] : set) updates[k] = v;
    body["updates"] = std::move(updates);
    std::string what = "update properties of namespace " + ns.ToString();
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kUpdateNamespace, NamespacePath(ns) + "/properties", "",
                                          body.dump(), Kind::kWrite, what));
    FLOE_ASSIGN_OR_RETURN(Json j, ParseBody(resp.body, what));
    NamespacePropertyChanges c;
    FLOE_ASSIGN_OR_RETURN(c.updated, StringList(j, "updated", what));
    FLOE_ASSIGN_OR_RETURN(c.removed, StringList(j, "removed", what));
    FLOE_ASSIGN_OR_RETURN(c.missing, StringList(j, "missing", what));
    return c;
  }

  // ---- tables

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    std::vector<TableIdentifier> out;
    std::string what = "list tables in " + ns.ToString();
    FLOE_RETURN_IF_ERROR(
        Paged(kListTables, NamespacePath(ns) + "/tables", "", what, [&](const Json& j) -> Status {
          auto it = j.find("identifiers");
          if (it == j.end() || it->is_null()) return Ok();
          if (!it->is_array()) return Corrupt("{}: 'identifiers' is not an array", what);
          for (const auto& t : *it) {
            if (!t.is_object() || !t.contains("namespace") || !t.contains("name") ||
                !t["name"].is_string()) {
              return Corrupt("{}: an identifier is not {{namespace, name}}", what);
            }
            TableIdentifier id;
            FLOE_ASSIGN_OR_RETURN(id.ns, NamespaceFrom(t["namespace"], what));
            id.name = t["name"].get<std::string>();
            out.push_back(std::move(id));
          }
          return Ok();
        }));
    return out;
  }

  Result<bool> TableExists(const TableIdentifier& id) override {
    const Route& route = Offers(kTableExists) ? kTableExists : kLoadTable;
    FLOE_ASSIGN_OR_RETURN(auto resp, Exchange(route, TablePath(id), "", "", Kind::kRead));
    if (resp.status == 404) return false;
    if (resp.status / 100 != 2)
      return Fail(Answer(route, TablePath(id), resp, Kind::kRead, "table " + id.ToString()));
    return true;
  }

  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    std::string what = "load table " + id.ToString();
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kLoadTable, TablePath(id), "", "", Kind::kRead, what));
    return LoadResult(id, resp.body, what);
  }

  Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) override {
    std::string what = "create table " + id.ToString();
    Json body = Json::object();
    body["name"] = id.name;
    if (!def.location.empty()) {
      FLOE_RETURN_IF_ERROR(CheckNewTableLocation(*io_, def.location, id));
      body["location"] = def.location;
    }
    FLOE_ASSIGN_OR_RETURN(std::string schema, iceberg::SchemaToJson(def.schema));
    FLOE_ASSIGN_OR_RETURN(std::string spec, iceberg::PartitionSpecToJson(def.spec));
    FLOE_ASSIGN_OR_RETURN(std::string order, iceberg::SortOrderToJson(def.sort_order));
    body["schema"] = Json::parse(schema);
    body["partition-spec"] = Json::parse(spec);
    body["write-order"] = Json::parse(order);
    body["stage-create"] = false;
    Json props = Json::object();
    for (const auto& [k, v] : def.properties) props[k] = v;
    body["properties"] = std::move(props);
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kCreateTable, NamespacePath(id.ns) + "/tables", "",
                                          body.dump(), Kind::kCreate, what));
    return LoadResult(id, resp.body, what);
  }

  Result<LoadedTable> CommitTable(const LoadedTable& base,
                                  iceberg::TableMetadata updated) override {
    const TableIdentifier& id = base.id;
    std::string what = "commit to table " + id.ToString();
    auto changes = iceberg::DiffMetadata(base.metadata, updated);
    if (!changes) return Fail(changes.error().WithContext(what));
    FLOE_ASSIGN_OR_RETURN(std::string text, iceberg::TableChangesToJson(*changes));
    Json body = Json::parse(text);
    Json request = Json::object();
    request["identifier"] = IdentifierJson(id);
    request["requirements"] = std::move(body["requirements"]);
    request["updates"] = std::move(body["updates"]);
    FLOE_ASSIGN_OR_RETURN(
        auto resp, Call(kUpdateTable, TablePath(id), "", request.dump(), Kind::kCommit, what));
    // The commit landed: an answer we cannot read does not undo it.
    auto loaded = LoadResult(id, resp.body, what);
    if (!loaded) {
      return CommitStateUnknown(
          "{}: the server accepted the commit but its answer is unreadable: {}", what,
          loaded.error().message);
    }
    return loaded;
  }

  Status DropTable(const TableIdentifier& id, bool purge) override {
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kDropTable, TablePath(id),
                                          purge ? "purgeRequested=true" : "purgeRequested=false",
                                          "", Kind::kWrite, "drop table " + id.ToString()));
    (void)resp;
    std::lock_guard lock(config_mu_);
    table_config_.erase(id);
    return Ok();
  }

  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    Json body = Json::object();
    body["source"] = IdentifierJson(from);
    body["destination"] = IdentifierJson(to);
    FLOE_ASSIGN_OR_RETURN(
        auto resp, Call(kRenameTable, PrefixPath() + "/tables/rename", "", body.dump(),
                        Kind::kCreate, "rename table " + from.ToString() + " to " + to.ToString()));
    (void)resp;
    return Ok();
  }

  Result<LoadedTable> RegisterTable(const TableIdentifier& id,
                                    const std::string& metadata_location) override {
    Json body = Json::object();
    body["name"] = id.name;
    body["metadata-location"] = metadata_location;
    std::string what = "register table " + id.ToString();
    FLOE_ASSIGN_OR_RETURN(auto resp, Call(kRegisterTable, NamespacePath(id.ns) + "/register", "",
                                          body.dump(), Kind::kCreate, what));
    return LoadResult(id, resp.body, what);
  }

 private:
  // Reads the options that shape requests (first the given ones, then the
  // merged ones after the handshake).
  Status Configure(const Props& options) {
    const config::Resolver r(options);
    FLOE_ASSIGN_OR_RETURN(auto uri, r.Get(keys::kUri));
    uri_ = StripSlash(uri.value_or(""));
    FLOE_ASSIGN_OR_RETURN(auto token, r.Get(keys::kToken));
    FLOE_ASSIGN_OR_RETURN(auto credential, r.Get(keys::kCredential));
    FLOE_ASSIGN_OR_RETURN(auto oauth_uri, r.Get(keys::kOauth2ServerUri));
    FLOE_ASSIGN_OR_RETURN(std::string scope, r.Value(keys::kScope));
    FLOE_ASSIGN_OR_RETURN(bool refresh, r.Value(keys::kTokenRefreshEnabled));
    FLOE_ASSIGN_OR_RETURN(headers_, r.GetColumns(keys::kHeaderPrefix));
    FLOE_ASSIGN_OR_RETURN(page_size_, r.Get(keys::kRestPageSize));
    FLOE_ASSIGN_OR_RETURN(timeouts_.connect_ms, r.Value(keys::kRestConnectionTimeoutMs));
    FLOE_ASSIGN_OR_RETURN(timeouts_.request_ms, r.Value(keys::kRestSocketTimeoutMs));
    std::lock_guard lock(auth_mu_);
    credential_ = credential.value_or("");
    oauth_uri_ = oauth_uri ? *oauth_uri : uri_ + "/v1/oauth/tokens";
    scope_ = scope;
    refresh_enabled_ = refresh;
    if (token && *token != token_) {
      token_ = *token;
      refresh_at_.reset();
    }
    return Ok();
  }

  std::string PrefixPath() const { return prefix_.empty() ? "/v1" : "/v1/" + prefix_; }
  std::string NamespacesPath() const { return PrefixPath() + "/namespaces"; }
  std::string NamespacePath(const Namespace& ns) const {
    return NamespacesPath() + "/" + EncodeNamespace(ns);
  }
  std::string TablePath(const TableIdentifier& id) const {
    return NamespacePath(id.ns) + "/tables/" + UrlEncode(id.name);
  }

  bool Offers(const Route& route) const {
    const auto& set = endpoints_ ? *endpoints_ : DefaultEndpoints();
    return set.contains(route.Endpoint());
  }

  // Replaces secrets in a text the server wrote (an error message may echo
  // what it was sent).
  std::string Redact(std::string text) const {
    std::vector<std::string> secrets;
    {
      std::lock_guard lock(auth_mu_);
      secrets = {token_, credential_};
      if (auto colon = credential_.find(':'); colon != std::string::npos) {
        secrets.push_back(credential_.substr(colon + 1));
      }
    }
    for (const auto& s : secrets) {
      if (s.size() < 4) continue;
      for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at)) {
        text.replace(at, s.size(), "***");
      }
    }
    return text;
  }

  // ---- tokens

  // The client-credentials exchange (REST spec: /v1/oauth/tokens,
  // OAuthClientCredentialsRequest). Called with auth_mu_ held.
  Status FetchTokenLocked() {
    std::string id, secret = credential_;
    if (auto colon = credential_.find(':'); colon != std::string::npos) {
      id = credential_.substr(0, colon);
      secret = credential_.substr(colon + 1);
    }
    HttpRequest req;
    req.method = "POST";
    req.url = oauth_uri_;
    req.body = "grant_type=client_credentials";
    if (!id.empty()) req.body += "&client_id=" + UrlEncode(id);
    req.body += "&client_secret=" + UrlEncode(secret) + "&scope=" + UrlEncode(scope_);
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                   {"Accept", "application/json"}};
    for (const auto& [k, v] : headers_) req.headers.emplace_back(k, v);
    const auto start = Clock::now();
    HttpOutcome out = rest::SendHttp(req, timeouts_);
    std::string what = fmt::format("REST catalog {}: token request POST {}", name_, oauth_uri_);
    if (!out.ok) return IoError("{}: {}", what, out.failure.message);
    Json j = Json::parse(out.response.body, nullptr, false);
    if (out.response.status != 200) {
      std::string detail;
      if (j.is_object()) {
        detail =
            j.value("error", std::string()) + ": " + j.value("error_description", std::string());
      }
      auto kind = out.response.status == 401 || out.response.status == 400
                      ? ErrorKind::kInvalidArgument
                      : ErrorKind::kIo;
      return Fail(Error{kind, fmt::format("{}: answered {} {}", what, out.response.status, detail),
                        kind == ErrorKind::kIo});
    }
    if (!j.is_object() || !j.contains("access_token") || !j["access_token"].is_string()) {
      return Corrupt("{}: the answer has no access_token", what);
    }
    token_ = j["access_token"].get<std::string>();
    refresh_at_.reset();
    if (auto e = j.find("expires_in");
        e != j.end() && e->is_number_integer() && e->get<int64_t>() > 0) {
      // Refresh ahead of expiry: a fifth of the lifetime early, at most a
      // minute (a request in flight must not carry an expired token).
      auto life = std::chrono::milliseconds(e->get<int64_t>() * 1000);
      auto margin = std::min<std::chrono::milliseconds>(life / 5, std::chrono::minutes(1));
      refresh_at_ = start + life - margin;
    }
    return Ok();
  }

  // The Authorization value for the next request ("" for none).
  Result<std::string> BearerToken() {
    std::lock_guard lock(auth_mu_);
    if (!credential_.empty()) {
      bool expired = refresh_at_ && Clock::now() >= *refresh_at_;
      if (token_.empty() || (expired && refresh_enabled_)) FLOE_RETURN_IF_ERROR(FetchTokenLocked());
    }
    return token_;
  }

  Status RenewToken(const std::string& rejected) {
    std::lock_guard lock(auth_mu_);
    if (token_ != rejected) return Ok();  // another thread renewed it
    return FetchTokenLocked();
  }

  // ---- exchanges

  // Sends a request with auth and retries; any HTTP answer is returned.
  Result<HttpResponse> Exchange(const Route& route, const std::string& path,
                                const std::string& query, const std::string& body, Kind kind,
                                bool check_endpoint = true) {
    if (check_endpoint && !Offers(route)) {
      return Unsupported(
          "REST catalog {}: the server does not offer {} (not among the config's endpoints)", name_,
          route.Endpoint());
    }
    HttpRequest req;
    req.method = std::string(route.method);
    req.url = uri_ + path + (query.empty() ? "" : "?" + query);
    req.body = body;
    bool renewed = false;
    int busy_retries = 0;
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(std::string token, BearerToken());
      req.headers.clear();
      req.headers.emplace_back("Accept", "application/json");
      if (route.method == "POST") req.headers.emplace_back("Content-Type", "application/json");
      if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
      for (const auto& [k, v] : headers_) req.headers.emplace_back(k, v);
      HttpOutcome out = rest::SendHttp(req, timeouts_);
      if (!out.ok) {
        std::string msg = fmt::format("REST catalog {}: {} {}: {}", name_, route.method, path,
                                      out.failure.message);
        if (kind == Kind::kCommit && out.failure.maybe_delivered) {
          return CommitStateUnknown(
              "{} ({} after the commit request was sent; the commit may have landed)", msg,
              out.failure.timed_out ? "timed out" : "the connection failed");
        }
        return IoError("{}", msg);
      }
      const int64_t status = out.response.status;
      if (status == 401 && !renewed && !credential_.empty()) {
        // An expired or revoked token: one retry with a fresh one.
        renewed = true;
        FLOE_RETURN_IF_ERROR(RenewToken(token));
        continue;
      }
      if (status == 503 && (route.method == "GET" || route.method == "HEAD") && busy_retries < 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200 << busy_retries));
        ++busy_retries;
        continue;
      }
      return std::move(out.response);
    }
  }

  // Exchange + Answer: the 2xx response, or the error it stands for.
  Result<HttpResponse> Call(const Route& route, const std::string& path, const std::string& query,
                            const std::string& body, Kind kind, const std::string& what) {
    FLOE_ASSIGN_OR_RETURN(HttpResponse resp, Exchange(route, path, query, body, kind));
    if (resp.status / 100 == 2) return resp;
    return Fail(Answer(route, path, resp, kind, what));
  }

  // A non-2xx answer as an Error: the kind from the status and route, the
  // text with what was attempted, the method, path, status and the
  // server's ErrorModel message and type.
  Error Answer(const Route& route, const std::string& path, const HttpResponse& resp, Kind kind,
               std::string_view what) const {
    std::string detail;
    Json j = Json::parse(resp.body, nullptr, false);
    if (j.is_object() && j.contains("error") && j["error"].is_object()) {
      const Json& e = j["error"];
      detail = e.value("message", std::string());
      if (auto t = e.value("type", std::string()); !t.empty()) detail += " (" + t + ")";
    } else if (!resp.body.empty()) {
      detail = resp.body.substr(0, 200);
    }
    detail = Redact(detail);
    const int64_t s = resp.status;
    ErrorKind ek = ErrorKind::kIo;
    bool retryable = false;
    std::string note;
    if (s == 400 || s == 422) {
      ek = ErrorKind::kInvalidArgument;
    } else if (s == 401 || s == 403 || s == 419) {
      // No permission kind in util/status.h: a refused credential is a bad
      // option, not worth a retry.
      ek = ErrorKind::kInvalidArgument;
      note = " (not authorized: check token / credential)";
    } else if (s == 404) {
      ek = ErrorKind::kNotFound;
    } else if (s == 406) {
      ek = ErrorKind::kUnsupported;
    } else if (s == 409) {
      switch (kind) {
        case Kind::kCommit:
          ek = ErrorKind::kCommitFailed;
          retryable = true;
          break;
        case Kind::kCreate: ek = ErrorKind::kAlreadyExists; break;
        default: ek = ErrorKind::kInvalidArgument; break;
      }
    } else if (s >= 500 && kind == Kind::kCommit) {
      // REST spec: 500, 502, 503 and 504 on a commit leave its outcome
      // unknown; the caller must keep every file it wrote.
      ek = ErrorKind::kCommitStateUnknown;
      note = " (the commit may or may not have landed)";
    } else if (s >= 500) {
      ek = ErrorKind::kIo;
      retryable = true;
    }
    return Error{ek,
                 fmt::format("REST catalog {}: {}: {} {} answered {}{}{}", name_, what,
                             route.method, path, s, detail.empty() ? "" : ": " + detail, note),
                 retryable};
  }

  // GETs every page of a list route (REST spec: PageToken): `pageToken`
  // starts empty, then each answer's `next-page-token` until null.
  Status Paged(const Route& route, const std::string& path, const std::string& base_query,
               const std::string& what, const std::function<Status(const Json&)>& each) {
    std::string token;
    std::set<std::string> seen;
    for (int page = 0;; ++page) {
      std::string query = base_query;
      auto add = [&](const std::string& kv) { query += (query.empty() ? "" : "&") + kv; };
      add("pageToken=" + UrlEncode(token));
      if (page_size_) add("pageSize=" + std::to_string(*page_size_));
      FLOE_ASSIGN_OR_RETURN(auto resp, Call(route, path, query, "", Kind::kRead, what));
      FLOE_ASSIGN_OR_RETURN(Json j, ParseBody(resp.body, what));
      FLOE_RETURN_IF_ERROR(each(j));
      FLOE_ASSIGN_OR_RETURN(auto next, NextPageToken(j, what));
      if (!next) return Ok();
      if (next->empty() || !seen.insert(*next).second) {
        return Corrupt("{}: page {} repeats next-page-token '{}' (the listing would not end)", what,
                       page + 1, *next);
      }
      token = *next;
    }
  }

  // A LoadTableResult (or CommitTableResponse): the metadata location, the
  // metadata, and the table's `config` kept for its FileIO.
  Result<LoadedTable> LoadResult(const TableIdentifier& id, const std::string& body,
                                 const std::string& what) {
    FLOE_ASSIGN_OR_RETURN(Json j, ParseBody(body, what));
    auto loc = j.find("metadata-location");
    if (loc == j.end() || !loc->is_string()) {
      return Corrupt("{}: the answer has no metadata-location (a staged table is not supported)",
                     what);
    }
    auto meta = j.find("metadata");
    if (meta == j.end() || !meta->is_object())
      return Corrupt("{}: the answer has no metadata object", what);
    auto parsed = iceberg::TableMetadataFromJson(meta->dump());
    if (!parsed) return Fail(parsed.error().WithContext(what));
    FLOE_ASSIGN_OR_RETURN(Props cfg, StringMap(j, "config", what));
    {
      std::lock_guard lock(config_mu_);
      table_config_[id] = std::move(cfg);
    }
    return LoadedTable{id, loc->get<std::string>(), std::move(*parsed)};
  }

  std::string name_;
  Props given_;
  Props props_;
  std::string uri_;
  std::string prefix_;
  std::optional<std::set<std::string>> endpoints_;
  std::map<std::string, std::string> headers_;
  std::optional<int32_t> page_size_;
  rest::HttpTimeouts timeouts_;

  mutable std::mutex auth_mu_;
  std::string token_;
  std::string credential_;
  std::string oauth_uri_;
  std::string scope_;
  bool refresh_enabled_ = true;
  std::optional<Clock::time_point> refresh_at_;

  mutable std::mutex config_mu_;
  std::map<TableIdentifier, Props> table_config_;
};

}  // namespace

Result<std::unique_ptr<Catalog>> OpenRestCatalog(const std::string& name, const Props& options) {
  auto catalog = std::make_unique<RestCatalog>(name, options);
  FLOE_RETURN_IF_ERROR(catalog->Init());
  return std::unique_ptr<Catalog>(std::move(catalog));
}


const Props* RestCatalogProperties(const Catalog& catalog) {
  auto* rest = dynamic_cast<const RestCatalog*>(&catalog);
  return rest ? &rest->properties() : nullptr;
}

Props RestTableConfig(const Catalog& catalog, const TableIdentifier& id) {
  auto* rest = dynamic_cast<const RestCatalog*>(&catalog);
  return rest ? rest->TableConfig(id) : Props{};
}

}  // namespace floe::catalog
