// AWS Signature Version 4 (sigv4.h), on OpenSSL's digests.
#include "floe/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>

#include "floe/util/strings.h"

namespace floe::s3 {

namespace {

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), out, &n, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), n);
}

// A header value as SigV4 canonicalizes it: leading and trailing spaces
// removed, runs of spaces inside made one.
std::string TrimValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string HexOf(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Sha256Hex(std::string_view data) { return HexOf(Digest(EVP_sha256(), data)); }

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<const char*>(out), n);
}

std::string Md5Hex(std::string_view data) { return HexOf(Digest(EVP_md5(), data)); }

std::string Md5Base64(std::string_view data) {
  const std::string raw = Digest(EVP_md5(), data);
  unsigned char out[64];
  int n = EVP_EncodeBlock(out, reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  // Sorted by encoded name, then encoded value (AWS: "Sort the parameter
  // names by character code point in ascending order").
  std::vector<std::pair<std::string, std::string>> enc;
  enc.reserve(query.size());
  for (const auto& [k, v] : query) enc.emplace_back(UriEncode(k, false), UriEncode(v, false));
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [k, v] : enc) {
    if (!out.empty()) out += '&';
    out += k;
    out += '=';
    out += v;
  }
  return out;
}

Signature SignV4(const SigningRequest& request, const Credentials& credentials,
                 std::string_view amz_date, std::string_view region, std::string_view service) {
  Signature sig;
  // Canonical headers: lower-case names, sorted; values trimmed; a header
  // given twice is joined with commas.
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [k, v] : request.headers) headers.emplace_back(ToLower(k), TrimValue(v));
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.pop_back();  // the newline
      canonical_headers += "," + headers[i].second + "\n";
      continue;
    }
    if (!sig.signed_headers.empty()) sig.signed_headers += ';';
    sig.signed_headers += headers[i].first;
    canonical_headers += headers[i].first + ":" + headers[i].second + "\n";
  }
  // S3 encodes the path once (other services twice); an empty path is "/".
  std::string path = request.path.empty() ? "/" : UriEncode(request.path, true);
  sig.canonical_request = request.method + "\n" + path + "\n" +
                          CanonicalQueryString(request.query) + "\n" + canonical_headers + "\n" +
                          sig.signed_headers + "\n" + request.payload_sha256;
  const std::string date(amz_date.substr(0, 8));
  const std::string scope =
      date + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  sig.string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" +
                       Sha256Hex(sig.canonical_request);
  std::string key = HmacSha256("AWS4" + credentials.secret_access_key, date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  sig.signature = HexOf(HmacSha256(key, sig.string_to_sign));
  sig.authorization = "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope +
                      ",SignedHeaders=" + sig.signed_headers + ",Signature=" + sig.signature;
  return sig;
}

std::string AmzDate(int64_t epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace floe::s3
