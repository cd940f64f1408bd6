// The REST catalog routes (REST spec paths under /v1, with or without a
// {prefix} segment), their JSON bodies and the error model
// (`{"error":{"message","type","code"}}` with the spec's exception names).

#include "floe/server/rest_service.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <random>

#include <nlohmann/json.hpp>

#include "floe/catalog/identifier.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_updates.h"
#include "floe/util/nesting.h"

namespace floe::server {

namespace {

using Json = nlohmann::ordered_json;
using catalog::Namespace;
using catalog::TableIdentifier;

/// The REST spec's namespace separator in paths and `parent` (0x1F, `%1F`).
constexpr char kNamespaceSeparator = '\x1f';

/// What the server answers GET /v1/config with: the routes it implements
/// (REST spec: CatalogConfig.endpoints). Others are answered 406.
constexpr std::array<std::string_view, 15> kEndpoints = {
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
};

int64_t NowMs() { return iceberg::NowMillis(); }

HttpResponse JsonResponse(int status, const Json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}

HttpResponse NoContent() {
  HttpResponse r;
  r.status = 204;
  r.content_type.clear();
  return r;
}

/// An error body: the spec's IcebergErrorResponse, `{"error": ErrorModel}`,
/// which every client parses (Java's ErrorResponseParser, PyIceberg,
/// iceberg-js). For 406 the OpenAPI document's UnsupportedOperationResponse
/// names the bare ErrorModel as its schema (while its own example shows the
/// wrapper), so a 406 body also carries the ErrorModel's fields at the top
/// level: it satisfies that schema (ErrorModel allows other properties) and
/// still reads as the wrapper everywhere.
HttpResponse ErrorResponse(int status, std::string_view type, std::string_view message) {
  Json e = Json::object();
  e["message"] = message;
  e["type"] = type;
  e["code"] = status;
  Json body = Json::object();
  if (status == 406) body = e;
  body["error"] = std::move(e);
  return JsonResponse(status, body);
}

/// The HTTP status and exception name of an error (REST spec: the
/// responses of each route; Java's ErrorHandlers use the same names).
HttpResponse FromError(const Error& e, std::string_view not_found_type) {
  switch (e.kind) {
    case ErrorKind::kInvalidArgument: return ErrorResponse(400, "BadRequestException", e.message);
    case ErrorKind::kNotFound:
      return ErrorResponse(
          404, e.message.starts_with("namespace ") ? "NoSuchNamespaceException" : not_found_type,
          e.message);
    case ErrorKind::kAlreadyExists: return ErrorResponse(409, "AlreadyExistsException", e.message);
    case ErrorKind::kCommitFailed: return ErrorResponse(409, "CommitFailedException", e.message);
    case ErrorKind::kUnsupported:
      return ErrorResponse(406, "UnsupportedOperationException", e.message);
    case ErrorKind::kCommitStateUnknown:
      return ErrorResponse(500, "CommitStateUnknownException", e.message);
    case ErrorKind::kIo:
    case ErrorKind::kCorrupt:
    case ErrorKind::kInternal: break;
  }
  return ErrorResponse(500, "ServiceFailureException", e.message);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Percent-decodes one path segment or form value (`+` is a space in forms only).
Result<std::string> PercentDecode(std::string_view s, bool form) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) return InvalidArgument("bad percent-encoding in '{}'", s);
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (form && s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

/// One namespace level or table name as a catalog may store it: the rules of
/// catalog::ParseNamespace (no `.`, `..`, `/`, control characters), which keep
/// a name inside the catalog's folders.
Status CheckName(const std::string& name, std::string_view what) {
  if (name.empty()) return InvalidArgument("{} name is empty", what);
  if (name.find('.') != std::string::npos)
    return InvalidArgument("{} name '{}' contains '.'", what, name);
  auto parsed = catalog::ParseNamespace(name);
  if (!parsed) return InvalidArgument("{} name '{}': {}", what, name, parsed.error().message);
  return Ok();
}

Result<Namespace> NamespaceFromLevels(std::vector<std::string> levels) {
  for (const auto& l : levels) FLOE_RETURN_IF_ERROR(CheckName(l, "namespace"));
  return Namespace{std::move(levels)};
}

/// A namespace in a path or `parent`: levels separated by 0x1F.
Result<Namespace> NamespaceFromText(std::string_view text) {
  std::vector<std::string> levels;
  size_t start = 0;
  while (true) {
    size_t sep = text.find(kNamespaceSeparator, start);
    levels.emplace_back(
        text.substr(start, sep == std::string_view::npos ? text.npos : sep - start));
    if (sep == std::string_view::npos) break;
    start = sep + 1;
  }
  return NamespaceFromLevels(std::move(levels));
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

/// Where a request body nests JSON past kMaxJsonDepth, as the client's error.
/// nlohmann parses iteratively but copies, dumps and compares recursively,
/// and so do the walks of what it parsed: a body must pass this before any
/// of them (a 100,000-deep `schema` overflowed a worker's stack).
Status CheckBodyNesting(std::string_view body, std::string_view what) {
  if (auto at = JsonNestingBeyond(body)) {
    return InvalidArgument("the {} body nests JSON deeper than {} levels (at byte {})", what,
                           kMaxJsonDepth, *at);
  }
  return Ok();
}

Result<Json> ParseBody(const std::string& body, std::string_view what) {
  FLOE_RETURN_IF_ERROR(CheckBodyNesting(body, what));
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("the {} body is not valid JSON", what);
  if (!j.is_object()) return InvalidArgument("the {} body must be a JSON object", what);
  return j;
}

Result<std::map<std::string, std::string>> StringMap(const Json& obj, std::string_view key,
                                                     std::string_view what) {
  std::map<std::string, std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return out;
  if (!it->is_object()) return InvalidArgument("{}: '{}' must be an object of strings", what, key);
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return InvalidArgument("{}: '{}.{}' must be a string", what, key, k);
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<std::string> RequiredString(const Json& obj, std::string_view key, std::string_view what) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string())
    return InvalidArgument("{}: '{}' must be a string", what, key);
  return it->get<std::string>();
}

Result<Namespace> NamespaceMember(const Json& obj, std::string_view key, std::string_view what) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array())
    return InvalidArgument("{}: '{}' must be an array of strings", what, key);
  std::vector<std::string> levels;
  for (const auto& l : *it) {
    if (!l.is_string()) return InvalidArgument("{}: '{}' must be an array of strings", what, key);
    levels.push_back(l.get<std::string>());
  }
  return NamespaceFromLevels(std::move(levels));
}

Result<TableIdentifier> IdentifierMember(const Json& obj, std::string_view key,
                                         std::string_view what) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_object())
    return InvalidArgument("{}: '{}' must be a table identifier", what, key);
  std::string where = fmt::format("{}: '{}'", what, key);
  FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceMember(*it, "namespace", where));
  FLOE_ASSIGN_OR_RETURN(std::string name, RequiredString(*it, "name", where));
  FLOE_RETURN_IF_ERROR(CheckName(name, "table"));
  if (ns.empty()) return InvalidArgument("{}: a table needs a namespace", where);
  return TableIdentifier{std::move(ns), std::move(name)};
}

