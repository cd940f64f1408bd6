/// \file
/// AWS Signature Version 4 for S3 (AWS docs: "Authenticating Requests: Using
/// the Authorization Header (AWS Signature Version 4)" and its "Examples"):
/// the canonical request, the string to sign, the signing key and the
/// Authorization header, as pure functions of the request and a fixed time so
/// that tests compare every step with AWS's documented example values and
/// with botocore. Hashing is OpenSSL's (SHA-256, HMAC-SHA256, MD5 for the
/// Content-MD5 that DeleteObjects requires).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::s3 {

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);
/// The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);
/// Base64 of the raw MD5 of `data` (the Content-MD5 header).
std::string Md5Base64(std::string_view data);
/// Lower-case hex MD5 of `data` (multipart ETags).
std::string Md5Hex(std::string_view data);
/// Lower-case hex of raw bytes.
std::string HexOf(std::string_view raw);

/// SigV4 URI encoding: every byte but the unreserved A-Z a-z 0-9 - _ . ~ as
/// %XY (upper-case hex); `/` kept when `keep_slash` (object key paths), else
/// encoded (query names and values).
std::string UriEncode(std::string_view text, bool keep_slash);

/// The credentials a request is signed with. The secret never leaves this
/// struct in any text (see s3_client.h: errors never carry headers).
struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  ///< sent as x-amz-security-token when set
};

/// One request to sign. `path` is the decoded object path (`/bucket/key` or
/// `/key`), `query` the decoded query parameters (an empty value is `name=`),
/// `headers` the headers to send and sign (any case; `host` must be there).
struct SigningRequest {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256;  ///< hex SHA-256 of the body (also sent as x-amz-content-sha256)
};

/// Every step, for tests and for the Authorization header.
struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;       ///< hex
  std::string signed_headers;  ///< `host;range;x-amz-content-sha256;x-amz-date`
  std::string authorization;   ///< the Authorization header value
};

/// `amz_date` is the x-amz-date value (`20130524T000000Z`), which must also
/// be among the headers; `region` e.g. us-east-1; `service` is s3.
Signature SignV4(const SigningRequest& request, const Credentials& credentials,
                 std::string_view amz_date, std::string_view region,
                 std::string_view service = "s3");

/// The encoded query string of a URL, in canonical order (what the request
/// line carries, so it equals what was signed).
std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query);

/// x-amz-date for a time (seconds since the epoch, UTC).
std::string AmzDate(int64_t epoch_seconds);

}  // namespace floe::s3
