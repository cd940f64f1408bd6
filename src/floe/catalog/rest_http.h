/// \file
/// The HTTP transport of the REST catalog client: one request, one response,
/// over libcurl, with connect and whole-request time-outs. It knows nothing
/// of the REST catalog's routes or errors (rest_catalog.cc maps those). A
/// transport failure says whether any of the request may have reached the
/// server: for a commit that is the line between "nothing happened" and
/// "commit state unknown". Header values are never put in error texts (they
/// carry the bearer token).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "floe/util/status.h"

namespace floe::catalog::rest {

struct HttpRequest {
  std::string method;  ///< GET, HEAD, POST, DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  ///< sent for POST
};

struct HttpResponse {
  int64_t status = 0;
  std::string body;
};

/// Why a request got no HTTP response.
struct TransportFailure {
  std::string message;  ///< libcurl's description (no header values)
  bool timed_out = false;
  /// Some bytes of the request were sent: the server may have acted on it.
  bool maybe_delivered = false;
};

struct HttpOutcome {
  bool ok = false;
  HttpResponse response;     ///< when ok
  TransportFailure failure;  ///< when !ok
};

/// Time-outs in milliseconds: connecting, and the whole exchange.
struct HttpTimeouts {
  int64_t connect_ms = 10000;
  int64_t request_ms = 60000;
};

/// Sends one request (a fresh connection each time; thread-safe).
HttpOutcome SendHttp(const HttpRequest& request, const HttpTimeouts& timeouts);

/// Percent-encodes `text` for a path segment or a query value (RFC 3986
/// unreserved characters stay as they are).
std::string UrlEncode(std::string_view text);

}  // namespace floe::catalog::rest