/// A page of a sorted listing (REST spec: PageToken). Without `pageToken`
/// everything, with a null next token; with it (empty for the first page)
/// `pageSize` items after the token, which is the last key of the previous
/// page (so a listing that changes between pages skips or repeats nothing
/// that stayed).
struct Page {
  size_t begin = 0, end = 0;
  std::optional<std::string> next;
};

Result<Page> PageOf(const std::vector<std::string>& sorted_keys,
                    const std::map<std::string, std::string>& query) {
  Page p;
  p.end = sorted_keys.size();
  auto token = query.find("pageToken");
  if (token == query.end()) return p;
  size_t size = sorted_keys.size();
  if (auto s = query.find("pageSize"); s != query.end()) {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s->second.data(), s->second.data() + s->second.size(), v);
    if (ec != std::errc() || ptr != s->second.data() + s->second.size() || v < 1) {
      return InvalidArgument("pageSize '{}' is not a positive integer", s->second);
    }
    size = static_cast<size_t>(v);
  }
  if (!token->second.empty()) {
    p.begin = static_cast<size_t>(
        std::upper_bound(sorted_keys.begin(), sorted_keys.end(), token->second) -
        sorted_keys.begin());
  }
  p.end = std::min(sorted_keys.size(), p.begin + std::min(size, sorted_keys.size()));
  if (p.end < sorted_keys.size() && p.end > p.begin) p.next = sorted_keys[p.end - 1];
  return p;
}

std::string JoinLevels(const Namespace& ns) {
  std::string s;
  for (size_t i = 0; i < ns.levels.size(); ++i) {
    if (i) s.push_back(kNamespaceSeparator);
    s += ns.levels[i];
  }
  return s;
}

/// A LoadTableResult (or, without `config`, a CommitTableResponse) as
/// response text: the metadata's JSON text goes in as it is written, never
/// parsed and printed again (it is most of every table answer).
Result<HttpResponse> LoadResponse(const catalog::LoadedTable& t, bool with_config = true) {
  FLOE_ASSIGN_OR_RETURN(std::string text, iceberg::TableMetadataToJson(t.metadata, /*indent=*/-1));
  HttpResponse r;
  r.status = 200;
  r.body = "{\"metadata-location\":" + Json(t.metadata_location).dump() + ",\"metadata\":";
  r.body += text;
  r.body += with_config ? ",\"config\":{}}" : "}";
  return r;
}

