/// \file
/// Puts a RestService on a TCP socket (HTTP/1.1 through Debian's
/// cpp-httplib, which only http_server.cc includes): a pool of worker
/// threads, each request handed to the service, and a stop that finishes
/// the requests in flight.
#pragma once

#include <memory>
#include <string>

#include "floe/server/rest_service.h"
#include "floe/util/status.h"

namespace floe::server {

class HttpServer {
 public:
  /// Binds `host:port` (port 0: any free port). kIo naming the address when
  /// it cannot be bound.
  static Result<std::unique_ptr<HttpServer>> Bind(RestService* service, const std::string& host,
                                                  int port);
  ~HttpServer();

  /// The bound port.
  int port() const;
  /// Serves until Stop(); returns when the listener has closed.
  Status Serve();
  /// Stops accepting and makes Serve() return (safe from another thread).
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::server
