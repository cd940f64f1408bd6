/// \file
/// Test support: an HTTP/1.1 proxy that injects faults between a client (the
/// S3 FileIO, a `floe` process) and a server (the S3 test server). It listens
/// on 127.0.0.1:0 and forwards each request to one target; an ordered rule
/// list decides, per request, whether it passes, is dropped before it
/// reaches the server, is answered with a 5xx S3 error, is answered late,
/// reaches the server but loses its answer (the server applied the write,
/// the client never hears), or has its answer cut off mid-body by a reset.
/// Counters and a log of every request let a test assert what happened.
///
/// Keep-alive connections carry several requests (each client connection
/// gets its own server connection); request and response bodies are framed
/// by Content-Length or chunked transfer coding (kept as sent), a response
/// without either ends at close. `Expect: 100-continue` is answered by the
/// proxy itself (it reads a whole request before deciding), and not passed
/// on. No external tool: the object-store fault tests run anywhere the
/// test server runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::test {

/// What the proxy does with a request a rule acts on.
enum class FaultAction : uint8_t {
  kPass,          ///< forward it and relay the answer
  kDrop,          ///< close the client's connection; nothing reaches the server
  kError,         ///< answer `status` with an S3 XML error body; nothing forwarded
  kDelay,         ///< forward it, hold the answer `delay_ms`, then relay it
  kDropReply,     ///< forward it (the server applies it), then close without answering
  kResetMidBody,  ///< forward it, relay the head and half the body, then reset (RST)
};

/// "pass", "drop", "error", "delay", "drop-reply", "reset-mid-body".
std::string_view FaultActionName(FaultAction action);

/// One rule. A request matches when every non-empty matcher holds; rules are
/// tried in order and the first that acts decides (no rule acts: kPass).
struct FaultRule {
  /// The request method ("PUT"), exactly; "" matches any.
  std::string method = {};
  /// A substring of the path (before '?'); "" matches any.
  std::string path = {};
  /// A substring of the query (after '?', e.g. "partNumber=2" or "uploads");
  /// "" matches any.
  std::string query = {};
  /// A header the request must carry (name, any case, e.g. "If-None-Match");
  /// "" matches any.
  std::string header = {};

  FaultAction action = FaultAction::kPass;
  /// kError: the status (500, 503, ...) and the S3 error code of the body
  /// ("" = InternalError for 500, SlowDown for 503, InjectedFault otherwise).
  int status = 500;
  std::string code = {};
  /// kDelay: how long the answer is held, milliseconds.
  int delay_ms = 0;

  /// Matching requests let through untouched before the rule starts acting
  /// (they go on to the later rules).
  int skip = 0;
  /// How many matching requests the rule acts on; -1 = every one.
  int times = -1;
  /// The chance that the rule acts on a matching request (drawn from the
  /// proxy's seeded generator, so a run is repeatable for a given order of
  /// requests).
  double probability = 1.0;
};

/// What the proxy has done since it started (or since ResetCounters).
struct FaultCounters {
  int64_t connections = 0;      ///< client connections accepted
  int64_t requests = 0;         ///< whole requests read from clients
  int64_t forwarded = 0;        ///< requests sent on to the server
  int64_t passed = 0;           ///< answers relayed untouched (kPass and kDelay)
  int64_t dropped = 0;          ///< kDrop
  int64_t errors = 0;           ///< kError
  int64_t delayed = 0;          ///< kDelay
  int64_t dropped_replies = 0;  ///< kDropReply
  int64_t resets = 0;           ///< kResetMidBody
  int64_t server_failures = 0;  ///< the server closed or failed before answering
};

/// One request as the proxy saw it.
struct ProxiedRequest {
  std::string method = {};
  std::string target;  ///< path and query, as sent
  FaultAction action = FaultAction::kPass;
  /// The server's status, 0 when the request was not forwarded or the
  /// server did not answer.
  int server_status = 0;
  /// Request body bytes (as framed on the wire).
  int64_t body_bytes = 0;
};

class FaultProxy {
 public:
  /// Starts a proxy on 127.0.0.1:0 that forwards to `target`
  /// ("http://HOST:PORT" or "HOST:PORT", an IPv4 address or "localhost").
  /// `seed` drives the rules' probabilities.
  static Result<std::unique_ptr<FaultProxy>> Start(std::string_view target, uint64_t seed = 1);

  /// Stops listening, cuts every open connection and joins the workers.
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  /// The port it listens on, and "http://127.0.0.1:PORT".
  int port() const;
  std::string endpoint() const;

  /// Appends a rule (tried after the ones before it).
  void AddRule(FaultRule rule);
  /// Removes every rule: from now on everything passes.
  void ClearRules();

  FaultCounters counters() const;
  /// Every request so far, in the order their actions were decided.
  std::vector<ProxiedRequest> requests() const;
  /// How many requests so far had `method` ("" any) and a target containing
  /// `target_part`, and were forwarded to the server.
  int64_t ForwardedCount(std::string_view method, std::string_view target_part) const;
  /// Zeroes the counters and forgets the request log.
  void ResetCounters();

  struct State;

 private:
  explicit FaultProxy(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace floe::test