/// Form fields of an application/x-www-form-urlencoded body.
Result<std::map<std::string, std::string>> ParseForm(std::string_view body) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t amp = body.find('&', start);
    std::string_view pair =
        body.substr(start, amp == std::string_view::npos ? body.npos : amp - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      FLOE_ASSIGN_OR_RETURN(std::string k, PercentDecode(pair.substr(0, eq), true));
      std::string v;
      if (eq != std::string_view::npos) {
        FLOE_ASSIGN_OR_RETURN(v, PercentDecode(pair.substr(eq + 1), true));
      }
      out[k] = v;
    }
    if (amp == std::string_view::npos) break;
    start = amp + 1;
  }
  return out;
}

HttpResponse OAuthError(int status, std::string_view error, std::string_view description) {
  Json j = Json::object();
  j["error"] = error;
  j["error_description"] = description;
  return JsonResponse(status, j);
}

}  // namespace

Result<ServeFault> ServeFault::Parse(std::string_view text) {
  ServeFault f;
  if (text.empty()) return f;
  std::string_view kind = text.substr(0, text.find(':'));
  if (kind == "commit-drop-reply") {
    f.kind = Kind::kCommitDropReply;
  } else if (kind == "commit-500") {
    f.kind = Kind::kCommit500;
  } else {
    return InvalidArgument(
        "FLOE_SERVE_FAULT '{}': expected commit-drop-reply[:N] or commit-500[:N]", text);
  }
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    std::string_view n = text.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), f.nth);
    if (ec != std::errc() || ptr != n.data() + n.size() || f.nth < 1) {
      return InvalidArgument("FLOE_SERVE_FAULT '{}': N must be a positive integer", text);
    }
  }
  return f;
}

// ---------------------------------------------------------------------------
// The service

Result<std::unique_ptr<RestService>> RestService::Make(ServiceOptions options) {
  std::unique_ptr<RestService> s(new RestService(std::move(options)));
  FLOE_ASSIGN_OR_RETURN(
      auto first, catalog::OpenCatalog(s->options_.catalog_name, s->options_.catalog_options));
  FLOE_ASSIGN_OR_RETURN(s->locations_, LocationPolicy::Make(first->WarehouseLocation(),
                                                            s->options_.allowed_location_prefixes));
  s->pool_.push_back(std::move(first));
  return s;
}

RestService::Lease::~Lease() {
  if (!catalog_) return;
  std::lock_guard lock(service_->pool_mu_);
  service_->pool_.push_back(std::move(catalog_));
}

Result<RestService::Lease> RestService::Borrow() {
  {
    std::lock_guard lock(pool_mu_);
    if (!pool_.empty()) {
      auto c = std::move(pool_.back());
      pool_.pop_back();
      return Lease(this, std::move(c));
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto c,
                        catalog::OpenCatalog(options_.catalog_name, options_.catalog_options));
  return Lease(this, std::move(c));
}

std::shared_ptr<std::mutex> RestService::TableLock(const std::string& key) {
  std::lock_guard lock(locks_mu_);
  auto& m = table_locks_[key];
  if (!m) m = std::make_shared<std::mutex>();
  return m;
}

Result<std::string> RestService::IssueToken() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", rd());
  std::lock_guard lock(tokens_mu_);
  const int64_t now = NowMs();
  std::erase_if(issued_tokens_, [&](const auto& kv) { return kv.second <= now; });
  issued_tokens_[token] = now + options_.token_lifetime_s * 1000;
  return token;
}

bool RestService::TokenValid(const std::string& token) {
  if (std::find(options_.static_tokens.begin(), options_.static_tokens.end(), token) !=
      options_.static_tokens.end()) {
    return true;
  }
  std::lock_guard lock(tokens_mu_);
  auto it = issued_tokens_.find(token);
  return it != issued_tokens_.end() && it->second > NowMs();
}

/// One request: its route, and the handler for it.
class RestService::Call {
 public:
  Call(RestService* s, const HttpRequest& r) : s_(s), r_(r) {}

