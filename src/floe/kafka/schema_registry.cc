// Confluent Schema Registry client (schema_registry.h).
#include "floe/kafka/schema_registry.h"

#include "floe/util/strings.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "floe/catalog/rest_http.h"

namespace floe::kafka {

namespace {


std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

/// The base URLs of a comma-separated list.
std::vector<std::string> SplitUrls(std::string_view list) {
  std::vector<std::string> urls;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string u = Trimmed(list.substr(start, end - start));
    if (!u.empty()) urls.push_back(std::move(u));
    start = end + 1;
  }
  return urls;
}

/// Splits the user info out of `url` (scheme://user:password@host...): the
/// URL without it, and it.
std::pair<std::string, std::string> SplitUserInfo(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return {url, {}};
  const size_t host = scheme + 3;
  const size_t path = url.find('/', host);
  const size_t at = url.rfind('@', path == std::string::npos ? std::string::npos : path);
  if (at == std::string::npos || at < host) return {url, {}};
  return {url.substr(0, host) + url.substr(at + 1), url.substr(host, at - host)};
}

/// The process's answers, per registry (its URLs and the credentials used:
/// a source whose credentials the registry refuses must not read what
/// another source's fetched) and id.
struct Cache {
  std::mutex mu;
  std::map<std::tuple<std::string, std::string, int32_t>, Result<std::shared_ptr<const RegisteredSchema>>> answers;
};
Cache& ProcessCache() {
  static Cache* cache = new Cache();  // never destroyed: sources may outlive static destruction order
  return *cache;
}

}  // namespace

Status ValidateSchemaRegistryOptions(const SchemaRegistryOptions& o) {
  const auto urls = SplitUrls(o.url);
  if (urls.empty()) return InvalidArgument("schema registry: no URL given");
  for (const std::string& u : urls) {
    if (!u.starts_with("http://") && !u.starts_with("https://")) {
      return InvalidArgument("schema registry URL '{}': expected http://host:port or https://host:port",
                             SplitUserInfo(u).first);
    }
  }
  const std::string source = Upper(o.credentials_source);
  if (source.empty() || source == "USER_INFO") {
    if (!o.user_info.empty() && o.user_info.find(':') == std::string::npos) {
      return InvalidArgument("schema registry: the basic-auth user info must be user:password");
    }
  } else if (source == "URL") {
    if (!o.user_info.empty()) {
      return InvalidArgument(
          "schema registry: a basic-auth user info is given, but the credentials source is URL (the user info of "
          "the URL); give one of them");
    }
  } else if (source == "SASL_INHERIT") {
    return Unsupported("schema registry: basic-auth credentials source SASL_INHERIT is not supported yet "
                       "(USER_INFO and URL are)");
  } else {
    return InvalidArgument("schema registry: basic-auth credentials source '{}': expected USER_INFO or URL",
                           o.credentials_source);
  }
  return Ok();
}

Result<std::unique_ptr<SchemaRegistryClient>> SchemaRegistryClient::Make(SchemaRegistryOptions options) {
  FLOE_RETURN_IF_ERROR(ValidateSchemaRegistryOptions(options));
  std::unique_ptr<SchemaRegistryClient> c(new SchemaRegistryClient(std::move(options)));
  const bool from_url = Upper(c->o_.credentials_source) == "URL";
  std::string user_info = c->o_.user_info;
  for (const std::string& u : SplitUrls(c->o_.url)) {
    auto [base, info] = SplitUserInfo(u);
    while (base.ends_with('/')) base.pop_back();
    if (from_url && user_info.empty()) user_info = info;
    c->urls_.push_back(std::move(base));
  }
  if (from_url && user_info.empty()) {
    return InvalidArgument("schema registry: the credentials source is URL, but no URL has user:password@");
  }
  c->shown_url_ = fmt::format("{}", fmt::join(c->urls_, ","));
  if (!user_info.empty()) c->authorization_ = "Basic " + Base64(user_info);
  return c;
}

