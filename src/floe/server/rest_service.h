/// \file
/// An Iceberg REST catalog service over any floe Catalog
/// (`../shared/specs/rest-catalog-open-api.yaml`): routes, JSON bodies,
/// bearer auth with an OAuth client-credentials token endpoint, paging, and
/// commits (requirements checked and updates applied under a per-table lock,
/// then a compare-and-swap on the backend catalog). Transport-free: a request
/// in, a response out; http_server.h puts it on a socket.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/server/location_policy.h"
#include "floe/util/status.h"

namespace floe::server {

/// One HTTP request: the raw target path (percent-encoded, no query), the
/// decoded query parameters and headers (names lower case).
struct HttpRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;
  std::string body;
};

/// One HTTP response. `drop_connection` (test faults only) asks the
/// transport to close the connection without answering.
struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  bool drop_connection = false;
};

/// A test-only fault (FLOE_SERVE_FAULT): after the Nth successful commit,
/// drop the connection without a reply, or answer 500: the commit landed but
/// the client cannot know (commit state unknown).
struct ServeFault {
  enum class Kind : uint8_t { kNone, kCommitDropReply, kCommit500 };
  Kind kind = Kind::kNone;
  int64_t nth = 1;
  /// Parses `commit-drop-reply[:N]` / `commit-500[:N]` (empty: none).
  static Result<ServeFault> Parse(std::string_view text);
};

struct ServiceOptions {
  std::string catalog_name = "floe";
  /// The backend catalog's options (catalog::OpenCatalog).
  std::map<std::string, std::string> catalog_options;
  /// Bearer tokens accepted as they are (`--token-file`, one a line).
  std::vector<std::string> static_tokens;
  /// OAuth clients (`--credentials-file`, `id:secret` lines): client id to secret.
  std::map<std::string, std::string> clients;
  /// Lifetime of issued tokens.
  int64_t token_lifetime_s = 3600;
  /// Attempts of a commit that lost the backend's compare-and-swap to another
  /// writer (each reloads and re-checks the requirements).
  int commit_attempts = 4;
  /// Locations clients may give besides the backend's warehouse
  /// (`--allow-location-prefix`; LocationPolicy).
  std::vector<std::string> allowed_location_prefixes;
  /// Where the service says what it does not tell the client (why a
  /// register-table location was refused); unset: nowhere. Called from many
  /// threads.
  std::function<void(std::string_view)> log;
  ServeFault fault;
};

class RestService {
 public:
  /// Opens one backend catalog to check the options (more are opened as
  /// requests run in parallel).
  static Result<std::unique_ptr<RestService>> Make(ServiceOptions options);

  /// Answers one request; safe to call from many threads.
  HttpResponse Handle(const HttpRequest& request);

  /// Whether requests need a bearer token.
  bool auth_required() const {
    return !options_.static_tokens.empty() || !options_.clients.empty();
  }

 private:
  explicit RestService(ServiceOptions options) : options_(std::move(options)) {}

  class Call;
  friend class Call;

  /// A backend catalog for one request: catalogs are not shared between
  /// threads at the same time (a catalog need not be thread-safe); each
  /// is returned to the pool after the request.
  class Lease {
   public:
    Lease(RestService* s, std::unique_ptr<catalog::Catalog> c)
        : service_(s), catalog_(std::move(c)) {}
    Lease(Lease&&) = default;
    ~Lease();
    catalog::Catalog* operator->() const { return catalog_.get(); }

   private:
    RestService* service_;
    std::unique_ptr<catalog::Catalog> catalog_;
  };
  Result<Lease> Borrow();

  /// The lock that serializes commits to one table in this process.
  std::shared_ptr<std::mutex> TableLock(const std::string& key);

  Result<std::string> IssueToken();
  bool TokenValid(const std::string& token);

  void Log(std::string_view line) const {
    if (options_.log) options_.log(line);
  }

  ServiceOptions options_;
  LocationPolicy locations_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<catalog::Catalog>> pool_;
  std::mutex locks_mu_;
  std::map<std::string, std::shared_ptr<std::mutex>> table_locks_;
  std::mutex tokens_mu_;
  std::map<std::string, int64_t> issued_tokens_;  ///< token to expiry (ms since the epoch)
  std::atomic<int64_t> commits_{0};
};

}  // namespace floe::server