  HttpResponse Run() {
    std::vector<std::string> seg;
    std::string_view path = r_.path;
    size_t start = 1;
    if (path.empty() || path[0] != '/')
      return ErrorResponse(400, "BadRequestException", "the path must start with '/'");
    while (start <= path.size()) {
      size_t slash = path.find('/', start);
      auto decoded = PercentDecode(
          path.substr(start, slash == std::string_view::npos ? path.npos : slash - start), false);
      if (!decoded) return FromError(decoded.error(), "NoSuchTableException");
      seg.push_back(std::move(*decoded));
      if (slash == std::string_view::npos) break;
      start = slash + 1;
    }
    if (!seg.empty() && seg.back().empty()) seg.pop_back();
    if (seg.empty() || seg[0] != "v1") return NotFoundRoute();
    seg.erase(seg.begin());
    if (seg == std::vector<std::string>{"oauth", "tokens"})
      return Method({"POST"}) ? OAuthTokens() : BadMethod();
    if (s_->auth_required()) {
      auto h = r_.headers.find("authorization");
      std::string_view v = h == r_.headers.end() ? std::string_view() : std::string_view(h->second);
      if (!v.starts_with("Bearer ") && !v.starts_with("bearer ")) {
        return ErrorResponse(401, "NotAuthorizedException",
                             "this catalog needs an 'Authorization: Bearer' token");
      }
      if (!s_->TokenValid(std::string(v.substr(7)))) {
        return ErrorResponse(401, "NotAuthorizedException",
                             "the bearer token is not valid or has expired");
      }
    }
    // Every route's body, before any route looks at it: the routes that parse
    // their body elsewhere (a table commit) are covered as well as ParseBody's.
    if (Status st = CheckBodyNesting(r_.body, "request"); !st)
      return FromError(st.error(), not_found_type_);
    if (seg == std::vector<std::string>{"config"}) return Method({"GET"}) ? Config() : BadMethod();
    // An optional {prefix}: the server keeps one catalog and takes any.
    static const std::array<std::string_view, 4> kRoots = {"namespaces", "tables", "transactions",
                                                           "views"};
    if (!seg.empty() && std::find(kRoots.begin(), kRoots.end(), seg[0]) == kRoots.end())
      seg.erase(seg.begin());
    auto result = Route(seg);
    if (!result) return FromError(result.error(), not_found_type_);
    return std::move(*result);
  }

 private:
  bool Method(std::initializer_list<std::string_view> allowed) const {
    return std::find(allowed.begin(), allowed.end(), r_.method) != allowed.end();
  }
  HttpResponse BadMethod() const {
    return ErrorResponse(405, "BadRequestException",
                         fmt::format("method {} is not allowed on {}", r_.method, r_.path));
  }
  HttpResponse NotFoundRoute() const {
    return ErrorResponse(404, "NoSuchEndpointException",
                         fmt::format("no route {} {}", r_.method, r_.path));
  }
  /// A location the server's operator does not allow (REST spec: 403).
  static HttpResponse Forbidden(std::string_view message) {
    return ErrorResponse(403, "ForbiddenException", message);
  }
  HttpResponse Unsupported(std::string_view what) const {
    return ErrorResponse(406, "UnsupportedOperationException",
                         fmt::format("{} is not supported by floe serve", what));
  }