Result<std::shared_ptr<const RegisteredSchema>> SchemaRegistryClient::Get(int32_t id) {
  Cache& cache = ProcessCache();
  const auto key = std::make_tuple(shown_url_, authorization_, id);
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.answers.find(key);
    if (it != cache.answers.end()) return it->second;
  }
  auto got = Fetch(id);
  if (got || got.error().kind == ErrorKind::kNotFound || got.error().kind == ErrorKind::kUnsupported) {
    std::lock_guard<std::mutex> lock(cache.mu);
    cache.answers.emplace(key, got);
  }
  return got;
}

Result<std::shared_ptr<const RegisteredSchema>> SchemaRegistryClient::Fetch(int32_t id) {
  catalog::rest::HttpTimeouts timeouts;
  timeouts.connect_ms = o_.connect_timeout.count();
  timeouts.request_ms = o_.request_timeout.count();
  std::string last;
  for (int attempt = 0; attempt < std::max(1, o_.attempts); ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
    for (const std::string& base : urls_) {
      catalog::rest::HttpRequest req;
      req.method = "GET";
      req.url = fmt::format("{}/schemas/ids/{}", base, static_cast<uint32_t>(id));
      req.headers.emplace_back(
          "Accept", "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json");
      if (!authorization_.empty()) req.headers.emplace_back("Authorization", authorization_);
      ++requests_;
      const auto out = catalog::rest::SendHttp(req, timeouts);
      if (!out.ok) {
        last = fmt::format("schema registry {}: {}{}", req.url,
                           out.failure.timed_out ? "timed out: " : "", out.failure.message);
        continue;  // the next URL, or the next attempt
      }
      const int64_t status = out.response.status;
      nlohmann::json body = nlohmann::json::parse(out.response.body, nullptr, false);
      std::string message;
      if (body.is_object() && body.contains("message") && body["message"].is_string()) {
        message = body["message"].get<std::string>();
      } else {
        message = out.response.body.substr(0, 200);
      }
      if (status == 404) {
        return Fail(Error{ErrorKind::kNotFound,
                          fmt::format("schema registry {}: no schema with id {} (HTTP 404: {})", req.url, id, message),
                          false});
      }
      if (status == 401 || status == 403) {
        return Fail(Error{ErrorKind::kIo,
                          fmt::format("schema registry {}: HTTP {} ({}): the registry refused the "
                                      "credentials{}",
                                      req.url, status, message,
                                      authorization_.empty()
                                          ? " (none were given: set the registry's basic-auth user info)"
                                          : ""),
                          false});
      }
      if (status >= 500 || status == 408 || status == 429) {
        last = fmt::format("schema registry {}: HTTP {}: {}", req.url, status, message);
        continue;
      }
      if (status != 200) {
        return Fail(Error{ErrorKind::kIo,
                          fmt::format("schema registry {}: HTTP {}: {}", req.url, status, message),
                          false});
      }
      if (!body.is_object() || !body.contains("schema") || !body["schema"].is_string()) {
        return IoError("schema registry {}: the response is not {{\"schema\": \"...\"}}: {}", req.url,
                       out.response.body.substr(0, 200));
      }
      if (body.contains("schemaType") && body["schemaType"].is_string() &&
          Upper(body["schemaType"].get<std::string>()) != "AVRO") {
        return Unsupported("schema registry {}: schema id {} is a {} schema: the avro-confluent formats read Avro only",
                           req.url, id, body["schemaType"].get<std::string>());
      }
      if (body.contains("references") && body["references"].is_array() && !body["references"].empty()) {
        return Unsupported("schema registry {}: schema id {} references other schemas ({}): schema references are "
                           "not supported yet",
                           req.url, id, body["references"].dump());
      }
      auto s = std::make_shared<RegisteredSchema>();
      s->id = id;
      s->text = body["schema"].get<std::string>();
      return std::shared_ptr<const RegisteredSchema>(std::move(s));
    }
  }
  return Fail(Error{ErrorKind::kIo, last, true});
}

}  // namespace floe::kafka
