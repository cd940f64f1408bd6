// `floe serve`: an Iceberg REST catalog server over any floe catalog
// (server::RestService on server::HttpServer). Reads the bearer tokens and
// OAuth clients it accepts from files, prints its address when ready (tests
// and scripts wait for that line) and stops cleanly on SIGTERM or SIGINT.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "floe/cli/run.h"
#include "floe/cli/table_args.h"
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
};

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
  if (const char* fault = std::getenv("FLOE_SERVE_FAULT")) {
    FLOE_ASSIGN_OR_RETURN(o.fault, server::ServeFault::Parse(fault));
  }
  FLOE_ASSIGN_OR_RETURN(auto service, server::RestService::Make(std::move(o)));

  // SIGTERM and SIGINT are taken by one thread that stops the server; every
  // other thread (httplib's workers are started after this) blocks them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  FLOE_ASSIGN_OR_RETURN(auto http,
                        server::HttpServer::Bind(service.get(), hostport.first, hostport.second));
  std::string shown =
      hostport.first.find(':') != std::string::npos ? "[" + hostport.first + "]" : hostport.first;
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
  cmd->callback([ctx, args] { ctx->action = [args] { return RunServe(*args); }; });
}

}  // namespace floe::cli