  Result<HttpResponse> Route(const std::vector<std::string>& seg) {
    const size_t n = seg.size();
    if (n == 0) return NotFoundRoute();
    if (seg[0] == "tables" && n == 2 && seg[1] == "rename")
      return Method({"POST"}) ? Rename() : BadMethod();
    if (seg[0] == "transactions" && n == 2 && seg[1] == "commit") {
      return Method({"POST"}) ? CommitTransaction() : BadMethod();
    }
    if (seg[0] == "views") return Unsupported("views");
    if (seg[0] != "namespaces") return NotFoundRoute();
    if (n == 1) {
      if (r_.method == "GET") return ListNamespaces();
      if (r_.method == "POST") return CreateNamespace();
      return BadMethod();
    }
    not_found_type_ = "NoSuchNamespaceException";
    FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceFromText(seg[1]));
    if (n == 2) {
      if (r_.method == "GET") return LoadNamespace(ns);
      if (r_.method == "HEAD") return NamespaceExists(ns);
      if (r_.method == "DELETE") return DropNamespace(ns);
      return BadMethod();
    }
    if (n == 3 && seg[2] == "properties")
      return Method({"POST"}) ? UpdateProperties(ns) : BadMethod();
    if (n == 3 && seg[2] == "register") return Method({"POST"}) ? Register(ns) : BadMethod();
    if (n == 3 && seg[2] == "tables") {
      if (r_.method == "GET") return ListTables(ns);
      if (r_.method == "POST") return CreateTable(ns);
      return BadMethod();
    }
    if (seg[2] == "views" || seg[2] == "register-view") return Unsupported("views");
    if (seg[2] == "functions") return Unsupported("functions");
    if (seg[2] != "tables" || n < 4) return NotFoundRoute();
    not_found_type_ = "NoSuchTableException";
    FLOE_RETURN_IF_ERROR(CheckName(seg[3], "table"));
    if (ns.empty()) return InvalidArgument("a table needs a namespace");
    TableIdentifier id{ns, seg[3]};
    if (n == 4) {
      if (r_.method == "GET") return LoadTable(id);
      if (r_.method == "HEAD") return TableExists(id);
      if (r_.method == "POST") return CommitTable(id, r_.body);
      if (r_.method == "DELETE") return DropTable(id);
      return BadMethod();
    }
    if (n == 5 && seg[4] == "metrics") return Method({"POST"}) ? ReportMetrics() : BadMethod();
    if (seg[4] == "plan" || seg[4] == "tasks") return Unsupported("server-side scan planning");
    if (seg[4] == "credentials") return Unsupported("vended credentials");
    if (seg[4] == "sign") return Unsupported("remote signing");
    if (seg[4] == "unregister") return Unsupported("unregistering a table");
    return NotFoundRoute();
  }

  // --- config and auth ----------------------------------------------------

  HttpResponse Config() {
    Json j = Json::object();
    j["defaults"] = Json::object();
    j["overrides"] = Json::object();
    Json e = Json::array();
    for (auto ep : kEndpoints) e.push_back(ep);
    j["endpoints"] = std::move(e);
    return JsonResponse(200, j);
  }

  HttpResponse OAuthTokens() {
    auto form = ParseForm(r_.body);
    if (!form) return OAuthError(400, "invalid_request", form.error().message);
    auto get = [&](const char* k) {
      auto it = form->find(k);
      return it == form->end() ? std::string() : it->second;
    };
    if (get("grant_type") != "client_credentials") {
      return OAuthError(400, "unsupported_grant_type",
                        fmt::format("grant_type '{}' is not supported; use client_credentials",
                                    get("grant_type")));
    }
    auto client = s_->options_.clients.find(get("client_id"));
    if (client == s_->options_.clients.end() || client->second != get("client_secret")) {
      return OAuthError(401, "invalid_client", "unknown client_id or wrong client_secret");
    }
    auto token = s_->IssueToken();
    if (!token) return OAuthError(400, "invalid_request", token.error().message);
    Json j = Json::object();
    j["access_token"] = *token;
    j["token_type"] = "bearer";
    j["expires_in"] = s_->options_.token_lifetime_s;
    j["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token";
    if (!get("scope").empty()) j["scope"] = get("scope");
    return JsonResponse(200, j);
  }

  // --- namespaces -----------------------------------------------------------

  Result<HttpResponse> ListNamespaces() {
    Namespace parent;
    if (auto p = r_.query.find("parent"); p != r_.query.end() && !p->second.empty()) {
      FLOE_ASSIGN_OR_RETURN(parent, NamespaceFromText(p->second));
    }
    not_found_type_ = "NoSuchNamespaceException";
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(auto all, c->ListNamespaces(parent));
    std::sort(all.begin(), all.end());
    std::vector<std::string> keys;
    for (const auto& ns : all) keys.push_back(JoinLevels(ns));
    FLOE_ASSIGN_OR_RETURN(Page page, PageOf(keys, r_.query));
    Json list = Json::array();
    for (size_t i = page.begin; i < page.end; ++i) list.push_back(NamespaceJson(all[i]));
    Json j = Json::object();
    j["namespaces"] = std::move(list);
    j["next-page-token"] = page.next ? Json(*page.next) : Json();
    return JsonResponse(200, j);
  }

  Result<HttpResponse> CreateNamespace() {
    FLOE_ASSIGN_OR_RETURN(Json body, ParseBody(r_.body, "create-namespace"));
    FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceMember(body, "namespace", "create-namespace"));
    if (ns.empty()) return InvalidArgument("create-namespace: the namespace is empty");
    FLOE_ASSIGN_OR_RETURN(auto props, StringMap(body, "properties", "create-namespace"));
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_RETURN_IF_ERROR(c->CreateNamespace(ns, props));
    Json j = Json::object();
    j["namespace"] = NamespaceJson(ns);
    j["properties"] = props;
    return JsonResponse(200, j);
  }

  Result<HttpResponse> LoadNamespace(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(auto props, c->LoadNamespaceProperties(ns));
    Json j = Json::object();
    j["namespace"] = NamespaceJson(ns);
    j["properties"] = props;
    return JsonResponse(200, j);
  }

  Result<HttpResponse> NamespaceExists(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(bool exists, c->NamespaceExists(ns));
    if (!exists || ns.empty()) return NotFound("namespace {} does not exist", ns.ToString());
    return NoContent();
  }

  Result<HttpResponse> DropNamespace(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    // Checked here so every backend answers the same 409 (REST spec:
    // dropNamespace, NamespaceNotEmptyException).
    FLOE_ASSIGN_OR_RETURN(auto tables, c->ListTables(ns));
    FLOE_ASSIGN_OR_RETURN(auto children, c->ListNamespaces(ns));
    if (!tables.empty() || !children.empty()) {
      return ErrorResponse(409, "NamespaceNotEmptyException",
                           fmt::format("namespace {} is not empty: {} tables, {} namespaces",
                                       ns.ToString(), tables.size(), children.size()));
    }
    if (Status st = c->DropNamespace(ns); !st) {
      if (st.error().kind == ErrorKind::kInvalidArgument) {
        return ErrorResponse(409, "NamespaceNotEmptyException", st.error().message);
      }
      return Fail(st.error());
    }
    return NoContent();
  }

  Result<HttpResponse> UpdateProperties(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(Json body, ParseBody(r_.body, "update-namespace-properties"));
    FLOE_ASSIGN_OR_RETURN(auto set, StringMap(body, "updates", "update-namespace-properties"));
    std::vector<std::string> remove;
    if (auto it = body.find("removals"); it != body.end() && !it->is_null()) {
      if (!it->is_array())
        return InvalidArgument(
            "update-namespace-properties: 'removals' must be an array of strings");
      for (const auto& k : *it) {
        if (!k.is_string())
          return InvalidArgument(
              "update-namespace-properties: 'removals' must be an array of strings");
        remove.push_back(k.get<std::string>());
      }
    }
    for (const auto& k : remove) {
      if (set.contains(k)) {
        return ErrorResponse(422, "UnprocessableEntityException",
                             fmt::format("property '{}' is both set and removed", k));
      }
    }
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(auto changes, c->UpdateNamespaceProperties(ns, set, remove));
    Json j = Json::object();
    j["updated"] = changes.updated;
    j["removed"] = changes.removed;
    j["missing"] = changes.missing;
    return JsonResponse(200, j);
  }

  // --- tables ---------------------------------------------------------------

  Result<HttpResponse> ListTables(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(auto all, c->ListTables(ns));
    std::sort(all.begin(), all.end());
    std::vector<std::string> keys;
    for (const auto& id : all) keys.push_back(id.name);
    FLOE_ASSIGN_OR_RETURN(Page page, PageOf(keys, r_.query));
    Json list = Json::array();
    for (size_t i = page.begin; i < page.end; ++i) list.push_back(IdentifierJson(all[i]));
    Json j = Json::object();
    j["identifiers"] = std::move(list);
    j["next-page-token"] = page.next ? Json(*page.next) : Json();
    return JsonResponse(200, j);
  }

  Result<HttpResponse> CreateTable(const Namespace& ns) {
    const std::string what = "create-table";
    FLOE_ASSIGN_OR_RETURN(Json body, ParseBody(r_.body, what));
    FLOE_ASSIGN_OR_RETURN(std::string name, RequiredString(body, "name", what));
    FLOE_RETURN_IF_ERROR(CheckName(name, "table"));
    if (auto st = body.find("stage-create");
        st != body.end() && st->is_boolean() && st->get<bool>()) {
      return InvalidArgument(
          "{}: stage-create is not supported by floe serve (create the table, then commit)", what);
    }
    catalog::TableDefinition def;
    auto schema_it = body.find("schema");
    if (schema_it == body.end())
      return InvalidArgument("{}: 'schema' is required but missing", what);
    auto schema = iceberg::SchemaFromJson(schema_it->dump());
    if (!schema) return InvalidArgument("{}: 'schema': {}", what, schema.error().message);
    def.schema = std::move(*schema);
    if (auto it = body.find("partition-spec"); it != body.end() && !it->is_null()) {
      Json spec = *it;
      // spec-id is read-only in the REST spec: a client may leave it out.
      if (spec.is_object() && !spec.contains("spec-id")) spec["spec-id"] = 0;
      auto parsed = iceberg::PartitionSpecFromJson(spec.dump());
      if (!parsed) return InvalidArgument("{}: 'partition-spec': {}", what, parsed.error().message);
      def.spec = std::move(*parsed);
    }
    if (auto it = body.find("write-order"); it != body.end() && !it->is_null()) {
      auto parsed = iceberg::SortOrderFromJson(it->dump());
      if (!parsed) return InvalidArgument("{}: 'write-order': {}", what, parsed.error().message);
      def.sort_order = std::move(*parsed);
    }
    FLOE_ASSIGN_OR_RETURN(def.properties, StringMap(body, "properties", what));
    if (auto it = body.find("location"); it != body.end() && !it->is_null()) {
      if (!it->is_string()) return InvalidArgument("{}: 'location' must be a string", what);
      def.location = it->get<std::string>();
      if (Status st = s_->locations_.Check(def.location); !st)
        return Forbidden(fmt::format("{}: {}", what, st.error().message));
    }
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(auto created, c->CreateTable(TableIdentifier{ns, name}, def));
    return LoadResponse(created);
  }

  Result<HttpResponse> LoadTable(const TableIdentifier& id) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(auto t, c->RefreshTable(id));
    return LoadResponse(t);
  }

  Result<HttpResponse> TableExists(const TableIdentifier& id) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(bool exists, c->TableExists(id));
    if (!exists) return NotFound("table {} does not exist", id.ToString());
    return NoContent();
  }

  Result<HttpResponse> DropTable(const TableIdentifier& id) {
    bool purge = false;
    if (auto p = r_.query.find("purgeRequested"); p != r_.query.end()) {
      if (p->second != "true" && p->second != "false") {
        return InvalidArgument("purgeRequested '{}' must be true or false", p->second);
      }
      purge = p->second == "true";
    }
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    FLOE_ASSIGN_OR_RETURN(bool exists, c->TableExists(id));
    if (!exists) return NotFound("table {} does not exist", id.ToString());
    // Under the table's lock: a commit in flight finishes first.
    auto lock = s_->TableLock(id.ToString());
    std::lock_guard guard(*lock);
    FLOE_RETURN_IF_ERROR(c->DropTable(id, purge));
    return NoContent();
  }

  Result<HttpResponse> Rename() {
    FLOE_ASSIGN_OR_RETURN(Json body, ParseBody(r_.body, "rename-table"));
    FLOE_ASSIGN_OR_RETURN(auto from, IdentifierMember(body, "source", "rename-table"));
    FLOE_ASSIGN_OR_RETURN(auto to, IdentifierMember(body, "destination", "rename-table"));
    not_found_type_ = "NoSuchTableException";
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    auto lock = s_->TableLock(from.ToString());
    std::lock_guard guard(*lock);
    FLOE_RETURN_IF_ERROR(c->RenameTable(from, to));
    return NoContent();
  }

  Result<HttpResponse> Register(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(Json body, ParseBody(r_.body, "register-table"));
    FLOE_ASSIGN_OR_RETURN(std::string name, RequiredString(body, "name", "register-table"));
    FLOE_RETURN_IF_ERROR(CheckName(name, "table"));
    FLOE_ASSIGN_OR_RETURN(std::string location,
                          RequiredString(body, "metadata-location", "register-table"));
    if (auto o = body.find("overwrite"); o != body.end() && o->is_boolean() && o->get<bool>()) {
      return Unsupported("register-table with overwrite");
    }
    const TableIdentifier id{ns, name};
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    // What the client may learn comes first and never depends on the file:
    // the namespace, the name. Past this point every refusal is one message,
    // so that no client learns whether a file exists, is readable or parses;
    // the reason goes to the server's log.
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, c->NamespaceExists(ns));
    if (!ns_exists) return NotFound("namespace {} does not exist", ns.ToString());
    FLOE_ASSIGN_OR_RETURN(bool exists, c->TableExists(id));
    if (exists) return AlreadyExists("table {} already exists", id.ToString());
    auto refuse = [&](std::string_view reason) {
      s_->Log(fmt::format("floe serve: register-table {} from {} refused: {}", id.ToString(),
                          location, reason));
      return ErrorResponse(
          400, "BadRequestException",
          fmt::format("register-table {}: metadata-location '{}' is not table metadata that this "
                      "server may register (it must be a readable metadata file under the "
                      "warehouse or an allowed prefix, naming a table location there); the "
                      "server's log says why",
                      id.ToString(), location));
    };
    if (Status st = s_->locations_.Check(location); !st) return refuse(st.error().message);
    // Under the table's lock: no commit through this server reaches a table
    // that is dropped again below.
    auto lock = s_->TableLock(id.ToString());
    std::lock_guard guard(*lock);
    auto t = c->RegisterTable(id, location);
    if (!t) {
      const ErrorKind kind = t.error().kind;
      // Neither depends on the file (a race with another client; a backend
      // that cannot register at all).
      if (kind == ErrorKind::kAlreadyExists || kind == ErrorKind::kUnsupported) return Fail(t.error());
      return refuse(t.error().message);
    }
    // Commits write the next metadata file under the table's own location.
    if (Status st = s_->locations_.Check(t->metadata.location); !st) {
      // The registration only (no purge: the files are not the server's).
      if (Status undo = c->DropTable(id, /*purge=*/false); !undo) {
        s_->Log(fmt::format("floe serve: register-table {}: could not undo the registration: {}",
                            id.ToString(), undo.error().message));
      }
      return refuse(fmt::format("the table location in the file: {}", st.error().message));
    }
    return LoadResponse(*t);
  }

  Result<HttpResponse> ReportMetrics() {
    // Accepted and dropped: floe keeps no metrics store.
    FLOE_RETURN_IF_ERROR(ParseBody(r_.body, "report-metrics"));
    return NoContent();
  }

  /// The commit protocol: requirements are checked against the current
  /// version and the updates applied to it under this process's lock for
  /// the table; the backend's compare-and-swap catches writers elsewhere
  /// (another server, `floe write` on the warehouse). A lost swap reloads
  /// and checks again; a swap whose outcome is unknown is reported as such
  /// and nothing is cleaned up.
  Result<HttpResponse> CommitTable(const TableIdentifier& id, const std::string& body) {
    FLOE_ASSIGN_OR_RETURN(iceberg::TableChanges changes, iceberg::TableChangesFromJson(body));
    for (const auto& u : changes.updates) {
      if (u.kind != iceberg::TableUpdate::Kind::kSetLocation) continue;
      if (Status st = s_->locations_.Check(u.location); !st)
        return Forbidden(fmt::format("set-location: {}", st.error().message));
    }
    FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable committed, Commit(id, changes));
    const int64_t n = ++s_->commits_;
    const ServeFault& fault = s_->options_.fault;
    if (fault.kind != ServeFault::Kind::kNone && n == fault.nth) {
      if (fault.kind == ServeFault::Kind::kCommitDropReply) {
        HttpResponse r;
        r.drop_connection = true;
        return r;
      }
      return ErrorResponse(
          500, "CommitStateUnknownException",
          fmt::format("FLOE_SERVE_FAULT: commit {} was applied, then this 500 was sent", n));
    }
    return LoadResponse(committed, /*with_config=*/false);
  }

  Result<catalog::LoadedTable> Commit(const TableIdentifier& id,
                                      const iceberg::TableChanges& changes) {
    FLOE_ASSIGN_OR_RETURN(Lease c, s_->Borrow());
    auto lock = s_->TableLock(id.ToString());
    std::lock_guard guard(*lock);
    Error last{ErrorKind::kCommitFailed, "", true};
    for (int attempt = 0; attempt < std::max(1, s_->options_.commit_attempts); ++attempt) {
      FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable current, c->RefreshTable(id));
      FLOE_RETURN_IF_ERROR(iceberg::CheckRequirements(changes.requirements, &current.metadata));
      auto updated = iceberg::ApplyUpdates(current.metadata, changes.updates);
      if (!updated) {
        Error e = updated.error();
        e.kind = ErrorKind::kInvalidArgument;  // the request's updates cannot apply: 400
        return Fail(std::move(e));
      }
      auto done = c->CommitTable(current, std::move(*updated));
      if (done) return std::move(*done);
      if (done.error().kind != ErrorKind::kCommitFailed) return Fail(done.error());
      last = done.error();
    }
    return CommitFailed("table {}: the commit lost {} races with other writers (last: {})",
                        id.ToString(), s_->options_.commit_attempts, last.message);
  }

  /// POST /transactions/commit with one table: the same as a table commit
  /// (a transaction over several tables needs an atomic multi-table swap,
  /// which the backend catalogs do not have).
  Result<HttpResponse> CommitTransaction() {
    FLOE_ASSIGN_OR_RETURN(Json body, ParseBody(r_.body, "commit-transaction"));
    auto changes = body.find("table-changes");
    if (changes == body.end() || !changes->is_array()) {
      return InvalidArgument("commit-transaction: 'table-changes' must be an array");
    }
    if (changes->size() != 1) {
      return Unsupported(fmt::format(
          "a transaction over {} tables (only one table per transaction)", changes->size()));
    }
    const Json& change = (*changes)[0];
    if (!change.is_object())
      return InvalidArgument("commit-transaction: table-changes[0] must be an object");
    FLOE_ASSIGN_OR_RETURN(
        auto id, IdentifierMember(change, "identifier", "commit-transaction: table-changes[0]"));
    not_found_type_ = "NoSuchTableException";
    FLOE_ASSIGN_OR_RETURN(HttpResponse r, CommitTable(id, change.dump()));
    if (r.status == 200) return NoContent();
    return r;
  }

  RestService* s_;
  const HttpRequest& r_;
  std::string not_found_type_ = "NoSuchTableException";
};

HttpResponse RestService::Handle(const HttpRequest& request) {
  try {
    return Call(this, request).Run();
  } catch (const std::exception& e) {
    // No exception leaves the service: a bug answers 500 and names itself.
    return ErrorResponse(500, "ServiceFailureException",
                         fmt::format("internal error: {}", e.what()));
  }
}

}  // namespace floe::server
