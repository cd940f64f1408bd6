// `floe serve`: an Iceberg REST catalog server over any floe catalog
// (server::RestService on server::HttpServer). Reads the bearer tokens and
// OAuth clients it accepts from files, prints its address when ready (tests
// and scripts wait for that line) and stops cleanly on SIGTERM or SIGINT.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "floe/cli/run.h"
#include "floe/cli/table_args.h"
#include "floe/config/duration.h"
#include "floe/config/options.h"
#include "floe/io/file.h"
#include "floe/server/http_server.h"
#include "floe/server/rest_service.h"

namespace floe::cli {
namespace {

struct ServeArgs {
  CatalogArgs catalog;
  std::string listen = "127.0.0.1:8181";
  std::string token_file;
  std::string credentials_file;
  bool allow_unauthenticated = false;
  std::vector<std::string> allowed_location_prefixes;
  int max_connections = server::HttpLimits{}.max_connections;
  std::string header_timeout = "10s";
  std::string body_timeout = "60s";
  std::string idle_timeout = "30s";
  std::string max_body_size = "16MiB";
};

/// Whether `host` is a loopback address (127.0.0.0/8, ::1, an IPv4-mapped
/// 127.x, or the name localhost); any other name counts as reachable.
bool IsLoopback(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

/// A positive duration option in milliseconds (config/duration.h: "10s",
/// "500ms"; a bare number is milliseconds).
Result<std::chrono::milliseconds> TimeoutOption(std::string_view flag, const std::string& text) {
  auto d = config::ParseDuration(text);
  if (!d) return UsageError(fmt::format("{} '{}': {}", flag, text, d.error().message));
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*d);
  if (ms.count() <= 0 || ms > std::chrono::hours(24))
    return UsageError(fmt::format("{} '{}': must be more than 0 and at most 24 hours", flag, text));
  return ms;
}

/// A byte count: a whole number with an optional unit K/KiB, M/MiB, G/GiB
/// (powers of 1024, any case).
Result<size_t> ByteSizeOption(std::string_view flag, const std::string& text) {
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  std::string unit(ptr, text.data() + text.size());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  uint64_t scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kib") scale = uint64_t{1} << 10;
  else if (unit == "m" || unit == "mib") scale = uint64_t{1} << 20;
  else if (unit == "g" || unit == "gib") scale = uint64_t{1} << 30;
  if (ec != std::errc() || ptr == text.data() || scale == 0) {
    return UsageError(fmt::format("{} '{}': expected a number of bytes, optionally with K, M or G "
                                  "(KiB, MiB, GiB)", flag, text));
  }
  if (n == 0 || n > (uint64_t{4} << 30) / scale)
    return UsageError(fmt::format("{} '{}': must be more than 0 and at most 4GiB", flag, text));
  return static_cast<size_t>(n * scale);
}

/// The non-empty lines of a file (a trailing '\r' dropped).
Result<std::vector<std::string>> Lines(const std::string& path, std::string_view flag) {
  auto text = ReadLocalFile(path);
  if (!text) return InvalidArgument("{} {}: {}", flag, path, text.error().message);
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text->size()) {
    size_t nl = text->find('\n', start);
    std::string line =
        text->substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

Result<std::pair<std::string, int>> ParseListen(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return UsageError(fmt::format("--listen '{}': expected HOST:PORT", text));
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  char* end = nullptr;
  long port = std::strtol(text.c_str() + colon + 1, &end, 10);
  if (colon + 1 == text.size() || *end != '\0' || port < 0 || port > 65535) {
    return UsageError(fmt::format("--listen '{}': the port must be 0..65535", text));
  }
  return std::make_pair(host, static_cast<int>(port));
}

Status RunServe(const ServeArgs& a) {
  server::ServiceOptions o;
  o.catalog_name = a.catalog.name;
  FLOE_ASSIGN_OR_RETURN(o.catalog_options, ParseKeyValues(a.catalog.properties, "--catalog"));
  if (Status st =
          config::CheckOptions(o.catalog_options, uint32_t(config::Scope::kCatalog), "--catalog");
      !st) {
    return UsageError(st.error().message);
  }
  // A server answers every request with the table as the catalog has it
  // now (RefreshTable): its clients keep their own caches, and a cached
  // answer here would hide other writers' commits from all of them.
  for (const auto& key : {config::keys::kCacheEnabled.name, config::keys::kCacheExpirationIntervalMs.name}) {
    if (o.catalog_options.contains(std::string(key))) {
      return UsageError(fmt::format(
          "--catalog {}: floe serve never caches tables (it answers every request from the catalog, so "
          "that no client sees a stale table); set the cache options on the clients",
          key));
    }
  }
  o.catalog_options[std::string(config::keys::kCacheEnabled.name)] = "false";
  FLOE_ASSIGN_OR_RETURN(auto hostport, ParseListen(a.listen));
  server::HttpLimits limits;
  if (a.max_connections < 1 || a.max_connections > 100000) {
    return UsageError(
        fmt::format("--max-connections {}: must be between 1 and 100000", a.max_connections));
  }
  limits.max_connections = a.max_connections;
  FLOE_ASSIGN_OR_RETURN(limits.header_timeout, TimeoutOption("--header-timeout", a.header_timeout));
  FLOE_ASSIGN_OR_RETURN(limits.body_timeout, TimeoutOption("--body-timeout", a.body_timeout));
  FLOE_ASSIGN_OR_RETURN(limits.idle_timeout, TimeoutOption("--idle-timeout", a.idle_timeout));
  FLOE_ASSIGN_OR_RETURN(limits.max_body_bytes, ByteSizeOption("--max-body-size", a.max_body_size));
  limits.workers = static_cast<int>(std::max(8u, std::thread::hardware_concurrency()));
  o.allowed_location_prefixes = a.allowed_location_prefixes;
  if (!a.token_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(o.static_tokens, Lines(a.token_file, "--token-file"));
    if (o.static_tokens.empty())
      return InvalidArgument("--token-file {}: no token in it", a.token_file);
  }
  if (!a.credentials_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto lines, Lines(a.credentials_file, "--credentials-file"));
    for (size_t i = 0; i < lines.size(); ++i) {
      size_t colon = lines[i].find(':');
      if (colon == std::string::npos || colon == 0) {
        return InvalidArgument("--credentials-file {}: line {}: expected CLIENT_ID:SECRET",
                               a.credentials_file, i + 1);
      }
      o.clients[lines[i].substr(0, colon)] = lines[i].substr(colon + 1);
    }
    if (o.clients.empty())
      return InvalidArgument("--credentials-file {}: no client in it", a.credentials_file);
  }
  const bool auth = !o.static_tokens.empty() || !o.clients.empty();
  if (auth && a.allow_unauthenticated) {
    return UsageError(
        "--allow-unauthenticated with --token-file or --credentials-file: authentication is on "
        "with those; give one or the other");
  }
  if (!auth && !a.allow_unauthenticated && !IsLoopback(hostport.first)) {
    return UsageError(fmt::format(
        "--listen {}: serving an address other than loopback without authentication is refused "
        "(every client that reaches it could read, change and drop every table); give "
        "--token-file or --credentials-file, or --allow-unauthenticated to serve it so anyway",
        a.listen));
  }
  // Details a client is not told (a refused register-table location).
  auto log_mu = std::make_shared<std::mutex>();
  o.log = [log_mu, err = CurrentIo().err](std::string_view line) {
    std::lock_guard lock(*log_mu);
    WriteAll(err, std::string(line) + "\n");
  };
  if (const char* fault = std::getenv("FLOE_SERVE_FAULT")) {
    FLOE_ASSIGN_OR_RETURN(o.fault, server::ServeFault::Parse(fault));
  }
  FLOE_ASSIGN_OR_RETURN(auto service, server::RestService::Make(std::move(o)));

  // SIGTERM and SIGINT are taken by one thread that stops the server; every
  // other thread (the server's workers are started after this) blocks them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  FLOE_ASSIGN_OR_RETURN(auto http, server::HttpServer::Bind(service.get(), hostport.first,
                                                            hostport.second, limits));
  std::string shown =
      hostport.first.find(':') != std::string::npos ? "[" + hostport.first + "]" : hostport.first;
  if (!auth) {
    WriteAll(CurrentIo().err,
             fmt::format("floe serve: authentication is off (no --token-file or "
                         "--credentials-file): every client that reaches {}:{} can read, change "
                         "and drop every table\n",
                         shown, http->port()));
  }
  WriteAll(CurrentIo().out, fmt::format("floe serve: listening on http://{}:{}\n", shown, http->port()));
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig != 0) http->Stop();
  });
  Status served = http->Serve();
  // Serve also returns when the listener fails: wake the waiter then.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  WriteAll(CurrentIo().err, "floe serve: stopped\n");
  return served;
}

}  // namespace

