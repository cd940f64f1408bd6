/// \file
/// A small S3 REST client over libcurl: signs each request with SigV4
/// (sigv4.h), reuses connections (a pool of curl handles, each keeping its
/// connections open), retries what is safe to retry with jittered
/// exponential backoff (5xx, 429, connection failures), and turns S3's XML
/// errors into floe Errors that name `s3://bucket/key`, the HTTP status and
/// S3's error code and message. Header values (the Authorization header, the
/// session token) and the secret never appear in any text it makes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/s3/sigv4.h"
#include "floe/util/status.h"

namespace floe::s3 {

/// Everything the client and the FileIO are configured with (from catalog
/// properties, see S3ConfigFromProperties in s3_file_io.h).
struct S3Config {
  /// `http(s)://host[:port]`; empty: `https://s3.<region>.amazonaws.com`.
  std::string endpoint;
  std::string region = "us-east-1";
  Credentials credentials;
  /// Path-style (`endpoint/bucket/key`) instead of virtual-host
  /// (`bucket.endpoint/key`) addressing.
  bool path_style = false;
  /// Multipart part size (Iceberg: s3.multipart.part-size-bytes, default
  /// 32 MiB); S3 allows 5 MiB at least for every part but the last.
  int64_t part_size = 32LL << 20;
  /// Parts uploaded at once per output file; the memory an output holds is
  /// at most (max_parts_in_flight + 1) * part_size.
  int max_parts_in_flight = 2;
  /// The smallest ranged GET an input makes (small reads are served from it).
  int64_t read_ahead = 1LL << 20;
  /// max-keys of a listing page (tests make it small to see pagination).
  int list_page_size = 1000;
  /// Keys per DeleteObjects request (S3 allows 1000 at most).
  int delete_batch = 1000;
  /// Attempts of a request that may be retried (1 = no retry; Iceberg's
  /// s3.retry.num-retries is this minus one).
  int max_attempts = 5;
  /// The wait before retry n is drawn uniformly from [retry_min_wait_ms,
  /// min(retry_max_wait_ms, retry_min_wait_ms * 2^n)] (s3.retry.min-wait-ms,
  /// s3.retry.max-wait-ms): see RetryWaitMs.
  int64_t retry_min_wait_ms = 50;
  int64_t retry_max_wait_ms = 5000;
  /// Connecting to the store (s3.connection-timeout-ms).
  int64_t connect_timeout_ms = 10000;
  /// A request during which no byte moves for this long, once connected, is
  /// failed as a stalled peer (s3.socket-timeout-ms); checked about once a
  /// second.
  int64_t stall_timeout_ms = 60000;
  /// The whole of one request (a part upload included); fixed.
  int64_t request_timeout_ms = 600000;
};

/// The wait in milliseconds before retry `retry` (1 for the first) of a
/// request: uniform in [min, min(max, min * 2^retry)] with min and max the
/// config's retry waits ("full jitter" above a floor, so that writers that
/// failed together do not come back together).
int64_t RetryWaitMs(const S3Config& config, int retry);

/// One S3 request. `key` is the decoded object key ("" for the bucket).
struct S3Request {
  std::string method;
  std::string bucket;
  std::string key;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
};

struct S3Response {
  int64_t status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< names in lower case

  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// What one exchange (with its retries) came to.
struct Exchange {
  bool ok = false;      ///< a response arrived (any status)
  S3Response response;  ///< when ok
  std::string failure;  ///< when !ok: why no response (libcurl's text)
  /// Some attempt's bytes may have reached the server, and its outcome is
  /// not known (a transport failure after sending, or a 5xx answer).
  bool maybe_applied = false;
  int attempts = 0;
};

/// Whether a request may be sent again after a failure whose outcome is
/// unknown. kNever is for conditional writes whose caller decides.
enum class Retry : uint8_t { kIdempotent, kNever };

class S3Client {
 public:
  explicit S3Client(S3Config config);
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  const S3Config& config() const { return config_; }

  /// Sends `request`, retrying 5xx / 429 / transport failures with jittered
  /// backoff when `retry` allows (a transport failure before any byte was
  /// sent is retried always).
  Exchange Send(const S3Request& request, Retry retry = Retry::kIdempotent);

  /// Requests sent so far (each attempt counts), by method: for tests that
  /// check how many requests an operation makes.
  int64_t requests() const { return requests_.load(); }
  int64_t requests(std::string_view method) const;

  /// The URL and Host header of a request (tests check the addressing).
  std::pair<std::string, std::string> UrlOf(const S3Request& request) const;

 private:
  Exchange SendOnce(const S3Request& request);
  void* Acquire();
  void Release(void* handle);

  S3Config config_;
  std::string scheme_;    // http or https
  std::string hostport_;  // host[:port] of the endpoint
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles with their open connections
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> gets_{0}, heads_{0}, puts_{0}, posts_{0}, deletes_{0};
};

/// `s3://bucket/key` (any of s3, s3a, s3n), for messages.
std::string S3Uri(std::string_view bucket, std::string_view key);

/// The Error of a response that is not a success: 404 kNotFound, 403 access
/// denied (kIo, not retryable), 412 kAlreadyExists, 5xx/429 kIo retryable,
/// others kIo; the message names `what` (an operation), the object, the
/// status, and S3's error code and message from the XML body.
Error ErrorOf(const S3Response& response, std::string_view what, std::string_view bucket,
              std::string_view key);
/// What a response that is not a success says: "HTTP 500 InternalError: We
/// encountered an internal error..." (the status, S3's error code and message).
std::string ResponseSummary(const S3Response& response);
/// The Error of an exchange without a response.
Error TransportErrorOf(const Exchange& exchange, std::string_view what, std::string_view bucket,
                       std::string_view key);

/// The inner texts of every `<tag>...</tag>` in `xml`, in order (S3's
/// answers nest no element inside one of the same name), undecoded.
std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag);
/// The first one, decoded (entities), or nullopt.
std::optional<std::string> XmlText(std::string_view xml, std::string_view tag);
/// Decodes the XML entities (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;).
std::string XmlDecode(std::string_view text);
/// Escapes text for XML content.
std::string XmlEscape(std::string_view text);

/// Epoch milliseconds of an ISO 8601 time (`2024-05-01T10:00:00.000Z`) or an
/// HTTP date (`Wed, 01 May 2024 10:00:00 GMT`); 0 when it is neither.
int64_t ParseS3Time(std::string_view text);

/// A warning from the S3 code (an abort the store refused): handed to the
/// process-wide handler, which the catalog layer connects to its warnings.
void SetS3WarningHandler(std::function<void(const std::string&)> handler);
void S3Warn(const std::string& warning);

}  // namespace floe::s3
