/// \file
/// Test support for the REST catalog client: starts
/// tests/catalog/rest_test_server.mjs and, in front of it,
/// ../shared/interop/rest_validating_proxy.mjs (every request checked
/// against the OpenAPI document), as child processes stopped by pid when the
/// fixture goes away. Header-only: catalog_test and cli_test both use it.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/catalog/rest_http.h"
#include "testing/files.h"

namespace floe::test {

/// A child process whose first stdout line is read (its "ready" line).
class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { Stop(); }

  /// Starts `argv`; returns its first stdout line ("" if it exited first).
  std::string Start(const std::vector<std::string>& argv) {
    int fds[2];
    if (::pipe(fds) != 0) return "";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = ::fdopen(fds[0], "r");
    std::string line;
    for (int c; (c = std::fgetc(out_)) != EOF && c != '\n';) line.push_back(static_cast<char>(c));
    return line;
  }

  void Stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (out_) std::fclose(out_);
    out_ = nullptr;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

inline int FreePort() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

/// The test REST catalog behind the validating proxy.
class RestServer {
 public:
  /// `extra` goes to rest_test_server.mjs (--credential ID:SECRET, --token T).
  explicit RestServer(std::filesystem::path warehouse, std::vector<std::string> extra = {})
      : warehouse_(std::move(warehouse)) {
    std::filesystem::create_directories(warehouse_);
    std::vector<std::string> argv = {
        "node",        std::string(FLOE_SOURCE_DIR) + "/tests/catalog/rest_test_server.mjs",
        "--warehouse", warehouse_.string(),
        "--port",      "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::string ready = server_.Start(argv);
    if (ready.starts_with("listening ")) server_port_ = std::stoi(ready.substr(10));
    proxy_port_ = FreePort();
    std::string proxy_ready = proxy_.Start(
        {"node", SharedDir() + "/interop/rest_validating_proxy.mjs", std::to_string(proxy_port_),
         "http://127.0.0.1:" + std::to_string(server_port_)});
    if (!proxy_ready.starts_with("oas-proxy")) proxy_port_ = 0;
  }

  bool ok() const { return server_port_ > 0 && proxy_port_ > 0; }
  /// The catalog's uri: through the validating proxy.
  std::string uri() const { return "http://127.0.0.1:" + std::to_string(proxy_port_); }
  /// The server itself (no validation; a dropped connection stays dropped).
  std::string direct_uri() const { return "http://127.0.0.1:" + std::to_string(server_port_); }
  const std::filesystem::path& warehouse() const { return warehouse_; }

  /// Switches faults and settings (see rest_test_server.mjs).
  void Control(const nlohmann::json& c) const {
    (void)Send("POST", direct_uri() + "/__control", c.dump());
  }
  /// Counters and the requests seen.
  nlohmann::json State() const {
    return nlohmann::json::parse(Send("GET", direct_uri() + "/__state", ""));
  }
  /// The proxy's findings: {exchanges, violations}.
  nlohmann::json Violations() const {
    return nlohmann::json::parse(Send("GET", uri() + "/__oas/violations", ""));
  }

 private:
  static std::string Send(const std::string& method, const std::string& url,
                          const std::string& body) {
    catalog::rest::HttpRequest req{method, url, {{"Content-Type", "application/json"}}, body};
    auto out = catalog::rest::SendHttp(req, {});
    return out.ok ? out.response.body : "{}";
  }

  std::filesystem::path warehouse_;
  ChildProcess server_;
  ChildProcess proxy_;
  int server_port_ = 0;
  int proxy_port_ = 0;
};

}  // namespace floe::test
