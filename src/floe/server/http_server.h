/// \file
/// Puts a RestService on a TCP socket: floe's own HTTP/1.1 transport. One
/// event-loop thread accepts connections and reads requests without blocking,
/// so a slow or idle client costs a buffer, never a worker; complete requests
/// go to a fixed pool of worker threads that call the service. HttpLimits
/// bound the time a request's headers and its body may take, how long a
/// connection may wait between requests, the open connections (one more is
/// refused at once) and the body size. A stop finishes the requests in
/// flight.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "floe/server/rest_service.h"
#include "floe/util/status.h"

namespace floe::server {

/// What one client may hold of the server (`floe serve` options of the same
/// names; README "floe serve"). Every limit answers with the spec's ErrorModel
/// and closes the connection.
struct HttpLimits {
  /// Open connections; the next one is answered 503 and closed at once.
  int max_connections = 128;
  /// From a request's first byte (or its connection's opening) to the end
  /// of its headers: 408 after.
  std::chrono::milliseconds header_timeout{10'000};
  /// From the end of a request's headers to the end of its body, and for
  /// sending a response: 408 (or, sending, a close) after.
  std::chrono::milliseconds body_timeout{60'000};
  /// How long a kept-alive connection may wait for its next request (it is
  /// closed quietly after).
  std::chrono::milliseconds idle_timeout{30'000};
  /// The largest request body, by Content-Length or as decoded from chunks:
  /// 413 beyond (refused before it is read when Content-Length says so).
  size_t max_body_bytes = size_t{16} << 20;
  /// The largest request line and headers together: 431 beyond.
  size_t max_header_bytes = size_t{64} << 10;
  /// Threads that run requests (at least 1).
  int workers = 8;
};

class HttpServer {
 public:
  /// Binds `host:port` (port 0: any free port). kIo naming the address when
  /// it cannot be bound.
  static Result<std::unique_ptr<HttpServer>> Bind(RestService* service, const std::string& host,
                                                  int port, HttpLimits limits = {});
  ~HttpServer();

  /// The bound port.
  int port() const;
  /// Serves until Stop(); returns when the listener has closed and the
  /// requests in flight have been answered.
  Status Serve();
  /// Stops accepting and makes Serve() return (safe from another thread,
  /// before or during Serve()).
  void Stop();
  /// The connections open now (tests wait on it).
  int open_connections() const;

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::server
