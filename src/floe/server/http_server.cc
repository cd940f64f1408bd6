// The HTTP transport of `floe serve`: cpp-httplib's server with one
// catch-all handler per method that hands the request to the RestService.
// The raw request target is used for the path (not httplib's decoded one),
// so an encoded '/' or 0x1F inside a namespace or table name stays inside
// its segment.

#include "floe/server/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>

#include <httplib.h>

namespace floe::server {

namespace {

/// The port of a socket address, or -1.
int PortOf(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  return -1;
}

/// Test faults only (FLOE_SERVE_FAULT=commit-drop-reply): shuts down the
/// connection a request came on, so the client gets no reply at all.
/// httplib does not hand the socket to handlers; the connection is the one
/// open socket whose local and peer ports are the request's.
void DropConnection(const httplib::Request& req) {
  for (int fd = 3; fd < 4096; ++fd) {
    sockaddr_storage local{}, peer{};
    socklen_t ll = sizeof local, pl = sizeof peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0) continue;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0) continue;
    if (PortOf(local) == req.local_port && PortOf(peer) == req.remote_port) {
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
  }
}

}  // namespace

struct HttpServer::Impl {
  RestService* service = nullptr;
  httplib::Server http;
  int port = 0;
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

Result<std::unique_ptr<HttpServer>> HttpServer::Bind(RestService* service, const std::string& host,
                                                     int port) {
  auto impl = std::make_unique<Impl>();
  impl->service = service;
  // A response goes out as two writes (headers, then the body): with Nagle's
  // algorithm the body waits for the client's delayed ACK of the headers
  // (up to 40 ms on Linux) on every answer.
  impl->http.set_tcp_nodelay(true);
  auto handler = [service](const httplib::Request& req, httplib::Response& res) {
    HttpRequest r;
    r.method = req.method;
    std::string_view target = req.target;
    r.path = std::string(target.substr(0, target.find('?')));
    for (const auto& [k, v] : req.params) r.query.emplace(k, v);
    for (const auto& [k, v] : req.headers) {
      std::string name = k;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers.emplace(std::move(name), v);
    }
    r.body = req.body;
    HttpResponse out = service->Handle(r);
    if (out.drop_connection) {
      DropConnection(req);
      return;
    }
    res.status = out.status;
    if (!out.body.empty()) res.set_content(out.body, out.content_type.c_str());
  };
  impl->http.Get(".*", handler);  // HEAD is routed to the GET handlers
  impl->http.Post(".*", handler);
  impl->http.Put(".*", handler);
  impl->http.Delete(".*", handler);
  impl->http.Patch(".*", handler);
  if (port == 0) {
    impl->port = impl->http.bind_to_any_port(host);
  } else {
    impl->port = impl->http.bind_to_port(host, port) ? port : -1;
  }
  if (impl->port <= 0)
    return IoError("cannot listen on {}:{} (in use, or not an address of this machine)", host,
                   port);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const { return impl_->port; }

Status HttpServer::Serve() {
  if (!impl_->http.listen_after_bind())
    return IoError("the listener on port {} failed", impl_->port);
  return Ok();
}

void HttpServer::Stop() { impl_->http.stop(); }

}  // namespace floe::server