void AddServeCommand(CLI::App* root, CommandContext* ctx) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd =
      root->add_subcommand("serve", "Serve a catalog over the Iceberg REST catalog protocol");
  args->catalog.AddTo(cmd);
  cmd->add_option("--listen", args->listen, "HOST:PORT to listen on (port 0 picks a free one)")
      ->capture_default_str();
  cmd->add_option("--token-file", args->token_file,
                  "Accept the bearer tokens in this file (one a line)");
  cmd->add_option("--credentials-file", args->credentials_file,
                  "OAuth clients for POST /v1/oauth/tokens (CLIENT_ID:SECRET lines); tokens it "
                  "issues are accepted");
  cmd->add_flag("--allow-unauthenticated", args->allow_unauthenticated,
               "Serve an address other than loopback without --token-file or --credentials-file "
               "(refused otherwise)");
  cmd->add_option("--allow-location-prefix", args->allowed_location_prefixes,
                  "Also accept table locations a client gives (create-table location, "
                  "register-table, set-location) under this prefix; the warehouse is always "
                  "accepted (repeatable)");
  cmd->add_option("--max-connections", args->max_connections,
                  "Open connections at most; one more is answered 503 at once")
      ->capture_default_str();
  cmd->add_option("--header-timeout", args->header_timeout,
                  "Time for a request's line and headers, from its first byte (408 after)")
      ->capture_default_str();
  cmd->add_option("--body-timeout", args->body_timeout,
                  "Time for a request's body after its headers, and for sending a response")
      ->capture_default_str();
  cmd->add_option("--idle-timeout", args->idle_timeout,
                  "How long a kept-alive connection may wait for its next request")
      ->capture_default_str();
  cmd->add_option("--max-body-size", args->max_body_size,
                  "The largest request body (K, M, G suffixes: KiB, MiB, GiB); 413 beyond")
      ->capture_default_str();
  cmd->callback([ctx, args] { ctx->action = [args] { return RunServe(*args); }; });
}

}  // namespace floe::cli
